"""Eagle Kingdoms board reader: which puzzle pieces are still on the felt, which character stands on each.

    reader = EagleKingdomsReader(board_map)           # loads the stand classifier once
    pose = tracker.update(frame)
    obs = reader.read(frame, pose)                    # Observation; obs.usable False without a pose

Stages, each on the board seen from above (the frame rectified at ``px_per_mm``):

1. *pixel classes* (HSV): felt (green), puzzle piece (saturated red-orange-gold), card paper (bright,
   unsaturated), other (ink, stand bases, shadows' edges, a hand, glare);
2. *pieces*: for each region, felt against piece pixels: present when piece pixels win; the share
   of the region that is neither (a hand over it) lowers the confidence;
3. *stands*: card blobs (:func:`companion.vision.readers.stands.find_cards`) are assigned to the
   region under their centre and read by the stand classifier (1-10 or Jester).

Region vocabulary (``companion.workshop.boards.scenes.eagle_kingdoms``): ``{"piece": True}`` and
``{"stand": value}``. Every region gets a confidence; below ``uncertain_below`` it is uncertain.
The reader knows nothing of the rules (which piece must carry a stand, how many Jesters...).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import cv2
import numpy as np

from companion.vision.boardmap import BoardMap
from companion.vision.pose import PoseResult, canvas_to_board, rectify
from companion.vision.readers import DEFAULT_UNCERTAIN_BELOW, Observation
from companion.vision.readers.stands import StandClassifier, find_cards, read_cards

_NEAR_CARD_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))

DEFAULT_CONFIG: dict[str, Any] = {
    "px_per_mm": 1.0,
    "felt_hue": [30, 95],
    "felt_s_min": 60,
    "felt_v_min": 20,
    "piece_hue_max": 30,
    "piece_hue_min_wrap": 158,
    "piece_s_min": 125,
    "piece_v_min": 40,
    "paper_s_max": 80,
    "paper_v_min": 100,
    "known_min": 0.15,  # share of felt+piece pixels below which nothing is said about the piece
    "known_full": 0.45,  # share at which the piece reading is fully trusted
    "clear_without_card": 0.8,  # a region with no card must be this much felt/piece to say "no stand"
    "stray_card_mm": 15.0,  # a card outside every region belongs to the nearest within this distance
    "shield_capacity": 20,  # places on the centre shield (stands side by side); at this many, more may be hidden
    "shield_zone_mm": 7.0,  # a card whose middle is this close outside the shield stands on its rim
    "close_cards": False,  # no closing of the paper mask: stands on the shield stand 3 mm apart
    "uncertain_below": DEFAULT_UNCERTAIN_BELOW,
}


class EagleKingdomsReader:
    def __init__(
        self,
        board: BoardMap,
        classifier: StandClassifier | None = None,
        config: Mapping[str, Any] | None = None,
    ) -> None:
        self.board = board
        self.cfg = dict(DEFAULT_CONFIG)
        self.cfg.update(config or {})
        self.classifier = classifier if classifier is not None else StandClassifier()
        s = float(self.cfg["px_per_mm"])
        self.px_per_mm = s
        w, h = board.size_mm
        self.shape = (round(h * s), round(w * s))
        self.ids = [r.id for r in board.regions]
        self.kinds = [r.kind for r in board.regions]
        self.labels = np.zeros(self.shape, np.uint8)  # region index + 1
        for k, r in enumerate(board.regions):
            if r.polygon_mm is not None:
                pts = np.round((np.asarray(r.polygon_mm) * s - 0.5) * 16).astype(np.int32)
                cv2.fillPoly(self.labels, [pts], k + 1, cv2.LINE_8, shift=4)
            else:
                (cx, cy), rad = r.circle_center_mm, float(r.radius_mm or 0)
                cv2.circle(self.labels, (round((cx * s - 0.5) * 16), round((cy * s - 0.5) * 16)), round(rad * s * 16), k + 1, -1, cv2.LINE_8, shift=4)
        self.region_px = np.bincount(self.labels.ravel(), minlength=len(self.ids) + 1)
        # where a card's middle counts as on a shield: the shield and a band around it (stands on
        # the shield's rim overhang the felt and the pieces around it; no piece's own stand is near)
        self.card_labels = self.labels.copy()
        zone = max(1, round(float(self.cfg["shield_zone_mm"]) * s))
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * zone + 1, 2 * zone + 1))
        for k, kind in enumerate(self.kinds):
            if kind == "shield":
                self.card_labels[cv2.dilate((self.labels == k + 1).astype(np.uint8), kernel) > 0] = k + 1
        self.centres_px = np.array([r.center_mm for r in board.regions]) * s - 0.5
        self.last_ms: dict[str, float] = {}

    # -- entry points ----------------------------------------------------------------------------------
    def read(self, frame: np.ndarray, pose: PoseResult) -> Observation:
        """Read one frame with its pose; an unusable pose gives an unusable observation (its reason)."""
        if frame is None or not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3:
            return Observation.unusable("not a colour image")
        if not pose.usable:
            return Observation.unusable(f"no board pose ({pose.message})")
        t0 = time.perf_counter()
        w, h = self.board.size_mm
        area = (0.0, 0.0, w, h)
        if pose.camera is not None:  # lens distortion: rectify through the camera model, read the canvas
            canvas, source = rectify(frame, pose, area, self.px_per_mm), None
        else:
            # the canvas only serves colours and card outlines: nearest-pixel sampling is enough; the
            # cards' values are cut from the frame itself (one interpolation)
            M = pose.homography @ canvas_to_board(self.px_per_mm, area)
            canvas = cv2.warpPerspective(frame, M, (self.shape[1], self.shape[0]), flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP)
            source = (frame, M)
        t1 = time.perf_counter()
        obs = self.read_canvas(canvas, source)
        timings = {"rectify": (t1 - t0) * 1000, **obs.timings_ms}
        timings["total"] = (time.perf_counter() - t0) * 1000
        if pose.status.name == "PARTLY_HIDDEN":
            status = f"ok ({pose.message})"
        else:
            status = "ok"
        return Observation(obs.regions, obs.confidence, obs.uncertain_below, True, status, timings, obs.extra)

    def read_canvas(self, canvas: np.ndarray, source: tuple[np.ndarray, np.ndarray] | None = None) -> Observation:
        """Read a board canvas rectified at ``px_per_mm`` (board mm (0, 0) at the top-left pixel);
        ``source`` = (frame, canvas px -> frame px) to cut the cards from the frame instead."""
        t0 = time.perf_counter()
        cfg = self.cfg
        if canvas.shape[:2] != self.shape:
            return Observation.unusable(f"canvas is {canvas.shape[1]}x{canvas.shape[0]} px, expected {self.shape[1]}x{self.shape[0]}")
        hsv = cv2.cvtColor(canvas, cv2.COLOR_BGR2HSV)
        paper = cv2.inRange(hsv, (0, 0, cfg["paper_v_min"]), (180, cfg["paper_s_max"], 255))
        felt = cv2.inRange(hsv, (cfg["felt_hue"][0], cfg["felt_s_min"], cfg["felt_v_min"]), (cfg["felt_hue"][1], 255, 255))
        lo, hi = (cfg["piece_s_min"], cfg["piece_v_min"]), (255, 255)
        piece = cv2.inRange(hsv, (0, *lo), (cfg["piece_hue_max"], *hi)) | cv2.inRange(hsv, (cfg["piece_hue_min_wrap"], *lo), (180, *hi))
        n = len(self.ids) + 1
        # the cards' frames, shadows and bases are neither felt nor piece: leave a band around the paper out
        near_card = cv2.dilate(paper, _NEAR_CARD_KERNEL)
        free = near_card == 0
        counts = np.zeros((n, 4))
        counts[:, 1] = np.bincount(self.labels[(felt > 0) & free], minlength=n)
        counts[:, 2] = np.bincount(self.labels[(piece > 0) & free], minlength=n)
        counts[:, 3] = np.bincount(self.labels[~free], minlength=n)
        paper = (paper > 0).astype(np.uint8)
        t1 = time.perf_counter()
        rejected: list[tuple[float, float]] = []
        cards = find_cards(canvas, self.px_per_mm, _card_cfg(cfg), paper, rejected)
        if source is None:
            readings = read_cards(canvas, cards, self.px_per_mm, self.classifier)
        else:
            readings = read_cards(source[0], cards, self.px_per_mm, self.classifier, source[1])
        t2 = time.perf_counter()

        per_region: dict[int, list[tuple[Any, float]]] = {}
        stray = 0
        blocked = set()  # regions with paper that is not one readable card (touching cards...)
        for x, y in rejected:
            k = self._region_at(x, y)
            if k >= 0:
                blocked.add(k)
        for card, (label, conf) in zip(cards, readings, strict=True):
            k = self._region_at(*card.centre_px)
            if k < 0:
                stray += 1
                continue
            per_region.setdefault(k, []).append((label, conf))

        regions: dict[str, list[Any]] = {}
        confidence: dict[str, float] = {}
        for k, rid in enumerate(self.ids):
            _other, n_felt, n_piece, n_paper = (float(v) for v in counts[k + 1])
            total = max(float(self.region_px[k + 1]) - n_paper, 1.0)  # what cards leave visible
            known = (n_felt + n_piece) / total
            share = n_piece / max(n_felt + n_piece, 1.0)
            present = share > 0.5
            decisive = min(1.0, abs(share - 0.5) * 2.5)
            seen = min(1.0, max(0.0, (known - cfg["known_min"]) / (cfg["known_full"] - cfg["known_min"])))
            conf = decisive * seen
            pieces: list[Any] = [{"piece": True}] if present else []
            stands = per_region.get(k, [])
            for label, c in stands:
                pieces.append({"stand": label})
                conf = min(conf, c)
            if k in blocked:
                conf = min(conf, 0.3)
            if self.kinds[k] == "shield" and len(stands) >= cfg["shield_capacity"]:
                conf = min(conf, 0.5)  # the shield is full: more characters may hide under these
            if not stands and known < cfg["clear_without_card"]:
                # no card seen, but part of the region is hidden: a stand could be under it
                conf = min(conf, known / cfg["clear_without_card"] * 0.85)
            if pieces:
                regions[rid] = pieces
            confidence[rid] = round(conf, 4)
        t3 = time.perf_counter()
        return Observation(
            regions,
            confidence,
            float(cfg["uncertain_below"]),
            True,
            "ok",
            {"classes": (t1 - t0) * 1000, "stands": (t2 - t1) * 1000, "regions": (t3 - t2) * 1000},
            {"cards": len(cards), "stray_cards": stray},
        )

    def _region_at(self, x: float, y: float) -> int:
        """Index of the region a card whose middle is at canvas pixel (x, y) stands on (a shield's
        rim band counts as the shield), else the nearest within ``stray_card_mm``, else -1."""
        xi, yi = min(max(round(x), 0), self.shape[1] - 1), min(max(round(y), 0), self.shape[0] - 1)
        k = int(self.card_labels[yi, xi]) - 1
        if k < 0:
            d = np.hypot(*(self.centres_px - (x, y)).T) / self.px_per_mm
            k = int(d.argmin()) if d.min() <= self.cfg["stray_card_mm"] else -1
        return k


def _card_cfg(cfg: Mapping[str, Any]) -> dict[str, Any]:
    from companion.vision.readers.stands import DEFAULT_CARD_CONFIG

    out = dict(DEFAULT_CARD_CONFIG)
    out["paper_s_max"] = cfg["paper_s_max"]
    out["paper_v_min"] = cfg["paper_v_min"]
    out["close"] = cfg.get("close_cards", True)
    return out
