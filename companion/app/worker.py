"""Recognition off the UI thread: a worker thread, a one-slot queue, results handed to a callback.

The UI submits the newest frame with the controller's ``generation``; a pending frame that was not
yet started is replaced (the worker always works on the present, never on a backlog). Results go to
``deliver(generation, observation, captured_at)``; the Kivy app wraps it in ``Clock.schedule_once`` so
the controller is only touched on the UI thread, and the controller drops results of an outdated
game or position. No Kivy import.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from companion.referee.dice import READER_KIND, in_game_terms, reader_kinds

Recognize = Callable[[np.ndarray, dict[str, Any]], dict[str, Any]]


class RecognitionWorker:
    """``max_hz`` caps how often a frame is recognised (the preview keeps its own rate; dice settle over a
    few readings, so ~8 a second is plenty); ``nice`` lowers the thread's CPU priority on Linux/Android
    before the reader is built, so the reader's own threads (onnxruntime's pool) inherit it and the UI
    thread wins the cores when both want them."""

    def __init__(self, recognize: Recognize, deliver: Callable[[int, dict[str, Any], float], None],
                 max_hz: float | None = 8.0, nice: int = 10):
        self.recognize = recognize
        self.deliver = deliver
        self.max_hz = max_hz
        self.nice = nice
        self.niced = False
        self.processed = 0
        self.replaced = 0
        self.last_ms = 0.0
        self._queue: queue.Queue = queue.Queue(maxsize=1)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="recognition", daemon=True)

    def start(self) -> RecognitionWorker:
        self._thread.start()
        return self

    @property
    def busy(self) -> bool:
        return not self._queue.empty()

    def submit(self, generation: int, image: np.ndarray, meta: dict[str, Any], captured_at: float) -> None:
        item = (generation, image, meta, captured_at)
        try:
            self._queue.put_nowait(item)
        except queue.Full:
            try:
                self._queue.get_nowait()
                self.replaced += 1
            except queue.Empty:
                pass
            try:
                self._queue.put_nowait(item)
            except queue.Full:
                pass

    def _lower_priority(self) -> None:
        if not self.nice or not hasattr(os, "setpriority"):
            return
        try:  # on Linux a thread id is a task: this lowers only this thread (and threads it starts later)
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), min(19, os.getpriority(os.PRIO_PROCESS, 0) + self.nice))
            self.niced = True
        except (OSError, AttributeError):
            pass

    def _run(self) -> None:
        self._lower_priority()
        next_at = 0.0
        while not self._stop.is_set():
            if self.max_hz:
                wait = next_at - time.perf_counter()
                if wait > 0 and self._stop.wait(wait):
                    break
            try:
                generation, image, meta, captured_at = self._queue.get(timeout=0.1)
            except queue.Empty:
                continue
            t0 = time.perf_counter()
            next_at = t0 + 1.0 / self.max_hz if self.max_hz else 0.0
            try:
                observation = self.recognize(image, {**meta, "captured_at": captured_at})
            except Exception as exc:  # a reader failure is reported, the game goes on by hand
                observation = {"error": f"{type(exc).__name__}: {exc}"}
            self.last_ms = (time.perf_counter() - t0) * 1000
            self.processed += 1
            self.deliver(generation, observation, captured_at)

    def stop(self, timeout: float = 1.0) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)


class DiceRecognizer:
    """The camera path: the vision package's dice reader, its motion meter and its settle tracker.

    Reports ``{"dice": [...]}`` once a roll has settled (every die still, same value, for a few
    frames, and nothing moving in view: a hand over the dice pauses reading), else a ``status``. Built
    lazily; a missing or damaged model gives ``error``. ``kinds`` and the reported kinds are the games'
    names (``READER_KIND``); the reader answers only with those kinds (dice reader ruling 6).
    """

    def __init__(self, kinds: tuple[str, ...] = tuple(READER_KIND), registry=None):
        self.kinds = tuple(kinds)
        self.registry = registry  # the family's registered dice (show each die once): readings get .identity
        self._reader = None
        self._tracker = None
        self._motion = None
        self._read_again_after: float | None = None
        self.error = ""

    def _ensure(self) -> bool:
        if self._reader is not None:
            return True
        if self.error:
            return False
        try:
            from companion.vision.motion import MotionMeter
            from companion.vision.reader import DiceReader
            from companion.vision.tracker import SettleTracker

            self._reader = DiceReader(kinds=reader_kinds(self.kinds), registry=self.registry)
            if self._tracker is None:
                self._tracker = SettleTracker()
                self._motion = MotionMeter()
        except Exception as exc:  # ModelError, missing onnxruntime (Android: see android/README.md)
            self.error = f"The dice reader is not available ({exc}); enter the dice by hand."
            return False
        return True

    def set_kinds(self, kinds) -> None:
        """The kinds of dice of the game now played (its ``Game.dice_kinds``); call on the worker's thread.
        The reader is built again for them at the next frame."""
        kinds = tuple(kinds) or tuple(READER_KIND)
        if kinds != self.kinds:
            self.kinds = kinds
            self._reader = None

    def set_registry(self, registry) -> None:
        """Use these registered dice from the next frame on (None: dice of one kind stay anonymous)."""
        self.registry = registry
        if self._reader is not None:
            self._reader.registry = registry

    def read_again(self, after: float | None = None) -> None:
        """Report the dice in view again, once settled, although they were reported before. Applies from the
        first frame captured at or after ``after`` (time.monotonic(); now by default): a frame captured
        earlier would be dropped by the app as outdated, and the roll lost again."""
        self._read_again_after = time.monotonic() if after is None else after

    def __call__(self, image: np.ndarray, meta: dict[str, Any]) -> dict[str, Any]:
        if not self._ensure():
            return {"error": self.error}
        after = self._read_again_after
        if after is not None and meta.get("captured_at", after) >= after:
            self._read_again_after = None
            self._tracker.forget()
        readings = self._reader.read(image)
        moving = self._motion.moving(image)
        roll = self._tracker.update(readings, hand=moving)
        if roll is None:
            status = "waiting: something is moving over the table" if moving else \
                "reading dice" if readings else "no dice in view"
            return {"status": status, "live": [_in_game_terms(r) for r in readings]}
        return {"dice": [_in_game_terms(r) for r in roll.dice]}


def _in_game_terms(reading) -> dict[str, Any]:
    return in_game_terms(reading.as_json())
