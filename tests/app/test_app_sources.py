"""Frame sources (companion/vision/sources.py) and the recognition worker: bad input gives plain errors."""

from __future__ import annotations

import os
import threading
import time

import cv2
import numpy as np
import pytest

from companion.app.worker import RecognitionWorker
from companion.vision.sources import (
    CameraSource,
    FrameGrabber,
    ImageFolderSource,
    RenderedSource,
    SourceError,
    SourceLost,
    open_source,
)


class FakeCapture:
    def __init__(self, frames: int, opened: bool = True):
        self.frames, self.opened = frames, opened

    def isOpened(self):
        return self.opened

    def set(self, *_):
        return True

    def read(self):
        if self.frames <= 0:
            return False, None
        self.frames -= 1
        return True, np.zeros((4, 4, 3), np.uint8)

    def release(self):
        pass


def test_no_camera_is_a_plain_error():
    with pytest.raises(SourceError, match="No camera"):
        CameraSource(3, capture_factory=lambda i: FakeCapture(0, opened=False)).open()


def test_camera_that_disappears_mid_game_is_reported_lost():
    source = CameraSource(0, lost_after=3, capture_factory=lambda i: FakeCapture(2)).open()
    grabber = FrameGrabber(source).start()
    deadline = time.monotonic() + 5
    while grabber.status == "running" and time.monotonic() < deadline:
        time.sleep(0.01)
    assert grabber.status == "lost" and "stopped sending" in grabber.error
    assert grabber.frames == 2 and grabber.latest() is not None
    with pytest.raises(SourceLost):
        CameraSource(0, lost_after=1, capture_factory=lambda i: FakeCapture(0)).open().read()


def test_unreadable_video_and_empty_folder(tmp_path):
    bad = tmp_path / "broken.mp4"
    bad.write_bytes(b"not a video at all")
    with pytest.raises(SourceError, match="not a video"):
        open_source(f"video:{bad}")
    with pytest.raises(SourceError, match="no images"):
        open_source(f"images:{tmp_path}")
    with pytest.raises(SourceError, match="Unknown source"):
        open_source("telescope")


def test_image_folder_reads_in_order_and_skips_unreadable(tmp_path):
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), np.full((16, 16, 3), i * 50, np.uint8))
    (tmp_path / "f1b.png").write_bytes(b"junk")
    os.mkfifo(tmp_path / "f1c.png")  # a pipe is refused, never waited on
    source = ImageFolderSource(tmp_path, seconds_each=0).open()
    values = []
    while (frame := source.read()) is not None:
        values.append(int(frame.image[0, 0, 0]))
    assert values == [0, 50, 100]
    assert "not an image" in source.skipped["f1b.png"] and "not a regular file" in source.skipped["f1c.png"]


def test_worker_runs_off_the_calling_thread_and_keeps_only_the_newest_frame():
    results = []
    gate = threading.Event()

    def recognize(image, meta):
        gate.wait(2)
        return {"thread": threading.current_thread().name, "n": meta["n"]}

    worker = RecognitionWorker(recognize, lambda g, obs, t: results.append((g, obs))).start()
    try:
        for n in range(5):
            worker.submit(1, np.zeros((2, 2, 3), np.uint8), {"n": n}, time.monotonic())
            time.sleep(0.01)
        gate.set()
        deadline = time.monotonic() + 3
        while len(results) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        worker.stop()
    assert results[0][1]["thread"] == "recognition"
    assert results[-1][1]["n"] == 4 and worker.replaced >= 2


def test_rendered_source_paces_frames():
    source = RenderedSource(lambda: (np.zeros((2, 2, 3), np.uint8), {"step": 1}), fps=100)
    t = time.monotonic()
    frames = [source.read() for _ in range(5)]
    assert frames[-1].index == 4 and frames[0].meta == {"step": 1}
    assert time.monotonic() - t >= 0.03


def test_worker_hands_each_frames_capture_time_to_the_recognizer_without_changing_the_frames_meta():
    """The table pipeline times its waits by the frames' capture times (TableRecognizer hands ``captured_at`` to
    TablePipeline.process: a roll waiting for the move that tells its unsure face, a space read unsure for long)."""
    seen = []
    meta = {"n": 1}
    worker = RecognitionWorker(lambda image, m: seen.append(m) or {}, lambda g, obs, t: None, max_hz=None).start()
    try:
        worker.submit(1, np.zeros((2, 2, 3), np.uint8), meta, 12.5)
        deadline = time.monotonic() + 3
        while not seen and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        worker.stop()
    assert seen == [{"n": 1, "captured_at": 12.5}] and meta == {"n": 1}
