"""Mighty Magpies readers: which magpie is in which nest and the tiles each nest still holds; and the
*tile scan* of one player's stolen tiles lying on the table (no board).

Usage::

    python -m companion.vision.readers.mighty_magpies IMAGE [--map calibration/boards/mighty-magpies.json]
    python -m companion.referee.tile_scan IMAGE ...          # the tile scan, scored

Board (``docs/vision-notes.md``): a nest holds its tiles on four spots around its
centre (9 mm off diagonally) and the magpies on four spots 28 mm out (right, below, left, above).
A magpie seen from above is a 9.5 mm disc of its player's colour carrying a black and white bird; a
tile is a 7.5 mm wooden disc whose sticker shows a berry (a solid purple-red disc) or a ring
(silver or gold, with the wood showing through a 3.5 mm hole) -- rings are told from berries by the
hole as well as by colour. Every spot's colours are read as ratios to the bare board
(:mod:`companion.vision.readers.discs`). Vocabulary: ``{"magpie": "red"}``, ``{"tile": "berry"}``
(``"silver"``, ``"gold"``).

Tile scan (:func:`scan_tiles`): the tiles lie apart on any plain surface; the surface colour is
estimated from the whole picture, tiles are the blobs that differ from it, a blob with a hole is a
ring (silver or gold by its colour), one without is a berry. Touching tiles or blobs of no tile's
colour make the scan say so instead of guessing.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from companion.data import bundled
from companion.vision import photometry
from companion.vision.boardmap import BoardMap, load_board_map
from companion.vision.intrinsics import CameraProfile
from companion.vision.pose import BoardTracker, PoseResult
from companion.vision.readers import Observation, TrackedReader, read_file_main
from companion.vision.readers.discs import (
    PRINTED,
    Prototypes,
    bare_board_points,
    board_light,
    confidence,
    covered,
    learn_look,
    load_config,
    look_from,
    measured_frame,
    patch,
    ring,
    sample_bgr,
    with_bare_board,
)
from companion.vision.readers.occlusion import ArmWatch

CONFIG_NAME = "mighty_magpies"
MAGPIE_COLOURS = ("red", "blue", "green", "yellow")
TILE_KINDS = ("berry", "silver", "gold")
MAP_PATH = bundled("calibration", "boards", "mighty-magpies.json")


@dataclass(frozen=True)
class Spot:
    region: str
    kind: str  # "tile" | "magpie"
    index: int
    x: float
    y: float


def nest_spots(board: BoardMap, spots_cfg: Mapping[str, Any]) -> list[Spot]:
    """Tile spots (4, diagonally round the centre) and magpie spots (4: right, below, left, above) of every nest."""
    t, m = float(spots_cfg["tile_offset_mm"]), float(spots_cfg["magpie_distance_mm"])
    out: list[Spot] = []
    for r in board.regions:
        cx, cy = r.center_mm
        for i, (dx, dy) in enumerate(((-t, -t), (t, -t), (-t, t), (t, t))):
            out.append(Spot(r.id, "tile", i, cx + dx, cy + dy))
        for i, (dx, dy) in enumerate(((m, 0), (0, m), (-m, 0), (0, -m))):
            out.append(Spot(r.id, "magpie", i, cx + dx, cy + dy))
    return out


class MagpiesReader(TrackedReader):
    """Reads the nests from frames of one board (one per camera; keeps the pose tracker)."""

    def __init__(
        self,
        board: BoardMap | None = None,
        config: Mapping[str, Any] | None = None,
        pose_config: Mapping[str, Any] | None = None,
        camera: CameraProfile | None = None,
        appearance: Mapping[str, Any] | None = None,
    ) -> None:
        self.board = board if board is not None else load_board_map(MAP_PATH)
        self.config = cfg = load_config(CONFIG_NAME, config)
        self.tracker = BoardTracker(self.board, pose_config, camera)
        self.arms = ArmWatch(self.board)
        self.spots = nest_spots(self.board, cfg["spots"])
        s = cfg["sampling"]
        self._mag = ring(float(s["magpie_radius_mm"]), int(s["magpie_points"]))
        self._ring = ring(float(s["tile_ring_mm"]), int(s["tile_ring_points"]), phase=np.pi / int(s["tile_ring_points"]))
        self._hole = np.vstack([np.zeros((1, 2)), ring(float(s["tile_centre_mm"]), int(s["tile_centre_points"]))])
        il = cfg["illumination"]
        jitter = float(cfg["paint"]["jitter_mm"])
        # where each region's pieces are read (region, x, y, radius; board mm): nothing outside them changes a reading
        self.piece_discs = tuple((sp.region, sp.x, sp.y, float(cfg["magpie" if sp.kind == "magpie" else "tile"]["radius_mm"]) + jitter)
                                 for sp in self.spots)
        self._refs = bare_board_points(self.board, float(il["step_mm"]), float(il["clearance_mm"]), int(il["max_points"]),
                                       [disc[1:] for disc in self.piece_discs])
        self._patch = patch(float(il["patch_half_mm"]))
        self._tiles = [i for i, sp in enumerate(self.spots) if sp.kind == "tile"]
        self._mags = [i for i, sp in enumerate(self.spots) if sp.kind == "magpie"]
        xy = np.array([[sp.x, sp.y] for sp in self.spots])
        self._xy = xy
        self._points = np.vstack(
            [
                (xy[self._mags][:, None, :] + self._mag[None]).reshape(-1, 2),
                (xy[self._tiles][:, None, :] + self._ring[None]).reshape(-1, 2),
                (xy[self._tiles][:, None, :] + self._hole[None]).reshape(-1, 2),
                (self._refs[:, None, :] + self._patch[None]).reshape(-1, 2),
            ]
        )
        self.teach(appearance)

    def teach(self, appearance: Mapping[str, Any] | None) -> None:
        """Use a taught look of the family's box (:meth:`learn_appearance`, saved by
        :func:`companion.vision.teach.save_appearance`) over the config's colours."""
        cfg = self.config
        pal = cfg["palette_bgr"]
        board = cfg["board_bgr"]
        holes = {"berry": pal["berry"], "silver": board, "gold": board}  # a ring shows the board (the wood) through its hole
        palettes = {"magpie": {c: pal[c] for c in MAGPIE_COLOURS}, "tile": {k: pal[k] for k in TILE_KINDS}, "hole": holes}
        self.look = look = look_from(appearance, board, palettes, len(self._refs), len(self.spots))
        empty_m, empty_t = look.empty[self._mags], look.empty[self._tiles]
        name = cfg["classify"]["empty_name"]
        mag = np.stack([empty_m] + [np.broadcast_to(look.palettes["magpie"][c], empty_m.shape) for c in MAGPIE_COLOURS], axis=1)
        tile = np.stack([empty_t] + [np.broadcast_to(look.palettes["tile"][k], empty_t.shape) for k in TILE_KINDS], axis=1)
        self._mag_protos = Prototypes((name, *MAGPIE_COLOURS), mag / empty_m[:, None, :])
        self._tile_protos = Prototypes((name, *TILE_KINDS), tile / empty_t[:, None, :])
        self._hole_ratio = {k: np.asarray(look.palettes["hole"][k]) / empty_t for k in TILE_KINDS}  # (T, 3) each

    def _untaught(self, feature: str, names: Sequence[str], index: np.ndarray) -> np.ndarray:
        """(N,) bool: readings resting on colours this box did not teach (empty too, when none was)."""
        bad = self.look.untaught_mask(feature, names, index)
        return bad | ((index == 0) & self.look.unsure_feature(feature))

    def _samples(self, frame: np.ndarray, pose: PoseResult, marks: photometry.Photometry):
        """Normalised (magpie ring, tile ring, tile centre, reference patch) median colours."""
        nm, nt = len(self._mags), len(self._tiles)
        bgr = marks.apply(sample_bgr(frame, pose, self._points))
        k0 = nm * len(self._mag)
        k1 = k0 + nt * len(self._ring)
        k2 = k1 + nt * len(self._hole)
        mag = np.median(bgr[:k0].reshape(nm, len(self._mag), 3), axis=1)
        ring_ = np.median(bgr[k0:k1].reshape(nt, len(self._ring), 3), axis=1)
        hole = np.median(bgr[k1:k2].reshape(nt, len(self._hole), 3), axis=1)
        refs = np.median(bgr[k2:].reshape(len(self._refs), len(self._patch), 3), axis=1)
        return mag, ring_, hole, refs

    def learn_appearance(self, frame: np.ndarray, pose: PoseResult, scene: Mapping[str, Any]) -> dict[str, Any]:
        """The look of this box from one photo of it with its pieces where ``scene`` says (a set-up the
        referee knows, or one the players confirmed): bare board, magpies, tiles and the tiles' centres."""
        marks = photometry.measure(frame, pose, self.board) if pose.usable else None
        if marks is None:
            raise ValueError(f"no board or no markers to learn from ({pose.message})")
        mag, ring_, hole, refs = self._samples(frame, pose, marks)
        n = len(self.spots)
        full = {f: np.zeros((n, 3)) for f in ("magpie", "tile", "hole")}
        full["magpie"][self._mags] = mag
        full["tile"][self._tiles] = ring_
        full["hole"][self._tiles] = hole
        expected: dict[str, list[dict[str, str]]] = {}
        for region, pieces in scene.items():
            for p in pieces or []:
                if isinstance(p, Mapping) and "magpie" in p:
                    expected.setdefault(region, []).append({"magpie": p["magpie"]})
                elif isinstance(p, Mapping) and "tile" in p:
                    expected.setdefault(region, []).append({"tile": p["tile"], "hole": p["tile"]})
        kinds = {r.id: r.kind for r in self.board.regions}
        return learn_look(self.spots, full, refs, expected, self.look, {"magpie": "magpie", "tile": "tile", "hole": "tile"}, kinds)

    def with_bare_board(self, look: Mapping[str, Any], bare: Mapping[str, Any]) -> tuple[dict[str, Any], int]:
        """``look`` (taught from a set-up, in use) with the nests' print that ``bare`` (taught from a photo of the
        empty board) showed: :func:`companion.vision.readers.discs.with_bare_board`."""
        return with_bare_board(look, bare, self.spots, {"magpie": "magpie", "tile": "tile", "hole": "tile"}, self.look.palettes)

    def read_with_pose(self, frame: np.ndarray, pose: PoseResult) -> Observation:
        t0 = time.perf_counter()
        timings = {"pose": float(pose.timings_ms.get("total", 0.0))}
        cfg, cl = self.config, self.config["classify"]
        frame, marks, problem = measured_frame(frame, pose, self.board, cfg["frame"])
        if problem is not None:
            return Observation.unusable(problem, timings)
        mag_bgr, ring_bgr, hole_bgr, ref_bgr = self._samples(frame, pose, marks)
        # a lamp may clip a channel of the paper and of the bright print: values at the sensor's top are lower
        # bounds (refusing them refused every frame under a warm lamp)
        seen = photometry.censored_colours(marks, ref_bgr, np.asarray(self.look.refs, np.float64) / PRINTED,
                                           (mag_bgr, ring_bgr, hole_bgr))
        marks, ref_bgr = seen.marks, seen.refs
        (mag_bgr, ring_bgr, hole_bgr), (mag_top, ring_top, hole_top) = seen.samples, seen.tops
        il = cfg["illumination"]
        lit = board_light(self._refs, ref_bgr, marks, self.look.refs, il)
        if lit.mismatch > float(il["max_board_mismatch"]):
            return Observation.unusable(
                "the board does not look like the Mighty Magpies board this reader knows (its bare print is another "
                "colour): teach it your board with one photo", timings)
        if self.arms.crossings(frame, pose, marks):
            return Observation.unusable("a hand or an arm reaches over the board's edge: take it away", timings)
        light = lit.field
        bare = lit.field.at(self._xy) * self.look.empty / PRINTED  # the bare board under each spot, as lit now
        mag = mag_bgr / bare[self._mags]
        base_t = bare[self._tiles]
        rng_, hole = ring_bgr / base_t, hole_bgr / base_t
        max_d, scale = float(cl["max_distance"]), float(cl["margin_scale"])
        mi, md1, md2 = self._mag_protos.classify(mag, float(cl["light_tolerance"]), mag_top)
        mconf = confidence(md1, md2, max_d, scale)
        ti, td1, td2 = self._tile_protos.classify(rng_, float(cl["light_tolerance"]), ring_top)
        tconf = confidence(td1, td2, max_d, scale)
        # the centre must agree: a ring shows the board through its hole, a berry is solid
        hole_to = {k: photometry.bounded_distance(hole, self._hole_ratio[k], hole_top) for k in TILE_KINDS}
        hole_board, hole_berry = np.minimum(hole_to["silver"], hole_to["gold"]), hole_to["berry"]
        is_ring = (ti == 2) | (ti == 3)
        disagree = (is_ring & (hole_board > hole_berry)) | ((ti == 1) & (hole_berry > hole_board))
        tconf = np.where(disagree, np.minimum(tconf, 0.5), tconf)
        # two colours only brightness tells apart (another box's gold tile, the hue of its board): a spot whose
        # brightness leans from its reading's towards the other's is unsure -- the light's tolerance lets a shadow
        # pass, and a gold ring blurred into its hole as well (rendition 2 out of focus: read as bare board, sure)
        hue_near, off = float(cl["hue_near"]), np.log(float(cl["brightness_unsure"]))
        mconf = np.where(self._mag_protos.brightness_towards_another(mag, mi, hue_near) > off, np.minimum(mconf, 0.5), mconf)
        tconf = np.where(self._tile_protos.brightness_towards_another(rng_, ti, hue_near) > off, np.minimum(tconf, 0.5), tconf)
        known_m, known_t = self.look.empty_known[self._mags], self.look.empty_known[self._tiles]
        # spots whose bare board a taught photo never showed, matching no piece: unsure, not a hand
        mconf = np.where((md1 > max_d) & ~known_m, np.minimum(mconf, 0.3), mconf)
        tconf = np.where((td1 > max_d) & ~known_t, np.minimum(tconf, 0.3), tconf)
        far_m, far_t = (md1 > max_d) & known_m, (td1 > max_d) & known_t
        # a colour far from all, of a kind some colour of which the teaching photo did not show: maybe such a
        # piece of this box (unsure), not a hand
        if self.look.unknown_may_be_piece("magpie"):
            mconf, far_m = np.where(far_m, np.minimum(mconf, 0.3), mconf), np.zeros_like(far_m)
        if self.look.unknown_may_be_piece("tile"):
            tconf, far_t = np.where(far_t, np.minimum(tconf, 0.3), tconf), np.zeros_like(far_t)
        unknown = int(far_m.sum() + far_t.sum())
        # read as empty where the bare board under the spot was never seen: only a guess
        mconf = np.where((mi == 0) & ~known_m, np.minimum(mconf, 0.5), mconf)
        tconf = np.where((ti == 0) & ~known_t, np.minimum(tconf, 0.5), tconf)
        # another box whose pieces the teaching photo did not show: their colours here are a guess
        mconf = np.where(self._untaught("magpie", self._mag_protos.names, mi), np.minimum(mconf, 0.5), mconf)
        tconf = np.where(self._untaught("tile", self._tile_protos.names, ti), np.minimum(tconf, 0.5), tconf)
        timings["read"] = (time.perf_counter() - t0) * 1000
        cover = cfg["cover"]
        if covered(light, self._refs, float(il["step_mm"]), cover) or unknown > int(cover["max_unknown_spots"]):
            where = sorted(
                {self.spots[self._mags[i]].region for i in np.flatnonzero(far_m)}
                | {self.spots[self._tiles[i]].region for i in np.flatnonzero(far_t)}
            )
            near = f" near nest(s) {', '.join(where)}" if where else ""
            return Observation.unusable(
                f"something covers the board{near} ({len(light.outliers)} bare-board patch(es) off colour, "
                f"{unknown} spot(s) of unknown colour): take your hand away",
                timings,
            )
        regions: dict[str, list[Any]] = {}
        conf: dict[str, float] = {}
        spot_reads: list[tuple[Any, float]] = [(None, 1.0)] * len(self.spots)  # per spot of piece_discs: (piece, conf)
        for j, i in enumerate(self._mags):
            spot_reads[i] = ({"magpie": self._mag_protos.names[mi[j]]} if mi[j] > 0 else None, float(mconf[j]))
        for j, i in enumerate(self._tiles):
            spot_reads[i] = ({"tile": self._tile_protos.names[ti[j]]} if ti[j] > 0 else None, float(tconf[j]))
        for sp, (piece, c) in zip(self.spots, spot_reads, strict=True):
            conf[sp.region] = min(conf.get(sp.region, 1.0), c)
            if piece is not None:
                regions.setdefault(sp.region, []).append(piece)
        for pieces in regions.values():
            pieces.sort(key=lambda p: json.dumps(p, sort_keys=True))
        return Observation(
            regions, conf, usable=True, status=f"read ({pose.message})", timings_ms=timings,
            extra={"pose_status": pose.status.value, **photometry.summary(marks), "spot_reads": spot_reads},
        )  # fmt: skip


def nest_counts(observation: Observation) -> dict[str, dict[str, int]]:
    """Nest id -> {"berry": n, "silver": n, "gold": n} from a board observation."""
    out: dict[str, dict[str, int]] = {}
    for region, pieces in observation.regions.items():
        counts = dict.fromkeys(TILE_KINDS, 0)
        for p in pieces:
            if isinstance(p, Mapping) and p.get("tile") in counts:
                counts[p["tile"]] += 1
        out[region] = counts
    return out


# -- the tile scan --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TileBlob:
    kind: str  # berry | silver | gold | unknown
    centre_px: tuple[float, float]
    radius_px: float
    has_hole: bool
    confidence: float


@dataclass(frozen=True)
class TileScan:
    """What the scan saw: counts by kind, the blobs, and whether it can be trusted."""

    counts: Mapping[str, int]
    blobs: tuple[TileBlob, ...] = ()
    usable: bool = True
    status: str = "ok"
    timings_ms: Mapping[str, float] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {
            "usable": self.usable,
            "status": self.status,
            "counts": dict(self.counts),
            "tiles": [
                {"kind": b.kind, "centre_px": [round(b.centre_px[0], 1), round(b.centre_px[1], 1)],
                 "ring": b.has_hole, "confidence": round(b.confidence, 3)}
                for b in self.blobs
            ],
        }  # fmt: skip


def _blob_look(hsv: np.ndarray, logimg: np.ndarray, lr: np.ndarray, centre: tuple[float, float],
               axes: tuple[float, float], ang: float) -> tuple[tuple[float, float, float], float, np.ndarray] | None:
    """A tile blob's ring colour (median hue, saturation, value), how far its centre differs from its ring (a
    hole), and the ring's colour shift from the surface; None when the blob is too small to have a ring."""
    (cx, cy), (ax, ay) = centre, axes
    r_out = int(np.ceil(max(ax, ay) / 2)) + 2
    x0, y0 = max(int(cx) - r_out, 0), max(int(cy) - r_out, 0)
    x1, y1 = min(int(cx) + r_out + 1, hsv.shape[1]), min(int(cy) + r_out + 1, hsv.shape[0])
    centre_m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    ring_m = np.zeros_like(centre_m)
    ctr = (cx - x0, cy - y0)
    cv2.ellipse(centre_m, (ctr, (ax * 0.25, ay * 0.25), ang), 255, -1)
    cv2.ellipse(ring_m, (ctr, (ax * 0.85, ay * 0.85), ang), 255, -1)
    cv2.ellipse(ring_m, (ctr, (ax * 0.55, ay * 0.55), ang), 0, -1)
    if not centre_m.any():
        centre_m[min(int(round(ctr[1])), centre_m.shape[0] - 1), min(int(round(ctr[0])), centre_m.shape[1] - 1)] = 255
    if not ring_m.any():
        return None
    hsv_roi, log_roi = hsv[y0:y1, x0:x1], logimg[y0:y1, x0:x1]
    ring_pix = hsv_roi[ring_m > 0]
    hue = ring_pix[:, 0].astype(np.float32) * 2 * np.pi / 180
    mh = (np.degrees(np.arctan2(np.median(np.sin(hue)), np.median(np.cos(hue)))) % 360) / 2
    ms, mv = float(np.median(ring_pix[:, 1])), float(np.median(ring_pix[:, 2]))
    hole_d = float(np.abs(np.median(log_roi[centre_m > 0], axis=0) - np.median(log_roi[ring_m > 0], axis=0)).max())
    shift = np.median(lr[y0:y1, x0:x1][ring_m > 0], axis=0)
    return (float(mh), ms, mv), hole_d, shift


def _nearest_colour(mh: float, ms: float, mv: float, cfg: Mapping[str, Any]) -> tuple[str, dict[str, float]]:
    """The tile colour a ring's median hue, saturation and value is nearest (silver: unsaturated), and the
    distance to every prototype."""
    dists = {}
    for kind, (ph, ps, pv) in cfg["prototypes_hsv"].items():
        dh = min(abs(mh - ph), 180 - abs(mh - ph)) * 2.0
        dists[kind] = float(np.sqrt((dh * min(ms, ps) / 255) ** 2 + (ms - ps) ** 2 + ((mv - pv) * 0.5) ** 2))
    if ms <= float(cfg["max_saturation_silver"]):
        return "silver", dists
    return min((k for k in dists if k != "silver"), key=dists.__getitem__), dists


def scan_tiles(image: np.ndarray, config: Mapping[str, Any] | None = None) -> TileScan:
    """Count the berries, silver rings and gold rings lying apart on a plain surface (no board)."""
    t0 = time.perf_counter()
    cfg = load_config(CONFIG_NAME, {"scan": dict(config)} if config else None)["scan"]
    if image is None or image.ndim != 3 or image.shape[0] < 32 or image.shape[1] < 32:
        return TileScan(dict.fromkeys(TILE_KINDS, 0), usable=False, status="not a colour picture")
    scale = float(cfg["work_width_px"]) / image.shape[1]
    img = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image.copy()
    scale = min(scale, 1.0)
    gray_mean = float(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).mean())
    if gray_mean < 35:
        return TileScan(dict.fromkeys(TILE_KINDS, 0), usable=False, status="too dark")
    # the surface: a coarse median that small tiles cannot shift
    h, w = img.shape[:2]
    coarse = cv2.resize(img, (max(8, w // 20), max(8, h // 20)), interpolation=cv2.INTER_AREA)
    coarse = cv2.medianBlur(coarse, 5)
    bg = cv2.resize(coarse, (w, h), interpolation=cv2.INTER_LINEAR).astype(np.float32) + 1.0
    lr = np.log((img.astype(np.float32) + 1.0) / bg)
    diff = np.abs(lr).max(axis=2)
    mask = (diff > float(cfg["foreground_distance"])).astype(np.uint8) * 255
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
    logimg = np.log(img.astype(np.float32) + 1.0)
    rmin, rmax = float(cfg["min_radius_px"]) * scale, float(cfg["max_radius_px"])
    blobs = []
    for c in contours:
        area = cv2.contourArea(c)
        if len(c) < 5 or area < np.pi * rmin**2 or area > np.pi * rmax**2:
            continue
        blobs.append((area, c))
    if not blobs:
        return TileScan(dict.fromkeys(TILE_KINDS, 0), status="no tiles seen", timings_ms={"scan": (time.perf_counter() - t0) * 1000})
    typical = float(np.median([a for a, _ in blobs]))
    out: list[TileBlob] = []
    problems: list[str] = []
    for area, c in blobs:
        (cx, cy), (ax, ay), ang = cv2.fitEllipse(c)
        if area < float(cfg["min_area_fraction"]) * typical:
            continue  # crumbs, reflections
        look = _blob_look(hsv, logimg, lr, (cx, cy), (ax, ay), ang)
        if look is None:
            continue
        (mh, ms, mv), hole_d, shift = look
        has_hole = hole_d > float(cfg["hole_min_log_ratio"])
        colour, dists = _nearest_colour(mh, ms, mv, cfg)
        if dists[colour] > 1.5 * float(cfg["max_distance"]) or float(shift.max() - shift.min()) < float(cfg["min_chroma_shift"]):
            continue  # no tile's colour, or only darker/lighter than the surface: grain, a stain, a shadow
        if area > float(cfg["max_area_fraction"]) * typical or (len(blobs) > 1 and area > 1.7 * typical) or ax > 1.5 * ay or ay > 1.5 * ax:
            problems.append(f"tiles touching at ({cx / scale:.0f}, {cy / scale:.0f})")
            continue
        agree = (colour == "berry") != has_hole
        conf = 1.0 if agree and dists[colour] <= float(cfg["max_distance"]) else 0.4
        if not agree:
            problems.append(
                f"a tile at ({cx / scale:.0f}, {cy / scale:.0f}) looks {colour} but {'has a' if has_hole else 'has no'} hole"
            )
        out.append(TileBlob(colour if agree else "unknown", (cx / scale, cy / scale), max(ax, ay) / 2 / scale, has_hole, conf))
    counts = {k: sum(1 for b in out if b.kind == k) for k in TILE_KINDS}
    timings = {"scan": (time.perf_counter() - t0) * 1000}
    if problems:
        return TileScan(counts, tuple(out), usable=False, status="; ".join(problems[:3]) + ": lay the tiles apart and scan again", timings_ms=timings)
    return TileScan(counts, tuple(out), status=f"{len(out)} tile(s)", timings_ms=timings)


def main(argv: Sequence[str] | None = None) -> int:
    return read_file_main(argv, "python -m companion.vision.readers.mighty_magpies", __doc__.split("\n\n")[0], str(MAP_PATH), MagpiesReader)


if __name__ == "__main__":
    sys.exit(main())
