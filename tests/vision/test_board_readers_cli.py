"""The board readers' command line (``python -m companion.vision.readers.<game> IMAGE``): JSON out, no traceback."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion.referee.boardmaps import BOARDS_DIR
from companion.referee.mighty_magpies import scene_from_state
from companion.vision.boardmap import load_board_map
from companion.vision.readers import canonical, falconry, mighty_magpies, verzauberte_eulen
from companion.workshop.boards.bench.mighty_magpies import sample_states
from companion.workshop.boards.scenes.mighty_magpies import render

READERS = [falconry, mighty_magpies, verzauberte_eulen]


def test_a_rendered_frame_is_read_and_printed_as_one_json_observation(tmp_path, capsys):
    board = load_board_map(BOARDS_DIR / "mighty-magpies.json")
    scene = scene_from_state(sample_states(1, 5)[0])
    frame, truth = render(board, scene, np.random.default_rng(3))
    path = tmp_path / "frame.png"
    cv2.imwrite(str(path), frame.image)
    assert mighty_magpies.main([str(path)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["usable"] is True
    assert {r: canonical(v) for r, v in printed["regions"].items() if v} == {r: canonical(v) for r, v in truth.scene.items() if v}


@pytest.mark.parametrize("reader", READERS, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_bad_image_or_map_gives_a_json_reason_and_exit_2(reader, tmp_path, capsys):
    truncated = tmp_path / "cut.jpg"
    ok, jpeg = cv2.imencode(".jpg", np.full((64, 64, 3), 120, np.uint8))
    truncated.write_bytes(jpeg.tobytes()[:200])
    assert reader.main([str(truncated)]) == 2
    status = json.loads(capsys.readouterr().out)
    assert status["usable"] is False and "truncated" in status["status"]

    bad_map = tmp_path / "map.json"
    bad_map.write_text("{not json", encoding="utf-8")
    assert reader.main([str(truncated), "--map", str(bad_map)]) == 2
    status = json.loads(capsys.readouterr().out)
    assert status["usable"] is False and "map.json" in status["status"]


def test_a_frame_without_the_board_is_refused_with_exit_1(tmp_path, capsys):
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 90, np.uint8))
    assert verzauberte_eulen.main([str(blank)]) == 1
    assert json.loads(capsys.readouterr().out)["usable"] is False
