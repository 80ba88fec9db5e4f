"""Falconry reader: from a camera frame and its table pose to the top card of every cell.

Usage (one frame, prints the observation as JSON)::

    python -m companion.vision.readers.falconry FRAME.png [--board calibration/boards/falconry.json]

Stages, thresholds in ``readers/falconry.json`` (``reader``):

1. pose (:class:`~companion.vision.pose.BoardTracker`, full-resolution marker search: the strip
   markers are small; two adaptive-threshold windows) -- no usable pose, no reading;
2. nothing is rectified: every value is sampled from the frame at board points through the pose
   (:func:`sample_bgr`, one ``cv2.remap`` per stage), only where it is needed;
3. grid phase: hand-laid cards do not sit on the map's nominal grid, so the offset of the card
   lattice is measured from the card edges (whiteness profiles along lines across the play area,
   derivative folded by the pitch) and kept continuous from frame to frame; each card is reported in
   the nominal cell it falls in;
4. per cell, sampled at fixed card-local points: *occupied* (the card's white border against the
   local table colour), *noble* (the field colour, white-balanced by the card's own border, nearest
   to the deck's colours), *kind* (the white emblem's shape, correlated with templates drawn from
   the deck description); for occupied cells only, *covers*: the white run across each edge measured
   where the card actually lies -- from the top card's own field/border edge (its position, whatever
   the jitter) to the last white before the table, sub-sample interpolated at blur-free levels, short
   dips (a lower card's field showing) bridged -- is the top card's 4 mm border alone or a border plus a
   peeking lower card on two sides of one corner; each with a margin turned into a confidence, the
   cell's confidence is the least;
5. two or more uncertain cells touching each other mean a hand or an object over the table: the
   observation is not usable ("hand over the cards").

Region ids are the map's table cells ``x{tx}y{ty}``; descriptors ``{"noble", "kind", "covers"}``.
The reader knows nothing of the rules (the referee aligns table cells with the engine's cells).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import cv2
import numpy as np

from companion.vision.boardmap import BoardMap
from companion.vision.intrinsics import CameraProfile
from companion.vision.pose import BoardTracker, PoseResult
from companion.vision.readers import Observation
from companion.vision.scenes.falconry import KINDS, cell_id, parse_cell

NOBLES = ("H", "E", "G", "P")


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
    for d in np.arange(r0, r1 + 1e-9, 0.9):
        xs = np.arange(6.0, w - 6.0 + 1e-9, 2.0)
        ys = np.arange(6.0, h - 6.0 + 1e-9, 2.0)
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
    from companion.vision.scenes.falconry import draw_card

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
        self.grid = Grid.from_map(board)
        self.tracker = BoardTracker(board, self.config["pose"], camera)
        self.phase_mm: np.ndarray | None = None
        self.peek_offsets, self.peek_positions = _peek_axes(self.rcfg)
        self.points = _sample_points(self.grid.card_mm, self.rcfg)
        self.templates = emblem_templates(self.deck, self.rcfg)
        paper = np.array(self.deck["paper_bgr"], np.float64)
        self.noble_ref = np.array([np.array(self.deck["nobles"][n]["bgr"], np.float64) / paper for n in NOBLES])
        origin = np.array(self.grid.origin_mm)
        self.cell_tl = np.array([origin + np.multiply(c, self.grid.pitch_mm) for c in self.grid.cells])  # board mm

    def _edge_of(self, marker_id: int) -> bool:
        """True for a marker beyond the play area's far edge (y < play area), False for the near edge."""
        play = self.board.play_area_mm or (0.0, 0.0, *self.board.size_mm)
        f = self.board.fiducial(marker_id)
        return f is not None and f.center_mm[1] < (play[1] + play[3]) / 2

    def reset(self) -> None:
        self.tracker.reset()
        self.phase_mm = None

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
        t = time.perf_counter()
        phase = self._phase(frame, pose)
        timings["grid"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        regions, confidence, extra = self._cells(frame, pose, phase)
        timings["cells"] = (time.perf_counter() - t) * 1000
        timings["total"] = (time.perf_counter() - t0) * 1000
        extra["phase_mm"] = [round(float(v), 2) for v in phase]
        extra["pose"] = pose.message
        unc = float(self.rcfg["uncertain_below"])
        low = {r for r, c in confidence.items() if c < unc}
        blob = _largest_touching(low)
        if extra["occluded"] or blob >= int(self.rcfg["hand_uncertain_cells"]):
            where = ", ".join(extra["occluded"] or sorted(low))
            return Observation(regions, confidence, unc, usable=False, timings_ms=timings, extra=extra,
                               status=f"hand or object over the cards ({where}); nothing read")
        status = "ok" if not low else f"uncertain: {', '.join(sorted(low))}"
        return Observation(regions, confidence, unc, True, status, timings, extra)

    def _phase(self, frame: np.ndarray, pose: PoseResult) -> np.ndarray:
        """Offset (mm) of the card lattice from the nominal grid, in (-pitch/2, pitch/2], kept continuous.

        Whiteness profiles along lines across the play area (sampled from the frame through the pose,
        ``phase_step_mm`` apart along a line, ``phase_line_mm`` between lines); the summed absolute
        derivative is folded by the pitch and the fold scored for a card's two edges.
        """
        rc = self.rcfg
        step = float(rc["phase_step_mm"])
        gap = float(rc["phase_line_mm"])
        x0, y0, x1, y1 = self.board.play_area_mm or (0.0, 0.0, *self.board.size_mm)
        out = []
        for axis in (0, 1):
            lo, hi = ((x0, x1), (y0, y1))[axis]
            a0, a1 = ((y0, y1), (x0, x1))[axis]
            along = np.arange(lo + 3.0, hi - 3.0, step)
            across = np.arange(a0 + 3.0, a1 - 3.0, gap)
            A, B = np.meshgrid(along, across)  # (lines, n)
            pts = np.stack([A, B], -1) if axis == 0 else np.stack([B, A], -1)
            white = _whiteness(sample_bgr(frame, pose, pts.reshape(-1, 2))).reshape(A.shape)
            prof = np.abs(np.diff(white, axis=1)).sum(axis=0)  # edge strength between samples
            pos = (along[:-1] + along[1:]) / 2
            pitch = self.grid.pitch_mm[axis]
            n = int(round(pitch / step))
            bins = np.floor(((pos - self.grid.origin_mm[axis]) % pitch) / step).astype(int) % n
            folded = np.bincount(bins, weights=prof, minlength=n)
            folded = folded + np.roll(folded, 1) + np.roll(folded, -1)  # +-1 sample tolerance
            score = folded + np.roll(folded, -int(round(self.grid.card_mm[axis] / step)))
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

    def _cells(self, frame: np.ndarray, pose: PoseResult, phase: np.ndarray):
        rc = self.rcfg
        tl = self.cell_tl + phase  # (C, 2) board mm of each card's top-left
        P = self.points
        C = len(tl)
        names = ("ring", "gap", "field", "emblem")
        sizes = [len(P[k]) for k in names]
        local = np.vstack([P[k] for k in names])
        bgr = sample_bgr(frame, pose, (tl[:, None, :] + local[None, :, :]).reshape(-1, 2)).reshape(C, len(local), 3)
        white = {k: _whiteness(v) for k, v in zip(names, np.split(bgr, np.cumsum(sizes)[:-1], axis=1), strict=True)}
        parts = dict(zip(names, np.split(bgr.astype(np.float32), np.cumsum(sizes)[:-1], axis=1), strict=True))

        ring_w = np.median(white["ring"], axis=1).astype(np.float64)
        gap_w = np.percentile(white["gap"], 25, axis=1).astype(np.float64)  # peeks may cover two sides
        ratio = ring_w / np.maximum(gap_w, 8.0)
        lo, hi = rc["occupied_band"]
        occupied = ratio >= float(rc["occupied_ratio"])
        occ_conf = np.where(occupied, np.clip((ratio - lo) / (float(rc["occupied_ratio"]) - lo), 0, 1),
                            np.clip((hi - ratio) / (hi - float(rc["occupied_ratio"])), 0, 1))
        # noble: field colour white-balanced by the card's border
        ring_bgr = np.median(parts["ring"], axis=1).astype(np.float64)
        field_bgr = np.median(parts["field"], axis=1).astype(np.float64)
        norm = field_bgr / np.maximum(ring_bgr, 1.0)
        d = np.linalg.norm(norm[:, None, :] - self.noble_ref[None, :, :], axis=2)
        order = np.argsort(d, axis=1)
        d1 = np.take_along_axis(d, order[:, :1], 1)[:, 0]
        d2 = np.take_along_axis(d, order[:, 1:2], 1)[:, 0]
        noble_margin = (d2 - d1) / np.maximum(d2, 1e-6)
        noble_conf = np.clip(noble_margin / float(rc["noble_margin"]), 0, 1)
        # kind: emblem whiteness against the templates
        em = white["emblem"].astype(np.float32)
        em = em - em.mean(axis=1, keepdims=True)
        em /= np.linalg.norm(em, axis=1, keepdims=True) + 1e-6
        ncc = em @ self.templates.T
        korder = np.argsort(-ncc, axis=1)
        k1 = np.take_along_axis(ncc, korder[:, :1], 1)[:, 0]
        k2 = np.take_along_axis(ncc, korder[:, 1:2], 1)[:, 0]
        kind_conf = np.clip((k1 - k2) / float(rc["kind_margin"]), 0, 1) * np.clip(
            (k1 - float(rc["kind_min_ncc"]) + 0.1) / 0.1, 0, 1
        )
        # covers (occupied cells only): the white run across each edge, from the top card's field to
        # the first non-white beyond it -- the top card's border, plus a peeking lower card's
        peek = np.zeros(C)
        widths = np.zeros((C, 4))
        occ_idx = np.flatnonzero(occupied)
        if len(occ_idx):
            pk = P["peek"]  # (4, positions * offsets, 2)
            n_pos, n_off = len(self.peek_positions), len(self.peek_offsets)
            pts = tl[occ_idx][:, None, None, :] + pk[None, :, :, :]
            w = _whiteness(sample_bgr(frame, pose, pts.reshape(-1, 2))).reshape(len(occ_idx), 4, n_pos, n_off)
            prof = np.median(w, axis=2)  # (K, 4, n_off): field -> border -> (peek) -> table
            f = float(rc["peek_level"])
            field_w = np.median(white["field"], axis=1).astype(np.float64)
            up = (field_w + f * (ring_w - field_w))[occ_idx][:, None, None]
            down = (gap_w + f * (ring_w - gap_w))[occ_idx][:, None, None]
            widths[occ_idx] = _white_run(prof, up, down, self.peek_offsets, float(rc["peek_dip_mm"]))
            corner = np.stack([np.minimum(widths[:, a], widths[:, b]) for a, b in ((0, 1), (1, 2), (2, 3), (3, 0))], axis=1)
            peek = corner.max(axis=1)
        covers = peek >= float(rc["covers_min_mm"])
        cov_conf = np.clip(np.abs(peek - float(rc["covers_min_mm"])) / float(rc["covers_band_mm"]), 0, 1)
        # occlusion: a hand or object is neither table nor card paper
        gap_bgr = parts["gap"]
        table_bgr = np.percentile(gap_bgr, 25, axis=1)  # (C, 3)
        paper_w = float(np.percentile(ring_w[occupied], 90)) if occupied.any() else 200.0
        white_mid = gap_w + 0.5 * (paper_w - gap_w)
        tol = np.maximum(float(rc["foreign_min_dist"]), float(rc["foreign_rel_dist"]) * np.linalg.norm(table_bgr, axis=1))
        paper_bgr = np.percentile(ring_bgr[occupied], 90, axis=0) if occupied.any() else np.full(3, 200.0)

        def foreign(samples_bgr: np.ndarray, samples_w: np.ndarray, blends: bool = False) -> np.ndarray:
            far = np.linalg.norm(samples_bgr - table_bgr[:, None, :], axis=2) > tol[:, None]
            if blends:  # a card edge blurred into the table lies between table and paper colour
                seg = paper_bgr[None, :] - table_bgr  # (C, 3)
                t = np.clip(((samples_bgr - table_bgr[:, None, :]) * seg[:, None, :]).sum(2) / (seg * seg).sum(1)[:, None], 0, 1)
                off = np.linalg.norm(samples_bgr - (table_bgr[:, None, :] + t[..., None] * seg[:, None, :]), axis=2)
                far &= off > tol[:, None]
            return (far & (samples_w < white_mid[:, None])).mean(axis=1)

        gap_foreign = foreign(gap_bgr, white["gap"], blends=True)
        inner_bgr = np.concatenate([parts["field"], parts["emblem"]], axis=1)
        inner_foreign = foreign(inner_bgr, np.concatenate([white["field"], white["emblem"]], axis=1))
        ring_white = (white["ring"] > white_mid[:, None]).mean(axis=1)
        occluded = (gap_foreign > float(rc["foreign_gap_max"])) | np.where(
            occupied, ring_white < float(rc["ring_white_min"]), inner_foreign > float(rc["foreign_inner_max"])
        )
        regions: dict[str, list[Any]] = {}
        confidence: dict[str, float] = {}
        details: dict[str, Any] = {}
        for i, (tx, ty) in enumerate(self.grid.cells):
            rid = cell_id(tx, ty)
            if occupied[i]:
                regions[rid] = [{"noble": NOBLES[order[i, 0]], "kind": KINDS[korder[i, 0]], "covers": bool(covers[i])}]
                conf = min(occ_conf[i], noble_conf[i], kind_conf[i], cov_conf[i])
            else:
                conf = occ_conf[i]
            if occluded[i]:
                conf = 0.0
            confidence[rid] = round(float(conf), 4)
            details[rid] = [
                round(float(v), 3)
                for v in (ratio[i], noble_margin[i], k1[i], k1[i] - k2[i], peek[i], gap_foreign[i], inner_foreign[i], ring_white[i])
            ]
        hidden = sorted(cell_id(*self.grid.cells[i]) for i in np.flatnonzero(occluded))
        return regions, confidence, {"features": details, "occluded": hidden}


def _whiteness(bgr: np.ndarray) -> np.ndarray:
    """The least of the three channels: paper is high, the table and the nobles' colours low."""
    return np.minimum(np.minimum(bgr[..., 0], bgr[..., 1]), bgr[..., 2]).astype(np.float32)


def sample_bgr(frame: np.ndarray, pose: PoseResult, points_mm: np.ndarray) -> np.ndarray:
    """BGR (uint8, (N, 3)) of the frame at board points, bilinear (points outside the frame read 0)."""
    px = pose.board_to_image(np.asarray(points_mm, np.float64)).astype(np.float32)
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
    from companion.vision.boardmap import BoardMapError, load_board_map

    parser = argparse.ArgumentParser(prog="python -m companion.vision.readers.falconry", description=__doc__.split("\n\n")[0])
    parser.add_argument("frame")
    parser.add_argument("--board", default="calibration/boards/falconry.json")
    args = parser.parse_args(argv)
    try:
        board = load_board_map(args.board)
    except BoardMapError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    frame = cv2.imread(args.frame, cv2.IMREAD_COLOR)
    if frame is None:
        print(f"error: cannot read {args.frame}", file=sys.stderr)
        return 2
    obs = FalconryReader(board).read(frame)
    print(json.dumps(obs.as_json()))
    return 0 if obs.usable else 1


if __name__ == "__main__":
    sys.exit(main())
