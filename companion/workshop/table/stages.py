"""Where the live table pipeline's time goes: CPU milliseconds per stage, frame by frame.

    with StageClock() as clock:
        for frame in frames:
            pipeline.process(frame, t, state)
    clock.frames          # one {stage: CPU ms} per frame processed
    stage_summary(clock.frames)   # per stage: median and p90 over the frames

While the clock runs, the pipeline's stages (:data:`STAGES`) are wrapped by a timer of this thread's CPU
time (what the issue's "one core" target means; another process on a shared machine inflates only the
wall clock). Each stage's time is its own: a stage called inside another (the quality check inside the
board reader) is taken out of the outer one, so the stages of a frame add up to its ``total``
(:meth:`TablePipeline.process`); ``other`` is what no named stage covers (the hand check's bookkeeping,
the events). A stage a frame does not reach (the board on a moving frame) counts 0 ms for that frame.
Nothing of the pipeline's code changes; the wrappers cost a few microseconds per call.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

STAGES: tuple[tuple[str, str, str], ...] = (
    # (stage, "module:Class" or "module", attribute)
    ("undistort", "companion.referee.table:TablePipeline", "_undistorted"),
    ("motion", "companion.vision.motion:MotionMeter", "moving"),
    ("motion", "companion.referee.table:TablePipeline", "_track_hands"),
    ("pose", "companion.vision.pose:BoardTracker", "update"),
    ("quality", "companion.vision.quality", "assess"),
    ("photometry", "companion.vision.photometry", "measure"),
    ("photometry", "companion.vision.photometry:Photometry", "balance_image"),
    ("reader", "companion.referee.table_games:BoardReading", "read"),
    ("dice", "companion.referee.table:TablePipeline", "_read_dice"),
    ("dice", "companion.referee.table:TablePipeline", "_remember_before"),  # the frame before a throw: is the view quiet?
    ("match", "companion.referee.table:TablePipeline", "reevaluate"),
    ("total", "companion.referee.table:TablePipeline", "process"),
)
"""The stages timed: each wraps one callable (a stage may wrap several)."""

ORDER = ("undistort", "motion", "pose", "quality", "photometry", "reader", "dice", "match", "other", "total")


def _owner(path: Any) -> Any:
    """The class or module a stage's callable lives on: "module:Class", "module", or the object itself."""
    import importlib

    if not isinstance(path, str):
        return path
    module, _, cls = path.partition(":")
    owner = importlib.import_module(module)
    return getattr(owner, cls) if cls else owner


class StageClock:
    """Times the pipeline's stages while it is entered (see the module docstring); not thread-safe, and one
    clock at a time."""

    def __init__(self, stages: Iterable[tuple[str, Any, str]] = STAGES):
        self.stages = tuple(stages)
        self.frames: list[dict[str, float]] = []
        self._saved: list[tuple[Any, str, Any]] = []
        self._stack: list[list[Any]] = []  # [stage, start, time of the stages inside it]
        self._frame: dict[str, float] = {}

    def __enter__(self) -> StageClock:
        for stage, path, attr in self.stages:
            owner = _owner(path)
            original = owner.__dict__[attr] if isinstance(owner, type) else getattr(owner, attr)
            self._saved.append((owner, attr, original))
            setattr(owner, attr, self._wrap(stage, original))
        return self

    def __exit__(self, *_exc: Any) -> None:
        for owner, attr, original in reversed(self._saved):
            setattr(owner, attr, original)
        self._saved.clear()

    def _wrap(self, stage: str, fn: Any) -> Any:
        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            if stage == "total" and not self._stack:
                self._frame = {}  # a frame begins: what ran outside a frame (a teaching photo's pose) is no part of it
            entry = [stage, time.thread_time(), 0.0]
            self._stack.append(entry)
            try:
                return fn(*args, **kwargs)
            finally:
                self._stack.pop()
                spent = time.thread_time() - entry[1]
                self._frame[stage] = self._frame.get(stage, 0.0) + (spent - entry[2]) * 1000
                if self._stack:
                    self._stack[-1][2] += spent
                if stage == "total":
                    self._close_frame(spent * 1000)
        return timed

    def _close_frame(self, total_ms: float) -> None:
        frame = self._frame
        own_total = frame.pop("total", 0.0)  # what process() spent outside every named stage
        frame = {stage: frame.get(stage, 0.0) for stage in ORDER if stage not in ("other", "total")}
        frame["other"] = own_total
        frame["total"] = total_ms
        self.frames.append(frame)
        self._frame = {}


def stage_summary(frames: list[Mapping[str, float]]) -> dict[str, dict[str, float]]:
    """Per stage (:data:`ORDER`): the median and 90th percentile of its CPU ms over the frames, and the share of
    frames it ran on."""
    out: dict[str, dict[str, float]] = {}
    for stage in ORDER:
        ms = np.array([f.get(stage, 0.0) for f in frames], np.float64)
        if not len(ms):
            continue
        out[stage] = {"median": round(float(np.median(ms)), 2), "p90": round(float(np.percentile(ms, 90)), 2),
                      "ran": round(float(np.mean(ms > 0)), 3)}
    return out


__all__ = ["ORDER", "STAGES", "StageClock", "stage_summary"]
