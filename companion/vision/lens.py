"""A phone's wide lens, measured from the picture when no camera profile is known.

Four corner markers pin a homography but not a lens: the homography bends to fit them, and a barrel
lens (k1 < 0) then puts a nest in the middle of the board 5 px off its spots (Magpies on the wide-lens
bench: a red magpie read as bare board, sure). The board's cut edges are straight in the world, so in
an ideal picture too; their bend between the markers is what the lens adds. :func:`find_straight_lines`
finds points along the board map's ``straight_lines_mm``; :func:`fit_k1_to_lines` finds the one radial
term that straightens them (centre at the frame's middle, focal length guessed, as
:func:`companion.vision.pose.fit_k1` does for the markers).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import cv2
import numpy as np

from companion.vision.boardmap import BoardMap


def search_k1(cost: Callable[[float], float], k1_range: Sequence[float], steps: int = 14) -> float:
    """The k1 in ``k1_range`` of least ``cost``: a coarse scan, then ``steps`` of a golden-section search
    (each narrows the bracket to 0.62 of itself)."""
    lo, hi = (float(v) for v in k1_range)
    grid = np.linspace(lo, hi, 9)
    j = int(np.argmin([cost(float(k)) for k in grid]))
    a, b = grid[max(j - 1, 0)], grid[min(j + 1, len(grid) - 1)]
    g = (np.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = cost(c), cost(d)
    for _ in range(steps):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = cost(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = cost(d)
    return float((a + b) / 2)


def find_straight_lines(gray: np.ndarray, board: BoardMap, homography: np.ndarray, cfg: Mapping[str, Any]) -> list[np.ndarray]:
    """Raw pixel points (N, 2) along each of the board's straight lines that shows: on ``line_probes``
    short cuts across the line (``line_search_mm`` each way, where ``homography``, fitted without a
    lens, puts it), the strongest step of brightness. Each line keeps to one direction of step (dark to
    light or light to dark, whichever is stronger along it): a board's white rim has two edges a few
    pixels apart, and points hopping between them would hide the bend. Cuts off the picture, or
    without a step of ``line_min_contrast`` grey levels, give no point; a line with fewer than
    ``line_min_points`` is left out."""
    smooth = cv2.GaussianBlur(gray, (0, 0), 1.0).astype(np.float32)
    out = []
    for line in board.straight_lines_mm:
        probes = _probe_points(np.asarray(line, np.float64), homography, cfg)
        inside = _inside(probes, gray.shape)
        if inside.sum() < int(cfg["line_min_points"]):
            continue
        probes = probes[inside]
        profile = cv2.remap(smooth, probes[..., 0], probes[..., 1], cv2.INTER_LINEAR)
        points = _steps(np.diff(profile, axis=1), probes, float(cfg["line_min_contrast"]))
        if len(points) >= int(cfg["line_min_points"]):
            out.append(points)
    return out


def _probe_points(line: np.ndarray, homography: np.ndarray, cfg: Mapping[str, Any]) -> np.ndarray:
    """(probes, samples, 2) float32 image px of the cuts across ``line`` ([x0, y0, x1, y1] board mm)."""
    a, b = line[:2], line[2:]
    along = (b - a) / np.linalg.norm(b - a)
    normal = np.array([-along[1], along[0]])
    ts = np.linspace(0.1, 0.9, int(cfg["line_probes"]))  # the ends lie by the markers
    reach = float(cfg["line_search_mm"])
    offsets = np.linspace(-reach, reach, int(round(4 * reach)) + 1)  # a sample every 0.5 mm
    mm = (a + (b - a) * ts[:, None])[:, None, :] + offsets[None, :, None] * normal
    px = cv2.perspectiveTransform(mm.reshape(-1, 1, 2), homography).reshape(len(ts), len(offsets), 2)
    return px.astype(np.float32)


def _inside(probes: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    h, w = shape[:2]
    x, y = probes[..., 0], probes[..., 1]
    return ((x >= 0) & (x <= w - 1) & (y >= 0) & (y <= h - 1)).all(axis=1)


def _steps(diff: np.ndarray, probes: np.ndarray, min_contrast: float) -> np.ndarray:
    """The strongest step of one direction on each cut, to a fraction of a sample, in image px."""
    rising, falling = np.clip(diff, 0, None), np.clip(-diff, 0, None)
    step = rising if np.median(rising.max(axis=1)) >= np.median(falling.max(axis=1)) else falling
    rows = np.arange(len(step))
    j = np.argmax(step, axis=1)
    strength = step[rows, j]
    keep = (strength >= min_contrast) & (strength >= 0.5 * np.median(strength)) & (j > 0) & (j < step.shape[1] - 1)
    rows, j = rows[keep], j[keep]
    y0, y1, y2 = step[rows, j - 1], step[rows, j], step[rows, j + 1]
    den = y0 - 2 * y1 + y2
    flat = np.abs(den) <= 1e-9  # a plateau: the step's peak is its sample
    shift = np.where(flat, 0.0, 0.5 * (y0 - y2) / np.where(flat, 1.0, den))
    at = j + 0.5 + np.clip(shift, -0.5, 0.5)  # diff[j] lies between samples j and j + 1
    lo = np.floor(at).astype(int)
    frac = (at - lo)[:, None]
    return (probes[rows, lo] * (1 - frac) + probes[rows, lo + 1] * frac).astype(np.float64)


def _padded(lines: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The lines' points as one (lines, most points, 2) array and the mask of the real ones."""
    most = max(len(p) for p in lines)
    points = np.zeros((len(lines), most, 2))
    used = np.zeros((len(lines), most), bool)
    for i, p in enumerate(lines):
        points[i, : len(p)] = p
        used[i, : len(p)] = True
    return points, used


def _straightness(points: np.ndarray, used: np.ndarray, camera_matrix: np.ndarray, k1: float, keep: float) -> float:
    """RMS distance (px) of the lines' points (``_padded``), undistorted with ``k1``, from a straight line through
    each; each line's fit keeps its ``keep`` share of closest points (a piece or a hand on the edge)."""
    ideal = undistort_k1(points.reshape(-1, 2), camera_matrix, k1).reshape(points.shape)
    residuals = _line_residuals(ideal, used, keep)
    return float(np.sqrt((residuals**2).mean()))


def undistort_k1(points_px: np.ndarray, camera_matrix: np.ndarray, k1: float) -> np.ndarray:
    """Where an ideal camera sees ``points_px`` (N, 2) bent by one radial term: the fixed-point iteration
    of ``cv2.undistortPoints`` (its 5 steps), in numpy, 20 times faster on a few dozen points."""
    f = np.array([camera_matrix[0, 0], camera_matrix[1, 1]])
    c = camera_matrix[:2, 2]
    bent = (points_px - c) / f
    ideal = bent
    for _ in range(5):
        ideal = bent / (1.0 + k1 * (ideal**2).sum(axis=1, keepdims=True))
    return ideal * f + c


def _line_residuals(points: np.ndarray, used: np.ndarray, keep: float) -> np.ndarray:
    """Distances of each line's closest ``keep`` share of points from a line fitted to them, refitted twice
    on those (all lines at once: this runs some 30 times a fit)."""
    n_keep = np.maximum(3, (keep * used.sum(axis=1)).astype(int))[:, None]
    chosen = used.astype(np.float64)
    for _ in range(3):
        centre = (points * chosen[..., None]).sum(axis=1) / chosen.sum(axis=1)[:, None]
        d = (points - centre[:, None]) * chosen[..., None]
        sxx, syy, sxy = (d[..., 0] ** 2).sum(1), (d[..., 1] ** 2).sum(1), (d[..., 0] * d[..., 1]).sum(1)
        angle = 0.5 * np.arctan2(2 * sxy, sxx - syy)  # the direction of most spread: the line's
        normal = np.stack([-np.sin(angle), np.cos(angle)], axis=1)
        distances = np.abs(((points - centre[:, None]) * normal[:, None]).sum(axis=2))
        distances[~used] = np.inf
        rank = np.argsort(np.argsort(distances, axis=1), axis=1)
        chosen = (rank < n_keep).astype(np.float64)
    return distances[chosen > 0]


def fit_k1_to_lines(lines: Sequence[np.ndarray], camera_matrix: np.ndarray, cfg: Mapping[str, Any]) -> tuple[float, float, float]:
    """(k1, straightness px with it, without it) of the radial term that straightens ``lines`` best."""
    keep = float(cfg["line_keep"])
    points, used = _padded(lines)

    def cost(k1: float) -> float:
        return _straightness(points, used, camera_matrix, k1, keep)

    k1 = search_k1(cost, cfg["k1_range"], steps=8)  # to 0.004: a tenth of what a lens differs by from none
    return k1, cost(k1), cost(0.0)
