"""Seeded simulations through the shared harness, invariants, the policy and persistence."""

import json
import random

import pytest
from ve_helpers import new_game, position

from companion.games.core import ConfigError
from companion.games.playout import playout
from companion.games.registry import load_game
from companion.games.verzauberte_eulen.policy import simulation_policy
from companion.games.verzauberte_eulen.rules import EulenState
from companion.simulate import simulate


@pytest.mark.parametrize(("players", "variant"), [(2, None), (3, None), (4, None), (2, "advanced")])
def test_checked_simulations_finish_without_violations(players, variant):
    module = load_game("verzauberte-eulen")
    report = simulate(module, lambda: new_game(players, variant), games=6, seed=7, check=True)
    assert report.finished == report.games == 6
    assert report.invariant_violations == 0, report.first_violations
    assert max(report.turns) * 4 < module.game_class.max_actions


def test_policy_takes_the_cave_when_it_can():
    state = position({"c2-c3": ["Rr"], "b2": ["Br"], "d2": ["Rb"]}, dice=(1, 2, 1))
    for seed in range(5):
        assert simulation_policy(state, random.Random(seed)) == {
            "type": "move",
            "die": "head",
            "from": "c2-c3",
            "owl": "Rr",
            "to": "c3",
        }


def test_policy_completes_owls_and_forfeits_only_when_nothing_moves():
    state = position({"b2": ["Br"], "c2": ["Rb"]}, dice=(4, 2, 1))
    assert simulation_policy(state, random.Random(1)) == {
        "type": "move",
        "die": "body",
        "from": "b2",
        "owl": "Br",
        "to": "c2",
    }
    blocked = position(
        {"a1-b1": ["Rb"], "a1-a2": ["Rb"], "b1": ["Kb"], "a2": ["Bk"], "c3": ["Rr", "Rr"]}, dice=(3, 3, 1)
    )
    assert simulation_policy(blocked, random.Random(1)) == {"type": "forfeit", "die": "head"}


@pytest.mark.rules("VE-COMP-OWLS", "VE-MOVE-TWO", "VE-CAVE-ENTER")
def test_invariants_catch_lost_heads_crowded_spaces_and_mixed_owls_in_the_cave():
    state = position({"b2": ["Br", "Rb"]})
    assert state.check_invariants() == []
    crowded = state.clone()
    crowded.space[crowded.lay.body_ids.index("red2")] = crowded.board.index["b2"]
    assert any("3 owls on b2" in p for p in crowded.check_invariants())
    lost = state.clone()
    lost.head[0] = "R"
    assert any("every head on exactly one body" in p for p in lost.check_invariants())
    mixed = state.clone()
    mixed.space[0] = mixed.board.cave
    assert any("not of a single colour" in p for p in mixed.check_invariants())
    nested = state.clone()
    nested.space[0] = nested.board.index["e5"]
    assert any("nest it did not start on" in p for p in nested.check_invariants())


def test_json_round_trip_and_clone_independence():
    state = position({"b2": ["Br", "Rb"], "c2-c3": ["Kk"]}, dice=(2, 3, 4), left=("body", "eye"))
    data = json.loads(json.dumps(state.to_json()))
    again = EulenState.from_json(state.game, data)
    assert again == state and again.legal_actions() == state.legal_actions()
    twin = state.clone()
    twin.apply(twin.legal_actions()[0])
    assert twin != state and again == state


def test_from_json_names_what_is_wrong():
    state = new_game().new_initial_state()
    data = state.to_json()
    data["owls"]["red1"]["at"] = "z9"
    with pytest.raises(ConfigError, match="z9"):
        EulenState.from_json(state.game, data)
    data = state.to_json()
    del data["owls"]["black"]
    with pytest.raises(ConfigError, match="expected"):
        EulenState.from_json(state.game, data)


def _sampled_states(players, seed, every=7):
    game = new_game(players)
    state, out = game.new_initial_state(), []
    playout(state, random.Random(seed), simulation_policy,
            on_action=lambda s, _: s.is_chance_node() or len(out) >= 40 or out.append(s.clone()), apply=state.apply)
    return out[::every]


@pytest.mark.parametrize("players", [2, 4])
def test_refusal_reasons_agree_with_legal_actions(players):
    """is_legal (the explaining checks) accepts exactly the moves legal_actions lists."""
    for state in _sampled_states(players, seed=players):
        legal = state.legal_actions()
        assert all(state.is_legal(a) for a in legal)
        b = state.board
        for die in ("head", "body", "eye"):
            candidates = [{"type": "forfeit", "die": die}]
            for body, space in enumerate(state.space):
                if space >= 0:
                    for to in b.ids:
                        candidates.append(
                            {"type": "move", "die": die, "from": b.ids[space], "owl": state.owl(body), "to": to}
                        )
            for action in candidates:
                assert state.is_legal(action) == (action in legal), action
                if action not in legal:
                    assert str(state.explain_illegal(action))


def test_a_typed_route_is_accepted_exactly_when_it_jumps_no_black_part():
    for state in _sampled_states(2, seed=11, every=3):
        b = state.board
        for action in state.legal_actions():
            if action["type"] != "move":
                continue
            frm, to = b.index[action["from"]], b.index[action["to"]]
            mover = state._find(frm, action["owl"])
            black = {s for i, s in enumerate(state.space) if i != mover and s >= 0 and state.has_black(i)}
            for route in b.routes[frm][state.dice[action["die"]]][to]:
                typed = dict(action, path=[b.ids[s] for s in (*route, to)])
                assert state.is_legal(typed) == (not black.intersection(route)), typed


def test_from_json_refuses_malformed_turn_data():
    state = new_game().new_initial_state()
    for key, value in (("to_move", 5), ("winner", -2), ("dice", {"head": 9, "body": 1, "eye": 1}), ("owls", None)):
        data = state.to_json()
        data[key] = value
        with pytest.raises(ConfigError):
            EulenState.from_json(state.game, data)
