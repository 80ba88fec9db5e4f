"""What in the app's data folder is damaged, in one line per file (no Kivy import).

The app starts whatever it finds: each loader checks every field and falls back (the standard
settings, the reference board map, no camera profile, unregistered dice). This module names each
file that was not usable so the home screen can say so once; the journals say it in their own list.
"""

from __future__ import annotations

from pathlib import Path


def data_folder_notices(root: str | Path) -> list[str]:
    """One notice per damaged camera profile, dice registry or fitted board map under ``root``."""
    root = Path(root)
    return _camera_profiles(root) + _dice_registries(root) + _fitted_maps(root)


def _files(folder: Path, pattern: str) -> list[Path]:
    try:
        return sorted(folder.glob(pattern))[:100] if folder.is_dir() else []
    except OSError:
        return []


def _camera_profiles(root: Path) -> list[str]:
    from companion.vision.intrinsics import CalibrationError, CameraProfile

    notices = []
    for path in _files(root / "cameras", "*.json"):
        try:
            CameraProfile.load(path)
        except CalibrationError as exc:
            notices.append(f"cameras/{path.name} is not used: {str(exc).split(': ', 1)[-1]}")
    return notices


def _dice_registries(root: Path) -> list[str]:
    from companion.vision.registry import DieRegistry

    notices = []
    for path in _files(root / "dice", "*.json"):
        try:
            DieRegistry.load(path)
        except (OSError, ValueError) as exc:
            notices.append(f"dice/{path.name} is not used (show the dice again in set-up): {exc}")
    return notices


def _fitted_maps(root: Path) -> list[str]:
    from companion.app.calibration import reference_map_path
    from companion.vision.boardmap import BoardMapError, MapSource, load_board_map, load_user_map

    notices = []
    for path in _files(root / "boards", "*.fitted.json"):
        game = path.name[: -len(".fitted.json")]
        try:
            reference = load_board_map(reference_map_path(game))
        except BoardMapError:
            continue  # not a game of this version: nothing uses the file
        used = load_user_map(reference, root)
        if used.source is MapSource.FITTED_CORRUPT:
            notices.append(f"boards/{path.name} is not used: {used.reason}")
    return notices
