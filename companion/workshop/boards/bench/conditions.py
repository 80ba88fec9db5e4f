"""The ordinary conditions of issue 20's table, applied to a rendered frame *after* rendering.

A family's table is not the renderer's: warm light, a shadow, a phone out of focus, a wide lens, a
hand reaching in, a small camera. Each condition here is a function of the rendered frame, the area
of interest in it (the board's quad, or the kingdom's) and a random generator, so every game's
benchmark meets the same table:

``as-rendered``  the frame as drawn;
``warm``         warm tungsten light: blue x0.7, red x1.15 (a white balance the camera did not fix);
``shadow``       a soft shadow (light falls to 45-60 %) over a third of the area, edge 2-5 % of its size;
``defocus``      a 5 px defocus: a blur spot 5 px across (Gaussian, sigma 1.3 px: +-2 sigma);
``wide-lens``    a phone's wide lens, barrel distortion k1 = -0.15 (focal length 0.8 x the longer
                 side, centred), and no camera profile given to the reader;
``hand``         a hand and its forearm reaching in from the nearest frame edge, covering 10 % of the
                 area (skin from light to dark, shaded, with its soft shadow on the board);
``small``        a 640x360 camera (the frame downscaled by half).

:func:`apply` returns a :class:`Perturbed` frame: the image, the truth homography in it (None where
a lens bends it) and the hand's mask, so the benchmark can tell which spaces were hidden.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from companion.vision.boardmap import BoardMap
from companion.vision.intrinsics import CameraProfile

CONDITIONS: tuple[str, ...] = ("as-rendered", "warm", "shadow", "defocus", "wide-lens", "hand", "small")
WARM_GAINS_BGR = (0.7, 1.0, 1.15)
SHADOW_LIGHT = (0.45, 0.6)
SHADOW_SHARE = 1 / 3
DEFOCUS_SIGMA_PX = 1.3  # a blur spot 5 px across (+-2 sigma)
WIDE_LENS_K1 = -0.15
FOCAL_OF_LONGER_SIDE = 0.8
HAND_SHARE = 0.10
SMALL_SIZE = (640, 360)
SKIN_BGR = ((165, 190, 235), (120, 155, 210), (95, 130, 185), (70, 100, 150), (45, 65, 100))  # light to dark


@dataclass(frozen=True)
class Perturbed:
    image: np.ndarray
    homography: np.ndarray | None  # board mm -> image px of the perturbed frame (ideal camera), if known
    camera: CameraProfile | None = None  # the lens the frame was bent through (truth only; never given to readers)
    cover: np.ndarray | None = None  # uint8 mask (255 = covered by a hand) in the perturbed frame


def board_quad(board: BoardMap, homography: np.ndarray) -> np.ndarray:
    """The board's four corners in the frame (4, 2)."""
    c = board.board_corners_mm().reshape(-1, 1, 2).astype(np.float64)
    return cv2.perspectiveTransform(c, homography).reshape(-1, 2)


def apply(name: str, image: np.ndarray, quad: np.ndarray, rng: np.random.Generator,
          homography: np.ndarray | None = None) -> Perturbed:
    """The frame ``image`` under condition ``name``; ``quad`` (4, 2) is the area of interest in it."""
    try:
        fn = _CONDITIONS[name]
    except KeyError:
        raise ValueError(f"unknown condition {name!r}; choose from {', '.join(CONDITIONS)}") from None
    return fn(image, np.asarray(quad, np.float64), rng, homography)


def _as_rendered(image, quad, rng, H) -> Perturbed:
    return Perturbed(image, H)


def _warm(image, quad, rng, H) -> Perturbed:
    out = image.astype(np.float32) * np.array(WARM_GAINS_BGR, np.float32)
    return Perturbed(np.clip(out, 0, 255).astype(np.uint8), H)


def _shadow(image, quad, rng, H) -> Perturbed:
    """A half-plane in a random direction whose side covers a third of the quad, darkened, soft-edged."""
    h, w = image.shape[:2]
    angle = rng.uniform(0, 2 * np.pi)
    d = np.array([np.cos(angle), np.sin(angle)])
    area = np.zeros((h, w), np.uint8)
    cv2.fillPoly(area, [np.round(quad).astype(np.int32)], 1)
    ys, xs = np.nonzero(area)
    proj = xs * d[0] + ys * d[1]
    cut = float(np.quantile(proj, 1 - SHADOW_SHARE)) if len(proj) else 0.0
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    size = float(np.sqrt(max(cv2.contourArea(quad.astype(np.float32)), 1.0)))
    soft = rng.uniform(0.02, 0.05) * size
    t = np.clip(((xx * d[0] + yy * d[1]) - cut) / soft + 0.5, 0, 1)  # 0 lit .. 1 shadow
    t = t * t * (3 - 2 * t)
    light = 1.0 - (1.0 - rng.uniform(*SHADOW_LIGHT)) * t
    out = image.astype(np.float32) * light[..., None]
    return Perturbed(np.clip(out, 0, 255).astype(np.uint8), H)


def _defocus(image, quad, rng, H) -> Perturbed:
    return Perturbed(cv2.GaussianBlur(image, (0, 0), DEFOCUS_SIGMA_PX), H)


def wide_lens(size: tuple[int, int], k1: float = WIDE_LENS_K1) -> CameraProfile:
    """The phone wide lens of the ``wide-lens`` condition (centred, focal 0.8 x the longer side)."""
    W, H = size
    f = FOCAL_OF_LONGER_SIDE * max(W, H)
    K = np.array([[f, 0, (W - 1) / 2], [0, f, (H - 1) / 2], [0, 0, 1]], np.float64)
    return CameraProfile("wide-lens", (W, H), K, np.array([k1, 0, 0, 0, 0], np.float64))


@lru_cache(maxsize=4)
def _lens_maps(W: int, H: int, k1: float) -> tuple[np.ndarray, np.ndarray]:
    cam = wide_lens((W, H), k1)
    jj, ii = np.meshgrid(np.arange(W, dtype=np.float64), np.arange(H, dtype=np.float64))
    ideal = cam.undistort_points(np.c_[jj.ravel(), ii.ravel()]).astype(np.float32)
    return ideal[:, 0].reshape(H, W), ideal[:, 1].reshape(H, W)


def _wide_lens(image, quad, rng, H) -> Perturbed:
    h, w = image.shape[:2]
    mx, my = _lens_maps(w, h, WIDE_LENS_K1)
    out = cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return Perturbed(out, H, wide_lens((w, h)))


def _small(image, quad, rng, H) -> Perturbed:
    h, w = image.shape[:2]
    sx, sy = SMALL_SIZE[0] / w, SMALL_SIZE[1] / h
    out = cv2.resize(image, SMALL_SIZE, interpolation=cv2.INTER_AREA)
    S = np.array([[sx, 0, 0.5 * sx - 0.5], [0, sy, 0.5 * sy - 0.5], [0, 0, 1]])  # pixel centres
    return Perturbed(out, None if H is None else S @ H)


# -- a hand ---------------------------------------------------------------------------------------------


def _hand_shapes(length: float) -> list[np.ndarray]:
    """Palm, four fingers, thumb and forearm in hand units (palm 90 x 100), fingers towards -y, the
    forearm from the wrist towards +y for ``length`` units."""
    t = np.linspace(0, 2 * np.pi, 40, endpoint=False)
    shapes = [np.c_[45 * np.cos(t), 50 * np.sin(t)]]
    for k, flen in enumerate((70, 80, 75, 60)):
        fx = -30 + k * 20
        shapes.append(np.c_[fx + 8.5 * np.cos(t), -40 - flen / 2 + flen / 2 * np.sin(t)])
    shapes.append(np.c_[48 + 28 * np.cos(t) * 0.9, 5 + 11 * np.sin(t)] @ np.array([[0.9, 0.44], [-0.44, 0.9]]))
    shapes.append(np.array([[-38, 20], [38, 20], [44, 20 + length], [-44, 20 + length]], np.float64))
    return shapes


def _draw_shapes(mask: np.ndarray, shapes: list[np.ndarray], to_px: Callable[[np.ndarray], np.ndarray]) -> None:
    for shp in shapes:
        cv2.fillPoly(mask, [np.round(to_px(shp) * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)


def _hand(image, quad, rng, H) -> Perturbed:
    h, w = image.shape[:2]
    area = np.zeros((h, w), np.uint8)
    cv2.fillPoly(area, [np.round(quad).astype(np.int32)], 255)
    a_area = float(np.count_nonzero(area))
    # the palm somewhere over the area (not at its very rim), the arm reaching in from the nearest frame edge
    centre = quad.mean(axis=0)
    corner = quad[rng.integers(4)]
    palm = centre + (corner - centre) * rng.uniform(0.1, 0.75)
    edges = np.array([palm[0], w - palm[0], palm[1], h - palm[1]])
    out_dir = [np.array([-1.0, 0]), np.array([1.0, 0]), np.array([0, -1.0]), np.array([0, 1.0])][int(np.argmin(edges))]
    out_dir = out_dir + rng.normal(0, 0.25, 2)
    out_dir /= np.linalg.norm(out_dir)
    # hand units -> px: +y (the forearm) along out_dir
    R = np.c_[np.array([out_dir[1], -out_dir[0]]), out_dir]
    reach = float(np.hypot(w, h))
    scale = float(np.sqrt(HAND_SHARE * a_area / 14000.0))
    mask = np.zeros((h, w), np.uint8)
    for _ in range(3):  # size the hand (and the arm over the area) to cover HAND_SHARE of it
        mask[:] = 0
        _draw_shapes(mask, _hand_shapes(reach / max(scale, 1e-3)), lambda p, s=scale: p @ R.T * s + palm)
        share = np.count_nonzero((mask > 127) & (area > 0)) / max(a_area, 1.0)
        if share <= 0:
            break
        scale *= float(np.clip(np.sqrt(HAND_SHARE / share), 0.7, 1.4))
    img = image.astype(np.float32)
    # its shadow on the table first (the hand is above it), then the hand
    shift = rng.normal(0, 1, 2)
    shift = shift / max(np.linalg.norm(shift), 1e-6) * scale * rng.uniform(8, 18)
    M = np.float32([[1, 0, shift[0]], [0, 1, shift[1]]])
    shade = cv2.GaussianBlur(cv2.warpAffine(mask, M, (w, h)).astype(np.float32) / 255.0, (0, 0), max(1.0, 6 * scale))
    img *= (1.0 - rng.uniform(0.25, 0.45) * shade)[..., None]
    tone = rng.uniform(0, len(SKIN_BGR) - 1)
    lo = int(np.floor(tone))
    hi = min(lo + 1, len(SKIN_BGR) - 1)
    skin = (1 - (tone - lo)) * np.array(SKIN_BGR[lo], np.float32) + (tone - lo) * np.array(SKIN_BGR[hi], np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    g = rng.normal(0, 1, 2)
    g /= max(np.linalg.norm(g), 1e-6)
    ramp = 1.0 + 0.15 * np.clip(((xx - palm[0]) * g[0] + (yy - palm[1]) * g[1]) / (100 * scale), -1, 1)
    texture = cv2.resize(rng.uniform(0.94, 1.06, (max(2, h // 24), max(2, w // 24))).astype(np.float32), (w, h))
    skin_img = skin[None, None, :] * (ramp * texture * rng.uniform(0.8, 1.1))[..., None]
    a = mask.astype(np.float32)[..., None] / 255.0
    img = img * (1 - a) + skin_img * a
    img += rng.normal(0, 2.0, img.shape).astype(np.float32) * a
    return Perturbed(np.clip(img, 0, 255).astype(np.uint8), H, None, (mask > 127).astype(np.uint8) * 255)


_CONDITIONS: dict[str, Callable[..., Perturbed]] = {
    "as-rendered": _as_rendered,
    "warm": _warm,
    "shadow": _shadow,
    "defocus": _defocus,
    "wide-lens": _wide_lens,
    "hand": _hand,
    "small": _small,
}


def covered_share(points_mm: np.ndarray, perturbed: Perturbed) -> float:
    """Share of the board points (N, 2) that the hand covers in the perturbed frame (0 without a hand)."""
    if perturbed.cover is None or perturbed.homography is None or not len(points_mm):
        return 0.0
    px = cv2.perspectiveTransform(np.asarray(points_mm, np.float64).reshape(-1, 1, 2), perturbed.homography).reshape(-1, 2)
    h, w = perturbed.cover.shape
    ij = np.round(px).astype(int)
    inside = (ij[:, 0] >= 0) & (ij[:, 0] < w) & (ij[:, 1] >= 0) & (ij[:, 1] < h)
    hit = np.zeros(len(px), bool)
    hit[inside] = perturbed.cover[ij[inside, 1], ij[inside, 0]] > 0
    return float(hit.mean())
