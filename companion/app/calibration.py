"""The family's calibration files, for the app (no Kivy import): board maps, camera profiles, registered dice.

- :func:`board_map_for` -- the game's reference map ``calibration/boards/<game>.json`` through
  :func:`companion.vision.boardmap.load_user_map`, so the family's fitted map (``teach the board``)
  wins when it is sound; ``None`` (with the reason) for a game without a map.
- :func:`camera_profiles` / :func:`load_camera_profile` -- the camera profiles to choose from (lens
  undistortion for the pose stage), and one of them loaded or explained.
- :func:`load_registry` -- the dice the family showed once (``show each die once``), saved per game.

Every loader here says why in plain words and never raises: the app goes on without the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.data import bundled

BOARDS_DIR = bundled("calibration", "boards")
CAMERAS_DIR = bundled("calibration", "cameras")


@dataclass
class BoardInfo:
    game: str
    map: Any  # BoardMap
    source: str  # "fitted map" | "reference map ..." (boardmap.MapSource's words)
    message: str

    def geometry(self) -> dict[str, tuple[float, float]]:
        """Region id -> centre in board mm (what the overlays mark)."""
        return {r.id: (float(r.center_mm[0]), float(r.center_mm[1])) for r in self.map.regions}


def reference_map_path(game: str, boards_dir: str | Path | None = None) -> Path:
    return Path(boards_dir or BOARDS_DIR) / f"{game}.json"


def board_map_for(game: str, user_dir: str | Path | None = None, boards_dir: str | Path | None = None
                  ) -> tuple[BoardInfo | None, str]:
    """(the map readers should use, "") or (None, why not) -- never raises."""
    from companion.vision.boardmap import BoardMapError, load_board_map, load_user_map

    path = reference_map_path(game, boards_dir)
    if not path.is_file():
        return None, f"no board map for {game} ({path.name} is missing)"
    try:
        reference = load_board_map(path)
    except BoardMapError as exc:
        return None, f"the board map {path.name} is damaged: {exc.reason}"
    user = load_user_map(reference, user_dir)
    return BoardInfo(game, user.map, user.source.value, user.message), ""


def camera_profiles(user_dir: str | Path | None = None, cameras_dir: str | Path | None = None) -> list[Path]:
    """The camera profiles to choose from: ``calibration/cameras/*.json`` and ``<data>/cameras/*.json``."""
    found: list[Path] = []
    for folder in (Path(cameras_dir or CAMERAS_DIR), Path(user_dir) / "cameras" if user_dir else None):
        if folder is not None and folder.is_dir():
            found += sorted(folder.glob("*.json"))
    return found


def load_camera_profile(path: str | Path | None) -> tuple[Any, str]:
    """(the camera profile, "") or (None, why not in plain words: the app goes on without undistortion).
    ``None`` / ``""``: no profile, no message. Never raises."""
    if not path:
        return None, ""
    from companion.app.i18n import tr
    from companion.vision.intrinsics import CalibrationError, CameraProfile

    path = Path(path)
    if not path.is_file():
        return None, tr("camera:profile_missing", path=str(path))
    try:
        return CameraProfile.load(path), ""
    except CalibrationError as exc:
        return None, tr("camera:profile_bad", name=path.name, reason=str(exc).split(": ", 1)[-1])


def registry_path(user_dir: str | Path, game: str) -> Path:
    return Path(user_dir) / "dice" / f"{game}.json"


def load_registry(user_dir: str | Path | None, game: str | None):
    """The family's registered dice of ``game`` (a DieRegistry) or None (none saved, or unreadable)."""
    if user_dir is None or game is None:
        return None
    path = registry_path(user_dir, game)
    if not path.is_file():
        return None
    from companion.vision.registry import DieRegistry

    try:
        return DieRegistry.load(path)
    except (OSError, ValueError, KeyError, TypeError):
        return None
