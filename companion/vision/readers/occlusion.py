"""Something reaching over the board: an arm crosses the board's edge.

A hand over a board can look like the board itself (light skin on a beige print), but the arm that
carries it comes from outside: it crosses the table round the board. :func:`arm_crossings` samples
two rings of table outside the board's edges (clear of the markers), through the pose, and finds
runs of points whose colour is not the table's -- another chromaticity, or much brighter (a shadow
only darkens) -- at the same place on both rings (or, where the outer one lies outside the picture, along
an arm's width of the inner one): an arm, not a die or a crumb lying there. Readers
that cannot follow a hand into the board refuse such a frame with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import cv2
import numpy as np

from companion.vision import photometry
from companion.vision.boardmap import BoardMap

DEFAULTS: dict[str, Any] = {
    "ring_mm": [16.0, 36.0],  # the two rings' distances outside the board's edges
    "step_mm": 8.0,
    "foreign_chroma": 0.07,
    "foreign_brighter": 1.45,
    "min_run": 3,  # foreign points in a row on the inner ring (an arm is 60 mm wide and more)
    "min_run_at_picture_edge": 6,  # the same where the outer ring lies outside the picture (two dice: 32 mm)
}


def ring_points(board: BoardMap, distance_mm: float, step_mm: float) -> np.ndarray:
    """Board points ``distance_mm`` outside the board's edges, in order round the board, clear of the
    markers and their quiet zones."""
    w, h = board.size_mm
    d = float(distance_mm)
    xs = np.arange(-d, w + d + 1e-9, step_mm)
    ys = np.arange(-d + step_mm, h + d - step_mm + 1e-9, step_mm)
    p = np.vstack([np.c_[xs, np.full_like(xs, -d)], np.c_[np.full_like(ys, w + d), ys],
                   np.c_[xs[::-1], np.full_like(xs, h + d)], np.c_[np.full_like(ys, -d), ys[::-1]]])
    keep = np.ones(len(p), bool)
    for f in board.fiducials:
        c = f.corners_mm()
        lo, hi = c.min(axis=0) - 8.0, c.max(axis=0) + 8.0
        keep &= ~((p[:, 0] >= lo[0]) & (p[:, 0] <= hi[0]) & (p[:, 1] >= lo[1]) & (p[:, 1] <= hi[1]))
    return p[keep]


def sample(frame: np.ndarray, pose: Any, points_mm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(BGR float32 (M, 3), indices into ``points_mm``) of the points that fall inside the frame."""
    px = pose.board_to_image(np.asarray(points_mm, np.float64)).astype(np.float32)
    h, w = frame.shape[:2]
    inside = np.flatnonzero((px[:, 0] >= 1) & (px[:, 0] <= w - 2) & (px[:, 1] >= 1) & (px[:, 1] <= h - 2))
    if not len(inside):
        return np.zeros((0, 3), np.float32), inside
    q = px[inside]
    out = cv2.remap(frame, q[:, 0].reshape(1, -1).copy(), q[:, 1].reshape(1, -1).copy(), cv2.INTER_LINEAR)
    return out.reshape(-1, 3).astype(np.float32), inside


class ArmWatch:
    """The two table rings of one board, sampled in each frame (:meth:`crossings`)."""

    def __init__(self, board: BoardMap, config: Mapping[str, Any] | None = None) -> None:
        self.cfg = {**DEFAULTS, **(config or {})}
        step = float(self.cfg["step_mm"])
        r0, r1 = (float(v) for v in self.cfg["ring_mm"])
        self.inner = ring_points(board, r0, step)
        self.outer = ring_points(board, r1, step)

    def crossings(self, frame: np.ndarray, pose: Any, light: photometry.Photometry | None = None) -> list[tuple[float, float]]:
        """Board mm where an arm crosses both rings, or the inner ring where the outer one lies outside the picture
        (empty: nothing reaches over the board)."""
        cfg = self.cfg
        foreign, seen = [], []
        for pts in (self.inner, self.outer):
            bgr, idx = sample(frame, pose, pts)
            flags = np.zeros(len(pts), bool)
            seen.append(idx)
            if len(bgr) >= 8:
                if light is not None:
                    bgr = light.apply(bgr)
                med = np.median(bgr, axis=0)
                off = photometry.chroma_distance(bgr, med) > float(cfg["foreign_chroma"])
                # brighter than the lit table (a shadow may darken half the ring: not its median)
                lit = float(np.percentile(bgr.mean(axis=1), 75))
                off |= bgr.mean(axis=1) > float(cfg["foreign_brighter"]) * max(lit, 1.0)
                flags[idx] = off
            foreign.append(flags)
        inner, outer = foreign
        if not inner.any():
            return []
        reach = 2.5 * float(cfg["step_mm"]) + abs(float(cfg["ring_mm"][1]) - float(cfg["ring_mm"][0]))
        out_seen = np.zeros(len(self.outer), bool)
        out_seen[seen[1]] = True
        hits = []
        for run in _runs(inner):
            if len(run) < int(cfg["min_run"]):
                continue
            mid = self.inner[run].mean(axis=0)
            gap = np.hypot(*(self.outer - mid).T)
            # the outer ring off the picture where the arm comes in (an upright phone, the board filling its width:
            # Mighty Magpies s107 on box 29:200, a pale arm over nest F crossed only the inner ring; the hand, read as
            # the board, hid the nest's magpie): a run long enough for no die is the arm
            off_picture = not out_seen[int(np.argmin(gap))] and len(run) >= int(cfg["min_run_at_picture_edge"])
            if (gap[outer] <= reach + len(run) * float(cfg["step_mm"]) / 2).any() or off_picture:
                hits.append((float(mid[0]), float(mid[1])))
        return hits


def _runs(flags: np.ndarray) -> list[np.ndarray]:
    """Index runs of True in a ring (the last run may wrap round to the first)."""
    idx = np.flatnonzero(flags)
    if not len(idx):
        return []
    runs, cur = [], [idx[0]]
    for i in idx[1:]:
        if i == cur[-1] + 1:
            cur.append(i)
        else:
            runs.append(cur)
            cur = [i]
    runs.append(cur)
    if len(runs) > 1 and runs[0][0] == 0 and runs[-1][-1] == len(flags) - 1:
        runs[0] = runs.pop() + runs[0]
    return [np.asarray(r) for r in runs]
