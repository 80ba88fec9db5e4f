"""End-of-game scoring of the app, without any UI: "score my tiles" (Mighty Magpies) and "score a
kingdom" (Eagle Kingdoms), by hand or read from a camera picture.

A :class:`Tally` holds the counts by kind that a scoring screen shows (each kept between none and what
the box holds), reads them from a picture, and says the total. The points are always the rules' own
(``companion.games.*.rules`` through the referee's scanners, :mod:`companion.referee.kingdom_scan` and
:mod:`companion.referee.tile_scan`); a reading that cannot be trusted gives no points and says why,
never a guess. The screens only show.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from companion.app.i18n import camera_words, tr

TILE_KINDS = ("berry", "silver", "gold")


@dataclass
class Reading:
    ok: bool
    message: str = ""
    counts: list[int] = field(default_factory=list)
    unsure: int = 0
    points: list[tuple[tuple[float, float], str]] = field(default_factory=list)  # what was read where (image px)
    warning: str = ""  # read, but perhaps not what the family meant (a board, not a kingdom; very few stands)


FEW_STANDS = 3  # a kingdom read as fewer stands than this is checked with the family


def tile_points(counts: dict[str, int], young: bool = False) -> int:
    from companion.referee.tile_scan import score_counts

    return score_counts(counts, young)


def read_tiles(image: np.ndarray | None) -> Reading:
    """Count one player's tiles in a picture (berries, silver rings, gold rings)."""
    if image is None:
        return Reading(False, tr("tally:no_picture"))
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
    """Count the characters of one kingdom in a picture: counts per kind (the Eagle Kingdoms rules' order), where
    each stand was read, and a warning when the picture is perhaps no kingdom (a game board's markers in view: it
    is not counted; or only one or two stands found)."""
    if image is None:
        return Reading(False, tr("tally:no_picture"))
    try:
        from companion.referee.kingdom_scan import board_markers_in_view, counts_of, scan_kingdom

        if board_markers_in_view(image):
            return Reading(False, tr("tally:a_board"))
        result = scan_kingdom(image, reader)
    except Exception as exc:  # a missing model, a reader in progress: counting by hand goes on
        return Reading(False, f"{type(exc).__name__}: {exc}")
    if result.status != "ok":
        return Reading(False, camera_words(result.status))
    points = [(centre, f"{value}" + ("?" if i in result.unsure else ""))
              for i, (centre, value) in enumerate(zip(result.centres, result.values, strict=False))]
    warning = tr("tally:few", count=len(result.values)) if len(result.values) < FEW_STANDS else ""
    return Reading(True, "ok" if result.final else "unsure", counts_of(result.values), len(result.unsure), points, warning)


class Tally:
    """Counts by kind, by hand (``bump``) or read from a picture (``read``), and the rules' total in words.
    Subclasses name the kinds and their limits, the total, the reader and what a reading tells the family."""

    def __init__(self) -> None:
        self.limits = [limit for _label, limit in self.kinds()]
        self.counts = [0] * len(self.limits)
        self.message = ""  # what the last reading could not do ("" when it was read)
        self.points: list[tuple[tuple[float, float], str]] = []  # what the last reading found where (image px)

    def kinds(self) -> list[tuple[str, int]]:
        """(label, most there can be) of each kind, in order, in the current language."""
        raise NotImplementedError

    def total_text(self) -> str:
        raise NotImplementedError

    def reading(self, image: np.ndarray | None) -> Reading:
        raise NotImplementedError

    def take(self, reading: Reading) -> None:
        """Use a reading: its counts, and what to tell the family (``message``)."""
        raise NotImplementedError

    def bump(self, kind: int, delta: int) -> None:
        self.counts[kind] = max(0, min(self.limits[kind], self.counts[kind] + delta))

    def clear(self) -> None:
        self.counts = [0] * len(self.limits)
        self.message = ""
        self.points = []

    def read(self, image: np.ndarray | None) -> bool:
        """Read the counts from a camera picture; what cannot be trusted is said, not guessed."""
        reading = self.reading(image)
        self.take(reading)
        self.counts = [max(0, min(limit, int(c))) for c, limit in zip(self.counts, self.limits, strict=True)]
        return reading.ok


class KingdomTally(Tally):
    """Score a kingdom without a game: the characters counted by kind (Eagle Kingdoms scoring)."""

    def kinds(self) -> list[tuple[str, int]]:
        """Each character in the family's language, with its value: "King (10)", "König (10)"."""
        from companion.games.eagle_kingdoms.rules import COUNTS, KINDS, VALUES

        return [(tr("tally:kind", name=tr(f"kind:{kind}"), value=VALUES[k]), COUNTS[k]) for k, kind in enumerate(KINDS)]

    def total_text(self) -> str:
        from companion.referee.kingdom_scan import total_of

        total = total_of(self.counts)
        return tr("tally:total", points=total.points, kingdoms=total.kingdoms, bonus=total.bonus)

    def reading(self, image: np.ndarray | None) -> Reading:
        return read_kingdom(image)

    def take(self, reading: Reading) -> None:
        self.points = list(reading.points)
        if reading.ok:
            self.counts = list(reading.counts)
        if not reading.ok:
            self.message = tr("tally:read_failed", reason=reading.message)
        elif reading.unsure:
            self.message = tr("tally:unsure", count=reading.unsure)
        else:
            self.message = reading.warning


class TileTally(Tally):
    """Score my tiles (Mighty Magpies): berries, silver and gold rings; ``young``: the variant for younger
    children (every tile 1 point)."""

    young = False

    def kinds(self) -> list[tuple[str, int]]:
        return [(tr(f"tiles:{kind}"), 99) for kind in TILE_KINDS]

    def total_text(self) -> str:
        return tr("tiles:total", points=tile_points(dict(zip(TILE_KINDS, self.counts, strict=True)), self.young))

    def reading(self, image: np.ndarray | None) -> Reading:
        return read_tiles(image)

    def take(self, reading: Reading) -> None:
        if reading.counts:
            self.counts = list(reading.counts)
        self.message = "" if reading.ok else tr("tiles:read_failed", reason=reading.message)
