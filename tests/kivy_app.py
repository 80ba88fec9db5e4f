"""The app's Kivy window and event loop for the UI tests (importable by every test module: tests/ is on sys.path)."""

from __future__ import annotations

import os
import tempfile
import time

import pytest

# Kivy makes its home folder on import; test modules that import the app at collection would otherwise race to make
# ~/.kivy on a fresh machine (two workers: FileExistsError)
os.environ.setdefault("KIVY_HOME", tempfile.mkdtemp(prefix="companion-kivy-"))

LARGEST = (1280, 820)  # an offscreen window cannot grow past the size it was made at: it starts as large as any test needs


def offscreen(size: tuple[int, int]) -> None:
    """Kivy headless (the developers' guide's settings), its window ``size``; before Kivy's window is imported."""
    os.environ["SDL_VIDEODRIVER"] = "offscreen"
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    os.environ.setdefault("KIVY_NO_FILELOG", "1")
    os.environ.setdefault("KIVY_CLIPBOARD", "sdl2")
    os.environ.setdefault("KIVY_HOME", tempfile.mkdtemp(prefix="companion-kivy-"))
    from kivy.config import Config

    Config.set("kivy", "log_level", "warning")
    Config.set("graphics", "width", str(size[0]))
    Config.set("graphics", "height", str(size[1]))


def kivy_window():
    """Kivy's one window, offscreen; the test is skipped with the reason when Kivy or the GL libraries are missing."""
    pytest.importorskip("kivy", reason="Kivy is not installed (pip install -e '.[app]')")
    offscreen(LARGEST)
    from kivy.config import Config

    Config.set("graphics", "maxfps", "0")  # the tests' event loop runs as fast as it can (no sleeping between frames)
    try:
        from kivy.core.window import Window
    except BaseException as exc:  # Kivy may sys.exit when no GL window can be made
        pytest.skip(f"no GL window available ({exc!r}); install the system GL libraries (scripts/install-system-libs.sh)")
    if Window is None:
        pytest.skip("no GL window available; install the system GL libraries (scripts/install-system-libs.sh)")
    return Window


def pump(until, timeout=20.0, what=""):
    """Run the app's event loop until ``until()`` holds."""
    from kivy.base import EventLoop

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        EventLoop.idle()
        if until():
            return
    raise AssertionError(f"timed out waiting for {what}")
