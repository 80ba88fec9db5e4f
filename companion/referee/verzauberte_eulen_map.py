"""Verzauberte Eulen's board map, built from the engine's ``board.json``.

Usage::

    python -m companion.referee.boardmaps verzauberte-eulen   # writes calibration/boards/verzauberte-eulen.json

The 500 x 500 mm board: every space of the engine is a region with the engine's id and kind
(``path``, ``crossing``, ``nest``, ``cave``); the edges are the engine's neighbour pairs. A region is
the area where an owl standing on that space is put down (``docs/vision-notes.md``):

- a path space (two owls) is a 36 x 50 mm rectangle across its path, the owls side by side across it;
- a crossing (two owls) is a 46 mm square, the owls on its top-left/bottom-right diagonal;
- a starting nest (its four owls) is a 50 mm square shifted 5 mm towards the board's corner;
- the cave (ruin) is an X: a 28 mm centre and the four pockets (50 mm squares) between the paths
  diagonally next to it, room for 17 owls.

Four corner markers (ids 0-3, 30 mm) lie on the table 20 mm outside the board's corners: the nests
fill the board's corners, so there is no room on the print.
"""

from __future__ import annotations

import json
from typing import Any

from companion.referee.boardmaps import corner_fiducials, outline_lines

MARKER_SIDE_MM = 30.0
MARKER_OUTSIDE_MM = 20.0  # as Eagle Kingdoms: 5 mm quiet zone to the board edge
PATH_ALONG_MM = 18.0  # half length of a path region along its path
PATH_ACROSS_MM = 25.0  # half width across the path (two owls of 12 mm radius, 13 mm off the line)
CROSSING_HALF_MM = 23.0
NEST_HALF_MM = 25.0
NEST_SHIFT_MM = 5.0  # towards the board corner
CAVE_POCKET_MM = 50.0  # pocket centres are this far from the cave, diagonally
CAVE_POCKET_HALF_MM = 25.0


def _rect(cx: float, cy: float, hx: float, hy: float) -> list[list[float]]:
    return [[cx - hx, cy - hy], [cx + hx, cy - hy], [cx + hx, cy + hy], [cx - hx, cy + hy]]


def _cave_polygon(cx: float, cy: float) -> list[list[float]]:
    """The X-shaped cave: the four diagonal pockets joined through a small centre (clockwise, y down)."""
    p, h = CAVE_POCKET_MM, CAVE_POCKET_HALF_MM
    a = p - h  # inner edge of a pocket (25 mm from the cave)
    d, n = 13.0, 28.0  # centre dip and notch start
    pts = [
        (-p - h, -p - h), (-a, -p - h), (-a, -n), (0, -d), (a, -n), (a, -p - h), (p + h, -p - h),
        (p + h, -a), (n, -a), (d, 0), (n, a), (p + h, a), (p + h, p + h), (a, p + h), (a, n), (0, d),
        (-a, n), (-a, p + h), (-p - h, p + h), (-p - h, a), (-n, a), (-d, 0), (-n, -a), (-p - h, -a),
    ]  # fmt: skip
    return [[cx + x, cy + y] for x, y in pts]


def verzauberte_eulen_map() -> dict[str, Any]:
    """The board map as a dict in the :mod:`companion.vision.boardmap` format."""
    from companion.games.verzauberte_eulen.board import HERE

    data = json.loads((HERE / "board.json").read_text(encoding="utf-8"))
    w, h = (float(v) for v in data["board_mm"])
    spaces = data["spaces"]
    pos = {s["id"]: (float(s["x_mm"]), float(s["y_mm"])) for s in spaces}
    regions = []
    for s in spaces:
        x, y = pos[s["id"]]
        kind = s["kind"]
        if kind == "path":
            (ax, ay), (bx, by) = (pos[n] for n in s["neighbours"])
            horizontal = abs(bx - ax) > abs(by - ay)
            hx, hy = (PATH_ALONG_MM, PATH_ACROSS_MM) if horizontal else (PATH_ACROSS_MM, PATH_ALONG_MM)
            poly = _rect(x, y, hx, hy)
        elif kind == "crossing":
            poly = _rect(x, y, CROSSING_HALF_MM, CROSSING_HALF_MM)
        elif kind == "nest":
            sx = -NEST_SHIFT_MM if x < w / 2 else NEST_SHIFT_MM
            sy = -NEST_SHIFT_MM if y < h / 2 else NEST_SHIFT_MM
            poly = _rect(x + sx, y + sy, NEST_HALF_MM, NEST_HALF_MM)
        elif kind == "cave":
            poly = _cave_polygon(x, y)
        else:
            raise ValueError(f"board.json: unknown space kind {kind!r} of {s['id']}")
        regions.append({"id": s["id"], "kind": kind, "polygon_mm": [[round(px, 2), round(py, 2)] for px, py in poly]})
    edges = sorted({tuple(sorted((s["id"], n))) for s in spaces for n in s["neighbours"]})
    return {
        "format_version": 1,
        "game": "verzauberte-eulen",
        "title": "Verzauberte Eulen: 5 x 5 crossings, nests in the corners, the cave in the middle",
        "size_mm": [w, h],
        "play_area_mm": [0, 0, w, h],
        "dictionary": "DICT_4X4_50",
        "fiducials": corner_fiducials(w, h, MARKER_OUTSIDE_MM, MARKER_SIDE_MM),
        "regions": regions,
        "edges": [list(e) for e in edges],
        "straight_lines_mm": outline_lines(w, h),
    }
