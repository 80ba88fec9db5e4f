"""``companion dice``: JSON shape, --annotate, --kinds, errors."""

import json

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.workshop.dice.synth import render_scene


@pytest.fixture(scope="module")
def scene_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("scenes")
    rng = np.random.default_rng(11)
    for i in range(2):
        s = render_scene(rng, 360, 480, n_dice=3, size_range=(60, 90), kinds=("d6",), allow_fingers=False,
                         effects=False)
        cv2.imwrite(str(d / f"scene{i}.png"), s.image)
    return d


def test_json_one_object_per_image(scene_files, tmp_path, capsys):
    rc = main(["dice", str(scene_files / "scene0.png"), str(scene_files / "scene1.png"), "--json",
               "--annotate", str(tmp_path / "ann"), "--kinds", "d6"])
    out = capsys.readouterr().out.splitlines()
    assert rc == 0 and len(out) == 2
    for line, name in zip(out, ["scene0.png", "scene1.png"], strict=True):
        obj = json.loads(line)
        assert set(obj) == {"image", "dice", "ms"} and obj["image"].endswith(name)
        assert obj["ms"] >= 0
        for d in obj["dice"]:
            assert set(d) == {"kind", "value", "confidence", "box", "uncertain"}
            assert d["kind"] == "d6" and d["value"] in range(1, 7)
            assert 0 <= d["confidence"] <= 1 and isinstance(d["uncertain"], bool)
            assert len(d["box"]) == 4 and all(isinstance(v, int) for v in d["box"])
        assert len(obj["dice"]) >= 2
    assert sorted(p.name for p in (tmp_path / "ann").iterdir()) == ["scene0.png", "scene1.png"]


def test_unknown_kind_is_a_usage_error(scene_files, capsys):
    assert main(["dice", str(scene_files), "--kinds", "d20"]) == 2
    assert "d20" in capsys.readouterr().err


def test_plain_text_output(scene_files, capsys):
    assert main(["dice", str(scene_files / "scene0.png")]) == 0
    assert "scene0.png:" in capsys.readouterr().out


def test_bench_dice_json_gives_accuracy_and_timings_with_the_motion_meter(capsys):
    assert main(["bench", "dice", "--scenes", "3", "--no-real", "--no-rolls", "--board-frames", "2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    boards = result["board_frames_without_dice"]
    assert boards["frames"] == 2 and 0 <= boards["sure_per_frame"] <= boards["finds_per_frame"]
    assert set(result["synthetic"]["per_kind"]) == {"d6", "d8", "magpie"}
    timings = [*result["ms_1280x720_one_thread"].values(), result["ms_640x640_25_dice_one_thread"],
               result["ms_motion_meter_1280x720"]]
    assert len(timings) == 5 and all(0 < t < 10_000 for t in timings)
