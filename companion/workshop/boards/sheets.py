"""Printable ArUco marker sheets and reference boards, as SVG (to scale, mm) and 300 dpi PNG.

Usage::

    python -m companion.workshop.boards.sheets OUTDIR [--board MAP.json ...] [--dpi 300]

writes ``corner-markers.svg/.png`` (ids 0-3, one per board corner, with cut lines, an orientation
arrow and a 100 mm scale bar), ``falconry-strip.svg/.png`` (ids 10-17 along a ruler, for
Falconry's open table) and, for each ``--board``, ``<game>-reference.svg`` (the board map printed to
scale: fiducials, region outlines and labels). The committed copies live in ``calibration/markers/``.

Both outputs come from one list of shapes in millimetres (:class:`Drawing`), so the PNG is the SVG
rasterised; the markers are drawn cell by cell from OpenCV's own dictionary (no embedded raster).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape

import cv2
import numpy as np

from companion.vision.boardmap import DEFAULT_DICTIONARY, BoardMap, BoardMapError, load_board_map
from companion.vision.markers import (
    CORNER_IDS,
    CORNER_NAMES,
    CORNER_SIDE_MM,
    MM_PER_INCH,
    PRINT_DPI,
    QUIET_MM,
    STRIP_PITCH_MM,
    STRIP_SIDE_MM,
    png_bytes,
    strip_layout,
)

A4_PORTRAIT = (210.0, 297.0)
A4_LANDSCAPE = (297.0, 210.0)


def aruco_dictionary(name: str = DEFAULT_DICTIONARY) -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))


def marker_bits(marker_id: int, dictionary: str = DEFAULT_DICTIONARY) -> np.ndarray:
    """Cells of one marker including its black border, True = white; shape (n + 2, n + 2)."""
    d = aruco_dictionary(dictionary)
    cells = d.markerSize + 2
    return cv2.aruco.generateImageMarker(d, marker_id, cells, borderBits=1) > 127


# -- a tiny vector drawing: shapes in mm, written as SVG or rasterised ---------------------------------


@dataclass
class Drawing:
    """Shapes in millimetres on a ``width_mm`` x ``height_mm`` page; y grows downwards."""

    width_mm: float
    height_mm: float
    items: list[tuple] = field(default_factory=list)

    def rect(
        self, x: float, y: float, w: float, h: float, *, fill: int | None = 0, stroke: float = 0.0, dash: float = 0.0
    ) -> None:
        self.items.append(("rect", x, y, w, h, fill, stroke, dash))

    def line(
        self, x0: float, y0: float, x1: float, y1: float, width: float = 0.3, dash: float = 0.0, gray: int = 0
    ) -> None:
        self.items.append(("line", x0, y0, x1, y1, width, dash, gray))

    def polygon(self, pts: Sequence[tuple[float, float]], width: float = 0.4, fill: int | None = None) -> None:
        self.items.append(("polygon", tuple((float(x), float(y)) for x, y in pts), width, fill))

    def circle(self, cx: float, cy: float, r: float, width: float = 0.4) -> None:
        self.items.append(("circle", cx, cy, r, width))

    def text(self, x: float, y: float, text: str, size: float = 4.0, anchor: str = "start") -> None:
        """``y`` is the baseline; ``size`` the cap height in mm."""
        self.items.append(("text", x, y, text, size, anchor))

    def marker(self, marker_id: int, x: float, y: float, side: float, dictionary: str = DEFAULT_DICTIONARY) -> None:
        """An ArUco marker whose black border square has its top-left corner at (x, y)."""
        self.items.append(("marker", marker_id, x, y, side, dictionary))

    # -- output ------------------------------------------------------------------------------------
    def to_svg(self) -> str:
        out = [
            '<?xml version="1.0" encoding="UTF-8"?>',
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{_f(self.width_mm)}mm" height="{_f(self.height_mm)}mm" '
            f'viewBox="0 0 {_f(self.width_mm)} {_f(self.height_mm)}">',
            f'<rect x="0" y="0" width="{_f(self.width_mm)}" height="{_f(self.height_mm)}" fill="#fff"/>',
        ]
        for item in self.items:
            kind = item[0]
            if kind == "rect":
                _, x, y, w, h, fill, stroke, dash = item
                style = f'fill="{_gray(fill)}"' if fill is not None else 'fill="none"'
                if stroke:
                    style += f' stroke="#000" stroke-width="{_f(stroke)}"' + _dash_attr(dash)
                out.append(f'<rect x="{_f(x)}" y="{_f(y)}" width="{_f(w)}" height="{_f(h)}" {style}/>')
            elif kind == "line":
                _, x0, y0, x1, y1, width, dash, gray = item
                out.append(
                    f'<line x1="{_f(x0)}" y1="{_f(y0)}" x2="{_f(x1)}" y2="{_f(y1)}" stroke="{_gray(gray)}" '
                    f'stroke-width="{_f(width)}"{_dash_attr(dash)}/>'
                )
            elif kind == "polygon":
                _, pts, width, fill = item
                points = " ".join(f"{_f(x)},{_f(y)}" for x, y in pts)
                fill_attr = _gray(fill) if fill is not None else "none"
                out.append(f'<polygon points="{points}" fill="{fill_attr}" stroke="#000" stroke-width="{_f(width)}"/>')
            elif kind == "circle":
                _, cx, cy, r, width = item
                out.append(
                    f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(r)}" fill="none" stroke="#000" stroke-width="{_f(width)}"/>'
                )
            elif kind == "text":
                _, x, y, text, size, anchor = item
                out.append(
                    f'<text x="{_f(x)}" y="{_f(y)}" font-family="Helvetica, Arial, sans-serif" '
                    f'font-size="{_f(size / 0.72)}" text-anchor="{anchor}">{escape(text)}</text>'
                )
            elif kind == "marker":
                _, mid, x, y, side, dictionary = item
                bits = marker_bits(mid, dictionary)
                cell = side / bits.shape[0]
                out.append(
                    f'<g class="aruco-marker" data-aruco-id="{mid}" data-dictionary="{dictionary}" '
                    f'data-side-mm="{_f(side)}" data-cells="{bits.shape[0]}">'
                )
                out.append(f'<rect x="{_f(x)}" y="{_f(y)}" width="{_f(side)}" height="{_f(side)}" fill="#fff"/>')
                for r in range(bits.shape[0]):
                    c = 0
                    while c < bits.shape[1]:  # one rect per horizontal run of black cells
                        if bits[r, c]:
                            c += 1
                            continue
                        start = c
                        while c < bits.shape[1] and not bits[r, c]:
                            c += 1
                        out.append(
                            f'<rect x="{_f(x + start * cell)}" y="{_f(y + r * cell)}" width="{_f((c - start) * cell)}" '
                            f'height="{_f(cell)}" fill="#000"/>'
                        )
                out.append("</g>")
        out.append("</svg>")
        return "\n".join(out) + "\n"

    def to_raster(self, px_per_mm: float) -> np.ndarray:
        """Grayscale uint8 image; pixel (i, j) covers mm [j / s, (j + 1) / s) x [i / s, (i + 1) / s)."""
        s = float(px_per_mm)
        img = np.full((round(self.height_mm * s), round(self.width_mm * s)), 255, np.uint8)
        for item in self.items:
            kind = item[0]
            if kind == "rect":
                _, x, y, w, h, fill, stroke, dash = item
                if fill is not None:
                    _fill_rect(img, x, y, w, h, s, fill)
                if stroke:
                    corners = [(x, y), (x + w, y), (x + w, y + h), (x, y + h), (x, y)]
                    for (ax, ay), (bx, by) in zip(corners, corners[1:], strict=False):
                        _line(img, ax, ay, bx, by, stroke, dash, 0, s)
            elif kind == "line":
                _, x0, y0, x1, y1, width, dash, gray = item
                _line(img, x0, y0, x1, y1, width, dash, gray, s)
            elif kind == "polygon":
                _, pts, width, fill = item
                arr = np.round((np.asarray(pts) * s - 0.5) * 16).astype(np.int32)
                if fill is not None:
                    cv2.fillPoly(img, [arr], int(fill), cv2.LINE_AA, shift=4)
                cv2.polylines(img, [arr], True, 0, max(1, round(width * s)), cv2.LINE_AA, shift=4)
            elif kind == "circle":
                _, cx, cy, r, width = item
                c = (round((cx * s - 0.5) * 16), round((cy * s - 0.5) * 16))
                cv2.circle(img, c, round(r * s * 16), 0, max(1, round(width * s)), cv2.LINE_AA, shift=4)
            elif kind == "text":
                _, x, y, text, size, anchor = item
                _text(img, x, y, text, size, anchor, s)
            elif kind == "marker":
                _, mid, x, y, side, dictionary = item
                bits = marker_bits(mid, dictionary)
                cell = side / bits.shape[0]
                _fill_rect(img, x, y, side, side, s, 255)
                for r, c in zip(*np.nonzero(~bits), strict=True):
                    _fill_rect(img, x + c * cell, y + r * cell, cell, cell, s, 0)
        return img

    def write(self, stem: Path, dpi: int = PRINT_DPI) -> list[Path]:
        """Write ``stem.svg`` and ``stem.png`` (``dpi`` recorded in the PNG)."""
        stem.parent.mkdir(parents=True, exist_ok=True)
        svg, png = stem.with_suffix(".svg"), stem.with_suffix(".png")
        svg.write_text(self.to_svg(), encoding="utf-8")
        png.write_bytes(png_bytes(self.to_raster(dpi / MM_PER_INCH), dpi))
        return [svg, png]


# -- sheets -----------------------------------------------------------------------------------------


def corner_sheet(side_mm: float = CORNER_SIDE_MM, dictionary: str = DEFAULT_DICTIONARY) -> Drawing:
    """Ids 0-3 on A4, each in a cut square (marker + 5 mm white margin) with its corner named."""
    d = Drawing(*A4_PORTRAIT)
    d.text(105, 16, "Board corner markers", 7, "middle")
    d.text(
        105,
        24,
        f"ArUco {dictionary}, ids 0-3, black square {_f(side_mm)} mm. Print at 100 % (no 'fit to page').",
        3,
        "middle",
    )
    box = side_mm + 2 * QUIET_MM
    cols = (35.0, 175.0 - box)
    rows = (45.0, 150.0)
    for k, mid in enumerate(CORNER_IDS):
        bx, by = cols[k in (1, 2)], rows[k in (2, 3)]
        d.rect(bx, by, box, box, fill=None, stroke=0.25, dash=2.0)  # cut line
        d.marker(mid, bx + QUIET_MM, by + QUIET_MM, side_mm, dictionary)
        tx = bx + box / 2
        d.text(tx, by + box + 8, f"id {mid}: board {CORNER_NAMES[k]} corner", 3.2, "middle")
        d.text(tx, by + box + 14, "cut on the dashed line; arrow to the board's top edge", 2.4, "middle")
        # orientation arrow above the cut square: the marker's top edge faces the board's top edge
        ax, ay = tx, by - 4
        d.polygon([(ax, ay - 5), (ax - 3, ay), (ax + 3, ay)], width=0.2, fill=0)
        d.text(ax + 5, ay - 1, "top", 2.4)
        # placement guide: the corner of the cut square that goes flush into the board's corner
        cx = bx if k in (0, 3) else bx + box
        cy = by if k in (0, 1) else by + box
        sx = 1 if k in (0, 3) else -1
        sy = 1 if k in (0, 1) else -1
        d.line(cx, cy, cx + sx * 12, cy, 0.8)
        d.line(cx, cy, cx, cy + sy * 12, 0.8)
    d.text(
        105,
        262,
        "Lay each square flush into its board corner (thick L), or outside it where the board map says.",
        2.8,
        "middle",
    )
    _scale_bar(d, 55, 275, 100)
    return d


def falconry_strip_sheet(
    side_mm: float = STRIP_SIDE_MM, pitch_mm: float = STRIP_PITCH_MM, dictionary: str = DEFAULT_DICTIONARY
) -> Drawing:
    """Ids 10-17 in a row above a millimetre ruler; cut out as one strip or two halves of four."""
    d = Drawing(*A4_LANDSCAPE)
    layout = strip_layout(side_mm, pitch_mm)
    span = layout[-1][1][0] + side_mm / 2
    x0 = (A4_LANDSCAPE[0] - span) / 2
    y0 = 45.0
    d.text(148.5, 16, "Falconry table strip", 7, "middle")
    d.text(
        148.5,
        24,
        f"ArUco {dictionary}, ids 10-17, black squares {_f(side_mm)} mm every {_f(pitch_mm)} mm. Print at 100 %.",
        3,
        "middle",
    )
    d.text(
        148.5,
        31,
        "Lay along one edge of the play area (or cut at the middle line: two strips on opposite edges).",
        2.8,
        "middle",
    )
    ruler_y = y0 + side_mm + QUIET_MM
    d.rect(
        x0 - QUIET_MM, y0 - QUIET_MM, span + 2 * QUIET_MM, side_mm + 2 * QUIET_MM + 16, fill=None, stroke=0.25, dash=2.0
    )
    for mid, (cx, cy) in layout:
        d.marker(mid, x0 + cx - side_mm / 2, y0 + cy - side_mm / 2, side_mm, dictionary)
        d.text(x0 + cx, y0 - QUIET_MM - 1.5, f"id {mid}", 2.4, "middle")
    mid_x = x0 + (layout[3][1][0] + layout[4][1][0]) / 2
    d.line(mid_x, y0 - QUIET_MM, mid_x, ruler_y + 16, 0.25, dash=2.0)
    for mm in range(int(span) + 1):  # ruler: 0 at marker 10's left edge
        tick = 6 if mm % 10 == 0 else (4 if mm % 5 == 0 else 2.5)
        d.line(x0 + mm, ruler_y, x0 + mm, ruler_y + tick, 0.15)
        if mm % 10 == 0:
            d.text(x0 + mm, ruler_y + 10, str(mm // 10), 2.0, "middle")
    d.text(x0 + span, ruler_y + 14.5, "cm", 2.0, "end")
    _scale_bar(d, 98.5, 160, 100)
    return d


def reference_board(board: BoardMap, margin_mm: float = 12.0, labels: bool = True) -> Drawing:
    """The board map drawn to scale: outline, play area, regions with ids, edges, fiducials.

    Drawing millimetres are board millimetres shifted by ``offset_mm()`` of the result (see
    :func:`reference_board_offset`), so the page also holds markers that sit outside the board.
    """
    ox, oy = reference_board_offset(board, margin_mm)
    x0, y0, x1, y1 = board.extent_mm()
    d = Drawing(x1 - x0 + 2 * margin_mm, y1 - y0 + 2 * margin_mm + (14 if labels else 0))
    w, h = board.size_mm
    d.rect(ox, oy, w, h, fill=None, stroke=0.5)
    if board.play_area_mm is not None:
        px0, py0, px1, py1 = board.play_area_mm
        d.rect(ox + px0, oy + py0, px1 - px0, py1 - py0, fill=None, stroke=0.25, dash=3.0)
    centres = {r.id: r.center_mm for r in board.regions}
    for a, b in board.edges:
        (ax, ay), (bx, by) = centres[a], centres[b]
        d.line(ox + ax, oy + ay, ox + bx, oy + by, 0.2, gray=150)
    for r in board.regions:
        if r.circle_center_mm is not None:
            d.circle(ox + r.circle_center_mm[0], oy + r.circle_center_mm[1], float(r.radius_mm or 0))
        else:
            d.polygon([(ox + x, oy + y) for x, y in r.polygon_mm or ()])
        if labels:
            bx0, by0, bx1, by1 = r.bounds_mm()
            size = max(1.2, min(4.0, (bx1 - bx0) / max(3, len(r.id)) * 0.9, (by1 - by0) * 0.3))
            cx, cy = r.center_mm
            d.text(ox + cx, oy + cy + size / 2, r.id, size, "middle")
            if r.label:
                d.text(ox + cx, oy + cy + size / 2 + 1.6 * size, r.label, size * 1.4, "middle")
    for f in board.fiducials:
        corner = f.corners_mm()[0]
        d.marker(f.id, ox + corner[0], oy + corner[1], f.side_mm, board.dictionary)
    if labels:
        title = board.title or board.game
        d.text(margin_mm, d.height_mm - 6, f"{title}: reference board, {_f(w)} x {_f(h)} mm, print at 100 %", 3)
        bar = min(100.0, 10 * int((d.width_mm - 2 * margin_mm) / 20))
        if bar >= 10:
            _scale_bar(d, d.width_mm - margin_mm - bar, d.height_mm - 13, bar, caption=False)
    return d


def reference_board_offset(board: BoardMap, margin_mm: float = 12.0) -> tuple[float, float]:
    """Where board (0, 0) lands in :func:`reference_board`'s drawing, in mm."""
    x0, y0, _, _ = board.extent_mm()
    return margin_mm - x0, margin_mm - y0


def reference_board_svg(board: BoardMap) -> str:
    return reference_board(board).to_svg()


def write_sheets(outdir: Path, boards: Sequence[BoardMap] = (), dpi: int = PRINT_DPI) -> list[Path]:
    outdir = Path(outdir)
    written = corner_sheet().write(outdir / "corner-markers", dpi)
    written += falconry_strip_sheet().write(outdir / "falconry-strip", dpi)
    for board in boards:
        path = outdir / f"{board.game}-reference.svg"
        path.write_text(reference_board_svg(board), encoding="utf-8")
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.workshop.boards.sheets", description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--board", action="append", default=[], help="a board map JSON: also write its reference board")
    parser.add_argument("--dpi", type=int, default=PRINT_DPI)
    args = parser.parse_args(argv)
    try:
        boards = [load_board_map(p) for p in args.board]
    except BoardMapError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for path in write_sheets(args.outdir, boards, args.dpi):
        print(path)
    return 0


# -- helpers ----------------------------------------------------------------------------------------


def _scale_bar(d: Drawing, x: float, y: float, length: float, caption: bool = True) -> None:
    d.line(x, y, x + length, y, 0.4)
    for mm in range(int(length) + 1):
        tick = 5 if mm % 10 == 0 else (3.5 if mm % 5 == 0 else 2)
        d.line(x + mm, y, x + mm, y - tick, 0.15)
    d.text(x, y + 5, "0", 2.4, "middle")
    d.text(x + length, y + 5, f"{_f(length)} mm", 2.4, "end")
    if caption:
        d.text(x + length / 2, y + 11, f"check the print: this bar must measure {_f(length)} mm", 2.8, "middle")


def _f(v: float) -> str:
    r = round(float(v), 3)
    return str(int(r)) if r == int(r) else f"{r:g}"


def _gray(v: int) -> str:
    v = int(v)
    return "#000" if v == 0 else ("#fff" if v == 255 else f"#{v:02x}{v:02x}{v:02x}")


def _dash_attr(dash: float) -> str:
    return f' stroke-dasharray="{_f(dash)} {_f(dash)}"' if dash else ""


def _fill_rect(img: np.ndarray, x: float, y: float, w: float, h: float, s: float, value: int) -> None:
    c0, r0 = max(0, round(x * s)), max(0, round(y * s))
    c1, r1 = min(img.shape[1], round((x + w) * s)), min(img.shape[0], round((y + h) * s))
    if c1 > c0 and r1 > r0:
        img[r0:r1, c0:c1] = value


def _line(
    img: np.ndarray, x0: float, y0: float, x1: float, y1: float, width: float, dash: float, gray: int, s: float
) -> None:
    thickness = max(1, round(width * s))
    segments = [(x0, y0, x1, y1)]
    if dash:
        length = float(np.hypot(x1 - x0, y1 - y0))
        n = max(1, int(length / (2 * dash)))
        segments = []
        for k in range(n + 1):
            a, b = 2 * k * dash / length, min(1.0, (2 * k + 1) * dash / length)
            if a >= 1:
                break
            segments.append((x0 + a * (x1 - x0), y0 + a * (y1 - y0), x0 + b * (x1 - x0), y0 + b * (y1 - y0)))
    for ax, ay, bx, by in segments:
        p = (round((ax * s - 0.5) * 16), round((ay * s - 0.5) * 16))
        q = (round((bx * s - 0.5) * 16), round((by * s - 0.5) * 16))
        cv2.line(img, p, q, int(gray), thickness, cv2.LINE_AA, shift=4)


def _text(img: np.ndarray, x: float, y: float, text: str, size: float, anchor: str, s: float) -> None:
    font = cv2.FONT_HERSHEY_SIMPLEX
    base_h = cv2.getTextSize("H", font, 1.0, 1)[0][1]
    scale = size * s / base_h
    thickness = max(1, round(scale * 1.6))
    (tw, _), _ = cv2.getTextSize(text, font, scale, thickness)
    px = x * s - {"start": 0, "middle": tw / 2, "end": tw}[anchor]
    cv2.putText(img, text, (round(px), round(y * s)), font, scale, 0, thickness, cv2.LINE_AA)


if __name__ == "__main__":
    sys.exit(main())
