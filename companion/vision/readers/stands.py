"""Character stands: find their cream cards in a top-down image and read the printed value.

Stage 1 (:func:`find_cards`, classical): the card's paper is bright and unsaturated, unlike the
felt, the puzzle pieces, the table and a hand; each connected blob of paper of a card's size is a
card; its minimum-area rectangle gives its centre and turn (stands turn less than 45 degrees, so the
turn is taken modulo 90 towards upright).

Stage 2 (:class:`StandClassifier`): the printed part of each card (its upper 13 mm) is cut out upright at
``CANON_PX_PER_MM``, straight from the camera frame, and a small
ONNX CNN (``models/stand_classifier.onnx``, trained by :mod:`companion.workshop.boards.train_stands` on
synthetic stands) gives probabilities for 1..10 and Jester. The model is checked against its
SHA-256 in ``models/stands_manifest.json`` (same format as the dice manifest).

Works on any top-down image with a known scale: a rectified board canvas or a table photo whose
scale is estimated from the cards themselves (the kingdom scan).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.vision.errors import ModelError
from companion.vision.models import models_dir, sha256
from companion.vision.readers import DEFAULT_UNCERTAIN_BELOW

LABELS: tuple[int | str, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, "jester")
PAPER_MM = (15.6, 18.6)  # the cream part of a card (the card minus its 1.2 mm frame)
CANON_PX_PER_MM = 2.0
CARD_MM_H = 21.0
CROP_TOP_MM, CROP_BOTTOM_MM = 0.5, 13.5  # the printed value's part of the card (its whole width)
PATCH_W, PATCH_H = 36, 26  # 18 x 13 mm at CANON_PX_PER_MM
MODEL_NAME = "stand_classifier"
MANIFEST = "stands_manifest.json"
_CLOSE_KERNEL = cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3))

DEFAULT_CARD_CONFIG = {
    "paper_s_max": 80,  # HSV saturation of the paper (0-255)
    "paper_v_min": 100,  # and brightness
    "area_min_mm2": 110.0,
    "area_max_mm2": 420.0,
    "side_tolerance": 0.35,  # min-area rectangle sides within this fraction of the paper's
    "small_area_mm2": 200.0,  # a smaller blob is a partly hidden card: its reading is uncertain
    # paper filling less of its rectangle than this is line art (a space's printed outline), not cards: a card,
    # even two touching, fills 0.6-0.95 of it; an outline ring or arc 0.1-0.2
    "line_art_fill_max": 0.35,
}


@dataclass(frozen=True)
class Card:
    centre_px: tuple[float, float]
    angle_deg: float  # turn of the card from upright, -45..45
    area_mm2: float
    size_mm: tuple[float, float]

    @property
    def partial(self) -> bool:
        """Smaller than a card's paper (by a fifth) across or along: part of it is hidden or cut off."""
        return self.size_mm[0] < 0.8 * PAPER_MM[0] or self.size_mm[1] < 0.8 * PAPER_MM[1]


def paper_mask(image_bgr: np.ndarray, cfg: dict | None = None, hsv: np.ndarray | None = None) -> np.ndarray:
    cfg = cfg or DEFAULT_CARD_CONFIG
    hsv = hsv if hsv is not None else cv2.cvtColor(image_bgr, cv2.COLOR_BGR2HSV)
    return ((hsv[..., 1] <= cfg["paper_s_max"]) & (hsv[..., 2] >= cfg["paper_v_min"])).astype(np.uint8)


def find_cards(
    image_bgr: np.ndarray,
    px_per_mm: float,
    cfg: dict | None = None,
    mask: np.ndarray | None = None,
    rejected: list[tuple[float, float]] | None = None,
) -> list[Card]:
    """Cards in a top-down image of scale ``px_per_mm``. Paper blobs too big or misshapen to be one
    card (cards touching, overlapping) are appended to ``rejected`` (their centres), so a reader can
    mark where it saw paper it could not read."""
    cfg = cfg or DEFAULT_CARD_CONFIG
    m = paper_mask(image_bgr, cfg) if mask is None else mask
    # close the thin ink strokes (a "1" over the figure can cut the paper in two); 3 px never bridges
    # two cards (their papers are at least two frames, 2.4 mm, apart)
    if cfg.get("close", True):
        m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, _CLOSE_KERNEL)
    contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    a2 = px_per_mm * px_per_mm
    lo, hi = cfg["area_min_mm2"] * a2, cfg["area_max_mm2"] * a2
    cards = []
    for contour in contours:
        if len(contour) < 3:
            continue
        area_px = cv2.contourArea(contour) + 0.5 * cv2.arcLength(contour, True)  # outline through pixel centres
        if not lo <= area_px <= hi:
            if area_px > hi and rejected is not None and not _line_art(m, contour, cfg):
                rejected.append(_centre(contour))  # too big for one card: cards touching
            continue
        area = area_px / a2
        (cx, cy), (rw, rh), ang = cv2.minAreaRect(contour)
        # bring the turn into -45..45 and the sides into (width, height)
        while ang > 45:
            ang -= 90
            rw, rh = rh, rw
        while ang <= -45:
            ang += 90
            rw, rh = rh, rw
        rw, rh = (rw + 1) / px_per_mm, (rh + 1) / px_per_mm  # the contour runs through pixel centres
        tol = cfg["side_tolerance"]
        if not (abs(rw - PAPER_MM[0]) <= tol * PAPER_MM[0] + 1 and abs(rh - PAPER_MM[1]) <= tol * PAPER_MM[1] + 1):
            if area >= cfg["small_area_mm2"] or max(rw, rh) > max(PAPER_MM) * (1 + tol):
                if rejected is not None and not _line_art(m, contour, cfg):
                    rejected.append((float(cx), float(cy)))
                continue
        cards.append(Card((float(cx), float(cy)), float(ang), float(area), (float(rw), float(rh))))
    return cards


def _line_art(mask: np.ndarray, contour: np.ndarray, cfg: dict) -> bool:
    """Whether a paper blob is thin lines printed on the board (another box outlines its spaces in a light
    ink) rather than cards: its pixels fill little of its smallest rectangle. Not a card, so not paper that
    could not be read either; paper of a card merged with it still counts as stray paper where a character
    stands (the reader's stray-paper check)."""
    limit = cfg.get("line_art_fill_max")
    if not limit:
        return False
    x, y, w, h = cv2.boundingRect(contour)
    inside = np.zeros((h, w), np.uint8)
    cv2.drawContours(inside, [contour], -1, 1, -1, offset=(-x, -y))
    pixels = int(np.count_nonzero(mask[y:y + h, x:x + w] & inside))
    (_c, (rw, rh), _a) = cv2.minAreaRect(contour)
    return pixels < float(limit) * max((rw + 1) * (rh + 1), 1.0)


def _centre(contour: np.ndarray) -> tuple[float, float]:
    m = cv2.moments(contour)
    if abs(m["m00"]) < 1e-9:
        x, y = contour.reshape(-1, 2).mean(axis=0)
        return float(x), float(y)
    return float(m["m10"] / m["m00"]), float(m["m01"] / m["m00"])


def card_patches(image_bgr: np.ndarray, cards: Sequence[Card], px_per_mm: float, canvas_to_image: np.ndarray | None = None) -> np.ndarray:
    """(N, PATCH_H, PATCH_W) float32 upright grey crops of each card's printed part, normalised.

    ``cards`` were found in a top-down canvas of scale ``px_per_mm``; ``canvas_to_image`` (3x3) maps
    that canvas's pixels to ``image_bgr``'s (e.g. the pose homography after the rectification), so
    the crop is taken from the camera frame itself with a single interpolation. ``None``: the image
    is the canvas.
    """
    n = len(cards)
    k = px_per_mm / CANON_PX_PER_MM
    G = np.eye(3) if canvas_to_image is None else np.asarray(canvas_to_image, np.float64)
    # patch px -> card mm (card centre at the origin): x from -9 mm, y from the top of the crop
    ox = (PATCH_W - 1) / 2
    oy = (CARD_MM_H / 2 - CROP_TOP_MM) * CANON_PX_PER_MM - 0.5
    # every card's patch px -> canvas px at once (a per-card loop of small numpy calls cost more than the warps)
    a = np.deg2rad(np.array([c.angle_deg for c in cards], np.float64))
    cos, sin = np.cos(a) * k, np.sin(a) * k
    M = np.zeros((n, 3, 3))
    M[:, 0, 0], M[:, 0, 1], M[:, 1, 0], M[:, 1, 1], M[:, 2, 2] = cos, -sin, sin, cos, 1.0
    M[:, :2, 2] = np.array([c.centre_px for c in cards], np.float64).reshape(n, 2) - np.c_[cos * ox - sin * oy, sin * ox + cos * oy]
    P = G @ M  # patch px -> image px
    grey = image_bgr.ndim == 2
    crops = np.empty((n, PATCH_H, PATCH_W) if grey else (n, PATCH_H, PATCH_W, 3), image_bgr.dtype)
    for i in range(n):
        cv2.warpPerspective(image_bgr, P[i], (PATCH_W, PATCH_H), dst=crops[i], flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                            borderMode=cv2.BORDER_REPLICATE)
    if not grey and n:
        crops = cv2.cvtColor(crops.reshape(n * PATCH_H, PATCH_W, 3), cv2.COLOR_BGR2GRAY).reshape(n, PATCH_H, PATCH_W)
    return normalise(crops)


def normalise(patch: np.ndarray) -> np.ndarray:
    """A grey crop (or a stack of them, (N, H, W)) as the classifier takes it: each crop less its mean, over its
    spread."""
    p = patch.astype(np.float32)
    if p.ndim == 2:
        return (p - p.mean()) / (p.std() + 4.0)
    flat = p.reshape(len(p), -1)
    return ((flat - flat.mean(axis=1, keepdims=True)) / (flat.std(axis=1, keepdims=True) + 4.0)).reshape(p.shape)


SHORT_FRACTION = 0.92  # a paper blob shorter than this part of a card's paper is cut across
SHIFTED_MIN_PROB = 0.98  # a cut card read this surely at a shifted centre is read (a little less sure)


def read_cards(
    image_bgr: np.ndarray,
    cards: Sequence[Card],
    px_per_mm: float,
    classifier: StandClassifier,
    canvas_to_image: np.ndarray | None = None,
) -> list[tuple[int | str, float]]:
    """(label, confidence) per card. A card whose paper blob is *short* (ink right across it -- a
    Jester's cap or a wide "10" at low resolution -- cut the paper and only one part was found) is
    also read with its centre moved up or down by the missing part; the surest reading wins. A partial
    card's confidence is halved unless a shifted reading is sure."""
    hyps: list[Card] = []
    owner: list[int] = []
    shifted: list[bool] = []
    for i, c in enumerate(cards):
        hyps.append(c)
        owner.append(i)
        shifted.append(False)
        if c.size_mm[1] < SHORT_FRACTION * PAPER_MM[1]:
            a = np.deg2rad(c.angle_deg)
            up = np.array([np.sin(a), -np.cos(a)])  # the card's "up" in image px (y down)
            for full in (PAPER_MM[1], CARD_MM_H):
                d = (full - c.size_mm[1]) / 2 * px_per_mm
                for sign in (1.0, -1.0):
                    centre = np.asarray(c.centre_px) + sign * d * up
                    hyps.append(Card((float(centre[0]), float(centre[1])), c.angle_deg, c.area_mm2, c.size_mm))
                    owner.append(i)
                    shifted.append(True)
    probs = classifier.probabilities(card_patches(image_bgr, hyps, px_per_mm, canvas_to_image))
    best: dict[int, tuple[float, int, bool]] = {}
    for k, (i, p) in enumerate(zip(owner, probs, strict=True)):
        j = int(p.argmax())
        cand = (float(p[j]), j, shifted[k])
        if i not in best or cand[0] > best[i][0]:
            best[i] = cand
    out = []
    for i, c in enumerate(cards):
        prob, j, moved = best[i]
        if moved:
            conf = prob * 0.95 if prob >= SHIFTED_MIN_PROB else prob * 0.5
        else:
            conf = prob * (0.5 if c.partial else 1.0)
        out.append((LABELS[j], conf))
    return out


def read_cards_checked(image_bgr: np.ndarray, cards: Sequence[Card], px_per_mm: float, classifier: StandClassifier,
                       canvas_to_image: np.ndarray | None = None, shift_px: float = 0.5, sure: float = 0.995,
                       unsure_below: float = DEFAULT_UNCERTAIN_BELOW) -> list[tuple[int | str, float]]:
    """:func:`read_cards`, and every card read less surely than ``sure`` (but not already unsure, below
    ``unsure_below``) read again with its crop moved by ``shift_px`` (card-image px) diagonally, four
    ways: a value the classifier does not repeat on every one -- a typeface it never saw, a card half in
    shadow -- is unsure (at most 0.5). (One way only let a foreign typeface's 5 read as 6 at 0.96 pass:
    moved the other ways it read 5 and 4.)"""
    first = read_cards(image_bgr, cards, px_per_mm, classifier, canvas_to_image)
    doubtful = [i for i, (_label, conf) in enumerate(first) if unsure_below <= conf < sure]
    if shift_px <= 0 or not doubtful:
        return first
    ways = ((shift_px, -shift_px), (-shift_px, shift_px), (shift_px, shift_px), (-shift_px, -shift_px))
    moved = [Card((cards[i].centre_px[0] + dx, cards[i].centre_px[1] + dy), cards[i].angle_deg, cards[i].area_mm2, cards[i].size_mm)
             for dx, dy in ways for i in doubtful]
    again = read_cards(image_bgr, moved, px_per_mm, classifier, canvas_to_image)  # one batch
    out = list(first)
    for j, i in enumerate(doubtful):
        a, ca = first[i]
        repeated = all(again[w * len(doubtful) + j][0] == a for w in range(len(ways)))
        out[i] = (a, ca if repeated else min(ca, 0.5))
    return out


class CardMemo:
    """The readings of cards read in earlier frames, kept for a card found again where it lay (within
    ``MEMO_MOVE_PX`` and ``MEMO_TURN_DEG``) whose part of the grey picture looks as it did when it was read: a mean
    difference within ``MEMO_MEAN_DIFF`` grey levels and at most ``MEMO_STRONG_MAX`` pixels further than
    ``MEMO_STRONG_DIFF``. A still board's cards are not cut out and classified again in every frame (on a second box
    whose felt prints dice pictures that read as half cards, reading them was a third of the reader's time). Measured
    on a filmed game (Eagle Kingdoms seed 0 r2, 300 frames, cards found again within 1 px): a still card differs by
    1.6 grey levels (median; 3.3 at the 99th percentile, no pixel past 40); two cards of different values by 10.9 at
    the least, with 10 or more pixels past 40. Doubtful readings (read again shifted by :func:`read_cards_checked`,
    and repeated there) are never kept: that they may change from frame to frame is what makes them unsure."""

    MEMO_MOVE_PX = 1.0
    MEMO_TURN_DEG = 1.5
    MEMO_MEAN_DIFF = 4.0
    MEMO_STRONG_DIFF = 40
    MEMO_STRONG_MAX = 2
    MEMO_UNSURE_MAX = 0.5

    def __init__(self, px_per_mm: float) -> None:
        self.half = max(2, round(0.6 * max(PAPER_MM) * px_per_mm))  # the look: the card, a margin round it
        self._centres = np.zeros((0, 2))
        self._kept: list[tuple[Card, np.ndarray, tuple[int | str, float]]] = []  # card, grey picture read, reading
        self._read_in: dict[int, np.ndarray] = {}  # the last ``known``'s cards kept: the picture each was read in

    def known(self, grey: np.ndarray, cards: Sequence[Card]) -> dict[int, tuple[int | str, float]]:
        """The readings that stand for ``cards`` (index -> reading) in this grey picture."""
        self._read_in = {}
        if not self._kept or not cards:
            return {}
        now = np.array([c.centre_px for c in cards], np.float64)
        dist = np.hypot(*(now[:, None, :] - self._centres[None, :, :]).transpose(2, 0, 1))
        nearest = dist.argmin(axis=1)
        out = {}
        for i in np.flatnonzero(dist[np.arange(len(cards)), nearest] <= self.MEMO_MOVE_PX):
            card, (kept, was, reading) = cards[i], self._kept[nearest[i]]
            if abs(card.angle_deg - kept.angle_deg) <= self.MEMO_TURN_DEG and self._looks_alike(grey, was, card):
                out[int(i)], self._read_in[int(i)] = reading, was
        return out

    def keep(self, grey: np.ndarray, cards: Sequence[Card], readings: Sequence[tuple[int | str, float]], sure: float) -> None:
        """Remember the cards of the frame just read (``grey``: its picture; those ``known`` kept stay compared with
        the picture they were read in, so a slow change adds up) read at least ``sure``, or at most
        ``MEMO_UNSURE_MAX`` (half a card, a value not repeated with the crop moved: unsure whatever the next frame reads)."""
        self._kept = [(c, self._read_in.get(i, grey), r) for i, (c, r) in enumerate(zip(cards, readings, strict=True))
                      if r[1] >= sure or r[1] <= self.MEMO_UNSURE_MAX]
        self._centres = np.array([c.centre_px for c, _g, _r in self._kept], np.float64).reshape(-1, 2)

    def _looks_alike(self, grey: np.ndarray, was: np.ndarray, card: Card) -> bool:
        x, y, h = round(card.centre_px[0]), round(card.centre_px[1]), self.half
        a = grey[max(0, y - h):y + h, max(0, x - h):x + h].astype(np.int16)
        b = was[max(0, y - h):y + h, max(0, x - h):x + h].astype(np.int16)
        if a.size == 0 or a.shape != b.shape:
            return False
        d = np.abs(a - b)
        return float(d.mean()) <= self.MEMO_MEAN_DIFF and int(np.count_nonzero(d > self.MEMO_STRONG_DIFF)) <= self.MEMO_STRONG_MAX


class StandClassifier:
    """The stand classifier (ONNX), loaded once; ``probabilities`` of the LABELS per patch."""

    def __init__(self, folder: Path | None = None, threads: int = 1) -> None:
        import onnxruntime as ort

        path, entry = stand_model_entry(folder)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = max(1, int(threads))
        opts.inter_op_num_threads = 1
        try:
            self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own types
            raise ModelError(f"cannot load model {path}: {exc}") from exc
        self.entry = entry
        self.input = self.session.get_inputs()[0].name

    def probabilities(self, patches: np.ndarray) -> np.ndarray:
        if len(patches) == 0:
            return np.zeros((0, len(LABELS)), np.float32)
        x = np.ascontiguousarray(patches[:, None, :, :], np.float32)
        return self.session.run(None, {self.input: x})[0]


def stand_model_entry(folder: Path | None = None) -> tuple[Path, dict]:
    """(checked path, manifest entry) of the stand classifier; ModelError when missing or damaged."""
    folder = Path(folder or models_dir())
    mpath = folder / MANIFEST
    try:
        entries = json.loads(mpath.read_text())
    except FileNotFoundError:
        raise ModelError(f"{mpath} is missing; run `python -m companion.workshop.boards.train_stands`") from None
    except (OSError, ValueError) as exc:
        raise ModelError(f"{mpath} is damaged: {exc}") from exc
    entry = entries.get(MODEL_NAME) if isinstance(entries, dict) else None
    if not entry:
        raise ModelError(f"{mpath} has no {MODEL_NAME!r} entry")
    path = folder / entry["file"]
    if not path.is_file():
        raise ModelError(f"model file {path} is missing; run `python -m companion.workshop.boards.train_stands`")
    if sha256(path) != entry["sha256"]:
        raise ModelError(f"model file {path} does not match its sha256 in {mpath}; restore it from git or retrain")
    return path, entry
