"""Overlays drawn onto the camera picture (OpenCV, no Kivy): dice read, legal and proposed spaces.

Board spaces are projected from board millimetres through the homography of the current pose, so the
marks sit on the real pieces. The marks are drawn once into a transparent BGRA *layer* (:func:`layer`)
that the preview shows over the camera picture; it is redrawn only when what it shows changes (a new
reading, proposal, highlight or pose), never per camera frame. No mark relies on colour alone: each carries its letter (``theme.MARKS``)
and its own shape (box, dashed box, ring, double ring, cross).
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from companion.app import theme


def _bgr(rgba) -> tuple[int, int, int]:
    r, g, b = rgba[:3]
    return int(b * 255), int(g * 255), int(r * 255)


def _c(img, colour) -> tuple:
    """An opaque colour for ``img`` (BGR, or BGRA with alpha 255)."""
    colour = tuple(int(v) for v in colour[:3])
    return colour + (255,) if img.ndim == 3 and img.shape[2] == 4 else colour


def _label(img, text, org, colour, scale=0.6) -> None:
    x, y = int(org[0]), int(org[1])
    cv2.putText(img, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, _c(img, (0, 0, 0)), 4, cv2.LINE_AA)
    cv2.putText(img, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, _c(img, colour), 2, cv2.LINE_AA)


def _dashed_rect(img, p0, p1, colour, dash=8) -> None:
    colour = _c(img, colour)
    x0, y0 = p0
    x1, y1 = p1
    for x in range(x0, x1, dash * 2):
        cv2.line(img, (x, y0), (min(x + dash, x1), y0), colour, 3)
        cv2.line(img, (x, y1), (min(x + dash, x1), y1), colour, 3)
    for y in range(y0, y1, dash * 2):
        cv2.line(img, (x0, y), (x0, min(y + dash, y1)), colour, 3)
        cv2.line(img, (x1, y), (x1, min(y + dash, y1)), colour, 3)


def draw_dice(img: np.ndarray, dice: list[dict[str, Any]]) -> None:
    """``dice``: dicts with box, value, uncertain (readings, or the proposal's dice)."""
    for d in dice:
        if not d.get("box"):
            continue
        x, y, w, h = (int(v) for v in d["box"])
        mark = theme.MARKS["die-uncertain" if d.get("uncertain") else "die"]
        colour = _bgr(mark["colour"])
        if d.get("uncertain"):
            _dashed_rect(img, (x - 4, y - 4), (x + w + 4, y + h + 4), colour)
        else:
            cv2.rectangle(img, (x - 4, y - 4), (x + w + 4, y + h + 4), _c(img, colour), 3)
        text = f"{d.get('value')}" + ("?" if d.get("uncertain") else "")
        _label(img, text, (x, y - 10), colour, 0.8)


def draw_spaces(img: np.ndarray, marks: dict[str, str], geometry: dict[str, tuple[float, float]], homography: np.ndarray | None,
                camera=None) -> None:
    """``marks``: piece id -> "legal" | "proposed" | "illegal", at ``geometry`` (board mm)."""
    if homography is None or not marks:
        return
    ids = [p for p in marks if p in geometry]
    if not ids:
        return
    pts = project(homography, [geometry[p] for p in ids], camera)
    for pid, (px, py) in zip(ids, pts, strict=True):
        kind = marks[pid]
        mark = theme.MARKS[kind]
        colour = _c(img, _bgr(mark["colour"]))
        centre = (int(px), int(py))
        if mark["shape"] == "cross":
            cv2.line(img, (centre[0] - 12, centre[1] - 12), (centre[0] + 12, centre[1] + 12), colour, 3)
            cv2.line(img, (centre[0] - 12, centre[1] + 12), (centre[0] + 12, centre[1] - 12), colour, 3)
        else:
            cv2.circle(img, centre, 15, colour, 3)
            if mark["shape"] == "double-ring":
                cv2.circle(img, centre, 20, colour, 2)
        _label(img, mark["letter"], (centre[0] + 14, centre[1] - 12), colour, 0.55)


def draw_points(img: np.ndarray, points: list[tuple[tuple[float, float], str]]) -> None:
    """Tapped points (the board's corners being tapped): a ring and its number each, joined in order."""
    if not points:
        return
    colour = _bgr(theme.MARKS["proposed"]["colour"])
    pts = np.asarray([p for p, _ in points], np.float32).round().astype(np.int32)
    if len(pts) > 1:
        cv2.polylines(img, [pts.reshape(-1, 1, 2)], len(pts) == 4, _c(img, colour), 2, cv2.LINE_AA)
    for (x, y), text in zip(pts.tolist(), [t for _, t in points], strict=True):
        cv2.circle(img, (x, y), 10, _c(img, colour), 3)
        _label(img, text, (x + 12, y - 12), colour, 0.7)


def layer(size: tuple[int, int], dice: list[dict[str, Any]], marks: dict[str, str],
          geometry: dict[str, tuple[float, float]], homography: np.ndarray | None, status: str = "",
          outline: np.ndarray | None = None, points: list[tuple[tuple[float, float], str]] | None = None,
          camera=None) -> np.ndarray | None:
    """The overlay of a ``size`` (width, height) frame as a transparent BGRA image; None when empty.
    ``outline``: the board's corners in image px (the pose found), drawn as a thin frame. ``points``:
    tapped points with their labels. ``camera``: the camera profile the pose was found with (board
    points are projected through its lens distortion onto the raw picture)."""
    w, h = size
    if not (dice or (marks and homography is not None) or status or outline is not None or points):
        return None
    out = np.zeros((h, w, 4), np.uint8)
    if outline is not None:
        cv2.polylines(out, [np.asarray(outline, np.float32).reshape(-1, 1, 2).round().astype(np.int32)], True,
                      _c(out, _bgr(theme.MARKS["legal"]["colour"])), 2, cv2.LINE_AA)
    draw_points(out, points or [])
    draw_spaces(out, marks, geometry, homography, camera)
    draw_dice(out, dice)
    if status:
        _label(out, status, (8, 22), (235, 235, 235), 0.55)
    return out


def blend(image: np.ndarray, over: np.ndarray | None) -> np.ndarray:
    """``over`` (BGRA) drawn on a copy of ``image`` (BGR), as the preview shows them."""
    out = image.copy()
    if over is None:
        return out
    alpha = over[..., 3:4].astype(np.float32) / 255.0
    out[:] = (over[..., :3] * alpha + out * (1.0 - alpha)).round().astype(np.uint8)
    return out


def compose(image: np.ndarray, dice: list[dict[str, Any]], marks: dict[str, str],
            geometry: dict[str, tuple[float, float]], homography: np.ndarray | None, status: str = "") -> np.ndarray:
    """The camera picture with its overlay burnt in (for tools and tests; the app shows them as two layers)."""
    h, w = image.shape[:2]
    return blend(image, layer((w, h), dice, marks, geometry, homography, status))


def hit_die(dice: list[dict[str, Any]], x: float, y: float, slack: float = 12) -> int | None:
    for i, d in enumerate(dice):
        if d.get("box"):
            bx, by, bw, bh = d["box"]
            if bx - slack <= x <= bx + bw + slack and by - slack <= y <= by + bh + slack:
                return i
    return None


def hit_space(marks: dict[str, str], geometry: dict[str, tuple[float, float]], homography: np.ndarray | None,
              x: float, y: float, radius: float = 24, camera=None) -> str | None:
    if homography is None:
        return None
    ids = [p for p in marks if p in geometry]
    if not ids:
        return None
    pts = project(homography, [geometry[p] for p in ids], camera)
    d = np.hypot(pts[:, 0] - x, pts[:, 1] - y)
    best = int(d.argmin())
    return ids[best] if d[best] <= radius else None


def project(homography: np.ndarray, points_mm, camera=None) -> np.ndarray:
    """Board mm points -> frame px through ``homography`` ((N, 2)); with a camera profile the points
    go through its lens distortion too (the pose stage's homography maps to undistorted px)."""
    if camera is not None:
        from companion.vision.pose import to_image

        return np.asarray(to_image(np.asarray(homography, np.float64), np.asarray(points_mm, np.float64).reshape(-1, 2), camera),
                          np.float32).reshape(-1, 2)
    pts = np.float32(points_mm).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, np.asarray(homography, np.float64)).reshape(-1, 2)
