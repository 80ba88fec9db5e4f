"""End of the game: three owls in the cave, no black part on the rest; the advanced variant."""

import pytest
from ve_helpers import move, position, refused

from companion.games.core import TERMINAL


@pytest.mark.rules("VE-END-WIN")
def test_third_own_owl_in_the_cave_wins_at_once():
    state = position({"c3": ["Rr", "Rr", "Kk"], "c2-c3": ["Rr"], "b2": ["Bb"]}, dice=(1, 4, 2))
    assert state.scores() == [2.0, 0.0]
    state.apply(move("head", "c2-c3", "Rr", "c3"))
    assert state.is_terminal() and state.current_player == TERMINAL
    assert state.winners() == [0] and state.scores() == [3.0, 0.0]
    assert state.legal_actions() == []
    refused(state, move("body", "a1", "Br", "a1-b1"), "VE-END-WIN")
    refused(state, {"type": "roll", "head": 1, "body": 1, "eye": 1}, "VE-END-WIN")


@pytest.mark.rules("VE-END-WIN")
def test_owls_of_another_colour_in_the_cave_do_not_count():
    state = position({"c3": ["Bb", "Bb", "Rr"], "c2-c3": ["Rr"]}, dice=(1, 4, 2))
    state.apply(move("head", "c2-c3", "Rr", "c3"))
    assert not state.is_terminal()
    assert state.scores() == [2.0, 2.0]


@pytest.mark.rules("VE-END-BLACK")
def test_no_win_while_an_own_part_is_joined_with_a_black_part():
    # Ann's last red body wears the black head: three red owls in the cave are not enough
    state = position({"c3": ["Rr", "Rr"], "c2-c3": ["Rr"], "b2": ["Kr"], "c2": ["Bb"], "d4": ["Bk"]}, dice=(1, 2, 2))
    state.apply(move("head", "c2-c3", "Rr", "c3"))
    assert not state.is_terminal() and state.black_on(0)
    state.apply(move("body", "b2", "Kr", "c2"))  # lands on Ben's Bb: the black head passes to the blue body
    assert state.is_terminal() and state.winners() == [0]


@pytest.mark.rules("VE-END-BLACK")
def test_own_head_on_the_black_body_also_stops_the_win():
    state = position({"c3": ["Rr", "Rr"], "c2-c3": ["Rr"], "b2": ["Rk"], "e2": ["Kb"]}, dice=(1, 4, 2))
    state.apply(move("head", "c2-c3", "Rr", "c3"))
    assert not state.is_terminal()
    assert [state.owl(i) for i in state.black_on(0)] == ["Rk"]


@pytest.mark.rules("VE-RUL-WIN-CHECK")
def test_a_move_can_make_another_player_win_and_the_mover_is_checked_first():
    # Ben has three blue owls in the cave but wears the black head; Ann's swap takes it off him
    state = position({"c3": ["Bb", "Bb", "Bb"], "b2": ["Kb"], "b4": ["Br"], "e2": ["Rk"]}, dice=(1, 2, 5))
    assert not state.is_terminal()
    state.apply(move("body", "b4", "Br", "b3"))
    assert not state.is_terminal()
    state.left = ["body", "eye"]
    state.dice["body"] = 1
    state.apply(move("body", "b3", "Br", "b2-b3"))
    assert not state.is_terminal()
    state.dice["body"] = 1
    state.left = ["body", "eye"]
    state.apply(move("body", "b2-b3", "Br", "b2"))  # lands on Kb: Ann's body gets the black head, Ben's gets his own
    assert state.is_terminal() and state.winners() == [1]
    # when both players meet the goal at the same moment, the mover wins
    both = position({"c3": ["Bb", "Bb", "Bb", "Rr", "Rr", "Rr"]}, dice=(1, 1, 1))
    both.apply(move("head", "e5", "Rb", "d5-e5"))
    assert both.winners() == [0]
    both = position({"c3": ["Bb", "Bb", "Bb", "Rr", "Rr", "Rr"]}, dice=(1, 1, 1), to_move=1)
    both.apply(move("body", "e5", "Rb", "d5-e5"))
    assert both.winners() == [1]


@pytest.mark.rules("VE-ADV-WIN")
def test_advanced_variant_needs_five_single_colour_owls_of_either_own_colour():
    state = position(
        {"c3": ["Rr", "Rr", "Gg"], "c2-c3": ["Gg"], "c3-c4": ["Rr"], "b3-c3": ["Rg"]},
        players=2,
        variant="advanced",
        dice=(1, 1, 1),
    )
    state.apply(move("head", "c2-c3", "Gg", "c3"))
    assert not state.is_terminal() and state.cave_count(0) == 4  # three would win the standard game
    refused(state, move("body", "b3-c3", "Rg", "c3"), "VE-CAVE-ENTER")  # both own colours, but mixed
    state.apply(move("body", "c3-c4", "Rr", "c3"))
    assert state.is_terminal() and state.winners() == [0] and state.scores()[0] == 5.0
