"""Generate the board maps ``calibration/boards/<game>.json`` from each game's data files.

Usage::

    python -m companion.referee.boardmaps [--out calibration/boards] [--check] [GAME ...]

One function per game returns the map as a dict in the :mod:`companion.vision.boardmap` format
(validated with ``BoardMap.from_dict`` before it is written). Region ids are the rule engine's ids,
so a reading names the same pieces and spaces as the rules. Eagle Kingdoms is built here; the other
games' generators live in their own modules (``GENERATORS``: name -> "module:function"), and a
missing module is reported, never fatal. ``--check`` exits 1 when a committed map differs from what
the generator makes (CI).
"""

from __future__ import annotations

import argparse
import importlib
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from companion.data import bundled
from companion.vision.boardmap import BoardMap, BoardMapError

BOARDS_DIR = bundled("calibration", "boards")

GENERATORS: dict[str, str] = {
    "eagle-kingdoms": "companion.referee.boardmaps:eagle_kingdoms_map",
    "falconry": "companion.referee.falconry_map:build_map",
    "verzauberte-eulen": "companion.referee.verzauberte_eulen_map:verzauberte_eulen_map",
    "mighty-magpies": "companion.referee.mighty_magpies_map:mighty_magpies_map",
}


def corner_fiducials(w: float, h: float, outside_mm: float, side_mm: float) -> list[dict[str, Any]]:
    """Markers 0-3 at the board's corners, clockwise from the top left, their centres ``outside_mm``
    beyond both edges of each corner (negative: inside the board)."""
    o = outside_mm
    corners = [[-o, -o], [w + o, -o], [w + o, h + o], [-o, h + o]]
    return [{"id": k, "center_mm": c, "side_mm": side_mm} for k, c in enumerate(corners)]


def outline_lines(w: float, h: float) -> list[list[float]]:
    """The board's four sides as straight lines (``straight_lines_mm``): a board's cut edge stays
    straight however it is printed, so a wide lens's bend shows on it."""
    return [[0, 0, w, 0], [w, 0, w, h], [w, h, 0, h], [0, h, 0, 0]]


# -- Eagle Kingdoms ----------------------------------------------------------------------------------

EK_MARKER_SIDE_MM = 30.0
EK_MARKER_OUTSIDE_MM = 20.0  # marker centres 20 mm outside the template's corners (its print reaches the edge)
EK_PIECE_RADIUS_MM = 26.0  # a piece reaches at most this far from its centre
EK_SHIELD_RADIUS_MM = 48.0
EK_GAP_MM = 1.5  # cut between neighbouring pieces
EK_CIRCLE_SEGMENTS = 20


def eagle_kingdoms_map() -> dict[str, Any]:
    """The eagle puzzle on its 500 x 500 mm felt template.

    ``board.json`` gives each piece's centre only; the piece outlines are the Voronoi cells of those
    centres (cut ``EK_GAP_MM`` apart), each bounded by a disc around its centre, so neighbouring
    pieces meet along straight cuts like a puzzle and no region overlaps another. Four corner
    markers (ids 0-3) lie on the table 20 mm outside the template's corners. Edges join each piece
    to the pieces that lock it in.
    """
    from companion.games.eagle_kingdoms.rules import BOARD

    w, h = (float(v) for v in BOARD["template_mm"])
    pieces = BOARD["pieces"]
    centres = np.array([p["centre_mm"] for p in pieces], np.float64)
    regions = []
    for i, p in enumerate(pieces):
        shield = p["id"] == BOARD["shield"]
        radius = EK_SHIELD_RADIUS_MM if shield else EK_PIECE_RADIUS_MM
        poly = _cell(centres, i, radius, EK_GAP_MM, (1.0, 1.0, w - 1.0, h - 1.0))
        region = {"id": p["id"], "kind": "shield" if shield else "piece", "polygon_mm": [[round(x, 2), round(y, 2)] for x, y in poly]}
        if p.get("dice"):  # printed on the reference board, so a family without the box can play
            region["label"] = ":".join(str(v) for v in p["dice"])
        regions.append(region)
    return {
        "format_version": 1,
        "game": "eagle-kingdoms",
        "title": "Eagle Kingdoms: eagle puzzle on its felt template",
        "size_mm": [w, h],
        "play_area_mm": [0, 0, w, h],
        "dictionary": "DICT_4X4_50",
        "fiducials": corner_fiducials(w, h, EK_MARKER_OUTSIDE_MM, EK_MARKER_SIDE_MM),
        "regions": regions,
        "edges": [[p["id"], q] for p in pieces for q in p["locked_by"]],
        "straight_lines_mm": outline_lines(w, h),
    }


def _cell(centres: np.ndarray, i: int, radius: float, gap: float, box: tuple[float, float, float, float]) -> list[tuple[float, float]]:
    """Voronoi cell of centre ``i`` within a disc of ``radius``, shrunk by gap/2 from each bisector, clipped to ``box``."""
    c = centres[i]
    t = np.linspace(0, 2 * math.pi, EK_CIRCLE_SEGMENTS, endpoint=False)
    poly = [tuple(v) for v in c + radius * np.c_[np.cos(t), np.sin(t)]]
    for j, q in enumerate(centres):
        if j == i:
            continue
        n = q - c
        d = float(np.linalg.norm(n))
        if d > 2 * radius + gap:
            continue
        n = n / d
        limit = d / 2 - gap / 2  # keep points with (x - c) . n <= limit
        poly = _clip(poly, _within(c, n, limit))
    x0, y0, x1, y1 = box
    for f in (lambda x: x[0] - x0, lambda x: x1 - x[0], lambda x: x[1] - y0, lambda x: y1 - x[1]):
        poly = _clip(poly, f)
    return poly


def _within(c: np.ndarray, n: np.ndarray, limit: float) -> Callable[[Any], float]:
    """``x -> limit - (x - c) . n``: not negative on the side of the half-plane to keep."""
    return lambda x: limit - float(np.dot(np.asarray(x) - c, n))


def _clip(poly: list[tuple[float, float]], inside: Callable[[Any], float]) -> list[tuple[float, float]]:
    """Sutherland-Hodgman: keep the part of ``poly`` where ``inside(x) >= 0`` (a half-plane)."""
    out: list[tuple[float, float]] = []
    n = len(poly)
    for k in range(n):
        a, b = poly[k], poly[(k + 1) % n]
        fa, fb = inside(a), inside(b)
        if fa >= 0:
            out.append(a)
        if (fa >= 0) != (fb >= 0):
            s = fa / (fa - fb)
            out.append((a[0] + s * (b[0] - a[0]), a[1] + s * (b[1] - a[1])))
    return out


# -- driver -------------------------------------------------------------------------------------------


def load_generator(game: str) -> Callable[[], dict[str, Any]]:
    target = GENERATORS[game]
    module, _, func = target.partition(":")
    return getattr(importlib.import_module(module), func)


def generate(game: str) -> BoardMap:
    """The validated map of ``game`` (ImportError/AttributeError when its generator is missing)."""
    data = load_generator(game)()
    return BoardMap.from_dict(data, f"generated map of {game}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.referee.boardmaps", description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", help=f"default: all ({', '.join(GENERATORS)})")
    parser.add_argument("--out", default=str(BOARDS_DIR))
    parser.add_argument("--check", action="store_true", help="compare with the files instead of writing them")
    args = parser.parse_args(argv)
    games = args.games or list(GENERATORS)
    out = Path(args.out)
    status = 0
    for game in games:
        if game not in GENERATORS:
            print(f"error: unknown game {game!r}; choose from {', '.join(GENERATORS)}", file=sys.stderr)
            return 2
        try:
            board = generate(game)
        except (ImportError, AttributeError) as exc:
            print(f"{game}: skipped, no generator yet ({exc})")
            continue
        except BoardMapError as exc:
            print(f"{game}: the generated map is invalid: {exc}", file=sys.stderr)
            status = 1
            continue
        path = out / f"{game}.json"
        text = board.to_json()
        if args.check:
            current = path.read_text(encoding="utf-8") if path.exists() else None
            if current != text:
                print(f"{game}: {path} is out of date; run python -m companion.referee.boardmaps")
                status = 1
            else:
                print(f"{game}: {path} up to date")
            continue
        out.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"{game}: wrote {path} ({len(board.regions)} regions, {len(board.fiducials)} markers)")
    return status


if __name__ == "__main__":
    sys.exit(main())
