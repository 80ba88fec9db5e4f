"""Kingdom scan: photograph one player's captured characters, get every value and the score.

Usage::

    python -m companion.referee.kingdom_scan IMAGE [IMAGE ...] [--json]

No board and no markers: the stands are found on the table, each value (1-10) or Jester is read,
and the kingdom is scored by the Eagle Kingdoms rules (face values, plus 15 for every complete set of
values 1 to 10; Jesters count 0; EK-SCORE-1, EK-SCORE-2). A stand read without confidence is listed
as unsure and the score is marked "not final" -- never silently guessed. Exit status: 0 all sure,
1 some unsure or an image unreadable, 2 bad usage or a missing model.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from companion.games.eagle_kingdoms.rules import KINGDOM_KINDS, NK, EagleKingdoms, kingdoms_of, score_of
from companion.referee.eagle_kingdoms import KIND_OF_LABEL, LABEL_OF_KIND


@dataclass(frozen=True)
class KingdomScore:
    values: tuple[int | str, ...]  # every stand, rows top to bottom, left to right
    unsure: tuple[int, ...]  # indices into values
    score: int
    kingdoms: int
    status: str = "ok"

    @property
    def final(self) -> bool:
        return self.status == "ok" and not self.unsure

    def as_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "values": list(self.values),
            "unsure": list(self.unsure),
            "score": self.score,
            "kingdoms": self.kingdoms,
            "final": self.final,
        }


def score_values(values: Sequence[int | str]) -> tuple[int, int]:
    """(score, complete kingdoms) of a list of stand labels, by the engine's scoring."""
    counts = [0] * NK
    for v in values:
        counts[KIND_OF_LABEL[v]] += 1
    return score_of(counts), kingdoms_of(counts)


def scan_kingdom(image: np.ndarray, reader: Any = None) -> KingdomScore:
    from companion.vision.readers.kingdom import KingdomReader

    reader = reader or KingdomReader()
    reading = reader.read(image)
    if not reading.usable:
        return KingdomScore((), (), 0, 0, reading.status)
    values = tuple(s.label for s in reading.stands)
    score, kingdoms = score_values(values)
    unsure = tuple(i for i, s in enumerate(reading.stands) if s.uncertain)
    return KingdomScore(values, unsure, score, kingdoms)


def format_score(name: str, result: KingdomScore) -> str:
    if result.status != "ok":
        return f"{name}: cannot read: {result.status}"
    shown = " ".join(f"{v}?" if i in result.unsure else str(v) for i, v in enumerate(result.values))
    line = f"{name}: {len(result.values)} characters: {shown}\n  score {result.score}"
    if result.kingdoms:
        line += f" (includes {result.kingdoms} complete kingdom{'s' if result.kingdoms > 1 else ''} x 15)"
    if result.unsure:
        line += f"\n  not final: {len(result.unsure)} stand(s) unsure (marked ?): check them and scan again"
    return line


# -- benchmark ------------------------------------------------------------------------------------------


def sample_kingdoms(n: int, seed: int) -> list[tuple[int | str, ...]]:
    """Holdings of players along seeded simulated games (the characters a player would photograph)."""
    from companion.referee.eagle_kingdoms import sample_states

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


def evaluate(scenes: int, seed: int) -> dict[str, Any]:
    """Kingdom scan on rendered tables: a "space" is one stand; "board exact" = every stand read
    right and sure, hence the score right. ``ms_median``: detection + reading per 1280x720 frame."""
    import cv2

    from companion.vision.readers.kingdom import KingdomReader
    from companion.workshop.boards.scenes.kingdom import render_kingdom

    cv2.setNumThreads(1)
    reader = KingdomReader()
    rng = np.random.default_rng(seed + 7)
    stands = wrong = silent = exact = score_right = 0
    ms, cpu_ms = [], []
    failures = []
    for i, labels in enumerate(sample_kingdoms(scenes, seed)):
        frame, truth = render_kingdom(labels, rng)
        t0, c0 = time.perf_counter(), time.thread_time()
        reading = reader.read(frame)
        ms.append((time.perf_counter() - t0) * 1000)
        cpu_ms.append((time.thread_time() - c0) * 1000)
        stands += len(labels)
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
        "ms_median": round(float(np.median(ms)), 2),
        "cpu_ms_median": round(float(np.median(cpu_ms)), 2),
        "failures": failures,
    }


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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.referee.kingdom_scan", description=__doc__.split("\n\n")[0])
    parser.add_argument("images", nargs="+")
    parser.add_argument("--json", action="store_true", help="one JSON object per image")
    args = parser.parse_args(argv)
    from companion.vision.errors import VisionError
    from companion.vision.readers.kingdom import KingdomReader

    try:
        reader = KingdomReader()
    except VisionError as exc:
        print(f"error: {exc.reason}", file=sys.stderr)
        return 2
    import cv2

    status = 0
    for name in args.images:
        image = cv2.imread(name, cv2.IMREAD_COLOR)
        if image is None:
            result = KingdomScore((), (), 0, 0, "not an image file (or unreadable)")
        else:
            result = scan_kingdom(image, reader)
        if not result.final:
            status = 1
        if args.json:
            print(json.dumps({"image": name, **result.as_json()}))
        else:
            print(format_score(name, result))
    return status


__all__ = ["KINGDOM_KINDS", "EagleKingdoms", "KingdomScore", "evaluate", "main", "scan_kingdom", "score_values"]

if __name__ == "__main__":
    sys.exit(main())
