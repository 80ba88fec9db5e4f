"""A roll read with an unsure face, told by the move the board shows next (companion.referee.table,
``board_confirms_s``): Mighty Magpies, where a magpie's flight shows the colours of the dice."""

from __future__ import annotations

import json

import pytest
from fake_table import frame, observe, pipeline, run

from companion.referee.dice import wanted_dice
from companion.referee.mighty_magpies import scene_from_state
from companion.referee.table import DICE, QUESTION, WAITING_FOR_MOVE
from companion.workshop.boards.bench.mighty_magpies import sample_states


def _key(scene):
    return json.dumps({k: v for k, v in scene.items() if v}, sort_keys=True)


def _after(state, action):
    child = state.clone()
    child.apply(action)
    return child


def _flights(state, roll):
    """Scene key -> flight, for the flights after ``roll`` that the board shows."""
    after = _after(state, roll)
    start = _key(scene_from_state(state))
    out = {}
    for action in after.legal_actions():
        key = _key(scene_from_state(_after(after, action)))
        if key != start:
            out.setdefault(key, []).append(action)
    return out


def _told_by_a_flight():
    """A roll, its first die read surely and its second unsure, and a flight after it that no other face of the
    second die allows; and a flight that only some other face allows: (state, roll, its scene, other scene)."""
    for state in (s for s in sample_states(60, 3) if s.is_chance_node() and wanted_dice(s)):
        rolls = state.legal_actions()
        for roll in rolls:
            first = roll["faces"][0]
            others = [r for r in rolls if r != roll and first in r["faces"]]
            theirs = {k for r in others for k in _flights(state, r)}
            mine = [k for k, acts in _flights(state, roll).items() if len(acts) == 1 and k not in theirs]
            only_theirs = [k for k in theirs if k not in _flights(state, roll)]
            if mine and only_theirs:
                return state, roll, json.loads(mine[0]), json.loads(only_theirs[0])
    raise AssertionError("no such roll")


@pytest.mark.rules("MM-PLAY-2", "MM-MOVE-1")
def test_a_colour_read_unsure_is_sure_once_the_board_shows_a_flight_only_that_colour_allows():
    state, roll, told, other = _told_by_a_flight()
    first, second = roll["faces"]
    dice = [(40, 200, first, False, "magpie"), (280, 30, second, True, "magpie")]
    for shown, sure in ((told, True), (other, False)):
        pipe = pipeline(state.game, [observe(scene_from_state(state)), observe(shown)], board_confirms_s=3.0)
        frames = [frame() for _ in range(4)] + [frame(hand=True)] + [frame(dice=dice) for _ in range(13)]
        frames += [frame(hand=True, dice=dice)] + [frame(1, dice=dice) for _ in range(6)]  # the flight, within 3 s
        events = [e for _, e in run(pipe, frames, state) if e.kind in (DICE, QUESTION)]
        assert [(e.kind, e.sure) for e in events] == [(DICE, sure)], [e.message for e in events]
        assert events[0].actions[-1]["faces"] == roll["faces"]


def test_a_colour_read_unsure_is_put_to_the_family_when_the_board_shows_no_flight_in_time():
    state, roll, _told, _other = _told_by_a_flight()
    first, second = roll["faces"]
    pipe = pipeline(state.game, [observe(scene_from_state(state))], board_confirms_s=2.0)
    frames = [frame() for _ in range(4)] + [frame(hand=True)]
    frames += [frame(dice=[(40, 200, first, False, "magpie"), (280, 30, second, True, "magpie")]) for _ in range(45)]
    statuses, events = [], []
    for i, img in enumerate(frames):
        out = pipe.process(img, i / 10, state)
        statuses.append(out[0].message)
        events += [(i, e) for e in out[1:] if e.kind in (DICE, QUESTION)]
    assert [(e.kind, e.sure) for _, e in events] == [(DICE, False)]
    settled_at = pipe._roll.frame - 1  # the frame index the dice settled on
    assert events[0][0] - settled_at == 20  # put to the family 2 s (20 frames at 10 fps) after the dice settled
    # the family is told why nothing comes yet while the roll waits, and only then
    waiting = [i for i, words in enumerate(statuses) if words == WAITING_FOR_MOVE]
    assert waiting == list(range(settled_at, events[0][0])), (settled_at, events[0][0], waiting)
