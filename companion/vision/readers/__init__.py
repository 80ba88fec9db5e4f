"""Board readers: from a frame and its board pose to an :class:`Observation` of the pieces.

One module per game (``readers/<game>.py``). A reader never sees a rules state: it reports what it
sees in a *vision vocabulary* shared with the scene painters of :mod:`companion.workshop.boards.scenes` --
region id -> list of visible piece descriptors (plain JSON values such as ``{"stand": 7}``,
``{"stand": "jester"}``, ``{"magpie": "red"}``) -- with a confidence per region. A region whose
confidence is below ``uncertain_below`` is *uncertain*: the referee may fix it from the rules, but it
is never silently taken as read. A region the camera could not see (a hand, an arm, a cup over it)
is *hidden*: named in ``hidden``, with no reading and confidence 0 -- unknown, never read. A frame
that cannot be read at all (no pose, too dark, too blurred, ...) gives an observation with
``usable=False`` and the reason in ``status``; nothing of it may be applied.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

SceneDescription = dict[str, list[Any]]
"""Region id -> visible piece descriptors (empty or absent: nothing there)."""

DEFAULT_UNCERTAIN_BELOW = 0.9


@dataclass(frozen=True)
class Observation:
    """What a reader saw on one settled frame."""

    regions: Mapping[str, list[Any]]
    confidence: Mapping[str, float] = field(default_factory=dict)  # region id -> P(reading right); absent: 1.0
    uncertain_below: float = DEFAULT_UNCERTAIN_BELOW
    usable: bool = True
    status: str = "ok"  # plain words; the reason when not usable
    timings_ms: Mapping[str, float] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict)
    hidden: frozenset[str] = frozenset()  # regions not seen (a hand, a cup, out of frame): unknown, never read

    def confidence_of(self, region: str) -> float:
        return float(self.confidence.get(region, 1.0))

    def is_uncertain(self, region: str) -> bool:
        return region in self.hidden or self.confidence_of(region) < self.uncertain_below

    @property
    def uncertain(self) -> frozenset[str]:
        return frozenset(r for r, c in self.confidence.items() if c < self.uncertain_below)

    def pieces(self, region: str) -> list[Any]:
        return list(self.regions.get(region) or [])

    def as_json(self) -> dict[str, Any]:
        return {
            "usable": self.usable,
            "status": self.status,
            "regions": {k: list(v) for k, v in self.regions.items() if v},
            "confidence": {k: round(float(v), 4) for k, v in self.confidence.items()},
            "uncertain": sorted(self.uncertain),
            "hidden": sorted(self.hidden),
        }

    @classmethod
    def unusable(cls, reason: str, timings_ms: Mapping[str, float] | None = None) -> Observation:
        return cls({}, {}, usable=False, status=reason, timings_ms=dict(timings_ms or {}))

    @classmethod
    def from_scene(cls, scene: Mapping[str, list[Any]]) -> Observation:
        """A fully confident observation of a scene description (tests, typed corrections)."""
        return cls({k: list(v) for k, v in scene.items() if v})


def canonical(pieces: Any) -> tuple[str, ...]:
    """Order-free canonical form of one region's pieces (for comparing readings with scenes)."""
    return tuple(sorted(_piece_json(p) for p in (pieces or [])))


_PLAIN = (str, int, bool, type(None))  # values whose equal ones (of one class) write alike; not floats: 0.0 == -0.0
_PIECE_JSON: dict[tuple, str] = {}  # a piece's (key, class, value) items -> its JSON: the board's few kinds of piece


def _piece_json(piece: Any) -> str:
    """``json.dumps(piece, sort_keys=True)``, kept for a flat piece of plain values (its pieces are compared every
    frame, a board's worth: a dump each cost more than the rest of the comparison)."""
    try:
        key = tuple((k, v.__class__, v) for k, v in piece.items() if k.__class__ is str and v.__class__ in _PLAIN)
        text = _PIECE_JSON.get(key) if len(key) == len(piece) else None
    except (AttributeError, TypeError):  # not a mapping
        return json.dumps(piece, sort_keys=True)
    if text is None:
        text = json.dumps(piece, sort_keys=True)
        if len(key) == len(piece) and len(_PIECE_JSON) < 4096:
            _PIECE_JSON[key] = text
    return text


__all__ = ["DEFAULT_UNCERTAIN_BELOW", "Observation", "SceneDescription", "canonical"]


class TrackedReader:
    """Base of a reader that keeps its own board tracker (``self.tracker``): ``read(frame)`` poses the
    frame, tracked from the frames before, and reads it with ``read_with_pose``; ``reset()`` forgets
    the pose (a new camera set-up, or independent pictures)."""

    tracker: Any

    def read(self, frame: Any) -> Observation:
        return self.read_with_pose(frame, self.tracker.update(frame))

    def reset(self) -> None:
        self.tracker.reset()

    def read_with_pose(self, frame: Any, pose: Any) -> Observation:
        raise NotImplementedError


def read_file_main(argv, prog: str, description: str, default_map: str, make_reader) -> int:
    """``python -m companion.vision.readers.<game> IMAGE [--map MAP]``: one JSON observation on stdout.

    A missing or damaged map or image gives ``{"usable": false, "status": reason}`` and exit 2 (never
    a traceback); an unusable frame exits 1. ``make_reader(board_map)`` builds the game's reader.
    """
    import argparse

    from companion.vision.boardmap import BoardMapError, load_board_map
    from companion.vision.errors import ImageError
    from companion.vision.imageio import load

    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("image")
    parser.add_argument("--map", "--board", dest="map", default=default_map, help="board map JSON")
    args = parser.parse_args(argv)
    try:
        board = load_board_map(args.map)
    except BoardMapError as exc:
        print(json.dumps({"usable": False, "status": str(exc)}))
        return 2
    try:
        image, _ = load(args.image)  # the pose works in the loaded picture's pixels, so a downscale is harmless
    except ImageError as exc:
        print(json.dumps({"usable": False, "status": f"cannot read the image {args.image}: {exc}"}))
        return 2
    obs = make_reader(board).read(image)
    print(json.dumps(obs.as_json()))
    return 0 if obs.usable else 1
