"""The terminal view: drawing, typed outcomes, the coach's exact chances, the final table."""

import itertools
import json
import random
from fractions import Fraction

import pytest
from ek_helpers import final_step, new_state, placement, roll, set_hand, to_enchanted

from companion.games.core import InvalidAction
from companion.games.eagle_kingdoms import TEXT_VIEW, simulation_policy
from companion.games.eagle_kingdoms.rules import CAPTURE, ROLL, EagleKingdoms, capture_chance
from companion.games.playout import playout

VIEW = TEXT_VIEW()


def roll_states(variant=None, seeds=range(6), **options):
    """States waiting for a roll of the regular dice, from seeded random games."""
    game = EagleKingdoms(players=["Ann", "Ben", "Cy"], variant=variant, options=options)
    found = []
    picks = random.Random(1)  # which of them to keep
    for seed in seeds:
        state = game.new_initial_state()
        playout(state, random.Random(seed), simulation_policy,
                on_action=lambda s, _: s.phase == ROLL and picks.random() < 0.15 and found.append(s.clone()))
    return found


def brute_force(state):
    n = state.dice_count()
    hits = 0
    for dice in itertools.product(range(1, 7), repeat=n):
        twin = state.clone()
        twin.apply({"type": "roll", "dice": sorted(dice)})
        hits += twin.phase == CAPTURE
    return Fraction(hits, 6**n)


@pytest.mark.rules("EK-CAP-MATCH", "EK-SIX-1", "EK-FINAL-1", "EK-FINAL-2")
def test_capture_chance_matches_brute_force_over_36_outcomes():
    states = roll_states()
    states += [final_step({"peasant": n}) for n in range(6)]
    with_king = final_step({"peasant": 4}, holdings={0: {"king": 1}})  # 6:6 makes it 5: still no 6:6 win
    states.append(with_king)
    assert any(s.final_step() for s in states) and len(states) > 50
    for state in states:
        p = capture_chance(state)
        assert p == brute_force(state)
        line = VIEW.coach(state)[0]
        assert line.startswith("Chance that this roll captures something:")
        if (p * 36).denominator == 1:
            assert f"{p * 36}/36" in line


@pytest.mark.rules("EK-PARTY-4", "EK-PARTY-3")
def test_capture_chance_party_third_die_brute_force():
    states = roll_states(variant="party", seeds=range(3), third_die=True)
    assert any(s.dice_count() == 3 for s in states)
    for state in states:
        assert capture_chance(state) == brute_force(state)


def test_render_shows_available_pieces_turn_shield_and_scores():
    state = new_state(place={"plume-left-1": "king"})
    text = VIEW.render(state)
    assert "turn 1: Ann to play" in text
    assert "1:3  plume-left-1" in text and "King (10)" in text
    assert "crown-left" not in text  # locked: not listed
    assert "Centre shield: 0 characters" in text
    assert "Scores: Ann 0, Ben 0, Cy 0" in text
    final = final_step({"king": 2, "peasant": 1})
    text = VIEW.render(final)
    assert "Final step" in text and "a sum of 3" in text and "2 Kings, Peasant" in text


@pytest.mark.parametrize(
    "typed, dice",
    [("3 5", [3, 5]), ("5 3", [3, 5]), ("53", [3, 5]), ("6,6", [6, 6]), ("1+2", [1, 2])],
)
def test_typed_rolls(typed, dice):
    state = new_state()
    assert VIEW.parse_chance(state, typed) == {"type": "roll", "dice": dice}


@pytest.mark.parametrize("typed", ["7 1", "0 3", "1 2 3", "3", "three five", "35 1"])
def test_bad_typed_rolls_are_refused_in_one_line(typed):
    state = new_state()
    with pytest.raises(InvalidAction) as info:
        VIEW.parse_chance(state, typed)
    assert str(info.value) and "\n" not in str(info.value)


def test_typed_enchanted_die_duel_and_setup():
    state = new_state()
    roll(state, 1, 4)
    state.apply({"type": "roll-enchanted"})
    assert VIEW.parse_chance(state, "7") == {"type": "enchanted", "face": 7}
    for bad in ("9", "0", "1 2"):
        with pytest.raises(InvalidAction):
            VIEW.parse_chance(state, bad)
    state = new_state()
    set_hand(state, 0, {"knight": 1})
    set_hand(state, 1, {"king": 1})
    to_enchanted(state, 5)
    state.apply({"type": "challenge", "with": 1, "kind": "king"})
    assert VIEW.parse_chance(state, "2 5") == {"type": "duel", "dice": [2, 5]}  # order kept: challenger first
    assert "21/36" in VIEW.coach(state)[0]
    fresh = EagleKingdoms(players=["Ann", "Ben"]).new_initial_state()
    action = VIEW.parse_chance(fresh, "random")
    assert fresh.is_legal(action)
    pl = placement()
    assert VIEW.parse_chance(fresh, json.dumps(pl)) == {"type": "setup", "placement": pl}
    for bad in ("{not json", "[1, 2]", "king"):
        with pytest.raises(InvalidAction):
            VIEW.parse_chance(fresh, bad)
    with pytest.raises(InvalidAction):
        VIEW.parse_chance(new_state(), "random")  # the set-up is done: a roll of two dice is expected
    state = new_state()
    roll(state, 1, 3)
    with pytest.raises(InvalidAction):
        VIEW.parse_chance(state, "3 5")  # a decision, not dice


def test_choices_say_what_they_change():
    place = {"plume-left-1": "king", "feather-left-5": "peasant"}
    state = new_state(place=place)
    set_hand(state, 0, {"queen": 1, "duchess": 1, "duke": 1, "knight": 1, "minstrel": 1, "merchant": 1,
                        "vendor": 1, "squire": 1, "peasant": 1})
    roll(state, 1, 3)
    text = VIEW.describe_choice(state, {"type": "capture", "piece": "plume-left-1"})
    assert text == "Ann captures the King (10) from plume-left-1 - +25 points for you, completes a kingdom; unlocks crown-left"
    assert "ends your turn (no second roll)" in VIEW.describe_choice(state, {"type": "pass"})
    assert any("Passing ends your turn" in line for line in VIEW.coach(state))
    state = new_state()
    roll(state, 1, 4)
    assert VIEW.describe_choice(state, {"type": "roll-again"}).endswith("captures with 27/36 (75.0%)")
    assert "7 take" in VIEW.describe_choice(state, {"type": "roll-enchanted"})
    assert any(line.startswith("Rolling again captures with") for line in VIEW.coach(state))
    state = new_state()
    set_hand(state, 0, {"king": 1})
    to_enchanted(state, 1)
    assert VIEW.describe_choice(state, {"type": "give", "kind": "king", "to": 1}).endswith("-10 points for you, +10 points for Ben")


def test_action_strings():
    state = new_state()
    assert state.action_to_string({"type": "roll", "dice": [3, 5]}) == "Roll: 3+5"
    assert state.action_to_string({"type": "enchanted", "face": 8}).startswith("Enchanted Die: 8")
    assert state.action_to_string({"type": "nonsense"})  # never raises


@pytest.mark.rules("EK-SCORE-2", "EK-R-TIE")
def test_final_table_lists_holdings_kingdoms_bonus_total_and_winners():
    one_each = {k: 1 for k in ("king", "queen", "duchess", "duke", "knight", "minstrel", "merchant", "vendor", "squire", "peasant")}
    state = final_step({}, players=("Ann", "Ben"), holdings={0: dict(one_each), 1: {"king": 7}})
    state.hands[1] = [0] * 11
    set_hand(state, 1, {"king": 7})
    roll(state, 2, 2)
    state.apply({"type": "capture", "piece": "shield"})
    table = VIEW.final_table(state)
    lines = table.splitlines()
    assert lines[0].split() == ["Player", "Face", "Kingdoms", "Bonus", "Total", "Characters"]
    assert lines[1].split()[:5] == ["Ann", "55", "1", "15", "70"]
    assert lines[2].split()[:5] == ["Ben", "70", "0", "0", "70"]
    assert lines[-1] == "Shared win: Ann, Ben"
