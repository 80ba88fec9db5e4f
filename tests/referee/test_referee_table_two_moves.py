"""Two hands reached in before the board was seen settled again (companion.referee.table, ``_hands_before_settled``):
a move that two moves end at as well is asked, not proposed (Verzauberte Eulen seed 3 r1, action 117)."""

from __future__ import annotations

import pytest
from fake_table import frame, observe, pipeline, run
from test_referee_ve_match import _one_move_or_two, fresh_turns

from companion.referee.table import MOVE, QUESTION
from companion.referee.verzauberte_eulen import scene_from_state
from companion.vision.readers import Observation


@pytest.mark.rules("VE-TURN-DICE", "VE-MOVE-EXACT")
def test_a_board_seen_only_after_two_hands_is_asked_where_two_moves_end_as_one_does():
    state, one, two = _one_move_or_two(fresh_turns())
    after = state.clone()
    for action in two:
        after.apply(action)
    shown = [observe(scene_from_state(state)), observe(scene_from_state(after)), Observation.unusable("too blurred")]
    between = {1: [], 2: [frame(2) for _ in range(6)] + [frame(hand=True)]}  # the second hand: the board unread between
    for hands, kind in ((1, MOVE), (2, QUESTION)):
        frames = [frame() for _ in range(6)] + [frame(hand=True)] + between[hands] + [frame(1) for _ in range(6)]
        events = [e for _, e in run(pipeline(state.game, shown), frames, state) if e.kind in (MOVE, QUESTION)]
        assert [e.kind for e in events] == [kind], [e.message for e in events]
        if kind is MOVE:
            assert events[0].sure and events[0].actions == (one,)
        else:
            assert events[0].reason == "several" and two in events[0].options
