"""Mighty Magpies board map and reader on rendered frames of engine states, bad input, and the tile scan."""

from __future__ import annotations

import json

import numpy as np
import pytest

from companion.referee.boardmaps import BOARDS_DIR, generate
from companion.referee.mighty_magpies import scene_from_state
from companion.referee.mighty_magpies_map import mighty_magpies_map
from companion.vision.boardmap import load_board_map
from companion.vision.readers import canonical
from companion.vision.readers.mighty_magpies import MagpiesReader, nest_counts, scan_tiles
from companion.workshop.boards.bench.mighty_magpies import sample_states
from companion.workshop.boards.scenes.mighty_magpies import render, render_tiles
from companion.workshop.boards.synth_table import _table


@pytest.fixture(scope="module")
def board():
    return load_board_map(BOARDS_DIR / "mighty-magpies.json")


@pytest.fixture(scope="module")
def reader(board):
    return MagpiesReader(board)


def wrong(obs, scene):
    return sorted(r for r in {*scene, *obs.regions} if canonical(scene.get(r)) != canonical(obs.regions.get(r)))


def test_map_is_the_engines_board_and_up_to_date(board):
    from companion.games.mighty_magpies.board import DATA_FILE

    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    assert [r.id for r in board.regions] == [n["id"] for n in data["nests"]]
    assert [tuple(e) for e in board.edges] == [tuple(r["ends"]) for r in data["routes"]]
    assert board.fiducial_ids == (0, 1, 2, 3)
    assert generate("mighty-magpies").to_json() == (BOARDS_DIR / "mighty-magpies.json").read_text(encoding="utf-8")
    # the generator's dict carries the route colours (the board-map format has no edge attributes, so
    # the written file does not; the referee takes them from the engine)
    routes = mighty_magpies_map()["routes"]
    assert [(r["id"], r["colour"], r["ends"]) for r in routes] == [(r["id"], r["colour"], r["ends"]) for r in data["routes"]]


def test_reads_engine_states_exactly(board, reader):
    for k, state in enumerate(sample_states(4, 12)):
        scene = scene_from_state(state)
        frame, truth = render(board, scene, np.random.default_rng(500 + k))
        reader.reset()
        obs = reader.read(frame.image)
        assert obs.usable, obs.status
        assert wrong(obs, truth.scene) == [], k
        assert not obs.uncertain
        held = {n: "".join(ch * c for ch, c in zip("bsg", counts.values(), strict=True)) for n, counts in nest_counts(obs).items()}
        assert {n: t for n, t in held.items() if t} == {n: t for n, t in state.to_json()["nests"].items() if t}


def test_full_nests_and_four_magpies(board):
    scene = {r.id: [{"tile": k} for k in ("berry", "silver", "gold", "berry")] for r in board.regions}
    scene["R"] = [{"magpie": c} for c in ("red", "blue", "green", "yellow")]
    scene["A"] += [{"magpie": "yellow"}]
    frame, truth = render(board, scene, np.random.default_rng(9))
    obs = MagpiesReader(board).read(frame.image)
    assert obs.usable and wrong(obs, truth.scene) == []


def test_dark_frame_and_no_board_give_a_status_and_nothing(board):
    state = sample_states(1, 3)[0]
    frame, _ = render(board, scene_from_state(state), np.random.default_rng(1), gain=0.12)
    obs = MagpiesReader(board).read(frame.image)
    assert not obs.usable and "too dark" in obs.status and not obs.regions
    obs = MagpiesReader(board).read(_table(np.random.default_rng(2), 1280, 720))
    assert not obs.usable and obs.status.startswith("board pose:") and not obs.regions


def test_hand_over_the_board_gives_a_status_and_nothing(board):
    state = sample_states(1, 4)[0]
    for k, at in enumerate([(300.0, 215.0), (449.0, 150.0)]):
        frame, _ = render(board, scene_from_state(state), np.random.default_rng(60 + k), hand_at_mm=at)
        obs = MagpiesReader(board).read(frame.image)
        assert not obs.usable, k
        assert "covers the board" in obs.status or obs.status.startswith("board pose:")


def test_tile_scan_counts_the_tiles():
    for seed in range(6):
        rng = np.random.default_rng(seed)
        tiles = {"berry": int(rng.integers(0, 9)), "silver": int(rng.integers(0, 4)), "gold": int(rng.integers(0, 4))}
        scan = scan_tiles(render_tiles(tiles, rng))
        assert scan.usable, scan.status
        assert dict(scan.counts) == tiles, seed
        assert all((b.kind == "berry") != b.has_hole for b in scan.blobs)  # rings are told by their hole too


def test_tile_scan_refuses_touching_tiles_and_the_dark():
    image = render_tiles({"berry": 3, "gold": 2}, np.random.default_rng(5), touching=True)
    scan = scan_tiles(image)
    assert not scan.usable and "touching" in scan.status
    scan = scan_tiles((render_tiles({"berry": 2}, np.random.default_rng(6)) * 0.1).astype(np.uint8))
    assert not scan.usable and scan.status == "too dark"
    scan = scan_tiles(_table(np.random.default_rng(7), 1280, 720))
    assert scan.usable and sum(scan.counts.values()) == 0
