"""A player's kingdom on the table: rows of captured character stands, as a phone camera sees them.

No board and no markers: the stands stand in rows on a wooden table, facing the camera (upright within
``MAX_YAW_DEG``), seen from above at 1.6-3 px/mm with a mild tilt. :func:`render_kingdom` returns the
frame and, for each stand, its label and where its card's centre lands in the frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from companion.workshop.boards.scenes.art import check_rendition
from companion.workshop.boards.scenes.stands import MAX_YAW_DEG, StandStyle, draw_stand
from companion.workshop.boards.synth_table import _table, linen_table

PITCH_MM = (25.0, 30.0)  # column and row pitch of a tidy kingdom
MAX_PER_ROW = 12


@dataclass(frozen=True)
class KingdomTruth:
    labels: tuple[int | str, ...]
    centres_px: tuple[tuple[float, float], ...]


def render_kingdom(
    labels: Sequence[int | str], rng: np.random.Generator, size: tuple[int, int] = (1280, 720), style: StandStyle | None = None,
    rendition: int = 1,
) -> tuple[np.ndarray, KingdomTruth]:
    """The frame and its truth; ``rendition`` 2 draws the second rendition's characters on a linen cloth."""
    check_rendition(rendition)
    style = style or (StandStyle.random(rng) if rendition == 1 else StandStyle.random2(rng))
    W, H = size
    n = len(labels)
    per_row = min(MAX_PER_ROW, max(1, int(np.ceil(n / max(1, int(np.ceil(n / MAX_PER_ROW)))))))
    rows = max(1, int(np.ceil(n / per_row)))
    width_mm, height_mm = per_row * PITCH_MM[0] + 20, rows * PITCH_MM[1] + 20
    s_fit = min(W * 0.85 / width_mm, H * 0.8 / height_mm)
    seen = float(min(s_fit, rng.uniform(1.6, 3.0)))
    tex_s = 4.0
    tex = np.zeros((round(height_mm * tex_s), round(width_mm * tex_s), 3), np.uint8)
    to_px = lambda p: np.asarray(p, np.float64) * tex_s - 0.5  # noqa: E731
    centres_mm = []
    order = list(labels)
    for i, label in enumerate(order):
        r, c = divmod(i, per_row)
        x = 10 + (c + 0.5) * PITCH_MM[0] + rng.uniform(-2, 2)
        y = 10 + (r + 0.5) * PITCH_MM[1] + rng.uniform(-2, 2)
        draw_stand(tex, to_px, (x, y), label, style, float(rng.uniform(-MAX_YAW_DEG, MAX_YAW_DEG)))
        centres_mm.append((x, y))
    # texture -> frame: scale to `seen`, turn a little, mild perspective, centred with some shift
    src = np.array([[0, 0], [tex.shape[1], 0], [tex.shape[1], tex.shape[0]], [0, tex.shape[0]]], np.float64)
    k = seen / tex_s
    a = np.deg2rad(rng.uniform(-12, 12))
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    dst = (src - src.mean(axis=0)) @ R.T * k
    span = np.abs(dst).max(axis=0)  # half the layout's width and height in the frame
    dst += rng.uniform(-0.03, 0.03, (4, 2)) * span.min()  # a mild tilt, no shear of the cards
    room = np.array([W, H]) / 2 - np.abs(dst).max(axis=0) - 5
    dst += np.array([W / 2, H / 2]) + rng.uniform(-1, 1, 2) * np.maximum(room, 0)
    P = cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32))
    image = _table(rng, W, H) if rendition == 1 else linen_table(rng, W, H)
    warped = cv2.warpPerspective(tex, P, (W, H), flags=cv2.INTER_AREA)
    # only the stands (card and base) are pasted on the table
    stand_mask = cv2.warpPerspective((~np.all(tex == 0, axis=2)).astype(np.uint8) * 255, P, (W, H), flags=cv2.INTER_LINEAR)
    m = stand_mask.astype(np.float32)[..., None] / 255.0
    img = image * (1 - m) + warped * m
    img *= rng.uniform(0.75, 1.15) * (1 + rng.uniform(-0.15, 0.15))
    if rng.random() < 0.7:
        img = cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.2, 0.8)))
    img += rng.normal(0, rng.uniform(1, 4), img.shape)
    frame = np.clip(img, 0, 255).astype(np.uint8)
    centres = cv2.perspectiveTransform(np.asarray([to_px(c) for c in centres_mm], np.float64).reshape(-1, 1, 2), P).reshape(-1, 2)
    return frame, KingdomTruth(tuple(order), tuple((float(x), float(y)) for x, y in centres))
