"""Board maps: where the fiducials and the regions of one game's board are, in millimetres.

A board map is a JSON file, ``calibration/boards/<game>.json``; the loader validates it fully and
raises :class:`BoardMapError` (with a plain-words ``reason``) for anything corrupt or inconsistent,
never a bare ``KeyError``/``ValueError``. Coordinates are board millimetres: origin at the board's
top-left corner, x to the right, y down (the way the board is printed). Format (``format_version`` 1)::

    {
      "format_version": 1,
      "game": "example",                 # id of the game (any [a-z0-9-] name)
      "title": "Example board",          # optional
      "size_mm": [300, 300],             # board width, height
      "play_area_mm": [40, 40, 260, 260],# optional [x0, y0, x1, y1]; default the whole board
      "dictionary": "DICT_4X4_50",       # optional, the OpenCV ArUco dictionary of the fiducials
      "fiducials": [                     # ArUco markers, axis-aligned, outside the play area
        {"id": 0, "center_mm": [20, 20], "side_mm": 30}, ...
      ],
      "regions": [                       # each a polygon or a circle
        {"id": "a1", "kind": "square", "polygon_mm": [[40, 40], [84, 40], [84, 84], [40, 84]]},
        {"id": "pool", "kind": "pool", "center_mm": [150, 150], "radius_mm": 30}, ...
      ],
      "edges": [["a1", "a2"], ...],      # optional graph edges between region ids
      "straight_lines_mm": [[0, 0, 300, 0], ...]  # optional straight printed edges [x0, y0, x1, y1]
    }

``straight_lines_mm`` names long straight edges a camera sees (the board's outline against its border):
their bend in a picture measures an uncorrected wide lens when the markers alone cannot
(:func:`companion.vision.lens.find_straight_lines`).

Coordinates may lie outside ``[0, size]`` only for fiducials (markers stuck on the table beside the
board). A fitted per-user copy (see :func:`save_fitted_map`, :func:`load_user_map`) wraps a map with
its own version and the hash of the reference map it was fitted from.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

import numpy as np

from companion.storage import read_small_text, write_atomic
from companion.vision.errors import VisionError

FORMAT_VERSION = 1
FITTED_FORMAT = "companion-fitted-board"
FITTED_VERSION = 1
DEFAULT_DICTIONARY = "DICT_4X4_50"
_ID_RE = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_TOLERANCE_MM = 1e-6
# A fitted map's regions may move this far past the reference play area (an owner's print is off by mm, not cm).
FITTED_SLACK_MM = 50.0


class BoardMapError(VisionError):
    """A board map (reference or fitted) that is unreadable, malformed or inconsistent."""

    def __init__(self, reason: str, source: str | None = None) -> None:
        super().__init__(f"{source}: {reason}" if source else reason)
        self.reason = reason
        self.source = source


@dataclass(frozen=True)
class Fiducial:
    """One square ArUco marker, axis-aligned with the board, its top-left corner first."""

    id: int
    center_mm: tuple[float, float]
    side_mm: float

    def corners_mm(self) -> np.ndarray:
        """The 4 corners in ArUco order (top-left, top-right, bottom-right, bottom-left), shape (4, 2)."""
        cx, cy = self.center_mm
        h = self.side_mm / 2
        return np.array([[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]], dtype=np.float64)


@dataclass(frozen=True)
class Region:
    """A space of the board: a polygon, or a circle (centre + radius)."""

    id: str
    kind: str
    polygon_mm: tuple[tuple[float, float], ...] | None = None
    circle_center_mm: tuple[float, float] | None = None
    radius_mm: float | None = None
    label: str | None = None
    """Optional text printed on the reference board (e.g. the dice shown on an Eagle Kingdoms piece)."""

    @property
    def center_mm(self) -> tuple[float, float]:
        if self.circle_center_mm is not None:
            return self.circle_center_mm
        return _polygon_centroid(np.asarray(self.polygon_mm, dtype=np.float64))

    def bounds_mm(self) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1)."""
        if self.circle_center_mm is not None:
            (cx, cy), r = self.circle_center_mm, float(self.radius_mm or 0)
            return cx - r, cy - r, cx + r, cy + r
        pts = np.asarray(self.polygon_mm)
        return float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()), float(pts[:, 1].max())

    def contains(self, x_mm: float, y_mm: float) -> bool:
        if self.circle_center_mm is not None:
            cx, cy = self.circle_center_mm
            return math.hypot(x_mm - cx, y_mm - cy) <= float(self.radius_mm or 0)
        return _point_in_polygon(x_mm, y_mm, self.polygon_mm or ())

    def translated(self, dx: float, dy: float) -> Region:
        if self.circle_center_mm is not None:
            cx, cy = self.circle_center_mm
            return Region(
                self.id, self.kind, circle_center_mm=(cx + dx, cy + dy), radius_mm=self.radius_mm, label=self.label
            )
        return Region(
            self.id, self.kind, polygon_mm=tuple((x + dx, y + dy) for x, y in self.polygon_mm or ()), label=self.label
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "kind": self.kind}
        if self.circle_center_mm is not None:
            out["center_mm"] = _round_list(self.circle_center_mm)
            out["radius_mm"] = _round(self.radius_mm or 0.0)
        else:
            out["polygon_mm"] = [_round_list(p) for p in self.polygon_mm or ()]
        if self.label is not None:
            out["label"] = self.label
        return out


@dataclass(frozen=True)
class BoardMap:
    """A validated board map. Build it with :func:`load_board_map` or :meth:`from_dict`."""

    game: str
    size_mm: tuple[float, float]
    fiducials: tuple[Fiducial, ...]
    regions: tuple[Region, ...]
    edges: tuple[tuple[str, str], ...] = ()
    play_area_mm: tuple[float, float, float, float] | None = None
    dictionary: str = DEFAULT_DICTIONARY
    title: str = ""
    fitted: Mapping[str, Any] | None = field(default=None, compare=False)
    straight_lines_mm: tuple[tuple[float, float, float, float], ...] = ()

    # -- lookups -----------------------------------------------------------------------------------
    def fiducial(self, marker_id: int) -> Fiducial | None:
        return next((f for f in self.fiducials if f.id == marker_id), None)

    def region(self, region_id: str) -> Region:
        for r in self.regions:
            if r.id == region_id:
                return r
        raise KeyError(region_id)

    @property
    def fiducial_ids(self) -> tuple[int, ...]:
        return tuple(f.id for f in self.fiducials)

    def board_corners_mm(self) -> np.ndarray:
        """The board outline, (4, 2): top-left, top-right, bottom-right, bottom-left."""
        w, h = self.size_mm
        return np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)

    def extent_mm(self) -> tuple[float, float, float, float]:
        """Bounding box (x0, y0, x1, y1) of the board and every fiducial."""
        pts = [self.board_corners_mm()] + [f.corners_mm() for f in self.fiducials]
        allp = np.vstack(pts)
        return float(allp[:, 0].min()), float(allp[:, 1].min()), float(allp[:, 0].max()), float(allp[:, 1].max())

    def region_at(self, x_mm: float, y_mm: float) -> Region | None:
        return next((r for r in self.regions if r.contains(x_mm, y_mm)), None)

    # -- (de)serialisation -------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"format_version": FORMAT_VERSION, "game": self.game}
        if self.title:
            out["title"] = self.title
        out["size_mm"] = _round_list(self.size_mm)
        if self.play_area_mm is not None:
            out["play_area_mm"] = _round_list(self.play_area_mm)
        out["dictionary"] = self.dictionary
        out["fiducials"] = [
            {"id": f.id, "center_mm": _round_list(f.center_mm), "side_mm": _round(f.side_mm)} for f in self.fiducials
        ]
        out["regions"] = [r.to_dict() for r in self.regions]
        if self.edges:
            out["edges"] = [list(e) for e in self.edges]
        if self.straight_lines_mm:
            out["straight_lines_mm"] = [_round_list(line) for line in self.straight_lines_mm]
        if self.fitted is not None:
            out["fitted"] = dict(self.fitted)
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1, sort_keys=False) + "\n"

    def digest(self) -> str:
        """sha256 of the canonical JSON, without any ``fitted`` block (identifies a reference map). Kept on
        the map once made: readers key their caches by it every frame, and the map is frozen. Without the
        straight lines too: they say nothing of where the spaces are, and a box taught before they were
        added stays taught."""
        known = self.__dict__.get("_digest")
        if known is None:
            data = self.to_dict()
            data.pop("fitted", None)
            data.pop("straight_lines_mm", None)
            known = hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()
            object.__setattr__(self, "_digest", known)
        return known

    @classmethod
    def from_dict(cls, data: Any, source: str | None = None, slack_mm: float = 0.0) -> BoardMap:
        """Validate ``data``; ``slack_mm`` lets regions reach that far past the play area (fitted maps)."""
        return _parse_map(data, source, slack_mm)


def load_board_map(path: str | os.PathLike[str]) -> BoardMap:
    """Read and validate one board map file; :class:`BoardMapError` for any problem."""
    path = Path(path)
    try:
        text = read_small_text(path, limit=8 << 20)  # a FIFO or a device is refused, not waited on
    except FileNotFoundError:
        raise BoardMapError("file not found", str(path)) from None
    except (OSError, ValueError) as exc:
        raise BoardMapError(f"cannot read the file ({exc.__class__.__name__}: {exc})", str(path)) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BoardMapError(f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})", str(path)) from None
    except RecursionError:
        raise BoardMapError("not a board map (nested too deeply)", str(path)) from None
    return _parse_map(data, str(path))


# -- per-user fitted maps ---------------------------------------------------------------------------


class MapSource(Enum):
    """Which map :func:`load_user_map` chose, and why."""

    FITTED = "fitted map"
    REFERENCE = "reference map (no fitted map yet)"
    FITTED_CORRUPT = "reference map (the fitted map is damaged)"
    FITTED_OUTDATED = "reference map (the fitted map was made for another version of the board)"


@dataclass(frozen=True)
class UserMap:
    map: BoardMap
    source: MapSource
    reason: str = ""

    @property
    def message(self) -> str:
        return f"{self.source.value}: {self.reason}" if self.reason else self.source.value


def fitted_map_path(user_dir: str | os.PathLike[str], game: str) -> Path:
    return Path(user_dir) / "boards" / f"{game}.fitted.json"


def save_fitted_map(fitted: BoardMap, reference: BoardMap, user_dir: str | os.PathLike[str]) -> Path:
    """Write ``fitted`` for this user atomically; returns the file path."""
    if fitted.game != reference.game:
        raise BoardMapError(f"fitted map is for {fitted.game!r}, reference for {reference.game!r}")
    path = fitted_map_path(user_dir, fitted.game)
    doc = {
        "format": FITTED_FORMAT,
        "version": FITTED_VERSION,
        "game": fitted.game,
        "reference_sha256": reference.digest(),
        "map": fitted.to_dict(),
    }
    return write_atomic(path, json.dumps(doc, indent=1) + "\n")  # temporary file, fsync, rename, folder fsync


def load_fitted_map(path: str | os.PathLike[str], reference: BoardMap) -> BoardMap:
    """Read a fitted map strictly: :class:`BoardMapError` if damaged or made for another reference."""
    path = Path(path)
    try:
        doc = json.loads(read_small_text(path, limit=8 << 20))
    except FileNotFoundError:
        raise BoardMapError("file not found", str(path)) from None
    except (OSError, ValueError, RecursionError) as exc:
        raise BoardMapError(f"cannot read the fitted map ({exc.__class__.__name__})", str(path)) from None
    if not isinstance(doc, dict) or doc.get("format") != FITTED_FORMAT:
        raise BoardMapError(f"not a fitted board map (expected format {FITTED_FORMAT!r})", str(path))
    if doc.get("version") != FITTED_VERSION:
        raise BoardMapError(f"fitted map version {doc.get('version')!r}, expected {FITTED_VERSION}", str(path))
    fitted = _parse_map(doc.get("map"), str(path), slack_mm=FITTED_SLACK_MM)
    if fitted.game != reference.game or doc.get("game") != reference.game:
        raise BoardMapError(f"fitted map is for {fitted.game!r}, expected {reference.game!r}", str(path))
    if doc.get("reference_sha256") != reference.digest():
        raise _OutdatedFit("fitted from a different reference map", str(path))
    if fitted.fiducial_ids != reference.fiducial_ids or {r.id for r in fitted.regions} != {
        r.id for r in reference.regions
    }:
        raise BoardMapError("fitted map's fiducials or regions differ from the reference map", str(path))
    return fitted


class _OutdatedFit(BoardMapError):
    pass


def load_user_map(reference: BoardMap, user_dir: str | os.PathLike[str] | None) -> UserMap:
    """The map readers should use: this user's fitted copy when sound, else the reference (never raises)."""
    if user_dir is None:
        return UserMap(reference, MapSource.REFERENCE)
    path = fitted_map_path(user_dir, reference.game)
    if not path.exists():
        return UserMap(reference, MapSource.REFERENCE)
    try:
        return UserMap(load_fitted_map(path, reference), MapSource.FITTED)
    except _OutdatedFit as exc:
        return UserMap(reference, MapSource.FITTED_OUTDATED, exc.reason + "; teach the board again")
    except BoardMapError as exc:
        return UserMap(reference, MapSource.FITTED_CORRUPT, exc.reason + "; teach the board again")


# -- parsing and validation -------------------------------------------------------------------------


def _parse_map(data: Any, source: str | None, slack_mm: float = 0.0) -> BoardMap:
    def fail(reason: str) -> BoardMapError:
        return BoardMapError(reason, source)

    if not isinstance(data, dict):
        raise fail(f"expected a JSON object at the top, got {type(data).__name__}")
    version = data.get("format_version")
    if version != FORMAT_VERSION:
        raise fail(f"format_version is {version!r}, expected {FORMAT_VERSION}")
    game = data.get("game")
    if not isinstance(game, str) or not _ID_RE.match(game):
        raise fail(f"'game' must be a lower-case id like 'eagle-kingdoms', got {game!r}")
    title = data.get("title", "")
    if not isinstance(title, str):
        raise fail("'title' must be a string")
    size = _vec(data.get("size_mm"), 2, "size_mm", fail)
    if min(size) <= 0:
        raise fail(f"size_mm must be positive, got {list(size)}")
    play = _parse_play_area(data, size, fail)
    dictionary = data.get("dictionary", DEFAULT_DICTIONARY)
    fiducials = _parse_fiducials(data.get("fiducials"), dictionary, fail)
    regions = _parse_regions(data.get("regions"), fail)
    area = play if play is not None else (0.0, 0.0, size[0], size[1])
    _check_play_area(area, regions, fiducials, _TOLERANCE_MM + slack_mm, fail)
    edges = _parse_edges(data.get("edges", []), {r.id for r in regions}, fail)
    lines = _parse_straight_lines(data.get("straight_lines_mm", []), size, fail)
    fitted = data.get("fitted")
    if fitted is not None and not isinstance(fitted, dict):
        raise fail("'fitted' must be an object")
    return BoardMap(
        game=game,
        size_mm=size,
        fiducials=tuple(fiducials),
        regions=tuple(regions),
        edges=tuple(edges),
        play_area_mm=play,
        dictionary=dictionary,
        title=title,
        fitted=fitted,
        straight_lines_mm=lines,
    )


MIN_STRAIGHT_LINE_MM = 50.0  # shorter lines bend too little under a lens to measure it


def _parse_straight_lines(raw: Any, size: tuple[float, ...], fail) -> tuple[tuple[float, float, float, float], ...]:
    if not isinstance(raw, list):
        raise fail("'straight_lines_mm' must be a list of [x0, y0, x1, y1]")
    lines = []
    for i, item in enumerate(raw):
        x0, y0, x1, y1 = _vec(item, 4, f"straight_lines_mm[{i}]", fail)
        if math.hypot(x1 - x0, y1 - y0) < MIN_STRAIGHT_LINE_MM:
            raise fail(f"straight_lines_mm[{i}] is shorter than {MIN_STRAIGHT_LINE_MM:g} mm")
        if not all(-_TOLERANCE_MM <= v <= lim + _TOLERANCE_MM for v, lim in ((x0, size[0]), (x1, size[0]), (y0, size[1]), (y1, size[1]))):
            raise fail(f"straight_lines_mm[{i}] {[x0, y0, x1, y1]} must lie on the board {size[0]:g} x {size[1]:g} mm")
        lines.append((x0, y0, x1, y1))
    return tuple(lines)


def _parse_play_area(data: dict, size: tuple[float, ...], fail) -> tuple[float, ...] | None:
    if data.get("play_area_mm") is None:
        return None
    w, h = size
    play = _vec(data["play_area_mm"], 4, "play_area_mm", fail)
    x0, y0, x1, y1 = play
    if not (0 - _TOLERANCE_MM <= x0 < x1 <= w + _TOLERANCE_MM and 0 - _TOLERANCE_MM <= y0 < y1 <= h + _TOLERANCE_MM):
        raise fail(f"play_area_mm {list(play)} must be [x0, y0, x1, y1] inside the board {w} x {h} mm")
    return play


def _parse_fiducials(raw_fids: Any, dictionary: Any, fail) -> list[Fiducial]:
    dict_size = _dictionary_size(dictionary)
    if dict_size is None:
        raise fail(f"unknown ArUco dictionary {dictionary!r} (use an OpenCV name such as {DEFAULT_DICTIONARY!r})")
    if not isinstance(raw_fids, list) or len(raw_fids) < 2:
        raise fail("'fiducials' must list at least 2 markers (4, one per corner, is the norm)")
    fiducials = [_parse_fiducial(raw, f"fiducials[{i}]", dictionary, dict_size, fail) for i, raw in enumerate(raw_fids)]
    ids = [f.id for f in fiducials]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise fail(f"fiducial ids used twice: {dup}")
    for a_i, a in enumerate(fiducials):
        for b in fiducials[a_i + 1 :]:
            if _boxes_overlap(_fid_box(a), _fid_box(b)):
                raise fail(f"fiducials {a.id} and {b.id} overlap")
    return fiducials


def _parse_fiducial(raw: Any, where: str, dictionary: Any, dict_size: int, fail) -> Fiducial:
    if not isinstance(raw, dict):
        raise fail(f"{where} must be an object")
    mid = raw.get("id")
    if not isinstance(mid, int) or isinstance(mid, bool) or not 0 <= mid < dict_size:
        raise fail(f"{where}.id must be an integer marker id in 0..{dict_size - 1} of {dictionary}, got {mid!r}")
    centre = _vec(raw.get("center_mm"), 2, f"{where}.center_mm", fail)
    side = _number(raw.get("side_mm"), f"{where}.side_mm", fail)
    if side <= 0:
        raise fail(f"{where}.side_mm must be positive, got {side}")
    return Fiducial(mid, centre, side)


def _parse_regions(raw_regions: Any, fail) -> list[Region]:
    if not isinstance(raw_regions, list):
        raise fail("'regions' must be a list")
    regions = [_parse_region(raw, f"regions[{i}]", fail) for i, raw in enumerate(raw_regions)]
    rids = [r.id for r in regions]
    dup_r = sorted({i for i in rids if rids.count(i) > 1})
    if dup_r:
        raise fail(f"region ids used twice: {dup_r}")
    return regions


def _check_play_area(area: tuple[float, ...], regions: list[Region], fiducials: list[Fiducial], tol: float, fail) -> None:
    """Regions lie inside the play area (within ``tol`` mm); markers lie outside it."""
    for r in regions:
        x0, y0, x1, y1 = r.bounds_mm()
        if x0 < area[0] - tol or y0 < area[1] - tol or x1 > area[2] + tol or y1 > area[3] + tol:
            raise fail(f"region {r.id!r} reaches outside the play area {list(area)} (its bounds: {[x0, y0, x1, y1]})")
    for f in fiducials:
        if _boxes_overlap(_fid_box(f), area):
            raise fail(f"fiducial {f.id} overlaps the play area {list(area)}; markers must sit outside it")


def _parse_edges(raw_edges: Any, known: set[str], fail) -> list[tuple[str, str]]:
    if not isinstance(raw_edges, list):
        raise fail("'edges' must be a list of [region_id, region_id] pairs")
    edges: list[tuple[str, str]] = []
    for i, e in enumerate(raw_edges):
        if not (isinstance(e, list) and len(e) == 2 and all(isinstance(x, str) for x in e)):
            raise fail(f"edges[{i}] must be a pair of region ids, got {e!r}")
        missing = [x for x in e if x not in known]
        if missing:
            raise fail(f"edges[{i}] names unknown region(s) {missing}")
        if e[0] == e[1]:
            raise fail(f"edges[{i}] joins region {e[0]!r} to itself")
        edges.append((e[0], e[1]))
    return edges


def _parse_region(raw: Any, where: str, fail) -> Region:
    if not isinstance(raw, dict):
        raise fail(f"{where} must be an object")
    rid = raw.get("id")
    if not isinstance(rid, str) or not rid:
        raise fail(f"{where}.id must be a non-empty string, got {rid!r}")
    where = f"region {rid!r}"
    kind = raw.get("kind")
    if not isinstance(kind, str) or not kind:
        raise fail(f"{where}: 'kind' must be a non-empty string")
    label = raw.get("label")
    if label is not None and not isinstance(label, str):
        raise fail(f"{where}: 'label' must be a string, got {label!r}")
    has_poly, has_circle = "polygon_mm" in raw, ("center_mm" in raw or "radius_mm" in raw)
    if has_poly == has_circle:
        raise fail(f"{where} needs exactly one of polygon_mm or center_mm + radius_mm")
    if has_poly:
        poly = raw["polygon_mm"]
        if not isinstance(poly, list) or len(poly) < 3:
            raise fail(f"{where}: polygon_mm needs at least 3 points")
        pts = tuple(_vec(p, 2, f"{where}.polygon_mm[{j}]", fail) for j, p in enumerate(poly))
        if abs(_polygon_area(np.asarray(pts))) < 1e-3:
            raise fail(f"{where}: polygon_mm has no area")
        return Region(rid, kind, polygon_mm=pts, label=label)
    centre = _vec(raw.get("center_mm"), 2, f"{where}.center_mm", fail)
    radius = _number(raw.get("radius_mm"), f"{where}.radius_mm", fail)
    if radius <= 0:
        raise fail(f"{where}: radius_mm must be positive, got {radius}")
    return Region(rid, kind, circle_center_mm=centre, radius_mm=radius, label=label)


def _number(value: Any, where: str, fail) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise fail(f"{where} must be a finite number, got {value!r}")
    return float(value)


def _vec(value: Any, n: int, where: str, fail) -> tuple[float, ...]:
    if not isinstance(value, list | tuple) or len(value) != n:
        raise fail(f"{where} must be a list of {n} numbers, got {value!r}")
    return tuple(_number(v, where, fail) for v in value)


def _dictionary_size(name: Any) -> int | None:
    import cv2

    if not isinstance(name, str) or not name.startswith("DICT_") or not hasattr(cv2.aruco, name):
        return None
    return int(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name)).bytesList.shape[0])


def _fid_box(f: Fiducial) -> tuple[float, float, float, float]:
    h = f.side_mm / 2
    return f.center_mm[0] - h, f.center_mm[1] - h, f.center_mm[0] + h, f.center_mm[1] + h


def _boxes_overlap(a: Iterable[float], b: Iterable[float]) -> bool:
    ax0, ay0, ax1, ay1 = a
    bx0, by0, bx1, by1 = b
    return (
        ax0 < bx1 - _TOLERANCE_MM
        and bx0 < ax1 - _TOLERANCE_MM
        and ay0 < by1 - _TOLERANCE_MM
        and by0 < ay1 - _TOLERANCE_MM
    )


def _polygon_area(pts: np.ndarray) -> float:
    x, y = pts[:, 0], pts[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def _polygon_centroid(pts: np.ndarray) -> tuple[float, float]:
    a = _polygon_area(pts)
    if abs(a) < 1e-9:
        return float(pts[:, 0].mean()), float(pts[:, 1].mean())
    x, y = pts[:, 0], pts[:, 1]
    cross = x * np.roll(y, -1) - np.roll(x, -1) * y
    cx = float(((x + np.roll(x, -1)) * cross).sum() / (6 * a))
    cy = float(((y + np.roll(y, -1)) * cross).sum() / (6 * a))
    return cx, cy


def _point_in_polygon(x: float, y: float, poly: Iterable[tuple[float, float]]) -> bool:
    pts = list(poly)
    inside = False
    j = len(pts) - 1
    for i in range(len(pts)):
        xi, yi = pts[i]
        xj, yj = pts[j]
        if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
            inside = not inside
        j = i
    return inside


def _round(v: float) -> float | int:
    r = round(float(v), 3)
    return int(r) if r == int(r) else r


def _round_list(vs: Iterable[float]) -> list[float | int]:
    return [_round(v) for v in vs]
