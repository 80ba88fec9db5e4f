"""Read a row (or rows) of character stands on the table: no board, no markers.

The scale is unknown, so it is measured from the stands themselves: every bright, unsaturated blob
shaped like a card's paper (aspect about 0.84, filling its rectangle) votes for a px/mm; the median
vote is the scale. Then the cards are found and read exactly as on the board
(:mod:`companion.vision.readers.stands`). Stands are read upright: the camera faces the row.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.readers import DEFAULT_UNCERTAIN_BELOW
from companion.vision.readers.stands import (
    DEFAULT_CARD_CONFIG,
    PAPER_MM,
    StandClassifier,
    find_cards,
    paper_mask,
    read_cards,
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
        mask = paper_mask(image_bgr)
        if mask.mean() > 0.6:
            return KingdomReading((), None, "overexposed: most of the picture is white; reduce light or glare")
        s = estimate_scale(image_bgr, mask)
        if s is None:
            return KingdomReading((), None, "no character stands found")
        cards = find_cards(image_bgr, s, DEFAULT_CARD_CONFIG, mask)
        stands = [
            StandReading(label, conf, card.centre_px, conf < self.uncertain_below)
            for card, (label, conf) in zip(cards, read_cards(image_bgr, cards, s, self.classifier), strict=True)
        ]
        order = reading_order([c.centre_px for c in cards], s)
        stands = [stands[i] for i in order]
        return KingdomReading(tuple(stands), s, "ok", {"total": (time.perf_counter() - t0) * 1000})
