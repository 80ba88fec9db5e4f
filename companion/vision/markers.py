"""The printed markers the family lays out: which ArUco ids, how big, where on the Falconry strip.

These are facts of the paper on the table, read by the board maps (:mod:`companion.referee.falconry_map`)
and the pose. The sheets themselves are drawn by the workshop (:mod:`companion.workshop.boards.sheets`);
:func:`png_bytes` is here because the camera calibration prints its ChArUco board with it too.
"""

from __future__ import annotations

import struct
import zlib

import cv2
import numpy as np

PRINT_DPI = 300
MM_PER_INCH = 25.4
CORNER_IDS = (0, 1, 2, 3)
CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")
CORNER_SIDE_MM = 30.0
QUIET_MM = 5.0  # white margin between a marker and its cut line
STRIP_IDS = tuple(range(10, 18))
STRIP_SIDE_MM = 25.0
STRIP_PITCH_MM = 35.0


def strip_layout(
    side_mm: float = STRIP_SIDE_MM, pitch_mm: float = STRIP_PITCH_MM
) -> list[tuple[int, tuple[float, float]]]:
    """(id, centre) of the Falconry strip's markers in strip millimetres (origin: marker 10's top-left)."""
    return [(mid, (side_mm / 2 + k * pitch_mm, side_mm / 2)) for k, mid in enumerate(STRIP_IDS)]


def png_bytes(image: np.ndarray, dpi: int) -> bytes:
    """PNG-encode ``image`` and record ``dpi`` in a pHYs chunk, so printers keep the scale."""
    ok, buf = cv2.imencode(".png", image, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    if not ok:
        raise RuntimeError("PNG encoding failed")
    data = buf.tobytes()
    ppm = round(dpi / MM_PER_INCH * 1000)
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    ihdr_end = 8 + 8 + 13 + 4  # signature, IHDR length+type, IHDR data, CRC
    return data[:ihdr_end] + chunk + data[ihdr_end:]
