"""Synthetic table scenes for tests and benchmarks: a board map printed flat, seen through a known
homography, with lighting, noise, blur, an optional hand and optional lens distortion.

:func:`random_scene` draws a camera at random; :func:`render_scene` renders a given homography.
Both return a :class:`Scene` whose ``homography`` (board mm -> image px, pixel-centre convention,
the same as :mod:`companion.vision.pose`) is the ground truth. Readers of pieces can paint on the
flat board (``paint`` callback, in board mm at ``texture_px_per_mm``) before the warp.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.boardmap import BoardMap
from companion.vision.intrinsics import CameraProfile
from companion.workshop.boards.sheets import reference_board, reference_board_offset

BOARD_BGR = (170, 205, 225)  # printed board colour (beige)
TABLE_BGR = (45, 80, 120)  # wooden table (brown)
SKIN_BGR = (120, 150, 200)


@dataclass(frozen=True)
class Scene:
    image: np.ndarray  # BGR uint8
    homography: np.ndarray  # true board mm -> image px (before lens distortion)
    hand_at_mm: tuple[float, float] | None = None
    camera: CameraProfile | None = None


def example_board_map() -> BoardMap:
    """A generic 320 x 320 mm board: 5 x 5 squares in a 230 mm play area, corner markers 0-3 (30 mm)."""
    squares = []
    edges = []
    cell, x0 = 46.0, 45.0
    for r in range(5):
        for c in range(5):
            x, y = x0 + c * cell, x0 + r * cell
            squares.append(
                {
                    "id": f"r{r}c{c}",
                    "kind": "square",
                    "polygon_mm": [[x, y], [x + cell, y], [x + cell, y + cell], [x, y + cell]],
                }
            )
            if c < 4:
                edges.append([f"r{r}c{c}", f"r{r}c{c + 1}"])
            if r < 4:
                edges.append([f"r{r}c{c}", f"r{r + 1}c{c}"])
    return BoardMap.from_dict(
        {
            "format_version": 1,
            "game": "example",
            "title": "Example board",
            "size_mm": [320, 320],
            "play_area_mm": [45, 45, 275, 275],
            "fiducials": [
                {"id": i, "center_mm": c, "side_mm": 30}
                for i, c in enumerate([[20, 20], [300, 20], [300, 300], [20, 300]])
            ],
            "regions": squares,
            "edges": edges,
        },
        "example_board_map()",
    )


def board_texture(
    board: BoardMap,
    px_per_mm: float,
    paint: Callable[[np.ndarray, Callable[[np.ndarray], np.ndarray]], None] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(BGR texture, 3x3 board mm -> texture px). ``paint(texture, to_px)`` may draw pieces on it."""
    drawing = reference_board(board, margin_mm=8.0, labels=False)
    ox, oy = reference_board_offset(board, 8.0)
    gray = drawing.to_raster(px_per_mm)
    s = px_per_mm
    T = np.array([[s, 0, s * ox - 0.5], [0, s, s * oy - 0.5], [0, 0, 1]], dtype=np.float64)
    tex = cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR)
    # tint the board (not the markers' white quiet zones, which stay paper-white)
    w, h = board.size_mm
    c0, r0, c1, r1 = round(s * ox), round(s * oy), round(s * (ox + w)), round(s * (oy + h))
    board_part = tex[r0:r1, c0:c1].astype(np.float32) / 255.0
    tint = board_part * np.array(BOARD_BGR, np.float32)
    tex[r0:r1, c0:c1] = tint.astype(np.uint8)
    for f in board.fiducials:
        fx0, fy0 = f.corners_mm()[0] - 5.0
        a0, b0 = round(s * (ox + fx0)), round(s * (oy + fy0))
        a1, b1 = round(s * (ox + fx0 + f.side_mm + 10)), round(s * (oy + fy0 + f.side_mm + 10))
        tex[b0:b1, a0:a1] = cv2.cvtColor(gray[b0:b1, a0:a1], cv2.COLOR_GRAY2BGR)
    if paint is not None:
        paint(tex, lambda pts_mm: (np.asarray(pts_mm, np.float64) + (ox, oy)) * s - 0.5)
    return tex, T


def random_homography(
    board: BoardMap,
    rng: np.random.Generator,
    size: tuple[int, int] = (1280, 720),
    fill: tuple[float, float] = (0.55, 0.85),
    max_rotation_deg: float = 25.0,
    perspective: float = 0.12,
) -> np.ndarray:
    """Board mm -> image px: the board's extent fills ``fill`` of the frame height, turned and tilted."""
    W, H = size
    x0, y0, x1, y1 = board.extent_mm()
    ext = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)
    centre = ext.mean(axis=0)
    span = max(x1 - x0, y1 - y0)
    scale = rng.uniform(*fill) * H / span
    angle = np.deg2rad(rng.uniform(-max_rotation_deg, max_rotation_deg))
    R = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    dst = (ext - centre) @ R.T * scale
    dst += rng.uniform(-perspective, perspective, size=(4, 2)) * span * scale
    half = np.abs(dst).max(axis=0)
    dst *= min(1.0, float(np.min((np.array([W, H]) / 2 - 6) / half)))  # keep the whole board in the frame
    room = np.array([W, H]) / 2 - np.abs(dst).max(axis=0) - 4
    shift = rng.uniform(-1, 1, size=2) * np.maximum(room, 0)
    dst += np.array([W / 2, H / 2]) + shift
    return cv2.getPerspectiveTransform(ext.astype(np.float32), dst.astype(np.float32)).astype(np.float64)


def camera_homography(board: BoardMap, tilt_deg: float, size: tuple[int, int] = (1280, 720),
                      focal_guess: float = 0.8, fill: float = 0.75) -> np.ndarray:
    """Board mm -> image px of a pinhole camera (focal length ``focal_guess`` times the longer side, as
    :func:`companion.vision.pose.view_angle_deg` assumes) that looks at the board's middle ``tilt_deg``
    degrees from straight down, from the far side of the table, and far enough for the board to fill
    about ``fill`` of the frame height."""
    W, H = size
    f = focal_guess * max(W, H)
    K = np.array([[f, 0, W / 2], [0, f, H / 2], [0, 0, 1.0]])
    x0, y0, x1, y1 = board.extent_mm()
    distance = max(x1 - x0, y1 - y0) * f / (fill * H)
    t = np.deg2rad(tilt_deg)
    R = np.array([[1, 0, 0], [0, np.cos(t), -np.sin(t)], [0, np.sin(t), np.cos(t)]])  # world -> camera
    centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2 - distance * np.sin(t), -distance * np.cos(t)])
    Hm = K @ np.c_[R[:, 0], R[:, 1], -R @ centre]
    return Hm / Hm[2, 2]


def render_scene(
    board: BoardMap,
    homography: np.ndarray,
    size: tuple[int, int] = (1280, 720),
    *,
    rng: np.random.Generator | None = None,
    gain: float = 1.0,
    gradient: float = 0.15,
    noise_sigma: float = 2.0,
    blur_sigma: float = 0.0,
    hand_at_mm: tuple[float, float] | None = None,
    camera: CameraProfile | None = None,
    paint=None,
    rendition: int = 1,
) -> Scene:
    rng = rng if rng is not None else np.random.default_rng(0)
    W, H = size
    # texture resolution: a little finer than the board appears in the frame
    corners = cv2.perspectiveTransform(board.board_corners_mm().reshape(-1, 1, 2), homography).reshape(-1, 2)
    seen_px_per_mm = np.linalg.norm(corners[1] - corners[0]) / board.size_mm[0]
    tex_s = float(np.clip(np.ceil(seen_px_per_mm * 1.5), 2, 8))
    tex, T = board_texture(board, tex_s, paint)
    tex = cv2.GaussianBlur(tex, (0, 0), 0.5 * tex_s / max(seen_px_per_mm, 1e-6))
    image = _table(rng, W, H) if rendition == 1 else linen_table(rng, W, H)
    P = homography @ np.linalg.inv(T)
    cv2.warpPerspective(tex, P, (W, H), dst=image, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_TRANSPARENT)
    if hand_at_mm is not None:
        _draw_hand(image, homography, hand_at_mm, rng)
    img = image.astype(np.float32)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    direction = rng.uniform(0, 2 * np.pi)
    ramp = (np.cos(direction) * (xx / W - 0.5) + np.sin(direction) * (yy / H - 0.5)) * 2 * gradient
    img *= (gain * (1.0 + ramp))[..., None]
    if blur_sigma > 0:
        img = cv2.GaussianBlur(img, (0, 0), blur_sigma)
    if noise_sigma > 0:
        img += rng.normal(0, noise_sigma, img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    if camera is not None:
        out = _distort(out, camera)
    return Scene(out, homography, hand_at_mm, camera)


def random_scene(
    board: BoardMap,
    rng: np.random.Generator,
    size: tuple[int, int] = (1280, 720),
    *,
    hand_at_mm: tuple[float, float] | None = None,
    gain: float | None = None,
    camera: CameraProfile | None = None,
    paint: Callable | None = None,
    homography: np.ndarray | None = None,
    rendition: int = 1,
    **camera_kw,
) -> Scene:
    """A random view with random light (gain 0.75-1.15), noise (sigma 1-4) and blur (sigma 0-0.8).

    ``homography`` fixes the camera instead of drawing one; ``paint`` draws pieces on the flat board
    (the game scene painters of :mod:`companion.workshop.boards.scenes` use both)."""
    Hm = homography if homography is not None else random_homography(board, rng, size, **camera_kw)
    return render_scene(
        board,
        Hm,
        size,
        rng=rng,
        gain=rng.uniform(0.75, 1.15) if gain is None else gain,
        gradient=rng.uniform(0.0, 0.25),
        noise_sigma=rng.uniform(1, 4),
        blur_sigma=rng.uniform(0, 0.8),
        hand_at_mm=hand_at_mm,
        camera=camera,
        paint=paint,
        rendition=rendition,
    )


def corner_error_mm(board: BoardMap, H_true: np.ndarray, H_est: np.ndarray) -> float:
    """Largest error, in board mm, of the four board corners as placed by ``H_est``."""
    corners = board.board_corners_mm()
    placed = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), H_est)
    back = cv2.perspectiveTransform(placed, np.linalg.inv(H_true)).reshape(-1, 2)
    return float(np.linalg.norm(back - corners, axis=1).max())


def _table(rng: np.random.Generator, W: int, H: int) -> np.ndarray:
    low = cv2.resize(rng.uniform(0.8, 1.2, size=(9, 16)).astype(np.float32), (W, H), interpolation=cv2.INTER_CUBIC)
    grain = cv2.resize(
        rng.uniform(0.9, 1.1, size=(H // 8, 4)).astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR
    )
    base = np.array(TABLE_BGR, np.float32)[None, None, :] * (low * grain)[..., None]
    return np.clip(base, 0, 255).astype(np.uint8)


def linen_table(rng: np.random.Generator, W: int, H: int) -> np.ndarray:
    """The second rendition's table: a grey-green linen cloth with its weave and soft folds."""
    base = np.array((95, 112, 108), np.float32) * rng.uniform(0.85, 1.15)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    period = rng.uniform(2.5, 4.0)
    weave = 1.0 + 0.06 * np.sin(xx * 2 * np.pi / period) * np.sin(yy * 2 * np.pi / period)
    folds = cv2.resize(rng.uniform(0.85, 1.15, size=(5, 8)).astype(np.float32), (W, H), interpolation=cv2.INTER_CUBIC)
    return np.clip(base[None, None, :] * (weave * folds)[..., None], 0, 255).astype(np.uint8)


def _draw_hand(image: np.ndarray, homography: np.ndarray, at_mm: tuple[float, float], rng: np.random.Generator) -> None:
    """A palm (85 mm) with four fingers, drawn in board millimetres and projected."""
    cx, cy = at_mm
    angle = rng.uniform(0, 2 * np.pi)
    R = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    t = np.linspace(0, 2 * np.pi, 40, endpoint=False)
    shapes = [np.c_[45 * np.cos(t), 50 * np.sin(t)]]  # palm
    for k, length in enumerate((70, 80, 75, 60)):
        fx = -30 + k * 20
        shapes.append(np.c_[fx + 8 * np.cos(t), -40 - length / 2 + length / 2 * np.sin(t)])
    shapes.append(np.c_[50 + 30 * np.cos(t) * 0.9, 10 + 10 * np.sin(t)])  # thumb
    for shp in shapes:
        pts = shp @ R.T + (cx, cy)
        px = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), homography).reshape(-1, 2)
        shade = rng.uniform(0.85, 1.05)
        colour = tuple(int(min(255, c * shade)) for c in SKIN_BGR)
        cv2.fillPoly(image, [np.round(px * 16).astype(np.int32)], colour, cv2.LINE_AA, shift=4)


def _distort(ideal: np.ndarray, camera: CameraProfile) -> np.ndarray:
    """Render what a lens with ``camera``'s distortion sees of the ideal (pinhole) image."""
    H, W = ideal.shape[:2]
    jj, ii = np.meshgrid(np.arange(W, dtype=np.float64), np.arange(H, dtype=np.float64))
    ideal_pos = camera.undistort_points(np.c_[jj.ravel(), ii.ravel()]).astype(np.float32)
    return cv2.remap(
        ideal,
        ideal_pos[:, 0].reshape(H, W),
        ideal_pos[:, 1].reshape(H, W),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )


def render_plane_view(
    texture: np.ndarray,
    mm_to_texture: np.ndarray,
    camera: CameraProfile,
    rvec: np.ndarray,
    tvec: np.ndarray,
    background: int = 200,
) -> np.ndarray:
    """A flat printed texture (board mm -> texture px ``mm_to_texture``) seen by a real camera at pose
    (``rvec``, ``tvec``; board mm, z = 0 on the print), lens distortion included. For calibration tests."""
    W, H = camera.image_size
    R, _ = cv2.Rodrigues(np.asarray(rvec, np.float64))
    plane_to_norm = np.c_[R[:, 0], R[:, 1], np.asarray(tvec, np.float64).ravel()]
    jj, ii = np.meshgrid(np.arange(W, dtype=np.float64), np.arange(H, dtype=np.float64))
    norm = cv2.undistortPoints(
        np.c_[jj.ravel(), ii.ravel()].reshape(-1, 1, 2), camera.camera_matrix, camera.dist_coeffs
    ).reshape(-1, 2)
    M = mm_to_texture @ np.linalg.inv(plane_to_norm)
    tex = cv2.perspectiveTransform(norm.reshape(-1, 1, 2), M).reshape(H, W, 2).astype(np.float32)
    return cv2.remap(
        texture, tex[..., 0], tex[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=background
    )
