"""companion read-board: one JSON line per picture, every picture answered, none a crash (issue 20, item 6)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.referee.table_games import table_game


def rendered(game, scene, path, seed=0):
    import importlib

    module = importlib.import_module(f"companion.workshop.boards.scenes.{game.replace('-', '_')}")
    shot, truth = module.render(table_game(game).board_map(), scene, np.random.default_rng(seed))
    cv2.imwrite(str(path), shot.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return truth


@pytest.mark.parametrize("game", ["mighty-magpies", "verzauberte-eulen"])
def test_each_picture_gets_one_json_line_and_bad_files_are_refused_with_a_reason(game, tmp_path, capsys):
    module = __import__(f"companion.games.{game.replace('-', '_')}", fromlist=["x"])
    state = (module.MightyMagpies if game == "mighty-magpies" else module.VerzauberteEulen)(players=["A", "B"]).new_initial_state()
    if state.is_chance_node() and not state.chance_request().dice:  # Mighty Magpies: lay the tiles out first
        import random

        state.apply(state.sample_chance(random.Random(1)))
    scene = table_game(game).adapter().scene_from_state(state)
    good = tmp_path / "board.jpg"
    truth = rendered(game, scene, good)
    empty = tmp_path / "table.png"
    cv2.imwrite(str(empty), np.full((360, 640, 3), 90, np.uint8))
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"\xff\xd8\xff\xe0 not a whole jpeg")
    code = main(["read-board", game, str(good), str(empty), str(broken), str(tmp_path / "missing.png"), "--json"])
    lines = [json.loads(line) for line in capsys.readouterr().out.strip().splitlines()]
    assert code == 1 and [r["image"] for r in lines] == [str(good), str(empty), str(broken), str(tmp_path / "missing.png")]
    ok = lines[0]
    assert ok["status"] == "ok" and ok["reason"] == "" and ok["ms"] > 0
    read = {k: sorted(json.dumps(p, sort_keys=True) for p in v) for k, v in ok["observation"]["regions"].items()}
    assert read == {k: sorted(json.dumps(p, sort_keys=True) for p in v) for k, v in truth.scene.items() if v}
    assert lines[1]["status"] == "refused" and "board" in lines[1]["reason"]
    for bad in lines[2:]:
        assert bad["status"] == "refused" and bad["reason"] and bad["observation"] is None


def test_an_unknown_game_or_a_bad_map_is_a_usage_error(tmp_path, capsys):
    assert main(["read-board", "chess", str(tmp_path / "x.png"), "--json"]) == 2
    bad_map = tmp_path / "map.json"
    bad_map.write_text("{not json")
    assert main(["read-board", "falconry", str(tmp_path / "x.png"), "--map", str(bad_map), "--json"]) == 2
    assert "map" in capsys.readouterr().err
