"""Seeded simulations: every game finishes, no invariant breaks, the policy only plays legal actions."""

import random

import pytest
from fa_support import PLAYERS, make_game

from companion.games.falconry import simulation_policy
from companion.games.playout import playout
from companion.games.registry import load_game
from companion.simulate import simulate


@pytest.mark.rules("FA-CARDS", "FA-WIN-1")
@pytest.mark.parametrize("mode", list(PLAYERS))
def test_checked_simulations_finish_without_violations(mode):
    module = load_game("falconry")
    config = make_game(mode).config()
    report = simulate(module, lambda: module.game_class.from_config(config), games=25, seed=7, check=True)
    assert report.finished == report.games == 25
    assert report.invariant_violations == 0, report.first_violations


def test_policy_plays_only_legal_actions_and_takes_wins():
    def check(state, action):
        assert state.is_legal(action)
        wins = state.winning_actions()
        assert not wins or action in wins

    rng = random.Random(5)
    for mode in ["duel", "fast-duel", "allied"]:
        state = make_game(mode).new_initial_state()
        playout(state, rng, simulation_policy, on_action=check, apply=state.apply)
        assert state.is_terminal() and state.check_invariants() == []


def test_unfinished_games_count_as_unfinished(monkeypatch):
    module = load_game("falconry")
    assert module.game_class.max_actions >= 1000
    monkeypatch.setattr(module.game_class, "max_actions", 3)
    report = simulate(module, lambda: make_game("duel"), games=2, seed=1)
    assert report.games == 2 and report.finished == 0


def test_invariants_catch_lost_cards_stale_caches_and_a_turn_without_actions():
    module = load_game("falconry")
    state = make_game("duel").new_initial_state()
    playout(state, random.Random(3), module.simulation_policy, max_actions=6)
    assert not state.is_terminal() and state.check_invariants() == []
    extra = state.clone()
    extra.hands[0][0] += 1  # a card from nowhere
    assert any("in hand + table, expected" in p for p in extra.check_invariants())
    stale = state.clone()
    cell = next(iter(stale.stacks))
    stale.owner[cell] = 1 - stale.owner[cell]
    assert any("owner of" in p for p in stale.check_invariants())
    idle = state.clone()
    idle.actions_left = 0
    assert any("actions left in a turn" in p for p in idle.check_invariants())
    assert state.check_invariants() == []
