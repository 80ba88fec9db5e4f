"""Set-up, the dice and the order of turns."""

import random
import re
from collections import Counter

import pytest
from ve_helpers import move, new_game, owls_on, position, refused

from companion.games import i18n
from companion.games.core import CHANCE, ConfigError, InvalidAction
from companion.games.playout import playout
from companion.games.verzauberte_eulen import TEXT_VIEW, simulation_policy
from companion.games.verzauberte_eulen.rules import VerzauberteEulen


def heads_by_colour(state, colour_letter):
    lay = state.lay
    return sorted(state.head[i] for i in range(len(lay.body_ids)) if lay.body_colour[i] == colour_letter)


@pytest.mark.rules("VE-COMP-OWLS")
@pytest.mark.parametrize(("players", "variant"), [(2, None), (3, None), (4, None), (2, "advanced")])
def test_seventeen_owls_of_separate_heads_and_bodies(players, variant):
    state = new_game(players, variant).new_initial_state()
    lay = state.lay
    assert len(lay.body_ids) == 17 and len(set(lay.body_ids)) == 17
    assert Counter(lay.body_colour) == {"R": 4, "B": 4, "G": 4, "Y": 4, "K": 1}
    assert Counter(state.head) == {"R": 4, "B": 4, "G": 4, "Y": 4, "K": 1}
    assert state.check_invariants() == []


@pytest.mark.rules("VE-SETUP-COLOUR", "VE-SETUP-CORNER")
@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_player_has_four_bodies_of_one_colour_in_their_own_corner(players):
    state = new_game(players).new_initial_state()
    lay, b = state.lay, state.board
    corners = set()
    for player in range(players):
        (colour,) = lay.player_colours[player]
        (nest,) = lay.player_nests[player]
        assert b.kind[nest] == "nest"
        corners.add(nest)
        here = state.occupants(nest)
        assert len(here) == 4 and {lay.body_colour[i] for i in here} == {colour}
    assert len(corners) == players


@pytest.mark.rules("VE-SETUP-COLOUR", "VE-SETUP-CORNER", "VE-SETUP-HEADS-2", "VE-RUL-BOX")
def test_players_choose_their_colours_and_corners():
    """'Each player chooses a colour ... Each player chooses a corner': options colours and corners, one per
    player in seat order; the heads, the box and the board follow the choice."""
    game = VerzauberteEulen(players=["Ann", "Ben"], options={"colours": "green,yellow", "corners": "north-west,e1"})
    assert game.options == {"colours": ["green", "yellow"], "corners": ["nw", "se"]}
    state = game.new_initial_state()
    assert owls_on(state, "a5") == ["Yg"] * 4 and owls_on(state, "e1") == ["Gy"] * 4  # Ann green in the north-west
    assert owls_on(state, "a1") == [] and owls_on(state, "e5") == []
    assert state.to_json()["owls"]["red1"] == {"at": "box", "head": "red"}
    text = TEXT_VIEW().render(state)
    assert "Nest of Ann: the north-west nest (a5): Yg Yg Yg Yg" in text and "Ann (green)" in text
    german = i18n.board_text(state, "de")
    assert "Nest von Ann: das Nest im Nordwesten (a5)" in german and "Ann (grün)" in german
    # the choice is the journal's: the configuration rebuilds the same game
    assert VerzauberteEulen.from_config(game.config()).new_initial_state() == state
    advanced = VerzauberteEulen(players=["Ann", "Ben"], variant="advanced", options={"colours": "blue,yellow,red,green"})
    assert advanced.layout.player_colours == (frozenset("BY"), frozenset("RG"))
    assert owls_on(advanced.new_initial_state(), "a1")[0][1] == "b"  # Ann's blue starts in the south-west


@pytest.mark.rules("VE-SETUP-COLOUR", "VE-SETUP-CORNER")
def test_a_wrong_choice_of_colours_or_corners_is_refused_plainly():
    players = ["Ann", "Ben"]
    for options, words in (
        ({"corner": "ne"}, "no option 'corner' (did you mean 'corners'?)"),
        ({"corners": "ne,ne"}, "Each corner can be chosen once"),
        ({"corners": "ne,middle"}, "'middle' is not one of them"),
        ({"colours": "red"}, "lists 2 colours here (one per player"),
        ({"colours": "red,purple"}, "red, blue, green, yellow"),
    ):
        with pytest.raises(ConfigError, match=re.escape(words)):
            VerzauberteEulen(players=players, options=options)
    with pytest.raises(ConfigError, match="two colours per player"):
        VerzauberteEulen(players=players, variant="advanced", options={"colours": "red,blue"})
    # German colour names are understood
    assert VerzauberteEulen(players=players, options={"colours": "rot,grün"}).options["colours"] == ["red", "green"]
    # a game with chosen corners plays to its end
    game = VerzauberteEulen(players=["Ann", "Ben", "Cy"], options={"corners": "ne,nw,sw"})
    state = game.new_initial_state()
    playout(state, random.Random(3), simulation_policy, apply=state.apply)
    assert state.is_terminal() and state.check_invariants() == []

@pytest.mark.rules("VE-SETUP-HEADS-2")
def test_two_players_wear_the_four_heads_of_the_opposing_colour():
    state = new_game(2).new_initial_state()
    assert heads_by_colour(state, "R") == ["B"] * 4
    assert heads_by_colour(state, "B") == ["R"] * 4
    assert owls_on(state, "a1") == ["Br"] * 4 and owls_on(state, "e5") == ["Rb"] * 4


@pytest.mark.rules("VE-SETUP-HEADS-3")
def test_three_players_wear_two_heads_each_of_the_two_opposing_colours():
    state = new_game(3).new_initial_state()
    assert heads_by_colour(state, "R") == ["B", "B", "G", "G"]
    assert heads_by_colour(state, "B") == ["G", "G", "R", "R"]
    assert heads_by_colour(state, "G") == ["B", "B", "R", "R"]


@pytest.mark.rules("VE-SETUP-HEADS-4")
def test_four_players_wear_one_head_of_each_opponent_and_one_of_their_own():
    state = new_game(4).new_initial_state()
    for colour in "RBGY":
        assert heads_by_colour(state, colour) == sorted("RBGY")
    assert "Rr" in owls_on(state, "a1")


@pytest.mark.rules("VE-SETUP-BLACK")
@pytest.mark.parametrize("players", [2, 3, 4])
def test_black_owl_starts_in_the_cave(players):
    state = new_game(players).new_initial_state()
    assert owls_on(state, "c3") == ["Kk"]


@pytest.mark.rules("VE-RUL-BOX")
def test_unused_colours_stay_in_the_box():
    two = new_game(2).new_initial_state()
    boxed = [two.lay.body_ids[i] for i, s in enumerate(two.space) if s < 0]
    assert sorted(boxed) == sorted([f"green{n}" for n in range(1, 5)] + [f"yellow{n}" for n in range(1, 5)])
    assert two.to_json()["owls"]["green1"] == {"at": "box", "head": "green"}
    three = new_game(3).new_initial_state()
    assert sorted(three.lay.body_ids[i] for i, s in enumerate(three.space) if s < 0) == [
        f"yellow{n}" for n in range(1, 5)
    ]
    assert all(s >= 0 for s in new_game(4).new_initial_state().space)


@pytest.mark.rules("VE-ADV-SETUP")
def test_advanced_variant_two_players_each_with_two_colours_set_up_as_for_four():
    state = new_game(2, "advanced").new_initial_state()
    lay = state.lay
    assert lay.player_colours == (frozenset("RG"), frozenset("BY"))
    for player in range(2):
        bodies = [i for n in lay.player_nests[player] for i in state.occupants(n)]
        assert len(bodies) == 8
    for colour in "RBGY":
        assert heads_by_colour(state, colour) == sorted("RBGY")
    assert lay.target == 5
    with pytest.raises(ConfigError, match="two players"):
        new_game(3, "advanced")


@pytest.mark.rules("VE-COMP-DICE")
def test_roll_is_a_chance_step_with_216_equally_likely_outcomes():
    state = new_game().new_initial_state()
    assert state.current_player == CHANCE
    request = state.chance_request()
    assert request.roles == ("head", "body", "eye") and request.dice == ("d6", "d6", "d6")
    assert state.chance_action([3, 5, 1]) == {"type": "roll", "head": 3, "body": 5, "eye": 1}
    with pytest.raises(InvalidAction, match="eye shows 1-6; 0"):
        state.chance_action([3, 5, 0])
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 216
    assert {tuple(sorted(a)) for a, _ in outcomes} == {("body", "eye", "head", "type")}
    assert abs(sum(p for _, p in outcomes) - 1) < 1e-12
    for bad in (
        {"type": "roll", "head": 7, "body": 1, "eye": 1},
        {"type": "roll", "head": 0, "body": 1, "eye": 1},
        {"type": "roll", "head": 1, "body": True, "eye": 1},
        {"type": "roll", "dice": [1, 2, 3]},
    ):
        error = refused(state, bad, "VE-COMP-DICE")
        assert isinstance(error, InvalidAction)
    state.apply({"type": "roll", "head": 6, "body": 1, "eye": 3})
    assert state.dice == {"head": 6, "body": 1, "eye": 3}


@pytest.mark.rules("VE-TURN-ROLL")
def test_all_three_dice_are_rolled_before_any_move():
    state = new_game().new_initial_state()
    refused(state, move("body", "a1", "Br", "a1-b1"), "VE-TURN-ROLL")
    refused(state, {"type": "forfeit", "die": "eye"}, "VE-TURN-ROLL")
    state.apply({"type": "roll", "head": 1, "body": 1, "eye": 1})
    refused(state, {"type": "roll", "head": 1, "body": 2, "eye": 3}, "VE-TURN-ROLL")
    assert {a["die"] for a in state.legal_actions()} == {"head", "body"}


@pytest.mark.rules("VE-TURN-START")
@pytest.mark.parametrize("players", [2, 3, 4])
def test_youngest_listed_first_begins_and_turns_go_round(players):
    state = new_game(players).new_initial_state()
    order = []
    for _ in range(players + 1):
        assert state.is_chance_node()
        state.apply({"type": "roll", "head": 1, "body": 1, "eye": 1})
        order.append(state.current_player)
        while not state.is_chance_node():
            state.apply(state.legal_actions()[0])
    assert order == [*range(players), 0]
    assert state.turn_number == players + 1


@pytest.mark.rules("VE-RUL-NEST")
def test_nest_holds_its_four_owls_and_they_leave_one_by_one_without_swapping():
    state = position({}, dice=(1, 1, 1))
    assert owls_on(state, "a1") == ["Br"] * 4  # four owls on one space: the nest is not limited to two
    state.apply(move("body", "a1", "Br", "a1-b1"))
    assert owls_on(state, "a1") == ["Br"] * 3 and owls_on(state, "a1-b1") == ["Br"]
    # leaving a nest past the owls still in it swaps nothing
    assert state.check_invariants() == []
