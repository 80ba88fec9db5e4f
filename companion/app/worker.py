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

    def stop(self, timeout: float = 5.0) -> None:
        # a frame being read is let finish: a thread still in onnxruntime as the process exits aborts it ("terminate
        # called without an active exception"; the set-up fix UI test, the cores busy, after 1 s)
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

