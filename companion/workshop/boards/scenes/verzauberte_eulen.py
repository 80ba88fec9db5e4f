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
from companion.workshop.boards.synth_table import Scene, random_scene

NOTCHES = {"red": 1, "blue": 2, "green": 3, "yellow": 4, "black": 0}
HEAD_SHAPE = {"red": "circle", "blue": "square", "green": "star", "yellow": "hexagon", "black": "circle"}
CAMERA = {"fill": (0.75, 0.95), "max_rotation_deg": 25.0, "perspective": 0.12}  # the board framed by the user (as Eagle Kingdoms)

Paint = Callable[[np.ndarray, Callable[[np.ndarray], np.ndarray]], None]


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


def painter(
    board: BoardMap, scene: Mapping[str, list[Any]], rng: np.random.Generator, config: Mapping[str, Any] | None = None
) -> tuple[Paint, Truth]:
    """(paint callback, ground truth) for ``scene`` on the Verzauberte Eulen board map."""
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

    def paint(tex: np.ndarray, to_px: Callable[[np.ndarray], np.ndarray]) -> None:
        for at, head, body, angle in owls:
            draw_owl(tex, to_px, at, head, body, angle, cfg)

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
    **camera_kw: Any,
) -> tuple[Scene, Truth]:
    """A camera frame of ``scene`` (random camera, light, noise, blur, as ``synth_table.random_scene``)."""
    paint, truth = painter(board, scene, rng, config)
    frame = random_scene(
        board,
        rng,
        size,
        hand_at_mm=hand_at_mm,
        gain=gain,
        paint=paint,
        **CAMERA, **camera_kw,
    )
    return frame, truth
