"""The Eagle Kingdoms board map: generated from the game's data, committed, valid, engine ids."""

from __future__ import annotations

import json

import pytest

from companion.games.eagle_kingdoms.rules import BOARD, PIECE_IDS
from companion.referee import boardmaps
from companion.vision.boardmap import BoardMapError, MapSource, load_board_map, load_user_map

MAP = boardmaps.BOARDS_DIR / "eagle-kingdoms.json"


def test_committed_map_is_what_the_generator_makes():
    assert MAP.read_text(encoding="utf-8") == boardmaps.generate("eagle-kingdoms").to_json()


def test_regions_are_the_engine_pieces_and_do_not_overlap():
    board = load_board_map(MAP)
    assert [r.id for r in board.regions] == list(PIECE_IDS)
    assert board.fiducial_ids == (0, 1, 2, 3) and board.size_mm == (500.0, 500.0)
    for piece in BOARD["pieces"]:
        region = board.region(piece["id"])
        assert region.contains(*piece["centre_mm"]), piece["id"]
        others = [r.id for r in board.regions if r.id != piece["id"] and r.contains(*piece["centre_mm"])]
        assert not others, (piece["id"], others)
    # each piece is joined to the pieces that lock it in
    assert ("neck", "head-left") in board.edges


def test_generator_driver_tolerates_missing_game_modules(tmp_path, capsys):
    assert boardmaps.main(["--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert (tmp_path / "eagle-kingdoms.json").exists() and "eagle-kingdoms: wrote" in out
    assert boardmaps.main(["--check", "--out", str(tmp_path), "eagle-kingdoms"]) == 0
    assert boardmaps.main(["nonsense"]) == 2


def test_damaged_fitted_map_falls_back_to_the_reference_with_a_reason(tmp_path):
    reference = load_board_map(MAP)
    fitted = tmp_path / "boards" / "eagle-kingdoms.fitted.json"
    fitted.parent.mkdir(parents=True)
    fitted.write_text('{"format": "companion-fitted-board", "version": 1, "map": {"regions": [', encoding="utf-8")
    chosen = load_user_map(reference, tmp_path)
    assert chosen.source is MapSource.FITTED_CORRUPT and "teach the board again" in chosen.message
    assert chosen.map is reference


def test_damaged_reference_map_is_a_clear_error(tmp_path):
    bad = tmp_path / "eagle-kingdoms.json"
    data = json.loads(MAP.read_text(encoding="utf-8"))
    data["regions"][0]["polygon_mm"] = [[0, 0], [1, 1]]
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(BoardMapError, match="at least 3 points"):
        load_board_map(bad)
