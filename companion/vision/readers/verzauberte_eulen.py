"""Verzauberte Eulen board reader: every space's owls, each with its head colour and body colour.

Usage::

    python -m companion.vision.readers.verzauberte_eulen IMAGE [--map calibration/boards/verzauberte-eulen.json]

prints the :class:`~companion.vision.readers.Observation` as JSON.

An owl seen from above is a disc (the body, 12 mm radius) with a smaller disc on top (the head,
6 mm) inside a thin light collar; colours red, blue, green, yellow and black. Each colour also has a
shape for players who cannot tell the colours apart (heads: circle, square, diamond, hexagon; bodies:
1-4 notches in the rim), see ``docs/vision-notes.md``; the reader itself reads colour.

Owls stand on *spots* (:func:`owl_spots`): two per path space (side by side across the path), two
per crossing (on its diagonal), four per nest, seventeen in the cave. For each spot the reader takes
the median colour of a ring of samples on the body and of a small disc on the head, as ratios to the
bare board (:mod:`companion.vision.readers.discs`), and names the nearest colour; a body that looks
like bare board is an empty spot. Vocabulary: ``{"owl": {"head": "red", "body": "blue"}}``.

A frame without a usable pose, too blurred or too small for the owls' heads, where an arm reaches
over the board's edge, where bare-board patches or spots show colours that belong to nothing on the
board (a hand, a sleeve), or whose bare board is not the colour this reader knows (another print:
teach the board), gives an unusable observation with the reason. A head alone far from every colour,
on a body ring read as one colour, is no such sign: a head is a few pixels across on the far side of
the board, and in dim light the camera's noise there moves its colour; that owl is read unsure, its
space listed in the observation's ``extra["unmatched"]`` (a look taught from a photo is checked by it).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from companion.data import bundled
from companion.vision import photometry
from companion.vision.boardmap import BoardMap, load_board_map
from companion.vision.intrinsics import CameraProfile
from companion.vision.pose import BoardTracker, PoseResult
from companion.vision.readers import Observation, TrackedReader, read_file_main
from companion.vision.readers.discs import (
    PRINTED,
    Look,
    Prototypes,
    bare_board_points,
    bare_rings,
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

CONFIG_NAME = "verzauberte_eulen"
COLOURS = ("red", "blue", "green", "yellow", "black")
MAP_PATH = bundled("calibration", "boards", "verzauberte-eulen.json")


@dataclass(frozen=True)
class Spot:
    """Where one owl of a region stands (board mm)."""

    region: str
    index: int
    x: float
    y: float


def owl_spots(board: BoardMap, spots_cfg: Mapping[str, Any]) -> list[Spot]:
    """Every spot of the board, grouped by region in map order (see the module docstring)."""
    centres = {r.id: np.asarray(r.center_mm, np.float64) for r in board.regions}
    near: dict[str, list[str]] = {r.id: [] for r in board.regions}
    for a, b in board.edges:
        near[a].append(b)
        near[b].append(a)
    mid = np.asarray(board.size_mm, np.float64) / 2
    out: list[Spot] = []
    for r in board.regions:
        c = centres[r.id]
        if r.kind == "path":
            a, b = (centres[n] for n in near[r.id][:2])
            d = (b - a) / max(float(np.linalg.norm(b - a)), 1e-9)
            n = np.array([-d[1], d[0]]) * float(spots_cfg["path_offset_mm"])
            offsets = sorted([n, -n], key=lambda v: (round(v[1], 6), round(v[0], 6)))
        elif r.kind == "crossing":
            o = float(spots_cfg["crossing_offset_mm"])
            offsets = [np.array([-o, -o]), np.array([o, o])]
        elif r.kind == "nest":
            s = np.sign(c - mid) * float(spots_cfg["nest_shift_mm"])
            h = float(spots_cfg["nest_pitch_mm"]) / 2
            offsets = [s + np.array(v) for v in ((-h, -h), (h, -h), (-h, h), (h, h))]
        elif r.kind == "cave":
            p, h = float(spots_cfg["cave_pocket_mm"]), float(spots_cfg["cave_pitch_mm"]) / 2
            pockets = [np.array(v) * p for v in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
            inner = [np.array(v) * h for v in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
            offsets = [np.zeros(2)] + [pk + q for q in inner for pk in pockets]
        else:
            continue
        out.extend(Spot(r.id, i, float(c[0] + v[0]), float(c[1] + v[1])) for i, v in enumerate(offsets))
    return out


class EulenReader(TrackedReader):
    """Reads owls from frames of one board (one per camera; keeps the pose tracker)."""

    def __init__(
        self,
        board: BoardMap | None = None,
        config: Mapping[str, Any] | None = None,
        pose_config: Mapping[str, Any] | None = None,
        camera: CameraProfile | None = None,
        appearance: Mapping[str, Any] | None = None,
    ) -> None:
        self.board = board if board is not None else load_board_map(MAP_PATH)
        self.config = load_config(CONFIG_NAME, config)
        self.tracker = BoardTracker(self.board, pose_config, camera)
        self.arms = ArmWatch(self.board)
        cfg = self.config
        self.spots = owl_spots(self.board, cfg["spots"])
        self.regions = tuple(r.id for r in self.board.regions)
        s = cfg["sampling"]
        self._head = ring(float(s["head_radius_mm"]), int(s["head_points"]))
        self._head = np.vstack([np.zeros((1, 2)), self._head])
        self._body = ring(float(s["body_radius_mm"]), int(s["body_points"]), phase=np.pi / int(s["body_points"]))
        il = cfg["illumination"]
        radius = float(cfg["owl"]["radius_mm"]) + float(cfg["paint"]["jitter_mm"])
        # where each region's owls are read (region, x, y, radius; board mm): nothing outside them changes a reading
        self.piece_discs = tuple((sp.region, sp.x, sp.y, radius) for sp in self.spots)
        self._refs = bare_board_points(self.board, float(il["step_mm"]), float(il["clearance_mm"]), int(il["max_points"]),
                                       [disc[1:] for disc in self.piece_discs])
        self._patch = patch(float(il["patch_half_mm"]))
        centres = np.array([[sp.x, sp.y] for sp in self.spots])
        self._points = np.vstack(
            [
                (centres[:, None, :] + self._head[None]).reshape(-1, 2),
                (centres[:, None, :] + self._body[None]).reshape(-1, 2),
                (self._refs[:, None, :] + self._patch[None]).reshape(-1, 2),
            ]
        )
        self.teach(appearance)

    def teach(self, appearance: Mapping[str, Any] | None) -> None:
        """Use a taught look of the family's box (:meth:`learn_appearance`, saved by
        :func:`companion.vision.teach.save_appearance`) over the config's colours."""
        cfg = self.config
        palette = cfg["palette_bgr"]
        look = look_from(appearance, cfg["board_bgr"], {"body": palette, "head": palette}, len(self._refs), len(self.spots))
        self.look = look
        self._body_protos = self._prototypes(look, "body", (cfg["classify"]["empty_name"],))
        self._head_protos = self._prototypes(look, "head", ())
        self._bare_rings = bare_rings(appearance, look.empty, len(self._body))

    @staticmethod
    def _prototypes(look: Look, feature: str, bare: tuple[str, ...]) -> Prototypes:
        """``feature``'s colours as taught, and the print's beside those taught on the config's box (``Look.printed``);
        ``bare``: the bare board's name first, when the feature may be missing (no owl on the spot)."""
        empty = look.empty  # (N, 3): the bare board under each spot
        printed = look.printed.get(feature, {})
        variants = look.variants.get(feature, [])
        names = (*bare, *COLOURS, *printed, *(n for n, _c in variants))
        colours = [empty] * len(bare) + [look.palettes[feature][c] for c in COLOURS] + list(printed.values()) + [c for _n, c in variants]
        vectors = np.stack([np.broadcast_to(c, empty.shape) for c in colours], axis=1)
        return Prototypes(names, vectors / empty[:, None, :])

    def _samples(self, frame: np.ndarray, pose: PoseResult, marks: photometry.Photometry) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Normalised (head, body, reference patch) median colours."""
        n_spots = len(self.spots)
        nh, nb, npch = len(self._head), len(self._body), len(self._patch)
        bgr = marks.apply(sample_bgr(frame, pose, self._points))
        k = n_spots * nh
        head = np.median(bgr[:k].reshape(n_spots, nh, 3), axis=1)
        self._ring = bgr[k : k + n_spots * nb].reshape(n_spots, nb, 3)  # each body ring's samples (see _split_rings)
        body = np.median(self._ring, axis=1)
        refs = np.median(bgr[k + n_spots * nb :].reshape(len(self._refs), npch, 3), axis=1)
        return head, body, refs

    def _split_rings(self, censored: np.ndarray, unclipped: np.ndarray, base: np.ndarray, body_index: np.ndarray) -> np.ndarray:
        """(N,) bool: spots whose body ring's samples are not one colour -- a quarter or more of them nearer another
        colour than the one the ring's median was read as (an owl standing half off its spot, half on the bare
        board: the median reads one or the other, surely)."""
        ring = self._ring
        n, nb = ring.shape[:2]
        ratios = (ring / unclipped / base[:, None, :]).reshape(-1, 3)
        censored = censored.reshape(-1, 3)
        each, _d1, _d2 = self._body_protos.classify(ratios, float(self.config["classify"]["light_tolerance"]), censored) \
            if self._body_protos.vectors.ndim == 2 else self._classify_per_spot(ratios, censored, nb)
        other = (each.reshape(n, nb) != body_index[:, None]).mean(axis=1)
        return other >= float(self.config["classify"]["max_ring_split"])

    def _classify_per_spot(self, ratios: np.ndarray, censored: np.ndarray, nb: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Prototypes of one set per spot (a taught print): each ring sample against its own spot's, and where the
        bare ring was seen, against the bare board at that very sample (two-coloured art under a spot)."""
        vectors = np.repeat(self._body_protos.vectors, nb, axis=0)
        if self._bare_rings is not None:
            known = ~np.isnan(self._bare_rings[:, 0])
            vectors[known, 0] = self._bare_rings[known]  # the bare board is the body prototypes' first
        protos = Prototypes(self._body_protos.names, vectors)
        return protos.classify(ratios, float(self.config["classify"]["light_tolerance"]), censored)

    def learn_appearance(self, frame: np.ndarray, pose: PoseResult, scene: Mapping[str, Any]) -> dict[str, Any]:
        """The look of this box from one photo of it with its owls where ``scene`` says (the set-up the
        referee knows): the bare board, under each spot and round it, and the owls' colours."""
        marks = photometry.measure(frame, pose, self.board) if pose.usable else None
        if marks is None:
            raise ValueError(f"no board or no markers to learn from ({pose.message})")
        head, body, refs = self._samples(frame, pose, marks)
        expected = {r: [{"body": p["owl"]["body"], "head": p["owl"]["head"]} for p in pieces if isinstance(p, Mapping) and "owl" in p]
                    for r, pieces in scene.items()}
        kinds = {r.id: r.kind for r in self.board.regions}
        return learn_look(self.spots, {"body": body, "head": head}, refs, expected, self.look, {"body": "owl", "head": "owl"}, kinds,
                          rings=self._ring)

    def with_bare_board(self, look: Mapping[str, Any], bare: Mapping[str, Any]) -> tuple[dict[str, Any], int]:
        """``look`` (taught from a set-up, in use) with the nests' print that ``bare`` (taught from a photo of the
        empty board) showed: :func:`companion.vision.readers.discs.with_bare_board`."""
        return with_bare_board(look, bare, self.spots, {"body": "owl", "head": "owl"}, self.look.palettes)

    def read_with_pose(self, frame: np.ndarray, pose: PoseResult) -> Observation:
        t0 = time.perf_counter()
        timings = {"pose": float(pose.timings_ms.get("total", 0.0))}
        cfg = self.config
        frame, marks, problem = measured_frame(frame, pose, self.board, cfg["frame"])
        if problem is not None:
            return Observation.unusable(problem, timings)
        n_spots = len(self.spots)
        head_bgr, body_bgr, ref_bgr = self._samples(frame, pose, marks)
        # a lamp may clip a channel of the paper and of the bright print: values at the sensor's top are lower bounds
        seen = photometry.censored_colours(marks, ref_bgr, np.asarray(self.look.refs, np.float64) / PRINTED,
                                           (head_bgr, body_bgr, self._ring))
        marks, unclipped, ref_bgr = seen.marks, seen.factor, seen.refs
        head_bgr, body_bgr = seen.samples[:2]  # the ring's samples are divided by the factor where they are split
        head_top, body_top, ring_top = seen.tops
        il = cfg["illumination"]
        light = board_light(self._refs, ref_bgr, marks, self.look.refs, il)
        if light.mismatch > float(il["max_board_mismatch"]):
            return Observation.unusable(
                "the board does not look like the Verzauberte Eulen board this reader knows (its bare print is another "
                "colour): teach it your board with one photo", timings)
        arms = self.arms.crossings(frame, pose, marks)
        if arms:
            return Observation.unusable("a hand or an arm reaches over the board's edge: take it away", timings)
        spot_xy = np.array([[sp.x, sp.y] for sp in self.spots])
        base = light.field.at(spot_xy) * self.look.empty / PRINTED  # the bare board under each spot, as lit now
        head = head_bgr / base
        body = body_bgr / base
        cl = cfg["classify"]
        bi, bd1, bd2 = self._body_protos.classify(body, float(cl["light_tolerance"]), body_top)
        hi, hd1, hd2 = self._head_protos.classify(head, float(cl["light_tolerance"]), head_top)
        bconf = confidence(bd1, bd2, float(cl["max_distance"]), float(cl["margin_scale"]))
        hconf = confidence(hd1, hd2, float(cl["max_distance"]), float(cl["margin_scale"]))
        occupied = bi > 0
        conf = np.where(occupied, np.minimum(bconf, hconf), bconf)
        split = self._split_rings(ring_top, unclipped, base, bi)
        conf = np.where(split, np.minimum(conf, 0.5), conf)
        # a head far from every colour on a body ring read whole is an owl whose head is misread (a few pixels
        # far off, in dim light), not a cover: unsure (its conf is at most 0.5), not a sign of a hand
        far_head = occupied & (hd1 > float(cl["max_distance"]))
        unread = far_head & ~split
        unknown = (bd1 > float(cl["max_distance"])) | (far_head & split)
        # a spot whose bare board the teaching photo never showed (an owl stood there) and that matches
        # no owl: it may well be empty -- unsure, not a sign of a hand
        unseen = unknown & ~self.look.empty_known
        conf = np.where(unseen, np.minimum(conf, 0.3), conf)
        # and read as empty there, it is only a guess: the bare board under it was never seen
        conf = np.where(~occupied & ~self.look.empty_known, np.minimum(conf, 0.5), conf)
        unknown &= self.look.empty_known
        # another box whose owls of some colour the teaching photo did not show: those colours are a guess
        body_names, head_names = self._body_protos.names, self._head_protos.names
        guess = self.look.untaught_mask("body", body_names, bi) | (occupied & self.look.untaught_mask("head", head_names, hi))
        guess |= ~occupied & self.look.unsure_feature("body")
        conf = np.where(guess, np.minimum(conf, 0.5), conf)
        timings["read"] = (time.perf_counter() - t0) * 1000
        cover = cfg["cover"]
        bad_refs = len(light.field.outliers)
        n_unknown = int(unknown.sum())
        if covered(light.field, self._refs, float(il["step_mm"]), cover) or n_unknown > int(cover["max_unknown_spots"]):
            where = sorted({self.spots[i].region for i in np.flatnonzero(unknown)})
            near = f" near {', '.join(where[:6])}" if where else ""
            return Observation.unusable(
                f"something covers the board{near} ({bad_refs} bare-board patch(es) off colour, "
                f"{n_unknown} spot(s) of unknown colour): take your hand away",
                timings,
            )
        regions: dict[str, list[Any]] = {}
        region_conf: dict[str, float] = {}
        spot_reads = []  # per spot of piece_discs: (its owl or None, confidence)
        for i, sp in enumerate(self.spots):
            region_conf[sp.region] = min(region_conf.get(sp.region, 1.0), float(conf[i]))
            owl = {"owl": {"head": head_names[hi[i]], "body": body_names[bi[i]]}} if occupied[i] else None
            spot_reads.append((owl, float(conf[i])))
            if owl is not None:
                regions.setdefault(sp.region, []).append(owl)
        for pieces in regions.values():
            pieces.sort(key=lambda p: (p["owl"]["body"], p["owl"]["head"]))
        return Observation(
            regions,
            region_conf,
            usable=True,
            status=f"read ({pose.message})",
            timings_ms=timings,
            extra={"pose_status": pose.status.value, "spots": n_spots, **photometry.summary(marks),
                   "unmatched": sorted({self.spots[i].region for i in np.flatnonzero(unread)}), "spot_reads": spot_reads},
        )


def main(argv: Sequence[str] | None = None) -> int:
    return read_file_main(argv, "python -m companion.vision.readers.verzauberte_eulen", __doc__.split("\n\n")[0], str(MAP_PATH), EulenReader)


if __name__ == "__main__":
    sys.exit(main())
