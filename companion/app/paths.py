"""Where the app keeps its journals and settings (no Kivy import).

``$COMPANION_DATA`` wins; otherwise ``$XDG_DATA_HOME/companion`` (``~/.local/share/companion``).
On Android the app passes Kivy's ``user_data_dir`` instead.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from companion.storage import fsync_dir, make_dirs, read_small_text, write_atomic

SETTINGS_VERSION = 1
DEFAULT_SETTINGS = {"version": SETTINGS_VERSION, "language": "en", "speech": False, "source": "auto", "camera_profile": ""}


def data_dir(override: str | os.PathLike | None = None) -> Path:
    if override:
        path = Path(override)
    elif os.environ.get("COMPANION_DATA"):
        path = Path(os.environ["COMPANION_DATA"])
    else:
        base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
        path = Path(base) / "companion"
    return make_dirs(path)


def journals_dir(root: Path) -> Path:
    return make_dirs(root / "journals")


def _language(value) -> str | None:
    from companion.app.i18n import LANGUAGES

    return None if value in LANGUAGES else f"not one of {', '.join(LANGUAGES)}"


def _text(limit: int):
    def check(value) -> str | None:
        if not isinstance(value, str):
            return "not a text"
        if len(value) > limit or any(ord(ch) < 32 for ch in value):
            return "too long, or with control characters"
        return None
    return check


def _flag(value) -> str | None:
    return None if isinstance(value, bool) else "not true or false"


CHECKS = {"language": _language, "speech": _flag, "source": _text(500), "camera_profile": _text(4096)}
"""Each setting's check: None when the value is usable, else why not (the default is used instead)."""


def load_settings(root: Path, notices: list[str] | None = None) -> dict:
    """Packaged defaults plus the user's copy, each value checked. An unreadable or outdated copy is set
    aside (``settings.json.old``); a bad value is replaced by its default, the file kept as
    ``settings.json.damaged``, and ``notices`` names the file and the value."""
    path = root / "settings.json"
    settings = dict(DEFAULT_SETTINGS)
    if not path.exists() and not path.is_symlink():
        return settings
    try:
        user = json.loads(read_small_text(path))
        if not isinstance(user, dict) or user.get("version") != SETTINGS_VERSION:
            raise ValueError("outdated")
    except (OSError, ValueError, RecursionError) as exc:
        _set_aside(path, path.with_name("settings.json.old"))
        if notices is not None and str(exc) != "outdated":
            notices.append(f"settings.json could not be read ({exc.__class__.__name__}); it was set aside as "
                           "settings.json.old and the standard settings are used.")
        return settings
    bad = []
    for key, check in CHECKS.items():
        if key not in user:
            continue
        why = check(user[key])
        if why is None:
            settings[key] = user[key]
        else:
            bad.append(f"{key} {str(user[key])[:40]!r} ({why}; {DEFAULT_SETTINGS[key]!r} is used)")
    if bad:
        try:
            write_atomic(path.with_name("settings.json.damaged"), read_small_text(path))
        except (OSError, ValueError):
            pass
        if notices is not None:
            notices.append(f"settings.json: {'; '.join(bad)}. The file was kept as settings.json.damaged.")
    return settings


def _set_aside(path: Path, aside: Path) -> None:
    try:
        path.replace(aside)
        fsync_dir(path.parent)
    except OSError:
        pass


def save_settings(root: Path, settings: dict) -> None:
    """Written atomically (temporary file, fsync, rename, folder fsync). OSError if it cannot be."""
    write_atomic(root / "settings.json", json.dumps({**settings, "version": SETTINGS_VERSION}, indent=1) + "\n")
