"""Verzauberte Eulen scenes: the board with its two-part owls, as a camera sees it.

A *scene description* is region id (the engine's space ids) -> visible owls, each
``{"owl": {"head": colour, "body": colour}}`` with colours red, blue, green, yellow, black.

An owl seen from above (``docs/vision-notes.md``): the body is a 12 mm disc of its
colour with 0-4 light notches in the rim (red 1, blue 2, green 3, yellow 4, black none); the head is
a shape of its colour inside a light collar (red circle, blue square, green star, yellow hexagon,
black circle), so neither part relies on colour alone. Owls stand on the spots of
:func:`companion.vision.readers.verzauberte_eulen.owl_spots`, put down by hand (up to 1.5 mm off,
turned at random).

:func:`painter` returns a ``paint`` callback for :mod:`companion.workshop.boards.synth_table`; :func:`render`
makes a 1280x720 camera frame with a random camera and returns it with its ground truth.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from companion.vision.boardmap import BoardMap
from companion.vision.readers.discs import load_config
from companion.vision.readers.verzauberte_eulen import CONFIG_NAME, owl_spots
from companion.workshop.boards.scenes import art
from companion.workshop.boards.synth_table import Scene, random_scene

NOTCHES = {"red": 1, "blue": 2, "green": 3, "yellow": 4, "black": 0}
HEAD_SHAPE = {"red": "circle", "blue": "square", "green": "star", "yellow": "hexagon", "black": "circle"}
CAMERA = {"fill": (0.75, 0.95), "max_rotation_deg": 25.0, "perspective": 0.12}  # the board framed by the user (as Eagle Kingdoms)

Paint = Callable[[np.ndarray, Callable[[np.ndarray], np.ndarray]], None]

# The second rendition: a forest printed on the board, the path spaces as stepping stones, the nests as
# woven nests, the cave as a ruin; wooden owls painted in other shades, their wood showing at the rim,
# dots instead of notches, eyes on the heads.
PALETTE2_BGR = {"red": (40, 60, 205), "blue": (150, 75, 35), "green": (55, 135, 70), "yellow": (35, 175, 225), "black": (38, 36, 40)}
FOREST2_BGR = ((40, 80, 45), (55, 110, 70), (35, 70, 90), (70, 120, 100), (45, 95, 60))
STONE2_BGR = (150, 175, 185)
NEST2_BGR = (60, 100, 140)
RUIN2_BGR = (130, 135, 140)
WOOD2_BGR = (110, 160, 205)


@dataclass(frozen=True)
class Truth:
    scene: dict[str, list[Any]]
    owl_centres_mm: dict[str, list[tuple[float, float]]]


def shape(kind: str, radius: float, angle: float) -> np.ndarray:
    """Outline (N, 2) in mm around the origin: circle, square, star or hexagon of circumradius ``radius``."""
    if kind == "circle":
        t = np.linspace(0, 2 * np.pi, 36, endpoint=False)
        return radius * np.c_[np.cos(t), np.sin(t)]
    if kind == "square":
        n, radii = 4, [radius]
    elif kind == "hexagon":
        n, radii = 6, [radius]
    elif kind == "star":
        n, radii = 10, [radius, radius * 0.64]
    else:
        raise ValueError(f"unknown head shape {kind!r}")
    t = angle + 2 * np.pi * np.arange(n) / n
    r = np.array([radii[k % len(radii)] for k in range(n)])
    return np.c_[r * np.cos(t), r * np.sin(t)]


def _fill(tex: np.ndarray, to_px: Callable[[np.ndarray], np.ndarray], pts_mm: np.ndarray, bgr) -> None:
    px = np.round(to_px(pts_mm) * 16).astype(np.int32)
    cv2.fillPoly(tex, [px], tuple(int(c) for c in bgr), cv2.LINE_AA, shift=4)


def draw_owl(
    tex: np.ndarray,
    to_px: Callable[[np.ndarray], np.ndarray],
    centre_mm: tuple[float, float],
    head: str,
    body: str,
    angle: float,
    cfg: Mapping[str, Any],
) -> None:
    """One owl seen from above, drawn on the flat board texture."""
    owl, palette, paint = cfg["owl"], cfg["palette_bgr"], cfg["paint"]
    c = np.asarray(centre_mm, np.float64)
    r_body, r_head, collar = float(owl["radius_mm"]), float(owl["head_radius_mm"]), float(owl["collar_mm"])
    _fill(tex, to_px, c + shape("circle", r_body, 0.0), palette[body])
    r0, r1 = (float(v) for v in owl["ticks_mm"])
    half = float(owl["tick_width_mm"]) / 2
    for k in range(NOTCHES[body]):
        a = angle + 2 * np.pi * k / max(NOTCHES[body], 1)
        u, v = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
        quad = np.array([u * r0 - v * half, u * (r1 + 0.5) - v * half, u * (r1 + 0.5) + v * half, u * r0 + v * half])
        _fill(tex, to_px, c + quad, paint["collar_bgr"])
    kind = HEAD_SHAPE[head]
    size = r_head if kind == "circle" else r_head * (1.08 if kind != "star" else 1.1)
    _fill(tex, to_px, c + shape(kind, size + collar, angle), paint["collar_bgr"])
    _fill(tex, to_px, c + shape(kind, size, angle), palette[head])


def draw_owl2(tex: np.ndarray, to_px: Callable[[np.ndarray], np.ndarray], centre_mm: tuple[float, float],
              head: str, body: str, angle: float, cfg: Mapping[str, Any]) -> None:
    """One owl of the second rendition seen from above: painted wood, dots for the body's colour, eyes."""
    owl = cfg["owl"]
    c = np.asarray(centre_mm, np.float64)
    r_body, r_head = float(owl["radius_mm"]), float(owl["head_radius_mm"])
    art.fill_poly(tex, to_px, art.circle(c, r_body), WOOD2_BGR)
    art.fill_poly(tex, to_px, art.circle(c, r_body - 1.3), PALETTE2_BGR[body])
    for k in range(NOTCHES[body]):
        a = angle + 2 * np.pi * k / max(NOTCHES[body], 1) + 0.4
        art.fill_poly(tex, to_px, art.circle(c + 9.6 * np.array([np.cos(a), np.sin(a)]), 0.8, 12), (235, 238, 240))
    art.fill_poly(tex, to_px, art.circle(c, r_head + 0.6), (30, 30, 30))
    art.fill_poly(tex, to_px, art.circle(c, r_head), PALETTE2_BGR[head])
    u = np.array([np.cos(angle), np.sin(angle)])
    v = np.array([-u[1], u[0]])
    for side in (-1, 1):
        eye = c + 2.6 * v * side + 1.2 * u
        art.fill_poly(tex, to_px, art.circle(eye, 1.25, 14), (240, 240, 240))
        art.fill_poly(tex, to_px, art.circle(eye, 0.6, 10), (20, 20, 20))
    art.fill_poly(tex, to_px, np.array([c - 0.7 * v - 0.4 * u, c + 0.7 * v - 0.4 * u, c - 1.8 * u]), (30, 120, 200))


def paint_board2(tex: np.ndarray, to_px: Callable[[np.ndarray], np.ndarray], board: BoardMap, rng: np.random.Generator) -> None:
    """The second rendition's printed board: forest, stone paths, nests and the ruin."""
    s = art.px_per_mm(to_px)
    mask = art.board_mask(tex.shape, board, to_px)
    keep = art.marker_zones(tex.shape, board, to_px)
    forest = art.illustration(tex.shape[:2], rng, s, FOREST2_BGR, strokes=900)
    art.blend(tex, forest, cv2.bitwise_and(mask, cv2.bitwise_not(keep)))
    centres = {r.id: np.asarray(r.center_mm, np.float64) for r in board.regions}
    for a, b in board.edges:  # the trail between spaces
        pa, pb = to_px(np.array([centres[a], centres[b]]))
        cv2.line(tex, tuple(np.round(pa * 16).astype(int)), tuple(np.round(pb * 16).astype(int)), (95, 130, 150),
                 max(1, round(14 * s)), cv2.LINE_AA, shift=4)
    for r in board.regions:
        c = centres[r.id]
        shade = np.asarray(STONE2_BGR) * rng.uniform(0.9, 1.08)
        if r.kind == "nest":
            art.fill_poly(tex, to_px, art.circle(c, 30.0), NEST2_BGR)
            art.fill_poly(tex, to_px, art.circle(c, 25.0), np.asarray(NEST2_BGR) * 1.35)
            for _k in range(40):
                a = rng.uniform(0, 2 * np.pi)
                p = c + rng.uniform(25, 30) * np.array([np.cos(a), np.sin(a)])
                art.fill_poly(tex, to_px, art.circle(p, 1.2, 8), np.asarray(NEST2_BGR) * 0.7)
        elif r.kind == "cave":
            art.fill_poly(tex, to_px, np.asarray(r.polygon_mm, np.float64), RUIN2_BGR)
            for _k in range(25):
                p = c + rng.uniform(-70, 70, 2)
                if r.contains(*p):
                    art.fill_poly(tex, to_px, art.circle(p, rng.uniform(2, 5), 10), np.asarray(RUIN2_BGR) * rng.uniform(0.8, 1.1))
        elif r.polygon_mm is not None:
            x0, y0, x1, y1 = r.bounds_mm()
            rad = min(x1 - x0, y1 - y0) / 2
            pts = np.asarray(r.polygon_mm, np.float64)
            art.fill_poly(tex, to_px, c + (pts - c) * 0.96, np.asarray(shade) * 0.8)
            art.fill_poly(tex, to_px, c + (pts - c) * 0.9, shade)
            art.fill_poly(tex, to_px, art.circle(c + rng.uniform(-rad / 2, rad / 2, 2), 2.0, 10), np.asarray(shade) * 0.85)


def painter(
    board: BoardMap, scene: Mapping[str, list[Any]], rng: np.random.Generator, config: Mapping[str, Any] | None = None,
    rendition: int = 1,
) -> tuple[Paint, Truth]:
    """(paint callback, ground truth) for ``scene`` on the Verzauberte Eulen board map, drawn in
    ``rendition`` 1 (flat) or 2 (printed art, painted wooden owls)."""
    art.check_rendition(rendition)
    cfg = load_config(CONFIG_NAME, config)
    spots: dict[str, list[tuple[float, float]]] = {}
    for sp in owl_spots(board, cfg["spots"]):
        spots.setdefault(sp.region, []).append((sp.x, sp.y))
    jitter = float(cfg["paint"]["jitter_mm"])
    owls: list[tuple[tuple[float, float], str, str, float]] = []
    centres: dict[str, list[tuple[float, float]]] = {}
    truth: dict[str, list[Any]] = {}
    for region, pieces in scene.items():
        pieces = [p for p in pieces or [] if isinstance(p, Mapping) and "owl" in p]
        if not pieces:
            continue
        if region not in spots:
            raise ValueError(f"no region {region!r} on the board map {board.game!r}")
        if len(pieces) > len(spots[region]):
            raise ValueError(f"{region} has room for {len(spots[region])} owls, the scene puts {len(pieces)} there")
        for p, (x, y) in zip(pieces, spots[region], strict=False):
            head, body = p["owl"]["head"], p["owl"]["body"]
            if head not in NOTCHES or body not in NOTCHES:
                raise ValueError(f"unknown owl colours {p['owl']!r} on {region}")
            r, a = jitter * np.sqrt(rng.uniform()), rng.uniform(0, 2 * np.pi)
            at = (x + r * np.cos(a), y + r * np.sin(a))
            owls.append((at, head, body, float(rng.uniform(0, 2 * np.pi))))
            centres.setdefault(region, []).append(at)
            truth.setdefault(region, []).append({"owl": {"head": head, "body": body}})
    for pieces in truth.values():
        pieces.sort(key=lambda p: (p["owl"]["body"], p["owl"]["head"]))

    if rendition == 2:
        rng.integers(2**31)  # (the draw keeps the scenes' cameras as they were when each scene had its own print)
    art_seed = art.BOX_SEED  # one box: its print is the same in every scene

    def paint(tex: np.ndarray, to_px: Callable[[np.ndarray], np.ndarray]) -> None:
        if rendition == 2:
            paint_board2(tex, to_px, board, np.random.default_rng(art_seed))
        for at, head, body, angle in owls:
            (draw_owl2 if rendition == 2 else draw_owl)(tex, to_px, at, head, body, angle, cfg)

    return paint, Truth(truth, centres)


def render(
    board: BoardMap,
    scene: Mapping[str, list[Any]],
    rng: np.random.Generator,
    size: tuple[int, int] = (1280, 720),
    *,
    hand_at_mm: tuple[float, float] | None = None,
    gain: float | None = None,
    config: Mapping[str, Any] | None = None,
    rendition: int = 1,
    **camera_kw: Any,
) -> tuple[Scene, Truth]:
    """A camera frame of ``scene`` in ``rendition`` 1 or 2 (random camera, light, noise, blur, as
    ``synth_table.random_scene``)."""
    paint, truth = painter(board, scene, rng, config, rendition)
    frame = random_scene(
        board,
        rng,
        size,
        hand_at_mm=hand_at_mm,
        gain=gain,
        paint=paint,
        rendition=rendition,
        **CAMERA, **camera_kw,
    )
    return frame, truth
