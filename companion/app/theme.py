"""Plain-data theme: colours (RGBA 0-1), sizes and the letter/shape drawn beside every colour.

No Kivy import: the .kv files and the overlay code read these values; a user JSON file
(``theme.json`` in the data folder) may override any of them by name.
"""

from __future__ import annotations

import json
from pathlib import Path

BACKGROUND = (0.10, 0.11, 0.13, 1)
PANEL = (0.16, 0.17, 0.20, 1)
TEXT = (0.96, 0.96, 0.94, 1)
MUTED = (0.70, 0.72, 0.75, 1)
ACCENT = (0.20, 0.55, 0.85, 1)
CONFIRM = (0.18, 0.62, 0.32, 1)
DANGER = (0.80, 0.25, 0.22, 1)
WARN = (0.90, 0.66, 0.12, 1)

# Overlay marks never rely on colour alone: each kind has a colour, a letter and a shape.
MARKS = {
    "die": {"colour": (0.20, 0.55, 0.85, 1), "letter": "D", "shape": "box"},
    "die-uncertain": {"colour": (0.90, 0.66, 0.12, 1), "letter": "?", "shape": "dashed-box"},
    "legal": {"colour": (0.18, 0.62, 0.32, 1), "letter": "L", "shape": "ring"},
    "proposed": {"colour": (0.95, 0.95, 0.95, 1), "letter": "P", "shape": "double-ring"},
    "illegal": {"colour": (0.80, 0.25, 0.22, 1), "letter": "X", "shape": "cross"},
}

# Player colours with a letter each (shown beside the swatch everywhere).
PLAYER_COLOURS = [
    {"name": "red", "rgba": (0.85, 0.22, 0.20, 1), "letter": "R"},
    {"name": "blue", "rgba": (0.22, 0.45, 0.90, 1), "letter": "B"},
    {"name": "green", "rgba": (0.20, 0.65, 0.30, 1), "letter": "G"},
    {"name": "yellow", "rgba": (0.95, 0.80, 0.15, 1), "letter": "Y"},
]

FONT_SIZE = 20  # sp, body text
TITLE_SIZE = 30  # sp
TOUCH_TARGET = 56  # dp, minimum height/width of anything tappable (guidelines: >= 48dp)
PADDING = 12  # dp
PREVIEW_FPS = 30  # how often the preview texture is refreshed


def load_overrides(path: str | Path) -> dict:
    """Apply a user ``theme.json`` ({NAME: value}) to this module; returns what was applied."""
    path = Path(path)
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    applied = {}
    for key, value in data.items() if isinstance(data, dict) else ():
        if key.isupper() and key in globals() and type(globals()[key]) in (tuple, int, float, dict, list):
            globals()[key] = tuple(value) if isinstance(globals()[key], tuple) else value
            applied[key] = value
    return applied
