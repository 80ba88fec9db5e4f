"""Frame sources for the table app: a camera, a video file, a folder of images, or rendered frames.

Every source has ``open()``, ``read() -> Frame | None`` (``None``: a file source has ended) and
``close()``; problems raise :class:`SourceError` with a plain-words ``str`` (the app shows it and falls
back to the demo or to manual entry). A camera that stops delivering raises :class:`SourceLost`.
:class:`FrameGrabber` reads a source on its own thread and keeps only the newest frame, so a slow
consumer never builds a backlog and the preview shows the present.

``open_source(spec)`` understands ``camera`` / ``camera:N``, ``video:PATH`` or a video path,
``images:DIR`` or a folder; ``demo`` is made by the app (it needs the games) through ``factories``.
Imports nothing of the games or the app.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.vision import imageio
from companion.vision.errors import ImageError, VisionError
from companion.vision.imageio import MAX_PIXELS

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".webp"}
VIDEO_SUFFIXES = {".mp4", ".avi", ".mov", ".mkv", ".webm", ".m4v"}


class SourceError(VisionError):
    """A source cannot be opened or read (the message says which and why)."""


class SourceLost(SourceError):
    """A live source (camera) stopped delivering frames."""


@dataclass
class Frame:
    image: np.ndarray  # BGR uint8
    index: int
    time: float  # time.monotonic() when captured
    meta: dict[str, Any] = field(default_factory=dict)


class FrameSource:
    name = "source"
    live = False  # a camera: frames come in real time and never end

    def open(self) -> FrameSource:
        return self

    def read(self) -> Frame | None:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self) -> FrameSource:
        return self.open()

    def __exit__(self, *exc) -> None:
        self.close()


class CameraSource(FrameSource):
    """``cv2.VideoCapture(index)``; ``lost_after`` failed reads in a row raise :class:`SourceLost`."""

    live = True

    def __init__(self, index: int = 0, size: tuple[int, int] | None = (1280, 720), lost_after: int = 15,
                 capture_factory: Callable[[int], Any] | None = None):
        self.index = index
        self.size = size
        self.lost_after = lost_after
        self.name = f"camera {index}"
        self._factory = capture_factory or cv2.VideoCapture
        self._cap = None
        self._count = 0
        self._fails = 0

    def open(self) -> CameraSource:
        cap = self._factory(self.index)
        if cap is None or not cap.isOpened():
            if cap is not None:
                cap.release()
            raise SourceError(f"No camera at index {self.index} (none connected, or another app is using it).")
        if self.size:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        self._cap = cap
        return self

    def read(self) -> Frame | None:
        if self._cap is None:
            raise SourceError(f"{self.name} is not open.")
        ok, image = self._cap.read()
        if not ok or image is None:
            self._fails += 1
            if self._fails >= self.lost_after:
                raise SourceLost(f"{self.name} stopped sending pictures (unplugged, or taken by another app).")
            time.sleep(0.01)
            return self.read()
        self._fails = 0
        self._count += 1
        return Frame(image, self._count - 1, time.monotonic())

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class VideoFileSource(FrameSource):
    """A video file, optionally paced at its own frame rate (``realtime``) and looped."""

    def __init__(self, path: str | Path, realtime: bool = True, loop: bool = False):
        self.path = Path(path)
        self.name = self.path.name
        self.realtime = realtime
        self.loop = loop
        self._cap = None
        self._count = 0
        self._fps = 30.0
        self._next = 0.0

    def open(self) -> VideoFileSource:
        if not self.path.is_file():
            raise SourceError(f"No video file at {self.path}.")
        cap = cv2.VideoCapture(str(self.path))
        width, height = int(cap.get(cv2.CAP_PROP_FRAME_WIDTH) or 0), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT) or 0)
        if width * height > MAX_PIXELS:  # checked before a frame is decoded: memory follows the limit
            cap.release()
            raise SourceError(f"{self.path.name}: its frames are {width}x{height}, over the limit of "
                              f"{MAX_PIXELS / 1e6:g} megapixels.")
        ok, first = cap.read() if cap.isOpened() else (False, None)
        if not ok or first is None:
            cap.release()
            raise SourceError(f"{self.path.name} is not a video this program can read (damaged, or an unknown format).")
        cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
        fps = cap.get(cv2.CAP_PROP_FPS)
        self._fps = fps if fps and 1 <= fps <= 240 else 30.0
        self._cap = cap
        self._next = time.monotonic()
        return self

    def read(self) -> Frame | None:
        if self._cap is None:
            raise SourceError(f"{self.name} is not open.")
        if self.realtime:
            delay = self._next - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            self._next = max(self._next + 1.0 / self._fps, time.monotonic() - 0.5)
        ok, image = self._cap.read()
        if not ok or image is None:
            if self.loop and self._count:
                self._cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
                ok, image = self._cap.read()
            if not ok or image is None:
                return None
        self._count += 1
        return Frame(image, self._count - 1, time.monotonic())

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class ImageFolderSource(FrameSource):
    """The images of a folder in name order, each shown ``seconds_each`` (0: as fast as read)."""

    def __init__(self, folder: str | Path, seconds_each: float = 0.5, loop: bool = False):
        self.folder = Path(folder)
        self.name = self.folder.name or str(self.folder)
        self.seconds_each = seconds_each
        self.loop = loop
        self.skipped: dict[str, str] = {}
        """File name -> why it was not shown (not an image, truncated, too big...)."""
        self._files: list[Path] = []
        self._i = 0
        self._next = 0.0

    def open(self) -> ImageFolderSource:
        if not self.folder.is_dir():
            raise SourceError(f"No folder at {self.folder}.")
        self._files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self._files:
            raise SourceError(f"{self.folder} has no images ({', '.join(sorted(IMAGE_SUFFIXES))}).")
        self._next = time.monotonic()
        return self

    def read(self) -> Frame | None:
        while True:
            if self._i >= len(self._files):
                if not self.loop:
                    return None
                self._i = 0
            path = self._files[self._i]
            self._i += 1
            if self.seconds_each:
                delay = self._next - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                self._next = time.monotonic() + self.seconds_each
            try:  # bounded: regular files only, the size checked from the header before decoding
                image, _ = imageio.load(path, fit=False)
            except ImageError as exc:  # an unreadable image is skipped (and why is kept), not fatal
                self.skipped[path.name] = exc.reason
                if len(self.skipped) >= len(self._files):
                    raise SourceError(f"None of the images in {self.folder} can be read "
                                      f"({path.name}: {exc.reason}).") from None
                continue
            return Frame(image, self._i - 1, time.monotonic(), {"path": str(path)})


class RenderedSource(FrameSource):
    """Frames drawn by ``render() -> (image, meta)``, paced at ``fps`` (the bundled demo)."""

    def __init__(self, render: Callable[[], tuple[np.ndarray, dict[str, Any]]], fps: float = 30.0, name: str = "demo"):
        self.render = render
        self.fps = fps
        self.name = name
        self._count = 0
        self._next = 0.0

    def read(self) -> Frame | None:
        if self.fps:
            if not self._next:
                self._next = time.monotonic()
            delay = self._next - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            self._next = max(self._next + 1.0 / self.fps, time.monotonic() - 0.5)
        t = time.monotonic()
        image, meta = self.render()
        self._count += 1
        return Frame(image, self._count - 1, t, dict(meta))


def open_source(spec: str, factories: dict[str, Callable[[str], FrameSource]] | None = None) -> FrameSource:
    """Open a source by its spec; :class:`SourceError` (plain words) when it cannot be used."""
    spec = spec.strip()
    kind, _, arg = spec.partition(":")
    factories = factories or {}
    if kind in factories:
        return factories[kind](arg).open()
    if kind == "camera":
        index = int(arg) if arg.strip().isascii() and arg.strip().isdigit() and len(arg.strip()) < 4 else 0
        return CameraSource(index).open()
    if kind == "video":
        return VideoFileSource(arg).open()
    if kind == "images":
        return ImageFolderSource(arg).open()
    path = Path(spec)
    if path.is_dir():
        return ImageFolderSource(path).open()
    if path.suffix.lower() in VIDEO_SUFFIXES or path.is_file():
        return VideoFileSource(path).open()
    raise SourceError(f"Unknown source {spec!r}: use camera, camera:N, video:PATH, images:DIR or demo.")


class FrameGrabber:
    """Reads a source on a daemon thread; ``latest()`` is the newest frame. ``status``: running,
    ended (a file source finished), lost (the camera went away; ``error`` says why)."""

    def __init__(self, source: FrameSource, on_frame: Callable[[Frame], None] | None = None):
        self.source = source
        self.on_frame = on_frame
        self.status = "running"
        self.error = ""
        self.frames = 0
        self._latest: Frame | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"grab-{source.name}", daemon=True)

    def start(self) -> FrameGrabber:
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                frame = self.source.read()
            except SourceError as exc:
                self.status, self.error = "lost", str(exc)
                return
            except Exception as exc:  # a driver error must not kill the app silently
                self.status, self.error = "lost", f"{self.source.name}: {exc}"
                return
            if frame is None:
                self.status = "ended"
                return
            with self._lock:
                self._latest = frame
                self.frames += 1
            if self.on_frame:
                self.on_frame(frame)

    def latest(self) -> Frame | None:
        with self._lock:
            return self._latest

    def stop(self, timeout: float = 1.0) -> None:
        self._stop.set()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)
        self.source.close()
