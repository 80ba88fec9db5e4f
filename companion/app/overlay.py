"""Overlays drawn onto the camera picture (OpenCV, no Kivy): dice read, the spaces to tap, the proposed and
the refused move.

Board spaces are projected from board millimetres through the homography of the current pose, so the marks
sit on the real pieces. The marks are drawn once into a transparent BGRA *layer* (:func:`layer`) that the
preview shows over the camera picture; it is redrawn only when what it shows changes (a new reading,
proposal, highlight or pose), never per camera frame. The layer is drawn at the size the picture is shown
(``scale``: shown px per frame px), so a die's value and a mark's letter are ``theme.MARK_TEXT`` dp tall on
the screen whatever the camera's resolution (``unit``: screen px per dp).

No mark relies on colour alone: each kind has its own shape (box, dashed box, square, ring, double ring,
cross) and, where it says something, a letter (``theme.MARKS``); every stroke is laid over a black and a white
one, so it stands out on a light or a dark board and for colour-blind eyes alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cv2
import numpy as np

from companion.app import theme
from companion.vision.sprites import sprite_window

FONT = cv2.FONT_HERSHEY_SIMPLEX
BLACK, WHITE = (0, 0, 0), (255, 255, 255)
ASCII = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue", "ß": "ss", "–": "-", "—": "-",
                       "„": '"', "“": '"', "”": '"', "’": "'"})

TextRenderer = Callable[[str, float, tuple[int, int, int]], np.ndarray]
"""(text, height of its digits in px, colour BGR) -> a BGRA image of the text, edged in black (the app's fonts)."""
_text_renderer: TextRenderer | None = None


def set_text_renderer(renderer: TextRenderer | None) -> None:
    """Write the overlay's words with ``renderer`` (the app's own fonts: any letter, "Grün" too); without one,
    OpenCV's font writes them (ASCII: "Gruen")."""
    global _text_renderer
    _text_renderer = renderer


def text_extent(text: str, height_px: float) -> tuple[int, int]:
    """(width, height) in px of ``text`` written ``height_px`` tall."""
    if _text_renderer is not None:
        image = _text_renderer(text, height_px, WHITE)
        return int(image.shape[1]), int(image.shape[0])
    thick = max(2, round(height_px / 10))
    (w, h), _ = cv2.getTextSize(text.translate(ASCII), FONT, font_scale(height_px, thick), thick)
    return w, h


def _bgr(rgba) -> tuple[int, int, int]:
    r, g, b = rgba[:3]
    return int(b * 255), int(g * 255), int(r * 255)


def _c(img, colour) -> tuple:
    """An opaque colour for ``img`` (BGR, or BGRA with alpha 255)."""
    colour = tuple(int(v) for v in colour[:3])
    return colour + (255,) if img.ndim == 3 and img.shape[2] == 4 else colour


def font_scale(height_px: float, thickness: int = 2) -> float:
    """The OpenCV font scale whose digits are ``height_px`` tall."""
    (_, h), _ = cv2.getTextSize("8", FONT, 1.0, thickness)
    return height_px / max(1, h)


def text_height(scale: float, thickness: int = 2) -> int:
    (_, h), _ = cv2.getTextSize("8", FONT, scale, thickness)
    return h


def _label(img, text, org, colour, height_px: float) -> None:
    """Text ``height_px`` tall, its baseline at ``org``: coloured, edged in black (readable on any picture)."""
    x, y = int(org[0]), int(org[1])
    if _text_renderer is not None:
        glyphs = _text_renderer(text, height_px, tuple(int(c) for c in colour[:3]))
        gh = glyphs.shape[0]
        _paste(img, glyphs, x, int(round(y - gh + (gh - height_px) * 0.42)))
        return
    thick = max(2, round(height_px / 10))
    scale = font_scale(height_px, thick)
    text = text.translate(ASCII)
    cv2.putText(img, text, (x, y), FONT, scale, _c(img, BLACK), thick + 4, cv2.LINE_AA)
    cv2.putText(img, text, (x, y), FONT, scale, _c(img, colour), thick, cv2.LINE_AA)


def _paste(img: np.ndarray, sprite: np.ndarray, x: int, y: int) -> None:
    """A BGRA uint8 ``sprite`` over the BGRA layer ``img`` at (x, y) (alpha blended, cropped to the layer)."""
    window = sprite_window(img.shape, sprite.shape, x, y)
    if window is None:
        return
    at, part = window
    top = sprite[part].astype(np.float32)
    under = img[at].astype(np.float32)
    a = top[..., 3:4] / 255.0
    out = np.empty_like(under)
    out[..., :3] = top[..., :3] * a + under[..., :3] * (1 - a)
    out[..., 3:4] = 255 * a + under[..., 3:4] * (1 - a)
    img[at] = out.round().astype(np.uint8)


def _strokes(img, draw, colour, width: int) -> None:
    """Draw a shape three times: a wide black stroke, a white one, then the mark's colour."""
    draw(_c(img, BLACK), width + 4)
    draw(_c(img, WHITE), width + 2)
    draw(_c(img, colour), width)


def _dashed_rect(img, p0, p1, colour, width, dash=8) -> None:
    x0, y0 = p0
    x1, y1 = p1
    for x in range(x0, x1, dash * 2):
        cv2.line(img, (x, y0), (min(x + dash, x1), y0), colour, width)
        cv2.line(img, (x, y1), (min(x + dash, x1), y1), colour, width)
    for y in range(y0, y1, dash * 2):
        cv2.line(img, (x0, y), (x0, min(y + dash, y1)), colour, width)
        cv2.line(img, (x1, y), (x1, min(y + dash, y1)), colour, width)


def draw_dice(img: np.ndarray, dice: list[dict[str, Any]], scale: float = 1.0, unit: float = 1.0) -> None:
    """``dice``: dicts with box (frame px), value (``label``: its words, when given), uncertain (readings, or the
    proposal's dice). Each value is written above its die, or below it where the one beside it already took the
    room above (the words of colour dice are wider than a die)."""
    stroke = max(2, round(theme.MARK_STROKE * unit))
    height = theme.MARK_TEXT * unit
    taken: dict[str, list[tuple[float, float]]] = {"above": [], "below": []}
    for d in sorted((d for d in dice if d.get("box")), key=lambda d: d["box"][0]):
        x, y, w, h = (float(v) * scale for v in d["box"])
        pad = 4 * unit
        p0, p1 = (int(x - pad), int(y - pad)), (int(x + w + pad), int(y + h + pad))
        mark = theme.MARKS["die-uncertain" if d.get("uncertain") else "die"]
        colour = _bgr(mark["colour"])
        if d.get("uncertain"):
            _strokes(img, lambda c, t, p0=p0, p1=p1: _dashed_rect(img, p0, p1, c, t, dash=max(6, int(8 * unit))), colour, stroke)
        else:
            _strokes(img, lambda c, t, p0=p0, p1=p1: cv2.rectangle(img, p0, p1, c, t), colour, stroke)
        text = f"{d.get('label', d.get('value'))}" + ("?" if d.get("uncertain") else "")
        tw, _th = text_extent(text, height)
        left = (p0[0] + p1[0]) / 2 - tw / 2
        span = (left, left + tw)
        line = height + 8 * unit
        room = {"above": p0[1] - 6 * unit - height > 0, "below": p1[1] + line < img.shape[0],
                "above2": p0[1] - 6 * unit - line - height > 0}
        side = next((k for k in ("above", "below", "above2") if room[k] and not _overlaps(span, taken.setdefault(k, []))),
                    "above")
        taken.setdefault(side, []).append(span)
        baseline = {"above": p0[1] - 6 * unit, "below": p1[1] + line, "above2": p0[1] - 6 * unit - line}[side]
        _label(img, text, (left, baseline), colour, height)


def _overlaps(span: tuple[float, float], taken: list[tuple[float, float]], gap: float = 4) -> bool:
    return any(span[0] < b + gap and a - gap < span[1] for a, b in taken)


def _mark(img, centre, kind: str, unit: float, radius: float | None = None) -> None:
    mark = theme.MARKS[kind]
    colour = _bgr(mark["colour"])
    r = int(round(radius if radius is not None else theme.MARK_RADIUS * unit))
    stroke = max(2, round(theme.MARK_STROKE * unit))
    cx, cy = centre
    shape = mark["shape"]
    if shape == "cross":
        def cross(c, t):
            cv2.line(img, (cx - r, cy - r), (cx + r, cy + r), c, t, cv2.LINE_AA)
            cv2.line(img, (cx - r, cy + r), (cx + r, cy - r), c, t, cv2.LINE_AA)
        _strokes(img, cross, colour, stroke + 1)
    elif shape in ("square", "double-square"):
        _strokes(img, lambda c, t: cv2.rectangle(img, (cx - r, cy - r), (cx + r, cy + r), c, t), colour, stroke)
        if shape == "double-square":
            q = r + int(6 * unit)
            _strokes(img, lambda c, t: cv2.rectangle(img, (cx - q, cy - q), (cx + q, cy + q), c, t), colour, stroke)
    elif shape == "dashed-ring":
        def dashes(c, t):
            for start in range(0, 360, 45):
                cv2.ellipse(img, (cx, cy), (r, r), 0, start, start + 25, c, t, cv2.LINE_AA)
        _strokes(img, dashes, colour, stroke)
    else:  # ring, double-ring
        _strokes(img, lambda c, t: cv2.circle(img, (cx, cy), r, c, t, cv2.LINE_AA), colour, stroke)
        if shape == "double-ring":
            q = r + int(6 * unit)
            _strokes(img, lambda c, t: cv2.circle(img, (cx, cy), q, c, t, cv2.LINE_AA), colour, stroke)
    if mark["letter"]:
        _label(img, mark["letter"], (cx + r + int(6 * unit), cy - r + int(4 * unit)), colour, theme.MARK_TEXT * unit)


def draw_spaces(img: np.ndarray, marks: dict[str, str], geometry: dict[str, tuple[float, float]], homography: np.ndarray | None,
                camera=None, scale: float = 1.0, unit: float = 1.0) -> None:
    """``marks``: region id -> a kind of ``theme.MARKS``, at ``geometry`` (board mm)."""
    if homography is None or not marks:
        return
    ids = [p for p in marks if p in geometry and marks[p] in theme.MARKS]
    if not ids:
        return
    pts = project(homography, [geometry[p] for p in ids], camera) * scale
    radius = mark_radius(homography, geometry, camera, scale, unit)
    order = sorted(range(len(ids)), key=lambda i: ("piece", "target", "unsure", "selected", "proposed", "illegal").index(marks[ids[i]])
                   if marks[ids[i]] in ("piece", "target", "unsure", "selected", "proposed", "illegal") else 0)
    for i in order:  # the marks that matter most drawn last (on top)
        _mark(img, (int(round(pts[i][0])), int(round(pts[i][1]))), marks[ids[i]], unit, radius)


def mark_radius(homography: np.ndarray, geometry: dict[str, tuple[float, float]], camera, scale: float, unit: float) -> float:
    """A ring's radius on the screen: ``theme.MARK_RADIUS`` dp, less where the board's spaces lie closer together
    (rings of neighbours kept apart), never under ``theme.MARK_RADIUS_MIN`` dp."""
    if len(geometry) < 2:
        return theme.MARK_RADIUS * unit
    pts = project(homography, list(geometry.values()), camera) * scale
    d = np.hypot(pts[:, None, 0] - pts[None, :, 0], pts[:, None, 1] - pts[None, :, 1])
    np.fill_diagonal(d, np.inf)
    pitch = float(np.median(d.min(axis=1)))
    return float(np.clip(0.47 * pitch, theme.MARK_RADIUS_MIN * unit, theme.MARK_RADIUS * unit))


def draw_points(img: np.ndarray, points: list[tuple[tuple[float, float], str]], scale: float = 1.0, unit: float = 1.0) -> None:
    """Tapped points (the board's corners being tapped): a ring and its number each, joined in order."""
    if not points:
        return
    colour = _bgr(theme.MARKS["proposed"]["colour"])
    pts = (np.asarray([p for p, _ in points], np.float32) * scale).round().astype(np.int32)
    if len(pts) > 1:
        _strokes(img, lambda c, t: cv2.polylines(img, [pts.reshape(-1, 1, 2)], len(pts) == 4, c, t, cv2.LINE_AA), colour, 2)
    r = int(round(theme.MARK_RADIUS * unit * 0.7))
    for (x, y), text in zip(pts.tolist(), [t for _, t in points], strict=True):
        _strokes(img, lambda c, t, x=x, y=y: cv2.circle(img, (x, y), r, c, t, cv2.LINE_AA), colour, 3)
        _label(img, text, (x + r + 4, y - r), colour, theme.MARK_TEXT * unit)


def layer(size: tuple[int, int], dice: list[dict[str, Any]], marks: dict[str, str],
          geometry: dict[str, tuple[float, float]], homography: np.ndarray | None, status: str = "",
          outline: np.ndarray | None = None, points: list[tuple[tuple[float, float], str]] | None = None,
          camera=None, scale: float = 1.0, unit: float = 1.0) -> np.ndarray | None:
    """The overlay of a ``size`` (width, height) frame as a transparent BGRA image, drawn at ``scale`` times the
    frame's size (the size it is shown at); None when empty. ``outline``: the board's corners in frame px (the
    pose found), drawn as a thin frame. ``points``: tapped points (frame px) with their labels. ``camera``: the
    camera profile the pose was found with (board points are projected through its lens distortion onto the
    raw picture). ``unit``: screen px per dp (the marks' sizes are in dp)."""
    w, h = size
    if not (dice or (marks and homography is not None) or status or outline is not None or points):
        return None
    out = np.zeros((max(1, int(round(h * scale))), max(1, int(round(w * scale))), 4), np.uint8)
    if outline is not None:
        corners = (np.asarray(outline, np.float32).reshape(-1, 1, 2) * scale).round().astype(np.int32)
        _strokes(out, lambda c, t: cv2.polylines(out, [corners], True, c, t, cv2.LINE_AA), _bgr(theme.MARKS["target"]["colour"]), 2)
    draw_points(out, points or [], scale, unit)
    draw_spaces(out, marks, geometry, homography, camera, scale, unit)
    draw_dice(out, dice, scale, unit)
    if status:
        _label(out, status, (8 * unit, 8 * unit + theme.MARK_TEXT * unit * 0.75), (235, 235, 235), theme.MARK_TEXT * unit * 0.75)
    return out


def blend(image: np.ndarray, over: np.ndarray | None) -> np.ndarray:
    """``over`` (BGRA, the image's size) drawn on a copy of ``image`` (BGR), as the preview shows them."""
    out = image.copy()
    if over is None:
        return out
    if over.shape[:2] != image.shape[:2]:
        over = cv2.resize(over, (image.shape[1], image.shape[0]), interpolation=cv2.INTER_AREA)
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
    """The space nearest a tap at frame px (x, y) among ``marks`` (any space of ``geometry`` when ``marks`` is
    None), if within ``radius`` frame px."""
    if homography is None:
        return None
    ids = [p for p in (geometry if marks is None else marks) if p in geometry]
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
