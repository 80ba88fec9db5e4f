"""Falconry's board map: an open table framed by two half-strips of ArUco markers.

Usage::

    python -m companion.referee.boardmaps falconry   # writes calibration/boards/falconry.json

Falconry has no board: cards are laid edge to edge on the table, on an unbounded grid of integer
cells. The map describes the part of the table the camera reads (the *play area*) as a grid of
``COLUMNS`` x ``ROWS`` card cells, framed by the Falconry strip cut in two halves: markers 10-13
along the far edge (y < play area), markers 14-17 along the near edge (y > play area), both read the
same way up and centred on the play area's middle column (``docs/vision-notes.md``).

Regions are the *nominal* card cells ``x{tx}y{ty}`` (kind ``cell``), in table cells: ``x0y0`` is
the middle cell, ``tx`` grows to the right and ``ty`` down the table, like the engine's ``(x, y)``.
Each polygon is the card (``CARD_MM``) centred in its cell (``PITCH_MM``); the gap between cards
is where a covered card peeks out. Real cards are laid by hand, so the reader does not trust the
nominal grid to the millimetre: it measures the grid's phase in every frame and reports cards by
the nominal cell they fall in; the referee keeps the translation from table cells to engine cells
(:mod:`companion.referee.falconry`).
"""

from __future__ import annotations

import re
from typing import Any

from companion.vision.markers import STRIP_IDS, STRIP_PITCH_MM, STRIP_SIDE_MM

CARD_MM = (63.0, 88.0)
"""A Falconry card (standard poker size, portrait): the rulebook gives no size; see docs/vision-notes.md."""
PITCH_MM = (75.0, 100.0)
"""Cell pitch: card plus a 12 mm gap (hand-laid cards are not edge to edge; covered cards peek into it)."""
COLUMNS, ROWS = 9, 7
MARGIN_MM = 10.0  # board edge to play area, left and right
STRIP_ZONE_MM = 45.0  # board edge to play area, far and near (a 25 mm marker, quiet zones, 7.5 mm spare)
CELL_RE = re.compile(r"^x(-?\d+)y(-?\d+)$")


def cell_id(tx: int, ty: int) -> str:
    return f"x{tx}y{ty}"


def parse_cell_id(region_id: str) -> tuple[int, int] | None:
    m = CELL_RE.match(region_id)
    return (int(m.group(1)), int(m.group(2))) if m else None


def table_range() -> tuple[range, range]:
    """Table cells of the map: tx in -(COLUMNS // 2)..COLUMNS // 2, likewise ty."""
    return range(-(COLUMNS // 2), COLUMNS - COLUMNS // 2), range(-(ROWS // 2), ROWS - ROWS // 2)


def play_area_mm() -> tuple[float, float, float, float]:
    x0, y0 = MARGIN_MM, STRIP_ZONE_MM
    return x0, y0, x0 + COLUMNS * PITCH_MM[0], y0 + ROWS * PITCH_MM[1]


def cell_centre_mm(tx: int, ty: int) -> tuple[float, float]:
    x0, y0, _, _ = play_area_mm()
    return x0 + (tx + COLUMNS // 2 + 0.5) * PITCH_MM[0], y0 + (ty + ROWS // 2 + 0.5) * PITCH_MM[1]


def build_map() -> dict[str, Any]:
    """The board map dict (boardmap.py format 1) for ``calibration/boards/falconry.json``."""
    x0, y0, x1, y1 = play_area_mm()
    width, height = x1 + MARGIN_MM, y1 + STRIP_ZONE_MM
    half = len(STRIP_IDS) // 2
    mid = (x0 + x1) / 2
    fiducials = []
    for k, marker_id in enumerate(STRIP_IDS):
        along = (k % half - (half - 1) / 2) * STRIP_PITCH_MM
        y = STRIP_ZONE_MM / 2 - 2.5 if k < half else y1 + STRIP_ZONE_MM / 2 + 2.5
        fiducials.append({"id": marker_id, "center_mm": [mid + along, y], "side_mm": STRIP_SIDE_MM})
    regions, edges = [], []
    xs, ys = table_range()
    cw, ch = CARD_MM
    for ty in ys:
        for tx in xs:
            cx, cy = cell_centre_mm(tx, ty)
            a, b, c, d = cx - cw / 2, cy - ch / 2, cx + cw / 2, cy + ch / 2
            regions.append({"id": cell_id(tx, ty), "kind": "cell", "polygon_mm": [[a, b], [c, b], [c, d], [a, d]]})
            if tx + 1 in xs:
                edges.append([cell_id(tx, ty), cell_id(tx + 1, ty)])
            if ty + 1 in ys:
                edges.append([cell_id(tx, ty), cell_id(tx, ty + 1)])
    return {
        "format_version": 1,
        "game": "falconry",
        "title": f"Falconry open table ({COLUMNS} x {ROWS} cells of {cw:g} x {ch:g} mm cards, pitch "
        f"{PITCH_MM[0]:g} x {PITCH_MM[1]:g} mm)",
        "size_mm": [width, height],
        "play_area_mm": [x0, y0, x1, y1],
        "dictionary": "DICT_4X4_50",
        "fiducials": fiducials,
        "regions": regions,
        "edges": edges,
    }
