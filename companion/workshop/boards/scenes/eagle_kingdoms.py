"""Eagle Kingdoms scenes: the eagle puzzle on its felt template, with character stands, as a camera sees it.

A *scene description* is region id -> visible pieces in the readers' vocabulary:

- ``{"piece": True}``: the puzzle piece is on the template (absent: captured, the felt shows);
- ``{"stand": 1..10}`` or ``{"stand": "jester"}``: a character standing on that piece (several on
  the ``shield``).

:func:`painter` returns a ``paint`` callback for :mod:`companion.workshop.boards.synth_table`; :func:`render`
makes a full 1280x720 camera frame with a random camera and returns it with its ground truth.
The look (felt colour, piece colours, stand cards) is a ruling: docs/vision-notes.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from companion.vision.boardmap import BoardMap
from companion.vision.readers.eagle_kingdoms import stand_spots
from companion.workshop.boards.scenes import art
from companion.workshop.boards.scenes.stands import MAX_YAW_DEG, StandStyle, draw_stand
from companion.workshop.boards.synth_table import Scene, random_scene

FELT_BGR = (40, 95, 35)  # the felt template (dark green)
TEMPLATE_LINE_BGR = (70, 140, 60)  # piece outlines printed on the felt
PIECE_BGR = ((20, 160, 225), (20, 110, 220), (35, 35, 190), (30, 60, 150), (60, 20, 170), (25, 130, 200))
STAND_JITTER_MM = 1.5
SHIELD_PITCH_MM = (21.0, 24.0)  # places of characters forfeited to the shield: 3 mm between cards (rows of places)
SHIELD_RIM_MM = 4.0  # a place's middle may lie this far beyond the shield's outline (the stand overhangs the rim)
SHIELD_JITTER_MM = 0.3  # characters on the shield stand neatly on their places, turned a little
SHIELD_MAX_YAW_DEG = 3.0
CAMERA = {"fill": (0.75, 0.95), "max_rotation_deg": 25.0, "perspective": 0.1}
# the second rendition: navy felt printed in gold (outlines and the dice pictures), an eagle printed in
# browns, black, grey and gold with feathers, each piece showing its dice picture beside the stand
FELT2_BGR = (92, 44, 24)
TEMPLATE_LINE2_BGR = (60, 150, 190)
PIECE2_BGR = ((35, 50, 80), (32, 33, 40), (55, 85, 125), (45, 110, 160), (30, 150, 200), (78, 80, 84))


@dataclass(frozen=True)
class Truth:
    scene: dict[str, list[Any]]
    stand_centres_mm: dict[str, list[tuple[float, float]]]
    style: StandStyle


def piece_colour(index: int) -> tuple[int, int, int]:
    return PIECE_BGR[(index * 7 + index // 5) % len(PIECE_BGR)]


def shield_slots(board: BoardMap, region_id: str = "shield") -> list[tuple[float, float]]:
    """Stand places on the shield, centre first: rows ``SHIELD_PITCH_MM[1]`` apart, places
    ``SHIELD_PITCH_MM[0]`` apart in a row, each row centred on the shield's chord where a place's
    middle lies no more than ``SHIELD_RIM_MM`` beyond the shield's outline (a stand on the rim
    overhangs the felt around it); the rows' offset that gives the most places (ties: the least offset)."""
    key = (board.digest(), region_id)
    if key in _SLOTS:
        return list(_SLOTS[key])
    r = board.region(region_id)
    poly = np.asarray(r.polygon_mm, np.float32)
    cx, cy = r.center_mm
    px, py = SHIELD_PITCH_MM
    x0, _y0, x1, _y1 = r.bounds_mm()
    xs = np.arange(x0 - SHIELD_RIM_MM - 1, x1 + SHIELD_RIM_MM + 1, 0.25)
    best: list[tuple[float, float]] = []
    for off in sorted(np.arange(-py / 2, py / 2 + 1e-9, 0.5), key=abs):
        slots = []
        for j in range(-6, 7):
            y = cy + off + j * py
            ok = [float(x) for x in xs if cv2.pointPolygonTest(poly, (float(x), float(y)), True) >= -SHIELD_RIM_MM]
            if not ok:
                continue
            left, right = min(ok), max(ok)
            n = int((right - left) // px) + 1
            mid = (left + right) / 2
            slots += [(mid + (i - (n - 1) / 2) * px, float(y)) for i in range(n)]
        if len(slots) > len(best):
            best = slots
    best.sort(key=lambda p: (abs(p[0] - cx) + abs(p[1] - cy), p[1], p[0]))
    _SLOTS[key] = best
    return list(best)


_SLOTS: dict[tuple[str, str], list[tuple[float, float]]] = {}
_SPOTS: dict[Any, dict[str, tuple[float, float]]] = {}


def dice_spots(board: BoardMap) -> dict[str, tuple[float, float]]:
    """Where a piece's dice picture is printed (second rendition): the point of the piece at least 5 mm
    inside its outline that lies farthest from the stand's spot, if it is 15 mm or more away."""
    key = ("dice", board.digest())
    if key in _SPOTS:
        return _SPOTS[key]
    stands, s, out = stand_spots(board), 2.0, {}
    for r in board.regions:
        if r.polygon_mm is None or r.kind == "shield":
            continue
        x0, y0, x1, y1 = r.bounds_mm()
        m = np.zeros((int((y1 - y0) * s) + 3, int((x1 - x0) * s) + 3), np.uint8)
        cv2.fillPoly(m, [np.round((np.asarray(r.polygon_mm) - (x0, y0)) * s * 16).astype(np.int32)], 255, shift=4)
        yy, xx = np.nonzero(cv2.distanceTransform(m, cv2.DIST_L2, 5) >= 5.0 * s)
        if not len(xx):
            continue
        px, py = xx / s + x0, yy / s + y0
        d = np.hypot(px - stands[r.id][0], py - stands[r.id][1])
        k = int(np.argmax(d))
        if d[k] >= 15.0:
            out[r.id] = (float(px[k]), float(py[k]))
    _SPOTS[key] = out
    return out


def piece_colour2(index: int) -> tuple[int, int, int]:
    return PIECE2_BGR[(index * 5 + index // 3) % len(PIECE2_BGR)]


def painter(
    board: BoardMap, scene: Mapping[str, list[Any]], rng: np.random.Generator, style: StandStyle | None = None,
    rendition: int = 1,
) -> tuple[Callable[[np.ndarray, Callable[[np.ndarray], np.ndarray]], None], Truth]:
    """(paint callback, ground truth) for ``scene`` on the Eagle Kingdoms board map, drawn in
    ``rendition`` 1 (flat colours) or 2 (printed art: :mod:`companion.workshop.boards.scenes.art`)."""
    art.check_rendition(rendition)
    style = style or (StandStyle.random(rng) if rendition == 1 else StandStyle.random2(rng))
    felt_shade = rng.uniform(0.85, 1.15)
    placements, centres = _placements(board, scene, rng)
    if rendition == 2:
        rng.integers(2**31)  # (the draw keeps the scenes' cameras as they were when each scene had its own print)

    def paint(tex: np.ndarray, to_px: Callable[[np.ndarray], np.ndarray]) -> None:
        if rendition == 2:
            _paint_print(tex, to_px, board, scene, felt_shade)
        else:
            _paint_flat(tex, to_px, board, scene, felt_shade)
        for _rid, centre, label, yaw in placements:
            draw_stand(tex, to_px, centre, label, style, yaw)

    return paint, Truth({k: list(v) for k, v in scene.items() if v}, centres, style)


def _placements(
    board: BoardMap, scene: Mapping[str, list[Any]], rng: np.random.Generator
) -> tuple[list[tuple[str, tuple[float, float], Any, float]], dict[str, list[tuple[float, float]]]]:
    """Where each stand of ``scene`` stands, jittered and turned: (region, centre mm, label, yaw) each, and
    the centres by region."""
    placements: list[tuple[str, tuple[float, float], Any, float]] = []
    centres: dict[str, list[tuple[float, float]]] = {}
    slots = shield_slots(board)
    for region in board.regions:
        stands = [p["stand"] for p in scene.get(region.id, []) if isinstance(p, dict) and "stand" in p]
        if not stands:
            continue
        on_shield = region.kind == "shield"
        if on_shield:
            spots = list(slots)
            if len(stands) > len(spots):  # more characters than room: they crowd the middle
                spots += [(region.center_mm[0] + rng.uniform(-15, 15), region.center_mm[1] + rng.uniform(-15, 15)) for _ in range(len(stands) - len(spots))]
            positions = spots[: len(stands)]
            order = rng.permutation(len(stands))
            stands = [stands[k] for k in order]
        else:
            positions = [stand_spots(board)[region.id]] * len(stands)
        jitter = SHIELD_JITTER_MM if on_shield else STAND_JITTER_MM
        max_yaw = SHIELD_MAX_YAW_DEG if on_shield else MAX_YAW_DEG
        for label, (x, y) in zip(stands, positions, strict=True):
            jx, jy = rng.normal(0, jitter / 2, 2).clip(-jitter, jitter)
            yaw = float(rng.uniform(-max_yaw, max_yaw))
            placements.append((region.id, (x + jx, y + jy), label, yaw))
            centres.setdefault(region.id, []).append((x + jx, y + jy))
    return placements, centres


def _has_piece(scene: Mapping[str, list[Any]], region_id: str) -> bool:
    return any(isinstance(p, dict) and p.get("piece") for p in scene.get(region_id, []))


def _paint_print(tex: np.ndarray, to_px: Callable[[np.ndarray], np.ndarray], board: BoardMap,
                 scene: Mapping[str, list[Any]], felt_shade: float) -> None:
    """Rendition 2: the printed board of one box (art.BOX_SEED: the same print in every scene)."""
    r2 = np.random.default_rng(art.BOX_SEED)
    s = art.px_per_mm(to_px)
    mask = art.board_mask(tex.shape, board, to_px)
    art.blend(tex, art.felt(tex.shape[:2], r2, s, np.array(FELT2_BGR) * felt_shade), mask)
    dice = dice_spots(board)
    line = max(1, round(0.8 * s))
    for k, region in enumerate(board.regions):
        poly = np.round(to_px(np.asarray(region.polygon_mm)) * 16).astype(np.int32)
        present = _has_piece(scene, region.id)
        if present:
            _paint_piece_print(tex, poly, k, r2, s)
            where = dice.get(region.id)
        else:
            cv2.polylines(tex, [poly], True, TEMPLATE_LINE2_BGR, line, cv2.LINE_AA, shift=4)
            where = region.center_mm if region.kind != "shield" else None
        if where is not None:  # the dice picture: on the piece beside the stand, or printed on the felt
            values = (k % 6 + 1, (k * 5 + 2) % 6 + 1)
            for j, v in enumerate(values):
                art.die_face(tex, to_px, (where[0] + (j - 0.5) * 7.6, where[1]), 7.0, v, 0.0,
                             body=(225, 230, 232) if present else TEMPLATE_LINE2_BGR,
                             pip=(25, 25, 25) if present else FELT2_BGR)


def _paint_piece_print(tex: np.ndarray, poly: np.ndarray, k: int, r2: np.random.Generator, s: float) -> None:
    """Piece ``k`` of the printed board: its colour in faint stripes, outlined."""
    piece = np.zeros(tex.shape[:2], np.uint8)
    cv2.fillPoly(piece, [poly], 255, cv2.LINE_AA, shift=4)
    x, y, bw, bh = cv2.boundingRect(np.round(poly / 16).astype(np.int32))
    x, y = max(x - 2, 0), max(y - 2, 0)
    sub = (slice(y, y + bh + 4), slice(x, x + bw + 4))
    hh, ww = piece[sub].shape
    base = np.array(piece_colour2(k), np.float32)
    yy, xx = np.mgrid[0:hh, 0:ww].astype(np.float32)
    a = r2.uniform(0, np.pi)
    stripes = 1.0 + 0.18 * np.sin((xx * np.cos(a) + yy * np.sin(a)) / max(s, 1e-3) * 2 * np.pi / 4.0)
    layer = base * (stripes * (1 + 0.1 * art.noise((hh, ww), r2, 12 * s, 2)))[..., None]
    roi = tex[sub]
    art.blend(roi, layer, piece[sub])
    cv2.polylines(tex, [poly], True, (20, 22, 28), max(1, round(0.7 * s)), cv2.LINE_AA, shift=4)


def _paint_flat(tex: np.ndarray, to_px: Callable[[np.ndarray], np.ndarray], board: BoardMap,
                scene: Mapping[str, list[Any]], felt_shade: float) -> None:
    """Rendition 1: flat felt, pieces in flat colours, empty places outlined."""
    w, h = board.size_mm
    quad = to_px(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64))
    felt = tuple(int(min(255, c * felt_shade)) for c in FELT_BGR)
    cv2.fillPoly(tex, [np.round(quad * 16).astype(np.int32)], felt, cv2.LINE_AA, shift=4)
    s = float(np.linalg.norm(to_px(np.array([[1.0, 0.0]]))[0] - to_px(np.array([[0.0, 0.0]]))[0]))
    for k, region in enumerate(board.regions):
        poly = np.round(to_px(np.asarray(region.polygon_mm)) * 16).astype(np.int32)
        if _has_piece(scene, region.id):
            cv2.fillPoly(tex, [poly], piece_colour(k), cv2.LINE_AA, shift=4)
            cv2.polylines(tex, [poly], True, (20, 40, 70), max(1, round(0.6 * s)), cv2.LINE_AA, shift=4)
        else:
            cv2.polylines(tex, [poly], True, TEMPLATE_LINE_BGR, max(1, round(0.5 * s)), cv2.LINE_AA, shift=4)


def render(
    board: BoardMap,
    scene: Mapping[str, list[Any]],
    rng: np.random.Generator,
    size: tuple[int, int] = (1280, 720),
    *,
    hand_at_mm: tuple[float, float] | None = None,
    gain: float | None = None,
    homography: np.ndarray | None = None,
    style: StandStyle | None = None,
    rendition: int = 1,
) -> tuple[Scene, Truth]:
    """A camera frame of ``scene`` in ``rendition`` 1 or 2: random camera (board fills 75-95 % of the
    frame height), light, noise and blur as :func:`companion.workshop.boards.synth_table.random_scene`."""
    paint, truth = painter(board, scene, rng, style, rendition)
    frame = random_scene(
        board,
        rng,
        size,
        hand_at_mm=hand_at_mm,
        gain=gain,
        paint=paint,
        homography=homography,
        rendition=rendition,
        **CAMERA,
    )
    return frame, truth
