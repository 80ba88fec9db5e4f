"""Mighty Magpies scenes: the nests with their magpies and tiles as a camera sees them, and pictures
of a player's stolen tiles lying on the table (for the tile scan).

A *scene description* is nest id (``R``, ``A``-``G``) -> visible pieces, ``{"magpie": colour}``
(red, blue, green, yellow) and ``{"tile": "berry" | "silver" | "gold"}``.

Looks (``docs/vision-notes.md``): a magpie is a 9.5 mm disc of its player's colour with
a black bird and its white wing on it; a tile is a 7.5 mm disc, a berry sticker solid purple-red
with two light glints, a ring sticker a silver or gold ring round a 3.5 mm hole where the wood shows.
Pieces stand on the spots of :func:`companion.vision.readers.mighty_magpies.nest_spots`, up to 1 mm
off and turned at random.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from companion.vision.boardmap import BoardMap
from companion.vision.readers.discs import load_config
from companion.vision.readers.mighty_magpies import CONFIG_NAME, MAGPIE_COLOURS, TILE_KINDS, nest_spots
from companion.workshop.boards.scenes import art
from companion.workshop.boards.scenes.verzauberte_eulen import Paint, shape
from companion.workshop.boards.synth_table import Scene, _table, random_scene

CAMERA = {"fill": (0.75, 0.95), "max_rotation_deg": 25.0, "perspective": 0.12}  # the board framed by the user
WOOD_BGR = (120, 175, 215)  # a tile's bare wood, seen through a ring's hole
# The second rendition: a meadow with trees printed on the board, the routes as coloured trails, the
# nests as woven twigs; magpies as painted birds on a base of their player's colour; stickers drawn
# otherwise (a berry with its leaf, rings on white) on tiles whose wood shows at the rim.
MAGPIE2_BGR = {"red": (45, 45, 185), "blue": (170, 100, 45), "green": (70, 150, 60), "yellow": (45, 195, 230)}
BERRY2_BGR = (75, 30, 150)
RING2_BGR = {"silver": (175, 170, 165), "gold": (45, 170, 220)}
MEADOW2_BGR = ((80, 150, 120), (60, 135, 110), (95, 165, 150), (70, 120, 100))
ROUTE2_BGR = {"red": (60, 60, 200), "blue": (180, 110, 50), "green": (60, 160, 70), "yellow": (50, 200, 230)}
NESTS2_BGR = (55, 95, 130)


@dataclass(frozen=True)
class Truth:
    scene: dict[str, list[Any]]


def _fill(tex: np.ndarray, to_px: Callable[[np.ndarray], np.ndarray], pts_mm: np.ndarray, bgr) -> None:
    px = np.round(to_px(pts_mm) * 16).astype(np.int32)
    cv2.fillPoly(tex, [px], tuple(int(c) for c in bgr), cv2.LINE_AA, shift=4)


def _ellipse(a: float, b: float, angle: float, n: int = 28) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    pts = np.c_[a * np.cos(t), b * np.sin(t)]
    R = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    return pts @ R.T


def draw_magpie(tex, to_px, centre_mm, colour: str, angle: float, cfg: Mapping[str, Any]) -> None:
    pal, m = cfg["palette_bgr"], cfg["magpie"]
    c = np.asarray(centre_mm, np.float64)
    _fill(tex, to_px, c + shape("circle", float(m["radius_mm"]), 0.0), pal[colour])
    a, b = (float(v) for v in m["bird_mm"])
    _fill(tex, to_px, c + _ellipse(a, b, angle), pal["bird"])
    u = np.array([np.cos(angle), np.sin(angle)])
    _fill(tex, to_px, c + 0.8 * u + _ellipse(a * 0.45, b * 0.45, angle), pal["belly"])
    _fill(tex, to_px, c - (a + 0.8) * u + shape("circle", 1.8, 0.0), pal["bird"])  # the head


def draw_tile(tex, to_px, centre_mm, kind: str, angle: float, cfg: Mapping[str, Any]) -> None:
    pal, t = cfg["palette_bgr"], cfg["tile"]
    c = np.asarray(centre_mm, np.float64)
    r, hole = float(t["radius_mm"]), float(t["hole_mm"])
    if kind == "berry":
        _fill(tex, to_px, c + shape("circle", r, 0.0), pal["berry"])
        for k in (0, 1):
            g = angle + k * 0.9
            _fill(tex, to_px, c + 3.2 * np.array([np.cos(g), np.sin(g)]) + shape("circle", 0.9, 0.0), (225, 215, 235))
    elif kind in ("silver", "gold"):
        _fill(tex, to_px, c + shape("circle", r, 0.0), pal[kind])
        _fill(tex, to_px, c + shape("circle", hole, 0.0), WOOD_BGR)
    else:
        raise ValueError(f"unknown tile {kind!r}")


def draw_magpie2(tex, to_px, centre_mm, colour: str, angle: float, cfg: Mapping[str, Any]) -> None:
    m = cfg["magpie"]
    c = np.asarray(centre_mm, np.float64)
    art.fill_poly(tex, to_px, art.circle(c, float(m["radius_mm"]) + 0.5), (30, 30, 35))
    art.fill_poly(tex, to_px, art.circle(c, float(m["radius_mm"])), MAGPIE2_BGR[colour])
    u = np.array([np.cos(angle), np.sin(angle)])
    art.fill_poly(tex, to_px, c + _ellipse(6.8, 3.8, angle), (25, 25, 28))
    art.fill_poly(tex, to_px, c - 1.0 * u + _ellipse(3.5, 2.0, angle), (240, 240, 240))
    art.fill_poly(tex, to_px, c + 8.0 * u + _ellipse(2.2, 0.8, angle), (25, 25, 28))  # the tail
    art.fill_poly(tex, to_px, c - 6.3 * u + art.circle((0, 0), 1.7, 12), (25, 25, 28))


def draw_tile2(tex, to_px, centre_mm, kind: str, angle: float, cfg: Mapping[str, Any]) -> None:
    t = cfg["tile"]
    c = np.asarray(centre_mm, np.float64)
    r, hole = float(t["radius_mm"]), float(t["hole_mm"])
    art.fill_poly(tex, to_px, art.circle(c, r), WOOD_BGR)
    if kind == "berry":
        art.fill_poly(tex, to_px, art.circle(c, r - 0.8), (230, 235, 238))
        art.fill_poly(tex, to_px, art.circle(c, r - 1.5), BERRY2_BGR)
        u = np.array([np.cos(angle), np.sin(angle)])
        art.fill_poly(tex, to_px, c + 4.0 * u + _ellipse(2.2, 1.0, angle), (50, 140, 60))  # the leaf
        art.fill_poly(tex, to_px, c - 2.0 * u + art.circle((0, 0), 0.8, 10), (210, 200, 230))
    elif kind in RING2_BGR:
        art.fill_poly(tex, to_px, art.circle(c, r - 0.8), (230, 235, 238))
        art.fill_poly(tex, to_px, art.circle(c, r - 1.6), RING2_BGR[kind])
        art.fill_poly(tex, to_px, art.circle(c, hole), (230, 235, 238))
    else:
        raise ValueError(f"unknown tile {kind!r}")


def paint_board2(tex: np.ndarray, to_px, board: BoardMap, rng: np.random.Generator) -> None:
    """The second rendition's printed board: a meadow, coloured trails between woven nests."""
    from companion.referee.mighty_magpies_map import mighty_magpies_map

    s = art.px_per_mm(to_px)
    mask = art.board_mask(tex.shape, board, to_px)
    keep = art.marker_zones(tex.shape, board, to_px)
    meadow = art.illustration(tex.shape[:2], rng, s, MEADOW2_BGR, strokes=700, stroke_mm=(2.0, 8.0))
    art.blend(tex, meadow, cv2.bitwise_and(mask, cv2.bitwise_not(keep)))
    centres = {r.id: np.asarray(r.center_mm, np.float64) for r in board.regions}
    routes = mighty_magpies_map()["routes"]
    pairs = [tuple(sorted(r["ends"])) for r in routes]
    for k, route in enumerate(routes):
        a, b = pairs[k]
        pa, pb = centres[a], centres[b]
        n = np.array([-(pb - pa)[1], (pb - pa)[0]]) / max(float(np.linalg.norm(pb - pa)), 1e-6)
        same = [j for j, p in enumerate(pairs) if p == pairs[k]]
        off = n * 8.0 * (same.index(k) - (len(same) - 1) / 2)  # parallel routes between one pair of nests
        q = to_px(np.array([pa + off, pb + off]))
        cv2.line(tex, tuple(np.round(q[0] * 16).astype(int)), tuple(np.round(q[1] * 16).astype(int)),
                 ROUTE2_BGR.get(route["colour"], (90, 90, 90)), max(1, round(6 * s)), cv2.LINE_AA, shift=4)
    for r in board.regions:
        c = centres[r.id]
        art.fill_poly(tex, to_px, art.circle(c, float(r.radius_mm or 38) - 2), NESTS2_BGR)
        art.fill_poly(tex, to_px, art.circle(c, 20.0), np.asarray(NESTS2_BGR) * 1.5)
        for _ in range(60):
            a = rng.uniform(0, 2 * np.pi)
            p = c + rng.uniform(21, float(r.radius_mm or 38) - 3) * np.array([np.cos(a), np.sin(a)])
            art.fill_poly(tex, to_px, p + _ellipse(rng.uniform(2, 4), 0.5, rng.uniform(0, np.pi), 10), np.asarray(NESTS2_BGR) * 0.65)


def painter(
    board: BoardMap, scene: Mapping[str, list[Any]], rng: np.random.Generator, config: Mapping[str, Any] | None = None,
    rendition: int = 1,
) -> tuple[Paint, Truth]:
    """(paint callback, ground truth) for ``scene`` on the Mighty Magpies board map, in ``rendition``
    1 (flat) or 2 (printed art, other pieces)."""
    art.check_rendition(rendition)
    cfg = load_config(CONFIG_NAME, config)
    free: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for sp in nest_spots(board, cfg["spots"]):
        free.setdefault((sp.region, sp.kind), []).append((sp.x, sp.y))
    items, truth = _placed_pieces(scene, free, float(cfg["paint"]["jitter_mm"]), rng)

    if rendition == 2:
        rng.integers(2**31)  # (the draw keeps the scenes' cameras as they were when each scene had its own print)
    art_seed = art.BOX_SEED  # one box: its print is the same in every scene

    def paint(tex: np.ndarray, to_px: Callable[[np.ndarray], np.ndarray]) -> None:
        if rendition == 2:
            paint_board2(tex, to_px, board, np.random.default_rng(art_seed))
            for kind, what, at, angle in items:
                (draw_magpie2 if kind == "magpie" else draw_tile2)(tex, to_px, at, what, angle, cfg)
            return
        for kind, what, at, angle in items:
            (draw_magpie if kind == "magpie" else draw_tile)(tex, to_px, at, what, angle, cfg)

    return paint, Truth(truth)


def _placed_pieces(
    scene: Mapping[str, list[Any]], free: Mapping[tuple[str, str], list[tuple[float, float]]], jitter: float,
    rng: np.random.Generator,
) -> tuple[list[tuple[str, str, tuple[float, float], float]], dict[str, list[Any]]]:
    """Each piece of ``scene`` on the next free spot of its nest (``free``: by (nest, kind)), jittered and
    turned: (kind, what, centre mm, angle) each, and the ground truth by nest."""
    items: list[tuple[str, str, tuple[float, float], float]] = []
    truth: dict[str, list[Any]] = {}
    for region, pieces in scene.items():
        used = {"tile": 0, "magpie": 0}
        for p in pieces or []:
            kind, what = _piece_of(p, region)
            spots = free.get((region, kind))
            if spots is None:
                raise ValueError(f"no nest {region!r} on the board map")
            if used[kind] >= len(spots):
                raise ValueError(f"nest {region} has room for {len(spots)} {kind}s")
            x, y = spots[used[kind]]
            used[kind] += 1
            rr, a = jitter * np.sqrt(rng.uniform()), rng.uniform(0, 2 * np.pi)
            items.append((kind, what, (x + rr * np.cos(a), y + rr * np.sin(a)), float(rng.uniform(0, 2 * np.pi))))
            truth.setdefault(region, []).append({kind: what})
    for pieces in truth.values():
        pieces.sort(key=lambda p: sorted(p.items()))
    return items, truth


def _piece_of(p: Any, region: str) -> tuple[str, str]:
    """(kind, what) of a scene's piece: ("magpie", colour) or ("tile", kind); ValueError for anything else."""
    if "magpie" in p:
        if p["magpie"] not in MAGPIE_COLOURS:
            raise ValueError(f"unknown magpie colour {p['magpie']!r}")
        return "magpie", p["magpie"]
    if "tile" in p:
        if p["tile"] not in TILE_KINDS:
            raise ValueError(f"unknown tile {p['tile']!r}")
        return "tile", p["tile"]
    raise ValueError(f"unknown piece {p!r} in {region}")


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


# -- stolen tiles on the table -------------------------------------------------------------------------


def render_tiles(
    tiles: Mapping[str, int],
    rng: np.random.Generator,
    size: tuple[int, int] = (1280, 720),
    *,
    touching: bool = False,
    config: Mapping[str, Any] | None = None,
) -> np.ndarray:
    """A photo of loose tiles on a wooden table, seen from above-ish (tiles 28-60 px across, apart
    unless ``touching``), random light, noise and blur. ``tiles``: kind -> count."""
    cfg = load_config(CONFIG_NAME, config)
    W, H = size
    image = _table(rng, W, H)
    px_per_mm = rng.uniform(1.9, 4.0)
    r_px = float(cfg["tile"]["radius_mm"]) * px_per_mm
    squash = rng.uniform(0.8, 1.0)  # a slightly tilted camera sees ellipses
    kinds = [k for k in TILE_KINDS for _ in range(int(tiles.get(k, 0)))]
    rng.shuffle(kinds)
    placed: list[np.ndarray] = []
    for n, kind in enumerate(kinds):
        for _ in range(500):
            if touching and n == 1 and placed:
                p = placed[0] + 2 * r_px * np.array([1.0, 0.0])
            else:
                p = np.array([rng.uniform(r_px + 10, W - r_px - 10), rng.uniform(r_px + 10, H - r_px - 10)])
            if touching and n == 1 or all(np.linalg.norm(p - q) > 2.6 * r_px for q in placed):
                break
        placed.append(p)

        def to_px(pts_mm: np.ndarray, p=p) -> np.ndarray:
            pts = np.asarray(pts_mm, np.float64) * px_per_mm
            return np.c_[p[0] + pts[:, 0], p[1] + squash * pts[:, 1]]

        draw_tile(image, to_px, (0.0, 0.0), kind, float(rng.uniform(0, 2 * np.pi)), cfg)
    img = image.astype(np.float32)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    d = rng.uniform(0, 2 * np.pi)
    ramp = (np.cos(d) * (xx / W - 0.5) + np.sin(d) * (yy / H - 0.5)) * 2 * rng.uniform(0, 0.25)
    img *= (rng.uniform(0.8, 1.2) * (1.0 + ramp))[..., None]
    img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.0))
    img += rng.normal(0, rng.uniform(1, 4), img.shape).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)
