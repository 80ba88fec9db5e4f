"""Fixing a set-up the camera read in part, by taps on the board's picture (issue 20, item 3), without any UI.

The camera's question about the set-up comes with what it read (``setup_read``:
:class:`companion.referee.setup_taps.SetupSpaces` as JSON). :class:`SetupFix` keeps the family's answers:
the picture marks every space -- read surely (green ring), still to check (red cross), chosen by the family
(white double ring) -- a tap on any space chooses its value (a character), and when no space is left to check
one tap confirms the whole set-up through the controller (the engine judges it like any set-up; an impossible
one is called with its rule and the answers stay). :func:`board_picture` cuts the board out of the camera's
picture and shows it straight from above, the width of the phone, so that every piece is big enough to tap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from companion.app.i18n import language, tr
from companion.app.words import space_name
from companion.games import i18n as engine_i18n
from companion.referee.setup_taps import setup_action


class SetupFix:
    def __init__(self, setup_read: dict[str, Any]):
        self.game = str(setup_read["game"])
        self.read: dict[str, Any] = dict(setup_read["read"])
        self.unsure: list[str] = [s for s in setup_read["unsure"] if s in self.read]
        self.options: list[Any] = list(setup_read["options"])
        self.space_options: dict[str, list[Any]] = {k: list(v) for k, v in (setup_read.get("space_options") or {}).items()}
        self.message = str(setup_read.get("message", ""))
        self.suspect: list[str] = [s for s in setup_read.get("suspect") or [] if s in self.read]
        self.chosen: dict[str, Any] = {}

    def value(self, space: str) -> Any:
        return self.chosen.get(space, self.read.get(space))

    def space_words(self, space: str) -> str:
        """The piece or nest as families say it, in their language (never its id)."""
        return space_name(self.game, space, language())

    def options_for(self, space: str) -> list[Any]:
        """What ``space`` can hold (a Mighty Magpies nest: tiles of its marked number)."""
        return self.space_options.get(space, self.options)

    def choose(self, space: str, value: Any) -> bool:
        """The family says what stands on ``space`` (False: no such space, or a value it cannot take)."""
        if space not in self.read or value not in self.options_for(space):
            return False
        self.chosen[space] = value
        return True

    def left(self) -> list[str]:
        """The spaces still to check: unsure and not chosen yet."""
        return [s for s in self.unsure if s not in self.chosen]

    def marks(self) -> dict[str, str]:
        """Every space for the picture: "illegal" (choose it), "proposed" (chosen by the family), "suspect" (read,
        but the box cannot hold all that was read so: look at it), "legal" (read)."""
        left = set(self.left())
        return {s: "illegal" if s in left else "proposed" if s in self.chosen else "suspect" if s in self.suspect
                else "legal" for s in self.read}

    def action(self) -> dict[str, Any] | None:
        """The whole set-up, once no space is left to check."""
        if self.left():
            return None
        return setup_action(self.game, {s: self.value(s) for s in self.read})

    def option_label(self, value: Any) -> str:
        """A character as the family calls it ("Ritter" in German); a nest's tiles counted ("3 berries, 1 silver ring")."""
        if self.game == "mighty-magpies":
            counts = {letter: str(value).count(letter) for letter in dict.fromkeys(str(value))}
            return ", ".join(tr(f"fix:tiles_{letter}", count=n) for letter, n in counts.items())
        if language() == engine_i18n.DEFAULT:
            return str(value).capitalize()
        return engine_i18n.texts(self.game, language()).term(f"name.{value}", str(value).capitalize())

    def prompt(self) -> str:
        left = self.left()
        if left and self.game == "mighty-magpies":
            return tr("fix:check_nests", count=len(left))
        if left:
            return tr("fix:check", count=len(left)) if len(left) > 1 else tr("fix:check_one")
        if self.suspect and not any(s in self.chosen for s in self.suspect):  # none looked at yet
            return tr("fix:suspect")
        return tr("fix:ready")


# --- the board seen from above, cut out of the camera's picture -----------------------------------------------
RED, GREEN, WHITE, AMBER = (60, 60, 220), (90, 200, 110), (245, 245, 245), (30, 170, 240)  # BGR


@dataclass
class BoardPicture:
    """The board straight from above (``image``, BGR), ``scale`` pixels per board mm, and where each space is."""

    image: np.ndarray
    scale: float
    centres: dict[str, tuple[float, float]]  # space -> picture px
    radius: int  # of a space's mark, in picture px

    def space_at(self, x: float, y: float, spaces) -> str | None:
        """The space nearest the tap, if within twice a mark's radius."""
        best, best_d = None, (2.0 * self.radius) ** 2
        for s in spaces:
            if s in self.centres:
                cx, cy = self.centres[s]
                d = (cx - x) ** 2 + (cy - y) ** 2
                if d <= best_d:
                    best, best_d = s, d
        return best


def board_picture(frame: np.ndarray, homography: np.ndarray, size_mm: tuple[float, float],
                  geometry: dict[str, tuple[float, float]], camera: Any = None, width: int = 720) -> BoardPicture:
    """The board cut out of ``frame`` and seen straight from above: ``homography`` maps board mm to the frame's
    undistorted pixels (the pose stage's), so a frame taken through ``camera``'s lens is undistorted first. On a
    phone the board fills the screen's width, whatever part of the camera's view it takes."""
    if camera is not None:
        K, dist = camera.camera_matrix, camera.dist_coeffs
        frame = cv2.undistort(frame, K, dist, None, K)
    scale = width / float(size_mm[0])
    height = int(round(size_mm[1] * scale))
    to_picture = np.diag([scale, scale, 1.0]) @ np.linalg.inv(np.asarray(homography, np.float64))
    image = cv2.warpPerspective(frame, to_picture, (width, height), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=(40, 40, 40))
    centres = {s: (float(x) * scale, float(y) * scale) for s, (x, y) in geometry.items()}
    spacing = _spacing(list(centres.values()))
    return BoardPicture(image, scale, centres, max(6, int(spacing * 0.42)))


def _spacing(points: list[tuple[float, float]]) -> float:
    """The median distance from a space to its nearest neighbour (how big a mark may be)."""
    if len(points) < 2:
        return 30.0
    p = np.asarray(points, np.float64)
    d = np.sqrt(((p[:, None, :] - p[None, :, :]) ** 2).sum(-1))
    np.fill_diagonal(d, np.inf)
    return float(np.median(d.min(1)))


def draw_marks(picture: BoardPicture, marks: dict[str, str], focus: str | None = None) -> np.ndarray:
    """The board picture with each space marked: a thin green ring (read), a red ring and cross (to choose), a thick
    amber ring (read, but doubtful), a white double ring (chosen by the family); ``focus``, the space being chosen,
    ringed boldly."""
    img = picture.image.copy()
    r = picture.radius
    for space, mark in marks.items():
        if space not in picture.centres:
            continue
        c = tuple(int(round(v)) for v in picture.centres[space])
        if mark == "illegal":
            cv2.circle(img, c, r, RED, 3, cv2.LINE_AA)
            d = int(r * 0.6)
            cv2.line(img, (c[0] - d, c[1] - d), (c[0] + d, c[1] + d), RED, 3, cv2.LINE_AA)
            cv2.line(img, (c[0] - d, c[1] + d), (c[0] + d, c[1] - d), RED, 3, cv2.LINE_AA)
        elif mark == "proposed":
            cv2.circle(img, c, r, WHITE, 3, cv2.LINE_AA)
            cv2.circle(img, c, r + 4, WHITE, 2, cv2.LINE_AA)
        elif mark == "suspect":
            cv2.circle(img, c, r, AMBER, 4, cv2.LINE_AA)
        else:
            cv2.circle(img, c, r, GREEN, 2, cv2.LINE_AA)
    if focus in picture.centres:
        c = tuple(int(round(v)) for v in picture.centres[focus])
        cv2.circle(img, c, r + 9, (40, 200, 250), 4, cv2.LINE_AA)
    return img
