"""A screen of the app driven in a process of its own (Kivy has one window per process), at phone size.

The driving script (``dice_screen_run.py``, ``setup_fix_run.py``) calls :func:`phone_window` first, then builds
the app, :func:`pump`\\ s its event loop, :func:`say`\\ s what it sees as JSON lines and :func:`shoot`\\ s
screenshots; the test runs it with :func:`run_ui` and checks what it said."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the shared Kivy helpers (a script run alone)
from kivy_app import offscreen  # noqa: E402
from kivy_app import pump as _pump  # noqa: E402

PHONE = (420, 820)


def phone_window():
    """Kivy's window, offscreen and phone-sized; prints NO-WINDOW and exits when no GL window can be made."""
    offscreen(PHONE)
    try:
        from kivy.core.window import Window
    except BaseException:
        Window = None
    if Window is None:
        print("NO-WINDOW")
        sys.exit(0)
    return Window


def pump(until, timeout: float = 60.0, what: str = "") -> None:
    """The event loop until ``until()`` holds; a phone-sized app in its own process is given longer."""
    _pump(until, timeout, what)


def say(**kw) -> None:
    print(json.dumps(kw), flush=True)


def shoot(shots: Path, name: str) -> None:
    """A screenshot as ``<shots>/<name>.png``, after a popup's opening or closing animation."""
    from kivy.core.window import Window

    _idle(0.6)
    written = Window.screenshot(name=str(shots / f"{name}_.png"))
    Path(written).replace(shots / f"{name}.png")


def _idle(seconds: float) -> None:
    from kivy.base import EventLoop

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        EventLoop.idle()


def run_ui(script: str, *args, timeout: float = 300) -> dict:
    """Run a driving script of this folder; everything it said, merged (skipped without a GL window)."""
    pytest.importorskip("kivy")
    done = subprocess.run([sys.executable, str(Path(__file__).resolve().parent / script), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)
    if "NO-WINDOW" in done.stdout:
        pytest.skip("no GL window available")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    said: dict = {}
    for line in done.stdout.splitlines():
        if line.startswith("{"):
            said.update(json.loads(line))
    return said
