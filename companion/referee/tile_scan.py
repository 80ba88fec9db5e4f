"""Score one player's stolen Mighty Magpies tiles from a photo: berries, silver rings, gold rings.

Usage::

    python -m companion.referee.tile_scan IMAGE [IMAGE ...] [--young] [--json]

Lay the tiles apart on a plain surface and take the picture from above. Each image is scanned by
:func:`companion.vision.readers.mighty_magpies.scan_tiles` and scored by the rules' scoring
(MM-SCORE-1/2: a berry 1 point; rings by colour: one 1, two 3, three 5; ``--young``: every tile 1,
MM-YOUNG-1). A scan that cannot be trusted (tiles touching, a tile of no known kind, too dark) gives
no score and says why; the exit status is then 1 (2 for an unreadable file).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from companion.games.mighty_magpies.rules import points_of
from companion.vision.readers.mighty_magpies import TileScan, scan_tiles


@dataclass(frozen=True)
class TileScore:
    scan: TileScan
    points: int | None  # None when the scan is not usable

    def as_json(self) -> dict[str, Any]:
        return {**self.scan.as_json(), "points": self.points}


def score_counts(counts: Mapping[str, int], young: bool = False) -> int:
    """Points of a holding by the rules (MM-SCORE-1/2, MM-YOUNG-1)."""
    return points_of(int(counts.get("berry", 0)), int(counts.get("silver", 0)), int(counts.get("gold", 0)), young=young)


def score_image(image: np.ndarray, young: bool = False) -> TileScore:
    scan = scan_tiles(image)
    return TileScore(scan, score_counts(scan.counts, young) if scan.usable else None)


def format_score(name: str, result: TileScore) -> str:
    c = result.scan.counts
    what = f"{c['berry']} berries, {c['silver']} silver rings, {c['gold']} gold rings"
    if result.points is None:
        return f"{name}: no score ({result.scan.status}); seen so far: {what}"
    return f"{name}: {result.points} points ({what})"


def main(argv: Sequence[str] | None = None) -> int:
    from companion.vision.errors import ImageError
    from companion.vision.imageio import load

    parser = argparse.ArgumentParser(prog="python -m companion.referee.tile_scan", description=__doc__.split("\n\n")[0])
    parser.add_argument("images", nargs="+")
    parser.add_argument("--young", action="store_true", help="the variant for younger children: every tile 1 point")
    parser.add_argument("--json", action="store_true", help="one JSON object per image")
    args = parser.parse_args(argv)
    status = 0
    for path in args.images:  # every file gets one answer; one file's failure never ends the batch
        try:
            image, _ = load(path, fit=False)
            result = score_image(image, args.young)
        except ImageError as exc:
            why = f"cannot read the image: {exc.reason}"
            print(json.dumps({"image": path, "usable": False, "status": why}) if args.json else f"{path}: {why}",
                  flush=True)
            status = max(status, 2)
            continue
        except Exception as exc:  # a scan failure on one picture: said, and the next picture is read
            why = f"the picture could not be scanned ({exc.__class__.__name__})"
            print(json.dumps({"image": path, "usable": False, "status": why}) if args.json else f"{path}: {why}",
                  flush=True)
            status = max(status, 2)
            continue
        print(json.dumps({"image": path, **result.as_json()}) if args.json else format_score(path, result), flush=True)
        if result.points is None:
            status = max(status, 1)
    return status


if __name__ == "__main__":
    sys.exit(main())
