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

from companion.games.eagle_kingdoms.rules import (
    COUNTS,
    KINGDOM_BONUS,
    KINGDOM_KINDS,
    NK,
    EagleKingdoms,
    kind_label,
    kingdoms_of,
    score_of,
)
from companion.referee.eagle_kingdoms import KIND_OF_LABEL
from companion.vision.readers.stands import StandClassifier as VisionStandClassifier


@dataclass(frozen=True)
class KingdomScore:
    values: tuple[int | str, ...]  # every stand, rows top to bottom, left to right
    unsure: tuple[int, ...]  # indices into values
    score: int
    kingdoms: int
    status: str = "ok"
    centres: tuple[tuple[float, float], ...] = ()  # where each stand was found (image px), in the values' order

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


@dataclass(frozen=True)
class KingdomTotal:
    """A kingdom's points by the rules, and the share of them its complete kingdoms bring."""

    points: int
    kingdoms: int  # complete kingdoms (EK-SCORE-2)
    bonus: int  # kingdoms x the kingdom bonus (included in points)


def kinds() -> list[tuple[str, int]]:
    """(label, how many the box holds) of each kind of character, in the rules' order (the counts' order)."""
    return [(kind_label(k), COUNTS[k]) for k in range(NK)]


def counts_of(values: Sequence[int | str]) -> list[int]:
    """Stand labels (1-10, "jester") -> how many of each kind, in the rules' order."""
    counts = [0] * NK
    for v in values:
        counts[KIND_OF_LABEL[v]] += 1
    return counts


def total_of(counts: Sequence[int]) -> KingdomTotal:
    """The points of one player's characters, counted by kind (EK-SCORE-1, EK-SCORE-2)."""
    counts = list(counts)
    kingdoms = kingdoms_of(counts)
    return KingdomTotal(score_of(counts), kingdoms, kingdoms * KINGDOM_BONUS)


def score_values(values: Sequence[int | str]) -> tuple[int, int]:
    """(score, complete kingdoms) of a list of stand labels, by the engine's scoring."""
    total = total_of(counts_of(values))
    return total.points, total.kingdoms


class StandClassifier(VisionStandClassifier):
    """The stand classifier (``models/`` manifest ``stands``) in the same runtime as the dice models: onnxruntime
    when it can be imported (the vision package's classifier), else OpenCV's DNN module (the Android path;
    ``companion.vision.models.resolve_backend``, ``backend`` or $COMPANION_DICE_BACKEND choose)."""

    def __init__(self, backend: str | None = None, threads: int = 1) -> None:
        import cv2

        from companion.vision.errors import ModelError
        from companion.vision.models import OpenCVSession, resolve_backend
        from companion.vision.readers.stands import stand_model_entry

        self.backend = resolve_backend(backend)
        if self.backend == "onnxruntime":
            super().__init__(threads=threads)
            return
        path, self.entry = stand_model_entry()
        try:
            self.session = OpenCVSession(cv2.dnn.readNetFromONNX(str(path)))
        except cv2.error as exc:
            raise ModelError(f"OpenCV DNN cannot load {path}: {exc}") from exc
        self.input = self.session.get_inputs()[0].name


def scan_kingdom(image: np.ndarray, reader: Any = None) -> KingdomScore:
    from companion.vision.readers.kingdom import KingdomReader

    reader = reader or KingdomReader(StandClassifier())
    reading = reader.read(image)
    if not reading.usable:
        return KingdomScore((), (), 0, 0, reading.status)
    values = tuple(s.label for s in reading.stands)
    score, kingdoms = score_values(values)
    unsure = tuple(i for i, s in enumerate(reading.stands) if s.uncertain)
    centres = tuple((float(s.centre_px[0]), float(s.centre_px[1])) for s in reading.stands)
    return KingdomScore(values, unsure, score, kingdoms, centres=centres)


def board_markers_in_view(image: np.ndarray, least: int = 2) -> bool:
    """Whether ``image`` shows a game board (``least`` of the boards' corner markers): a board is no kingdom."""
    import cv2

    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    _corners, ids, _rejected = detector.detectMarkers(gray)
    return ids is not None and len(set(ids.ravel().tolist())) >= least


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
        reader = KingdomReader(StandClassifier())  # onnxruntime, else cv2.dnn (as the app)
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


__all__ = ["KINGDOM_KINDS", "EagleKingdoms", "KingdomScore", "KingdomTotal", "counts_of", "kinds", "main", "scan_kingdom",
           "score_values", "total_of"]

if __name__ == "__main__":
    sys.exit(main())
