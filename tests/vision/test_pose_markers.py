"""Printable marker sheets: the SVG holds OpenCV's bit patterns, the PNG re-detects at the right places."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision.boardmap import load_board_map
from companion.workshop.boards import sheets as markers

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).parent / "pose_data" / "example_board.json"
SVG_NS = {"s": "http://www.w3.org/2000/svg"}


def _svg_markers(svg_text: str) -> dict[int, np.ndarray]:
    """Read each marker group of an SVG back into a bit grid (True = white)."""
    root = ET.fromstring(svg_text)
    out = {}
    for g in root.iter("{http://www.w3.org/2000/svg}g"):
        if g.get("class") != "aruco-marker":
            continue
        n, side = int(g.get("data-cells")), float(g.get("data-side-mm"))
        rects = g.findall("s:rect", SVG_NS)
        x0, y0 = float(rects[0].get("x")), float(rects[0].get("y"))
        cell = side / n
        bits = np.ones((n, n), bool)
        for r in rects[1:]:
            assert r.get("fill") == "#000"
            c0 = round((float(r.get("x")) - x0) / cell)
            row = round((float(r.get("y")) - y0) / cell)
            bits[row, c0 : c0 + round(float(r.get("width")) / cell)] = False
        out[int(g.get("data-aruco-id"))] = bits
    return out


def _detect(image: np.ndarray) -> dict[int, np.ndarray]:
    detector = cv2.aruco.ArucoDetector(markers.aruco_dictionary())
    corners, ids, _ = detector.detectMarkers(image)
    return {} if ids is None else {int(i): c.reshape(4, 2) for c, i in zip(corners, ids.ravel(), strict=True)}


def test_marker_bits_are_opencvs():
    bits = markers.marker_bits(3)
    assert bits.shape == (6, 6)
    assert not bits[0].any() and not bits[:, 0].any()  # black border
    expected = cv2.aruco.generateImageMarker(markers.aruco_dictionary(), 3, 60) > 127
    assert np.array_equal(np.kron(bits, np.ones((10, 10), bool)), expected)


def test_corner_sheet_svg_is_to_scale_and_holds_the_bit_patterns():
    svg = markers.corner_sheet().to_svg()
    assert 'width="210mm" height="297mm" viewBox="0 0 210 297"' in svg
    assert "<image" not in svg  # vector only
    found = _svg_markers(svg)
    assert sorted(found) == [0, 1, 2, 3]
    for mid, bits in found.items():
        assert np.array_equal(bits, markers.marker_bits(mid)), mid
    assert "this bar must measure 100 mm" in svg


def test_corner_sheet_png_redetects_every_marker_where_the_svg_puts_it():
    dpi = 150  # the committed sheets are 300 dpi; half is enough here and twice as fast
    s = dpi / 25.4
    image = markers.corner_sheet().to_raster(s)
    found = _detect(image)
    assert sorted(found) == [0, 1, 2, 3]
    box = markers.CORNER_SIDE_MM + 2 * markers.QUIET_MM
    cols, rows = (35.0, 175.0 - box), (45.0, 150.0)
    for k, mid in enumerate(markers.CORNER_IDS):
        x = cols[k in (1, 2)] + markers.QUIET_MM
        y = rows[k in (2, 3)] + markers.QUIET_MM
        expected_tl = np.array([x, y]) * s - 0.5
        assert np.abs(found[mid][0] - expected_tl).max() < 1.5, mid
        side_mm = np.linalg.norm(found[mid][1] - found[mid][0]) / s
        assert side_mm == pytest.approx(markers.CORNER_SIDE_MM, abs=0.3)


def test_falconry_strip_holds_ids_10_to_17_at_their_pitch():
    sheet = markers.falconry_strip_sheet()
    assert sorted(_svg_markers(sheet.to_svg())) == list(range(10, 18))
    s = 150 / 25.4
    found = _detect(sheet.to_raster(s))
    assert sorted(found) == list(range(10, 18))
    centres = np.array([found[i].mean(axis=0) for i in range(10, 18)]) / s
    pitch = np.diff(centres[:, 0])
    assert pitch == pytest.approx([markers.STRIP_PITCH_MM] * 7, abs=0.3)
    assert np.ptp(centres[:, 1]) < 0.3  # in one row
    layout = markers.strip_layout()
    assert [i for i, _ in layout] == list(range(10, 18))


def test_png_records_300_dpi():
    data = markers.png_bytes(np.zeros((4, 4), np.uint8), 300)
    at = data.index(b"pHYs")
    ppm = int.from_bytes(data[at + 4 : at + 8], "big")
    assert ppm == round(300 / 25.4 * 1000)
    assert cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE).shape == (4, 4)


def test_reference_board_from_a_map():
    board = load_board_map(FIXTURE)
    drawing = markers.reference_board(board)
    svg = drawing.to_svg()
    for region in board.regions:
        assert f">{region.id}</text>" in svg
    assert svg.count("<circle") == 2 and svg.count("<polygon") == 4
    assert sorted(_svg_markers(svg)) == [0, 1, 2, 3]
    s = 4.0
    found = _detect(drawing.to_raster(s))
    ox, oy = markers.reference_board_offset(board)
    for f in board.fiducials:
        expected = (f.corners_mm() + (ox, oy)) * s - 0.5
        assert np.abs(found[f.id] - expected).max() < 1.0, f.id
    width = float(re.search(r'width="([\d.]+)mm"', svg).group(1))
    assert width == pytest.approx(400 + 2 * 12)


def test_cli_writes_the_sheets_and_the_committed_copies_are_current(tmp_path):
    assert markers.main([str(tmp_path), "--board", str(FIXTURE), "--dpi", "300"]) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [
        "corner-markers.png",
        "corner-markers.svg",
        "example-track-reference.svg",
        "falconry-strip.png",
        "falconry-strip.svg",
    ]
    committed = ROOT / "calibration" / "markers"
    for name in ("corner-markers", "falconry-strip"):
        assert (committed / f"{name}.svg").read_text() == (tmp_path / f"{name}.svg").read_text(), name
        ours = cv2.imread(str(tmp_path / f"{name}.png"), cv2.IMREAD_GRAYSCALE)
        theirs = cv2.imread(str(committed / f"{name}.png"), cv2.IMREAD_GRAYSCALE)
        assert theirs is not None and theirs.shape == ours.shape, name
        # text antialiasing may differ between OpenCV versions; the markers may not
        assert np.count_nonzero(cv2.absdiff(ours, theirs) > 64) < 0.002 * ours.size, name
        assert sorted(_detect(theirs)) == sorted(_detect(ours)), name
    assert markers.main([str(tmp_path), "--board", str(tmp_path / "missing.json")]) == 2
