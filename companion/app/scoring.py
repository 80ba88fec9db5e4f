"""End-of-game scoring helpers of the app, without any UI: "score my tiles" (Mighty Magpies) and
"score a kingdom" (Eagle Kingdoms), by hand or read from a camera picture.

The points are always the rules' own (``companion.games.*.rules`` through the referee's scanners);
a reading that cannot be trusted gives no points and says why, never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

TILE_KINDS = ("berry", "silver", "gold")


@dataclass
class Reading:
    ok: bool
    message: str = ""
    counts: list[int] = field(default_factory=list)
    unsure: int = 0


def tile_points(counts: dict[str, int], young: bool = False) -> int:
    from companion.referee.tile_scan import score_counts

    return score_counts(counts, young)


def read_tiles(image: np.ndarray | None) -> Reading:
    """Count one player's tiles in a picture (berries, silver rings, gold rings)."""
    if image is None:
        return Reading(False, "no picture")
    try:
        from companion.referee.tile_scan import score_image

        result = score_image(image)
    except Exception as exc:  # the scanner is another package: a failure is reported, counting by hand goes on
        return Reading(False, f"{type(exc).__name__}: {exc}")
    counts = [int(result.scan.counts.get(k, 0)) for k in TILE_KINDS]
    if result.points is None:
        return Reading(False, result.scan.status, counts)
    return Reading(True, result.scan.status, counts)


def read_kingdom(image: np.ndarray | None, reader=None) -> Reading:
    """Count the characters of one kingdom in a picture: counts per kind (the Eagle Kingdoms rules' order)."""
    if image is None:
        return Reading(False, "no picture")
    try:
        from companion.games.eagle_kingdoms.rules import NK
        from companion.referee.eagle_kingdoms import KIND_OF_LABEL
        from companion.referee.kingdom_scan import scan_kingdom

        result = scan_kingdom(image, reader)
    except Exception as exc:  # a missing model, a reader in progress: counting by hand goes on
        return Reading(False, f"{type(exc).__name__}: {exc}")
    if result.status != "ok":
        return Reading(False, result.status)
    counts = [0] * NK
    for value in result.values:
        counts[KIND_OF_LABEL[value]] += 1
    return Reading(True, "ok" if result.final else "unsure", counts, len(result.unsure))
