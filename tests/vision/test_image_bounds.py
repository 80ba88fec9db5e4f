"""Bounded image input (issue 24): regular files only, the size checked from the header before decoding,
truncated files refused, every kind of picture converted, one answer per file, memory within the limit."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision import imageio
from companion.vision.errors import ImageError
from companion.workshop.robustness import image_cases, image_peaks, png_bytes

ROOT = Path(__file__).resolve().parents[2]


def cmyk_jpeg(c: int, m: int, y: int, k: int, side: int = 16) -> bytes:
    """A flat CMYK baseline JPEG (Adobe marker, no transform), written by hand: cv2 cannot write one."""
    dcs = [8 * (v - 128) for v in (c, m, y, k)]  # a flat block's DC coefficient (quantisation 1)
    cats = sorted({0} | {abs(d).bit_length() for d in dcs})
    codes = {cat: ((1 << (i + 1)) - 2, i + 1) for i, cat in enumerate(cats)}  # 0, 10, 110, ...: no all-ones code
    bits, nbits = 0, 0
    out = bytearray()

    def put(value: int, length: int) -> None:
        nonlocal bits, nbits
        bits, nbits = (bits << length) | (value & ((1 << length) - 1)), nbits + length
        while nbits >= 8:
            byte = (bits >> (nbits - 8)) & 0xFF
            out.append(byte)
            if byte == 0xFF:
                out.append(0)
            nbits -= 8

    for mcu in range((side // 8) ** 2):
        for d in dcs:
            diff = d if mcu == 0 else 0
            cat = abs(diff).bit_length()
            put(*codes[cat])
            if cat:
                put(diff if diff > 0 else diff - 1, cat)
            put(0, 1)  # end of block (the AC table's one code)
    if nbits:
        put((1 << (8 - nbits)) - 1, 8 - nbits)

    def segment(marker: int, body: bytes) -> bytes:
        return struct.pack(">HH", 0xFF00 | marker, len(body) + 2) + body

    dc_bits = bytes(1 if n <= len(cats) else 0 for n in range(1, 17))
    return (b"\xff\xd8" + segment(0xEE, b"Adobe" + struct.pack(">HHHB", 100, 0, 0, 0))
            + segment(0xDB, b"\x00" + b"\x01" * 64)
            + segment(0xC0, struct.pack(">BHHB", 8, side, side, 4) + b"".join(bytes([i, 0x11, 0]) for i in range(1, 5)))
            + segment(0xC4, b"\x00" + dc_bits + bytes(cats))
            + segment(0xC4, b"\x10" + b"\x01" + b"\x00" * 15 + b"\x00")
            + segment(0xDA, b"\x04" + b"".join(bytes([i, 0]) for i in range(1, 5)) + b"\x00\x3f\x00")
            + bytes(out) + b"\xff\xd9")


@pytest.fixture(scope="module")
def pictures(tmp_path_factory):
    d = tmp_path_factory.mktemp("pictures")
    y, x = np.mgrid[0:48, 0:64]
    base = np.dstack([40 + 2 * x, 60 + 3 * y, 120 + x + y]).astype(np.uint8)  # smooth: lossy formats keep it
    cv2.imwrite(str(d / "colour.png"), base)
    cv2.imwrite(str(d / "grey.png"), cv2.cvtColor(base, cv2.COLOR_BGR2GRAY))
    cv2.imwrite(str(d / "alpha.png"), cv2.cvtColor(base, cv2.COLOR_BGR2BGRA))
    cv2.imwrite(str(d / "deep.png"), base.astype(np.uint16) * 257)
    cv2.imwrite(str(d / "deep-alpha.png"), cv2.cvtColor(base, cv2.COLOR_BGR2BGRA).astype(np.uint16) * 257)
    cv2.imwrite(str(d / "deep.tif"), base.astype(np.uint16) * 257)
    cv2.imwrite(str(d / "colour.bmp"), base)
    cv2.imwrite(str(d / "colour.webp"), base)
    cv2.imwrite(str(d / "colour.jpg"), base)
    (d / "cyan.jpg").write_bytes(cmyk_jpeg(0, 255, 255, 255))  # Adobe's inverted ink: 0 is full ink
    (d / "white.jpg").write_bytes(cmyk_jpeg(255, 255, 255, 255))
    return d


@pytest.mark.parametrize("name", ["colour.png", "grey.png", "alpha.png", "deep.png", "deep-alpha.png", "deep.tif",
                                  "colour.bmp", "colour.webp", "colour.jpg"])
def test_every_kind_of_picture_becomes_8_bit_bgr(pictures, name):
    img, scale = imageio.load(pictures / name)
    assert img.dtype == np.uint8 and img.shape == (48, 64, 3) and scale == 1.0
    reference, _ = imageio.load(pictures / "colour.png")
    if name.startswith("grey"):
        reference = cv2.cvtColor(cv2.cvtColor(reference, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    tolerance = 12 if name.endswith((".jpg", ".webp")) else 1
    assert np.abs(img.astype(int) - reference.astype(int)).mean() <= tolerance  # 16-bit scaled, not clipped


def test_cmyk_jpegs_are_converted(pictures):
    cyan, _ = imageio.load(pictures / "cyan.jpg")
    white, _ = imageio.load(pictures / "white.jpg")
    assert cyan.shape == white.shape == (16, 16, 3) and cyan.dtype == np.uint8
    assert cyan.reshape(-1, 3).std(0).max() == 0 and white.reshape(-1, 3).std(0).max() == 0  # flat stays flat
    blue, green, red = cyan[0, 0]
    assert blue > 200 and green > 200 and red < 50  # cyan ink: blue and green light, no red
    assert white.min() > 200


def test_a_phone_picture_stored_on_its_side_is_turned_as_its_exif_orientation_says():
    """A phone held upright stores a landscape JPEG with EXIF orientation 6 ("turn 90 degrees clockwise"); the dice
    reader takes the top of the picture for up, so the picture is read as the phone showed it."""
    img = np.zeros((100, 200, 3), np.uint8)
    img[:, :50] = (0, 0, 255)  # the stored picture's left quarter is red
    data = cv2.imencode(".jpg", img)[1].tobytes()
    tiff = b"MM\x00\x2a" + struct.pack(">IH", 8, 1) + struct.pack(">HHIHH", 0x112, 3, 1, 6, 0) + struct.pack(">I", 0)
    app1 = b"Exif\x00\x00" + tiff
    turned = data[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + data[2:]
    upright, scale = imageio.decode(turned)
    assert upright.shape == (200, 100, 3) and scale == 1.0
    assert upright[:40, :, 2].mean() > 200 and upright[-40:, :, 2].mean() < 50  # the red quarter is on top
    assert imageio.decode(data)[0].shape == (100, 200, 3)  # without the tag, as stored


def test_the_size_is_checked_from_the_header_before_decoding(tmp_path, monkeypatch):
    decoded = []
    monkeypatch.setattr(cv2, "imdecode", lambda *a: decoded.append(a) or None)
    lie = tmp_path / "lie.png"
    lie.write_bytes(png_bytes(100_000, 100_000, rows=b"x"))
    with pytest.raises(ImageError, match="image too big: 100000x100000 is 10000 megapixels; the limit is 50"):
        imageio.load(lie)
    one = tmp_path / "one.png"
    one.write_bytes(png_bytes(1, 1))
    with pytest.raises(ImageError, match="too small"):
        imageio.load(one)
    assert decoded == []


@pytest.mark.parametrize("make, reason", [
    (lambda b: b["colour.jpg"][: len(b["colour.jpg"]) // 2], "truncated JPEG"),
    (lambda b: b["colour.jpg"][:200], "truncated JPEG"),
    (lambda b: b["colour.png"][:-12], "truncated PNG"),
    (lambda b: b["colour.bmp"][:-100], "truncated BMP"),
    (lambda b: b["colour.webp"][:-10], "truncated WebP"),
    (lambda b: b["colour.png"][:20], "damaged image header"),
    (lambda b: b"GIF89a" + b"\0" * 20, "not an image"),
    (lambda b: b"", "empty file"),
])
def test_truncated_and_unknown_files_are_refused(pictures, tmp_path, make, reason):
    data = {name: (pictures / name).read_bytes() for name in ("colour.jpg", "colour.png", "colour.bmp", "colour.webp")}
    path = tmp_path / "bad"
    path.write_bytes(make(data))
    with pytest.raises(ImageError, match=reason):
        imageio.load(path)


def test_only_regular_files_are_read(tmp_path):
    os.mkfifo(tmp_path / "pipe.png")
    with pytest.raises(ImageError, match="not a regular file"):
        imageio.load(tmp_path / "pipe.png")  # refused at once, never waited on
    with pytest.raises(ImageError, match="is a folder"):
        imageio.load(tmp_path)
    with pytest.raises(ImageError, match="not a regular file"):
        imageio.load("/dev/zero")


def test_peak_memory_stays_small_on_lying_and_odd_files(tmp_path):
    peaks = image_peaks(image_cases(tmp_path, big=False), timeout=60)
    assert set(peaks) >= {"lying-header-100000x100000.png", "one-pixel.png", "truncated.jpg", "pipe.png"}
    for name, result in peaks.items():
        assert result["answer"].startswith("refused: "), (name, result)
        assert result["peak_mb"] < 400, (name, result)


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)


@pytest.mark.slow
def test_each_file_gets_one_answer_and_the_batch_goes_on(pictures, tmp_path):
    for name, data in {"lie.png": png_bytes(100_000, 100_000, rows=b"x"), "one.png": png_bytes(1, 1),
                       "cut.jpg": (pictures / "colour.jpg").read_bytes()[:300]}.items():
        (tmp_path / name).write_bytes(data)
    os.mkfifo(tmp_path / "pipe.png")
    files = [str(tmp_path / n) for n in ("lie.png", "one.png", "pipe.png", "cut.jpg")] + [str(pictures / "colour.png")]
    for command in (["scan-kingdom", "--json"], ["scan-tiles", "--json"], ["dice", "--json"]):
        done = _run(*command, *files)
        answers = [json.loads(line) for line in done.stdout.splitlines()]
        assert [a["image"] for a in answers] == files, (command, done.stderr)
        assert "Traceback" not in done.stderr
        reasons = [a.get("error") or a.get("status") for a in answers]
        assert "too big" in reasons[0] and "too small" in reasons[1] and "not a regular file" in reasons[2]
        assert "truncated JPEG" in reasons[3], command
        assert done.returncode in (1, 2)


def test_dice_annotate_into_a_file_is_one_plain_line(tmp_path, pictures, capsys):
    from companion.cli import main

    (tmp_path / "taken").write_text("a file")
    assert main(["dice", str(pictures / "colour.png"), "--annotate", str(tmp_path / "taken")]) == 2
    err = capsys.readouterr().err.strip()
    assert "that is a file; give a folder" in err and len(err.splitlines()) == 1
