"""Synthetic dice scenes: the training data of both dice stages, and the benchmark's fresh test set.

Everything is drawn with numpy and OpenCV (no torch), so tests and ``companion bench dice`` can
render scenes too. A die is a small convex polyhedron (cube or octahedron) with one texture per
face, rotated, tilted and seen from a camera that may look obliquely; faces are shaded, bevelled,
optionally translucent, marbled or glittery, and cast a soft shadow. Scenes add textured tables (wood,
felt, paper, stone, carpet, patterned cloth, plain and illustrated game boards with printed dots and
tokens), clutter, fingers, lighting gradients, colour casts, specular highlights, motion blur, noise and
JPEG artefacts.

Usage: ``python -m companion.workshop.dice.synth OUT_DIR [N]`` writes N annotated sample scenes.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from companion.vision.classes import COLOUR_FACES, class_index
from companion.vision.sprites import sprite_window

TEX = 96  # face texture side in pixels
TOP_MARGIN = 0.05  # a die whose upward face is not clearly the one facing the camera is labelled "none"
# With an upright camera (one that leans towards the table without rolling far, as a phone on a stand
# does) the upward face is the one at the top of the die's image, so it stays readable until it turns
# nearly edge-on: its normal must make at most about 70 degrees with the view axis.
MIN_TOP_COS = 0.35
UPRIGHT_SHARE = 0.55  # share of scenes seen by an upright, leaning camera (the rest look down, any roll)
VERSION = 5  # bump when renders or labels change: training caches are keyed by it (4 was an abandoned trial)

# Pip layouts of a d6 on a 3x3 grid (row, col), 0..2
PIP_LAYOUT = {
    1: [(1, 1)],
    2: [(0, 0), (2, 2)],
    3: [(0, 0), (1, 1), (2, 2)],
    4: [(0, 0), (0, 2), (2, 0), (2, 2)],
    5: [(0, 0), (0, 2), (1, 1), (2, 0), (2, 2)],
    6: [(0, 0), (1, 0), (2, 0), (0, 2), (1, 2), (2, 2)],
}
FACE_BGR = {  # nominal colours of the Mighty Magpies faces (BGR)
    "yellow": (40, 215, 245),
    "blue": (200, 110, 30),
    "red": (45, 40, 210),
    "green": (70, 160, 40),
}


@dataclass
class DieInScene:
    kind: str  # "d6" | "d8" | "magpie"
    value: int | str
    box: tuple[int, int, int, int]  # x, y, w, h of the whole visible die
    top_visible: float = 1.0  # fraction of the upward face not hidden by later dice or fingers
    top_margin: float = 1.0  # see render_die: how much more the upward face looks at the camera than any other
    label: int = 0  # classifier class index ("none" when the top face is mostly hidden or not clearly up)
    top_cos: float = 1.0  # cosine of the upward face's normal with the view axis
    upright: bool = False  # seen by an upright camera: image "up" is world up, so crops must not be turned


@dataclass
class Scene:
    image: np.ndarray
    dice: list[DieInScene] = field(default_factory=list)


# ---------------------------------------------------------------- colours and materials
def _rand_colour(rng: np.random.Generator) -> np.ndarray:
    kind = rng.random()
    if kind < 0.25:  # whites / ivories
        v = rng.uniform(200, 255)
        return np.array([v - rng.uniform(0, 25), v - rng.uniform(0, 12), v], np.float32)
    if kind < 0.35:  # blacks / greys
        v = rng.uniform(15, 120)
        return np.array([v, v, v], np.float32) + rng.uniform(-8, 8, 3).astype(np.float32)
    hsv = np.uint8([[[rng.integers(0, 180), rng.integers(90, 256), rng.integers(70, 256)]]])
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def _contrast_colour(rng: np.random.Generator, body: np.ndarray) -> np.ndarray:
    lum = float(body @ np.array([0.11, 0.59, 0.3]))
    for _ in range(20):
        c = _rand_colour(rng) if rng.random() < 0.35 else (
            np.full(3, rng.uniform(0, 60), np.float32) if lum > 110 else np.full(3, rng.uniform(200, 255), np.float32)
        )
        if abs(float(c @ np.array([0.11, 0.59, 0.3])) - lum) > 70:
            return c.astype(np.float32)
    return np.zeros(3, np.float32) if lum > 110 else np.full(3, 255, np.float32)


def _marble(rng: np.random.Generator, size: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    noise = rng.random((size // 8 + 2, size // 8 + 2)).astype(np.float32)
    noise = cv2.resize(noise, (size, size), interpolation=cv2.INTER_CUBIC)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size
    t = np.sin((xx * rng.uniform(2, 8) + yy * rng.uniform(2, 8) + noise * rng.uniform(3, 8)) * math.pi)
    t = ((t + 1) / 2) ** rng.uniform(0.5, 2.5)
    return a[None, None] * (1 - t[..., None]) + b[None, None] * t[..., None]


@dataclass
class Material:
    body: np.ndarray  # BGR float
    ink: np.ndarray  # pip / numeral colour
    alpha: float  # body opacity (translucent < 1)
    marble: np.ndarray | None  # second colour for marbled bodies
    glitter: float  # sparkle density
    pip_shape: str  # "disc", "ring", "square", "soft"
    font: int
    rounded: float  # corner radius as a fraction of the face


def random_material(rng: np.random.Generator) -> Material:
    body = _rand_colour(rng)
    ink = _contrast_colour(rng, body)
    r = rng.random()
    alpha = 1.0 if r < 0.72 else float(rng.uniform(0.45, 0.85))
    marble = _rand_colour(rng) if rng.random() < 0.15 else None
    glitter = float(rng.uniform(0.002, 0.02)) if rng.random() < 0.12 else 0.0
    shape = rng.choice(["disc", "disc", "disc", "soft", "ring", "square"])
    font = int(rng.choice([cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX,
                           cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_PLAIN]))
    return Material(body, ink, alpha, marble, glitter, str(shape), font, float(rng.uniform(0.08, 0.3)))


# ---------------------------------------------------------------- face textures (BGR + alpha of ink)
def _face_base(rng: np.random.Generator, m: Material) -> np.ndarray:
    if m.marble is not None:
        img = _marble(rng, TEX, m.body, m.marble)
    else:
        img = np.broadcast_to(m.body, (TEX, TEX, 3)).astype(np.float32).copy()
    if m.glitter:
        mask = rng.random((TEX, TEX)) < m.glitter
        img[mask] = np.minimum(255, img[mask] + rng.uniform(60, 160))
    return img


def _draw_pips(rng: np.random.Generator, img: np.ndarray, ink_mask: np.ndarray, value: int, m: Material) -> None:
    margin = rng.uniform(0.2, 0.28) * TEX
    step = (TEX - 2 * margin) / 2
    radius = step * rng.uniform(0.28, 0.42)
    big_one = value == 1 and rng.random() < 0.3
    for r, c in PIP_LAYOUT[value]:
        cx = margin + c * step + rng.normal(0, 0.6)
        cy = margin + r * step + rng.normal(0, 0.6)
        rad = radius * (rng.uniform(1.4, 1.9) if big_one else 1.0)
        centre = (int(round(cx * 16)), int(round(cy * 16)))
        if m.pip_shape == "square":
            h = int(rad * 16 * 0.85)
            cv2.rectangle(ink_mask, (centre[0] - h, centre[1] - h), (centre[0] + h, centre[1] + h), 1.0, -1,
                          cv2.LINE_AA, shift=4)
        elif m.pip_shape == "ring":
            cv2.circle(ink_mask, centre, int(rad * 16), 1.0, max(2, int(rad * 0.45)), cv2.LINE_AA, shift=4)
        else:
            cv2.circle(ink_mask, centre, int(rad * 16), 1.0, -1, cv2.LINE_AA, shift=4)
    if m.pip_shape == "soft":  # pips drilled into the body: darker rim, shaded inside
        blurred = cv2.GaussianBlur(ink_mask, (0, 0), 1.5)
        ink_mask[:] = np.maximum(ink_mask * 0.85, blurred)


def _draw_numeral(rng: np.random.Generator, ink_mask: np.ndarray, value: int, m: Material, triangle: bool) -> None:
    text = str(value)
    scale = rng.uniform(1.3, 1.9) if m.font != cv2.FONT_HERSHEY_PLAIN else rng.uniform(2.6, 3.6)
    thick = int(rng.integers(2, 5))
    (tw, th), _ = cv2.getTextSize(text, m.font, scale, thick)
    cx, cy = TEX / 2, TEX * (0.62 if triangle else 0.5)
    org = (int(cx - tw / 2), int(cy + th / 2))
    cv2.putText(ink_mask, text, org, m.font, scale, 1.0, thick, cv2.LINE_AA)
    if value in (6, 9) and rng.random() < 0.6:  # orientation mark
        y = org[1] + int(thick * 1.5) + 2
        cv2.line(ink_mask, (org[0], y), (org[0] + tw, y), 1.0, max(1, thick - 1), cv2.LINE_AA)


def _magpie_symbol(rng: np.random.Generator, img: np.ndarray, ink: np.ndarray) -> None:
    """A black-and-white bird: body, white belly, head, beak, long tail."""
    s = TEX / 96
    cx, cy = TEX / 2 + rng.normal(0, 2), TEX / 2 + rng.normal(0, 2)
    dark = tuple(float(v) for v in ink)
    cv2.ellipse(img, (int(cx), int(cy)), (int(22 * s), int(13 * s)), -20, 0, 360, dark, -1, cv2.LINE_AA)
    cv2.ellipse(img, (int(cx + 4 * s), int(cy + 4 * s)), (int(12 * s), int(7 * s)), -20, 0, 360,
                (245, 245, 245), -1, cv2.LINE_AA)
    cv2.circle(img, (int(cx + 20 * s), int(cy - 15 * s)), int(9 * s), dark, -1, cv2.LINE_AA)
    beak = np.array([[cx + 27 * s, cy - 18 * s], [cx + 38 * s, cy - 15 * s], [cx + 27 * s, cy - 11 * s]], np.int32)
    cv2.fillPoly(img, [beak], dark, cv2.LINE_AA)
    tail = np.array([[cx - 18 * s, cy + 2 * s], [cx - 42 * s, cy + 22 * s], [cx - 38 * s, cy + 28 * s],
                     [cx - 12 * s, cy + 10 * s]], np.int32)
    cv2.fillPoly(img, [tail], dark, cv2.LINE_AA)
    cv2.ellipse(img, (int(cx - 2 * s), int(cy - 3 * s)), (int(12 * s), int(5 * s)), -25, 0, 360,
                (rng.uniform(120, 200), rng.uniform(60, 120), rng.uniform(0, 40)), -1, cv2.LINE_AA)


def face_texture(rng: np.random.Generator, kind: str, value, m: Material, triangle: bool = False,
                 blank: bool = False):
    """Return (BGR float texture, ink-alpha float mask) of one face; ``blank``: the face has no mark."""
    if kind == "magpie":
        if value == "magpie":
            img = np.broadcast_to(np.float32([235, 238, 240]) - rng.uniform(0, 20), (TEX, TEX, 3)).copy()
            _magpie_symbol(rng, img, np.float32([20, 20, 20]) + rng.uniform(0, 30))
            return img, np.zeros((TEX, TEX), np.float32)
        colour = np.float32(FACE_BGR[value]) + rng.normal(0, 14, 3).astype(np.float32)
        if rng.random() < 0.65:  # the whole face is coloured
            img = np.broadcast_to(np.clip(colour, 0, 255), (TEX, TEX, 3)).copy()
        else:  # a coloured disc or square on a light body
            img = np.broadcast_to(np.float32([235, 235, 235]) - rng.uniform(0, 30), (TEX, TEX, 3)).copy()
            r = int(TEX * rng.uniform(0.28, 0.4))
            if rng.random() < 0.5:
                cv2.circle(img, (TEX // 2, TEX // 2), r, tuple(float(c) for c in colour), -1, cv2.LINE_AA)
            else:
                cv2.rectangle(img, (TEX // 2 - r, TEX // 2 - r), (TEX // 2 + r, TEX // 2 + r),
                              tuple(float(c) for c in colour), -1)
        return img, np.zeros((TEX, TEX), np.float32)
    img = _face_base(rng, m)
    ink = np.zeros((TEX, TEX), np.float32)
    if blank:
        return img, ink
    if kind == "d6":
        _draw_pips(rng, img, ink, int(value), m)
    else:
        _draw_numeral(rng, ink, int(value), m, triangle)
    return img, ink


# ---------------------------------------------------------------- geometry
def _rot(axis: np.ndarray, angle: float) -> np.ndarray:
    axis = axis / np.linalg.norm(axis)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * k @ k


CUBE_V = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], np.float64)
# faces as vertex indices (counter-clockwise seen from outside), with outward normal
CUBE_F = [
    ([1, 3, 7, 5], (0, 0, 1)),  # +z (top)
    ([0, 4, 6, 2], (0, 0, -1)),
    ([4, 5, 7, 6], (1, 0, 0)),
    ([0, 2, 3, 1], (-1, 0, 0)),
    ([2, 6, 7, 3], (0, 1, 0)),
    ([0, 1, 5, 4], (0, -1, 0)),
]
OCTA_V = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], np.float64)
OCTA_F = []
for sx in (0, 1):
    for sy in (2, 3):
        for sz in (4, 5):
            n = OCTA_V[sx] + OCTA_V[sy] + OCTA_V[sz]
            OCTA_F.append(([sx, sy, sz], tuple(n / np.linalg.norm(n))))


def _octa_up() -> np.ndarray:
    """Rotation taking face (+x,+y,+z) to point up."""
    n = np.array([1, 1, 1]) / math.sqrt(3)
    axis = np.cross(n, [0, 0, 1])
    return _rot(axis, math.acos(float(n @ np.array([0, 0, 1]))))


OCTA_UP = _octa_up()


def _face_values(rng: np.random.Generator, kind: str, value) -> list:
    if kind == "d6":
        others = [v for v in range(1, 7) if v != value]
        rng.shuffle(others)
        return [value, 7 - value] + [v for v in others if v != 7 - value]
    if kind == "d8":
        others = [v for v in range(1, 9) if v != value]
        rng.shuffle(others)
        return [value] + others
    faces = ["yellow", "blue", "red", "green", "magpie", "magpie"]
    faces.remove(value)
    rng.shuffle(faces)
    return [value] + faces


def _signed_area(p: np.ndarray) -> float:
    return float((p[1, 0] - p[0, 0]) * (p[2, 1] - p[0, 1]) - (p[2, 0] - p[0, 0]) * (p[1, 1] - p[0, 1]))


def render_die(rng: np.random.Generator, kind: str, value, size: float, view_tilt: float, light: np.ndarray,
               m: Material | None = None, tilt: float = 0.0, info: dict | None = None, roll: float = 0.0,
               blank_eight: float = 0.0):
    """Draw one die. Returns (BGRA float sprite, top-face mask) or None if degenerate.

    size is the apparent edge length of the top face in pixels. The camera leans by ``view_tilt``
    (radians from looking straight down) so that the upward face shows at the top of the die's image,
    and rolls by ``roll`` about its view axis. When ``info`` is given it receives ``top_margin``: how
    much more the upward face turns to the camera than any other face (the cosine of its normal with
    the view axis minus the largest other one; at or below 0 another face looks as much at the camera
    as the upward one, so without knowing which way is up the image cannot show which face is up),
    and ``top_cos``, the cosine of the upward face's normal with the view axis. A d8 has a blank face
    instead of its 8 with probability ``blank_eight`` (a box whose Enchanted Die leaves its eighth face
    blank: rule EK-R-D8-BLANK; the chance is drawn only when it is above 0, so other renders are unchanged).
    """
    m = m or random_material(rng)
    if kind == "d8":
        verts, faces = OCTA_V @ OCTA_UP.T, [(f, np.array(n) @ OCTA_UP.T) for f, n in OCTA_F]
        top_idx = int(np.argmax([n[2] for _, n in faces]))
        scale_v = size / (math.sqrt(2) * 1.0)
    else:
        verts, faces = CUBE_V.copy(), [(f, np.array(n, np.float64)) for f, n in CUBE_F]
        top_idx = 0
        scale_v = size / 2.0
    yaw = _rot(np.array([0, 0, 1.0]), rng.uniform(0, 2 * math.pi))
    R = yaw
    if tilt:
        R = _rot(np.array([rng.normal(), rng.normal(), 0.0]), tilt) @ R
    # the camera looks down, leaning by view_tilt about the image's horizontal axis (the upward face
    # moves up in the image, as when a camera in front of the die tilts down to it), then rolls
    cam = _rot(np.array([0, 0, 1.0]), roll) @ _rot(np.array([1.0, 0, 0]), -view_tilt)
    R = cam @ R
    V = verts @ R.T * scale_v
    normals = [R @ n for _, n in faces]
    if info is not None:
        info["top_margin"] = float(normals[top_idx][2] - max(n[2] for i, n in enumerate(normals) if i != top_idx))
        info["top_cos"] = float(normals[top_idx][2])
    # weak perspective: things nearer the camera (larger z) a little bigger
    persp = 1.0 + V[:, 2] / (scale_v * rng.uniform(14, 40))
    P = V[:, :2] * persp[:, None]
    P[:, 1] *= -1
    lo = P.min(0) - 2
    P = P - lo
    W, H = int(math.ceil(P[:, 0].max() + 3)), int(math.ceil(P[:, 1].max() + 3))
    if W < 4 or H < 4:
        return None
    ss = 2  # supersample for smooth edges
    canvas = np.zeros((H * ss, W * ss, 3), np.float32)
    alpha = np.zeros((H * ss, W * ss), np.float32)
    top_mask = np.zeros((H * ss, W * ss), np.float32)
    values = _face_values(rng, kind, value)
    blank_value = 8 if kind == "d8" and blank_eight > 0 and rng.random() < blank_eight else None
    order = [top_idx] + [i for i in range(len(faces)) if i != top_idx]
    # silhouette filled with a dark edge colour (bevel)
    hull = cv2.convexHull((P * ss).astype(np.float32)).astype(np.int32)
    edge = m.body * rng.uniform(0.45, 0.8)
    cv2.fillConvexPoly(canvas, hull, tuple(float(c) for c in edge), cv2.LINE_AA)
    cv2.fillConvexPoly(alpha, hull, float(m.alpha), cv2.LINE_AA)
    for rank, fi in enumerate(order):
        idx, _ = faces[fi]
        n = normals[fi]
        if n[2] <= 0.05:
            continue
        val = values[rank] if rank < len(values) else values[-1]
        tri = len(idx) == 3
        tex, ink = face_texture(rng, kind, val, m, triangle=tri, blank=val == blank_value)
        shade = 0.35 + 0.65 * max(0.0, float(n @ light)) + rng.uniform(-0.05, 0.05)
        dst = (P[idx] * ss).astype(np.float32)
        # keep the texture's handedness: face vertex lists wind either way on screen, and a mirrored
        # numeral (a 2 that reads as a 5 once rotated) is not what a real die shows
        if _signed_area(dst) < 0:  # both source layouts below have a positive signed area
            dst = dst[[0, 2, 1]] if len(idx) == 3 else dst[[0, 3, 2, 1]]
        ink_col = m.ink
        col = tex * (1 - ink[..., None]) + ink_col[None, None] * ink[..., None]
        col = col * shade
        # rounded face mask
        fmask = np.zeros((TEX, TEX), np.float32)
        rad = int(TEX * m.rounded * (0.5 if tri else 1.0))
        if tri:
            src_tri = np.float32([[TEX / 2, 4], [TEX - 4, TEX - 6], [4, TEX - 6]])
            cv2.fillConvexPoly(fmask, src_tri.astype(np.int32), 1.0, cv2.LINE_AA)
            M = cv2.getAffineTransform(src_tri, dst[:3])
            warp = lambda a, M=M: cv2.warpAffine(a, M, (W * ss, H * ss), flags=cv2.INTER_LINEAR)  # noqa: E731
        else:
            cv2.rectangle(fmask, (rad // 2 + 2, rad // 2 + 2), (TEX - rad // 2 - 3, TEX - rad // 2 - 3), 1.0, -1)
            fmask = cv2.GaussianBlur(fmask, (0, 0), max(1.0, rad / 2.5))
            fmask = np.clip((fmask - 0.35) * 3, 0, 1)
            src = np.float32([[0, 0], [TEX, 0], [TEX, TEX], [0, TEX]])
            M = cv2.getPerspectiveTransform(src, dst)
            warp = lambda a, M=M: cv2.warpPerspective(a, M, (W * ss, H * ss), flags=cv2.INTER_LINEAR)  # noqa: E731
        fm = warp(fmask)
        fc = warp(col)
        fi_ink = warp(ink)
        canvas = canvas * (1 - fm[..., None]) + fc * fm[..., None]
        # translucent bodies: ink stays opaque
        a_face = m.alpha + (1 - m.alpha) * fi_ink
        alpha = np.maximum(alpha * (1 - fm), a_face * fm) if rank else alpha * (1 - fm) + a_face * fm
        if rank == 0:
            top_mask = fm
    canvas = cv2.resize(canvas, (W, H), interpolation=cv2.INTER_AREA)
    alpha = cv2.resize(alpha, (W, H), interpolation=cv2.INTER_AREA)
    top_mask = cv2.resize(top_mask, (W, H), interpolation=cv2.INTER_AREA)
    return np.dstack([canvas, alpha]), top_mask


# ---------------------------------------------------------------- backgrounds
def background(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    kind = rng.choice(["wood", "wood", "felt", "paper", "board", "illustrated", "illustrated", "stone", "plain",
                       "carpet", "carpet", "pattern"])
    base = _rand_colour(rng)
    if kind == "illustrated":
        img = illustrated_board(rng, h, w)
    elif kind == "carpet":
        img = carpet(rng, h, w)
    elif kind == "pattern":
        img = printed_pattern(rng, h, w)
    elif kind == "wood":
        base = np.float32([rng.uniform(60, 170), rng.uniform(110, 200), rng.uniform(150, 235)])
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        ang = rng.uniform(0, math.pi)
        u = xx * math.cos(ang) + yy * math.sin(ang)
        v = -xx * math.sin(ang) + yy * math.cos(ang)
        warp = cv2.resize(rng.random((8, 8)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        grain = np.sin(v / rng.uniform(3, 14) + warp * rng.uniform(5, 25) + 0.002 * u)
        img = base[None, None] * (1 + 0.08 * grain[..., None])
    elif kind == "felt":
        img = base[None, None] * (1 + 0.1 * (rng.random((h, w, 1)) - 0.5))
        img = cv2.GaussianBlur(img.astype(np.float32), (0, 0), 0.8)
    elif kind == "paper":
        img = np.broadcast_to(np.float32([rng.uniform(200, 250)] * 3) + rng.uniform(-10, 10, 3), (h, w, 3)).copy()
        for _ in range(int(rng.integers(0, 6))):  # lines, printed text
            y = int(rng.integers(0, h))
            cv2.line(img, (0, y), (w, y + int(rng.integers(-20, 20))), tuple(float(c) for c in _rand_colour(rng)), 1)
    elif kind == "board":
        img = np.broadcast_to(base, (h, w, 3)).copy()
        for _ in range(int(rng.integers(5, 30))):
            c = tuple(float(x) for x in _rand_colour(rng))
            cx, cy, r = int(rng.integers(0, w)), int(rng.integers(0, h)), int(rng.integers(10, max(11, w // 4)))
            pts = np.array([[cx + r * math.cos(a), cy + r * math.sin(a)] for a in np.arange(6) * math.pi / 3 + 0.5],
                           np.int32)
            cv2.fillPoly(img, [pts], c, cv2.LINE_AA)
            cv2.polylines(img, [pts], True, (30, 30, 30), int(rng.integers(1, 4)), cv2.LINE_AA)
    elif kind == "stone":
        n = rng.random((h // 3 + 1, w // 3 + 1, 1)).astype(np.float32)
        n = cv2.resize(n, (w, h), interpolation=cv2.INTER_NEAREST)[..., None]
        img = base[None, None] * (0.7 + 0.5 * n)
    else:
        img = np.broadcast_to(base, (h, w, 3)).copy()
    img = img.astype(np.float32)
    # clutter: cables, cards, tokens with straight and round edges
    for _ in range(int(rng.poisson(1.5))):
        c = tuple(float(x) for x in _rand_colour(rng))
        r = rng.random()
        p1 = (int(rng.integers(-w // 4, w)), int(rng.integers(-h // 4, h)))
        if r < 0.4:
            p2 = (int(p1[0] + rng.integers(20, w // 2 + 21)), int(p1[1] + rng.integers(20, h // 2 + 21)))
            cv2.rectangle(img, p1, p2, c, -1)
        elif r < 0.7:
            cv2.circle(img, p1, int(rng.integers(4, 30)), c, -1, cv2.LINE_AA)
        else:
            pts = np.cumsum(rng.normal(0, 40, (6, 2)), 0).astype(np.int32) + np.array(p1)
            cv2.polylines(img, [pts], False, c, int(rng.integers(2, 12)), cv2.LINE_AA)
    return img


def _smooth_noise(rng: np.random.Generator, h: int, w: int, cells: int) -> np.ndarray:
    """Noise in 0..1 with about ``cells`` blobs across the longer side (bicubic upsampling)."""
    gh, gw = max(2, cells * h // max(h, w) + 2), max(2, cells * w // max(h, w) + 2)
    return cv2.resize(rng.random((gh, gw)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)


def _pip_distractors(rng: np.random.Generator, img: np.ndarray, n: int) -> None:
    """Printed dots in dice-like groups and numbered round tokens: boards are full of both, and a
    detector that learnt "dark dots in a grid = die" finds dice on them."""
    h, w = img.shape[:2]
    for _ in range(n):
        cx, cy = int(rng.integers(0, w)), int(rng.integers(0, h))
        r = int(rng.integers(6, 28))
        ink = tuple(float(c) for c in _rand_colour(rng) * rng.uniform(0.1, 0.6))
        if rng.random() < 0.5:  # a round token with a numeral and a row of dots
            face = tuple(float(c) for c in np.float32([rng.uniform(190, 245)] * 3) + rng.uniform(-20, 10, 3))
            cv2.circle(img, (cx, cy), r, face, -1, cv2.LINE_AA)
            if r >= 10:
                fs = r / 22
                cv2.putText(img, str(int(rng.integers(2, 13))), (cx - int(r * 0.5), cy + int(r * 0.2)),
                            cv2.FONT_HERSHEY_SIMPLEX, fs, ink, max(1, int(fs * 2)), cv2.LINE_AA)
            for k in range(int(rng.integers(1, 6))):
                cv2.circle(img, (cx - r // 2 + k * max(2, r // 5), cy + int(r * 0.55)), max(1, r // 10), ink, -1,
                           cv2.LINE_AA)
        else:  # a loose group of printed dots, sometimes on a square
            if rng.random() < 0.4:
                face = tuple(float(c) for c in _rand_colour(rng))
                cv2.rectangle(img, (cx - r, cy - r), (cx + r, cy + r), face, -1)
            for _k in range(int(rng.integers(2, 7))):
                px, py = cx + int(rng.integers(-r, r + 1) * 0.7), cy + int(rng.integers(-r, r + 1) * 0.7)
                cv2.circle(img, (px, py), max(1, int(r * rng.uniform(0.1, 0.22))), ink, -1, cv2.LINE_AA)


def carpet(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Loop-pile or shag carpet: hard light and dark flecks about the size of a pip, often in rows (a
    carpet is a field of pips to a detector that learnt dice from plain tables). Mostly neutral colours."""
    scale = rng.uniform(1.2, 4.5)  # fleck size in pixels
    n = rng.random((int(h / scale) + 2, int(w / scale) + 2)).astype(np.float32)
    length = int(rng.choice([0, 0, 1, 2, 3]))  # streaks along the pile
    if length:
        kernel = np.zeros((2 * length + 1, 2 * length + 1), np.float32)
        ang = rng.uniform(0, math.pi)
        c = length
        cv2.line(kernel, (int(c - length * math.cos(ang)), int(c - length * math.sin(ang))),
                 (int(c + length * math.cos(ang)), int(c + length * math.sin(ang))), 1.0, 1)
        n = cv2.filter2D(n, -1, kernel / kernel.sum())
    n = cv2.resize(n, (w, h), interpolation=cv2.INTER_CUBIC)
    n = (n - n.mean()) / (n.std() + 1e-6)
    if rng.random() < 0.6:  # tufted rows
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        ang = rng.uniform(0, math.pi)
        v = -xx * math.sin(ang) + yy * math.cos(ang)
        n = n + rng.uniform(0.5, 1.5) * np.sin(v / rng.uniform(2, 8) * math.pi)
    fibres = 1 / (1 + np.exp(-rng.uniform(1.5, 5.0) * n))
    # each loop lit from one side: a bright rim above, a shadow below (the relief of the pile)
    dx, dy = rng.normal(0, 1, 2)
    relief = fibres - cv2.warpAffine(fibres, np.float32([[1, 0, dx * scale / 2], [0, 1, dy * scale / 2]]), (w, h),
                                     borderMode=cv2.BORDER_REFLECT)
    fibres = np.clip(fibres + rng.uniform(0.2, 0.8) * relief, 0, 1.2)
    if rng.random() < 0.7:  # greys, browns, beiges
        tone = np.float32([rng.uniform(0.75, 1.0), rng.uniform(0.85, 1.05), 1.0])
        dark = tone * rng.uniform(15, 90)
        light = tone * rng.uniform(110, 230)
    else:
        dark, light = _rand_colour(rng) * rng.uniform(0.15, 0.6), _rand_colour(rng) * rng.uniform(0.6, 1.1)
    return dark[None, None] + (light - dark)[None, None] * fibres[..., None]


def printed_pattern(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A patterned tablecloth or play mat: checks, stripes or polka dots (dots as large as pips)."""
    a, b = _rand_colour(rng), _rand_colour(rng)
    period = rng.uniform(6, 40)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, math.pi)
    u = xx * math.cos(ang) + yy * math.sin(ang)
    v = -xx * math.sin(ang) + yy * math.cos(ang)
    style = rng.choice(["checks", "stripes", "dots"])
    if style == "checks":
        t = ((np.floor(u / period) + np.floor(v / period)) % 2).astype(np.float32)
    elif style == "stripes":
        t = (np.sin(u / period * math.pi) > rng.uniform(-0.5, 0.5)).astype(np.float32)
    else:
        du = (u % period) - period / 2
        dv = (v % period) - period / 2
        t = (du**2 + dv**2 < (period * rng.uniform(0.15, 0.35)) ** 2).astype(np.float32)
    t = cv2.GaussianBlur(t, (0, 0), rng.uniform(0.5, 1.5))
    return a[None, None] + (b - a)[None, None] * t[..., None]


def illustrated_board(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A painted game board: regions of a palette with fine brush texture, printed borders, tokens and
    dots (real boards are busy illustrations, where a plain-table detector misses dice)."""
    palette = np.stack([_rand_colour(rng) for _ in range(int(rng.integers(3, 7)))]).astype(np.float32)
    fields = np.stack([_smooth_noise(rng, h, w, int(rng.integers(2, 7))) for _ in range(len(palette))])
    labels = fields.argmax(0)
    img = palette[labels]
    # painterly texture: warped stripes and speckle, a different grain per image
    grain = _smooth_noise(rng, h, w, int(rng.integers(20, 80))) - 0.5
    stripes = np.sin(np.mgrid[0:h, 0:w][int(rng.integers(2))].astype(np.float32) / rng.uniform(1.5, 6)
                     + _smooth_noise(rng, h, w, 12) * rng.uniform(4, 20))
    tex = rng.uniform(0.1, 0.35) * grain + rng.uniform(0, 0.12) * stripes
    img = img * (1 + tex[..., None])
    # brush marks: the small, high-contrast detail of drawn grass, trees and waves
    for _ in range(int(rng.integers(0, 400))):
        x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
        ang, length = rng.uniform(0, math.pi), rng.uniform(2, 12)
        col = tuple(float(c) for c in palette[labels[y, x]] * rng.uniform(0.4, 1.5))
        cv2.line(img, (x, y), (int(x + length * math.cos(ang)), int(y + length * math.sin(ang))), col,
                 int(rng.integers(1, 3)), cv2.LINE_AA)
    if rng.random() < 0.7:  # printed outlines of the regions (hexes, paths, fields)
        edges = cv2.Canny(labels.astype(np.uint8) * 40, 10, 30)
        edges = cv2.dilate(edges, np.ones((2, 2), np.uint8), iterations=int(rng.integers(1, 3)))
        line = np.float32(_rand_colour(rng) * rng.uniform(0.1, 1.0))
        img[edges > 0] = line
    _pip_distractors(rng, img, int(rng.integers(0, 8)))
    return img


def _finger(rng: np.random.Generator, img: np.ndarray, occl: np.ndarray, scale: float) -> None:
    h, w = img.shape[:2]
    skin = np.float32([rng.uniform(60, 170), rng.uniform(100, 190), rng.uniform(150, 240)])
    side = int(rng.integers(0, 4))
    x, y = rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h
    start = [(x, -20), (w + 20, y), (x, h + 20), (-20, y)][side]
    end = (x + rng.normal(0, w * 0.15), y + rng.normal(0, h * 0.15))
    thick = int(max(6, scale * rng.uniform(0.5, 1.0)))
    layer = np.zeros((h, w), np.float32)
    cv2.line(layer, (int(start[0]), int(start[1])), (int(end[0]), int(end[1])), 1.0, thick, cv2.LINE_AA)
    shaded = cv2.GaussianBlur(layer, (0, 0), thick / 4)
    col = skin[None, None] * (0.75 + 0.35 * shaded[..., None])
    img[:] = img * (1 - layer[..., None]) + col * layer[..., None]
    np.maximum(occl, layer, out=occl)


# ---------------------------------------------------------------- scenes
def random_kind_value(rng: np.random.Generator, kinds=("d6", "d8", "magpie"), weights=None):
    kind = str(rng.choice(kinds, p=weights))
    if kind == "d6":
        return kind, int(rng.integers(1, 7))
    if kind == "d8":
        return kind, int(rng.integers(1, 9))
    return kind, str(rng.choice(COLOUR_FACES))


def render_scene(rng: np.random.Generator, h: int = 384, w: int = 384, n_dice: int | None = None,
                 size_range=(15, 120), kinds=("d6", "d8", "magpie"), kind_weights=None,
                 allow_fingers: bool = True, effects: bool = True, blank_eight: float = 0.0,
                 backdrop: np.ndarray | None = None, material: Material | None = None,
                 upright: bool | None = None) -> Scene:
    """``backdrop`` (h x w x 3): the table to lay the dice on (a rendered game board, ``boards.backdrop``)
    instead of a drawn one; ``material``: every die of this one set of dice; ``upright``: the kind of camera
    (default: drawn)."""
    img = background(rng, h, w) if backdrop is None else backdrop.astype(np.float32)
    light = np.array([rng.normal(0, 0.5), rng.normal(0, 0.5), 1.0])
    light /= np.linalg.norm(light)
    # an upright camera leaning towards the table (a phone on a stand: little roll), or one looking
    # down from above in any orientation
    if upright is None:
        upright = bool(rng.random() < UPRIGHT_SHARE)
    if upright:
        view_tilt, roll = rng.uniform(0.2, 1.1), 0.0
    else:
        view_tilt, roll = abs(rng.normal(0, 0.2)), rng.uniform(0, 2 * math.pi)
    n = int(n_dice if n_dice is not None else rng.choice([1, 1, 2, 2, 3, 3, 4, 5, 6, 8, 10, 14, 20, 25]))
    lo, hi = size_range
    # one scene has one typical die size (one camera distance), with a spread
    typical = math.exp(rng.uniform(math.log(lo), math.log(hi)))
    same_set = rng.random() < 0.5
    shared_m = random_material(rng)
    owners = np.full((h, w), -1, np.int32)
    top_masks: list[tuple[int, int, np.ndarray]] = []
    dice: list[DieInScene] = []
    placed: list[tuple[float, float, float]] = []
    cluster = rng.random() < 0.3
    ccx, ccy = rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h
    for _ in range(n):
        kind, value = random_kind_value(rng, kinds, kind_weights)
        size = float(np.clip(typical * rng.uniform(0.8, 1.25), lo, hi)) / (1.6 if kind == "d6" else 1.9)
        m = material if material is not None else shared_m if same_set and kind == "d6" else None
        tilt = abs(rng.normal(0, 0.12)) if rng.random() < 0.3 else 0.0
        info: dict = {}
        die_roll = roll + rng.normal(0, 0.15) if upright else roll
        out = render_die(rng, kind, value, size, view_tilt + rng.normal(0, 0.05), light, m, tilt, info, die_roll,
                         blank_eight)
        if out is None:
            continue
        sprite, top = out
        sh, sw = sprite.shape[:2]
        if sh >= h - 2 or sw >= w - 2:
            continue
        for _attempt in range(30):
            if cluster:
                cx = ccx + rng.normal(0, sw * 1.2)
                cy = ccy + rng.normal(0, sh * 1.2)
            else:
                cx, cy = rng.uniform(0, w), rng.uniform(0, h)
            x0, y0 = int(cx - sw / 2), int(cy - sh / 2)
            if x0 < -sw * 0.3 or y0 < -sh * 0.3 or x0 + sw > w + sw * 0.3 or y0 + sh > h + sh * 0.3:
                continue
            r = max(sw, sh) / 2
            if all(math.hypot(cx - px, cy - py) > (r + pr) * rng.uniform(0.6, 0.95) for px, py, pr in placed):
                break
        else:
            continue
        placed.append((cx, cy, max(sw, sh) / 2))
        # crop to the image
        sx0, sy0 = max(0, -x0), max(0, -y0)
        sx1, sy1 = min(sw, w - x0), min(sh, h - y0)
        spr = sprite[sy0:sy1, sx0:sx1]
        tm = top[sy0:sy1, sx0:sx1]
        X0, Y0 = x0 + sx0, y0 + sy0
        region = img[Y0:Y0 + spr.shape[0], X0:X0 + spr.shape[1]]
        a = spr[..., 3:4]
        # shadow
        off = (-light[:2] / max(light[2], 0.3) * size * rng.uniform(0.15, 0.4)).astype(int)
        shadow = np.zeros((h, w), np.float32)
        sil = (sprite[..., 3] > 0.02).astype(np.float32)
        sx, sy = x0 + off[0], y0 - off[1]
        _paste_max(shadow, sil, sx, sy)
        shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, size * 0.12))
        img *= (1 - shadow * rng.uniform(0.2, 0.5))[..., None]
        region = img[Y0:Y0 + spr.shape[0], X0:X0 + spr.shape[1]]
        # translucent bodies tint what is behind them
        behind = region * (0.4 + 0.6 * spr[..., :3] / 255.0)
        mixed = np.where(a >= 0.999, spr[..., :3], spr[..., :3] * a + behind * (1 - a))
        cover = np.clip(sprite[sy0:sy1, sx0:sx1, 3:4] * 4, 0, 1)
        img[Y0:Y0 + spr.shape[0], X0:X0 + spr.shape[1]] = region * (1 - cover) + mixed * cover
        owners[Y0:Y0 + spr.shape[0], X0:X0 + spr.shape[1]][cover[..., 0] > 0.5] = len(dice)
        top_masks.append((X0, Y0, tm, float((top > 0.5).sum()), info["top_margin"], info["top_cos"]))
        bx0, by0 = max(0, x0), max(0, y0)
        bx1, by1 = min(w, x0 + sw), min(h, y0 + sh)
        dice.append(DieInScene(kind, value, (bx0, by0, bx1 - bx0, by1 - by0)))
    occl = np.zeros((h, w), np.float32)
    if allow_fingers and rng.random() < 0.15:
        for _ in range(int(rng.integers(1, 4))):
            _finger(rng, img, occl, typical)
    for i, (d, (X0, Y0, tm, full_area, margin, top_cos)) in enumerate(zip(dice, top_masks, strict=True)):
        th, tw = tm.shape
        own = owners[Y0:Y0 + th, X0:X0 + tw] == i
        free = own & (occl[Y0:Y0 + th, X0:X0 + tw] < 0.5)
        # share of the whole top face (including any part outside the image) still seen
        d.top_visible = float(((tm > 0.5) & free).sum()) / max(1.0, full_area)
        d.top_margin, d.top_cos, d.upright = margin, top_cos, upright
        d.label = class_index(d.kind, d.value) if is_readable(d) else class_index("none", None)
    if effects:
        img = photo_effects(rng, img)
    return Scene(np.clip(img, 0, 255).astype(np.uint8), dice)


def is_readable(d: DieInScene) -> bool:
    """The upward face is mostly in view and can be told from the others: for an upright camera, it is
    the face at the top of the die's image and must not be nearly edge-on; for one looking down in any
    orientation, it must be clearly the face that looks at the camera (a d8 seen from 35 degrees shows
    a side face as squarely as its top face)."""
    if d.top_visible <= 0.8:
        return False
    return d.top_cos > MIN_TOP_COS if d.upright else d.top_margin > TOP_MARGIN


def _paste_max(dst: np.ndarray, src: np.ndarray, x: int, y: int) -> None:
    window = sprite_window(dst.shape, src.shape, x, y)
    if window is not None:
        at, part = window
        np.maximum(dst[at], src[part], out=dst[at])


def photo_effects(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    h, w = img.shape[:2]
    # lighting gradient and vignette
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    g = 1 + rng.uniform(-0.35, 0.35) * (xx / w - 0.5) + rng.uniform(-0.35, 0.35) * (yy / h - 0.5)
    img = img * g[..., None]
    # specular blobs (lamp reflections)
    for _ in range(int(rng.poisson(0.7))):
        layer = np.zeros((h, w), np.float32)
        cv2.circle(layer, (int(rng.integers(0, w)), int(rng.integers(0, h))), int(rng.integers(2, 8)), 1.0, -1)
        layer = cv2.GaussianBlur(layer, (0, 0), 2)
        img = img + layer[..., None] * rng.uniform(80, 200)
    # white balance, exposure, gamma
    img = img * rng.uniform(0.85, 1.15, 3).astype(np.float32) * rng.uniform(0.6, 1.3)
    img = np.clip(img, 0, 255)
    img = 255 * (img / 255) ** rng.uniform(0.7, 1.4)
    r = rng.random()
    if r < 0.15:  # motion blur
        k = int(rng.integers(3, 9))
        ker = np.zeros((k, k), np.float32)
        ang = rng.uniform(0, math.pi)
        c = (k - 1) / 2
        cv2.line(ker, (int(c - c * math.cos(ang)), int(c - c * math.sin(ang))),
                 (int(c + c * math.cos(ang)), int(c + c * math.sin(ang))), 1.0, 1)
        img = cv2.filter2D(img, -1, ker / max(ker.sum(), 1))
    elif r < 0.45:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 1.3))
    img = img + rng.normal(0, rng.uniform(0, 8), img.shape).astype(np.float32)
    if rng.random() < 0.1:  # salt and pepper (as in some public sets)
        m = rng.random((h, w)) < rng.uniform(0.002, 0.02)
        img[m] = rng.choice([0, 255], size=(int(m.sum()), 1))
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.7:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 96))])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if rng.random() < 0.1:  # washed-out grey camera
        g = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        img = cv2.cvtColor(g, cv2.COLOR_GRAY2BGR)
    return img.astype(np.float32)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    out = Path(argv[0] if argv else "synth-samples")
    n = int(argv[1]) if len(argv) > 1 else 8
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    for i in range(n):
        s = render_scene(rng, 480, 640)
        img = s.image.copy()
        for d in s.dice:
            x, y, bw, bh = d.box
            cv2.rectangle(img, (x, y), (x + bw, y + bh), (0, 0, 255), 1)
            cv2.putText(img, f"{d.value}{'' if d.top_visible > 0.8 else '?'}", (x, y - 2), 0, 0.45, (0, 0, 255), 1)
        cv2.imwrite(str(out / f"scene_{i:03d}.png"), img)
    return 0


if __name__ == "__main__":
    sys.exit(main())
