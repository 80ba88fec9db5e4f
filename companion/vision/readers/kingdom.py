"""Read a row (or rows) of character stands on the table: no board, no markers.

The scale is unknown, so it is measured from the stands themselves: every bright, unsaturated blob
shaped like a card's paper (aspect about 0.84, filling its rectangle) votes for a px/mm; the median
vote is the scale. Then the cards are found and read exactly as on the board
(:mod:`companion.vision.readers.stands`). Stands are read upright: the camera faces the row.

There are no markers here, so the light is taken from the picture itself: the cards' paper is its
brightest thing, and the white balance maps the brightest unsaturated pixels to white (a warm lamp);
the table is its most common thing, so its brightness over the picture is the light's (a shadow),
and the paper is judged against the light where it lies. Something over the stands that is neither
table nor paper and larger than a few cards (a hand, an arm) makes the scan refuse: the stands under
it would be missed and the score silently short.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision import photometry
from companion.vision.readers import DEFAULT_UNCERTAIN_BELOW
from companion.vision.readers.stands import (
    DEFAULT_CARD_CONFIG,
    PAPER_MM,
    StandClassifier,
    find_cards,
    paper_mask,
    read_cards_checked,
)


@dataclass(frozen=True)
class StandReading:
    label: int | str  # 1..10 or "jester"
    confidence: float
    centre_px: tuple[float, float]
    uncertain: bool


@dataclass(frozen=True)
class KingdomReading:
    stands: tuple[StandReading, ...]
    px_per_mm: float | None
    status: str = "ok"
    timings_ms: dict | None = None

    @property
    def usable(self) -> bool:
        return self.status == "ok"

    @property
    def uncertain(self) -> tuple[StandReading, ...]:
        return tuple(s for s in self.stands if s.uncertain)


def estimate_scale(image_bgr: np.ndarray, mask: np.ndarray | None = None) -> float | None:
    """px/mm from card-shaped paper blobs (median), or None when there are none."""
    m = paper_mask(image_bgr) if mask is None else mask
    n, labels, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
    votes = []
    for i in range(1, n):
        area = stats[i, cv2.CC_STAT_AREA]
        if area < 60:
            continue
        x, y, w, h = stats[i, :4]
        ys, xs = np.nonzero(labels[y : y + h, x : x + w] == i)
        (_, _), (rw, rh), _ = cv2.minAreaRect(np.c_[xs, ys].astype(np.float32))
        lo, hi = sorted((rw + 1, rh + 1))
        if hi <= 0 or not 0.7 <= lo / hi <= 0.97 or area / (lo * hi) < 0.55:
            continue
        votes.append(float(np.sqrt(lo * hi / (PAPER_MM[0] * PAPER_MM[1]))))
    return float(np.median(votes)) if votes else None


def reading_order(centres: list[tuple[float, float]], px_per_mm: float, row_gap_mm: float = 12.0, max_turn_deg: float = 30.0) -> list[int]:
    """Rows top to bottom, each left to right. A row photographed at a slant stays one row: the turn
    (within +-``max_turn_deg``) is the one that lines the stands up in the straightest rows."""
    if not centres:
        return []
    pts0 = np.asarray(centres, np.float64)
    best: tuple[float, list[list[int]], np.ndarray] | None = None
    for deg in np.arange(-max_turn_deg, max_turn_deg + 0.5, 1.0):
        a = np.deg2rad(deg)
        pts = pts0 @ np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        by_y = np.argsort(pts[:, 1], kind="stable")
        rows: list[list[int]] = [[int(by_y[0])]]
        for i in by_y[1:]:
            if pts[i, 1] - pts[rows[-1][-1], 1] > row_gap_mm * px_per_mm:
                rows.append([])
            rows[-1].append(int(i))
        spread = sum(float(np.ptp(pts[r, 1])) for r in rows) / px_per_mm
        score = spread + 5.0 * len(rows) + abs(deg) * 1e-3  # straight rows; merging two rows costs their pitch
        if best is None or score < best[0]:
            best = (score, rows, pts)
    _, rows, pts = best  # type: ignore[misc]
    return [i for row in rows for i in sorted(row, key=lambda j: pts[j, 0])]


LIGHT = {
    "white_percentile": 99.5,  # the paper's white: this percentile of the brightest unsaturated pixels
    "grid": (32, 18),  # the table's light is measured in this many cells across and down
    "table_percentile": 30,  # a cell's table brightness (cards and their gaps both in it)
    "light_min": 0.3,
    "foreign_chroma": 0.03,  # a pixel this far from the table's chromaticity is not table (at least;
    "table_spread": 4.0,  # a table of many hues: this many times its own spread, its median)
    "foreign_cards": 1.5,  # a blob of such pixels larger than this many cards' paper: a hand over the stands
    "paper_over_table": 1.3,
    "dim_paper": 0.5,  # paper no card explains is also looked for this much darker than the light says
    "card_light_spread": 1.25,  # a card lit this unevenly (a shadow's edge across it) is read unsure  # paper is at least this much brighter than the table where it lies
}


def white_balance(image_bgr: np.ndarray) -> np.ndarray:
    """The picture with its brightest unsaturated pixels (the cards' paper) made white: per-channel
    gains from a high percentile of the pixels that are bright in every channel."""
    small = cv2.resize(image_bgr, None, fx=0.125, fy=0.125, interpolation=cv2.INTER_AREA).reshape(-1, 3).astype(np.float32)
    low = small.min(axis=1)
    bright = small[low >= np.percentile(low, 97)]
    if len(bright) < 20:
        return image_bgr
    white = np.percentile(bright, LIGHT["white_percentile"], axis=0)
    if white.min() < 40:
        return image_bgr  # nothing bright enough to be paper: leave the picture as it is
    gain = 235.0 / np.maximum(white, 1.0)
    lut = np.clip(np.arange(256, dtype=np.float32)[:, None] * gain[None, :], 0, 255).astype(np.uint8)[None]
    return cv2.LUT(image_bgr, lut)


def table_light(image_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(light (float32 per pixel, 1 = the table as lit in most of the picture), the table's colour):
    a low percentile of each grid cell's brightness (the table between the cards), over the median cell."""
    h, w = image_bgr.shape[:2]
    gx, gy = LIGHT["grid"]
    cw, ch = 8, 8  # each cell resampled to 8 x 8 px
    small = cv2.resize(image_bgr, (gx * cw, gy * ch), interpolation=cv2.INTER_AREA)
    v = small.max(axis=2).astype(np.float32).reshape(gy, ch, gx, cw).transpose(0, 2, 1, 3).reshape(gy, gx, -1)
    cells = np.percentile(v, LIGHT["table_percentile"], axis=2).astype(np.float32)
    ref = float(np.median(cells))
    light = np.clip(cells / max(ref, 1.0), LIGHT["light_min"], 1.2)
    light = cv2.GaussianBlur(light, (0, 0), 1.0)
    table = np.median(small.reshape(-1, 3), axis=0).astype(np.float32)
    return cv2.resize(light, (w, h), interpolation=cv2.INTER_LINEAR), table


def foreign_blob_mm2(image_bgr: np.ndarray, paper: np.ndarray, table_bgr: np.ndarray, px_per_mm: float) -> float:
    """Area (mm^2) of the largest blob that is neither table (by chromaticity) nor paper, nor dark
    (bases, shadows, ink): something lying over the stands. Measured at a quarter of the resolution."""
    f = 0.25
    small = cv2.resize(image_bgr, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    paper_small = cv2.resize(paper, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_NEAREST)
    c = photometry.chroma(small.astype(np.float32))
    d = np.linalg.norm(c - photometry.chroma(table_bgr)[None, None, :], axis=2)
    bright = small.max(axis=2) >= 0.6 * float(table_bgr.max())
    rest = d[bright & (paper_small == 0)]
    # (skin can be nearly the hue of a wooden table: as close as the table's own spread allows)
    limit = max(LIGHT["foreign_chroma"], LIGHT["table_spread"] * float(np.median(rest))) if rest.size else LIGHT["foreign_chroma"]
    mask = ((d > limit) & bright & (paper_small == 0)).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        return 0.0
    return float(stats[1:, cv2.CC_STAT_AREA].max()) / (px_per_mm * f) ** 2


def loose_paper(mask: np.ndarray, cards: list, px_per_mm: float, min_mm2: float = 40.0) -> list[tuple[float, float]]:
    """Centres of paper blobs of at least ``min_mm2`` that no card found covers: part of a card that
    was not read (cut by a shadow's edge, glare) -- the kingdom's score would silently miss it."""
    rest = mask.copy()
    for c in cards:
        box = cv2.boxPoints((c.centre_px, ((c.size_mm[0] + 3) * px_per_mm, (c.size_mm[1] + 3) * px_per_mm), c.angle_deg))
        cv2.fillPoly(rest, [np.round(box).astype(np.int32)], 0)
    n, _, stats, centroids = cv2.connectedComponentsWithStats(rest, connectivity=8)
    big = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= min_mm2 * px_per_mm * px_per_mm]
    return [(float(centroids[i][0]), float(centroids[i][1])) for i in big]


def dim_paper(image_bgr: np.ndarray, hsv: np.ndarray, v_min: np.ndarray, table_bgr: np.ndarray) -> np.ndarray:
    """uint8 mask of paper darker than the light there says paper is (a shadow's edge is sharper than
    the light measured on the grid), yet unsaturated and not of the table's colour: part of a card
    that the paper mask misses."""
    cfg = DEFAULT_CARD_CONFIG
    dim = (hsv[..., 1] <= cfg["paper_s_max"]) & (hsv[..., 2] >= LIGHT["dim_paper"] * v_min)
    # the table's hue 320 px across (a quarter of a 1280 px picture; a card's paper is 40 mm^2 and more)
    f = min(1.0, 320.0 / image_bgr.shape[1])
    small = cv2.resize(image_bgr, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    d = np.linalg.norm(photometry.chroma(small.astype(np.float32)) - photometry.chroma(table_bgr)[None, None, :], axis=2)
    other = cv2.resize((d > LIGHT["foreign_chroma"]).astype(np.uint8), (dim.shape[1], dim.shape[0]), interpolation=cv2.INTER_NEAREST)
    return (dim & (other > 0)).astype(np.uint8)


class KingdomReader:
    def __init__(self, classifier: StandClassifier | None = None, uncertain_below: float = DEFAULT_UNCERTAIN_BELOW) -> None:
        self.classifier = classifier if classifier is not None else StandClassifier()
        self.uncertain_below = uncertain_below

    def read(self, image_bgr: np.ndarray) -> KingdomReading:
        if image_bgr is None or not isinstance(image_bgr, np.ndarray) or image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
            return KingdomReading((), None, "not a colour image")
        t0 = time.perf_counter()
        gray_mean = float(cv2.resize(image_bgr, None, fx=0.125, fy=0.125, interpolation=cv2.INTER_AREA).mean())
        if gray_mean < 35:
            return KingdomReading((), None, f"too dark: mean brightness {gray_mean:.0f} of 255; add light")
        small = cv2.resize(image_bgr, None, fx=0.125, fy=0.125, interpolation=cv2.INTER_AREA)
        if gray_mean > 230 or (small.min(axis=2) >= 250).mean() > 0.6:
            return KingdomReading((), None, "overexposed: most of the picture is white; reduce light or glare")
        image_bgr = white_balance(image_bgr)
        light, table = table_light(image_bgr)
        hsv = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2HSV)
        cfg = dict(DEFAULT_CARD_CONFIG)
        v_min = np.maximum(float(cfg["paper_v_min"]), LIGHT["paper_over_table"] * float(table.max())) * light
        mask = ((hsv[..., 1] <= cfg["paper_s_max"]) & (hsv[..., 2] >= v_min)).astype(np.uint8)
        if mask.mean() > 0.6:
            return KingdomReading((), None, "overexposed: most of the picture is white; reduce light or glare")
        s = estimate_scale(image_bgr, mask)
        if s is None:
            return KingdomReading((), None, "no character stands found")
        blob = foreign_blob_mm2(image_bgr, mask, table, s)
        if blob > LIGHT["foreign_cards"] * PAPER_MM[0] * PAPER_MM[1]:
            return KingdomReading((), s, "something lies over the stands (a hand?): take it away and scan again")
        rejected: list[tuple[float, float]] = []
        cards = find_cards(image_bgr, s, cfg, mask, rejected)
        loose = loose_paper(mask | dim_paper(image_bgr, hsv, v_min, table), cards, s)
        if rejected or loose or not cards:
            where = [*rejected, *loose][:3]
            at = "; ".join(f"({x:.0f}, {y:.0f})" for x, y in where)
            return KingdomReading((), s, f"some stands cannot be read (paper that is no whole card{' at ' + at if at else ''}: "
                                         "cards touching, or half in a shadow): lay them apart in even light and scan again")
        readings = read_cards_checked(image_bgr, cards, s, self.classifier, unsure_below=self.uncertain_below)
        stands = []
        for card, (label, conf) in zip(cards, readings, strict=True):
            box = cv2.boxPoints((card.centre_px, (card.size_mm[0] * s, card.size_mm[1] * s), card.angle_deg))
            lx = np.clip(np.round(box[:, 0]).astype(int), 0, light.shape[1] - 1)
            ly = np.clip(np.round(box[:, 1]).astype(int), 0, light.shape[0] - 1)
            lit = light[ly, lx]
            if lit.max() > LIGHT["card_light_spread"] * max(float(lit.min()), 1e-3):
                conf = min(conf, 0.5)  # a shadow's edge across the card: its print reads otherwise
            stands.append(StandReading(label, conf, card.centre_px, conf < self.uncertain_below))
        order = reading_order([c.centre_px for c in cards], s)
        stands = [stands[i] for i in order]
        return KingdomReading(tuple(stands), s, "ok", {"total": (time.perf_counter() - t0) * 1000})
