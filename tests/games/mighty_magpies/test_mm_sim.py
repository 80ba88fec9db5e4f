"""Simulation invariants, JSON round trips and rule traceability."""

import random
from pathlib import Path

import pytest
from mm_helpers import SETUP, game

from companion.games.mighty_magpies import simulation_policy
from companion.games.mighty_magpies.rules import MagpiesState
from companion.games.registry import load_game
from companion.simulate import simulate

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.rules("MM-END-1", "MM-CONTENTS-1")
@pytest.mark.parametrize("players, variant", [(2, None), (4, "young")])
def test_checked_simulation_finishes_without_violations(players, variant):
    module = load_game("mighty-magpies")
    report = simulate(module, lambda: game([f"P{i}" for i in range(players)], variant), 60, seed=7, check=True)
    assert report.finished == 60 and report.invariant_violations == 0, report.first_violations


def test_invariants_catch_a_lost_tile_and_wrong_points():
    state = game().new_initial_state()
    state.apply(SETUP)
    assert state.check_invariants() == []
    broken = state.clone()
    broken._nests[3] -= 1  # a berry vanishes from nest A
    assert any("berry" in p for p in broken.check_invariants())
    cheat = state.clone()
    cheat._points[0] += 1
    assert any("points" in p for p in cheat.check_invariants())
    assert state.check_invariants() == []  # clones are independent


def test_json_round_trip_and_clone_along_a_game():
    rng = random.Random(2)
    state = game(["Ann", "Ben", "Cy"]).new_initial_state()
    while not state.is_terminal():
        restored = MagpiesState.from_json(state.game, state.to_json())
        assert restored == state and restored.scores() == state.scores()
        twin = state.clone()
        action = state.sample_chance(rng) if state.is_chance_node() else simulation_policy(state, rng)
        state.apply(action)
        assert twin != state or action.get("steps") == []
    assert state.winners()


def test_rulings_are_written_down():
    text = (ROOT / "docs" / "rulings.md").read_text(encoding="utf-8")
    for topic in ("MM-TAKE-4", "MM-STEAL-6", "MM-WIN-4", "MM-MOVE-6", "MM-PLAY-1", "die 1", "MM-TAKE-3"):
        assert topic in text
