"""Shared helpers of the disc-piece readers (Verzauberte Eulen's owls, Mighty Magpies' magpies and tiles).

Pieces stand on known *spots* of the board (``docs/vision-notes.md``), so a reader
never searches the frame: it maps a fixed pattern of sample points per spot (board mm) through the
pose into the frame, reads their colours with one ``cv2.remap``, divides them by the board's colour
there (the *illumination*, a plane per channel fitted to bare-board patches) and classifies each
ring or centre of samples by the nearest colour prototype. Colours are therefore *ratios to the
bare board*: 1.0 everywhere is an empty spot whatever the lighting.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import cv2
import numpy as np

from companion.vision.boardmap import BoardMap
from companion.vision.pose import PoseResult


def load_config(name: str, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``companion/vision/readers/<name>.json`` with ``overrides`` merged in key by key."""
    text = resources.files("companion.vision.readers").joinpath(f"{name}.json").read_text(encoding="utf-8")
    cfg = json.loads(text)
    cfg.pop("_doc", None)
    if overrides:
        _merge(cfg, overrides, "")
    return cfg


def _merge(base: dict[str, Any], over: Mapping[str, Any], path: str) -> None:
    for key, value in over.items():
        if key not in base:
            raise KeyError(f"unknown reader config key {path + key!r}")
        if isinstance(base[key], dict) and isinstance(value, Mapping):
            _merge(base[key], value, f"{path}{key}.")
        else:
            base[key] = value


def ring(radius_mm: float, n: int, phase: float = 0.0) -> np.ndarray:
    """``n`` offsets (mm) on a circle, shape (n, 2); radius 0 gives the centre once."""
    if radius_mm <= 0:
        return np.zeros((1, 2))
    t = phase + 2 * np.pi * np.arange(n) / n
    return radius_mm * np.c_[np.cos(t), np.sin(t)]


def patch(half_mm: float, n: int = 3) -> np.ndarray:
    """An n x n grid of offsets over a square of half side ``half_mm``."""
    g = np.linspace(-half_mm, half_mm, n)
    xx, yy = np.meshgrid(g, g)
    return np.c_[xx.ravel(), yy.ravel()]


def sample_bgr(frame: np.ndarray, pose: PoseResult, points_mm: np.ndarray) -> np.ndarray:
    """BGR (float32, (N, 3)) of the frame at board points, bilinear."""
    px = pose.board_to_image(np.asarray(points_mm, np.float64)).astype(np.float32)
    mx = np.ascontiguousarray(px[:, 0].reshape(1, -1))
    my = np.ascontiguousarray(px[:, 1].reshape(1, -1))
    out = cv2.remap(frame, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    out = out.reshape(-1, frame.shape[2] if frame.ndim == 3 else 1).astype(np.float32)
    if out.shape[1] == 1:
        out = np.repeat(out, 3, axis=1)
    return out


def bare_board_points(board: BoardMap, step_mm: float, clearance_mm: float, max_points: int) -> np.ndarray:
    """Points of the printed board that no region, edge line or marker comes near: illumination references.

    Rasterised at 1 px/mm: regions filled, edges drawn, markers with their quiet zone; a grid point is
    kept when it lies ``clearance_mm`` from all of them and from the board's edge."""
    w, h = board.size_mm
    W, H = int(np.ceil(w)), int(np.ceil(h))
    busy = np.zeros((H, W), np.uint8)
    for r in board.regions:
        if r.circle_center_mm is not None:
            cx, cy = r.circle_center_mm
            cv2.circle(busy, (round(cx), round(cy)), int(np.ceil(r.radius_mm or 0)), 255, -1)
        else:
            cv2.fillPoly(busy, [np.round(np.asarray(r.polygon_mm)).astype(np.int32)], 255)
    centres = {r.id: r.center_mm for r in board.regions}
    for a, b in board.edges:
        (ax, ay), (bx, by) = centres[a], centres[b]
        cv2.line(busy, (round(ax), round(ay)), (round(bx), round(by)), 255, 1)
    for f in board.fiducials:
        x0, y0 = (np.asarray(f.center_mm) - f.side_mm / 2 - 5.0).round().astype(int)
        x1, y1 = (np.asarray(f.center_mm) + f.side_mm / 2 + 5.0).round().astype(int)
        cv2.rectangle(busy, (int(x0), int(y0)), (int(x1), int(y1)), 255, -1)
    busy[0, :] = busy[-1, :] = 255
    busy[:, 0] = busy[:, -1] = 255
    free = cv2.distanceTransform(np.where(busy > 0, 0, 255).astype(np.uint8), cv2.DIST_L2, 5)
    keep = []
    for y in np.arange(step_mm / 2, h, step_mm):
        for x in np.arange(step_mm / 2, w, step_mm):
            i, j = min(int(y), H - 1), min(int(x), W - 1)
            if free[i, j] >= clearance_mm + 1.0:
                keep.append((x, y))
    pts = np.asarray(keep, np.float64).reshape(-1, 2)
    if len(pts) > max_points:
        idx = np.round(np.linspace(0, len(pts) - 1, max_points)).astype(int)
        pts = pts[idx]
    return pts


@dataclass(frozen=True)
class Illumination:
    """The bare board's BGR as a plane per channel over board mm, and the patches that disagreed."""

    coeffs: np.ndarray  # (3, 3): channel x (1, x, y)
    outliers: np.ndarray  # indices of reference patches off the fit (something lies on them)
    references: np.ndarray  # (N, 2) mm

    def at(self, points_mm: np.ndarray) -> np.ndarray:
        pts = np.asarray(points_mm, np.float64).reshape(-1, 2)
        A = np.c_[np.ones(len(pts)), pts]
        return np.maximum(A @ self.coeffs.T, 1.0)


def fit_illumination(refs_mm: np.ndarray, bgr: np.ndarray, outlier_ratio: float) -> Illumination:
    """Least-squares plane per channel through the reference colours, refitted without outliers."""
    A = np.c_[np.ones(len(refs_mm)), refs_mm]
    keep = np.ones(len(refs_mm), bool)
    coeffs = np.zeros((3, 3))
    for _ in range(3):
        coeffs = np.linalg.lstsq(A[keep], bgr[keep], rcond=None)[0].T
        fit = np.maximum(A @ coeffs.T, 1.0)
        rel = np.abs(bgr / fit - 1.0).max(axis=1)
        new_keep = rel <= outlier_ratio
        if new_keep.sum() < max(4, len(refs_mm) // 2):
            # most references disagree: keep the half closest to a robust constant instead
            med = np.median(bgr, axis=0)
            rel0 = np.abs(bgr / np.maximum(med, 1.0) - 1.0).max(axis=1)
            new_keep = rel0 <= np.median(rel0)
        if np.array_equal(new_keep, keep):
            break
        keep = new_keep
    fit = np.maximum(A @ coeffs.T, 1.0)
    rel = np.abs(bgr / fit - 1.0).max(axis=1)
    return Illumination(coeffs, np.flatnonzero(rel > outlier_ratio), refs_mm)


@dataclass(frozen=True)
class Prototypes:
    """Named colour prototypes (ratios to the bare board)."""

    names: tuple[str, ...]
    vectors: np.ndarray  # (K, 3)

    @classmethod
    def from_palette(cls, palette_bgr: Mapping[str, Sequence[float]], board_bgr: Sequence[float], names: Sequence[str]) -> Prototypes:
        board = np.asarray(board_bgr, np.float64)
        return cls(tuple(names), np.array([np.asarray(palette_bgr[n], np.float64) / board for n in names]))

    def classify(self, ratios: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(best index, best distance, second-best distance) per row of ``ratios`` (N, 3)."""
        d = np.linalg.norm(ratios[:, None, :] - self.vectors[None, :, :], axis=2)
        order = np.argsort(d, axis=1)
        best = order[:, 0]
        rows = np.arange(len(ratios))
        return best, d[rows, best], d[rows, order[:, 1]]


def confidence(d1: np.ndarray, d2: np.ndarray, max_distance: float, margin_scale: float) -> np.ndarray:
    """P(right) proxy from the nearest (d1) and second (d2) prototype distances: 1 when the nearest
    is clearly nearer, falling with the margin; at most 0.5 when even the nearest is too far."""
    margin = (d2 - d1) / np.maximum(d2 + d1, 1e-6)
    conf = np.clip(margin * margin_scale, 0.0, 1.0)
    return np.where(d1 <= max_distance, conf, np.minimum(conf, 0.5))
