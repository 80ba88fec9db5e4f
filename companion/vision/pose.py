"""Board pose: from a camera frame to the homography board-millimetres -> image-pixels.

Stages, each a plain function over its config subtree (defaults in ``pose_config.json``):

1. :func:`check_exposure` -- a too dark or overexposed frame gets a status, never a pose;
2. :class:`MarkerDetector` -- OpenCV's ArUco detector, coarse (half size) then fine (windows around
   each marker at full size), or only the windows around where the last pose puts the markers;
3. :func:`estimate_homography` -- all four corners of every found marker, ``cv2.findHomography``
   with RANSAC, checked by the reprojection error in millimetres;
4. :class:`BoardTracker` -- frame to frame: skips detection while the picture is still, keeps the
   last homography while the markers agree with it, and says "camera moved -- re-checking" when the
   board jumps, until a second frame confirms the new pose.

Every frame gets a :class:`PoseResult` with a :class:`PoseStatus`; ``result.usable`` tells readers
whether to trust ``result.homography``. Four tapped board corners (:func:`pose_from_corners`) are the
fallback when the board has no markers. ``result.timings_ms`` holds per-stage milliseconds.
"""

from __future__ import annotations

import copy
import functools
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from importlib import resources
from typing import Any

import cv2
import numpy as np

from companion.vision.boardmap import BoardMap
from companion.vision.errors import VisionError
from companion.vision.intrinsics import CameraProfile
from companion.vision.lens import find_straight_lines, fit_k1_to_lines, search_k1


class PoseStatus(Enum):
    FOUND = "board found"
    PARTLY_HIDDEN = "markers partly hidden"
    NOT_IN_VIEW = "board not in view"
    MOVED = "camera moved - re-checking"
    TOO_DARK = "too dark"
    OVEREXPOSED = "overexposed"
    REPROJECTION_HIGH = "reprojection error too high"


USABLE = frozenset({PoseStatus.FOUND, PoseStatus.PARTLY_HIDDEN})


class PoseError(VisionError):
    """Bad input to the pose stage (for example four tapped corners that make no board)."""


@dataclass(frozen=True)
class PoseResult:
    """What the pose stage says about one frame.

    ``homography`` maps board mm to (undistorted, when ``camera`` is set) image px; it is set when
    the pose is credible (also for ``MOVED``, where it is the unconfirmed new pose) and ``None``
    otherwise. Readers should read pieces only when :attr:`usable`.
    """

    status: PoseStatus
    homography: np.ndarray | None = None
    confidence: float = 0.0
    reason: str = ""
    source: str = "markers"  # markers | tracked | tapped | none
    markers_seen: tuple[int, ...] = ()
    markers_used: tuple[int, ...] = ()
    markers_expected: tuple[int, ...] = ()
    reprojection_mm: float | None = None
    camera: CameraProfile | None = field(default=None, repr=False)
    timings_ms: Mapping[str, float] = field(default_factory=dict)

    @property
    def usable(self) -> bool:
        return self.status in USABLE and self.homography is not None

    @property
    def message(self) -> str:
        return f"{self.status.value}: {self.reason}" if self.reason else self.status.value

    def board_to_image(self, points_mm: np.ndarray) -> np.ndarray:
        """Board points (N, 2) in mm -> pixel positions in the raw (distorted) frame."""
        if self.homography is None:
            raise PoseError(f"no pose ({self.message})")
        return to_image(self.homography, points_mm, self.camera)

    def image_to_board(self, points_px: np.ndarray) -> np.ndarray:
        """Raw frame pixels (N, 2) -> board mm."""
        if self.homography is None:
            raise PoseError(f"no pose ({self.message})")
        pts = np.asarray(points_px, np.float64).reshape(-1, 2)
        if self.camera is not None:
            pts = self.camera.undistort_points(pts)
        return apply_homography(np.linalg.inv(self.homography), pts)


# -- config -----------------------------------------------------------------------------------------


def default_pose_config() -> dict[str, Any]:
    text = resources.files("companion.vision").joinpath("pose_config.json").read_text(encoding="utf-8")
    data = json.loads(text)
    data.pop("_doc", None)
    return data


def load_pose_config(overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The defaults with ``overrides`` merged in, key by key; unknown keys are an error."""
    config = default_pose_config()
    if overrides:
        _merge(config, overrides, "")
    return config


def _merge(base: dict[str, Any], over: Mapping[str, Any], path: str) -> None:
    for key, value in over.items():
        if key not in base:
            raise PoseError(f"unknown pose config key {path + key!r}")
        if isinstance(base[key], dict):
            if not isinstance(value, Mapping):
                raise PoseError(f"pose config {path + key!r} must be a mapping")
            _merge(base[key], value, f"{path}{key}.")
        else:
            base[key] = copy.deepcopy(value)


# -- stages -----------------------------------------------------------------------------------------


def check_exposure(gray: np.ndarray, cfg: Mapping[str, Any]) -> tuple[PoseStatus, str] | None:
    """``None`` when the frame is bright enough and not washed out, else (status, reason).
    ``gray`` may be a reduced copy of the frame (the tracker passes its 1/8-size one)."""
    sample = gray
    mean = float(sample.mean())
    clipped = float(np.count_nonzero(sample >= int(cfg["clip_level"]))) / sample.size
    if mean < float(cfg["dark_mean_max"]):
        return PoseStatus.TOO_DARK, f"mean brightness {mean:.0f} of 255; add light"
    if mean > float(cfg["bright_mean_min"]) or clipped > float(cfg["clipped_fraction_max"]):
        return PoseStatus.OVEREXPOSED, f"{clipped:.0%} of the picture is white; reduce light or glare"
    return None


def make_detector(
    dictionary: str, cfg: Mapping[str, Any], refinement: str | None = None, windows: Sequence[int] | None = None
) -> cv2.aruco.ArucoDetector:
    """``windows`` = (min, max, step) of the adaptive-threshold window sizes, default the
    ``adaptive_thresh_win_size_*`` keys; each size is one more thresholding pass over the image."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = {
        "none": cv2.aruco.CORNER_REFINE_NONE,
        "subpix": cv2.aruco.CORNER_REFINE_SUBPIX,
        "contour": cv2.aruco.CORNER_REFINE_CONTOUR,
    }[refinement or cfg["corner_refinement"]]
    if windows is None:
        windows = [cfg[f"adaptive_thresh_win_size_{k}"] for k in ("min", "max", "step")]
    params.adaptiveThreshWinSizeMin, params.adaptiveThreshWinSizeMax, params.adaptiveThreshWinSizeStep = map(
        int, windows
    )
    params.minMarkerPerimeterRate = float(cfg["min_marker_perimeter_rate"])
    dic = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    return cv2.aruco.ArucoDetector(dic, params)


class MarkerDetector:
    """ArUco markers, coarse to fine: find them in a ``detect_scale`` copy of the frame, then detect
    each again in a full-resolution window around it for sub-pixel corners. With ``predicted``
    corners (from the last pose) it looks in those windows first and skips the whole-frame search
    when every predicted marker is there."""

    def __init__(self, dictionary: str, cfg: Mapping[str, Any]) -> None:
        self.cfg = cfg
        self.scale = float(cfg["detect_scale"])
        self._coarse = make_detector(dictionary, cfg, "none", cfg.get("coarse_thresh_windows"))
        self._fine = make_detector(dictionary, cfg)
        self.last_path = ""

    def detect(
        self, gray: np.ndarray, predicted: Mapping[int, np.ndarray] | None = None, *, full_retry: bool = True
    ) -> dict[int, np.ndarray]:
        """id -> corners (4, 2) in image px, ArUco order (top-left first). A marker found twice is dropped.
        ``full_retry=False`` leaves the full-size retry to the caller (:meth:`retry_full_size`)."""
        if predicted:
            found = self.find_in_windows(gray, predicted)
            if len(found) == len(predicted):
                self.last_path = "windows"
                return found
        if self.scale >= 1.0:
            self.last_path = "full"
            return self.search_full_size(gray)
        small = cv2.resize(gray, None, fx=self.scale, fy=self.scale, interpolation=cv2.INTER_AREA)
        coarse = _collect(*self._coarse.detectMarkers(small)[:2])
        self.last_path = "coarse+windows"
        out = {}
        for i, c in coarse.items():
            approx = (c + 0.5) / self.scale - 0.5
            fine = self._refine(gray, i, approx)
            out[i] = fine if fine is not None else approx
        return self.retry_full_size(gray, out) if full_retry else out

    def retry_full_size(self, gray: np.ndarray, found: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
        """``found`` plus what a full-size search adds, when the coarse search came up with fewer than
        ``full_size_retry_below`` markers (small or distant markers can vanish in the reduced copy;
        only frames that come up short pay for the second search)."""
        if self.last_path != "coarse+windows" or len(found) >= int(self.cfg.get("full_size_retry_below", 0)):
            return found
        added = {i: c for i, c in self.search_full_size(gray).items() if i not in found}
        if not added:
            return found
        self.last_path = "coarse+full"
        return {**found, **added}

    def search_full_size(self, gray: np.ndarray) -> dict[int, np.ndarray]:
        found = _collect(*self._fine.detectMarkers(gray)[:2])
        if self.cfg["edge_refine"]:
            found = {i: refine_corners_by_edges(gray, c, self.cfg) for i, c in found.items()}
        return found

    def find_in_windows(self, gray: np.ndarray, predicted: Mapping[int, np.ndarray]) -> dict[int, np.ndarray]:
        """Look for each marker only in a full-resolution window around its predicted corners."""
        return {i: c for i, c in ((i, self._refine(gray, i, p)) for i, p in predicted.items()) if c is not None}

    def _refine(self, gray: np.ndarray, marker_id: int, approx: np.ndarray) -> np.ndarray | None:
        side = float(np.linalg.norm(approx[1] - approx[0]))
        pad = float(self.cfg["roi_margin"]) * side + float(self.cfg["roi_pad_px"])
        x0, y0 = np.floor(approx.min(axis=0) - pad).astype(int)
        x1, y1 = np.ceil(approx.max(axis=0) + pad).astype(int)
        x0, y0 = max(x0, 0), max(y0, 0)
        x1, y1 = min(x1, gray.shape[1] - 1), min(y1, gray.shape[0] - 1)
        if x1 - x0 < 8 or y1 - y0 < 8:
            return None
        found = _collect(*self._fine.detectMarkers(gray[y0 : y1 + 1, x0 : x1 + 1])[:2])
        c = found.get(marker_id)
        if c is None:
            return None
        c = c + (x0, y0)
        return refine_corners_by_edges(gray, c, self.cfg) if self.cfg["edge_refine"] else c


def refine_corners_by_edges(gray: np.ndarray, corners: np.ndarray, cfg: Mapping[str, Any]) -> np.ndarray:
    """Sub-pixel corners as the intersections of the marker's four outer edges.

    Along each side, intensity profiles across the edge are sampled (black border inside, white
    margin outside); the 50 % crossing of each is an edge point, a line is fitted through them and
    neighbouring lines are intersected. Unlike ArUco's own refinement this has no inward bias (about
    0.2-0.5 px). Returns ``corners`` unchanged where an edge is too faint or the result strays.
    """
    # Plain indexing and closed-form 2x2 algebra instead of np.roll / eigh / solve: the same numbers
    # (to ~1e-12 px) in about half the time -- this runs for every marker of every cold frame.
    c = np.asarray(corners, np.float64)
    p0, p1 = c, c[_NEXT]  # side k runs from corner k to corner k + 1
    side = p1 - p0
    length = np.sqrt((side * side).sum(axis=1))
    t = side / length[:, None]
    n = np.stack([t[:, 1], -t[:, 0]], axis=1)  # outward for ArUco's clockwise corner order (y down)
    cell = float(length.sum()) / 24.0  # mean side / 6: 4x4 markers plus a one-cell border
    half = max(1.5, float(cfg["edge_profile_cells"]) * cell)
    offsets = np.arange(-half, half + 1e-9, 0.25)
    m = int(cfg["edge_samples"])
    along, k4, km = _edge_grid(m)
    base = p0[:, None, :] + along[None, :, None] * side[:, None, :]  # (4, m, 2)
    pts = base[:, :, None, :] + offsets[None, None, :, None] * n[:, None, None, :]  # (4, m, P, 2)
    flat = pts.reshape(4 * m, len(offsets), 2).astype(np.float32)
    prof = cv2.remap(gray, flat[..., 0], flat[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    prof = prof.astype(np.float64).reshape(4, m, len(offsets))
    q = max(2, len(offsets) // 5)
    inner, outer = prof[..., :q].sum(axis=2) / q, prof[..., -q:].sum(axis=2) / q
    level = (inner + outer) / 2
    above = prof >= level[..., None]
    idx = above.argmax(axis=2)
    ok = (outer - inner >= float(cfg["edge_min_contrast"])) & above.any(axis=2) & (idx > 0)
    idx = np.maximum(idx, 1)
    a = prof[k4, km, idx - 1]
    b = prof[k4, km, idx]
    frac = np.where(b > a, (level - a) / np.where(b > a, b - a, 1.0), 0.0)
    s_cross = offsets[idx - 1] + frac * (offsets[1] - offsets[0])
    edge = base + s_cross[..., None] * n[:, None, :]  # (4, m, 2)
    counts = ok.sum(axis=1)
    if counts.min() < max(3, m // 2):
        return c
    w = ok[..., None].astype(np.float64)
    centre = (edge * w).sum(axis=1) / counts[:, None]
    d = (edge - centre[:, None, :]) * w
    sxx, syy, sxy = (d[..., 0] ** 2).sum(axis=1), (d[..., 1] ** 2).sum(axis=1), (d[..., 0] * d[..., 1]).sum(axis=1)
    theta = 0.5 * np.arctan2(2 * sxy, sxx - syy)  # principal axis of the edge points: along the edge
    direction = np.stack([np.cos(theta), np.sin(theta)], axis=1)
    # corner k joins side k - 1 and side k: centre[k-1] + u dir[k-1] = centre[k] + v dir[k]
    prev_c, prev_d = centre[_PREV], direction[_PREV]
    det = direction[:, 0] * prev_d[:, 1] - direction[:, 1] * prev_d[:, 0]
    if np.abs(det).min() < 1e-9:
        return c
    rhs = centre - prev_c
    u = (direction[:, 0] * rhs[:, 1] - direction[:, 1] * rhs[:, 0]) / det
    out = prev_c + u[:, None] * prev_d
    if np.abs(out - c).max() > float(cfg["edge_max_shift_px"]):
        return c
    return out


_NEXT = np.array([1, 2, 3, 0])
_PREV = np.array([3, 0, 1, 2])


@functools.cache
def _edge_grid(m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where along each side the ``m`` profiles sit, and (side, profile) index grids."""
    k4, km = np.ogrid[:4, :m]
    return np.linspace(0.2, 0.8, m), k4, km


def _collect(corners: Sequence[np.ndarray], ids: np.ndarray | None) -> dict[int, np.ndarray]:
    found: dict[int, np.ndarray] = {}
    twice: set[int] = set()
    if ids is not None:
        for c, i in zip(corners, ids.ravel(), strict=True):
            i = int(i)
            if i in found:
                twice.add(i)
            found[i] = c.reshape(4, 2).astype(np.float64)
    for i in twice:
        del found[i]
    return found


@dataclass(frozen=True)
class HomographyFit:
    homography: np.ndarray | None
    used_ids: tuple[int, ...]
    rejected_ids: tuple[int, ...]
    reprojection_mm: float
    inlier_fraction: float
    reason: str = ""


def estimate_homography(board: BoardMap, markers: Mapping[int, np.ndarray], cfg: Mapping[str, Any]) -> HomographyFit:
    """Fit board mm -> px from the markers' corners (already undistorted when a camera is known)."""
    ids = sorted(i for i in markers if board.fiducial(i) is not None)
    if len(ids) < int(cfg["min_markers"]):
        return HomographyFit(
            None, tuple(ids), (), float("inf"), 0.0, f"{len(ids)} marker(s) visible, need {cfg['min_markers']}"
        )
    src = np.vstack([board.fiducial(i).corners_mm() for i in ids])
    dst = np.vstack([markers[i] for i in ids])
    H, mask = cv2.findHomography(src, dst, cv2.RANSAC, float(cfg["ransac_reproj_px"]))
    if H is None or not np.all(np.isfinite(H)) or abs(H[2, 2]) < 1e-12:
        return HomographyFit(None, tuple(ids), (), float("inf"), 0.0, "RANSAC found no consistent homography")
    H = H / H[2, 2]
    inl = mask.ravel().astype(bool)
    per_marker = inl.reshape(-1, 4).sum(axis=1)
    used = tuple(i for i, n in zip(ids, per_marker, strict=True) if n >= 3)
    rejected = tuple(i for i, n in zip(ids, per_marker, strict=True) if n < 3)
    back = apply_homography(np.linalg.inv(H), dst)
    err = np.linalg.norm(back - src, axis=1)
    reproj = float(err[inl].mean()) if inl.any() else float("inf")
    frac = float(inl.mean())
    reason = ""
    if not _is_sane(H, board):
        return HomographyFit(None, used, rejected, reproj, frac, "the markers give a folded or degenerate board")
    if len(used) < int(cfg["min_markers"]) or frac < float(cfg["min_inlier_fraction"]):
        reason = f"markers {list(rejected)} disagree with the others (moved or misread?)"
        return HomographyFit(None, used, rejected, reproj, frac, reason)
    if rejected:
        reason = f"marker(s) {list(rejected)} ignored: they disagree with the others"
    return HomographyFit(H, used, rejected, reproj, frac, reason)


def apply_homography(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    out = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), np.asarray(H, np.float64))
    return out.reshape(-1, 2)


def to_image(H: np.ndarray, points_mm: np.ndarray, camera: CameraProfile | None = None) -> np.ndarray:
    pts = apply_homography(H, points_mm)
    return camera.distort_points(pts) if camera is not None else pts


def view_angle_deg(H: np.ndarray, image_size: Sequence[int], point_mm: Sequence[float],
                   camera: CameraProfile | None = None, focal_guess: float = 0.8) -> float:
    """Degrees between the table's normal and the camera's line of sight to ``point_mm`` on the board:
    0 looking straight down, towards 90 looking along the table.

    ``H`` maps board mm to (undistorted) image px, so ``K^-1 H`` holds the board's axes in the camera frame
    up to scale (Zhang's decomposition); their cross product is the table's normal. Without a camera profile
    the focal length is guessed as ``focal_guess`` times the picture's longer side (phones and webcams see
    60-75 degrees across), which puts the angle within a few degrees."""
    seen = np.asarray(H, np.float64) @ np.array([point_mm[0], point_mm[1], 1.0])
    return float(view_angles_px(H, image_size, (seen[:2] / seen[2])[None], camera, focal_guess)[0])


def view_angles_px(H: np.ndarray, image_size: Sequence[int], points_px: np.ndarray,
                   camera: CameraProfile | None = None, focal_guess: float = 0.8) -> np.ndarray:
    """Degrees between the table's normal and the line of sight to each of ``points_px`` (N x 2, undistorted
    image px of points on the table): :func:`view_angle_deg` for many points given in the picture (where a die
    lies) rather than on the board."""
    w, h = float(image_size[0]), float(image_size[1])
    if camera is not None:
        K = np.asarray(camera.camera_matrix, np.float64)
    else:
        f = focal_guess * max(w, h)
        K = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]], np.float64)
    M = np.linalg.solve(K, np.asarray(H, np.float64))
    normal = np.cross(M[:, 0] / np.linalg.norm(M[:, 0]), M[:, 1] / np.linalg.norm(M[:, 1]))
    pts = np.asarray(points_px, np.float64).reshape(-1, 2)
    rays = np.linalg.solve(K, np.c_[pts, np.ones(len(pts))].T).T
    cos = np.abs(rays @ normal) / (np.linalg.norm(rays, axis=1) * (np.linalg.norm(normal) or 1.0))
    return np.degrees(np.arccos(np.clip(cos, 0.0, 1.0)))


def corner_motion_px(H_a: np.ndarray, H_b: np.ndarray, board: BoardMap) -> float:
    """Largest move, in px, of a board corner between two homographies."""
    corners = board.board_corners_mm()
    return float(np.linalg.norm(apply_homography(H_a, corners) - apply_homography(H_b, corners), axis=1).max())


def _is_sane(H: np.ndarray, board: BoardMap) -> bool:
    """The board maps to a convex, same-orientation quadrilateral in front of the camera."""
    c = board.board_corners_mm()
    w = (H @ np.c_[c, np.ones(4)].T)[2]
    if np.any(w <= 1e-9):
        return False
    q = apply_homography(H, c)
    e1 = np.roll(q, -1, axis=0) - q
    e2 = np.roll(e1, -1, axis=0)
    return bool(np.all(e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0] > 0))


# -- lens distortion without a profile --------------------------------------------------------------


def guessed_camera_matrix(image_size: Sequence[int], focal_guess: float) -> np.ndarray:
    w, h = float(image_size[0]), float(image_size[1])
    f = focal_guess * max(w, h)
    return np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]], np.float64)


def fit_k1(board: BoardMap, markers: Mapping[int, np.ndarray], image_size: Sequence[int], cfg: Mapping[str, Any],
           focal_guess: float = 0.8) -> tuple[float, float, float]:
    """(k1, rms px with it, rms px without) of a one-parameter radial distortion that makes the markers'
    corners (raw image px) agree best with one homography of their board positions.

    Without a camera profile the homography absorbs only a projective map; a phone's wide lens bends
    the board (barrel, k1 < 0) by tens of pixels at the frame's edges, which puts pieces' sampling
    points off their spaces. The markers span the board, so their 12-32 corners pin one radial term
    (centre at the frame's middle, focal length guessed as for :func:`view_angle_deg`): a coarse scan
    and a golden-section search over ``lens.k1_range``."""
    ids = sorted(i for i in markers if board.fiducial(i) is not None)
    obj = np.vstack([board.fiducial(i).corners_mm() for i in ids]).astype(np.float64)
    img = np.vstack([markers[i] for i in ids]).astype(np.float64).reshape(-1, 1, 2)
    K = guessed_camera_matrix(image_size, focal_guess)

    def rms(k1: float) -> float:
        und = cv2.undistortPoints(img, K, np.array([k1, 0, 0, 0], np.float64), P=K).reshape(-1, 2)
        H, _ = cv2.findHomography(obj, und, 0)
        if H is None:
            return float("inf")
        return float(np.sqrt(((apply_homography(H, obj) - und) ** 2).sum(axis=1).mean()))

    k1 = search_k1(rms, cfg["k1_range"])
    return k1, rms(k1), rms(0.0)


def estimated_camera(image_size: Sequence[int], k1: float, focal_guess: float = 0.8) -> CameraProfile:
    """A camera profile holding only an estimated k1 (name ``estimated``)."""
    K = guessed_camera_matrix(image_size, focal_guess)
    return CameraProfile("estimated", (int(image_size[0]), int(image_size[1])), K, np.array([k1, 0, 0, 0, 0], np.float64))


# -- four tapped corners ----------------------------------------------------------------------------


def pose_from_corners(
    board: BoardMap,
    corners_px: Sequence[Sequence[float]],
    cfg: Mapping[str, Any] | None = None,
    camera: CameraProfile | None = None,
) -> PoseResult:
    """Pose from the board's four corners tapped in the raw frame, in the order top-left,
    top-right, bottom-right, bottom-left (as the board is printed); :class:`PoseError` if they
    cannot be a board."""
    cfg = cfg if cfg is not None else default_pose_config()["tapped"]
    pts = np.asarray(corners_px, dtype=np.float64)
    if pts.shape != (4, 2) or not np.all(np.isfinite(pts)):
        raise PoseError(f"need 4 tapped corners (x, y), got shape {pts.shape}")
    if camera is not None:
        pts = camera.undistort_points(pts)
    sides = np.linalg.norm(np.roll(pts, -1, axis=0) - pts, axis=1)
    if sides.min() < float(cfg["min_side_px"]):
        raise PoseError(f"tapped corners too close together ({sides.min():.0f} px); tap the four board corners")
    H = cv2.getPerspectiveTransform(board.board_corners_mm().astype(np.float32), pts.astype(np.float32))
    H = H / H[2, 2]
    if not _is_sane(H, board):
        raise PoseError(
            "tapped corners do not make a board: tap top-left, top-right, bottom-right, bottom-left in turn"
        )
    return PoseResult(
        PoseStatus.FOUND,
        H,
        confidence=float(cfg["confidence"]),
        reason="from tapped corners",
        source="tapped",
        markers_expected=board.fiducial_ids,
        camera=camera,
    )


# -- rectification ----------------------------------------------------------------------------------


def canvas_to_board(px_per_mm: float, area_mm: Sequence[float]) -> np.ndarray:
    """3x3: canvas pixel (centre convention) -> board mm, for a canvas covering ``area_mm``."""
    s = float(px_per_mm)
    x0, y0 = float(area_mm[0]), float(area_mm[1])
    return np.array([[1 / s, 0, x0 + 0.5 / s], [0, 1 / s, y0 + 0.5 / s], [0, 0, 1]], dtype=np.float64)


def rectify(frame: np.ndarray, result: PoseResult, area_mm: Sequence[float], px_per_mm: float = 2.0) -> np.ndarray:
    """The board area ``area_mm`` = (x0, y0, x1, y1) seen from straight above: canvas pixel (i, j)
    shows board mm (x0 + (j + .5) / s, y0 + (i + .5) / s)."""
    if result.homography is None:
        raise PoseError(f"cannot rectify without a pose ({result.message})")
    area = tuple(float(v) for v in area_mm)
    width = round((area[2] - area[0]) * px_per_mm)
    height = round((area[3] - area[1]) * px_per_mm)
    M = result.homography @ canvas_to_board(px_per_mm, area)
    if result.camera is None:
        return cv2.warpPerspective(frame, M, (width, height), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
    # the lens bends smoothly: the map is computed on a grid every 8 canvas pixels and interpolated
    # (grid point k at canvas (k + 0.5) * step - 0.5, one point beyond each edge: cv2.resize's own mapping)
    step = 8
    gw, gh = -(-width // step) + 2, -(-height // step) + 2
    jj, ii = np.meshgrid((np.arange(gw) - 0.5) * step - 0.5, (np.arange(gh) - 0.5) * step - 0.5)
    ideal = apply_homography(M, np.c_[jj.ravel(), ii.ravel()])
    raw = result.camera.distort_points(ideal).astype(np.float32).reshape(gh, gw, 2)
    big = cv2.resize(raw, (gw * step, gh * step), interpolation=cv2.INTER_LINEAR)[step : step + height, step : step + width]
    return cv2.remap(frame, np.ascontiguousarray(big[..., 0]), np.ascontiguousarray(big[..., 1]), cv2.INTER_LINEAR)


# -- frame to frame ---------------------------------------------------------------------------------


class BoardTracker:
    """Pose for a stream of frames of one board. Not thread-safe; one per camera.

    >>> tracker = BoardTracker(board_map)            # doctest: +SKIP
    >>> result = tracker.update(frame)               # doctest: +SKIP
    >>> if result.usable: canvas = tracker.rectify(frame, result)  # doctest: +SKIP
    """

    def __init__(
        self,
        board: BoardMap,
        config: Mapping[str, Any] | None = None,
        camera: CameraProfile | None = None,
    ) -> None:
        self.board = board
        self.config = load_pose_config(config)
        self.camera = camera
        self._detector = MarkerDetector(board.dictionary, self.config["aruco"])
        self._last: PoseResult | None = None  # last accepted (usable) pose
        self._rechecking: np.ndarray | None = None  # unconfirmed homography after a jump
        self._still_ref: np.ndarray | None = None  # small gray frame of the last full detection
        self._reused = 0
        self._tapped: PoseResult | None = None
        self._tapped_ref: np.ndarray | None = None
        self._lens: CameraProfile | None = None  # k1 estimated from the straight lines or the markers (no profile given)
        # (picture size, detections since) where the board's straight lines last measured the lens
        self._lens_measured: tuple[tuple[int, int], int] | None = None

    def reset(self) -> None:
        self._last = self._rechecking = self._still_ref = self._tapped = self._tapped_ref = None
        self._lens = None
        self._lens_measured = None
        self._reused = 0

    def view_angle(self, result: PoseResult, image_size: Sequence[int]) -> float | None:
        """How obliquely the camera sees the middle of the play area (:func:`view_angle_deg`), or ``None``
        without a usable pose. Dice are read well up to about ``view.lean_warn_deg`` (45) degrees."""
        if not result.usable or result.homography is None:
            return None
        x0, y0, x1, y1 = self.board.play_area_mm or (0.0, 0.0, *self.board.size_mm)
        try:
            angle = view_angle_deg(result.homography, image_size, ((x0 + x1) / 2, (y0 + y1) / 2), self.camera,
                                   self.config["view"]["focal_guess"])
        except np.linalg.LinAlgError:  # a degenerate homography: no angle rather than a wrong one
            return None
        return angle if np.isfinite(angle) else None

    def seen_at(self, result: PoseResult, image_size: Sequence[int]):
        """A function from points of the picture (N x 2 px) to the degrees at which the camera sees the table
        there (:func:`view_angles_px`), or ``None`` without a usable pose: what tells the dice reader which
        dice it sees from above."""
        if not result.usable or result.homography is None:
            return None
        H = np.asarray(result.homography, np.float64)
        camera, focal = self.camera, self.config["view"]["focal_guess"]

        def degrees(points_px: np.ndarray) -> np.ndarray:
            try:
                return view_angles_px(H, image_size, points_px, camera, focal)
            except np.linalg.LinAlgError:  # a degenerate homography: no angle, so no die is taken as seen from above
                return np.full(len(points_px), np.nan)

        return degrees

    @property
    def has_tapped_corners(self) -> bool:
        """Whether tapped corners are still in force (they are dropped once the camera moves)."""
        return self._tapped is not None

    def set_tapped_corners(self, frame: np.ndarray, corners_px: Sequence[Sequence[float]]) -> PoseResult:
        """Use four tapped board corners while no marker is in view (until the camera moves)."""
        result = pose_from_corners(self.board, corners_px, self.config["tapped"], self.camera)
        self._tapped = result
        self._tapped_ref = self._small(_gray(frame))
        return result

    def rectify(self, frame: np.ndarray, result: PoseResult, px_per_mm: float | None = None) -> np.ndarray:
        s = float(px_per_mm if px_per_mm is not None else self.config["rectify"]["px_per_mm"])
        return rectify(frame, result, (0.0, 0.0, *self.board.size_mm), s)

    def update(self, frame: np.ndarray) -> PoseResult:
        t0 = time.perf_counter()
        timings: dict[str, float] = {}
        gray = _gray(frame)
        cfg_t = self.config["tracking"]
        expected = self.board.fiducial_ids

        def done(result: PoseResult) -> PoseResult:
            timings["total"] = (time.perf_counter() - t0) * 1000
            return replace(result, markers_expected=expected, camera=self.camera or self._lens, timings_ms=dict(timings))

        small = self._small(gray)
        bad = check_exposure(small, self.config["exposure"])
        timings["exposure"] = (time.perf_counter() - t0) * 1000
        if bad is not None:
            self._still_ref = None
            return done(PoseResult(bad[0], reason=bad[1], source="none"))

        t = time.perf_counter()
        if (
            self._last is not None
            and self._still_ref is not None
            and self._reused < int(cfg_t["max_reuse_frames"])
            and _changed_fraction(small, self._still_ref, cfg_t) <= float(cfg_t["still_changed_max"])
        ):
            self._reused += 1
            timings["track"] = (time.perf_counter() - t) * 1000
            return done(replace(self._last, source="tracked"))
        timings["track"] = (time.perf_counter() - t) * 1000

        t = time.perf_counter()
        predicted = None
        if self._last is not None and self._last.homography is not None:
            predicted = {
                i: to_image(self._last.homography, self.board.fiducial(i).corners_mm(), self._last.camera)
                for i in self._last.markers_used
            }
        # The windows where the markers found so far put the missing ones come before the full-size
        # retry: on the benchmark scenes they found every marker the half-size search missed, with
        # the same corners, for about 1 ms instead of 15-20 ms for a whole full-size search.
        markers = self._usable_markers(self._detector.detect(gray, predicted, full_retry=False))
        markers.update(self._find_missing(gray, markers))
        if len(markers) < len(expected) and self._detector.last_path == "windows":
            # the windows look only where the last pose's markers lay: a strip hidden then (a hand over it, a jolt)
            # is searched for anew, or a pose from the other strip alone would keep it out of view (Falconry film)
            found = self._usable_markers(self._detector.detect(gray, None, full_retry=False))
            markers.update({i: c for i, c in found.items() if i not in markers})
            markers.update(self._find_missing(gray, markers))
        retried = self._detector.retry_full_size(gray, markers)
        added = self._usable_markers({i: c for i, c in retried.items() if i not in markers})
        if added:
            markers.update(added)
            markers.update(self._find_missing(gray, markers))
        timings["detect"] = (time.perf_counter() - t) * 1000
        if self.camera is None and self.config["lens"]["estimate_k1"]:
            t = time.perf_counter()
            markers = self._estimate_lens(markers, gray)
            timings["lens"] = (time.perf_counter() - t) * 1000

        t = time.perf_counter()
        fit = estimate_homography(self.board, markers, self.config["homography"])
        timings["homography"] = (time.perf_counter() - t) * 1000
        seen = tuple(sorted(markers))
        result = self._decide(fit, markers, seen, small)
        if result.usable:
            self._last = result
            self._still_ref = small
            self._reused = 0
        else:
            self._still_ref = None
        return done(result)

    # -- internals ---------------------------------------------------------------------------------
    def _decide(
        self, fit: HomographyFit, markers: Mapping[int, np.ndarray], seen: tuple[int, ...], small: np.ndarray
    ) -> PoseResult:
        if not seen:
            return self._without_markers(small)
        if fit.homography is None:
            return self._without_fit(fit, markers, seen)
        max_mm = float(self.config["homography"]["max_reprojection_mm"])
        if fit.reprojection_mm > max_mm:
            return PoseResult(
                PoseStatus.REPROJECTION_HIGH,
                reason=f"markers disagree by {fit.reprojection_mm:.1f} mm (limit {max_mm} mm)",
                source="none",
                markers_seen=seen,
                reprojection_mm=fit.reprojection_mm,
            )
        return self._against_last(self._fresh(fit, seen, max_mm), fit, markers)

    def _without_markers(self, small: np.ndarray) -> PoseResult:
        """No marker in view: the tapped corners while the picture stays still, else not in view."""
        cfg_t = self.config["tracking"]
        if self._tapped is not None and self._tapped_ref is not None:
            if _changed_fraction(small, self._tapped_ref, cfg_t) < float(cfg_t["moved_changed_min"]):
                return replace(self._tapped, source="tapped")
            self._tapped = None
            return PoseResult(
                PoseStatus.MOVED,
                reason="the picture changed since the corners were tapped; tap again",
                source="none",
            )
        return PoseResult(PoseStatus.NOT_IN_VIEW, reason=f"none of the {len(self.board.fiducials)} markers found", source="none")

    def _without_fit(self, fit: HomographyFit, markers: Mapping[int, np.ndarray], seen: tuple[int, ...]) -> PoseResult:
        """Markers seen but no homography: one marker that agrees with the last pose keeps it; else why not."""
        n_exp = len(self.board.fiducials)
        if len(fit.used_ids) == 1 and self._last is not None and self._last.homography is not None:
            mid = fit.used_ids[0]
            err = _marker_error_px(self._last.homography, self.board, mid, markers[mid])
            if err <= float(self.config["tracking"]["single_marker_hold_px"]):
                return replace(
                    self._last,
                    status=PoseStatus.PARTLY_HIDDEN,
                    confidence=0.5 * self._last.confidence,
                    reason=f"only marker {mid} visible; keeping the last pose, it still agrees",
                    source="tracked",
                    markers_seen=seen,
                )
            return PoseResult(
                PoseStatus.MOVED,
                reason=f"marker {mid} moved {err:.0f} px and the others are hidden",
                source="none",
                markers_seen=seen,
            )
        if len(seen) < int(self.config["homography"]["min_markers"]):
            return PoseResult(
                PoseStatus.PARTLY_HIDDEN,
                reason=f"{len(seen)} of {n_exp} markers visible; need {self.config['homography']['min_markers']}",
                source="none",
                markers_seen=seen,
            )
        return PoseResult(
            PoseStatus.REPROJECTION_HIGH,
            reason=fit.reason,
            source="none",
            markers_seen=seen,
            reprojection_mm=fit.reprojection_mm,
        )

    def _fresh(self, fit: HomographyFit, seen: tuple[int, ...], max_mm: float) -> PoseResult:
        """The pose of this frame's markers alone."""
        n_exp = len(self.board.fiducials)
        complete = len(fit.used_ids) == n_exp
        status = PoseStatus.FOUND if complete else PoseStatus.PARTLY_HIDDEN
        reason = fit.reason or ("" if complete else f"{len(fit.used_ids)} of {n_exp} markers visible")
        confidence = len(fit.used_ids) / n_exp * fit.inlier_fraction * float(np.exp(-fit.reprojection_mm / max_mm))
        return PoseResult(
            status,
            fit.homography,
            confidence,
            reason,
            "markers",
            seen,
            fit.used_ids,
            reprojection_mm=fit.reprojection_mm,
        )

    def _against_last(self, fresh: PoseResult, fit: HomographyFit, markers: Mapping[int, np.ndarray]) -> PoseResult:
        """This frame's pose held against the last one: a jump is confirmed over frames, markers that moved
        alone are outvoted, and a still board keeps the last pose (no jitter)."""
        cfg_t = self.config["tracking"]
        previous = (
            self._rechecking
            if self._rechecking is not None
            else (self._last.homography if self._last is not None else None)
        )
        if previous is None:
            return fresh
        motion = corner_motion_px(previous, fit.homography, self.board)
        if self._rechecking is None and motion > float(cfg_t["stable_px"]):
            outvoted = self._outvote_moved_markers(previous, markers, self._last.markers_used if self._last else ())
            if outvoted is not None:
                return outvoted
        if self._rechecking is not None:
            if motion <= float(cfg_t["confirm_px"]):
                self._rechecking = None
                return fresh
            self._rechecking = fit.homography
            return replace(fresh, status=PoseStatus.MOVED, reason=f"still moving ({motion:.0f} px)")
        if motion > float(cfg_t["moved_px"]):
            self._rechecking = fit.homography
            return replace(fresh, status=PoseStatus.MOVED, reason=f"the board jumped {motion:.0f} px")
        if motion <= float(cfg_t["stable_px"]) and len(self._last.markers_used) >= len(fit.used_ids):
            # markers agree with the last pose: keep it, so readers see no jitter
            return replace(fresh, homography=self._last.homography, source="tracked")
        return fresh

    def _estimate_lens(self, raw: dict[int, np.ndarray], gray: np.ndarray) -> dict[int, np.ndarray]:
        """Markers undistorted by a k1 fitted to the board's straight lines (:func:`fit_k1_to_lines`) or,
        on a board without them, to the markers (:func:`fit_k1`), when they show a bent lens; with too
        few markers for a fit, the last estimate is kept (the lens does not change between frames)."""
        cfg = self.config["lens"]
        size = gray.shape[::-1]
        pts = np.vstack(list(raw.values())) if raw else np.zeros((0, 2))
        spread = np.linalg.svd(pts - pts.mean(axis=0), compute_uv=False) if len(pts) >= 3 else np.zeros(2)
        spanned = len(spread) == 2 and spread[1] >= float(cfg["min_spread"]) * spread[0]  # markers in a line pin no bend
        if len(raw) >= int(cfg["min_markers"]) and spanned:
            self._update_lens(gray, raw)
        if self._lens is None or tuple(self._lens.image_size) != tuple(int(v) for v in size):
            self._lens = None
            return raw
        return {i: self._lens.undistort_points(c) for i, c in raw.items()}

    def _update_lens(self, gray: np.ndarray, raw: Mapping[int, np.ndarray]) -> None:
        """Fit the lens anew: from the board's straight lines every ``lens.line_refit_every`` detections (a
        dozen milliseconds; the lens does not change), kept while the lines are out of view; from the
        markers on every detection when no straight line has shown yet."""
        cfg = self.config["lens"]
        size = gray.shape[::-1]
        focal = float(self.config["view"]["focal_guess"])
        size_now = (int(size[0]), int(size[1]))
        if self._lens_measured is not None:
            measured_size, age = self._lens_measured
            self._lens_measured = (size_now, age + 1) if measured_size == size_now else None  # the phone turned: anew
            if self._lens_measured is not None and age + 1 <= int(cfg["line_refit_every"]):
                return
        lines = self._straight_lines(gray, raw)
        if lines:
            k1, with_k1, without = fit_k1_to_lines(lines, guessed_camera_matrix(size, focal), cfg)
            bent = with_k1 <= float(cfg["line_max_rms_ratio"]) * without and abs(k1) >= float(cfg["line_min_abs_k1"])
            self._lens_measured = (size_now, 0)
        elif self._lens_measured is not None:
            return
        else:
            k1, with_k1, without = fit_k1(self.board, raw, size, cfg, focal)
            bent = without >= float(cfg["min_rms_px"]) and with_k1 <= float(cfg["max_rms_ratio"]) * without
            bent = bent and abs(k1) >= float(cfg["min_abs_k1"])
        self._lens = estimated_camera(size, k1, focal) if bent else None

    def _straight_lines(self, gray: np.ndarray, raw: Mapping[int, np.ndarray]) -> list[np.ndarray]:
        """Points along the board's straight lines (:func:`find_straight_lines`), where the markers'
        homography puts them; none when too few lines show for a fit (``lens.line_min_lines``)."""
        if not self.board.straight_lines_mm:
            return []
        fit = estimate_homography(self.board, raw, self.config["homography"])
        if fit.homography is None:
            return []
        lines = find_straight_lines(gray, self.board, fit.homography, self.config["lens"])
        return lines if len(lines) >= int(self.config["lens"]["line_min_lines"]) else []

    def _usable_markers(self, found: Mapping[int, np.ndarray]) -> dict[int, np.ndarray]:
        """The board's own markers, undistorted when the camera is known."""
        markers = {i: c for i, c in found.items() if self.board.fiducial(i) is not None}
        if self.camera is not None:
            markers = {i: self.camera.undistort_points(c) for i, c in markers.items()}
        return markers

    def _find_missing(self, gray: np.ndarray, markers: Mapping[int, np.ndarray]) -> dict[int, np.ndarray]:
        """Markers too small for the coarse search: look where the others say they are, at full size."""
        missing = [f.id for f in self.board.fiducials if f.id not in markers]
        if not missing or len(markers) < int(self.config["homography"]["min_markers"]):
            return {}
        fit = estimate_homography(self.board, markers, self.config["homography"])
        if fit.homography is None:
            return {}
        predicted = {i: to_image(fit.homography, self.board.fiducial(i).corners_mm(), self.camera) for i in missing}
        found = self._detector.find_in_windows(gray, predicted)
        if self.camera is not None:
            found = {i: self.camera.undistort_points(c) for i, c in found.items()}
        return found

    def _outvote_moved_markers(self, previous: np.ndarray, markers: Mapping[int, np.ndarray],
                               judged: Sequence[int] = ()) -> PoseResult | None:
        """When most markers sit still and a few moved, the few were bumped on the table: pose from the rest. A marker
        the last pose was not fitted with (``judged``: its markers) lies where that pose only guessed: back in view, it
        has not moved (bench table, Magpies s31 r2: a hand hid marker 1, and the three others' pose, a few pixels off
        there, outvoted it for the rest of the game, every still frame refused for an arm at the board's edge)."""
        cfg_t = self.config["tracking"]
        errors = {i: _marker_error_px(previous, self.board, i, c) for i, c in markers.items()}
        still = sorted(i for i, e in errors.items() if e <= float(cfg_t["confirm_px"]))
        bumped = sorted(i for i, e in errors.items() if e > float(cfg_t["marker_moved_px"]))
        if not bumped or len(still) <= len(bumped) or len(still) + len(bumped) != len(errors):
            return None
        if judged and not set(bumped) <= set(judged):
            return None
        fit = estimate_homography(self.board, {i: markers[i] for i in still}, self.config["homography"])
        if fit.homography is None:
            return None
        n_exp = len(self.board.fiducials)
        max_mm = float(self.config["homography"]["max_reprojection_mm"])
        return PoseResult(
            PoseStatus.PARTLY_HIDDEN,
            fit.homography,
            len(fit.used_ids) / n_exp * fit.inlier_fraction * float(np.exp(-fit.reprojection_mm / max_mm)),
            f"marker(s) {bumped} moved on the table, the others did not: using the others "
            "(put the marker back, or teach the board again)",
            "markers",
            tuple(sorted(markers)),
            fit.used_ids,
            reprojection_mm=fit.reprojection_mm,
        )

    def _small(self, gray: np.ndarray) -> np.ndarray:
        f = float(self.config["tracking"]["diff_scale"])
        return cv2.resize(gray, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)


def _changed_fraction(a: np.ndarray, b: np.ndarray, cfg: Mapping[str, Any]) -> float:
    if a.shape != b.shape:
        return 1.0
    return float(np.count_nonzero(cv2.absdiff(a, b) > int(cfg["diff_level"]))) / a.size


def _marker_error_px(H: np.ndarray, board: BoardMap, marker_id: int, corners_px: np.ndarray) -> float:
    predicted = apply_homography(H, board.fiducial(marker_id).corners_mm())
    return float(np.linalg.norm(predicted - corners_px, axis=1).max())


def _gray(frame: np.ndarray) -> np.ndarray:
    if frame.ndim == 2:
        return frame
    if frame.shape[2] == 4:
        return cv2.cvtColor(frame, cv2.COLOR_BGRA2GRAY)
    return cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


def estimate_pose(
    frame: np.ndarray,
    board: BoardMap,
    config: Mapping[str, Any] | None = None,
    camera: CameraProfile | None = None,
) -> PoseResult:
    """One frame on its own (no tracking)."""
    return BoardTracker(board, config, camera).update(frame)
