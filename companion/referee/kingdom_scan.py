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
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from companion.games.eagle_kingdoms.rules import KINGDOM_KINDS, NK, EagleKingdoms, kingdoms_of, score_of
from companion.referee.eagle_kingdoms import KIND_OF_LABEL


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
    from companion.vision.errors import ImageError
    from companion.vision.imageio import load

    status = 0
    for name in args.images:  # every file gets one answer; one file's failure never ends the batch
        try:
            image, _ = load(name, fit=False)
            result = scan_kingdom(image, reader)
        except ImageError as exc:
            result = KingdomScore((), (), 0, 0, f"cannot read the image: {exc.reason}")
        except Exception as exc:  # a reader failure on one picture: said, and the next picture is read
            result = KingdomScore((), (), 0, 0, f"the picture could not be scanned ({exc.__class__.__name__})")
        if not result.final:
            status = 1
        if args.json:
            print(json.dumps({"image": name, **result.as_json()}), flush=True)
        else:
            print(format_score(name, result), flush=True)
    return status


__all__ = ["KINGDOM_KINDS", "EagleKingdoms", "KingdomScore", "main", "scan_kingdom", "score_values"]

if __name__ == "__main__":
    sys.exit(main())
