"""Printed board art and materials for the second rendition of the boards (issue 20, item 5).

Rendition 1 draws every board in flat colours; rendition 2 draws the same maps as a printed box
might: illustrations (leaves, grass, stones, feathers) made of noise and strokes in a palette,
felt and wood with their fibres and grain, and the markers' white quiet zones kept as printed.
Everything is drawn on the flat board texture (board mm -> texture px by ``to_px``) with the
scene's own random generator, so a scene is reproducible.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import cv2
import numpy as np

from companion.vision.boardmap import BoardMap

ToPx = Callable[[np.ndarray], np.ndarray]

RENDITIONS = (1, 2)
BOX_SEED = 20  # the second rendition is one box: its printed art comes from this seed in every scene
BOX_HUE = 0.0  # degrees its printed art, felt and wood are turned round the hue circle (0: as drawn)
DEFAULT_BOX = "20:0"  # that box, as ``use_box`` takes it


def use_box(spec: str) -> tuple[int, float]:
    """Print the second rendition as another box, ``"SEED:HUE"``: its art from SEED, its colours turned HUE degrees
    round the hue circle -- a box the readers were not tuned on (``bench table --box``, ``bench board --box``).
    ValueError for a spec that is not two numbers."""
    global BOX_SEED, BOX_HUE
    seed, _, hue = spec.partition(":")
    try:
        BOX_SEED, BOX_HUE = int(seed), float(hue or 0.0) % 360.0
    except ValueError:
        raise ValueError(f"a box is SEED:HUE (two numbers, like 33:120), not {spec!r}") from None
    return BOX_SEED, BOX_HUE


BOX_HELP = ("rendition 2 as another box, SEED:HUE: its printed art from SEED, its colours turned HUE degrees "
            "(a box the readers were not tuned on)")


def use_box_option(spec: str) -> str:
    """A bench's ``--box`` option (empty: the usual box) put to use: "" once done, else its error line."""
    try:
        use_box(spec or DEFAULT_BOX)
    except ValueError as exc:
        return f"error: --box: {exc}"
    return ""


def turned(bgr: Sequence[Sequence[float]] | Sequence[float] | np.ndarray) -> np.ndarray:
    """Colours (BGR, any shape ending in 3) turned ``BOX_HUE`` degrees round the hue circle, as float32."""
    colours = np.asarray(bgr, np.float32)
    if not BOX_HUE:
        return colours
    pixels = np.clip(colours, 0, 255).reshape(-1, 1, 3).astype(np.uint8)
    hsv = cv2.cvtColor(pixels, cv2.COLOR_BGR2HSV_FULL).astype(np.float32)
    hsv[..., 0] = (hsv[..., 0] + BOX_HUE * 256.0 / 360.0) % 256.0
    return cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR_FULL).astype(np.float32).reshape(colours.shape)


def check_rendition(rendition: int) -> int:
    if rendition not in RENDITIONS:
        raise ValueError(f"rendition must be one of {RENDITIONS}, not {rendition!r}")
    return int(rendition)


def px_per_mm(to_px: ToPx) -> float:
    return float(np.linalg.norm(to_px(np.array([[1.0, 0.0]]))[0] - to_px(np.array([[0.0, 0.0]]))[0]))


def noise(shape: tuple[int, int], rng: np.random.Generator, cell_px: float, octaves: int = 3) -> np.ndarray:
    """Smooth value noise in about [-1, 1], features about ``cell_px`` across (float32 (h, w))."""
    h, w = shape
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    for k in range(octaves):
        c = max(1.0, cell_px / 2**k)
        gh, gw = max(2, int(h / c) + 2), max(2, int(w / c) + 2)
        out += amp * cv2.resize(rng.uniform(-1, 1, (gh, gw)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        total += amp
        amp *= 0.5
    return out / total


def board_mask(tex_shape: tuple[int, ...], board: BoardMap, to_px: ToPx) -> np.ndarray:
    """uint8 mask of the board's printed area in the texture."""
    w, h = board.size_mm
    quad = to_px(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64))
    m = np.zeros(tex_shape[:2], np.uint8)
    cv2.fillPoly(m, [np.round(quad * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    return m


def marker_zones(tex_shape: tuple[int, ...], board: BoardMap, to_px: ToPx, quiet_mm: float = 5.0) -> np.ndarray:
    """uint8 mask of the markers with their white quiet zones (what board art must leave alone)."""
    m = np.zeros(tex_shape[:2], np.uint8)
    for f in board.fiducials:
        c = f.corners_mm()
        lo, hi = c.min(axis=0) - quiet_mm, c.max(axis=0) + quiet_mm
        q = to_px(np.array([lo, [hi[0], lo[1]], hi, [lo[0], hi[1]]], np.float64))
        cv2.fillPoly(m, [np.round(q).astype(np.int32)], 255)
    return m


def blend(tex: np.ndarray, layer: np.ndarray, mask: np.ndarray) -> None:
    """tex = layer where mask (uint8 0-255), anti-aliased."""
    a = mask.astype(np.float32)[..., None] / 255.0
    tex[:] = np.clip(tex * (1 - a) + layer * a, 0, 255).astype(np.uint8)


def illustration(shape: tuple[int, int], rng: np.random.Generator, s: float, palette: Sequence[Sequence[float]],
                 strokes: int = 400, stroke_mm: tuple[float, float] = (3.0, 12.0), cell_mm: float = 40.0) -> np.ndarray:
    """A painted-looking texture: large patches blended from ``palette`` (BGR), fine grain, and
    ``strokes`` small leaf/grass-like ellipses in the palette's colours (float32 BGR (h, w, 3))."""
    h, w = shape
    pal = turned(palette)
    n = noise((h, w), rng, cell_mm * s, 3)
    t = (n - n.min()) / max(float(np.ptp(n)), 1e-6) * (len(pal) - 1)
    lo = np.floor(t).astype(int).clip(0, len(pal) - 1)
    hi = (lo + 1).clip(0, len(pal) - 1)
    f = (t - lo)[..., None]
    img = pal[lo] * (1 - f) + pal[hi] * f
    img *= (1.0 + 0.08 * noise((h, w), rng, 2.5 * s, 2))[..., None]
    area = h * w / max(s * s, 1e-6)  # mm^2 of the texture
    count = int(strokes * area / 250_000.0)
    for _ in range(count):
        x, y = rng.uniform(0, w), rng.uniform(0, h)
        length = rng.uniform(*stroke_mm) * s
        colour = pal[rng.integers(len(pal))] * rng.uniform(0.75, 1.2)
        cv2.ellipse(img, (round(x * 16), round(y * 16)), (max(1, round(length * 8)), max(1, round(length * 2.5))),
                    float(rng.uniform(0, 180)), 0, 360, tuple(float(c) for c in colour), -1, cv2.LINE_AA, shift=4)
    return img


def felt(shape: tuple[int, int], rng: np.random.Generator, s: float, bgr: Sequence[float]) -> np.ndarray:
    """Felt: its colour with soft blotches and fine fibres (float32 BGR)."""
    h, w = shape
    shade = 1.0 + 0.07 * noise((h, w), rng, 30 * s, 2) + 0.06 * noise((h, w), rng, 0.8 * s + 1, 1)
    return turned(bgr)[None, None, :] * shade[..., None]


def wood(shape: tuple[int, int], rng: np.random.Generator, s: float, bgr: Sequence[float], along_x: bool = True) -> np.ndarray:
    """Wood: its colour with grain lines along one axis (float32 BGR)."""
    h, w = shape
    if along_x:
        lines = cv2.resize(rng.uniform(-1, 1, (max(2, int(h / max(s, 1e-3) / 2)), 3)).astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    else:
        lines = cv2.resize(rng.uniform(-1, 1, (3, max(2, int(w / max(s, 1e-3) / 2)))).astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    shade = 1.0 + 0.10 * lines + 0.05 * noise((h, w), rng, 60 * s, 2)
    return turned(bgr)[None, None, :] * shade[..., None]


def fill_poly(tex: np.ndarray, to_px: ToPx, pts_mm: np.ndarray, bgr: Sequence[float]) -> None:
    px = np.round(to_px(np.asarray(pts_mm, np.float64)) * 16).astype(np.int32)
    cv2.fillPoly(tex, [px], tuple(int(c) for c in bgr), cv2.LINE_AA, shift=4)


def circle(centre_mm: Sequence[float], radius_mm: float, n: int = 40) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.asarray(centre_mm, np.float64) + radius_mm * np.c_[np.cos(t), np.sin(t)]


def die_face(tex: np.ndarray, to_px: ToPx, centre_mm: Sequence[float], side_mm: float, value: int, angle: float,
             body: Sequence[float] = (235, 238, 240), pip: Sequence[float] = (25, 25, 25)) -> None:
    """A printed die picture (rounded square with pips), as on Eagle Kingdoms' pieces and template."""
    c = np.asarray(centre_mm, np.float64)
    R = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    h = side_mm / 2
    sq = np.array([[-h, -h], [h, -h], [h, h], [-h, h]]) * 0.92
    fill_poly(tex, to_px, c + sq @ R.T, body)
    q = side_mm * 0.27
    pips = {1: [(0, 0)], 2: [(-q, -q), (q, q)], 3: [(-q, -q), (0, 0), (q, q)], 4: [(-q, -q), (q, -q), (-q, q), (q, q)],
            5: [(-q, -q), (q, -q), (0, 0), (-q, q), (q, q)], 6: [(-q, -q), (q, -q), (-q, 0), (q, 0), (-q, q), (q, q)]}[value]
    for p in pips:
        fill_poly(tex, to_px, circle(c + R @ np.asarray(p), side_mm * 0.09, 12), pip)
