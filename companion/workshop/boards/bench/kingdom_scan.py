"""The kingdom scan's benchmark: players' holdings along seeded games, laid out, rendered, read, scored.

A "space" is one stand; "board exact" is the whole kingdom right (hence its score).
"""

from __future__ import annotations

import random
import time
from typing import Any

import cv2
import numpy as np

from companion.games.eagle_kingdoms.rules import NK
from companion.referee.eagle_kingdoms import LABEL_OF_KIND
from companion.referee.kingdom_scan import score_values
from companion.vision.readers.kingdom import KingdomReader
from companion.workshop.boards.bench.conditions import apply
from companion.workshop.boards.bench.eagle_kingdoms import sample_states
from companion.workshop.boards.scenes.kingdom import KingdomTruth, render_kingdom


def sample_kingdoms(n: int, seed: int) -> list[tuple[int | str, ...]]:
    """Holdings of players along seeded simulated games (the characters a player would photograph)."""
    rng = random.Random(seed)
    out = []
    for state in sample_states(n * 2, seed):
        hands = [h for h in state.hands if sum(h)]
        if not hands:
            continue
        hand = rng.choice(hands)
        labels = [LABEL_OF_KIND[k] for k in range(NK) for _ in range(hand[k])]
        rng.shuffle(labels)
        out.append(tuple(labels))
        if len(out) == n:
            break
    while len(out) < n:  # very early states: a random handful
        out.append(tuple(rng.choice(LABEL_OF_KIND) for _ in range(rng.randint(1, 12))))
    return out


def evaluate(scenes: int, seed: int, *, condition: str = "as-rendered", rendition: int = 1) -> dict[str, Any]:
    """Kingdom scan on rendered tables, under ``condition`` (:mod:`companion.workshop.boards.bench.conditions`;
    the area is the kingdom's): a "space" is one stand; "board exact" = every stand read right and
    sure, hence the score right; ``score_wrong``: kingdoms whose scan gave a final score (no stand
    unsure) that is not the true one -- the silent error a player meets. A refused scan counts every
    stand wrong, never silent. ``ms_median``: detection + reading per 1280x720 frame."""
    cv2.setNumThreads(1)
    reader = KingdomReader()
    rng = np.random.default_rng(seed + 7)
    cond_rng = np.random.default_rng([seed, 7919])
    stands = wrong = silent = exact = score_right = score_wrong = refused = 0
    ms, cpu_ms = [], []
    failures = []
    for i, labels in enumerate(sample_kingdoms(scenes, seed)):
        frame, truth = render_kingdom(labels, rng, rendition=rendition)
        if condition != "as-rendered":
            perturbed = apply(condition, frame, kingdom_quad(truth), cond_rng)
            frame = perturbed.image
            if condition == "small":
                truth = KingdomTruth(truth.labels, tuple((x * 0.5 - 0.25, y * 0.5 - 0.25) for x, y in truth.centres_px))
            elif perturbed.camera is not None:  # the lens moved the stands in the picture
                bent = perturbed.camera.distort_points(np.asarray(truth.centres_px, np.float64))
                truth = KingdomTruth(truth.labels, tuple((float(x), float(y)) for x, y in bent))
        t0, c0 = time.perf_counter(), time.thread_time()
        reading = reader.read(frame)
        ms.append((time.perf_counter() - t0) * 1000)
        cpu_ms.append((time.thread_time() - c0) * 1000)
        stands += len(labels)
        if not reading.usable:
            refused += 1
            wrong += len(labels)
            if len(failures) < 10:
                failures.append({"scene": i, "status": reading.status})
            continue
        final = not reading.uncertain
        if final and score_values([s.label for s in reading.stands]) != score_values(labels):
            score_wrong += 1
        got = _assign(reading, truth)
        bad = 0
        for want, r in zip(truth.labels, got, strict=True):
            if r is None or r.uncertain or r.label != want:
                bad += 1
                if r is not None and not r.uncertain and r.label != want:
                    silent += 1
        extra = max(0, len(reading.stands) - sum(r is not None for r in got))
        bad += extra
        silent += extra
        wrong += bad
        if bad == 0:
            exact += 1
        if score_values([s.label for s in reading.stands]) == score_values(labels):
            score_right += 1
        if bad and len(failures) < 10:
            failures.append({"scene": i, "truth": list(truth.labels), "read": [s.label for s in reading.stands], "status": reading.status})
    return {
        "scenes": scenes,
        "stands": stands,
        "per_space_error": round(wrong / max(stands, 1), 5),
        "silent_error": round(silent / max(stands, 1), 5),
        "board_exact": round(exact / max(scenes, 1), 4),
        "score_right": round(score_right / max(scenes, 1), 4),
        "score_wrong": round(score_wrong / max(scenes, 1), 4),
        "refused": round(refused / max(scenes, 1), 4),
        "condition": condition,
        "ms_median": round(float(np.median(ms)), 2),
        "cpu_ms_median": round(float(np.median(cpu_ms)), 2),
        "failures": failures,
    }


def kingdom_quad(truth: KingdomTruth, margin_px: float = 40.0) -> np.ndarray:
    """The kingdom's area in the frame: the box round its stands' centres, ``margin_px`` wider."""
    c = np.asarray(truth.centres_px, np.float64).reshape(-1, 2)
    (x0, y0), (x1, y1) = c.min(axis=0) - margin_px, c.max(axis=0) + margin_px
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])


def _assign(reading, truth) -> list:
    """Each true stand's reading: the read card whose centre is nearest (within half a card)."""
    out = []
    if reading.px_per_mm is None:
        return [None] * len(truth.labels)
    used = set()
    for c in truth.centres_px:
        best, dist = None, 9.0 * reading.px_per_mm
        for j, s in enumerate(reading.stands):
            d = float(np.hypot(s.centre_px[0] - c[0], s.centre_px[1] - c[1]))
            if j not in used and d < dist:
                best, dist = j, d
        if best is not None:
            used.add(best)
        out.append(reading.stands[best] if best is not None else None)
    return out


