"""Is this frame worth reading? Blur measured on the markers' edges, and motion.

A defocused or shaken frame still gives a pose (the markers are big), but the pieces' details -- a
stand's digits, an owl's head -- are gone, and a reader that reads them anyway guesses. The
markers' outer edges are a known black-to-white step, so their profile *is* the blur: across each
edge the 25 % and 75 % crossings of the step lie 1.349 sigma apart for a Gaussian blur (a defocus
disc or a short shake is near enough). Measured in camera pixels and turned into board millimetres
through the pose, the blur is compared with what each reader can bear (``max_blur_mm`` in its
config); a frame over it is skipped with the reason ("too blurred: ..."), never read.

Motion between frames is :class:`companion.vision.motion.MotionMeter`'s; :func:`assess` takes one
when the caller has it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from companion.vision.boardmap import BoardMap

EDGE_SAMPLES = 6  # profiles per marker side
IQR_TO_SIGMA = 1.349
# a frame whose markers' edges spread no more is as sharp as a camera gives (rendered boards: 0.5-1.0 px, the
# same defocused by 5 px: 1.0-1.5 px): when its spread in millimetres is still too much, the board is too far
SHARP_PX = 0.8


@dataclass(frozen=True)
class FrameQuality:
    blur_px: float | None  # edge spread (sigma) in camera pixels; None: no marker edge measured
    blur_mm: float | None  # the same in board millimetres at the markers
    px_per_mm: float | None  # the board's scale at the markers
    moving: bool = False

    def problem(self, max_blur_mm: float) -> str | None:
        """Plain words why a reader that bears ``max_blur_mm`` should skip this frame, or None."""
        if self.moving:
            return "something is moving: waiting for a still picture"
        if self.blur_mm is not None and self.blur_mm > max_blur_mm:
            if self.blur_px is not None and self.blur_px <= SHARP_PX:  # sharp, but each pixel covers too much board
                return (f"the board is too small in the picture: its edges spread {self.blur_mm:.1f} mm ({self.blur_px:.1f} px, "
                        f"sharp; at most {max_blur_mm:.1f} mm can be read): bring the camera closer")
            return (f"too blurred: edges spread {self.blur_mm:.1f} mm ({self.blur_px:.1f} px; at most {max_blur_mm:.1f} mm "
                    "can be read): hold the camera still and let it focus")
        return None


def _gray(frame: np.ndarray) -> np.ndarray:
    return frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


def marker_edge_blur(frame: np.ndarray, pose: Any, board: BoardMap) -> tuple[float | None, float | None]:
    """(blur sigma in px, board px per mm at the markers) from the outer edges of the pose's markers.

    For each side of each marker, ``EDGE_SAMPLES`` profiles are read across the edge from 1.5 cells
    inside (black) to 1.5 cells outside (the white quiet zone is one cell), in quarter pixels; the
    blur is the median over a side's profiles of the 25-75 % distance over 1.349, and the frame's
    blur the larger of the median over horizontal and over vertical sides (a shake blurs one way)."""
    if pose is None or not getattr(pose, "usable", False):
        return None, None
    gray = _gray(frame) if frame.ndim == 2 else None  # a colour frame: only round each marker, in _profiles
    widths_h, widths_v, scales = [], [], []
    for i in pose.markers_used:
        f = board.fiducial(i)
        if f is None:
            continue
        c = f.corners_mm()  # TL, TR, BR, BL
        px = pose.board_to_image(c)
        side_px = float(np.mean(np.linalg.norm(np.roll(px, -1, axis=0) - px, axis=1)))
        scales.append(side_px / f.side_mm)
        cell = side_px / 6.0
        if cell < 2.0:
            continue
        offs = np.arange(-1.2 * cell, 1.2 * cell + 1e-9, 0.25)
        centre = px.mean(axis=0)
        sides = []
        for k in range(4):
            a, b = px[k], px[(k + 1) % 4]
            t = (b - a) / max(np.linalg.norm(b - a), 1e-9)
            n = np.array([t[1], -t[0]])
            if np.dot(n, (a + b) / 2 - centre) < 0:
                n = -n  # outward
            along = np.linspace(0.25, 0.75, EDGE_SAMPLES)
            base = a[None, :] + along[:, None] * (b - a)[None, :]
            sides.append((t, (base[:, None, :] + offs[None, :, None] * n[None, None, :]).reshape(-1, 2)))
        profiles = _profiles(frame, gray, np.vstack([pts for _, pts in sides])).reshape(4, EDGE_SAMPLES, len(offs))
        for t, width in _side_widths(profiles, [t for t, _ in sides], offs):
            (widths_h if abs(t[0]) >= abs(t[1]) else widths_v).append(width)
    if not scales:
        return None, None
    scale = float(np.median(scales))
    groups = [np.median(g) for g in (widths_h, widths_v) if g]
    if not groups:
        return None, scale
    return float(max(groups)) / IQR_TO_SIGMA, scale


def _profiles(frame: np.ndarray, gray: np.ndarray | None, pts: np.ndarray) -> np.ndarray:
    """Grey levels (float32) at image points, bilinear, the frame's edge replicated beyond it; a colour frame is
    turned grey only in the rectangle the points need (a whole 1280x720 frame took a few ms per reading)."""
    if gray is None:
        h, w = frame.shape[:2]
        x0 = int(np.clip(np.floor(pts[:, 0].min()) - 1, 0, w - 1))
        y0 = int(np.clip(np.floor(pts[:, 1].min()) - 1, 0, h - 1))
        x1 = int(np.clip(np.ceil(pts[:, 0].max()) + 2, x0 + 1, w))
        y1 = int(np.clip(np.ceil(pts[:, 1].max()) + 2, y0 + 1, h))
        src = cv2.cvtColor(np.ascontiguousarray(frame[y0:y1, x0:x1]), cv2.COLOR_BGR2GRAY).astype(np.float32)
        pts = pts - np.array([x0, y0], np.float64)
    else:
        src = gray.astype(np.float32)
    flat = pts.astype(np.float32)
    return cv2.remap(src, flat[:, 0].reshape(1, -1).copy(), flat[:, 1].reshape(1, -1).copy(), cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE).reshape(-1)


def _side_widths(profiles: np.ndarray, directions: list[np.ndarray], offs: np.ndarray) -> list[tuple[np.ndarray, float]]:
    """(direction, median 25-75 % distance over its profiles) of each side of a marker (``profiles``: side,
    profile, offset) with at least two profiles that show the step, and a crossing found in one."""
    q = max(2, len(offs) // 6)
    kept = []
    for prof, t in zip(profiles, directions, strict=True):
        lo, hi = prof[:, :q].mean(axis=1), prof[:, -q:].mean(axis=1)
        ok = hi - lo >= 25.0
        if ok.sum() >= 2:
            kept.append((t, prof[ok], lo[ok], hi[ok]))
    if not kept:
        return []
    # the four sides' profiles in one call (a call per side or per profile cost more than its sums)
    w, found = _spreads(*(np.concatenate([side[i] for side in kept]) for i in (1, 2, 3)), offs)
    out, start = [], 0
    for t, prof, _lo, _hi in kept:
        side = w[start:start + len(prof)][found[start:start + len(prof)]]
        start += len(prof)
        if len(side):
            out.append((t, float(np.median(side))))
    return out


def _spreads(prof: np.ndarray, lo: np.ndarray, hi: np.ndarray, offs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distance between the 25 % and 75 % crossings of each rising step profile (a row of ``prof``, its dark
    and light levels ``lo`` and ``hi``), and whether both crossings were found (a profile already above a
    level at its first sample has none). All of a side's profiles at once: the same float32 and float64
    arithmetic as a profile at a time."""
    if not len(prof):
        return np.zeros(0), np.zeros(0, bool)
    rows = np.arange(len(prof))
    out, found = [], np.ones(len(prof), bool)
    for share in (0.25, 0.75):
        level = lo + share * (hi - lo)
        above = prof >= level[:, None]
        j = np.argmax(above, axis=1)  # the first sample at or above the level (0 also when there is none)
        found &= above[rows, j] & (j > 0)
        j = np.maximum(j, 1)
        a, b = prof[rows, j - 1], prof[rows, j]
        step = np.where(np.float32(1e-6) > b - a, np.float32(1e-6), b - a)
        out.append(offs[j - 1] + (level - a) / step * (offs[j] - offs[j - 1]))
    return out[1] - out[0], found


def assess(frame: np.ndarray, pose: Any, board: BoardMap, motion: Any = None) -> FrameQuality:
    """Blur at the markers (and motion, when a :class:`~companion.vision.motion.MotionMeter` is given)."""
    blur_px, scale = marker_edge_blur(frame, pose, board)
    moving = bool(motion.moving(frame)) if motion is not None else False
    blur_mm = blur_px / scale if blur_px is not None and scale else None
    return FrameQuality(blur_px, blur_mm, scale, moving)
