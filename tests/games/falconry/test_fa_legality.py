"""legal_actions, is_legal and explain_illegal agree on every action near the table."""

import json
import random

import pytest
from fa_support import make_game, move, place

from companion.games.core import IllegalAction, InvalidAction
from companion.games.falconry import simulation_policy
from companion.games.falconry.rules import KINDS, FalconryState
from companion.games.playout import playout


def sample_states(mode, seed, count=6, steps=60):
    rng = random.Random(seed)
    states = []
    state = make_game(mode).new_initial_state()
    while len(states) < count:
        if state.is_terminal():
            state = make_game(mode).new_initial_state()
        playout(state, rng, simulation_policy, rng.randrange(steps // 4, steps), apply=state.apply)
        if not state.is_terminal():
            states.append(state.clone())
    return states


def nearby_actions(state):
    xs = [x for x, _ in state.stacks]
    ys = [y for _, y in state.stacks]
    cells = [(x, y) for x in range(min(xs) - 2, max(xs) + 3) for y in range(min(ys) - 2, max(ys) + 3)]
    actions = [{"type": "pass"}]
    actions += [place(kind, *cell) for kind in KINDS for cell in cells]
    actions += [move(*src, *dst) for src in state.stacks for dst in cells]
    return actions


@pytest.mark.rules("FA-OWN", "FA-MARK-1", "FA-R-MOVE-ADJ")
@pytest.mark.parametrize("mode", ["duel", "fast-duel", "allied", "truel", "quarrel", "joint"])
def test_legal_actions_equal_the_accepted_actions(mode):
    for state in sample_states(mode, 17):
        legal = state.legal_actions()
        keys = {json.dumps(a, sort_keys=True) for a in legal}
        assert len(keys) == len(legal), "no duplicates"
        accepted = set()
        for action in nearby_actions(state):
            if state.is_legal(action):
                accepted.add(json.dumps(action, sort_keys=True))
            else:
                error = state.explain_illegal(action)
                assert isinstance(error, IllegalAction) and error.rule_id.startswith("FA-") and error.message
        assert accepted == keys
        assert state.winning_actions() == [a for a in legal if a in state.winning_actions()]


def test_malformed_actions_are_invalid_not_illegal():
    state = make_game("duel").new_initial_state()
    for junk in [
        {"type": "place", "kind": "egg", "to": [0, -1]},
        {"type": "place", "kind": "marker", "to": [0]},
        {"type": "place", "kind": "marker", "to": [0, True]},
        {"type": "place", "kind": "marker", "to": [0, -1], "extra": 1},
        {"type": "move", "from": "a1", "to": [0, 1]},
        {"type": "pass", "why": "tired"},
        {"type": "roll", "dice": [1, 2]},
    ]:
        assert not state.is_legal(junk)
        assert isinstance(state.explain_illegal(junk), InvalidAction)
        with pytest.raises(InvalidAction):
            state.apply(junk)


@pytest.mark.rules("FA-CARDS")
def test_json_round_trip_keeps_stacks_hands_and_turn():
    for state in sample_states("fast-duel", 3, count=4):
        data = json.loads(json.dumps(state.to_json()))
        restored = FalconryState.from_json(state.game, data)
        assert restored == state and restored.check_invariants() == []
        assert restored.legal_actions() == state.legal_actions()
        assert restored.locked == state.locked and restored.actions_left == state.actions_left
