"""Seeded full games: they end, keep the invariants, survive JSON round trips and clones."""

import json
import random

import pytest
from ek_helpers import new_state, remove_pieces, set_hand

from companion.games.core import InvalidAction
from companion.games.eagle_kingdoms import GAME, simulation_policy
from companion.games.eagle_kingdoms.rules import PHASES, EagleState
from companion.games.playout import playout
from companion.games.registry import load_game
from companion.simulate import simulate


@pytest.mark.rules("EK-FINAL-5", "EK-CAP-OUTER")
@pytest.mark.parametrize("variant", [None, "party", "party-third-die"])
def test_checked_simulations_finish_without_violations(variant):
    module = load_game("eagle-kingdoms")
    report = simulate(module, lambda: GAME(players=["A", "B", "C", "D"], variant=variant), 12, seed=7, check=True)
    assert report.finished == report.games == 12
    assert report.invariant_violations == 0, report.first_violations


def test_every_phase_round_trips_through_json_and_clones_are_independent():
    game = GAME(players=["Ann", "Ben", "Cy"])
    seen = set()

    def check(state, action):
        seen.add(state.phase)
        data = json.loads(json.dumps(state.to_json()))
        assert EagleState.from_json(game, data).to_json() == data
        twin = state.clone()
        twin.apply(action)
        assert state.to_json() == data  # the clone did not touch the original

    for seed in range(8):
        state = game.new_initial_state()
        playout(state, random.Random(seed), simulation_policy, on_action=check, apply=state.apply)
        assert state.check_invariants() == []
        assert state.winners()
    assert seen >= set(PHASES) - {"over"}


def test_invariants_catch_broken_states():
    state = new_state()
    assert state.check_invariants() == []
    set_hand(state, 0, {"king": 1})  # a fifth King
    assert any("characters per kind" in p for p in state.check_invariants())
    state = new_state()
    remove_pieces(state, ["crown-left"])  # left while its plume still locks it
    problems = state.check_invariants()
    assert any("crown-left left the board while locked in" in p for p in problems)


def test_from_json_rejects_malformed_states():
    game = GAME(players=["Ann", "Ben"])
    data = new_state(players=["Ann", "Ben"]).to_json()
    for broken in ({**data, "phase": "dancing"}, {**data, "player": 5}, {**data, "hands": data["hands"][:1]}):
        with pytest.raises(InvalidAction):
            EagleState.from_json(game, broken)
    bad = dict(data)
    del bad["board"]
    with pytest.raises(InvalidAction):
        EagleState.from_json(game, bad)


def test_invariants_catch_pieces_and_characters_out_of_place():
    from companion.games.eagle_kingdoms.rules import BOARD_PIECES, LOCK_MASK

    state = new_state()
    assert state.check_invariants() == []
    outer = next(p for p in BOARD_PIECES if not LOCK_MASK[p] & state.present)
    inner = next(p for p in BOARD_PIECES if LOCK_MASK[p] & state.present)
    ghost = state.clone()
    ghost.present &= ~(1 << outer)  # gone from the board, yet its character is still on it
    assert any("captured but still holds a character" in p for p in ghost.check_invariants())
    jumped = state.clone()
    jumped.present &= ~(1 << inner)
    jumped.hands[0][jumped.kind_on[inner]] += 1
    jumped.kind_on[inner] = -1
    problems = jumped.check_invariants()
    assert any("left the board while locked in" in p for p in problems) and len(problems) == 1, problems
    lost = state.clone()
    lost.hands[1][0] -= 1
    problems = lost.check_invariants()
    assert any("characters per kind" in p for p in problems) and any("negative count" in p for p in problems)
    assert state.check_invariants() == []  # clones are independent
