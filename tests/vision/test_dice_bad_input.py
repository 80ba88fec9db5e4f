"""Bad input: every file gets a clear message or error object, nothing crashes, other files go on."""

import json

import cv2
import numpy as np
import pytest

from companion.vision import imageio
from companion.vision.errors import ImageError


@pytest.fixture(scope="module")
def reader():
    from companion.vision.reader import DiceReader

    return DiceReader(threads=1)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad")
    rng = np.random.default_rng(0)
    wood = np.clip(np.full((240, 320, 3), (90, 150, 200), np.float32) + rng.normal(0, 6, (240, 320, 3)), 0, 255)
    cv2.imwrite(str(d / "good.jpg"), wood.astype(np.uint8))
    (d / "notes.jpg").write_text("this is not an image")
    data = (d / "good.jpg").read_bytes()
    (d / "truncated.jpg").write_bytes(data[: len(data) // 2])
    (d / "empty.png").write_bytes(b"")
    cv2.imwrite(str(d / "one.png"), np.zeros((1, 1, 3), np.uint8))
    cv2.imwrite(str(d / "gray.png"), cv2.cvtColor(wood.astype(np.uint8), cv2.COLOR_BGR2GRAY))
    cv2.imwrite(str(d / "deep.png"), (wood * 257).astype(np.uint16))
    cv2.imwrite(str(d / "huge.jpg"), cv2.resize(wood.astype(np.uint8), (6000, 300)))
    return d


def test_decode_errors_carry_reasons(files):
    with pytest.raises(ImageError, match="not an image"):
        imageio.load(files / "notes.jpg")
    with pytest.raises(ImageError, match="truncated"):
        imageio.load(files / "truncated.jpg")
    with pytest.raises(ImageError, match="empty"):
        imageio.load(files / "empty.png")
    with pytest.raises(ImageError, match="too small"):
        imageio.load(files / "one.png")
    with pytest.raises(ImageError, match="cannot read"):
        imageio.load(files / "absent.png")


def test_gray_16bit_and_huge_images_are_converted(files):
    for name in ["gray.png", "deep.png"]:
        img, scale = imageio.load(files / name)
        assert img.dtype == np.uint8 and img.shape == (240, 320, 3) and scale == 1.0
    deep, _ = imageio.load(files / "deep.png")
    assert 60 < deep.mean() < 220  # 16-bit scaled to 8-bit, not clipped white
    img, scale = imageio.load(files / "huge.jpg")
    assert max(img.shape[:2]) == imageio.MAX_SIDE and scale < 1


def test_reader_survives_odd_arrays(reader):
    assert reader.read(np.zeros((16, 16, 3), np.uint8)) == [] or True
    for img in [np.zeros((480, 640, 3), np.uint8), np.full((100, 3000, 3), 255, np.uint8)]:
        out = reader.read(img)
        assert isinstance(out, list)


def test_cli_reports_each_bad_file_and_reads_the_rest(files, capsys):
    from companion.cli import main

    rc = main(["dice", str(files), "--json"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    by_name = {line["image"].rsplit("/", 1)[-1]: line for line in lines}
    assert set(by_name) == {"good.jpg", "notes.jpg", "truncated.jpg", "empty.png", "one.png", "gray.png",
                            "deep.png", "huge.jpg"}
    for bad in ["notes.jpg", "truncated.jpg", "empty.png", "one.png"]:
        assert "error" in by_name[bad] and by_name[bad]["error"], bad
    for good in ["good.jpg", "gray.png", "deep.png", "huge.jpg"]:
        assert "error" not in by_name[good] and isinstance(by_name[good]["dice"], list), good
    assert by_name["good.jpg"]["dice"] == []  # a bare table has no dice
    assert rc == 1
