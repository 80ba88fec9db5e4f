"""The app start does not alarm a family with Kivy's probe for an X11 cut buffer it never uses."""

from __future__ import annotations

import logging

from companion.app.cli import drop_cut_buffer_probe


def _record(message: str, level: int = logging.CRITICAL) -> logging.LogRecord:
    return logging.LogRecord("kivy", level, __file__, 1, message, None, None)


def test_the_cut_buffer_probe_failure_is_dropped_and_everything_else_kept():
    probe = "Cutbuffer: Unable to find any valuable Cutbuffer provider. Please enable debug logging\nxsel - FileNotFoundError"
    assert drop_cut_buffer_probe(_record(probe)) is False
    for kept in ("Clipboard: Unable to find any valuable Clipboard provider.", "Window: Unable to find any valuable Window provider.",
                 "Camera: Unable to find any valuable Camera provider."):
        assert drop_cut_buffer_probe(_record(kept)) is True
