"""Stealing berries from other players (MM-STEAL-*)."""

import pytest
from mm_helpers import position, turn

from companion.games.core import IllegalAction, InvalidAction

THREE = ("Ann", "Ben", "Cy")


def refused(state, action, rule, words=None):
    before = state.to_json()
    with pytest.raises(IllegalAction, match=words) as info:
        state.apply(action)
    assert info.value.rule_id == rule, str(info.value)
    assert state.to_json() == before


@pytest.mark.rules("MM-STEAL-1")
def test_a_magpie_face_steals_a_berry_from_an_opponent_who_has_berries():
    state = position(THREE, holdings={0: {"berry": 1}, 1: {"berry": 2}, 2: {"gold": 1}}, dice=("yellow", "magpie"))
    assert {tuple(a["steal"]) for a in state.legal_actions()} == {(1,), ()}
    refused(state, turn(steal=[0]), "MM-STEAL-1", "cannot rob him/herself")
    refused(state, turn(steal=[2]), "MM-STEAL-1", "Cy has no berries")
    no_magpie = position(THREE, holdings={1: {"berry": 2}}, dice=("yellow", "red"))
    refused(no_magpie, turn(steal=[1]), "MM-STEAL-1", "without a magpie face")
    with pytest.raises(InvalidAction, match="player number"):
        state.apply(turn(steal=[7]))
    state.apply(turn(steal=[1]))
    assert state.holdings(0)[0] == 2 and state.holdings(1)[0] == 1


@pytest.mark.rules("MM-STEAL-2")
def test_rings_are_never_stolen_from_players():
    state = position(THREE, holdings={1: {"berry": 1, "silver": 2, "gold": 1}}, dice=("magpie", "magpie"))
    refused(state, turn(steal=[{"player": 1, "tile": "silver"}]), "MM-STEAL-2", "Rings are never stolen")
    refused(state, turn(steal=[{"player": 1, "tile": "gold"}]), "MM-STEAL-2")
    for action in state.legal_actions():
        after = state.clone()
        after.apply(action)
        assert after.holdings(1)[1:] == (2, 1)
    # the long form naming the berry is accepted too
    state.apply(turn(steal=[{"player": 1, "tile": "berry"}]))
    assert state.holdings(1) == (0, 2, 1) and state.holdings(0) == (1, 0, 0)


@pytest.mark.rules("MM-STEAL-3")
def test_a_magpie_without_berries_to_steal_means_nothing():
    state = position(THREE, holdings={0: {"berry": 3}, 1: {"silver": 1}, 2: {"gold": 2}}, dice=("magpie", "magpie"))
    assert state.legal_actions() == [turn()]
    state.apply(turn())
    assert [state.holdings(p) for p in range(3)] == [(3, 0, 0), (0, 1, 0), (0, 0, 2)]


@pytest.mark.rules("MM-STEAL-4")
def test_two_magpies_steal_two_berries_from_one_or_two_players():
    state = position(THREE, holdings={1: {"berry": 2}, 2: {"berry": 1}}, dice=("magpie", "magpie"))
    assert sorted(tuple(a["steal"]) for a in state.legal_actions()) == [(), (1,), (1, 1), (1, 2), (2,)]
    poor = position(THREE, holdings={1: {"berry": 1}, 2: {"berry": 1}}, dice=("magpie", "magpie"))
    refused(poor, turn(steal=[1, 1]), "MM-STEAL-4", "only 1 berry")
    refused(poor, turn(steal=[1, 2, 2]), "MM-STEAL-4", "2 magpies: that is 2 berries at most")
    single = position(THREE, holdings={2: {"berry": 1}}, dice=("magpie", "magpie"))
    assert [a["steal"] for a in single.legal_actions()] == [[2], []]
    state.apply(turn(steal=[1, 1]))
    assert state.holdings(0)[0] == 2 and state.holdings(1)[0] == 0


@pytest.mark.rules("MM-STEAL-5")
def test_magpie_and_colour_steal_and_fly_then_the_turn_passes():
    # example 4: a magpie and a red; steal a berry from player 2, then fly red and take a tile
    state = position(THREE, nests={"G": "bsb"}, holdings={1: {"berry": 1}}, dice=("red", "magpie"))
    action = turn(("r1", "silver"), steal=[1])
    assert action in state.legal_actions()
    state.apply(action)
    assert state.holdings(0) == (1, 1, 0) and state.holdings(1) == (0, 0, 0)
    assert state.phase == "roll" and state.player == 1


@pytest.mark.rules("MM-STEAL-6")
def test_stealing_is_optional_a_player_may_steal_fewer_berries_or_none():
    """'He/she may steal one berry': the magpie face offers a theft, it does not force one."""
    state = position(THREE, holdings={1: {"berry": 1}, 2: {"berry": 1}}, dice=("magpie", "magpie"))
    assert [a["steal"] for a in state.legal_actions()] == [[1, 2], [1], [2], []]  # the most first
    assert state.action_to_string(turn()) == "Ann stays in nest R; steals no berry"
    fewer = state.clone()
    fewer.apply(turn(steal=[2]))  # one berry of the two the magpies allow
    assert [fewer.holdings(p)[0] for p in range(3)] == [1, 1, 0]
    state.apply(turn())  # none at all
    assert [state.holdings(p)[0] for p in range(3)] == [0, 1, 1] and state.player == 1
    one = position(THREE, nests={"G": "bsb"}, holdings={1: {"berry": 3}}, dice=("red", "magpie"))
    one.apply(turn(("r1", "berry")))  # flies and takes, but leaves Ben's berries alone
    assert one.holdings(0) == (1, 0, 0) and one.holdings(1) == (3, 0, 0)
