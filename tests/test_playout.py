"""The one playout loop (companion.games.playout), on the toy dice race."""

import random

import pytest
from toy_game import ToyGame

from companion.games.core import IllegalAction
from companion.games.playout import playout


def _game():
    return ToyGame(players=["Ann", "Ben"])


def _record(seed):
    state, seen = _game().new_initial_state(), []
    made = playout(state, random.Random(seed), on_action=lambda s, a: seen.append((s.to_json(), a)))
    assert state.is_terminal() and made == len(seen) > 2
    return seen


def test_a_seed_gives_the_same_game_and_on_action_sees_each_action_before_it_is_made():
    game = _record(3)
    assert game == _record(3) and game != _record(4)
    replay = _game().new_initial_state()
    for before, action in game:
        assert replay.to_json() == before
        replay.apply(action)


def test_it_stops_at_max_actions_and_uses_the_policy_for_decisions():
    state = _game().new_initial_state()
    asked = []

    def bank(s, rng):
        asked.append(s.current_player)
        return {"type": "bank"}

    assert playout(state, random.Random(1), policy=bank, max_actions=6) == 6
    assert not state.is_terminal() and state.positions == [2, 1] and asked == [0, 1, 0]


def test_apply_can_validate_each_action():
    state = _game().new_initial_state()

    def cheat(s, rng):
        return {"type": "advance-twice"}

    with pytest.raises(IllegalAction):
        playout(state, random.Random(1), policy=cheat, apply=state.apply)
    assert state.roll is not None  # the roll was made, the refused action was not
