"""Falconry reader: from a camera frame and its table pose to the top card of every cell.

Usage (one frame, prints the observation as JSON)::

    python -m companion.vision.readers.falconry FRAME.png [--board calibration/boards/falconry.json]

Stages, thresholds in ``readers/falconry.json`` (``reader``):

1. pose (:class:`~companion.vision.pose.BoardTracker`, full-resolution marker search: the strip
   markers are small) -- no usable pose, no reading;
2. rectify the play area (plus a margin) at ``px_per_mm``;
3. grid phase: hand-laid cards do not sit on the map's nominal grid, so the offset of the card
   lattice is measured from the card edges (column and row profiles of the gradient, folded by the
   pitch) and kept continuous from frame to frame; each card is reported in the nominal cell it
   falls in;
4. per cell, sampled at fixed card-local points: *occupied* (the card's white border against the
   local table colour), *noble* (the field colour, white-balanced by the card's own border, nearest
   to the deck's colours), *kind* (the white emblem's shape, correlated with templates drawn from
   the deck description), *covers* (a lower card's white border peeking out on two sides of one
   corner); each with a margin turned into a confidence, the cell's confidence is the least;
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
from companion.vision.pose import BoardTracker, PoseResult, rectify
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
    p0, p1 = rcfg["profile_mm"]
    offs = np.arange(p0, p1 + 1e-9, 0.5)  # across the edge, outward positive
    span = float(rcfg["peek_span"])
    xs = np.linspace(w * (1 - span) / 2, w * (1 + span) / 2, 9)
    ys = np.linspace(h * (1 - span) / 2, h * (1 + span) / 2, 9)
    A, Oa = np.meshgrid(xs, offs, indexing="ij")  # (9, n)
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
        m = float(self.rcfg["margin_mm"])
        x0, y0, x1, y1 = board.play_area_mm or (0.0, 0.0, *board.size_mm)
        self.area_mm = (x0 - m, y0 - m, x1 + m, y1 + m)
        self.points = _sample_points(self.grid.card_mm, self.rcfg)
        self.templates = emblem_templates(self.deck, self.rcfg)
        paper = np.array(self.deck["paper_bgr"], np.float64)
        self.noble_ref = np.array([np.array(self.deck["nobles"][n]["bgr"], np.float64) / paper for n in NOBLES])
        origin = np.array(self.grid.origin_mm) - self.area_mm[:2]
        self.cell_tl = np.array([origin + np.multiply(c, self.grid.pitch_mm) for c in self.grid.cells])  # canvas mm

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
        s = float(self.rcfg["px_per_mm"])
        canvas = rectify(frame, pose, self.area_mm, s)
        timings["rectify"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        white = canvas.min(axis=2)
        phase = self._phase(white)
        timings["grid"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        regions, confidence, extra = self._cells(canvas, white, phase)
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

    def _phase(self, white: np.ndarray) -> np.ndarray:
        """Offset (mm) of the card lattice from the nominal grid, in (-pitch/2, pitch/2], kept continuous."""
        s = float(self.rcfg["px_per_mm"])
        m = int(round((float(self.rcfg["margin_mm"]) + 3.0) * s))  # the play area only: no strips, no board edge
        img = white[m:-m, m:-m].astype(np.float32)
        gx = np.abs(cv2.Sobel(img, cv2.CV_32F, 1, 0, ksize=3))
        gy = np.abs(cv2.Sobel(img, cv2.CV_32F, 0, 1, ksize=3))
        out = []
        for axis, grad in ((0, gx), (1, gy)):
            prof = np.zeros(white.shape[1 - axis], np.float64)
            prof[m:-m] = grad.sum(axis=axis)
            pitch = self.grid.pitch_mm[axis] * s
            card = self.grid.card_mm[axis] * s
            origin = (self.grid.origin_mm[axis] - self.area_mm[axis]) * s
            n = int(np.floor(pitch))
            idx = np.arange(len(prof))
            folded = np.bincount(np.floor((idx - origin) % pitch).astype(int) % n, weights=prof, minlength=n)
            folded = folded + np.roll(folded, 1) + np.roll(folded, -1)  # +-1 px tolerance
            score = folded + np.roll(folded, -int(round(card)))  # left edge at p, right edge at p + card
            p = int(np.argmax(score))
            phase = p / s
            half = self.grid.pitch_mm[axis] / 2
            if phase > half:
                phase -= self.grid.pitch_mm[axis]
            if self.phase_mm is not None:  # keep cards in the cells they were in last frame
                prev = float(self.phase_mm[axis])
                phase += self.grid.pitch_mm[axis] * round((prev - phase) / self.grid.pitch_mm[axis])
            out.append(phase)
        self.phase_mm = np.array(out)
        return self.phase_mm

    def _cells(self, canvas: np.ndarray, white: np.ndarray, phase: np.ndarray):
        rc = self.rcfg
        s = float(rc["px_per_mm"])
        H, W = white.shape
        tl = self.cell_tl + phase  # (C, 2) canvas mm of each card's top-left

        def take(img: np.ndarray, local: np.ndarray) -> np.ndarray:
            pts = (tl[:, None, :] + local[None, :, :]) * s - 0.5
            q = np.round(pts).astype(np.int32)
            q[..., 0] = np.clip(q[..., 0], 0, W - 1)
            q[..., 1] = np.clip(q[..., 1], 0, H - 1)
            return img[q[..., 1], q[..., 0]]

        P = self.points
        ring_w = np.median(take(white, P["ring"]), axis=1).astype(np.float64)
        gap_w = np.percentile(take(white, P["gap"]), 25, axis=1).astype(np.float64)  # peeks may cover two sides
        ratio = ring_w / np.maximum(gap_w, 8.0)
        lo, hi = rc["occupied_band"]
        occupied = ratio >= float(rc["occupied_ratio"])
        occ_conf = np.where(occupied, np.clip((ratio - lo) / (float(rc["occupied_ratio"]) - lo), 0, 1),
                            np.clip((hi - ratio) / (hi - float(rc["occupied_ratio"])), 0, 1))
        # noble: field colour white-balanced by the card's border
        ring_bgr = np.median(take(canvas, P["ring"]), axis=1).astype(np.float64)
        field_bgr = np.median(take(canvas, P["field"]), axis=1).astype(np.float64)
        norm = field_bgr / np.maximum(ring_bgr, 1.0)
        d = np.linalg.norm(norm[:, None, :] - self.noble_ref[None, :, :], axis=2)
        order = np.argsort(d, axis=1)
        d1 = np.take_along_axis(d, order[:, :1], 1)[:, 0]
        d2 = np.take_along_axis(d, order[:, 1:2], 1)[:, 0]
        noble_margin = (d2 - d1) / np.maximum(d2, 1e-6)
        noble_conf = np.clip(noble_margin / float(rc["noble_margin"]), 0, 1)
        # kind: emblem whiteness against the templates
        em = take(white, P["emblem"]).astype(np.float32)
        em = em - em.mean(axis=1, keepdims=True)
        em /= np.linalg.norm(em, axis=1, keepdims=True) + 1e-6
        ncc = em @ self.templates.T
        korder = np.argsort(-ncc, axis=1)
        k1 = np.take_along_axis(ncc, korder[:, :1], 1)[:, 0]
        k2 = np.take_along_axis(ncc, korder[:, 1:2], 1)[:, 0]
        kind_conf = np.clip((k1 - k2) / float(rc["kind_margin"]), 0, 1) * np.clip(
            (k1 - float(rc["kind_min_ncc"]) + 0.1) / 0.1, 0, 1
        )
        # covers: the white run across each edge (the top card's border, plus a peeking lower card's)
        level = gap_w + float(rc["peek_level"]) * (ring_w - gap_w)
        n_off = int(round((rc["profile_mm"][1] - rc["profile_mm"][0]) / 0.5)) + 1
        widths = []
        for k in range(4):
            prof = np.median(take(white, P["peek"][k]).reshape(len(tl), 9, n_off), axis=1) > level[:, None]
            start = np.argmax(prof, axis=1)  # field -> border: the top card's border starts here
            after = np.where(np.arange(n_off)[None, :] >= start[:, None], ~prof, False)
            end = np.where(after.any(axis=1), np.argmax(after, axis=1), n_off)
            widths.append((end - start) * 0.5)
        widths = np.stack(widths, axis=1)  # (C, 4) mm of white across each edge
        corner = np.stack([np.minimum(widths[:, a], widths[:, b]) for a, b in ((0, 1), (1, 2), (2, 3), (3, 0))], axis=1)
        peek = corner.max(axis=1)
        covers = peek >= float(rc["covers_min_mm"])
        cov_conf = np.clip(np.abs(peek - float(rc["covers_min_mm"])) / float(rc["covers_band_mm"]), 0, 1)
        # occlusion: a hand or object is neither table nor card paper
        gap_bgr = take(canvas, P["gap"]).astype(np.float32)
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

        gap_foreign = foreign(gap_bgr, take(white, P["gap"]), blends=True)
        inner = np.vstack([P["field"], P["emblem"]])
        inner_foreign = foreign(take(canvas, inner).astype(np.float32), take(white, inner))
        ring_white = (take(white, P["ring"]) > white_mid[:, None]).mean(axis=1)
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
