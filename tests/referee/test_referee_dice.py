"""Dice readings meet the rules (companion.referee.dice): roles, unclear extras, new throws, the action."""

from __future__ import annotations

import random

import pytest

from companion.games.core import InvalidAction
from companion.games.registry import load_game
from companion.referee.dice import (
    DieValue,
    dice_told_apart,
    dice_values,
    entered_dice,
    in_game_terms,
    is_new_roll,
    read_roll,
    reader_kinds,
    roll_action,
    usual_roll,
    wanted_dice,
    with_correction,
)


def _reading(kind, value, x, uncertain=False, identity=None, confidence=0.97):
    r = {"kind": kind, "value": value, "box": [x, 100, 40, 40], "confidence": confidence, "uncertain": uncertain}
    if identity:
        r["identity"] = identity
    return r


def _owls_at_roll():
    game = load_game("verzauberte-eulen").game_class(players=["Ann", "Ben"])
    state = game.new_initial_state()
    rng = random.Random(1)
    while not (state.is_chance_node() and wanted_dice(state)):  # the set-up, whatever it asks
        state.apply_unchecked(state.sample_chance(rng) if state.is_chance_node() else state.legal_actions()[0])
    return state


def _eagle_at_roll():
    game = load_game("eagle-kingdoms").game_class(players=["Ann", "Ben"])
    state = game.new_initial_state()
    state.apply_unchecked(state.sample_chance(random.Random(3)))  # the random set-up
    return state


def test_wanted_dice_follow_the_chance_request():
    state = _eagle_at_roll()
    specs = wanted_dice(state)
    assert [s.kind for s in specs] == ["d6", "d6"] and specs[0].faces == [1, 2, 3, 4, 5, 6]
    assert wanted_dice(None) == []


def test_a_complete_roll_becomes_the_engines_action():
    state = _eagle_at_roll()
    roll = read_roll(wanted_dice(state), [_reading("d6", 5, 300), _reading("d6", 2, 100)])
    assert roll.complete and not roll.uncertain
    action = state.chance_action([d.value for d in roll.dice])
    assert sorted(dice_values(action)) == [2, 5]
    assert state.is_legal(action)


def test_too_few_dice_is_not_a_roll():
    state = _eagle_at_roll()
    roll = read_roll(wanted_dice(state), [_reading("d6", 5, 300)])
    assert not roll.complete and roll.seen == 1


def test_unclear_extras_are_set_aside_only_when_the_sure_ones_make_the_roll():
    specs = wanted_dice(_eagle_at_roll())
    sure_two = [_reading("d6", 5, 300), _reading("d6", 2, 100), _reading("d6", 4, 500, uncertain=True)]
    roll = read_roll(specs, sure_two)
    assert roll.complete and roll.set_aside == 1 and sorted(d.value for d in roll.dice) == [2, 5]
    # a confident third die: nothing is set aside, the roll is not two dice
    three_sure = [_reading("d6", 5, 300), _reading("d6", 2, 100), _reading("d6", 4, 500)]
    assert not read_roll(specs, three_sure).complete


def test_owl_dice_without_identity_get_guessed_roles_marked_uncertain():
    specs = wanted_dice(_owls_at_roll())
    assert dice_told_apart([s.role for s in specs])
    kinds = [s.kind for s in specs]
    faces = [s.faces[i] for i, s in enumerate(specs)]  # head, body and eye showing different faces
    readings = [_reading(k, f, 100 * (i + 1)) for i, (k, f) in enumerate(zip(kinds, faces, strict=True))]
    roll = read_roll(specs, readings)
    assert roll.complete and roll.guessed_roles and all(d.uncertain for d in roll.dice)
    # the same face on every die: each role shows it whichever die is whose
    alike = read_roll(specs, [_reading(k, specs[0].faces[0], 100 * (i + 1)) for i, k in enumerate(kinds)])
    assert alike.complete and not alike.guessed_roles


def test_a_role_two_dice_are_recognised_as_is_neither_dies_and_their_roles_are_asked():
    """Bench table, Verzauberte Eulen seed 7 r2 (action 20): head 2, body 1, eye 2 thrown; the body die and the eye
    die were both recognised as the eye die, the head die not at all. The first "eye" took the role, the other two,
    both showing 2, took head and body unasked: head 2, body 2, eye 1 confirmed, sure."""
    specs = wanted_dice(_owls_at_roll())
    assert [s.role for s in specs] == ["head", "body", "eye"]
    readings = [_reading("d6", 1, 465, identity="eye"), _reading("d6", 2, 598, identity="eye"), _reading("d6", 2, 103)]
    roll = read_roll(specs, readings)
    assert roll.complete and roll.guessed_roles and all(d.uncertain for d in roll.dice)
    one_each = [_reading("d6", 1, 465, identity="body"), _reading("d6", 2, 598, identity="eye"), _reading("d6", 2, 103)]
    told = read_roll(specs, one_each)
    assert not told.guessed_roles and [(d.role, d.value) for d in told.dice] == [("head", 2), ("body", 1), ("eye", 2)]


def _eagle_at_duel():
    """Eagle Kingdoms at the dice of a challenge (EK-ED-DUEL: the challenger's die and the defender's)."""
    state = load_game("eagle-kingdoms").game_class(players=["A", "B", "C"]).new_initial_state()
    rng = random.Random(0)
    for _ in range(5000):
        if any(s.role.startswith("challenger") for s in wanted_dice(state)):
            return state
        state.apply_unchecked(state.sample_chance(rng) if state.is_chance_node() else rng.choice(state.legal_actions()))
    raise AssertionError("no challenge in 5000 actions")


@pytest.mark.rules("EK-ED-DUEL")
def test_duel_dice_showing_the_same_face_need_no_telling_apart():
    # EK-ED-DUEL: a tie wins for the challenger whoever threw which die; 4 against 3 depends on who threw the 4
    state = _eagle_at_duel()
    specs = wanted_dice(state)
    assert dice_told_apart([s.role for s in specs])
    tie = read_roll(specs, [_reading("d6", 4, 100), _reading("d6", 4, 300)])
    assert tie.complete and not tie.guessed_roles and not any(d.uncertain for d in tie.dice)
    apart = read_roll(specs, [_reading("d6", 4, 100), _reading("d6", 3, 300)])
    assert apart.complete and apart.guessed_roles and all(d.uncertain for d in apart.dice)


def test_registered_dice_take_their_roles_wherever_they_lie():
    specs = wanted_dice(_owls_at_roll())
    roles = [s.role for s in specs]
    # laid right to left: identity, not position, decides
    readings = [_reading(s.kind, s.faces[0], 500 - 100 * i, identity=s.role) for i, s in enumerate(specs)]
    roll = read_roll(specs, readings)
    assert roll.complete and not roll.guessed_roles
    assert [d.role for d in roll.dice] == roles
    assert [d.box[0] for d in roll.dice] == [500, 400, 300]


def test_one_unknown_die_left_is_not_a_guess():
    specs = wanted_dice(_owls_at_roll())
    readings = [_reading(s.kind, s.faces[0], 100 * i, identity=s.role if i < 2 else None) for i, s in enumerate(specs)]
    roll = read_roll(specs, readings)
    assert roll.complete and not roll.guessed_roles


@pytest.mark.parametrize("seen, new", [
    ([("d6", 5), ("d6", 2)], False),  # the roll just played, still lying there
    ([("d6", 5), ("d6", 3)], True),  # a die shows another face: thrown again
    ([("d6", 5)], True),  # a die of the roll picked up
    ([("d6", 5), ("d6", 2), ("d8", 7)], True),  # the Enchanted Die thrown early
    ([], False),
])
def test_new_throws_are_told_from_the_dice_just_played(seen, new):
    readings = [_reading(k, v, 100 * i) for i, (k, v) in enumerate(seen)]
    assert is_new_roll(readings, [("d6", "5"), ("d6", "2")]) is new


def test_an_unclear_find_of_another_kind_is_no_new_throw():
    readings = [_reading("d6", 5, 100), _reading("d6", 2, 200), _reading("d8", 3, 300, uncertain=True)]
    assert not is_new_roll(readings, [("d6", "5"), ("d6", "2")])


def test_kinds_between_the_games_and_the_reader():
    """The reader is asked only for the game's kinds of dice, in its own words (every kind when none is known)."""
    assert reader_kinds(("colour",)) == ("magpie",)
    assert reader_kinds(("d6", "d8")) == ("d6", "d8") and reader_kinds(("d6",)) == ("d6",)
    assert set(reader_kinds(())) == {"d6", "d8", "magpie"}
    assert in_game_terms({"kind": "magpie", "value": "red"})["kind"] == "colour"
    assert usual_roll(load_game("verzauberte-eulen").game_class)[0][0] == "head"
    assert usual_roll(load_game("eagle-kingdoms").game_class) == [("die 1", "d6"), ("die 2", "d6")]


def test_entered_and_corrected_dice_become_the_engines_roll():
    state = _owls_at_roll()
    specs = wanted_dice(state)
    entered = entered_dice(specs, [3, 5, 1])
    assert [(d.role, d.value, d.source) for d in entered] == [("head", 3, "manual"), ("body", 5, "manual"), ("eye", 1, "manual")]
    assert roll_action(state, entered) == state.chance_action([3, 5, 1])
    read = read_roll(specs, [_reading("d6", v, x, uncertain=x == 60) for v, x in ((3, 20), (4, 60), (1, 100))]).dice
    fixed = with_correction(read, 1, 5)
    assert (fixed[1].value, fixed[1].uncertain, fixed[1].confidence, fixed[1].source) == (5, False, 1.0, "corrected")
    assert read[1].value == 4 and read[1].source == "camera"  # the reading itself is kept as it was
    assert roll_action(state, fixed) == roll_action(state, entered)
    with pytest.raises(InvalidAction):
        roll_action(state, entered_dice(specs, [3, 5, 9]))  # no die has a 9
    unread = [DieValue(d.kind, d.role, None) for d in entered]
    with pytest.raises(InvalidAction, match="not one of its faces"):
        roll_action(state, unread)  # a die the camera could not read is no face either
