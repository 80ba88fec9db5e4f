"""Where the app keeps its journals and settings (no Kivy import).

``$COMPANION_DATA`` wins; otherwise ``$XDG_DATA_HOME/companion`` (``~/.local/share/companion``).
On Android the app passes Kivy's ``user_data_dir`` instead.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

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
    path.mkdir(parents=True, exist_ok=True)
    return path


def journals_dir(root: Path) -> Path:
    path = root / "journals"
    path.mkdir(parents=True, exist_ok=True)
    return path


def load_settings(root: Path) -> dict:
    """Packaged defaults plus the user's copy; an unreadable or outdated copy is set aside."""
    path = root / "settings.json"
    settings = dict(DEFAULT_SETTINGS)
    if not path.is_file():
        return settings
    try:
        user = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(user, dict) or user.get("version") != SETTINGS_VERSION:
            raise ValueError("outdated")
    except (OSError, ValueError):
        path.replace(path.with_name("settings.json.old"))
        return settings
    settings.update({k: v for k, v in user.items() if k in DEFAULT_SETTINGS})
    return settings


def save_settings(root: Path, settings: dict) -> None:
    path = root / "settings.json"
    tmp = path.with_name("settings.json.tmp")
    tmp.write_text(json.dumps({**settings, "version": SETTINGS_VERSION}, indent=1), encoding="utf-8")
    os.replace(tmp, path)
