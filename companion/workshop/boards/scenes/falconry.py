"""Falconry scenes: cards laid on an open table between two half-strips of markers, as a camera sees it.

A *scene description* is region id -> visible top card, in the readers' vocabulary::

    {"x0y0": [{"noble": "H", "kind": "falconer", "covers": False}], ...}

``noble`` is the noble's letter (H Dusky Hawk, E Golden Eagle, G Gyrfalcon, P Peregrine Falcon),
``kind`` one of ``marker``, ``bird``, ``falconer``; ``covers`` whether the card lies on another card.
For painting, a descriptor may also carry ``depth`` (cards in the stack, 1-3; default 2 when
``covers``) and ``under`` (the covered cards, bottom first, as ``{"noble", "kind"}``); keys may also be
table cells ``(tx, ty)`` / ``[tx, ty]`` and values a bare descriptor instead of a list.

The deck and one card's drawing are the reader's (:mod:`companion.vision.readers.falconry_deck`); this
module lays whole tables of them. A covered card peeks out ``peek_mm`` (4 mm, the next 7 mm: white border only) towards one random
diagonal. :func:`painter` returns a ``paint`` callback for :mod:`companion.workshop.boards.synth_table`;
:func:`render` makes a full camera frame with its ground truth. Decisions: docs/vision-notes.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from companion.vision.boardmap import BoardMap
from companion.vision.readers.falconry_deck import (
    KINDS,
    NOBLES,
    card_points,
    cell_id,
    deck_config,
    draw_card,
    parse_cell,
)
from companion.workshop.boards.scenes import art
from companion.workshop.boards.synth_table import Scene, random_scene

TABLE_BGR = ((45, 80, 120), (35, 85, 40), (105, 105, 100), (85, 55, 35), (60, 60, 70), (30, 60, 95))
"""Table surfaces: wood, green felt, grey, blue cloth, dark grey, dark wood (a white cloth is not supported)."""
CARD_JITTER_MM = 1.0  # a hand-laid card sits within this of its cell position
CARD_JITTER_DEG = 1.0
LAYOUT_SHIFT_MM = 12.0  # the whole layout sits up to this far off the map's nominal grid
TABLE2_BGR = ((40, 45, 55), (70, 50, 60), (30, 55, 75), (55, 65, 50))
"""The second rendition's tables: slate, plum cloth, walnut, moss (with grain or weave)."""
DECK2: dict[str, Any] = {
    "size_mm": [63.0, 88.0],
    "paper_bgr": [212, 228, 238],  # cream card stock
    "border_mm": 3.0,
    "corner_mm": 3.5,
    "nobles": {"H": [105, 40, 120], "E": [45, 150, 205], "G": [140, 115, 25], "P": [55, 30, 160]},
    "letter_mm": 8.0,
}
"""The second rendition's deck: cream stock, rounded corners, a 3 mm border, other shades of the nobles'
colours with a printed texture, and other emblems (marker: a diamond; bird: spread wings; falconer: a
tall rounded figure) -- still small, wide and tall, as the rulebook's kinds need telling apart."""
CAMERA = {"fill": (0.8, 0.95), "max_rotation_deg": 25.0, "perspective": 0.1}
"""Camera of the rendered frames: the table fills 80-95 % of the frame height (see docs/vision-notes.md)."""


def normalise(scene: Mapping[Any, Any]) -> dict[str, dict[str, Any]]:
    """Region id -> one descriptor with ``noble``, ``kind``, ``covers``, ``depth`` (and ``under`` if given)."""
    out: dict[str, dict[str, Any]] = {}
    for key, value in scene.items():
        cell = parse_cell(key)
        rid = cell_id(*cell) if cell is not None else str(key)
        cards = value if isinstance(value, list) else [value]
        cards = [c for c in cards if c]
        if not cards:
            continue
        top = dict(cards[-1])
        if top.get("noble") not in NOBLES or top.get("kind") not in KINDS:
            raise ValueError(f"{rid}: a card needs noble in {NOBLES} and kind in {KINDS}, got {top!r}")
        depth = int(top.get("depth", 2 if top.get("covers") else 1))
        if not 1 <= depth <= 3:
            raise ValueError(f"{rid}: stack depth {depth} outside 1-3")
        top["depth"] = depth
        top["covers"] = depth > 1
        out[rid] = top
    return out


def vocabulary(scene: Mapping[Any, Any]) -> dict[str, list[dict[str, Any]]]:
    """What a reader can report of ``scene``: region -> [{noble, kind, covers}] (no depth, no under)."""
    return {
        rid: [{"noble": c["noble"], "kind": c["kind"], "covers": c["covers"]}] for rid, c in normalise(scene).items()
    }


@dataclass(frozen=True)
class Truth:
    scene: dict[str, list[dict[str, Any]]]  # the vocabulary scene (what a perfect reader reports)
    card_centres_mm: dict[str, tuple[float, float]]  # top card centres on the table, board mm
    layout_shift_mm: tuple[float, float]
    table_bgr: tuple[int, int, int]


def cell_centres(board: BoardMap) -> dict[str, tuple[float, float]]:
    return {r.id: r.center_mm for r in board.regions if r.kind == "cell"}


def _rounded_rect(x0: float, y0: float, x1: float, y1: float, r: float) -> np.ndarray:
    pts = []
    for cx, cy, a0 in ((x1 - r, y0 + r, -90), (x1 - r, y1 - r, 0), (x0 + r, y1 - r, 90), (x0 + r, y0 + r, 180)):
        t = np.deg2rad(np.arange(a0, a0 + 91, 15))
        pts += list(np.c_[cx + r * np.cos(t), cy + r * np.sin(t)])
    return np.asarray(pts)


def _emblem2(kind: str, w: float, h: float) -> list[np.ndarray]:
    cx, cy = w / 2, h / 2
    if kind == "marker":
        return [np.array([[cx, cy - 5.5], [cx + 4.5, cy], [cx, cy + 5.5], [cx - 4.5, cy]])]
    if kind == "bird":  # two wings and a body
        left = np.array([[cx - 1, cy - 1], [cx - 10, cy - 5], [cx - 9, cy + 1], [cx - 1, cy + 3]])
        return [left, np.c_[2 * cx - left[:, 0], left[:, 1]], art.circle((cx, cy + 1), 2.5, 16)]
    return [_rounded_rect(cx - 4.2, cy - 11, cx + 4.2, cy + 11, 3.5), art.circle((cx, cy - 13.0), 3.0, 20)]


def draw_card2(tex: np.ndarray, to_px: Callable[[np.ndarray], np.ndarray], px_per_mm: float, centre: tuple[float, float],
               angle_deg: float, noble: str, kind: str, texture: float) -> None:
    """One card of the second rendition's deck, face up (``texture``: a seed of its printed pattern)."""
    d = DECK2
    w, h = d["size_mm"]
    b = float(d["border_mm"])
    size = (w, h)

    def poly(local: np.ndarray, colour) -> None:
        art.fill_poly(tex, to_px, card_points(local, centre, angle_deg, size), colour)

    poly(_rounded_rect(0, 0, w, h, float(d["corner_mm"])), d["paper_bgr"])
    base = np.asarray(d["nobles"][noble], np.float64)
    poly(_rounded_rect(b, b, w - b, h - b, 1.5), base)
    r2 = np.random.default_rng(int(texture * 1e6))
    for _ in range(14):  # the printed pattern: darker and lighter strokes across the field
        x, y = r2.uniform(b + 3, w - b - 3), r2.uniform(b + 3, h - b - 3)
        a, ln = r2.uniform(0, np.pi), r2.uniform(4, 12)
        u = np.array([np.cos(a), np.sin(a)]) * ln / 2
        v = np.array([-np.sin(a), np.cos(a)]) * r2.uniform(0.6, 1.4)
        poly(np.array([[x, y] - u - v, [x, y] + u - v, [x, y] + u + v, [x, y] - u + v]), np.clip(base * r2.uniform(0.7, 1.3), 0, 255))
    for shape in _emblem2(kind, w, h):
        poly(shape, d["paper_bgr"])
    size_mm = float(d["letter_mm"])
    scale = size_mm * px_per_mm / 22.0
    thick = max(1, round(1.3 * px_per_mm))
    for corner in ((b + 1.5, b + 1.5 + size_mm), (w - b - 1.5 - 0.75 * size_mm, h - b - 1.5)):
        x, y = to_px(card_points(np.array([corner]), centre, angle_deg, size))[0]
        cv2.putText(tex, noble, (round(x), round(y)), cv2.FONT_HERSHEY_TRIPLEX, scale, tuple(d["paper_bgr"]), thick, cv2.LINE_AA)


def painter(
    board: BoardMap, scene: Mapping[Any, Any], rng: np.random.Generator, *, shift_mm: tuple[float, float] | None = None,
    rendition: int = 1,
) -> tuple[Callable[[np.ndarray, Callable[[np.ndarray], np.ndarray]], None], Truth]:
    """(paint callback, ground truth) for ``scene`` laid on the Falconry table map ``board``.

    The callback covers the map with a table surface (the strips stay white paper) and lays every
    stack: covered cards first, offset towards one diagonal, then the top card. Cells not in the map
    are an error (the camera cannot show them).
    """
    art.check_rendition(rendition)
    deck = deck_config()
    cards = normalise(scene)
    centres = cell_centres(board)
    missing = sorted(set(cards) - set(centres))
    if missing:
        raise ValueError(f"cells outside the map: {missing}")
    if shift_mm is None:
        shift_mm = tuple(float(v) for v in rng.uniform(-LAYOUT_SHIFT_MM, LAYOUT_SHIFT_MM, 2))
    tables = TABLE_BGR if rendition == 1 else TABLE2_BGR
    table = tables[int(rng.integers(len(tables)))]
    shade = rng.uniform(0.85, 1.15)
    table = tuple(int(min(255, c * shade)) for c in table)
    peeks = [float(v) for v in deck["peek_mm"]]
    layout = []  # (draw order) -> (centre, angle, noble, kind)
    top_centres: dict[str, tuple[float, float]] = {}
    for rid in sorted(cards):
        card = cards[rid]
        cx, cy = centres[rid]
        cx, cy = cx + shift_mm[0], cy + shift_mm[1]
        diag = np.array([rng.choice([-1.0, 1.0]), rng.choice([-1.0, 1.0])])
        under = list(card.get("under") or [])
        for level in range(card["depth"] - 1, 0, -1):  # the bottom card first
            below = under[-level] if len(under) >= level else {"noble": card["noble"], "kind": "marker"}
            off = diag * peeks[min(level, len(peeks)) - 1] + rng.uniform(-0.3, 0.3, 2)
            layout.append(((cx + off[0], cy + off[1]), rng.uniform(-0.5, 0.5), below["noble"], below["kind"]))
        j = rng.uniform(-CARD_JITTER_MM, CARD_JITTER_MM, 2)
        top = (cx + j[0], cy + j[1])
        layout.append((top, rng.uniform(-CARD_JITTER_DEG, CARD_JITTER_DEG), card["noble"], card["kind"]))
        top_centres[rid] = top
    grain = rng.uniform(0.93, 1.07, size=(12, 12)).astype(np.float32)

    def paint(tex: np.ndarray, to_px: Callable[[np.ndarray], np.ndarray]) -> None:
        h, w = tex.shape[:2]
        px_per_mm = float(np.linalg.norm(to_px(np.array([[1.0, 0.0]])) - to_px(np.array([[0.0, 0.0]]))))
        paper = np.zeros((h, w), np.uint8)
        for group in _strip_groups(board):
            x0, y0, x1, y1 = group
            q = to_px(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64))
            cv2.fillPoly(paper, [np.round(q).astype(np.int32)], 255)
        surface = cv2.resize(grain, (w, h), interpolation=cv2.INTER_CUBIC)[..., None] * np.array(table, np.float32)
        if rendition == 2:
            surface = art.wood((h, w), np.random.default_rng(int(grain[0, 0] * 1e6)), px_per_mm, table)
        keep = paper > 0
        tex[~keep] = np.clip(surface, 0, 255).astype(np.uint8)[~keep]
        for k, (centre, angle, noble, kind) in enumerate(layout):
            if rendition == 2:
                draw_card2(tex, to_px, px_per_mm, centre, angle, noble, kind, float(grain[k % 12, (k // 12) % 12]))
            else:
                draw_card(tex, to_px, px_per_mm, centre, angle, noble, kind, deck)

    truth = Truth(vocabulary(cards), top_centres, (float(shift_mm[0]), float(shift_mm[1])), table)
    return paint, truth


def _strip_groups(board: BoardMap) -> list[tuple[float, float, float, float]]:
    """The paper of each half-strip: the bounding box of its markers plus a 5 mm quiet zone and 3 mm."""
    groups: dict[bool, list] = {}
    play = board.play_area_mm or (0, 0, *board.size_mm)
    for f in board.fiducials:
        groups.setdefault(f.center_mm[1] < play[1], []).append(f.corners_mm())
    out = []
    for pts in groups.values():
        allp = np.vstack(pts)
        out.append((allp[:, 0].min() - 8, allp[:, 1].min() - 8, allp[:, 0].max() + 8, allp[:, 1].max() + 8))
    return out


def render(
    board: BoardMap,
    scene: Mapping[Any, Any],
    rng: np.random.Generator,
    size: tuple[int, int] = (1280, 720),
    *,
    hand_at_mm: tuple[float, float] | None = None,
    gain: float | None = None,
    shift_mm: tuple[float, float] | None = None,
    homography: np.ndarray | None = None,
    rendition: int = 1,
) -> tuple[Scene, Truth]:
    """A camera frame of ``scene`` in ``rendition`` 1 or 2 (random camera, light, noise, blur; optional
    hand) and its truth."""
    paint, truth = painter(board, scene, rng, shift_mm=shift_mm, rendition=rendition)
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
