"""Falconry reader: from a camera frame and its table pose to the top card of every cell.

Usage (one frame, prints the observation as JSON)::

    python -m companion.vision.readers.falconry FRAME.png [--board calibration/boards/falconry.json]

Stages, thresholds in ``readers/falconry.json`` (``reader``):

1. pose (:class:`~companion.vision.pose.BoardTracker`, full-resolution marker search: the strip
   markers are small; two adaptive-threshold windows) -- no usable pose, markers on one strip only or
   part of the play area out of the frame: no reading, the reason in the status;
2. nothing is rectified: every value is sampled from the frame at board points through the pose
   (:func:`sample_bgr`, one ``cv2.remap`` per stage), only where it is needed;
3. grid phase: hand-laid cards do not sit on the map's nominal grid, so the offset of the card
   lattice is measured from the card edges (whiteness profiles along lines across the play area and a
   little beyond it, off the marker strips; derivative folded by the pitch, scored for a card's four
   edges: outer and inner border edge at each end) and kept continuous from frame to frame; each card
   is reported in the nominal cell it falls in;
4. per cell, sampled at fixed card-local points: *occupied* (the card's white border against the
   local table colour), *noble* (the field colour, white-balanced by the card's own border, nearest
   to the deck's colours), *kind* (the white emblem's shape, correlated with templates drawn from
   the deck description); for occupied cells only, *covers*: the white run across each edge measured
   where the card actually lies -- from the top card's own field/border edge (its position, whatever
   the jitter) to the last white before the table, sub-sample interpolated at blur-free levels, short
   dips (a lower card's field showing) bridged -- do two sides of one corner exceed the card's narrowest
   side (its border alone, as blurred in this frame) by a peeking lower card; each with a margin turned
   into a confidence, the cell's confidence is the least;
5. when any cell is doubtful: re-registration -- each occupied or doubtful cell's card is sought within
   10 mm (border ring against table gap), a smooth (quadratic) offset field is fitted to the cards found
   and every cell re-read with it (a found card where it was found); kept when it leaves fewer doubtful
   cells. This absorbs the pose's error far from the markers when one strip shows a single marker;
6. an occluded cell (foreign colours in the gap, a border not white, an empty cell's inside not table) or
   three or more uncertain cells touching each other mean a hand or an object over the table: the
   observation is not usable ("hand or object over the cards");
7. the cells just beyond the map beside its edge cards that the frame shows clear of any card
   (``extra.clear_beyond``): the referee rules out a card laid there out of the map.

Cost: the border ring and the table gap are sampled for every cell; the field, emblem and edge profiles
only for the occupied cells, a sparse inside (every ``empty_inner_stride``-th point) for the empty ones.

Region ids are the map's table cells ``x{tx}y{ty}``; descriptors ``{"noble", "kind", "covers"}``.
The reader knows nothing of the rules (the referee aligns table cells with the engine's cells).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import cv2
import numpy as np

from companion.data import bundled
from companion.vision import quality
from companion.vision.boardmap import BoardMap
from companion.vision.intrinsics import CameraProfile
from companion.vision.pose import BoardTracker, PoseResult
from companion.vision.readers import Observation, read_file_main
from companion.vision.readers.falconry_deck import KINDS, NOBLES, cell_id, draw_card, parse_cell
from companion.vision.readers.occlusion import ArmWatch


def load_config(overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    text = resources.files("companion.vision.readers").joinpath("falconry.json").read_text(encoding="utf-8")
    data = json.loads(text)
    data.pop("_doc", None)
    for section, values in (overrides or {}).items():
        if section not in data:
            raise KeyError(f"unknown Falconry reader config section {section!r}")
        data[section].update(values)
    return data


@dataclass(frozen=True)
class Grid:
    """The map's nominal card lattice, learned from its regions (``x{tx}y{ty}`` rectangles)."""

    cells: tuple[tuple[int, int], ...]
    origin_mm: tuple[float, float]  # top-left of cell (0, 0)'s card
    pitch_mm: tuple[float, float]
    card_mm: tuple[float, float]

    @classmethod
    def from_map(cls, board: BoardMap) -> Grid:
        boxes = {}
        for r in board.regions:
            cell = parse_cell(r.id)
            if r.kind == "cell" and cell is not None:
                boxes[cell] = r.bounds_mm()
        if len(boxes) < 2:
            raise ValueError("the map has no card cells (regions x{tx}y{ty} of kind 'cell')")
        cells = tuple(sorted(boxes, key=lambda c: (c[1], c[0])))
        (tx, ty) = cells[0]
        x0, y0, x1, y1 = boxes[cells[0]]
        right = next((boxes[c] for c in cells if c == (tx + 1, ty)), None)
        below = next((boxes[c] for c in cells if c == (tx, ty + 1)), None)
        if right is None or below is None:
            raise ValueError("the map's cells do not form a grid")
        pitch = (right[0] - x0, below[1] - y0)
        return cls(cells, (x0 - tx * pitch[0], y0 - ty * pitch[1]), pitch, (x1 - x0, y1 - y0))


def _sample_points(card: Sequence[float], rcfg: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Card-local sample points (mm), by feature."""
    w, h = card
    r0, r1 = rcfg["ring_mm"]
    ring = []
    rs = float(rcfg["ring_step_mm"])
    for d in np.arange(r0, r1 + 1e-9, 0.9):
        xs = np.arange(6.0, w - 6.0 + 1e-9, rs)
        ys = np.arange(6.0, h - 6.0 + 1e-9, rs)
        ring += [np.c_[xs, np.full_like(xs, d)], np.c_[xs, np.full_like(xs, h - d)]]
        ring += [np.c_[np.full_like(ys, d), ys], np.c_[np.full_like(ys, w - d), ys]]
    fx0, fy0, fx1, fy1 = rcfg["field_box_mm"]
    gx, gy = np.meshgrid(np.arange(fx0, fx1 + 1e-9, 1.5), np.arange(fy0, fy1 + 1e-9, 2.0))
    left = np.c_[gx.ravel(), gy.ravel()]
    field = np.vstack([left, np.c_[w - left[:, 0], left[:, 1]]])
    ex0, ey0, ex1, ey1 = rcfg["emblem_box_mm"]
    step = float(rcfg["emblem_step_mm"])
    ex, ey = np.meshgrid(np.arange(ex0, ex1 + 1e-9, step), np.arange(ey0, ey1 + 1e-9, step))
    emblem = np.c_[ex.ravel(), ey.ravel()]
    offs, along = _peek_axes(rcfg)
    xs, ys = along * w, along * h
    A, Oa = np.meshgrid(xs, offs, indexing="ij")  # (positions, n)
    B, Q = np.meshgrid(ys, offs, indexing="ij")
    peek = np.stack(
        [
            np.stack([A, -Q], axis=-1).reshape(-1, 2),  # top
            np.stack([w + Q, B], axis=-1).reshape(-1, 2),  # right
            np.stack([A, h + Q], axis=-1).reshape(-1, 2),  # bottom
            np.stack([-Q, B], axis=-1).reshape(-1, 2),  # left
        ]
    )
    g = float(rcfg["table_gap_mm"])
    xs = np.linspace(4, w - 4, 10)
    ys = np.linspace(4, h - 4, 12)
    gap = np.vstack(
        [np.c_[xs, np.full_like(xs, -g)], np.c_[xs, np.full_like(xs, h + g)], np.c_[np.full_like(ys, -g), ys], np.c_[np.full_like(ys, w + g), ys]]
    )
    return {"ring": np.vstack(ring), "field": field, "emblem": emblem, "peek": np.stack(peek), "gap": gap}


def _peek_axes(rcfg: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """Offsets across an edge (mm, outward positive) and positions along it (fractions of the side)."""
    p0, p1 = rcfg["profile_mm"]
    step = float(rcfg["profile_step_mm"])
    offs = np.arange(p0, p1 + 1e-9, step)
    span = float(rcfg["peek_span"])
    along = np.linspace((1 - span) / 2, (1 + span) / 2, int(rcfg["peek_positions"]))
    return offs, along


def emblem_templates(deck: Mapping[str, Any], rcfg: Mapping[str, Any]) -> np.ndarray:
    """(3, n) zero-mean unit-norm whiteness templates of the emblems, drawn from the deck description."""
    s = float(rcfg["px_per_mm"])
    w, h = deck["size_mm"]
    pts = _sample_points((w, h), rcfg)["emblem"]
    out = []
    for kind in KINDS:
        tex = np.zeros((round(h * s) + 20, round(w * s) + 20, 3), np.uint8)
        draw_card(tex, lambda p: (np.asarray(p) + 10) * s - 0.5, s, (w / 2, h / 2), 0.0, "P", kind, deck)
        tex = cv2.GaussianBlur(tex, (0, 0), float(rcfg["emblem_blur_px"]))
        white = tex.min(axis=2).astype(np.float32)
        q = np.round((pts + 10) * s - 0.5).astype(int)
        v = white[q[:, 1], q[:, 0]]
        v = v - v.mean()
        out.append(v / (np.linalg.norm(v) + 1e-9))
    return np.stack(out)


class FalconryReader:
    """Reads frames of one Falconry table map. Keeps the pose tracker and the grid phase between frames."""

    def __init__(self, board: BoardMap, config: Mapping[str, Any] | None = None, camera: CameraProfile | None = None):
        self.board = board
        self.config = load_config(config)
        self.rcfg = self.config["reader"]
        self.deck = self.config["cards"]
        self._px_per_mm: float | None = None  # the frame's scale (quality.assess), for what is measured to a pixel
        self.grid = Grid.from_map(board)
        self.tracker = BoardTracker(board, self.config["pose"], camera)
        self.arms = ArmWatch(board)
        self.phase_mm: np.ndarray | None = None
        self.peek_offsets, self.peek_positions = _peek_axes(self.rcfg)
        self.points = _sample_points(self.grid.card_mm, self.rcfg)
        self.default_templates = emblem_templates(self.deck, self.rcfg)
        paper = np.array(self.deck["paper_bgr"], np.float64)
        self.default_noble_ref = np.array([np.array(self.deck["nobles"][n]["bgr"], np.float64) / paper for n in NOBLES])
        self._samples: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # the last frame's cards: emblem, field colour
        self.teach(None)
        origin = np.array(self.grid.origin_mm)
        self.cell_tl = np.array([origin + np.multiply(c, self.grid.pitch_mm) for c in self.grid.cells])  # board mm
        self.cell_ids = [cell_id(tx, ty) for tx, ty in self.grid.cells]
        stride = int(self.rcfg["empty_inner_stride"])  # an empty cell's inside: only foreign colours are sought
        self.inner_sparse = np.vstack([self.points["field"], self.points["emblem"]])[::stride]
        self.phase_lines = self._lines()
        w, h = self.grid.card_mm
        self.ring_sides = _sides(self.points["ring"], w, h)
        self.gap_sides = _sides(self.points["gap"], w, h)
        self.beyond = self._beyond_cells()
        self.marker_cells = _marker_cells(self.board)
        self._edge_cards: set[str] = set()  # the cells with a card (or in doubt) in any reading since the last reset

    def _edge_of(self, marker_id: int) -> bool:
        """True for a marker beyond the play area's far edge (y < play area), False for the near edge."""
        play = self.board.play_area_mm or (0.0, 0.0, *self.board.size_mm)
        f = self.board.fiducial(marker_id)
        return f is not None and f.center_mm[1] < (play[1] + play[3]) / 2

    def _lines(self) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """The grid phase's sample lines, per axis: positions along, board points (lines, n, 2) and which
        neighbouring samples' difference counts (lines, n - 1)."""
        rc = self.rcfg
        step, gap, reach = float(rc["phase_step_mm"]), float(rc["phase_line_mm"]), float(rc["phase_reach_mm"])
        x0, y0, x1, y1 = self.board.play_area_mm or (0.0, 0.0, *self.board.size_mm)
        out = []
        for axis in (0, 1):
            lo, hi = ((x0, x1), (y0, y1))[axis]
            a0, a1 = ((y0, y1), (x0, x1))[axis]
            # past the play area (within the board): an edge cell's card laid outwards has its outer edges
            # beyond the play area, and with them unseen a lone edge column or row matched the four-edge
            # score the wrong way round (its far border taken for its near one: every card a card gap plus
            # a border off, the frame refused as a hand -- seed 11 scene 62)
            along = np.arange(max(lo - reach, 0.0), min(hi + reach, self.board.size_mm[axis]), step)
            across = np.arange(a0 + 3.0, a1 - 3.0, gap)
            A, B = np.meshgrid(along, across)  # (lines, n)
            pts = np.stack([A, B], -1) if axis == 0 else np.stack([B, A], -1)
            keep = ~self._in_strips(pts)  # a strip's paper edge would be a fixed, card-like edge
            out.append((along, pts, (keep[:, 1:] & keep[:, :-1]).astype(np.float32)))
        return out

    def _beyond_cells(self) -> list[_Beyond]:
        """The cells just beyond the map's edges, each with the map's cell beside it, the card-local points sampled in
        it (the whole card but its outermost millimetre, off the marker strips) and the strip markers a card laid
        there would cover, however the hand laid it (``beyond_jitter_mm``)."""
        have = set(self.grid.cells)
        steps = ((1, 0), (-1, 0), (0, 1), (0, -1))
        ring = sorted({(tx + dx, ty + dy) for tx, ty in have for dx, dy in steps} - have)
        w, h = self.grid.card_mm
        step, jitter = float(self.rcfg["beyond_step_mm"]), float(self.rcfg["beyond_jitter_mm"])
        gx, gy = np.meshgrid(np.arange(1.0, w - 1.0 + 1e-6, step), np.arange(1.0, h - 1.0 + 1e-6, step))
        local = np.c_[gx.ravel(), gy.ravel()]
        origin = np.array(self.grid.origin_mm)
        out = []
        for tx, ty in ring:
            beside = next(cell_id(tx - dx, ty - dy) for dx, dy in steps if (tx - dx, ty - dy) in have)
            tl = origin + np.multiply((tx, ty), self.grid.pitch_mm)
            core = (tl[0] + jitter, tl[1] + jitter, tl[0] + w - jitter, tl[1] + h - jitter)
            covered = tuple(f.id for f in self.board.fiducials if _overlaps(core, f.corners_mm()))
            out.append(_Beyond(cell_id(tx, ty), beside, tl, local[~self._in_strips(tl + local)], covered))
        return out

    def _surface(self, pts: np.ndarray) -> np.ndarray:
        """Per board point: 0 within the map's outline, 1 outside it, -1 within ``beyond_edge_mm`` of the outline (a
        mat or cloth the size of the map may end there, on another table: each side is judged on its own)."""
        w, h = self.board.size_mm
        margin = float(self.rcfg["beyond_edge_mm"])
        inside = np.minimum.reduce([pts[:, 0], w - pts[:, 0], pts[:, 1], h - pts[:, 1]])
        return np.where(np.abs(inside) < margin, -1, np.where(inside > 0, 0, 1))

    def _clear_beyond(self, frame: np.ndarray, pose: PoseResult, phase: np.ndarray, paper_w: float,
                      beside: set[str]) -> list[str]:
        """Of the cells just beyond the map next to ``beside`` (the edge cells with a card now or in an earlier reading,
        or in doubt: cards are laid edge to edge, so a card laid unseen lies beside one), those the frame shows clear
        of any card. Off the strips, most of the cell is in view (a card laid there, however the hand laid it, shows
        in that part), each side of the map's outline is of one colour (a card's field is another hue than the table
        under it; a mat the map's size may lie on another table: ``_surface``) and nothing in it is near the cards'
        paper white (a card's border and emblem); where a card laid there would cover strip markers, those markers
        are seen and the rest of the cell in view is so. The referee rules out a card laid there unseen; a cell it
        cannot vouch for is left out."""
        near = [b for b in self.beyond if b.beside in beside]
        if not near:
            return []
        h, w = frame.shape[:2]
        pts = [b.tl + phase + b.local for b in near]
        px = pose.board_to_image(np.vstack(pts))
        bgr = _sample_px(frame, px).astype(np.float32)
        seen = (px[:, 0] >= 1) & (px[:, 0] <= w - 2) & (px[:, 1] >= 1) & (px[:, 1] <= h - 2)
        found = set(pose.markers_seen) | self._markers_showing(frame, pose, {m for b in near for m in b.covered} - set(pose.markers_seen))
        out, at = [], 0
        for b, p in zip(near, pts, strict=True):
            view, colours = seen[at:at + len(p)], bgr[at:at + len(p)]
            at += len(p)
            if b.covered and not set(b.covered) <= found:
                continue  # a strip marker under the cell is hidden: by a card, maybe
            if not view.any() or not (b.covered or view.mean() >= float(self.rcfg["beyond_in_view_min"])):
                continue
            surface = self._surface(p)
            sides = [colours[view & (surface == s)] for s in (0, 1)]
            sides = [c for c in sides if len(c) >= int(self.rcfg["beyond_side_min_points"])] or [colours[view]]
            if all(self._one_colour_no_paper(c, paper_w) for c in sides):
                out.append(b.id)
        return sorted(out)

    def _markers_showing(self, frame: np.ndarray, pose: PoseResult, ids: set[int]) -> set[int]:
        """Of the strip markers ``ids`` the detector did not report (a tracked pose may skip the search, a small marker
        may be missed), those whose own black and white cells show where the pose puts them: a card over a marker
        hides its pattern."""
        ids = {i for i in ids if i in self.marker_cells}
        if not ids:
            return set()
        order = sorted(ids)
        pts = np.vstack([self.marker_cells[i][0] for i in order])
        grey = sample_bgr(frame, pose, pts).astype(np.float32).mean(axis=1).reshape(len(order), 36, -1).mean(axis=2)
        out = set()
        for k, i in enumerate(order):
            lo, hi = float(grey[k].min()), float(grey[k].max())
            if hi - lo >= float(self.rcfg["marker_contrast_min"]) and np.array_equal(grey[k] > (lo + hi) / 2, self.marker_cells[i][1]):
                out.add(i)
        return out

    def _one_colour_no_paper(self, bgr: np.ndarray, paper_w: float) -> bool:
        chroma = bgr / np.maximum(bgr.sum(axis=1, keepdims=True), 30.0)
        spread = np.percentile(np.linalg.norm(chroma - np.median(chroma, axis=0), axis=1), 98)
        wv = _whiteness(bgr)
        table_w = float(np.median(wv))
        whiter = float(np.percentile(wv, 99)) - table_w
        return bool(spread < float(self.rcfg["beyond_chroma_max"])
                    and whiter < float(self.rcfg["beyond_white_share"]) * max(paper_w - table_w, 0.0))

    def _in_strips(self, pts: np.ndarray) -> np.ndarray:
        """Mask (...) of board points on or next to a marker strip (markers grown by ``strip_margin_mm``)."""
        m = float(self.rcfg["strip_margin_mm"])
        inside = np.zeros(pts.shape[:-1], bool)
        for f in self.board.fiducials:
            c = f.corners_mm()
            (bx0, by0), (bx1, by1) = c.min(axis=0) - m, c.max(axis=0) + m
            inside |= (pts[..., 0] >= bx0) & (pts[..., 0] <= bx1) & (pts[..., 1] >= by0) & (pts[..., 1] <= by1)
        return inside

    def reset(self) -> None:
        self.tracker.reset()
        self.phase_mm = None
        self._edge_cards = set()

    # -- the look of the family's deck ------------------------------------------------------------------
    def teach(self, appearance: Mapping[str, Any] | None) -> None:
        """Read with a taught look of the family's deck (:meth:`learn_appearance`; None: the deck described in
        ``falconry.json``). ValueError for a look that does not fit this reader (taught by another version)."""
        look = dict(appearance or {})
        emblems, nobles = dict(look.get("emblems") or {}), dict(look.get("nobles") or {})
        templates, refs = self.default_templates.copy(), self.default_noble_ref.copy()
        for k, kind in enumerate(KINDS):
            if kind in emblems:
                templates[k] = _unit(np.asarray(emblems[kind], np.float64), templates.shape[1], f"the emblem of a {kind}")
        for k, noble in enumerate(NOBLES):
            if noble in nobles:
                refs[k] = _unit(np.asarray(nobles[noble], np.float64), 3, f"the colour of noble {noble}", norm=False)
        self.templates, self.noble_ref, self.appearance = templates, refs, look
        # a deck of another print (its emblems unlike the described ones): a kind it did not show when taught
        # is never read surely -- the described emblem is no model of that deck's card
        taught = [k for k, kind in enumerate(KINDS) if kind in emblems]
        like = [float(templates[k] @ self.default_templates[k]) for k in taught]
        foreign = bool(like) and min(like) < float(self.rcfg["foreign_emblem_ncc"])
        self.untaught_kinds = np.array([foreign and kind not in emblems for kind in KINDS])

    def learn_appearance(self, frame: np.ndarray, pose: PoseResult, scene: Mapping[str, Any]) -> dict[str, Any]:
        """The look of this deck from one photo of cards whose identities are known (``scene``: table cell ->
        [{"noble", "kind", ...}], the top card of each): the emblem of every kind shown and the field colour of
        every noble shown, added to the look taught before. ValueError when the photo does not show those
        cards (a cell the scene leaves empty holds a card, or the other way round) or the cards disagree."""
        expected = {}
        for region, cards in scene.items():
            top = cards[-1] if isinstance(cards, list) and cards else cards
            if isinstance(top, Mapping) and top.get("kind") in KINDS and top.get("noble") in NOBLES:
                expected[str(region)] = (str(top["noble"]), str(top["kind"]))
        if not expected:
            raise ValueError("no cards to learn from: the set-up names none")
        saved = self.appearance
        self.teach(None)
        self.phase_mm = None
        try:
            obs = self.read(frame, pose)
            samples = dict(self._samples)
        finally:
            self.teach(saved)
        if not samples:
            raise ValueError(f"no cards found in the photo ({obs.status})")
        if set(samples) != set(expected):
            missing, extra = sorted(set(expected) - set(samples)), sorted(set(samples) - set(expected))
            raise ValueError("the cards in the photo do not lie as the set-up says" + (f"; no card at {', '.join(missing)}" if missing else "")
                             + (f"; a card at {', '.join(extra)}" if extra else ""))
        emblems = dict(saved.get("emblems") or {})
        nobles = dict(saved.get("nobles") or {})
        for kind in KINDS:
            shown = [samples[r][0] for r, (_n, k) in expected.items() if k == kind]
            if shown:
                template = _unit(np.mean(shown, axis=0), len(shown[0]), kind)
                if min(float(v @ template) for v in shown) < float(self.rcfg["kind_min_ncc"]):
                    raise ValueError(f"the {kind} cards in the photo do not look alike: is a hand or a shadow over one?")
                emblems[kind] = np.round(template, 5).tolist()
        for noble in NOBLES:
            shown = [samples[r][1] for r, (n, _k) in expected.items() if n == noble]
            if shown:
                nobles[noble] = np.round(np.median(shown, axis=0), 4).tolist()
        kinds = [k for k in KINDS if k in emblems]
        for i, a in enumerate(kinds):  # emblems a reading could not tell apart teach nothing
            for b in kinds[i + 1:]:
                if float(np.asarray(emblems[a]) @ np.asarray(emblems[b])) > 1 - float(self.rcfg["kind_margin"]):
                    raise ValueError(f"the {a} and the {b} cards look alike in the photo; take it again, closer")
        return {"emblems": emblems, "nobles": nobles}

    # -- one frame -------------------------------------------------------------------------------------
    def read(self, frame: np.ndarray, pose: PoseResult | None = None) -> Observation:
        t0 = time.perf_counter()
        if pose is None:
            pose = self.tracker.update(frame)
        timings = {"pose": (time.perf_counter() - t0) * 1000}
        if not pose.usable:
            return Observation.unusable(pose.message, timings)
        edges = {self._edge_of(i) for i in pose.markers_used}
        if len(edges) < 2:
            return Observation.unusable(
                f"markers on one edge only ({', '.join(map(str, pose.markers_used))}); the far and the near strip "
                "must both be in view",
                timings,
            )
        q = quality.assess(frame, pose, self.board)
        problem = q.problem(float(self.rcfg["max_blur_mm"]))
        if problem is not None:
            return Observation.unusable(problem, timings)
        if self.arms.crossings(frame, pose):
            # a card laid beyond the map's side lies across its edge too, for as long as it lies there
            return Observation.unusable("a hand, an arm or a card reaches over the table's edge: take it away, or "
                                        "slide both marker strips so that every card lies between them", timings)
        outside = self._out_of_view(frame, pose)
        if outside:
            # its samples would read black: said as it is, not as a hand over the cards
            more = f" and {len(outside) - 6} more" if len(outside) > 6 else ""
            return Observation.unusable(
                f"play area partly out of view ({', '.join(outside[:6])}{more}); bring the whole table into the frame",
                timings,
            )
        self._px_per_mm = q.px_per_mm
        t = time.perf_counter()
        phase = self._phase(frame, pose)
        timings["grid"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        self._samples = {}
        regions, confidence, extra = self._cells(frame, pose, phase)
        timings["cells"] = (time.perf_counter() - t) * 1000
        unc = float(self.rcfg["uncertain_below"])
        if any(c < unc for c in confidence.values()):
            # pose error far from the markers (few markers on one strip) or a card laid off its cell can
            # put the sampling points off the cards: measure where the cards lie, re-read with the fit
            t = time.perf_counter()
            shift = self._registration(frame, pose, phase, confidence, extra)
            if shift is not None:
                first = self._samples
                r2, c2, x2 = self._cells(frame, pose, phase, shift)
                if sum(c < unc for c in c2.values()) < sum(c < unc for c in confidence.values()):
                    regions, confidence, extra = r2, c2, x2
                    extra["registered_mm"] = round(float(np.abs(shift).max()), 2)
                else:
                    self._samples = first  # the cards as first read are the ones reported
            timings["register"] = (time.perf_counter() - t) * 1000
        timings["total"] = (time.perf_counter() - t0) * 1000
        extra["phase_mm"] = [round(float(v), 2) for v in phase]
        extra["pose"] = pose.message
        paper_w = float(extra.pop("paper_white"))
        low = {r for r, c in confidence.items() if c < unc}
        # a doubt over a peeking card, or over an emblem the family's deck has not shown yet, is no hand
        blob = _largest_touching(low - set(extra.get("covers_doubt", ())) - set(extra.get("look_doubt", ())))
        if extra["occluded"] or blob >= int(self.rcfg["hand_uncertain_cells"]):
            where = ", ".join(extra["occluded"] or sorted(low))
            return Observation(regions, confidence, unc, usable=False, timings_ms=timings, extra=extra,
                               status=f"hand or object over the cards ({where}); nothing read")
        t = time.perf_counter()
        beside = set(regions) | low
        extra["clear_beyond"] = self._clear_beyond(frame, pose, phase, paper_w, beside | self._edge_cards)
        self._edge_cards |= beside  # a card moved off an edge cell may have had one laid beside it before it left
        timings["beyond"] = (time.perf_counter() - t) * 1000
        timings["total"] = (time.perf_counter() - t0) * 1000
        status = "ok" if not low else f"uncertain: {', '.join(sorted(low))}"
        return Observation(regions, confidence, unc, True, status, timings, extra)

    def _out_of_view(self, frame: np.ndarray, pose: PoseResult) -> list[str]:
        """Cells whose nominal card lies partly outside the frame (none when the play area is in view)."""
        h, w = frame.shape[:2]
        x0, y0, x1, y1 = self.board.play_area_mm or (0.0, 0.0, *self.board.size_mm)

        def inside(px: np.ndarray) -> np.ndarray:
            return (px[..., 0] >= -0.5) & (px[..., 0] <= w - 0.5) & (px[..., 1] >= -0.5) & (px[..., 1] <= h - 0.5)

        if inside(pose.board_to_image(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64))).all():
            return []  # the frame is convex: the whole play area is in it
        cw, ch = self.grid.card_mm
        quad = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float64)
        px = pose.board_to_image((self.cell_tl[:, None, :] + quad[None]).reshape(-1, 2)).reshape(-1, 4, 2)
        return sorted(self.cell_ids[i] for i in np.flatnonzero(~inside(px).all(axis=1)))

    def _phase(self, frame: np.ndarray, pose: PoseResult) -> np.ndarray:
        """Offset (mm) of the card lattice from the nominal grid, in (-pitch/2, pitch/2], kept continuous.

        Whiteness profiles along lines across the play area and ``phase_reach_mm`` beyond it, off the
        marker strips (sampled from the frame through the pose, ``phase_step_mm`` apart along a line,
        ``phase_line_mm`` between lines); the summed absolute derivative is folded by the pitch and the
        fold scored for a card's four edges.
        """
        rc = self.rcfg
        step = float(rc["phase_step_mm"])
        out = []
        for axis in (0, 1):
            along, pts, pair = self.phase_lines[axis]
            white = _whiteness(sample_bgr(frame, pose, pts.reshape(-1, 2))).reshape(pts.shape[:2])
            prof = (np.abs(np.diff(white, axis=1)) * pair).sum(axis=0)  # edge strength between samples
            pos = (along[:-1] + along[1:]) / 2
            pitch = self.grid.pitch_mm[axis]
            n = int(round(pitch / step))
            bins = np.floor(((pos - self.grid.origin_mm[axis]) % pitch) / step).astype(int) % n
            folded = np.bincount(bins, weights=prof, minlength=n)
            folded = folded + np.roll(folded, 1) + np.roll(folded, -1)  # +-1 sample tolerance
            # a card's four edges across this axis: outer and inner border edge at each end (the inner
            # field/border edge is often the stronger; scoring the outer pair alone let a row's inner edge
            # plus noise beat the true phase when a row's far edges lay outside the sampled lines)
            card = int(round(self.grid.card_mm[axis] / step))
            border = int(round(float(self.deck["border_mm"]) / step))
            score = folded + np.roll(folded, -border) + np.roll(folded, -(card - border)) + np.roll(folded, -card)
            p = int(np.argmax(score))
            # sub-sample: parabola through the peak
            s_l, s_c, s_r = score[p - 1], score[p], score[(p + 1) % n]
            den = s_l - 2 * s_c + s_r
            frac = 0.5 * (s_l - s_r) / den if den < 0 else 0.0
            phase = (p + 0.5 + frac) * step
            half = pitch / 2
            if phase > half:
                phase -= pitch
            if self.phase_mm is not None:  # keep cards in the cells they were in last frame
                prev = float(self.phase_mm[axis])
                phase += pitch * round((prev - phase) / pitch)
            out.append(phase)
        self.phase_mm = np.array(out)
        return self.phase_mm

    def _registration(self, frame: np.ndarray, pose: PoseResult, phase: np.ndarray, confidence: Mapping[str, float],
                      extra: Mapping[str, Any]) -> np.ndarray | None:
        """Per-cell correction (C, 2) mm of the sampling points, or None: each occupied or doubtful cell's
        card is found by the offset (within ``register_mm``) that best separates its border ring from its
        table gap; an affine field of board position is fitted to the cards found (robust to one card's
        jitter) and applied to every cell. Only run when a frame has doubtful cells."""
        rc = self.rcfg
        feats = extra["features"]
        ratio = np.array([feats[r][0] for r in self.cell_ids])
        conf = np.array([confidence[r] for r in self.cell_ids])
        idx = np.flatnonzero((ratio >= float(rc["occupied_ratio"])) | (conf < float(rc["uncertain_below"])))
        if len(idx) < 3:
            return None
        reach, step = float(rc["register_mm"]), float(rc["register_step_mm"])
        o = np.arange(-reach, reach + 1e-9, step)
        offs = np.stack(np.meshgrid(o, o, indexing="ij"), -1).reshape(-1, 2)  # (O, 2)
        stride = int(rc["register_stride"])
        ring, gap = self.points["ring"][::stride], self.points["gap"][:: max(1, stride // 2)]
        local = np.vstack([ring, gap])
        tl = (self.cell_tl + phase)[idx]
        pts = tl[:, None, None, :] + offs[None, :, None, :] + local[None, None, :, :]
        w = _whiteness(sample_bgr(frame, pose, pts.reshape(-1, 2))).reshape(len(idx), len(offs), len(local))
        score = w[..., : len(ring)].mean(-1) / np.maximum(w[..., len(ring):].mean(-1), 8.0)  # (K, O)
        best = np.argmax(score, axis=1)
        k = np.arange(len(idx))
        good = score[k, best] >= float(rc["occupied_ratio"])
        n = len(o)
        bi, bj = np.divmod(best, n)
        good &= (bi > 0) & (bi < n - 1) & (bj > 0) & (bj < n - 1)  # at the search's edge: not found
        if good.sum() < 3:
            return None
        # sub-step: a parabola through the best offset and its neighbours, per axis
        sc = score.reshape(len(idx), n, n)
        ci, cj = np.clip(bi, 1, n - 2), np.clip(bj, 1, n - 2)

        def vertex(lo: np.ndarray, c: np.ndarray, hi: np.ndarray) -> np.ndarray:
            den = lo - 2 * c + hi
            return np.where(den < 0, np.clip(0.5 * (lo - hi) / np.where(den < 0, den, -1.0), -0.5, 0.5), 0.0)

        found = np.c_[o[ci] + step * vertex(sc[k, ci - 1, cj], sc[k, ci, cj], sc[k, ci + 1, cj]),
                      o[cj] + step * vertex(sc[k, ci, cj - 1], sc[k, ci, cj], sc[k, ci, cj + 1])][good]
        centre = (tl[good] + np.array(self.grid.card_mm) / 2) / 100.0

        def design(c: np.ndarray, quadratic: bool) -> np.ndarray:
            x, y = c[:, 0], c[:, 1]
            cols = [x, y, np.ones(len(c))] + ([x * x, x * y, y * y] if quadratic else [])
            return np.stack(cols, 1)

        quadratic = len(found) >= int(rc["register_quadratic_min"])  # the pose's error is projective
        X = design(centre, quadratic)
        coef = np.linalg.lstsq(X, found, rcond=None)[0]
        res = np.abs(X @ coef - found).max(axis=1)
        keep = res <= max(2.0, 3 * float(np.median(res)))  # drop a card laid far off its cell
        if keep.sum() >= X.shape[1]:
            coef = np.linalg.lstsq(X[keep], found[keep], rcond=None)[0]
        allc = (self.cell_tl + phase + np.array(self.grid.card_mm) / 2) / 100.0
        shift = design(allc, quadratic) @ coef
        shift[idx[good]] = found  # a card found lies where it was found
        return shift

    def _cells(self, frame: np.ndarray, pose: PoseResult, phase: np.ndarray, shift: np.ndarray | None = None):
        """Two sampling stages (one ``cv2.remap`` each): the border ring and the table gap of every cell
        (occupied, table colour, foreign colours in the gap); then, only where needed, the field, emblem
        and edge profiles of the occupied cells and a sparse inside of the empty ones (foreign colours)."""
        rc = self.rcfg
        tl = self.cell_tl + phase  # (C, 2) board mm of each card's top-left
        if shift is not None:
            tl = tl + shift
        P = self.points
        C = len(tl)
        # -- stage 1, every cell: ring + gap
        n_ring = len(P["ring"])
        local = np.vstack([P["ring"], P["gap"]])
        bgr = sample_bgr(frame, pose, (tl[:, None, :] + local[None, :, :]).reshape(-1, 2)).reshape(C, len(local), 3)
        wh = _whiteness(bgr)
        ring_px, gap_px = bgr[:, :n_ring].astype(np.float32), bgr[:, n_ring:].astype(np.float32)
        ring_wv, gap_wv = wh[:, :n_ring], wh[:, n_ring:]
        ring_w = np.median(ring_wv, axis=1).astype(np.float64)
        gap_w = np.percentile(gap_wv, 25, axis=1).astype(np.float64)  # peeks may cover two sides
        # occupied: the border against the table beside it, side by side (a shadow's edge across a cell
        # lights one side and not another); the second best side (a lower card may peek out on two)
        side_ring = np.stack([np.median(ring_wv[:, m], axis=1) for m in self.ring_sides], axis=1)
        side_gap = np.stack([np.median(gap_wv[:, m], axis=1) for m in self.gap_sides], axis=1)
        side_ratio = np.sort(side_ring / np.maximum(side_gap, 8.0), axis=1)[:, -2].astype(np.float64)
        ratio = ring_w / np.maximum(gap_w, 8.0)
        # sides that all look like their own table beside them: no card, however the cell's table differs
        ratio = np.where(side_ratio < float(rc["occupied_band"][0]), side_ratio, ratio)
        lo, hi = rc["occupied_band"]
        occupied = ratio >= float(rc["occupied_ratio"])
        occ_conf = np.where(occupied, np.clip((ratio - lo) / (float(rc["occupied_ratio"]) - lo), 0, 1),
                            np.clip((hi - ratio) / (hi - float(rc["occupied_ratio"])), 0, 1))
        occ_idx = np.flatnonzero(occupied)
        emp_idx = np.flatnonzero(~occupied)
        K = len(occ_idx)
        ring_bgr = np.median(ring_px[occ_idx], axis=1).astype(np.float64)  # (K, 3)
        table_bgr = np.percentile(gap_px, 25, axis=1)  # (C, 3)
        # the light over each cell, from its own table (a shadow darkens table and card alike): the
        # paper's whiteness is judged against the paper as lit there, not as in the brightest light
        level = np.maximum(table_bgr.mean(axis=1), 8.0)
        light = np.clip(level / float(np.median(level)), float(rc["light_min"]), 1.0)  # brighter: the paper may clip
        paper_w = float(np.percentile(ring_w[occ_idx] / light[occ_idx], 90)) if K else 200.0
        paper_bgr = np.percentile(ring_bgr / light[occ_idx, None], 90, axis=0) if K else np.full(3, 200.0)
        white_mid = gap_w + 0.5 * (paper_w * light - gap_w)
        tol = np.maximum(float(rc["foreign_min_dist"]), float(rc["foreign_rel_dist"]) * np.linalg.norm(table_bgr, axis=1))

        lo_k, hi_k = (float(v) for v in rc["table_light_range"])

        def foreign(idx: np.ndarray, samples_bgr: np.ndarray, samples_w: np.ndarray, blends: bool = False) -> np.ndarray:
            """Fraction of samples neither table (in any light within ``table_light_range`` of the cell's:
            a shadow's edge may cross a cell) nor (with ``blends``) a table/paper blend, nor white."""
            tb = table_bgr[idx]
            k = np.clip(np.einsum("kni,ki->kn", samples_bgr, tb) / np.maximum((tb * tb).sum(1), 1.0)[:, None], lo_k, hi_k)
            lit = samples_bgr - k[..., None] * tb[:, None, :]
            diff = samples_bgr - tb[:, None, :]
            far = np.einsum("kni,kni->kn", lit, lit) > (tol[idx] ** 2)[:, None]
            if blends:  # a card edge blurred into the table lies between table and paper colour
                seg = paper_bgr[None, :] * light[idx, None] - tb  # (k, 3)
                t = np.clip(np.einsum("kni,ki->kn", diff, seg) / (seg * seg).sum(1)[:, None], 0, 1)
                off = diff - t[..., None] * seg[:, None, :]
                far &= np.einsum("kni,kni->kn", off, off) > (tol[idx] ** 2)[:, None]
            return (far & (samples_w < white_mid[idx][:, None])).mean(axis=1)

        gap_foreign = foreign(np.arange(C), gap_px, gap_wv, blends=True)
        ring_white = np.ones(C)
        ring_white[occ_idx] = (ring_wv[occ_idx] > white_mid[occ_idx][:, None]).mean(axis=1)
        # -- stage 2: occupied cells' field, emblem and edge profiles; empty cells' sparse inside
        n_f, n_e = len(P["field"]), len(P["emblem"])
        pk = P["peek"].reshape(-1, 2)  # (4 * positions * offsets, 2)
        occ_local = np.vstack([P["field"], P["emblem"], pk])
        inner = self.inner_sparse
        pts = np.vstack([(tl[occ_idx][:, None, :] + occ_local[None]).reshape(-1, 2),
                         (tl[emp_idx][:, None, :] + inner[None]).reshape(-1, 2)])
        bgr2 = sample_bgr(frame, pose, pts)
        occ_bgr = bgr2[: K * len(occ_local)].reshape(K, len(occ_local), 3)
        emp_bgr = bgr2[K * len(occ_local):].reshape(len(emp_idx), len(inner), 3).astype(np.float32)
        inner_foreign = np.zeros(C)
        if len(emp_idx):
            inner_foreign[emp_idx] = foreign(emp_idx, emp_bgr, _whiteness(emp_bgr))
        noble_i = np.zeros(C, int)
        kind_i = np.zeros(C, int)
        noble_margin = np.zeros(C)
        k1 = np.zeros(C)
        kd = np.zeros(C)
        peek = np.zeros(C)
        conf_occ = np.zeros(C)
        covers_doubt = np.zeros(C, bool)  # unsure only whether the card covers another (no sign of a hand)
        look_doubt = np.zeros(C, bool)  # unsure only for an emblem the family's deck has not shown yet (no hand either)
        if K:
            field_px = occ_bgr[:, :n_f].astype(np.float32)
            field_w = np.median(_whiteness(field_px), axis=1).astype(np.float64)
            # noble: field colour white-balanced by the card's border
            field_bgr = np.median(field_px, axis=1).astype(np.float64)
            norm = field_bgr / np.maximum(ring_bgr, 1.0)
            d = np.linalg.norm(norm[:, None, :] - self.noble_ref[None, :, :], axis=2)
            order = np.argsort(d, axis=1)
            d1, d2 = np.take_along_axis(d, order[:, :2], 1).T
            noble_margin[occ_idx] = (d2 - d1) / np.maximum(d2, 1e-6)
            noble_i[occ_idx] = order[:, 0]
            # kind: emblem whiteness against the templates
            em = _whiteness(occ_bgr[:, n_f:n_f + n_e])
            em = em - em.mean(axis=1, keepdims=True)
            em /= np.linalg.norm(em, axis=1, keepdims=True) + 1e-6
            ncc = em @ self.templates.T
            korder = np.argsort(-ncc, axis=1)
            a1, a2 = np.take_along_axis(ncc, korder[:, :2], 1).T
            k1[occ_idx], kd[occ_idx], kind_i[occ_idx] = a1, a1 - a2, korder[:, 0]
            self._samples = {self.cell_ids[c]: (em[j], norm[j]) for j, c in enumerate(occ_idx)}
            # covers: the white run across each edge, from the top card's field to the first non-white
            # beyond it -- the top card's border, plus a peeking lower card's
            n_pos, n_off = len(self.peek_positions), len(self.peek_offsets)
            w = _whiteness(occ_bgr[:, n_f + n_e:]).reshape(K, 4, n_pos, n_off)
            prof = np.median(w, axis=2)  # (K, 4, n_off): field -> border -> (peek) -> table
            f = float(rc["peek_level"])
            rw, gw = ring_w[occ_idx], gap_w[occ_idx]
            # each side against its own border, and against its own table where that is clearly more lit
            # than the cell's darkest (a shadow's edge across the card); otherwise -- a lower card peeking
            # out, or blur -- the cell's darkest table, lit as that side's border is
            sr, sg = side_ring[occ_idx], side_gap[occ_idx]  # (K, 4)
            darkest = (gw / np.maximum(rw, 1.0))[:, None] * sr
            lit_more = (sg < (sr + darkest) / 2) & (sg > 1.3 * gw[:, None])  # table, and clearly in more light
            table_side = np.where(lit_more, sg, gw[:, None])
            side_rw = np.where(lit_more, sr, rw[:, None])
            up = (field_w[:, None] + f * (side_rw - field_w[:, None]))[:, :, None]
            down = (table_side + f * (side_rw - table_side))[:, :, None]
            widths = _white_run(prof, up, down, self.peek_offsets, float(rc["peek_dip_mm"]))
            corner = np.minimum(widths, np.roll(widths, -1, axis=1))  # (top, right), (right, bottom), ...
            # the excess over the card's own narrowest side (its border alone: a lower card peeks out on
            # two sides of one corner only): blur widens every side's run alike -- a 4 mm border read
            # 5.0-5.9 mm in a blurred frame at 0.55-0.75 px/mm, against an absolute 6.1 mm threshold that
            # made four touching single cards doubtful and the frame a "hand" (seed 11 scene 88)
            ref = np.maximum(widths.min(axis=1), float(self.deck["border_mm"]) - 1.0)  # a failed side is no reference
            peek[occ_idx] = corner.max(axis=1) - ref
            # a lower card peeking out on one side only, its other side hidden under a neighbour's card laid
            # over it: whether this card covers another is unsure -- where the one side's excess is a lower
            # card's peek (4 mm); a longer white run is the strip's paper or a neighbour's stack beyond the gap
            side_peek = widths.max(axis=1) - ref
            noble_conf = np.clip(noble_margin[occ_idx] / float(rc["noble_margin"]), 0, 1)
            kind_conf = kind_confidence(a1, kd[occ_idx], rc)
            untaught = self.untaught_kinds[korder[:, 0]]
            kind_conf = np.where(untaught, np.minimum(kind_conf, 0.5), kind_conf)
            cov_conf = np.clip(np.abs(peek[occ_idx] - float(rc["covers_excess_mm"])) / float(rc["covers_band_mm"]), 0, 1)
            if self._px_per_mm is not None and self._px_per_mm < float(rc["covers_min_px_per_mm"]):
                # a lower card peeks out 1.7 mm: under 0.5 px/mm (a 640x360 frame of the table, 0.33-0.46)
                # that is less than a pixel, blurred by the scaling -- a card read as covering by 1.8 mm
                # too much; whether a card covers another is then unsure, the card itself still read
                cov_conf = np.minimum(cov_conf, 0.5)
            lo, hi = (float(v) for v in rc["covers_one_side_mm"])
            one_sided = (peek[occ_idx] < float(rc["covers_excess_mm"])) & (side_peek >= lo) & (side_peek <= hi)
            cov_conf = np.where(one_sided, np.minimum(cov_conf, 0.5), cov_conf)
            conf_occ[occ_idx] = np.minimum.reduce([occ_conf[occ_idx], noble_conf, kind_conf, cov_conf])
            unc = float(rc["uncertain_below"])
            covers_doubt[occ_idx] = (cov_conf < unc) & (np.minimum.reduce([occ_conf[occ_idx], noble_conf, kind_conf]) >= unc)
            look_doubt[occ_idx] = untaught & (np.minimum.reduce([occ_conf[occ_idx], noble_conf, cov_conf]) >= unc)
        covers = peek >= float(rc["covers_excess_mm"])
        # occlusion: a hand or object is neither table nor card paper
        occluded = (gap_foreign > float(rc["foreign_gap_max"])) | np.where(
            occupied, ring_white < float(rc["ring_white_min"]), inner_foreign > float(rc["foreign_inner_max"])
        )
        # ...nor, where it covers a cell and all its gap, the table: that cell's "table" then has another hue
        # than the rest of the table (a palm over a card on felt read as an empty cell, seed 8 hand frame 34)
        chroma = table_bgr / np.maximum(table_bgr.sum(axis=1, keepdims=True), 1.0)
        table_off = np.linalg.norm(chroma - np.median(chroma, axis=0), axis=1)
        occluded |= table_off > float(rc["table_hue_max"])
        conf = np.where(occluded, 0.0, np.where(occupied, conf_occ, occ_conf))
        feats = np.round(np.stack([ratio, noble_margin, k1, kd, peek, gap_foreign, inner_foreign, ring_white, table_off], 1), 3).tolist()
        conf_l = np.round(conf, 4).tolist()
        regions: dict[str, list[Any]] = {}
        confidence: dict[str, float] = {}
        details: dict[str, Any] = {}
        for i, rid in enumerate(self.cell_ids):
            if occupied[i]:
                regions[rid] = [{"noble": NOBLES[noble_i[i]], "kind": KINDS[kind_i[i]], "covers": bool(covers[i])}]
            confidence[rid] = conf_l[i]
            details[rid] = feats[i]
        hidden = sorted(self.cell_ids[i] for i in np.flatnonzero(occluded))
        doubt = sorted(self.cell_ids[i] for i in np.flatnonzero(covers_doubt & ~occluded))
        untaught_cells = sorted(self.cell_ids[i] for i in np.flatnonzero(look_doubt & ~occluded))
        return regions, confidence, {"features": details, "occluded": hidden, "covers_doubt": doubt, "look_doubt": untaught_cells,
                                     "paper_white": paper_w}


@dataclass(frozen=True)
class _Beyond:
    """A cell just beyond the map (see :meth:`FalconryReader._beyond_cells`)."""

    id: str
    beside: str  # the map's cell beside it
    tl: np.ndarray  # nominal top-left of its card, board mm
    local: np.ndarray  # card-local points sampled, off the strips (n, 2)
    covered: tuple[int, ...]  # strip markers a card laid there would cover


def _marker_cells(board: BoardMap) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """Per fiducial: board points in each of its 6 x 6 cells (border included, row by row, five points a cell) and
    which cells are white."""
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, board.dictionary))
    out = {}
    for f in board.fiducials:
        (x0, y0), side = f.corners_mm()[0], f.side_mm
        cell = side / 6
        rows, cols = np.meshgrid(np.arange(6), np.arange(6), indexing="ij")
        centres = np.c_[x0 + (cols.ravel() + 0.5) * cell, y0 + (rows.ravel() + 0.5) * cell]
        spread = np.array([[0, 0], [-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * cell / 4
        white = cv2.aruco.generateImageMarker(dictionary, f.id, 6, borderBits=1).ravel() > 127
        out[f.id] = ((centres[:, None, :] + spread[None]).reshape(-1, 2), white)
    return out


def _overlaps(box: tuple[float, float, float, float], corners: np.ndarray) -> bool:
    (x0, y0), (x1, y1) = corners.min(axis=0), corners.max(axis=0)
    return bool(x0 < box[2] and box[0] < x1 and y0 < box[3] and box[1] < y1)


def kind_confidence(best: np.ndarray, margin: np.ndarray, rc: Mapping[str, Any]) -> np.ndarray:
    """How surely each card's emblem is its kind: ``best``, its likeness (NCC) to the nearest taught emblem, and
    ``margin``, how much nearer that is than the next. Both must be wide: an emblem alike to no taught one reads
    poorly whatever the margin (box 23:180 seen through a wide lens with no profile, its emblem drawn off the
    cell's grid: a marker read as a falconer at likeness 0.61 and margin 0.16, surely)."""
    by_margin = np.clip(margin / float(rc["kind_margin"]), 0, 1)
    by_likeness = np.clip((best - float(rc["kind_sure_ncc"]) + 0.1) / 0.1, 0, 1)
    return by_margin * by_likeness


def _unit(values: np.ndarray, n: int, what: str, norm: bool = True) -> np.ndarray:
    """A taught vector checked (``n`` finite numbers); zero-mean and unit-norm with ``norm``."""
    if values.shape != (n,) or not np.all(np.isfinite(values)):
        raise ValueError(f"the taught look's {what} does not fit this reader; teach the board again")
    if not norm:
        return values
    values = values - values.mean()
    return values / (np.linalg.norm(values) + 1e-9)


def _sides(points: np.ndarray, w: float, h: float) -> list[np.ndarray]:
    """Masks of the card-local points nearest each side (top, right, bottom, left)."""
    d = np.stack([points[:, 1], w - points[:, 0], h - points[:, 1], points[:, 0]], axis=1)
    near = np.argmin(d, axis=1)
    return [near == k for k in range(4)]


def _whiteness(bgr: np.ndarray) -> np.ndarray:
    """The least of the three channels: paper is high, the table and the nobles' colours low."""
    return np.minimum(np.minimum(bgr[..., 0], bgr[..., 1]), bgr[..., 2]).astype(np.float32)


def sample_bgr(frame: np.ndarray, pose: PoseResult, points_mm: np.ndarray) -> np.ndarray:
    """BGR (uint8, (N, 3)) of the frame at board points, bilinear (points outside the frame read 0)."""
    return _sample_px(frame, pose.board_to_image(np.asarray(points_mm, np.float64)))


def _sample_px(frame: np.ndarray, px: np.ndarray) -> np.ndarray:
    """BGR (uint8, (N, 3)) of the frame at pixel points (N, 2), bilinear (points outside the frame read 0)."""
    px = np.asarray(px, np.float32)
    n = len(px)
    cols = 1024
    rows = -(-n // cols)
    pad = np.full((rows * cols, 2), -10.0, np.float32)
    pad[:n] = px
    mx = np.ascontiguousarray(pad[:, 0].reshape(rows, cols))
    my = np.ascontiguousarray(pad[:, 1].reshape(rows, cols))
    out = cv2.remap(frame, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    return out.reshape(rows * cols, -1)[:n]


def _white_run(prof: np.ndarray, up: np.ndarray, down: np.ndarray, offs: np.ndarray, dip_mm: float) -> np.ndarray:
    """Length (mm) of the first white run of each profile (..., n): from its first crossing of ``up``
    upwards to the next crossing of ``down`` downwards, both interpolated between samples. With each
    level halfway between the two sides of its step the crossings do not move with the blur. Dips up
    to ``dip_mm`` inside the run do not end it: a lower card's field shows between the top card's edge
    and the lower card's border when the top card lies a little inwards."""
    n = prof.shape[-1]
    up = np.broadcast_to(up, prof.shape)
    down = np.broadcast_to(down, prof.shape)
    above = prof > up
    start = np.argmax(above, axis=-1)
    top = np.maximum(up, down)
    plateau = (np.arange(n) >= start[..., None]) & (prof > top)
    above = above & plateau.any(axis=-1, keepdims=True)
    inside = np.argmax(plateau, axis=-1)  # on the white: the run ends below ``down`` after this
    step = float(offs[1] - offs[0])
    white = prof > down
    idx = np.broadcast_to(np.arange(n), prof.shape)
    prev = np.maximum.accumulate(np.where(white, idx, -n), axis=-1)
    nxt = np.flip(np.minimum.accumulate(np.flip(np.where(white, idx, 2 * n), -1), axis=-1), -1)
    white |= (prev >= 0) & (nxt < n) & (nxt - prev - 1 <= int(round(dip_mm / step)))
    after = (np.arange(n) > inside[..., None]) & ~white
    end = np.where(after.any(axis=-1), np.argmax(after, axis=-1), n - 1)

    def cross(i: np.ndarray, level: np.ndarray) -> np.ndarray:  # level crossing between samples i - 1 and i
        i = np.clip(i, 1, n - 1)
        a = np.take_along_axis(prof, (i - 1)[..., None], -1)[..., 0]
        b = np.take_along_axis(prof, i[..., None], -1)[..., 0]
        lv = level[..., 0]
        ok = np.abs(b - a) > 1e-6
        f = np.where(ok, (lv - a) / np.where(ok, b - a, 1.0), 0.5)
        return offs[i - 1] + np.clip(f, 0, 1) * step

    width = cross(end, down) - cross(start, up)
    return np.where(above.any(axis=-1), width, 0.0)


def _largest_touching(cells: set[str]) -> int:
    """Size of the largest group of cells touching by a side or a corner."""
    pts = {parse_cell(c) for c in cells}
    best, seen = 0, set()
    for p in pts:
        if p in seen:
            continue
        stack, n = [p], 0
        seen.add(p)
        while stack:
            x, y = stack.pop()
            n += 1
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    q = (x + dx, y + dy)
                    if q in pts and q not in seen:
                        seen.add(q)
                        stack.append(q)
        best = max(best, n)
    return best


def main(argv: Sequence[str] | None = None) -> int:
    return read_file_main(argv, "python -m companion.vision.readers.falconry", __doc__.split("\n\n")[0],
                          str(bundled("calibration", "boards", "falconry.json")),
                          FalconryReader)


if __name__ == "__main__":
    sys.exit(main())
