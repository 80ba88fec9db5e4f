"""Threat warnings are exact: the fast search agrees with trying every action sequence."""

import random

import pytest
from fa_support import make_game, place, position, row

from companion.games.falconry import TEXT_VIEW, simulation_policy
from companion.games.falconry.threats import brute_force_finishes, next_turn_finishes, threats
from companion.games.playout import playout


def random_positions(mode, adjust, seed, count, max_steps, empty_hands=False):
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = make_game(mode, path_adjust=adjust).new_initial_state()
        playout(state, rng, simulation_policy, rng.randrange(max_steps), apply=state.apply)
        if not state.is_terminal():
            if empty_hands:
                state.hands = [[0, 0, 0] for _ in state.hands]
            found.append(state)
    return found


CASES = [
    ("duel", -1, 10, 20, False),
    ("duel", -1, 10, 24, True),
    ("fast-duel", -3, 10, 14, False),
    ("fast-duel", -2, 4, 14, True),
    ("allied", -2, 8, 14, False),
    ("truel", -3, 6, 14, False),
    ("joint", -2, 3, 16, True),
    ("quarrel", -3, 5, 12, False),
]


@pytest.mark.slow
@pytest.mark.rules("FA-WIN-1")
@pytest.mark.parametrize("mode, adjust, count, steps, empty", CASES)
def test_fast_threat_search_equals_brute_force(mode, adjust, count, steps, empty):
    seen = 0
    for seed in range(20):  # sample until some positions hold threats (capped)
        for state in random_positions(mode, adjust, seed, count, steps, empty):
            for seat in range(state.game.num_players):
                expected = brute_force_finishes(state, seat)
                assert next_turn_finishes(state, seat) == expected, (seat, state.to_json())
                seen += bool(expected)
            seat = state.current_player  # the rest of the turn in progress, lock included
            assert next_turn_finishes(state, seat, state.actions_left, state.locked) == brute_force_finishes(
                state, seat, state.actions_left, state.locked
            )
        if seen >= 2:
            break
    assert seen >= 2, "the sample should contain some threats"


@pytest.mark.slow
def test_winning_actions_are_exactly_the_winning_legal_actions():
    for mode, adjust in [("duel", -1), ("fast-duel", -2), ("allied", -1), ("joint", -2)]:
        for state in random_positions(mode, adjust, 9, 8, 16):
            expected = []
            for action in state.legal_actions():
                after = state.clone()
                after.apply(action)
                if after.is_terminal():
                    expected.append(action)
            assert sorted(map(str, state.winning_actions())) == sorted(map(str, expected))


@pytest.mark.rules("FA-MARK-1")
def test_a_gap_touching_nothing_is_a_two_action_threat():
    # diagonal line of three Hawk markers; both ends share no flat side with any card
    game = make_game("fast-duel", path_adjust=-2)
    table = {(0, 0): "HM", (1, 1): "HM", (2, 2): "HM", (1, 0): "EM", (2, 1): "EM"}
    state = position(game, table, to_act=1)
    finishes = next_turn_finishes(state, 0)
    assert finishes == brute_force_finishes(state, 0)
    assert frozenset({(3, 3)}) in finishes and frozenset({(-1, -1)}) in finishes
    assert next_turn_finishes(state, 0, actions=1) == set()  # one action is not enough


@pytest.mark.rules("FA-EXPOSE")
def test_breaking_the_path_that_pins_a_falconer_is_a_two_action_threat():
    game = make_game("fast-duel", path_adjust=-2)
    table = {
        **row("EM", [(0, -1), (1, -1), (3, -1)]),
        (2, -1): "EM HF",  # pinned: lifting it would expose Golden Eagle's path
        **row("HM", [(5, 0), (6, 0), (7, 0)]),
        (8, 0): "EB",
        (0, -2): "HB",
        (4, 0): "EF",
    }
    state = position(game, table, to_act=1, hands=[[0, 0, 0], [0, 0, 0]])
    finishes = next_turn_finishes(state, 0)
    assert finishes == brute_force_finishes(state, 0) == {frozenset({(8, 0)})}


@pytest.mark.rules("FA-JOINT-PATH")
def test_uncovering_two_ally_cards_is_a_threat_of_the_side():
    game = make_game("joint", path_adjust=-2)
    table = {(0, 0): "GM", (1, 0): "GM", (2, 0): "GM HB", (3, 0): "GM HF", (0, 1): "EF", (1, 1): "PF"}
    state = position(game, table, to_act=1)
    finishes = next_turn_finishes(state, 0)
    assert finishes == brute_force_finishes(state, 0)
    assert frozenset({(2, 0), (3, 0)}) in finishes


def test_coach_names_every_noble_who_wins_next_turn_and_where():
    game = make_game("duel")
    table = {**row("EM", [(0, -1), (1, -1), (2, -1), (3, -1)]), (0, 0): "HF", (1, 0): "HM", (2, 0): "HM"}
    state = position(game, table, to_act=0)
    lines = TEXT_VIEW(colour=False).coach(state)
    assert lines == ["Ben (Golden Eagle) wins next turn at (-1, -1) or (4, -1) unless blocked."]
    state.apply(place("marker", 4, -1))  # Ben's bird can still claim that marker
    assert threats(state) == [(1, [frozenset({(-1, -1)}), frozenset({(4, -1)})])]
    assert TEXT_VIEW(colour=False).coach(state) == ["Ben (Golden Eagle) can win this turn at (-1, -1) or (4, -1)."]
