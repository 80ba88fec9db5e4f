"""The board on camera, for the app (no Kivy import): its pose frame by frame, then the dice.

- :class:`CameraRecognizer` -- what the recognition worker runs on a real camera's frames: the
  board pose (:class:`companion.vision.pose.BoardTracker`) of the current game's board, then the
  dice. It reports ``board`` (the pose status in plain words: "board found", "board not in view",
  "markers partly hidden", "camera moved - re-checking", ...), ``homography`` (board mm -> frame px,
  only while the pose is usable), ``board_source`` (markers, tracked, or tapped: the family's four
  tapped corners) and whatever the dice reader says. The demo keeps its fixed homography; a real
  camera never uses it. With a camera profile (``camera``, :class:`companion.vision.intrinsics.CameraProfile`)
  the pose stage undistorts marker corners and taps, and ``homography`` maps to undistorted px (the
  overlay projects through :func:`companion.vision.pose.to_image` with the same profile).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np

from companion.app.calibration import BoardInfo, board_map_for, load_registry

USABLE = ("board found", "markers partly hidden")


def is_usable(status: str) -> bool:
    return status in USABLE


class CameraRecognizer:
    """Board pose, then dice, for a real camera (runs on the recognition worker's thread).

    ``set_game`` is called from the UI thread; the tracker of the new board is built on the worker's
    thread at its next frame. ``dice`` is the dice recognizer (``worker.DiceRecognizer``) or None.
    """

    def __init__(self, user_dir: str | Path | None = None, dice=None, boards_dir: str | Path | None = None,
                 camera=None):
        self.user_dir = user_dir
        self.boards_dir = boards_dir
        self.dice = dice
        self.camera = camera
        self._game: str | None = None
        self._built_for: tuple[str | None, int] | None = None
        self._version = 0
        self._tracker = None
        self._info: BoardInfo | None = None
        self._why = ""
        self._lock = threading.Lock()
        self._tapped: list | None = None
        self._kept: tuple[str | None, list, np.ndarray] | None = None  # (game, corners, frame) of the accepted taps
        self._source = "none"  # where the pose came from: markers | tapped | none

    @property
    def info(self) -> BoardInfo | None:
        return self._info

    def set_game(self, game: str | None, reload: bool = False) -> None:
        """The board to track (a new game, or ``reload`` after the board was taught)."""
        with self._lock:
            if game != self._game or reload:
                self._game = game
                self._version += 1

    def tap_corners(self, corners_px: list[tuple[float, float]] | None) -> None:
        """Four tapped board corners (top-left, top-right, bottom-right, bottom-left) when no marker shows;
        applied on the worker's next frame. They hold for the session (a rebuilt tracker of the same
        board gets them again) until the picture changes; None forgets them."""
        with self._lock:
            if corners_px is None:
                self._tapped, self._kept = None, None
                self._version += 1  # a fresh tracker: the old taps are gone there too
            else:
                self._tapped = [tuple(map(float, c)) for c in corners_px]

    def read_dice_again(self) -> None:
        """The dice in view are reported again once settled (``worker.DiceRecognizer.read_again``)."""
        if hasattr(self.dice, "read_again"):
            self.dice.read_again()

    def set_camera(self, camera) -> None:
        """Use this camera profile (None: treat the camera as distortion-free) from the next frame on."""
        with self._lock:
            self.camera = camera
            self._version += 1

    def _ensure(self) -> None:
        with self._lock:
            wanted = (self._game, self._version)
        if wanted == self._built_for:
            return
        self._built_for = wanted
        self._tracker = self._info = None
        self._why = ""
        self._source = "none"
        if wanted[0] is None:
            return
        if hasattr(self.dice, "set_kinds"):  # the reader answers only with the kinds of this game's dice
            from companion.games.core import GameError
            from companion.games.registry import load_game

            try:
                self.dice.set_kinds(load_game(wanted[0]).game_class.dice_kinds)
            except GameError:  # not a game of the box (a board map only): every kind
                self.dice.set_kinds(())
        if hasattr(self.dice, "set_registry"):
            self.dice.set_registry(load_registry(self.user_dir, wanted[0]))
        info, why = board_map_for(wanted[0], self.user_dir, self.boards_dir)
        self._info, self._why = info, why
        if info is not None:
            from companion.vision.pose import BoardTracker, PoseError

            self._tracker = BoardTracker(info.map, camera=self.camera)
            kept = self._kept
            if kept is not None and kept[0] == wanted[0]:  # the same board again (reloaded): the taps still hold
                try:
                    self._tracker.set_tapped_corners(kept[2], kept[1])
                except PoseError:
                    self._kept = None

    def _check_camera(self, image: np.ndarray) -> str:
        """A profile calibrated for another picture size would bend the picture wrongly: it is set aside
        (the pose stage goes on without undistortion) and the reason returned once."""
        camera = self.camera
        size = (int(image.shape[1]), int(image.shape[0]))
        if camera is None or tuple(int(v) for v in camera.image_size) == size:
            return ""
        from companion.app.i18n import tr

        with self._lock:
            self.camera = None
            self._version += 1
        w, h = camera.image_size
        return tr("camera:profile_size", name=camera.name, profile=f"{w}x{h}", frame=f"{size[0]}x{size[1]}")

    def pose(self, image: np.ndarray) -> dict[str, Any]:
        warning = self._check_camera(image)
        self._ensure()
        if warning:
            return {"camera_warning": warning, **self._pose(image)}
        return self._pose(image)

    def _pose(self, image: np.ndarray) -> dict[str, Any]:
        if self._tracker is None:
            return {"board": "no board map", "board_reason": self._why} if self._game else {}
        with self._lock:
            tapped, self._tapped = self._tapped, None
        if tapped is not None:
            from companion.vision.pose import PoseError

            try:
                self._tracker.set_tapped_corners(image, tapped)
                self._kept = (self._built_for[0], tapped, image)
            except PoseError as exc:
                return {"board": "board not in view", "board_reason": str(exc)}
        result = self._tracker.update(image)
        if self._kept is not None and not self._tracker.has_tapped_corners:
            self._kept = None  # the tracker dropped the taps (the picture changed since): tap again
        if result.source != "tracked":  # a still picture keeps the pose it had: say where that came from
            self._source = result.source
        out: dict[str, Any] = {"board": result.status.value, "board_reason": result.reason,
                               "board_map": self._info.source if self._info else "", "board_source": self._source}
        if result.usable:
            out["homography"] = np.asarray(result.homography, np.float64).tolist()
            angle = self._tracker.view_angle(result, (image.shape[1], image.shape[0]))
            if angle is not None:  # how obliquely the camera sees the board: dice read poorly from low down
                limit = float(self._tracker.config["view"]["lean_warn_deg"])
                out.update(view_angle=round(angle, 1), view_leaning=angle > limit, view_lean_limit=limit)
        return out

    def __call__(self, image: np.ndarray, meta: dict[str, Any]) -> dict[str, Any]:
        observation = self.pose(image)
        if self.dice is not None:
            observation.update(self.dice(image, meta))
        return observation
