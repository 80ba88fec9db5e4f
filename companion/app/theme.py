"""Plain-data theme: colours (RGBA 0-1), sizes and the letter/shape drawn beside every colour.

No Kivy import: the .kv files and the overlay code read these values; a user JSON file
(``theme.json`` in the data folder) may override any of them by name.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from companion.storage import read_small_text

BACKGROUND = (0.10, 0.11, 0.13, 1)
PANEL = (0.16, 0.17, 0.20, 1)
TEXT = (0.96, 0.96, 0.94, 1)
MUTED = (0.70, 0.72, 0.75, 1)
ACCENT = (0.20, 0.55, 0.85, 1)
CONFIRM = (0.18, 0.62, 0.32, 1)
DANGER = (0.80, 0.25, 0.22, 1)
WARN = (0.90, 0.66, 0.12, 1)

# Overlay marks never rely on colour alone: each kind has a colour, a letter and a shape, drawn over a black
# and a white stroke so it stands out on any board, for every eye (tests/app/test_app_overlay.py checks the
# contrast under deuteranopia and protanopia simulations).
MARKS = {
    "die": {"colour": (0.20, 0.55, 0.95, 1), "letter": "", "shape": "box"},
    "die-uncertain": {"colour": (1.00, 0.80, 0.10, 1), "letter": "?", "shape": "dashed-box"},
    "piece": {"colour": (1.00, 0.80, 0.10, 1), "letter": "", "shape": "square"},  # has moves: tap to pick it up
    "target": {"colour": (0.35, 0.75, 1.00, 1), "letter": "", "shape": "ring"},  # a move goes here
    "selected": {"colour": (1.00, 0.80, 0.10, 1), "letter": "S", "shape": "double-square"},  # the piece picked up
    "proposed": {"colour": (1.00, 1.00, 1.00, 1), "letter": "P", "shape": "double-ring"},
    "illegal": {"colour": (1.00, 0.30, 0.85, 1), "letter": "X", "shape": "cross"},
    "unsure": {"colour": (1.00, 0.80, 0.10, 1), "letter": "?", "shape": "dashed-ring"},  # a reading to check: tap it
}
MARKS["legal"] = MARKS["target"]  # the older name

# Sizes over the picture, in dp of the screen (the overlay is drawn at the picture's shown size): a family reads
# them at arm's length from a phone on the table.
MARK_RADIUS = 15  # a ring's radius (30 dp across) ...
MARK_RADIUS_MIN = 12  # ... less where spaces lie close together, but never under 24 dp across
MARK_TEXT = 24  # the height of a die's value, a mark's letter and the status line
MARK_STROKE = 3

# Player colours with a letter each (shown beside the swatch everywhere).
PLAYER_COLOURS = [
    {"name": "red", "rgba": (0.85, 0.22, 0.20, 1), "letter": "R"},
    {"name": "blue", "rgba": (0.22, 0.45, 0.90, 1), "letter": "B"},
    {"name": "green", "rgba": (0.20, 0.65, 0.30, 1), "letter": "G"},
    {"name": "yellow", "rgba": (0.95, 0.80, 0.15, 1), "letter": "Y"},
]



def colour_letter(colour: dict) -> str:
    """The letter shown beside a player's colour, in the family's language (German: Gelb is "Ge", Grün "Gr")."""
    from companion.app.i18n import tr

    key = f"colour:letter:{colour['name']}"
    text = tr(key)
    return colour["letter"] if text == key else text


def player_colour(colours: list[int], index: int) -> dict:
    """The colour of player ``index`` (``colours``: each player's index into PLAYER_COLOURS, as chosen)."""
    return PLAYER_COLOURS[colours[index % len(colours)] % len(PLAYER_COLOURS)]


FONT_SIZE = 20  # sp, body text
TITLE_SIZE = 26  # sp
NAV_HEIGHT = 48  # dp, the navigation bars and titles
TOUCH_TARGET = 56  # dp, minimum height/width of anything tappable (guidelines: >= 48dp)
PADDING = 12  # dp
PREVIEW_FPS = 30  # how often the preview texture is refreshed


def load_overrides(path: str | Path, notices: list[str] | None = None) -> dict:
    """Apply a user ``theme.json`` ({NAME: value}) to this module; returns what was applied. A value
    unlike the default it replaces (another type, length or key) is skipped, and ``notices`` says so."""
    path = Path(path)
    if not path.is_file():
        return {}
    try:
        data = json.loads(read_small_text(path))
    except (OSError, ValueError, RecursionError) as exc:
        if notices is not None:
            notices.append(f"{path.name} cannot be read ({exc.__class__.__name__}); the standard colours are used.")
        return {}
    applied, skipped = {}, []
    for key, value in data.items() if isinstance(data, dict) else ():
        if key.isupper() and key in globals() and type(globals()[key]) in (tuple, int, float, dict, list):
            if not _like(globals()[key], value):
                skipped.append(key)
                continue
            globals()[key] = _as(globals()[key], value)
            applied[key] = value
    if skipped and notices is not None:
        notices.append(f"{path.name}: {', '.join(skipped)} kept the standard value (the file's value is not of its kind).")
    return applied


def _like(default, value) -> bool:
    """Whether ``value`` (from JSON) has the shape of ``default``: the same kinds, lengths and keys."""
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, int | float):
        ok_type = isinstance(value, int) if isinstance(default, int) else isinstance(value, int | float)
        return ok_type and not isinstance(value, bool) and math.isfinite(value) and 0 <= value <= 10_000
    if isinstance(default, str):
        return isinstance(value, str) and len(value) <= 40
    if isinstance(default, tuple):
        return isinstance(value, list) and len(value) == len(default) and all(map(_like, default, value))
    if isinstance(default, dict):
        return isinstance(value, dict) and set(value) == set(default) and all(_like(default[k], value[k]) for k in default)
    if isinstance(default, list):
        return isinstance(value, list) and 0 < len(value) <= 64 and all(_like(default[0], v) for v in value)
    return False


def _as(default, value):
    """JSON lists become tuples where the default is a tuple (at any depth)."""
    if isinstance(default, tuple):
        return tuple(_as(d, v) for d, v in zip(default, value, strict=True))
    if isinstance(default, dict):
        return {k: _as(default[k], v) for k, v in value.items()}
    if isinstance(default, list):
        return [_as(default[0], v) for v in value]
    return value
