"""Colour faces read by their colour too: a second opinion on the Mighty Magpies dice.

A colour die's face is yellow, blue, red or green (the rulebook's four route colours), or a magpie. On the
whole-game films the dice reader read such faces right but unsure, a plain blue or red face of 22-26 px at
0.73-0.76 (bench table, Mighty Magpies s34 r1), and every roll with one was asked.

:func:`confirm_colour_faces` makes a reading sure when the middle of the die's box, in the frame's light taken
back to white by the markers (:class:`~companion.vision.photometry.Photometry`), shows that face, and the reader's
own confidence in it is at least :data:`AGREE_ABOVE`. A colour: a good part of the middle saturated, nearly all of
that within :data:`MAX_HUE_OFF` degrees of the colour's hue, and no black. The magpie: its black bird, and little
saturated. A die the two disagree on stays unsure, and without the markers' light nothing is confirmed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import cv2
import numpy as np

HUE_DEG = {"red": 0.0, "yellow": 52.0, "green": 130.0, "blue": 215.0}  # the four colours' hues, in white light
MAX_HUE_OFF = 30.0  # a pixel nearer none of them is no face's: the films' red faces in a cool lamp whose blue clipped
# the markers' white lie 10-25 degrees off red once taken back to white
SATURATED = 0.4  # a pixel of a colour face's colour; the white body, the magpie's black and white are far below
DARK = 0.4  # a pixel of the magpie's black: not saturated, and under this share of the middle's brightest (its 95th
# percentile of HSV value): ink beside white paper or a colour, whatever the light (a shadow on a die darkens all)
MIN_COLOURED = 0.3  # of the middle's pixels saturated: a colour face (the whole face, or a disc or square on it)
MIN_SHARE = 0.85  # of those, nearest the one colour (and within MAX_HUE_OFF)
MAX_DARK_COLOUR = 0.05  # a colour face has no black in its middle; a magpie face has its bird there
MIN_DARK_MAGPIE = 0.1  # the magpie face: this much of its black in the middle, and less than MIN_COLOURED saturated
AGREE_ABOVE = 0.5  # the reader's confidence in that face: it reads the face so, first
MIDDLE = 0.4  # the middle of the box taken: the top face's, seen from above or at a slant, the die turned any way
KIND = "magpie"  # the reader's kind of colour dice
MAGPIE = "magpie"  # the face with the bird


def face_by_colour(pixels_bgr: np.ndarray) -> str | None:
    """The face white-balanced pixels of a colour die's middle show ((N, 3) floats, paper white about 235): one of
    the four colours, the magpie, or None when their colours tell neither (see the constants)."""
    px = np.clip(np.asarray(pixels_bgr, np.float32).reshape(1, -1, 3), 0, 255).astype(np.uint8)
    if px.shape[1] == 0:
        return None
    hsv = cv2.cvtColor(px, cv2.COLOR_BGR2HSV_FULL)[0].astype(np.float32)
    hue, sat, val = hsv[:, 0] * (360.0 / 256.0), hsv[:, 1] / 255.0, hsv[:, 2] / 255.0
    saturated = sat >= SATURATED
    dark = (val < DARK * float(np.percentile(val, 95))) & ~saturated
    if saturated.mean() < MIN_COLOURED:
        return MAGPIE if dark.mean() >= MIN_DARK_MAGPIE else None
    if dark.mean() > MAX_DARK_COLOUR:
        return None
    names = list(HUE_DEG)
    off = np.abs((hue[saturated, None] - np.array([HUE_DEG[n] for n in names])[None, :] + 180.0) % 360.0 - 180.0)
    near = off.min(axis=1) <= MAX_HUE_OFF
    counts = np.bincount(off.argmin(axis=1)[near], minlength=len(names))
    best = int(counts.argmax())
    return names[best] if counts[best] >= MIN_SHARE * int(saturated.sum()) else None


def middle_pixels(frame: np.ndarray, box: Sequence[float]) -> np.ndarray:
    """(N, 3) BGR of the middle :data:`MIDDLE` of a box (x, y, w, h) in the frame."""
    x, y, w, h = (float(v) for v in box)
    H, W = frame.shape[:2]
    mx, my = w * (1 - MIDDLE) / 2, h * (1 - MIDDLE) / 2
    x0, y0 = max(0, int(round(x + mx))), max(0, int(round(y + my)))
    x1, y1 = min(W, int(round(x + w - mx))), min(H, int(round(y + h - my)))
    if x1 <= x0 or y1 <= y0:
        return np.zeros((0, 3), np.float32)
    return frame[y0:y1, x0:x1].reshape(-1, 3).astype(np.float32)


def confirm_colour_faces(frame: np.ndarray, readings: Sequence[Any], white: Callable[[np.ndarray], np.ndarray] | None) -> int:
    """Mark sure each unsure colour reading whose face shows that colour (see the module docstring); ``white``:
    the frame's colours in white light (``Photometry.apply``), None when the markers were not measured. Returns how
    many were confirmed."""
    if white is None:
        return 0
    confirmed = 0
    for r in readings:
        if not r.uncertain or r.kind != KIND or r.confidence < AGREE_ABOVE:
            continue
        if face_by_colour(white(middle_pixels(frame, r.box))) == r.value:
            r.uncertain = False
            confirmed += 1
    return confirmed
