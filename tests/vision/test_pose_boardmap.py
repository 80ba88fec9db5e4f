"""Board-map format: loading, validation reasons, fitted per-user copies."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from companion.vision.boardmap import (
    BoardMap,
    BoardMapError,
    MapSource,
    fitted_map_path,
    load_board_map,
    load_user_map,
    save_fitted_map,
)
from companion.vision.errors import VisionError

FIXTURE = Path(__file__).parent / "pose_data" / "example_board.json"


@pytest.fixture
def raw() -> dict:
    return json.loads(FIXTURE.read_text())


def test_fixture_loads_with_both_region_kinds():
    board = load_board_map(FIXTURE)
    assert board.game == "example-track"
    assert board.size_mm == (400.0, 300.0)
    assert board.fiducial_ids == (0, 1, 2, 3)
    assert board.fiducial(2).corners_mm().tolist() == [[365, 265], [395, 265], [395, 295], [365, 295]]
    assert board.region("goal").center_mm == pytest.approx((305.0, 380 / 3))  # triangle centroid
    assert board.region_at(200, 215).id == "pool"
    assert board.region_at(90, 140).id == "start"
    assert board.region_at(5, 5) is None
    assert ("s2", "goal") in board.edges


def test_round_trip_through_dict_is_identical(raw):
    board = BoardMap.from_dict(raw)
    again = BoardMap.from_dict(json.loads(board.to_json()))
    assert again == board
    assert again.digest() == board.digest()


def test_straight_lines_round_trip_but_leave_the_digest_a_taught_box_is_keyed_by(raw):
    board = BoardMap.from_dict(raw)
    lined = BoardMap.from_dict({**raw, "straight_lines_mm": [[0, 0, 400, 0], [400, 0, 400, 300]]})
    assert lined.straight_lines_mm == ((0, 0, 400, 0), (400, 0, 400, 300))
    assert BoardMap.from_dict(json.loads(lined.to_json())) == lined
    assert lined.digest() == board.digest() and lined != board


def _set(data: dict, path: str, value) -> dict:
    data = copy.deepcopy(data)
    keys = path.split(".")
    node = data
    for k in keys[:-1]:
        node = node[int(k)] if k.isdigit() else node[k]
    last = keys[-1]
    if value is _DELETE:
        del node[int(last) if last.isdigit() else last]
    else:
        node[int(last) if last.isdigit() else last] = value
    return data


class _Delete:
    def __repr__(self) -> str:
        return "<deleted>"


_DELETE = _Delete()

BAD_MAPS = [
    ("format_version", 2, "format_version"),
    ("game", "Eagle Kingdoms", "lower-case id"),
    ("size_mm", [400], "size_mm must be a list of 2"),
    ("size_mm", [400, -1], "positive"),
    ("size_mm", [400, float("nan")], "finite number"),
    ("dictionary", "DICT_NOPE", "unknown ArUco dictionary"),
    ("fiducials", [{"id": 0, "center_mm": [20, 20], "side_mm": 30}], "at least 2"),
    ("fiducials.1.id", 0, "used twice"),
    ("fiducials.1.id", 50, "marker id in 0..49"),
    ("fiducials.1.id", True, "integer marker id"),
    ("fiducials.1.side_mm", 0, "positive"),
    ("fiducials.1.center_mm", [30, 20], "overlap"),
    ("fiducials.1.center_mm", [200, 60], "overlaps the play area"),
    ("regions.0.polygon_mm", [[60, 110], [120, 110]], "at least 3 points"),
    ("regions.0.polygon_mm", [[60, 110], [120, 110], [180, 110]], "no area"),
    ("regions.0.id", "s1", "region ids used twice"),
    ("regions.4.radius_mm", _DELETE, "finite number"),
    ("regions.4.center_mm", [200, 250], "outside the play area"),
    ("regions.0.center_mm", [1, 1], "exactly one of"),
    ("regions.0.kind", "", "'kind'"),
    ("edges.0", ["start", "nowhere"], "unknown region"),
    ("edges.0", ["start", "start"], "to itself"),
    ("play_area_mm", [50, 40, 450, 260], "inside the board"),
    ("straight_lines_mm", {"top": [0, 0, 400, 0]}, "must be a list"),
    ("straight_lines_mm", [[0, 0, 400]], "list of 4 numbers"),
    ("straight_lines_mm", [[0, 0, 30, 0]], "shorter than 50 mm"),
    ("straight_lines_mm", [[0, -40, 400, -40]], "must lie on the board"),
]


@pytest.mark.parametrize(("path", "value", "reason"), BAD_MAPS, ids=[f"{p}={v!r}" for p, v, _ in BAD_MAPS])
def test_inconsistent_map_is_refused_with_a_reason(raw, path, value, reason):
    with pytest.raises(BoardMapError) as info:
        BoardMap.from_dict(_set(raw, path, value), "test.json")
    assert reason in info.value.reason
    assert isinstance(info.value, VisionError)
    assert str(info.value).startswith("test.json: ")


@pytest.mark.parametrize(
    ("content", "reason"),
    [("{not json", "not valid JSON"), ("[1, 2]", "JSON object"), (b"\xff\xfe\x00", "cannot read"), (None, "not found")],
)
def test_corrupt_map_file_gives_a_clear_error(tmp_path, content, reason):
    path = tmp_path / "board.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    with pytest.raises(BoardMapError) as info:
        load_board_map(path)
    assert reason in info.value.reason
    assert info.value.source == str(path)


def _fitted_copy(board: BoardMap) -> BoardMap:
    from dataclasses import replace

    moved = tuple(r.translated(1.5, -2.0) for r in board.regions)
    return replace(board, regions=moved, fitted={"model": "translation", "corrections": 1})


def test_fitted_map_round_trip(tmp_path):
    reference = load_board_map(FIXTURE)
    assert load_user_map(reference, tmp_path).source is MapSource.REFERENCE
    assert load_user_map(reference, None).source is MapSource.REFERENCE
    fitted = _fitted_copy(reference)
    path = save_fitted_map(fitted, reference, tmp_path)
    assert path == fitted_map_path(tmp_path, "example-track")
    chosen = load_user_map(reference, tmp_path)
    assert chosen.source is MapSource.FITTED
    assert chosen.map == fitted
    assert chosen.map.region("s1").center_mm == pytest.approx((161.5, 138.0))
    assert json.loads(path.read_text())["version"] == 1


@pytest.mark.parametrize(
    "damage",
    ["truncate", "wrong_version", "bad_region", "other_game", "missing_region"],
)
def test_corrupt_fitted_map_falls_back_to_the_reference(tmp_path, damage):
    reference = load_board_map(FIXTURE)
    path = save_fitted_map(_fitted_copy(reference), reference, tmp_path)
    doc = json.loads(path.read_text())
    if damage == "truncate":
        path.write_text(path.read_text()[:100])
    else:
        if damage == "wrong_version":
            doc["version"] = 99
        elif damage == "bad_region":
            doc["map"]["regions"][0]["polygon_mm"] = "oops"
        elif damage == "other_game":
            doc["map"]["game"] = "other"
        elif damage == "missing_region":
            del doc["map"]["regions"][1]
        path.write_text(json.dumps(doc))
    chosen = load_user_map(reference, tmp_path)
    assert chosen.source is MapSource.FITTED_CORRUPT
    assert chosen.map is reference
    assert "teach the board again" in chosen.message


def test_fitted_map_for_an_older_reference_is_not_used(tmp_path, raw):
    reference = BoardMap.from_dict(raw)
    save_fitted_map(_fitted_copy(reference), reference, tmp_path)
    raw["regions"][0]["polygon_mm"][0] = [61, 110]  # the reference map changed since
    newer = BoardMap.from_dict(raw)
    chosen = load_user_map(newer, tmp_path)
    assert chosen.source is MapSource.FITTED_OUTDATED
    assert chosen.map is newer
