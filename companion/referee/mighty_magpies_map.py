"""Mighty Magpies' board map, built from the engine's ``board.json``.

Usage::

    python -m companion.referee.boardmaps mighty-magpies   # writes calibration/boards/mighty-magpies.json

The 600 x 430 mm board: one circular region per nest (id ``R``, ``A``-``G`` as in the engine, kind
``start-nest`` or ``nest``), 38 mm in radius -- the nest at the top edge leaves no more room. A nest
holds its tiles in the middle and up to four magpies around them
(``docs/vision-notes.md``). Edges are the routes as nest pairs; because the board-map
format has no edge attributes, the routes with their ids and colours are also listed under the
extra key ``"routes"`` (the loader ignores it). The four corner markers (ids 0-3, 30 mm) sit in the
board's empty corners, inside the print: the play area is the band between them.
"""

from __future__ import annotations

import json
from typing import Any

from companion.referee.boardmaps import corner_fiducials, outline_lines

MARKER_SIDE_MM = 30.0
MARKER_INSET_MM = 25.0  # marker centres this far in from both edges of a board corner
NEST_RADIUS_MM = 38.0


def mighty_magpies_map() -> dict[str, Any]:
    """The board map as a dict in the :mod:`companion.vision.boardmap` format."""
    from companion.games.mighty_magpies.board import DATA_FILE

    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    w, h = float(data["board_mm"]["width"]), float(data["board_mm"]["height"])
    start = data["start_nest"]
    regions = [
        {
            "id": n["id"],
            "kind": "start-nest" if n["id"] == start else "nest",
            "center_mm": [float(n["x_mm"]), float(n["y_mm"])],
            "radius_mm": NEST_RADIUS_MM,
        }
        for n in data["nests"]
    ]
    margin = MARKER_INSET_MM + MARKER_SIDE_MM / 2 + 5.0  # a marker plus its 5 mm quiet zone
    return {
        "format_version": 1,
        "game": "mighty-magpies",
        "title": "Mighty Magpies: the red nest and seven nests joined by coloured routes",
        "size_mm": [w, h],
        "play_area_mm": [margin, 0, w - margin, h],
        "dictionary": "DICT_4X4_50",
        "fiducials": corner_fiducials(w, h, -MARKER_INSET_MM, MARKER_SIDE_MM),
        "regions": regions,
        "edges": [list(r["ends"]) for r in data["routes"]],
        "straight_lines_mm": outline_lines(w, h),
        "routes": [{"id": r["id"], "colour": r["colour"], "ends": list(r["ends"])} for r in data["routes"]],
    }
