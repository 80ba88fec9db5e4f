"""Eagle Kingdoms board reader: which puzzle pieces are still on the felt, which character stands on each.

    reader = EagleKingdomsReader(board_map)           # loads the stand classifier once
    pose = tracker.update(frame)
    obs = reader.read(frame, pose)                    # Observation; obs.usable False without a pose

Stages, each on the board seen from above (the frame rectified at ``px_per_mm``):

0. *the frame*: too blurred (:mod:`companion.vision.quality`, the markers' edges) or the board too
   small in the picture for the characters' values: not read, the reason said. The markers' black
   and white normalise the colours (:mod:`companion.vision.photometry`): a warm lamp or a dim room
   reads as daylight.
1. *the felt*, learnt from the frame itself: the template's margin around the eagle is always bare
   felt, so its colour is whatever the box's felt is (green, navy...); a pixel is felt when its
   chromaticity (the same in a shadow) and brightness are the felt's. Taught (:mod:`companion.vision.teach`),
   the felt and the pieces' colours come from a photo of the family's own box;
2. *a hand*: the margin and a ring of table round the template must look like felt and like the table;
   where they do not, something reaches over the board: its colour is taken there and followed into
   the board. Spaces it covers are *hidden* (unknown, never read), spaces next to it unsure;
3. *pieces*: for each region, felt against anything else that is not card paper or hand: a piece is
   present when felt is the minority; a region mostly unseen is unsure;
4. *stands*: card blobs (:func:`companion.vision.readers.stands.find_cards`) are assigned to the
   region under their centre and read by the stand classifier (1-10 or Jester); a reading the
   classifier does not repeat on a slightly shifted crop is unsure (a typeface it was not trained on).

Region vocabulary (``companion.workshop.boards.scenes.eagle_kingdoms``): ``{"piece": True}`` and
``{"stand": value}``. Every region gets a confidence; below ``uncertain_below`` it is uncertain.
The reader knows nothing of the rules (which piece must carry a stand, how many Jesters...).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

import cv2
import numpy as np

from companion.vision import photometry, quality
from companion.vision.boardmap import BoardMap
from companion.vision.pose import PoseResult, canvas_to_board, rectify
from companion.vision.readers import DEFAULT_UNCERTAIN_BELOW, Observation
from companion.vision.readers.occlusion import ArmWatch
from companion.vision.readers.stands import CardMemo, StandClassifier, find_cards, read_cards_checked

_NEAR_CARD_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))
_SOLID_KERNEL = np.ones((3, 3), np.uint8)

DEFAULT_CONFIG: dict[str, Any] = {
    "px_per_mm": 1.0,
    "paper_s_max": 95,  # cream paper reads up to ~60 in daylight; a white balance from clipped white adds ~15
    "paper_v_min": 100,
    "known_min": 0.15,  # share of felt+piece pixels below which nothing is said about the piece
    "known_full": 0.45,  # share at which the piece reading is fully trusted
    "region_edge_mm": 3.0,  # pieces are read off this band along their spaces' edges
    "share_sure": 0.25,  # a piece share this far from a half decides (printed art may cover a quarter of a space)
    "clear_without_card": 0.8,  # a region with no card must be this much felt/piece to say "no stand"
    "stray_card_mm": 15.0,  # a card outside every region belongs to the nearest within this distance
    "shield_capacity": 20,  # places on the centre shield (stands side by side); at this many, more may be hidden
    "shield_zone_mm": 7.0,  # a card whose middle is this close outside the shield stands on its rim
    "rim_stand_sure": 0.98,  # a stand on the shield's rim is sure only from this (the pieces' edges cross its digits)
    "close_cards": False,  # no closing of the paper mask: stands on the shield stand 3 mm apart
    "uncertain_below": DEFAULT_UNCERTAIN_BELOW,
    # the frame
    "max_blur_mm": 1.15,  # edge spread (sigma) beyond which the characters' values are not read
    "min_px_per_mm": 0.8,  # the board's scale below which a value's digits are too few pixels
    # the felt, learnt from the template's bare margin
    "margin_clear_mm": 4.0,  # the margin keeps this far from every region
    "margin_step_mm": 8.0,
    "felt_chroma": 0.045,  # chromaticity distance within which a pixel is the felt's colour
    "felt_light": [0.25, 1.8],  # and its brightness, relative to the felt's
    "felt_min_share": 0.3,  # of the margin must agree on one felt colour, else the board is not seen
    "taught_felt_follow": 0.1,  # a taught felt colour is followed this far (chromaticity) in a lamp's light
    # a hand
    "hand_min_points": 4,  # foreign margin points needed to believe a hand
    "hand_spread_min": 14.0,  # per-channel tolerance (8-bit) round the hand's colour, at least
    "hand_reach_mm": 160.0,  # a hand reaches at most this far from where it crosses the margin
    "hand_hidden_share": 0.1,  # a region this much under the hand is hidden
    "hand_near_mm": 8.0,  # regions this close to the hand are unsure (fingers)
    "stand_agree_shift_px": 0.5,  # a doubtful value must read the same with the crop shifted by this much
    "stand_sure_prob": 0.995,  # values read this surely are not read twice
    "partial_card_spot_mm": 8.0,  # a part of a card (smaller paper) counts only this close to a stand's spot
    "stray_paper_mm2": 40.0,  # paper no card explains, near a stand's spot (or on the shield): a card not found
    "stray_paper_spot_mm": 12.0,
    "card_paper_mm2": 200.0,  # paper no card explains where a character stands, read as bare felt: most of a card (288 mm2;
    # the films' printed art on bare felt leaves up to 128 mm2 there)
    "dim_paper_light": 0.5,  # paper no card explains is also looked for this much darker than the light field says
    "classes_scale": 0.5,  # felt and hand are classified at this share of the canvas' resolution
    "light_cell_mm": 10.0,  # the light (shadows) is measured on the felt in cells of this size
    "light_spread_mm": 25.0,  # and spread under the pieces by a Gaussian of this size
    "light_min": 0.3,  # no darker than this (a darker space is not read as paper anyway)
}


_SPOTS: dict[str, dict[str, tuple[float, float]]] = {}


def stand_spots(board: BoardMap) -> dict[str, tuple[float, float]]:
    """Where a piece's character stands: the point of the piece farthest from its edge (the middle of
    its widest part), so the stands of neighbouring pieces keep apart; the nearest to the piece's
    centroid among points within 0.5 mm of that farthest distance."""
    key = board.digest()
    if key in _SPOTS:
        return _SPOTS[key]
    s = 4.0
    spots = {}
    for r in board.regions:
        x0, y0, x1, y1 = r.bounds_mm()
        if r.polygon_mm is None:
            spots[r.id] = r.center_mm
            continue
        m = np.zeros((int((y1 - y0) * s) + 3, int((x1 - x0) * s) + 3), np.uint8)
        pts = np.round((np.asarray(r.polygon_mm) - (x0, y0)) * s * 16).astype(np.int32)
        cv2.fillPoly(m, [pts], 255, shift=4)
        d = cv2.distanceTransform(m, cv2.DIST_L2, 5)
        yy, xx = np.nonzero(d >= d.max() - 0.5 * s)
        cx, cy = r.center_mm
        k = int(np.argmin(np.hypot(xx / s + x0 - cx, yy / s + y0 - cy)))
        spots[r.id] = (float(xx[k] / s + x0), float(yy[k] / s + y0))
    _SPOTS[key] = spots
    return spots


class EagleKingdomsReader:
    def __init__(
        self,
        board: BoardMap,
        classifier: StandClassifier | None = None,
        config: Mapping[str, Any] | None = None,
        appearance: Mapping[str, Any] | None = None,
    ) -> None:
        self.board = board
        self.cfg = dict(DEFAULT_CONFIG)
        self.cfg.update(config or {})
        self.classifier = classifier if classifier is not None else StandClassifier()
        self.appearance = dict(appearance or {})
        s = float(self.cfg["px_per_mm"])
        self.px_per_mm = s
        self._card_memo = CardMemo(s)
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
        # a space's inside, off its edges: a piece fills its space, but a box may print the spaces' outlines, and
        # next to a neighbour's edge the felt between two pieces shows
        edge = np.ones((2 * round(float(self.cfg["region_edge_mm"]) * s) + 1,) * 2, np.uint8)
        self.inner_labels = np.where(cv2.erode(self.labels, edge) == cv2.dilate(self.labels, edge), self.labels, 0).astype(np.uint8)
        self.inner_px = np.bincount(self.inner_labels.ravel(), minlength=len(self.ids) + 1)
        # where a card's middle counts as on a shield: the shield and a band around it (stands on
        # the shield's rim overhang the felt and the pieces around it; no piece's own stand is near)
        self.card_labels = self.labels.copy()
        zone = max(1, round(float(self.cfg["shield_zone_mm"]) * s))
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * zone + 1, 2 * zone + 1))
        for k, kind in enumerate(self.kinds):
            if kind == "shield":
                self.card_labels[cv2.dilate((self.labels == k + 1).astype(np.uint8), kernel) > 0] = k + 1
        self.centres_px = np.array([r.center_mm for r in board.regions]) * s - 0.5
        spots = stand_spots(board)
        self.spots_px = np.array([spots[r.id] for r in board.regions]) * s - 0.5
        # where a card not found would leave its paper: round each stand's spot, the whole shield
        self.card_zone = np.zeros(self.shape, np.uint8)
        rad = max(1, round(float(self.cfg["stray_paper_spot_mm"]) * s))
        for k, (x, y) in enumerate(self.spots_px):
            if self.kinds[k] == "shield":
                self.card_zone[self.card_labels == k + 1] = k + 1
            else:
                cv2.circle(self.card_zone, (round(x), round(y)), rad, k + 1, -1)
        # the template's bare margin (never under a piece) and a ring of table round the template
        clear = max(1, round(float(self.cfg["margin_clear_mm"]) * s))
        busy = cv2.dilate((self.labels > 0).astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * clear + 1, 2 * clear + 1)))
        busy[:clear, :] = busy[-clear:, :] = 1
        busy[:, :clear] = busy[:, -clear:] = 1
        # (not near the centre shield: the felt there holds its overhanging stands and their shadows)
        reach = max(1, round(22.0 * s))  # a shield stand overhangs its rim by up to 7 mm, with its shadow
        for k, kind in enumerate(self.kinds):
            if kind == "shield":
                busy |= cv2.dilate((self.labels == k + 1).astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1, 2 * reach + 1)))
        self.margin_mask = busy == 0
        step = max(1, round(float(self.cfg["margin_step_mm"]) * s))
        yy, xx = np.mgrid[step // 2 : self.shape[0] : step, step // 2 : self.shape[1] : step]
        keep = self.margin_mask[yy, xx]
        self.margin_px = np.c_[xx[keep], yy[keep]]  # canvas px (x, y)
        self.arms = ArmWatch(board)
        self.last_ms: dict[str, float] = {}
        self._felt_tol = float(self.cfg["felt_chroma"])

    # -- entry points ----------------------------------------------------------------------------------
    def read(self, frame: np.ndarray, pose: PoseResult) -> Observation:
        """Read one frame with its pose; an unusable pose gives an unusable observation (its reason)."""
        if frame is None or not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3:
            return Observation.unusable("not a colour image")
        if not pose.usable:
            return Observation.unusable(f"no board pose ({pose.message})")
        t0 = time.perf_counter()
        cfg = self.cfg
        q = quality.assess(frame, pose, self.board)
        problem = q.problem(float(cfg["max_blur_mm"]))
        if problem is None and q.px_per_mm is not None and q.px_per_mm < float(cfg["min_px_per_mm"]):
            problem = (f"the board is too small in the picture ({q.px_per_mm:.2f} px per mm, at least {cfg['min_px_per_mm']} "
                       "to read the characters): bring the camera closer or use a larger picture")
        if problem is not None:
            return Observation.unusable(problem, {"quality": (time.perf_counter() - t0) * 1000})
        light = photometry.measure(frame, pose, self.board)
        if light is None:
            return Observation.unusable("the markers' black and white cannot be seen (covered or in glare): nothing read")
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
        # the lamp's colour is taken out, the exposure left as the camera chose it: the card finder's
        # brightness limits are in the camera's units (the cards' outlines were tuned so)
        canvas = light.balance_image(canvas)
        t1 = time.perf_counter()
        obs = self.read_canvas(canvas, source, lambda: self.arms.crossings(frame, pose, light))
        timings = {"rectify": (t1 - t0) * 1000, **obs.timings_ms}
        timings["total"] = (time.perf_counter() - t0) * 1000
        if not obs.usable:
            return Observation.unusable(obs.status, timings)
        status = "ok" if pose.status.name != "PARTLY_HIDDEN" else f"ok ({pose.message})"
        if obs.hidden:
            status += f"; not seen (a hand?): {', '.join(sorted(obs.hidden)[:6])}{'...' if len(obs.hidden) > 6 else ''}"
        extra = {**obs.extra, **photometry.summary(light), "blur_mm": None if q.blur_mm is None else round(q.blur_mm, 2)}
        return Observation(obs.regions, obs.confidence, obs.uncertain_below, True, status, timings, extra, obs.hidden)

    def read_canvas(self, canvas: np.ndarray, source: tuple[np.ndarray, np.ndarray] | None = None,
                    arms: Callable[[], list] | None = None) -> Observation:
        """Read a normalised board canvas rectified at ``px_per_mm`` (board mm (0, 0) at the top-left
        pixel); ``source`` = (frame, canvas px -> frame px) to cut the cards from the frame instead;
        ``arms()`` where an arm crosses the table round the template (asked only when the margin shows
        no hand: :class:`~companion.vision.readers.occlusion.ArmWatch`)."""
        t0 = time.perf_counter()
        cfg = self.cfg
        if canvas.shape[:2] != self.shape:
            return Observation.unusable(f"canvas is {canvas.shape[1]}x{canvas.shape[0]} px, expected {self.shape[1]}x{self.shape[0]}")
        f = float(cfg["classes_scale"])
        small = cv2.resize(canvas, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        felt_bgr, felt_light, agree = self._felt(small, f)
        if agree < float(cfg["felt_min_share"]):
            return Observation.unusable("the felt round the eagle is not seen (covered, or not the Eagle Kingdoms template): nothing read")
        felt_small = _felt_mask(small, felt_bgr, felt_light, self._felt_tol, cfg["felt_light"])
        light = self._light(small, felt_small, felt_light)
        _hue, sat, val = cv2.split(cv2.cvtColor(canvas, cv2.COLOR_BGR2HSV))  # apart: each test reads one channel
        unsaturated = sat <= int(cfg["paper_s_max"])  # paper's test and the dim paper's
        # paper: unsaturated and bright for the light where it lies (a card in a shadow is paper too)
        # (light within 20 % of the felt's is daylight's unevenness: the threshold moves only for a shadow)
        paper_light = np.minimum(1.0, light / 0.8)
        paper = (unsaturated & (val >= float(cfg["paper_v_min"]) * paper_light)).astype(np.uint8) * 255
        paper_small = cv2.resize(paper, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_NEAREST)
        hand_small, near_small, reaching = self._hand(small, felt_small, paper_small, arms, f)
        if reaching:
            return Observation.unusable("something reaches over the board from its edge (a hand, an arm?): nothing read")
        size = (self.shape[1], self.shape[0])
        felt = cv2.resize(felt_small, size, interpolation=cv2.INTER_NEAREST)
        # a piece is a solid plate centimetres wide; what is not felt only in thin lines (another box prints
        # its spaces' outlines and dice pictures on the felt) is the board's art: neither felt nor piece
        solid = cv2.morphologyEx((felt_small == 0).astype(np.uint8), cv2.MORPH_OPEN, _SOLID_KERNEL)
        piece = cv2.resize(solid, size, interpolation=cv2.INTER_NEAREST)
        hand = cv2.resize(hand_small, size, interpolation=cv2.INTER_NEAREST)
        near_hand = cv2.resize(near_small, size, interpolation=cv2.INTER_NEAREST)
        n = len(self.ids) + 1
        # the cards' frames, shadows and bases are neither felt nor piece: leave a band around the paper out
        near_card = cv2.dilate(paper, _NEAR_CARD_KERNEL)
        free = (near_card == 0) & (hand == 0)
        counts = np.zeros((n, 5))
        counts[:, 1] = np.bincount(self.inner_labels[(felt > 0) & free], minlength=n)
        counts[:, 2] = np.bincount(self.inner_labels[(piece > 0) & free], minlength=n)
        counts[:, 3] = np.bincount(self.inner_labels[near_card > 0], minlength=n)
        counts[:, 4] = np.bincount(self.inner_labels[hand > 0], minlength=n)
        near = np.bincount(self.labels[near_hand > 0], minlength=n)
        paper = ((paper > 0) & (hand == 0)).astype(np.uint8)
        t1 = time.perf_counter()
        rejected: list[tuple[float, float]] = []
        cards = find_cards(canvas, self.px_per_mm, _card_cfg(cfg), paper, rejected)
        readings = self._read_cards(canvas, cards, source)
        t2 = time.perf_counter()

        # paper that no card found explains (a card broken up by glare or its own ink)
        explained = np.zeros(self.shape, np.uint8)
        for card in cards:
            box = cv2.boxPoints(((card.centre_px[0], card.centre_px[1]), (card.size_mm[0] * self.px_per_mm + 3, card.size_mm[1] * self.px_per_mm + 3), card.angle_deg))
            cv2.fillPoly(explained, [np.round(box).astype(np.int32)], 1)
        # a shadow's edge is sharper than the light field: a card in it may be darker than "paper" for
        # the light there, yet it stays unsaturated -- so the stray paper is also looked for dimmer
        dim = unsaturated & (val >= float(cfg["paper_v_min"]) * float(cfg["dim_paper_light"]) * paper_light)
        loose = (paper > 0) | (dim & (hand == 0))
        loose &= explained == 0
        stray_paper = np.bincount(self.card_zone[loose], minlength=len(self.ids) + 1) / (self.px_per_mm**2)
        per_region, blocked, stray = self._cards_by_region(cards, readings, rejected)
        regions, confidence, hidden = self._read_regions(counts, near, per_region, blocked, stray_paper)
        t3 = time.perf_counter()
        return Observation(
            regions,
            confidence,
            float(cfg["uncertain_below"]),
            True,
            "ok",
            {"classes": (t1 - t0) * 1000, "stands": (t2 - t1) * 1000, "regions": (t3 - t2) * 1000},
            {"cards": len(cards), "stray_cards": stray, "felt_bgr": [round(float(v)) for v in felt_bgr]},
            frozenset(hidden),
        )

    def _cards_by_region(self, cards: list[Any], readings: list[tuple[Any, float]],
                         rejected: list[tuple[float, float]]) -> tuple[dict[int, list[tuple[Any, float]]], set[int], int]:
        """Each region's stands read (label, confidence), the regions with paper that is not one readable card
        (touching cards...), and the number of cards lying on no region."""
        cfg = self.cfg
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
            if card.partial and self.kinds[k] != "shield":
                # a smaller paper blob away from where a character stands is printed art (the dice
                # pictures on the pieces), not a card cut by its own ink or partly hidden
                if np.hypot(*(self.spots_px[k] - card.centre_px)) > float(cfg["partial_card_spot_mm"]) * self.px_per_mm:
                    continue
            if self.kinds[k] == "shield" and conf < float(cfg["rim_stand_sure"]) and self._on_rim(card.centre_px, k):
                # its card overhangs the felt and the pieces round the shield, whose edges run through its digits: the
                # films read a 10 there as 7 at 0.94, frame after frame (docs/vision-notes.md, session 18)
                conf = min(conf, 0.5)
            per_region.setdefault(k, []).append((label, conf))

        return per_region, blocked, stray

    def _read_regions(self, counts: np.ndarray, near: np.ndarray, per_region: dict[int, list[tuple[Any, float]]],
                      blocked: set[int], stray_paper: np.ndarray) -> tuple[dict[str, list[Any]], dict[str, float], set[str]]:
        """Each region's pieces and confidence from its pixel counts (other, felt, piece, paper, hand) and the
        stands found on it; the regions a hand hides."""
        cfg = self.cfg
        regions: dict[str, list[Any]] = {}
        confidence: dict[str, float] = {}
        hidden: set[str] = set()
        sure = float(cfg["share_sure"])
        for k, rid in enumerate(self.ids):
            _other, n_felt, n_piece, n_paper, n_hand = (float(v) for v in counts[k + 1])
            size = max(float(self.inner_px[k + 1]), 1.0)
            if n_hand / size >= float(cfg["hand_hidden_share"]):
                hidden.add(rid)
                confidence[rid] = 0.0
                continue
            total = max(size - n_paper - n_hand, 1.0)  # what cards and a hand leave visible
            known = (n_felt + n_piece) / total
            share = n_piece / max(n_felt + n_piece, 1.0)
            present = share > 0.5
            decisive = float(np.clip((abs(share - 0.5) - (0.5 - sure)) / 0.15 + 1.0, 0.0, 1.0))
            seen = min(1.0, max(0.0, (known - cfg["known_min"]) / (cfg["known_full"] - cfg["known_min"])))
            conf = decisive * seen
            stands = per_region.get(k, [])
            if stands and not present and self.kinds[k] != "shield":
                # a character stands on its piece: a card on a plate read as the felt (box 23:180, tan pieces on olive
                # felt) shows the piece there -- said, but unsure, since the plate itself was not seen
                present, conf = True, min(conf, 0.4)
            pieces: list[Any] = [{"piece": True}] if present else []
            for label, c in stands:
                pieces.append({"stand": label})
                conf = min(conf, c)
            if k in blocked:
                conf = min(conf, 0.3)
            if present and stray_paper[k + 1] >= float(cfg["stray_paper_mm2"]):
                # paper where a character stands, but no card found there (on bare felt it is the board's art:
                # a character stands on its piece)
                conf = min(conf, 0.4)
            if not present and not stands and stray_paper[k + 1] >= float(cfg["card_paper_mm2"]):
                # no piece seen, but paper as large as a card where a character stands, no card found in it: a piece
                # whose plate reads as the felt, and its card missed (box 23:180, Eagle Kingdoms seed 73 r2: a tan
                # piece with a 9 on olive felt read "empty" surely frame after frame)
                conf = min(conf, 0.4)
            if self.kinds[k] != "shield" and len(stands) > 1:
                conf = min(conf, 0.5)  # a piece holds one character: two cards on it are one card cut in two, or art
            if self.kinds[k] == "shield" and len(stands) >= cfg["shield_capacity"]:
                conf = min(conf, 0.5)  # the shield is full: more characters may hide under these
            if not stands and known < cfg["clear_without_card"]:
                # no card seen, but part of the region is hidden: a stand could be under it
                conf = min(conf, known / cfg["clear_without_card"] * 0.85)
            if near[k + 1] > 0 or n_hand > 0:
                conf = min(conf, 0.5)  # fingers may cover a stand or a piece's edge
            if pieces:
                regions[rid] = pieces
            confidence[rid] = round(conf, 4)
        return regions, confidence, hidden

    def teach(self, appearance: Mapping[str, Any] | None) -> None:
        """Use a taught look of the family's box (:meth:`learn_appearance`): the felt's colour."""
        self.appearance = dict(appearance or {})

    def learn_appearance(self, frame: np.ndarray, pose: PoseResult, scene: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The felt's colour, from the template's bare margin in one photo of the family's board (the
        pieces need not be known: the margin never holds one)."""
        light = photometry.measure(frame, pose, self.board) if pose.usable else None
        if light is None:
            raise ValueError(f"no board or no markers to learn from ({pose.message})")
        M = pose.homography @ canvas_to_board(self.px_per_mm, (0.0, 0.0, *self.board.size_mm))
        if pose.camera is not None:
            canvas = rectify(frame, pose, (0.0, 0.0, *self.board.size_mm), self.px_per_mm)
        else:
            canvas = cv2.warpPerspective(frame, M, (self.shape[1], self.shape[0]), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
        f = float(self.cfg["classes_scale"])
        small = cv2.resize(light.balance_image(canvas), None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        saved, self.appearance = self.appearance, {}
        try:
            felt, _light, agree = self._felt(small, f)
        finally:
            self.appearance = saved
        if agree < float(self.cfg["felt_min_share"]):
            raise ValueError("the felt round the eagle is not seen: lay the template out bare round the eagle and try again")
        return {"felt_bgr": [round(float(v), 1) for v in felt]}

    # -- stages ----------------------------------------------------------------------------------------
    def _margin(self, f: float) -> np.ndarray:
        """The margin's sample points in a canvas scaled by ``f`` (x, y)."""
        return np.minimum(np.round((self.margin_px + 0.5) * f - 0.5).astype(int), np.array([round(self.shape[1] * f) - 1, round(self.shape[0] * f) - 1]))

    def _felt(self, small: np.ndarray, f: float) -> tuple[np.ndarray, float, float]:
        """(felt colour, its brightness, share of the margin that agrees) from the template's bare margin."""
        taught = self.appearance.get("felt_bgr")
        m = self._margin(f)
        pts = small[m[:, 1], m[:, 0]].astype(np.float64)
        if not len(pts):
            return np.full(3, 128.0), 128.0, 0.0
        c = photometry.chroma(pts)
        ref = np.asarray(taught, np.float64) if taught is not None else np.median(pts, axis=0)
        # the margin's dominant colour: a hand or a die on it must not move it. A taught felt is where the search
        # starts, not the answer: a lamp's colour moves the felt's chromaticity even after the markers' white balance
        # (bench table, Eagle Kingdoms' navy felt under the films' cool light: 0.048 off the taught colour); held to
        # the taught colour, the margin's "spread" measured that offset, the tolerance grew five times over, and the
        # pieces were read as felt (a character standing on a captured space, surely)
        tolerances = (float(self.cfg["taught_felt_follow"]), float(self.cfg["felt_chroma"])) if taught is not None else \
            (float(self.cfg["felt_chroma"]),) * 2
        for tol in tolerances:
            near = np.linalg.norm(c - photometry.chroma(ref), axis=1) <= tol
            if near.sum() < 3:
                break
            ref = np.median(pts[near], axis=0)
        agree = float(near.mean())
        light = float(np.percentile(pts[near].mean(axis=1), 75)) if near.any() else float(ref.mean())
        self._felt_ref, self._felt_light = ref, light
        # the camera's noise on this felt: the felt's own spread of chromaticity widens the tolerance
        d = np.linalg.norm(c - photometry.chroma(ref), axis=1)
        self._felt_tol = max(float(self.cfg["felt_chroma"]), 3.5 * 1.4826 * float(np.median(d)))
        return ref, light, agree

    def _light(self, small: np.ndarray, felt: np.ndarray, felt_light: float) -> np.ndarray:
        """The light over the canvas (1: as the lit felt, 0.5: a shadow halves it), float32 at full
        canvas size: the felt's brightness on a grid of ``light_cell_mm`` cells, spread into the cells
        without felt (under the pieces) by a normalised Gaussian, never above 1."""
        cfg = self.cfg
        f = small.shape[0] / self.shape[0]
        cell = max(1, round(float(cfg["light_cell_mm"]) * self.px_per_mm * f))
        gh, gw = -(-small.shape[0] // cell), -(-small.shape[1] // cell)
        pad = np.zeros((gh * cell, gw * cell), np.float32)
        w = pad.copy()
        v = _channel_mean(small.astype(np.float32)) / max(felt_light, 1.0)
        m = (felt > 0).astype(np.float32)
        pad[: v.shape[0], : v.shape[1]] = v * m
        w[: m.shape[0], : m.shape[1]] = m
        num = pad.reshape(gh, cell, gw, cell).sum(axis=(1, 3))
        den = w.reshape(gh, cell, gw, cell).sum(axis=(1, 3))
        den = np.where(den >= 0.3 * cell * cell, den, 0.0)  # a cell with too little felt says nothing
        num = np.where(den > 0, num, 0.0)
        sigma = float(cfg["light_spread_mm"]) / float(cfg["light_cell_mm"])
        n = cv2.GaussianBlur(num, (0, 0), sigma)
        d = cv2.GaussianBlur(den, (0, 0), sigma)
        grid = np.where(d > 1e-3, n / np.maximum(d, 1e-6), 1.0)
        grid = np.clip(grid, float(cfg["light_min"]), 1.0).astype(np.float32)
        big = cv2.resize(grid, (gw * cell, gh * cell), interpolation=cv2.INTER_LINEAR)[: small.shape[0], : small.shape[1]]
        return cv2.resize(big, (self.shape[1], self.shape[0]), interpolation=cv2.INTER_LINEAR)

    def _hand(self, smooth: np.ndarray, felt: np.ndarray, paper: np.ndarray,
              arms: Callable[[], list] | None, f: float) -> tuple[np.ndarray, np.ndarray, bool]:
        """(hand mask, band round it, something reaches in unlocated) on the canvas: seeded where the
        bare margin is not felt, grown through pixels of the seeds' colour within ``hand_reach_mm``.
        The table ring round the template only says that something crosses the board's edge where the
        margin saw nothing (an arm over the eagle's wing tips): then the frame is not read."""
        cfg = self.cfg
        shape = smooth.shape[:2]
        empty = np.zeros(shape, np.uint8)
        m = self._margin(f)
        at_margin = smooth[m[:, 1], m[:, 0]]
        pts = at_margin.astype(np.float64)
        # clearly not felt (not merely a noisy felt pixel): half as far again as the felt's tolerance (the test
        # is per pixel: made at the margin's points only)
        clear = _felt_mask(at_margin[None], self._felt_ref, self._felt_light, 1.5 * self._felt_tol, [0.15, 2.5])[0]
        off_felt = (clear == 0) & (paper[m[:, 1], m[:, 0]] == 0)
        # a hand is large: a foreign margin point counts when three more lie within two steps of it
        near = float(cfg["margin_step_mm"]) * 2.1 * self.px_per_mm * f
        if off_felt.sum():
            q = m[off_felt].astype(np.float64)
            close = (((q[:, None, :] - q[None, :, :]) ** 2).sum(-1) <= near * near).sum(axis=1) - 1
            off_felt[np.flatnonzero(off_felt)[close < 3]] = False
        seeds_px = m[off_felt]
        if len(seeds_px) < int(cfg["hand_min_points"]):
            return empty, empty, bool(arms and arms())
        colours = pts[off_felt]
        hand_bgr = np.median(colours, axis=0)
        mad = np.median(np.abs(colours - hand_bgr), axis=0) * 1.4826
        spread = np.maximum(3.0 * mad, float(cfg["hand_spread_min"]))
        off = np.abs(smooth.astype(np.float32) - hand_bgr.astype(np.float32)) <= spread.astype(np.float32)
        like = off[..., 0] & off[..., 1] & off[..., 2]  # .all(axis=2), a channel at a time (faster)
        like &= felt == 0
        like = like.astype(np.uint8)
        for x, y in seeds_px:
            like[max(y - 2, 0) : y + 3, max(x - 2, 0) : x + 3] = 1
        _n, lab = cv2.connectedComponents(like, connectivity=8)
        touched = np.unique(lab[seeds_px[:, 1], seeds_px[:, 0]])
        mask = np.isin(lab, touched[touched > 0])
        seeds = np.full(shape, 255, np.uint8)
        seeds[seeds_px[:, 1], seeds_px[:, 0]] = 0
        s = self.px_per_mm * f
        reach = float(cfg["hand_reach_mm"]) * s
        mask &= cv2.distanceTransform(seeds, cv2.DIST_L2, 3) <= reach
        mask = mask.astype(np.uint8)
        k = max(1, round(3 * s))
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1, 2 * k + 1)))
        nk = max(1, round(float(cfg["hand_near_mm"]) * s))
        near = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * nk + 1, 2 * nk + 1)))
        return mask, near, False

    def _read_cards(self, canvas: np.ndarray, cards: list, source: tuple[np.ndarray, np.ndarray] | None) -> list[tuple[Any, float]]:
        """(label, confidence) per card; a doubtful value read otherwise with the crop moved is unsure. A card that
        lies and looks as when it was read keeps its reading (:class:`CardMemo`)."""
        grey = cv2.cvtColor(canvas, cv2.COLOR_BGR2GRAY)
        known = self._card_memo.known(grey, cards)
        todo = [c for i, c in enumerate(cards) if i not in known]
        sure, unsure_below = float(self.cfg["stand_sure_prob"]), float(self.cfg["uncertain_below"])
        read: list[tuple[Any, float]] = []
        if todo:
            image, M = (canvas, None) if source is None else source
            read = read_cards_checked(image, todo, self.px_per_mm, self.classifier, M, float(self.cfg["stand_agree_shift_px"]),
                                      sure, unsure_below)
        fresh = iter(read)
        readings = [known[i] if i in known else next(fresh) for i in range(len(cards))]
        self._card_memo.keep(grey, cards, readings, sure)
        return readings

    def _on_rim(self, centre_px: tuple[float, float], k: int) -> bool:
        """Whether a card whose middle is at canvas pixel ``centre_px`` stands on region ``k``'s rim band, outside it."""
        xi, yi = self._pixel(*centre_px)
        return int(self.labels[yi, xi]) != k + 1

    def _pixel(self, x: float, y: float) -> tuple[int, int]:
        """The canvas pixel nearest to (x, y), within the canvas."""
        return min(max(round(x), 0), self.shape[1] - 1), min(max(round(y), 0), self.shape[0] - 1)

    def _region_at(self, x: float, y: float) -> int:
        """Index of the region a card whose middle is at canvas pixel (x, y) stands on (a shield's
        rim band counts as the shield), else the nearest within ``stray_card_mm``, else -1."""
        xi, yi = self._pixel(x, y)
        k = int(self.card_labels[yi, xi]) - 1
        if k < 0:
            d = np.hypot(*(self.centres_px - (x, y)).T) / self.px_per_mm
            k = int(d.argmin()) if d.min() <= self.cfg["stray_card_mm"] else -1
        return k


def _felt_mask(smooth: np.ndarray, felt_bgr: np.ndarray, felt_light: float, max_chroma: float, light_band) -> np.ndarray:
    """uint8 mask of felt-coloured pixels: chromaticity near the felt's, brightness within the band.
    A darker pixel's chromaticity is noisier (the same camera noise on smaller values), so its
    tolerance grows as the square root of how much darker it is than the felt."""
    # (photometry.chroma and a mean over the channels, a channel at a time: numpy's sums over an axis of
    # three cost several times the arithmetic)
    x = smooth.astype(np.float32)
    x1 = x + 1.0
    total = (x1[..., 0] + x1[..., 1]) + x1[..., 2]
    ref = photometry.chroma(felt_bgr)
    d0, d1, d2 = (x1[..., k] / total - ref[k] for k in range(3))
    d = np.sqrt((d0 * d0 + d1 * d1) + d2 * d2)
    light = _channel_mean(x) / max(felt_light, 1.0)
    lo, hi = (float(v) for v in light_band)
    tol = max_chroma * np.sqrt(np.clip(1.0 / np.maximum(light, 1e-3), 1.0, 4.0))
    return ((d <= tol) & (light >= lo) & (light <= hi)).astype(np.uint8) * 255


def _channel_mean(x: np.ndarray) -> np.ndarray:
    """``x.mean(axis=2)`` of a float32 (H, W, 3) image, the same to the bit, faster."""
    return ((x[..., 0] + x[..., 1]) + x[..., 2]) / np.float32(3)


def _card_cfg(cfg: Mapping[str, Any]) -> dict[str, Any]:
    from companion.vision.readers.stands import DEFAULT_CARD_CONFIG

    out = dict(DEFAULT_CARD_CONFIG)
    out["paper_s_max"] = cfg["paper_s_max"]
    out["paper_v_min"] = cfg["paper_v_min"]
    out["close"] = cfg.get("close_cards", True)
    return out
