"""End of the game, points and the winner (MM-END-1, MM-SCORE-*, MM-WIN-*, MM-YOUNG-1)."""

import pytest
from mm_helpers import position, roll, turn

from companion.games.core import TERMINAL, IllegalAction
from companion.games.mighty_magpies.rules import points_of, ring_points

EMPTY = {n: "" for n in "ABCDEFG"}


def points_problems(state):
    """Invariant problems about points (these hand-made positions do not hold all 25 tiles)."""
    return [p for p in state.check_invariants() if "points" in p]


def finished(holdings, players=("Ann", "Ben"), variant=None):
    """A finished game: every nest empty, the given holdings."""
    state = position(players, nests=EMPTY, holdings=holdings, phase="over", variant=variant)
    assert state.is_terminal() and state.current_player == TERMINAL
    return state


@pytest.mark.rules("MM-END-1")
def test_the_game_ends_when_the_last_tile_leaves_the_nests():
    state = position(nests={**EMPTY, "G": "s", "A": "b"}, holdings={0: {"berry": 18, "silver": 2, "gold": 3}})
    state.apply(roll("red", "magpie"))
    state.apply(turn(("r1", "silver")))
    assert not state.is_terminal() and state.tiles_left() == 1  # one berry still in nest A
    state.apply(roll("yellow", "blue"))
    state.apply(turn())  # Ben stays in the red nest
    state.apply(roll("green", "magpie"))
    state.apply(turn(("g2", "berry"), steal=[]))
    assert state.is_terminal() and state.current_player == TERMINAL
    assert state.legal_actions() == []
    with pytest.raises(IllegalAction) as info:
        state.apply(roll("red", "red"))
    assert info.value.rule_id == "MM-END-1"
    assert state.check_invariants() == []


@pytest.mark.rules("MM-SCORE-1")
def test_a_berry_is_one_point():
    assert points_of(7, 0, 0) == 7
    state = position(nests={"G": "bbb"}, dice=("red", "magpie"))
    state.apply(turn(("r1", "berry")))
    assert state.scores() == [1, 0]


@pytest.mark.rules("MM-SCORE-2")
def test_rings_score_by_colour_one_three_five():
    assert [ring_points(n) for n in range(4)] == [0, 1, 3, 5]
    assert points_of(0, 2, 1) == 4 and points_of(2, 3, 3) == 12
    state = position(nests={"G": "ss", "A": "ss"}, holdings={0: {"silver": 1}}, dice=("red", "green"))
    state.apply(turn(("r1", "silver"), ("g2", "silver")))  # second and third silver ring: 1 -> 3 -> 5
    assert state.scores()[0] == 5 and points_problems(state) == []


@pytest.mark.rules("MM-WIN-1")
def test_most_points_wins():
    state = finished({0: {"berry": 10}, 1: {"berry": 9, "silver": 3, "gold": 3}})
    assert state.scores() == [10, 19] and state.winners() == [1]
    assert position().winners() == []


@pytest.mark.rules("MM-WIN-2")
def test_a_tie_on_points_goes_to_more_rings():
    state = finished({0: {"berry": 5, "silver": 1}, 1: {"berry": 6}})
    assert state.scores() == [6, 6] and state.winners() == [0]


@pytest.mark.rules("MM-WIN-3")
def test_then_more_gold_rings():
    state = finished({0: {"berry": 3, "silver": 2}, 1: {"berry": 2, "silver": 1, "gold": 1}})
    assert state.scores() == [6, 4]
    state = finished({0: {"berry": 4, "silver": 1, "gold": 1}, 1: {"berry": 4, "silver": 2}})
    assert state.scores() == [6, 7]
    state = finished({0: {"berry": 5, "silver": 1, "gold": 1}, 1: {"berry": 4, "silver": 2}})
    assert state.scores() == [7, 7] and state.winners() == [0]


@pytest.mark.rules("MM-WIN-4")
def test_a_complete_tie_is_a_shared_win():
    state = finished({0: {"berry": 4, "gold": 1}, 1: {"berry": 4, "gold": 1}, 2: {"berry": 1}}, ("Ann", "Ben", "Cy"))
    assert state.winners() == [0, 1]


@pytest.mark.rules("MM-YOUNG-1")
def test_young_variant_counts_every_tile_as_one_point_with_the_same_tie_breaks():
    holdings = {0: {"berry": 3, "silver": 3}, 1: {"berry": 5, "gold": 1}}
    standard = finished(holdings)
    young = finished(holdings, variant="young")
    assert standard.scores() == [8, 6] and standard.winners() == [0]
    assert young.scores() == [6, 6] and young.winners() == [0]  # tie: more rings
    tie = finished({0: {"berry": 4, "silver": 1}, 1: {"berry": 4, "gold": 1}}, variant="young")
    assert tie.winners() == [1]  # tie on tiles and rings: more gold
    playing = position(nests={"G": "ss"}, holdings={0: {"silver": 1}}, dice=("red", "magpie"), variant="young")
    playing.apply(turn(("r1", "silver")))
    assert playing.scores() == [2, 0] and points_problems(playing) == []
