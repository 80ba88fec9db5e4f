"""Shared helpers of the disc-piece readers (Verzauberte Eulen's owls, Mighty Magpies' magpies and tiles).

Pieces stand on known *spots* of the board (``docs/vision-notes.md``), so a reader
never searches the frame: it maps a fixed pattern of sample points per spot (board mm) through the
pose into the frame, reads their colours with one ``cv2.remap``, normalises them by the markers' black
and white (:mod:`companion.vision.photometry`: the lamp's colour and the exposure), divides them by the
board's colour there (the *light field*, fitted to bare-board patches: a shadow darkens it, something
of another colour on a patch is left out) and classifies each ring or centre of samples by the nearest
colour prototype. Colours are therefore *ratios to the bare board*: 1.0 everywhere is an empty spot
whatever the lighting.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import cv2
import numpy as np

from companion.vision import photometry, quality
from companion.vision.boardmap import BoardMap
from companion.vision.pose import PoseResult


def load_config(name: str, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``companion/vision/readers/<name>.json`` with ``overrides`` merged in key by key."""
    text = resources.files("companion.vision.readers").joinpath(f"{name}.json").read_text(encoding="utf-8")
    cfg = json.loads(text)
    cfg.pop("_doc", None)
    if overrides:
        _merge(cfg, overrides, "")
    return cfg


def _merge(base: dict[str, Any], over: Mapping[str, Any], path: str) -> None:
    for key, value in over.items():
        if key not in base:
            raise KeyError(f"unknown reader config key {path + key!r}")
        if isinstance(base[key], dict) and isinstance(value, Mapping):
            _merge(base[key], value, f"{path}{key}.")
        else:
            base[key] = value


def ring(radius_mm: float, n: int, phase: float = 0.0) -> np.ndarray:
    """``n`` offsets (mm) on a circle, shape (n, 2); radius 0 gives the centre once."""
    if radius_mm <= 0:
        return np.zeros((1, 2))
    t = phase + 2 * np.pi * np.arange(n) / n
    return radius_mm * np.c_[np.cos(t), np.sin(t)]


def patch(half_mm: float, n: int = 3) -> np.ndarray:
    """An n x n grid of offsets over a square of half side ``half_mm``."""
    g = np.linspace(-half_mm, half_mm, n)
    xx, yy = np.meshgrid(g, g)
    return np.c_[xx.ravel(), yy.ravel()]


def sample_bgr(frame: np.ndarray, pose: PoseResult, points_mm: np.ndarray) -> np.ndarray:
    """BGR (float32, (N, 3)) of the frame at board points, bilinear."""
    px = pose.board_to_image(np.asarray(points_mm, np.float64)).astype(np.float32)
    mx = np.ascontiguousarray(px[:, 0].reshape(1, -1))
    my = np.ascontiguousarray(px[:, 1].reshape(1, -1))
    out = cv2.remap(frame, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    out = out.reshape(-1, frame.shape[2] if frame.ndim == 3 else 1).astype(np.float32)
    if out.shape[1] == 1:
        out = np.repeat(out, 3, axis=1)
    return out


def bare_board_points(board: BoardMap, step_mm: float, clearance_mm: float, max_points: int,
                      pieces: Sequence[tuple[float, float, float]] | None = None) -> np.ndarray:
    """Points of the printed board that no piece, edge line or marker comes near: light references.

    Rasterised at 1 px/mm: edges drawn, markers with their quiet zone, and either the regions filled
    or -- with ``pieces`` (x, y, radius in mm of every place a piece can stand) -- only those discs, so
    that the bare board inside a large space (the ruin, a nest) is a reference too; a grid point is
    kept when it lies ``clearance_mm`` from all of them and from the board's edge."""
    w, h = board.size_mm
    W, H = int(np.ceil(w)), int(np.ceil(h))
    busy = np.zeros((H, W), np.uint8)
    if pieces is not None:
        for x, y, rad in pieces:
            cv2.circle(busy, (round(x), round(y)), int(np.ceil(rad)), 255, -1)
    for r in board.regions if pieces is None else ():
        if r.circle_center_mm is not None:
            cx, cy = r.circle_center_mm
            cv2.circle(busy, (round(cx), round(cy)), int(np.ceil(r.radius_mm or 0)), 255, -1)
        else:
            cv2.fillPoly(busy, [np.round(np.asarray(r.polygon_mm)).astype(np.int32)], 255)
    centres = {r.id: r.center_mm for r in board.regions}
    for a, b in board.edges:
        (ax, ay), (bx, by) = centres[a], centres[b]
        cv2.line(busy, (round(ax), round(ay)), (round(bx), round(by)), 255, 1)
    for f in board.fiducials:
        x0, y0 = (np.asarray(f.center_mm) - f.side_mm / 2 - 5.0).round().astype(int)
        x1, y1 = (np.asarray(f.center_mm) + f.side_mm / 2 + 5.0).round().astype(int)
        cv2.rectangle(busy, (int(x0), int(y0)), (int(x1), int(y1)), 255, -1)
    busy[0, :] = busy[-1, :] = 255
    busy[:, 0] = busy[:, -1] = 255
    free = cv2.distanceTransform(np.where(busy > 0, 0, 255).astype(np.uint8), cv2.DIST_L2, 5)
    keep = []
    for y in np.arange(step_mm / 2, h, step_mm):
        for x in np.arange(step_mm / 2, w, step_mm):
            i, j = min(int(y), H - 1), min(int(x), W - 1)
            if free[i, j] >= clearance_mm + 1.0:
                keep.append((x, y))
    pts = np.asarray(keep, np.float64).reshape(-1, 2)
    if len(pts) > max_points:
        idx = np.round(np.linspace(0, len(pts) - 1, max_points)).astype(int)
        pts = pts[idx]
    return pts


MIN_MARKERS = 3  # the disc readers read a board posed from at least this many corner markers


def frame_problem(frame: np.ndarray, pose: PoseResult, board: BoardMap, limits: Mapping[str, Any]) -> str | None:
    """Why this frame is not worth reading (too blurred for the pieces' details, the board too small
    in the picture), or None (:mod:`companion.vision.quality`)."""
    if len(pose.markers_used) < MIN_MARKERS:
        # two small squares in a corner or along one edge fix the far side of the board badly (in a
        # blurred frame a nest's spots fell beside its tiles, read "no tile" surely)
        return (f"only {len(pose.markers_used)} of the board's markers are in view: show at least {MIN_MARKERS} of its "
                "corners to the camera")
    q = quality.assess(frame, pose, board)
    problem = q.problem(float(limits["max_blur_mm"]))
    if problem is None and q.px_per_mm is not None and q.px_per_mm < float(limits["min_px_per_mm"]):
        problem = (f"the board is too small in the picture ({q.px_per_mm:.2f} px per mm, at least {limits['min_px_per_mm']} "
                   "to tell the pieces apart): bring the camera closer or use a larger picture")
    return problem


def measured_frame(frame: np.ndarray, pose: PoseResult, board: BoardMap, limits: Mapping[str, Any]
                   ) -> tuple[np.ndarray, photometry.Photometry | None, str | None]:
    """The frame in colour, the markers' black and white measured in it, and why it cannot be read (the pose,
    :func:`frame_problem`, markers covered or in glare) or None: what both disc readers check first."""
    if not pose.usable:
        return frame, None, f"board pose: {pose.message}"
    if frame.ndim != 3:
        frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    problem = frame_problem(frame, pose, board, limits)
    if problem is not None:
        return frame, None, problem
    marks = photometry.measure(frame, pose, board)
    if marks is None:
        return frame, None, "the markers' black and white cannot be seen (covered or in glare): nothing read"
    return frame, marks, None


@dataclass(frozen=True)
class BoardLight:
    """The light a frame was read under: the markers' normalisation, and over the board a light field
    fitted to the bare-board patches (``field.outliers``: patches of another colour -- something on them)."""

    photometry: photometry.Photometry
    field: photometry.LightField
    board_bgr: np.ndarray  # the bare board's expected colour, normalised (3,) or per patch (R, 3)
    mismatch: float  # median hue mismatch of the bare-board patches against that colour

    def base(self, points_mm: np.ndarray, board_bgr: np.ndarray | None = None) -> np.ndarray:
        """The bare board's colour at board points, as lit there (spots' colours are divided by it):
        ``board_bgr`` (normalised, per point) or the board's one colour."""
        colour = np.asarray(board_bgr, np.float64) if board_bgr is not None else np.median(self.board_bgr.reshape(-1, 3), axis=0)
        return self.field.at(points_mm) * colour


def board_light(refs_mm: np.ndarray, ref_bgr: np.ndarray, light: photometry.Photometry, board_bgr: Sequence[float] | np.ndarray,
                il: Mapping[str, Any]) -> BoardLight:
    """:class:`BoardLight` from the bare-board patches' normalised colours (``ref_bgr``) and the board's
    colour as printed (``board_bgr``, on paper whose white reads 255; one colour, or one per patch)."""
    board = np.asarray(board_bgr, np.float64) * photometry.WHITE_LEVEL / 255.0
    mismatch = float(np.median(photometry.colour_mismatch(ref_bgr, board))) if len(ref_bgr) else 1.0
    # a reader's config may allow for the camera's noise in the colour test (a dark print: see fit_light_field)
    field = photometry.fit_light_field(refs_mm, ref_bgr, board, sigma_mm=float(il["sigma_mm"]), max_colour=float(il["max_colour"]),
                                       noise_sigmas=float(il.get("noise_sigmas", 0.0)))
    return BoardLight(light, field, board, mismatch)


def covered(field: photometry.LightField, refs_mm: np.ndarray, step_mm: float, cover: Mapping[str, Any]) -> bool:
    """Whether the bare-board patches off colour (``field.outliers``) say something covers the board: more than
    ``cover["max_outlier_share"]`` of all patches, or a blob of ``cover["min_blob"]`` or more of them, each within
    two grid steps of the next (a hand, a sleeve; two steps: a spot's disc between two patches leaves no patch
    there). A die on the print covers four patches at most; the camera's noise on a dark print in a warm lamp
    leaves a few percent of them off colour, scattered (Verzauberte Eulen film s31 r2: 3-21 of 433 in the still
    frames of a warm stretch, five together at most; a hand over the board 6-56). Counted alone against 2%,
    those refused every frame of twenty turns."""
    outliers = np.asarray(field.outliers, int)
    if len(outliers) > float(cover["max_outlier_share"]) * len(refs_mm):
        return True
    return largest_blob(np.asarray(refs_mm, np.float64)[outliers], 2.0 * step_mm) >= int(cover["min_blob"])


def largest_blob(points_mm: np.ndarray, link_mm: float) -> int:
    """The most points joined by links of at most ``link_mm`` (a chain of such links between any two)."""
    if len(points_mm) == 0:
        return 0
    near = np.linalg.norm(points_mm[:, None, :] - points_mm[None, :, :], axis=2) <= link_mm
    reach = near.astype(np.int32)
    while True:  # the links' transitive closure
        grown = (reach @ reach > 0).astype(np.int32)
        if np.array_equal(grown, reach):
            return int(reach.sum(axis=1).max())
        reach = grown


LOG_FLOOR = 0.1  # added to colour ratios before their logarithm (see Prototypes.classify)


@dataclass(frozen=True)
class Prototypes:
    """Named colour prototypes (ratios to the bare board): one set (K, 3), or one per spot (N, K, 3)
    when the board under each spot has its own colour (a taught print with art)."""

    names: tuple[str, ...]  # a name may repeat: one colour, several prototypes
    vectors: np.ndarray  # (K, 3) or (N, K, 3)

    @classmethod
    def from_palette(cls, palette_bgr: Mapping[str, Sequence[float]], board_bgr: Sequence[float] | np.ndarray,
                     names: Sequence[str]) -> Prototypes:
        """``board_bgr``: the bare board's colour, one (3,) or per spot (N, 3)."""
        board = np.asarray(board_bgr, np.float64)
        pal = np.array([np.asarray(palette_bgr[n], np.float64) for n in names])  # (K, 3)
        if board.ndim == 2:
            return cls(tuple(names), pal[None, :, :] / board[:, None, :])
        return cls(tuple(names), pal / board)

    def classify(self, ratios: np.ndarray, light_tolerance: float = 1.0,
                 censored: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(best index, best distance, second-best distance) per row of ``ratios`` (N, 3).

        The distance is taken between logarithms: a colour's hue (the log ratios' differences) counts
        fully, its brightness only beyond ``light_tolerance`` (1.3: 30 % darker or brighter is free) --
        the light where a spot lies is known only as well as the bare board round it tells, and a
        shadow's edge between two patches puts it off by that much. ``censored`` (N, 3) bool: values that
        are only lower bounds (a channel at the sensor's top, :func:`photometry.at_top`); such a channel
        counts against a prototype only when the prototype is darker there than the bound allows."""
        e = LOG_FLOOR  # dark channels carry mostly noise: their logs are compressed
        protos = self.vectors if self.vectors.ndim == 3 else self.vectors[None, :, :]
        lr = np.log(np.maximum(ratios, 0.0) + e)[:, None, :] - np.log(np.maximum(protos, 0.0) + e)
        if censored is not None and np.any(censored):
            cen = np.asarray(censored, bool)[:, None, :]
            free = np.maximum((~cen).sum(axis=2, keepdims=True), 1)
            others = (lr * ~cen).sum(axis=2, keepdims=True) / free  # the level the free channels agree on
            lr = np.where(cen & ((~cen).sum(axis=2, keepdims=True) > 0), np.maximum(lr, others), lr)
        level = lr.mean(axis=2, keepdims=True)
        hue = np.linalg.norm(lr - level, axis=2)
        bright = np.maximum(np.abs(level[..., 0]) - np.log(max(light_tolerance, 1.0)), 0.0)
        d = np.sqrt(hue**2 + bright**2)
        # a name may have several prototypes (a taught colour and the print's): the index returned is the name's
        # first, and the second-best distance is that of the nearest other name
        first = np.array([self.names.index(n) for n in self.names])
        best = first[np.argmin(d, axis=1)]
        d2 = np.where(first[None, :] == best[:, None], np.inf, d).min(axis=1)
        return best, d.min(axis=1), d2

    def brightness_towards_another(self, ratios: np.ndarray, index: np.ndarray, hue_near: float) -> np.ndarray:
        """(N,) how far (log) each row's brightness lies from that of its prototype ``index``, where it lies towards
        another name's prototype of nearly the same hue (within ``hue_near``), else 0: the brightness
        :meth:`classify` lets pass up to ``light_tolerance`` is then all that tells the two apart."""
        e = LOG_FLOOR
        logs = np.log(np.maximum(self.vectors if self.vectors.ndim == 3 else self.vectors[None, :, :], 0.0) + e)
        level = logs.mean(axis=2)  # (1 or N, K)
        hue = logs - level[..., None]
        rows = np.arange(len(index)) if logs.shape[0] > 1 else np.zeros(len(index), int)
        own_hue, own_level = hue[rows, index], level[rows, index]
        off = np.log(np.maximum(ratios, 0.0) + e).mean(axis=1) - own_level
        names = np.array(self.names)
        alike = (np.linalg.norm(hue[rows] - own_hue[:, None, :], axis=2) < hue_near) & (names[None, :] != names[index][:, None])
        towards = alike & (np.sign(level[rows] - own_level[:, None]) == np.sign(off)[:, None])
        return np.where(towards.any(axis=1), np.abs(off), 0.0)


def confidence(d1: np.ndarray, d2: np.ndarray, max_distance: float, margin_scale: float) -> np.ndarray:
    """P(right) proxy from the nearest (d1) and second (d2) prototype distances: 1 when the nearest
    is clearly nearer, falling with the margin; at most 0.5 when even the nearest is too far."""
    margin = (d2 - d1) / np.maximum(d2 + d1, 1e-6)
    conf = np.clip(margin * margin_scale, 0.0, 1.0)
    return np.where(d1 <= max_distance, conf, np.minimum(conf, 0.5))


# -- the look of a family's box ("teach your board") ------------------------------------------------------

PRINTED = 255.0 / photometry.WHITE_LEVEL  # normalised colours -> "as printed" (paper white 255), the configs' unit


@dataclass(frozen=True)
class Look:
    """What a disc reader expects, as printed (paper white 255): the bare board at each light reference
    and under each spot, and each piece colour per feature (``body``, ``head``, ``magpie``, ``tile``)."""

    refs: np.ndarray  # (R, 3)
    empty: np.ndarray  # (N, 3)
    palettes: Mapping[str, Mapping[str, np.ndarray]]
    empty_known: np.ndarray  # (N,) bool: False where a taught print's bare board under the spot was never seen
    untaught: Mapping[str, frozenset[str]] = field(default_factory=dict)  # feature -> colours another box did not teach
    printed: Mapping[str, Mapping[str, np.ndarray]] = field(default_factory=dict)  # feature -> the config's colours taught over
    unshown: Mapping[str, frozenset[str]] = field(default_factory=dict)  # feature -> colours the teaching photo did not show
    variants: Mapping[str, Sequence[tuple[str, np.ndarray]]] = field(default_factory=dict)  # feature -> each taught piece's own colour

    def unknown_may_be_piece(self, feature: str) -> bool:
        """Whether a spot of ``feature`` matching no colour may still be a piece rather than a hand: the teaching
        photo did not show every colour of it, and the config's colour of one it did not show may be off on this box
        (Mighty Magpies' set-up shows no tile: rendition 2's berries matched no colour, and 8 boards in 10 were
        refused as covered by a hand)."""
        return bool(self.unshown.get(feature))

    def unsure_feature(self, feature: str) -> bool:
        """Whether no colour of ``feature`` was taught on another box than the config's: its pieces
        may look like the bare board there, so "nothing there" is not sure either."""
        names = self.untaught.get(feature, frozenset())
        return bool(names) and names == frozenset(self.palettes.get(feature, {}))

    def untaught_mask(self, feature: str, names: Sequence[str], index: np.ndarray) -> np.ndarray:
        """(N,) bool: readings (``names[index]``) in a colour of ``feature`` this box did not teach."""
        bad = self.untaught.get(feature, frozenset())
        return np.array([names[i] in bad for i in index], bool)


FOREIGN_PRINT_MISMATCH = 0.12  # a taught bare board this far in hue from the config's is another box (max_board_mismatch)


def look_from(appearance: Mapping[str, Any] | None, board_bgr: Sequence[float], palettes: Mapping[str, Mapping[str, Any]],
              n_refs: int, n_spots: int) -> Look:
    """The config's look (one board colour, the palettes) with what ``appearance`` taught put over it;
    a spot whose bare board the teaching photo did not show keeps the taught board's median. On a box
    whose bare board is not the config's, the config's colours of the pieces the photo did not show
    are only a guess (``Look.untaught``): the readers mark what rests on them unsure. On the config's own
    print, the config's colours of the pieces taught stay beside the taught ones (``Look.printed``): a set-up
    photo may show a colour only on a few pieces far off, a few pixels across, where the blur mixes their
    rims, light notches and neighbours into them (Verzauberte Eulen films: a blue body's red channel taught at
    1.1-2x its print's; docs/vision-notes.md, session 33); the print's colour still reads such a piece up close."""
    appearance = appearance or {}
    board = np.asarray(appearance.get("board_bgr") or board_bgr, np.float64)
    refs = np.asarray(appearance.get("refs_bgr") or [board] * n_refs, np.float64)
    if refs.shape != (n_refs, 3):
        refs = np.tile(board, (n_refs, 1))
    empty = np.tile(board, (n_spots, 1))
    known = np.ones(n_spots, bool)
    taught_empty = appearance.get("empty_bgr") or []
    if len(taught_empty) == n_spots:
        for i, v in enumerate(taught_empty):
            if v is not None:
                empty[i] = v
            else:
                known[i] = False
    out = {}
    foreign = bool(appearance.get("board_bgr")) and float(photometry.colour_mismatch(board, np.asarray(board_bgr, np.float64))[0]) > FOREIGN_PRINT_MISMATCH
    untaught: dict[str, frozenset[str]] = {}
    printed: dict[str, dict[str, np.ndarray]] = {}
    unshown: dict[str, frozenset[str]] = {}
    for feature, pal in palettes.items():
        taught = appearance.get("palettes", {}).get(feature, {})
        out[feature] = {name: np.asarray(taught.get(name, bgr), np.float64) for name, bgr in pal.items()}
        if appearance:
            unshown[feature] = frozenset(name for name in pal if name not in taught)
        if foreign:  # (only a taught look is foreign)
            untaught[feature] = unshown[feature]
        else:
            printed[feature] = _prints_beside(pal, taught, board_bgr)
    return Look(refs, empty, out, known, untaught, printed, unshown, _variants(appearance, out))


def _variants(appearance: Mapping[str, Any], palettes: Mapping[str, Mapping[str, np.ndarray]]) -> dict[str, list[tuple[str, np.ndarray]]]:
    """Feature -> (name, colour) of each piece the set-up photo showed, where it lies nearer its own colour's taught
    median than any other colour's. A small piece's colour takes on its neighbours' in a far photo (an owl's head
    its body's: one red head on four bodies of four colours); the median alone then misses a red head seen up close
    on a green body, and each piece's own colour is a prototype of its name beside it."""
    out: dict[str, list[tuple[str, np.ndarray]]] = {}
    for feature, cols in (appearance.get("palette_samples") or {}).items():
        pal = palettes.get(feature, {})
        if not isinstance(cols, Mapping) or not pal:
            continue
        names = list(pal)
        protos = Prototypes(tuple(names), np.array([pal[n] for n in names], np.float64))
        for name, samples in cols.items():
            arr = np.asarray(samples, np.float64).reshape(-1, 3)
            if name not in pal or not len(arr):
                continue
            best, _d1, _d2 = protos.classify(arr)
            out.setdefault(feature, []).extend((name, c) for c, b in zip(arr, best, strict=True)
                                               if names[b] == name and _colour_gap(c, pal[name]) >= VARIANT_MIN_GAP)
    return out


def _prints_beside(palette: Mapping[str, Any], taught: Mapping[str, Any], board_bgr: Sequence[float]) -> dict[str, np.ndarray]:
    """The config's colours of the pieces taught on its own print, to stay beside the taught ones: those whose
    taught colour is still nearest its own printed colour (a colour taught from a photo that did not show the
    set-up it was said to -- another colour -- is no blurred copy of it, and the photo must not read as taught)."""
    names = [n for n in palette if n in taught]
    if not names:
        return {}
    board = np.asarray(board_bgr, np.float64)
    protos = Prototypes.from_palette(palette, board, list(palette))
    best, _d1, _d2 = protos.classify(np.array([np.asarray(taught[n], np.float64) for n in names]) / board)
    return {n: np.asarray(palette[n], np.float64) for n, b in zip(names, best, strict=True) if protos.names[b] == n}


def learn_look(spots: Sequence[Any], samples: Mapping[str, np.ndarray], refs_bgr: np.ndarray,
               expected: Mapping[str, Sequence[Mapping[str, str]]], default: Look, slots: Mapping[str, str],
               region_kinds: Mapping[str, str], rings: np.ndarray | None = None) -> dict[str, Any]:
    """A taught look (JSON-ready) from one photo whose pieces are known.

    ``spots``: the reader's spots (``.region``, ``.kind`` when the reader has several kinds, ``.index``);
    ``samples``: feature -> (N, 3) normalised median colour at every spot (``body`` for VE...);
    ``expected``: region -> the pieces there, each feature -> colour name (the set-up the referee knows);
    ``slots``: feature -> the spot kind it is read on. A region whose spots of a kind are all empty
    teaches their bare board; one with pieces teaches their colours and the bare board of its spots left
    empty, once it is clear which piece stands on which spot (:func:`_placing`: the placing nearest the
    default palette and the bare board seen elsewhere in the photo). The cave's single owl stands on its
    first spot. A spot never seen bare takes the same place's bare board in other regions of its kind, or,
    on a plain print (:func:`plain_print`: a set-up photo shows no nest bare), the board's colour seen under
    the empty spots. Everything else is left as it was. ``rings``: (N, M, 3) normalised samples round each spot,
    kept (``empty_ring_bgr``) for the spots seen bare: art under a spot may be two-coloured, and only the
    samples themselves tell such a bare ring from a piece half off its spot."""
    regions: dict[tuple[str, str], list[int]] = {}
    for i, sp in enumerate(spots):
        regions.setdefault((sp.region, getattr(sp, "kind", "owl")), []).append(i)
    empty: list[Any] = [None] * len(spots)
    found: dict[str, dict[str, list[np.ndarray]]] = {f: {} for f in samples}
    bare = _bare_seen(regions, samples, expected, slots)
    for (region, kind), idx in regions.items():
        feats = [f for f in samples if slots[f] == kind] or [next(iter(samples))]
        pieces = [p for p in expected.get(region, []) if any(f in p for f in feats)]
        placing = _placing(idx, pieces, feats, samples, default, bare.get(kind))
        for i, k in zip(idx, placing or (), strict=False):
            if k is None:
                empty[i] = (samples[feats[0]][i] * PRINTED).round(1).tolist()
                continue
            for f in feats:
                if pieces[k].get(f) is not None:
                    found[f].setdefault(pieces[k][f], []).append(samples[f][i])
    board = np.median(refs_bgr, axis=0) * PRINTED if len(refs_bgr) else None
    ring_bgr = None if rings is None else [None if v is None else (rings[i] * PRINTED).round(1).tolist() for i, v in enumerate(empty)]
    filled = _fill_plain_kinds(spots, empty, _fill_empty(spots, empty, region_kinds))
    seen = [v for v in filled if v is not None]
    if seen and len(seen) < len(filled) and plain_print(np.vstack([refs_bgr * PRINTED, np.asarray(seen)])):
        # a plain print looks the same under a piece as round it: a spot never seen bare is that colour
        bare_colour = np.median(np.asarray(seen), axis=0).round(1).tolist()
        filled = [bare_colour if v is None else v for v in filled]
    return {
        "board_bgr": None if board is None else board.round(1).tolist(),
        "refs_bgr": (refs_bgr * PRINTED).round(1).tolist(),
        "empty_bgr": filled,
        "empty_seen": [v is not None for v in empty],
        **({} if ring_bgr is None else {"empty_ring_bgr": ring_bgr}),
        "palettes": {f: {n: (np.median(v, axis=0) * PRINTED).round(1).tolist() for n, v in cols.items()} for f, cols in found.items()},
        "palette_samples": {f: {n: (np.asarray(v[:MAX_VARIANTS]) * PRINTED).round(1).tolist() for n, v in cols.items() if len(v) > 1}
                            for f, cols in found.items()},
    }


BARE_AGREE_GAP = 0.25  # spots seen bare in both photos differ by at most this (median), or the photos are not one board
BARE_PIECE_GAP = 0.3  # a print this near a piece's colour is not taken from the empty board: that piece would read as bare


def with_bare_board(look: Mapping[str, Any], bare: Mapping[str, Any], spots: Sequence[Any], slots: Mapping[str, str],
                    palettes: Mapping[str, Mapping[str, Any]]) -> tuple[dict[str, Any], int]:
    """``look`` (taught from a set-up) with what a photo of the empty board (``bare``, taught with no pieces)
    showed under the spots the set-up covered: (the look, the spots learnt). Nests hold pieces at every set-up,
    so their print is otherwise never seen. ValueError when the two photos do not show one board alike (another
    board, another box, pieces on the "empty" one). A spot whose print lies within :data:`BARE_PIECE_GAP` of a
    colour of a piece read there keeps what the set-up taught: an empty print and that piece look alike, and the
    empty photo cannot say which is which."""
    n = len(spots)
    seen, bare_seen = _seen(look, n), _seen(bare, n)
    shared = [i for i in range(n) if seen[i] and bare_seen[i]]
    if not shared:
        raise ValueError("the empty-board photo and the set-up photo share no bare spot")
    gaps = [_colour_gap(look["empty_bgr"][i], bare["empty_bgr"][i]) for i in shared]
    if float(np.median(gaps)) > BARE_AGREE_GAP:
        raise ValueError("the empty-board photo does not show the board as the set-up photo does "
                         "(another board, or pieces on it): take it again with nothing on the board")
    first = {kind: next(f for f in slots if slots[f] == kind) for kind in set(slots.values())}
    out, learnt = {k: (list(v) if k in ("empty_bgr", "empty_seen", "empty_ring_bgr") else v) for k, v in look.items()}, 0
    for i, sp in enumerate(spots):
        if seen[i] or not bare_seen[i]:
            continue
        colours = palettes.get(first.get(getattr(sp, "kind", "owl"), next(iter(slots))), {}).values()
        if any(_colour_gap(bare["empty_bgr"][i], c) < BARE_PIECE_GAP for c in colours):
            continue
        out["empty_bgr"][i], learnt = bare["empty_bgr"][i], learnt + 1
        out.setdefault("empty_seen", list(seen))[i] = True
        if bare.get("empty_ring_bgr") and "empty_ring_bgr" in out:
            out["empty_ring_bgr"][i] = bare["empty_ring_bgr"][i]
    return out, learnt


def bare_rings(appearance: Mapping[str, Any] | None, empty: np.ndarray, m: int) -> np.ndarray | None:
    """(N * m, 3) each sample round each spot as the taught photo showed it bare, as a ratio to the spot's bare
    board (``empty``, (N, 3)); NaN rows where it was not seen; None when no look taught any."""
    rings = (appearance or {}).get("empty_ring_bgr")
    if not isinstance(rings, list) or len(rings) != len(empty):
        return None
    out = np.full((len(empty), m, 3), np.nan)
    for i, ring_bgr in enumerate(rings):
        if ring_bgr is not None and np.shape(ring_bgr) == (m, 3):
            out[i] = np.asarray(ring_bgr, np.float64) / np.maximum(empty[i], 1.0)
    return out.reshape(-1, 3) if np.isfinite(out).any() else None


def _seen(look: Mapping[str, Any], n: int) -> list[bool]:
    """Which spots a taught look saw bare (a look taught before this was kept: those it filled in are not)."""
    seen = look.get("empty_seen")
    if isinstance(seen, list) and len(seen) == n:
        return [bool(v) for v in seen]
    empty = look.get("empty_bgr") or [None] * n
    return [v is not None for v in empty] if len(empty) == n else [False] * n


MAX_VARIANTS = 8  # pieces of one colour whose own colours a set-up photo keeps beside their median (Look.variants)
VARIANT_MIN_GAP = 0.1  # a piece's own colour this near its median adds nothing but reading time (a prototype a frame)
MAX_PLACINGS = 720  # ways of standing a region's pieces on its spots tried when teaching (four spots: 24 at most)
MIN_PLACING_MARGIN = 0.1  # the nearest placing beats every one that names a spot otherwise by this much, or none is taught


def _bare_seen(regions: Mapping[tuple[str, str], list[int]], samples: Mapping[str, np.ndarray],
               expected: Mapping[str, Sequence[Mapping[str, str]]], slots: Mapping[str, str]) -> dict[str, dict[str, np.ndarray]]:
    """Spot kind -> feature -> the median colour of the photo's spots of that kind in regions with no piece
    on them: what a spot left empty looks like on this board (to tell it from a piece's)."""
    out: dict[str, dict[str, np.ndarray]] = {}
    for kind in {k for _r, k in regions}:
        feats = [f for f in samples if slots[f] == kind]
        idx = [i for (region, k), ids in regions.items() if k == kind
               and not any(f in p for p in expected.get(region, []) for f in feats) for i in ids]
        if idx and feats:
            out[kind] = {f: np.median(samples[f][idx], axis=0) for f in feats}
    return out


def _colour_gap(seen: np.ndarray, colour: np.ndarray) -> float:
    return float(np.linalg.norm(np.log(np.asarray(seen) + 10.0) - np.log(np.asarray(colour) + 10.0)))


def _placing(idx: Sequence[int], pieces: Sequence[Mapping[str, str]], feats: Sequence[str], samples: Mapping[str, np.ndarray],
             default: Look, bare: Mapping[str, np.ndarray] | None) -> list[int | None] | None:
    """Which of ``pieces`` stands on each spot ``idx`` of one region (None: the spot is bare), or None when that
    is not clear. Every piece is on a spot; the placing taken is the one whose spots' colours are nearest the
    default palette's colours of their pieces and, where bare, the bare board seen elsewhere (``bare``), when no
    placing that names a spot otherwise comes within :data:`MIN_PLACING_MARGIN` (pieces are put down anywhere
    in a nest, and a set-up photo may show fewer pieces than spots: 3 magpies on the start nest's 4 spots)."""
    n, m = len(idx), len(pieces)
    if m == 0:
        return [None] * n
    if m == 1 and n > 4:
        return [0] + [None] * (n - 1)  # a lone piece in a large space stands on its first spot (the ruin's middle)
    names = [tuple(p.get(f) for f in feats) for p in pieces]
    if m == n and len(set(names)) == 1:
        return list(range(n))
    if m > n or (m < n and bare is None) or math.perm(n, m) > MAX_PLACINGS:
        return None
    cost = np.zeros((n, m + 1))
    for s, i in enumerate(idx):
        for k, p in enumerate(pieces):
            cost[s, k] = sum(_colour_gap(samples[f][i], default.palettes[f][p[f]] / PRINTED) for f in feats if p.get(f) is not None)
        cost[s, m] = sum(_colour_gap(samples[f][i], bare[f]) for f in feats) if bare is not None else np.inf
    best: dict[tuple, tuple[float, list[int | None]]] = {}
    for chosen in itertools.permutations(range(n), m):
        at: list[int | None] = [None] * n
        for k, s in enumerate(chosen):
            at[s] = k
        total = float(sum(cost[s, m if k is None else k] for s, k in enumerate(at)))
        label = tuple(None if k is None else names[k] for k in at)
        if total < best.get(label, (np.inf,))[0]:
            best[label] = (total, at)
    ranked = sorted(best.values(), key=lambda v: v[0])
    if len(ranked) > 1 and ranked[1][0] - ranked[0][0] < MIN_PLACING_MARGIN:
        return None
    return ranked[0][1]


PLAIN_PRINT_MISMATCH = 0.04  # bare-board colours this alike in hue (90th percentile) are one plain print


def plain_print(bare_bgr: np.ndarray, min_seen: int = 10) -> bool:
    """Whether bare-board colours seen all over a board (the light references, the spots seen empty)
    are one plain print rather than art: their hues agree with their median within
    :data:`PLAIN_PRINT_MISMATCH` (the first rendition's plain print: 0.013 at most, a taught photo's
    noise and light falloff; printed art differs by 0.1 and more); ``min_seen`` of them at least."""
    bare = np.asarray(bare_bgr, np.float64).reshape(-1, 3)
    if len(bare) < min_seen:
        return False
    mismatch = photometry.colour_mismatch(bare, np.median(bare, axis=0))
    return bool(np.percentile(mismatch, 90) <= PLAIN_PRINT_MISMATCH)


def _fill_empty(spots: Sequence[Any], empty: list[Any], region_kinds: Mapping[str, str]) -> list[Any]:
    """Spots never seen bare take the median of the bare spots of the same place in regions of the same
    kind (the other nests' first spot...), when there are any."""
    def slot(sp: Any) -> tuple[str, str, int]:
        return (region_kinds.get(sp.region, ""), getattr(sp, "kind", ""), sp.index)

    by_slot: dict[tuple[str, str, int], list[Any]] = {}
    for sp, v in zip(spots, empty, strict=True):
        if v is not None:
            by_slot.setdefault(slot(sp), []).append(v)
    out = []
    for sp, v in zip(spots, empty, strict=True):
        same = by_slot.get(slot(sp))
        out.append(v if v is not None else (np.median(np.asarray(same), axis=0).round(1).tolist() if same else None))
    return out


MIN_PLAIN_SPOTS = 4  # bare spots of one kind, at two places of a region at least, that tell the print under that kind


def _fill_plain_kinds(spots: Sequence[Any], seen: Sequence[Any], filled: list[Any]) -> list[Any]:
    """Spots still never seen bare take the bare board of their kind of spot where every spot of that kind seen
    bare looks alike (:func:`plain_print`): art may leave the place of one kind of piece plain (the second
    rendition of Mighty Magpies: the tiles lie on the nests' plain middle; a set-up covers three of its four tile
    spots in most nests, which were read against the box's printed colour, so an emptied one read as a gold
    tile). Art that differs under them fills nothing."""
    by_kind: dict[str, list[int]] = {}
    for i, sp in enumerate(spots):
        by_kind.setdefault(getattr(sp, "kind", ""), []).append(i)
    out = list(filled)
    for idx in by_kind.values():
        bare = [i for i in idx if seen[i] is not None]
        places = {spots[i].index for i in bare}
        if len(bare) < MIN_PLAIN_SPOTS or len(places) < 2 or not plain_print(np.asarray([seen[i] for i in bare]), MIN_PLAIN_SPOTS):
            continue
        colour = np.median(np.asarray([seen[i] for i in bare], np.float64), axis=0).round(1).tolist()
        for i in idx:
            out[i] = colour if out[i] is None else out[i]
    return out
