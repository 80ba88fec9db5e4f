"""Mighty Magpies observation -> turn matching, the set-up picture, and the tile scan's score."""

from __future__ import annotations

import random

import numpy as np
import pytest

from companion.games.mighty_magpies.board import BOARD
from companion.games.mighty_magpies.rules import MightyMagpies
from companion.referee import tile_scan
from companion.referee.match import MatchKind
from companion.referee.mighty_magpies import match_observation, scene_from_state, setup_from_observation
from companion.vision.readers import Observation, canonical
from companion.workshop.boards.bench.mighty_magpies import evaluate, sample_states


def key(scene):
    return tuple(sorted((r, canonical(p)) for r, p in scene.items() if p))


def moves(n=80, seed=3):
    return [s for s in sample_states(n, seed) if s.phase == "move"]


def unique_turn(state):
    scenes = []
    for a in state.legal_actions():
        child = state.clone()
        child.apply(a)
        scenes.append((a, scene_from_state(child)))
    for a, sc in scenes:
        if a["steps"] and sum(key(sc) == key(o) for _, o in scenes) == 1:
            return a, sc
    return None, None


def test_scene_shows_nests_and_magpies():
    for state in sample_states(10, 1):
        scene = scene_from_state(state)
        data = state.to_json()
        assert sum(1 for p in scene.values() for x in p if "tile" in x) == sum(len(t) for t in data["nests"].values())
        assert sum(1 for p in scene.values() for x in p if "magpie" in x) == len(data["magpies"])


def test_a_legal_turn_is_proposed():
    for state in moves():
        action, after = unique_turn(state)
        if action is None:
            continue
        result = match_observation(state, None, after)
        assert result.kind is MatchKind.PROPOSED, result.message
        assert result.action == action
        return
    pytest.fail("no state with a uniquely visible turn")


def test_a_turn_read_from_the_camera_is_proposed():
    from companion.referee.boardmaps import BOARDS_DIR
    from companion.vision.boardmap import load_board_map
    from companion.vision.readers.mighty_magpies import MagpiesReader
    from companion.workshop.boards.scenes.mighty_magpies import render

    board = load_board_map(BOARDS_DIR / "mighty-magpies.json")
    state = next(s for s in moves() if unique_turn(s)[0] is not None)
    action, after = unique_turn(state)
    frame, _ = render(board, after, np.random.default_rng(4))
    result = match_observation(state, None, MagpiesReader(board).read(frame.image))
    assert result.kind is MatchKind.PROPOSED and result.action == action, result.message


@pytest.mark.rules("MM-MOVE-1")
def test_a_flight_on_a_route_of_another_colour_is_illegal_and_named():
    for state in moves():
        me = state.player
        pos = BOARD.nest_ids[state.position(me)]
        rolled = {f for f in state.dice if f != "magpie"}
        for r, (a, b) in enumerate(BOARD.route_ends):
            colour = BOARD.colours[BOARD.route_colour[r]]
            if colour in rolled or BOARD.nest_ids[a] != pos and BOARD.nest_ids[b] != pos:
                continue
            dest = BOARD.nest_ids[b if BOARD.nest_ids[a] == pos else a]
            after = {n: list(p) for n, p in scene_from_state(state).items()}
            after[pos].remove({"magpie": ["red", "blue", "green", "yellow"][me]})
            after.setdefault(dest, []).append({"magpie": ["red", "blue", "green", "yellow"][me]})
            tiles = [p for p in after[dest] if "tile" in p]
            if tiles:
                after[dest].remove(tiles[0])
            result = match_observation(state, None, after)
            assert result.kind is MatchKind.ILLEGAL, result.message
            assert result.rule_id == "MM-MOVE-1" and colour in result.message
            return
    pytest.fail("no state found")


@pytest.mark.rules("MM-TAKE-4")
def test_flying_without_taking_is_illegal_and_named():
    for state in moves():
        for a in state.legal_actions():
            if len(a["steps"]) == 1 and a["steps"][0]["take"] is not None:
                child = state.clone()
                child.apply(a)
                after = scene_from_state(child)
                dest = next(n for n in BOARD.nest_ids if n != BOARD.nest_ids[state.position(state.player)] and canonical(after.get(n)) != canonical(scene_from_state(state).get(n)))
                after[dest].append({"tile": a["steps"][0]["take"]})  # the tile is still there
                result = match_observation(state, None, after)
                assert result.kind is MatchKind.ILLEGAL and result.rule_id == "MM-TAKE-4", result.message
                return
    pytest.fail("no state found")


@pytest.mark.rules("MM-SETUP-1", "MM-CONTENTS-1")
def test_the_setup_picture_gives_the_setup_action():
    game = MightyMagpies(players=["Ann", "Ben"])
    state = game.new_initial_state()
    setup = state.sample_chance(random.Random(1))
    child = state.clone()
    child.apply(setup)
    action, why = setup_from_observation(state, Observation(scene_from_state(child)))
    assert action == setup and why == ""
    scene = scene_from_state(child)
    scene["A"] = scene["A"][:-1]  # a tile missing
    action, why = setup_from_observation(state, Observation(scene))
    assert action is None and "MM-SETUP-1" in why
    # every tile lies in a nest at set-up: one nest read unsure, read as holding what the others leave, is that
    action, why = setup_from_observation(state, Observation(scene_from_state(child), {"B": 0.3}))
    assert action == setup and why == ""
    # ... but not when it is read as holding other tiles, nor when two nests are unsure
    swapped = scene_from_state(child)
    kinds = [t["tile"] for t in swapped["B"]]
    swapped["B"] = [{"tile": "gold" if kinds[0] != "gold" else "berry"}] + swapped["B"][1:]
    action, why = setup_from_observation(state, Observation(swapped, {"B": 0.3}))
    assert action is None and "B" in why
    action, why = setup_from_observation(state, Observation(scene_from_state(child), {"B": 0.3, "C": 0.3}))
    assert action is None and "B, C" in why


@pytest.mark.rules("MM-SCORE-1", "MM-SCORE-2", "MM-YOUNG-1")
def test_tile_scan_scores_by_the_ring_sets(tmp_path, capsys):
    import cv2

    from companion.workshop.boards.scenes.mighty_magpies import render_tiles

    assert tile_scan.score_counts({"berry": 4, "silver": 2, "gold": 3}) == 4 + 3 + 5
    assert tile_scan.score_counts({"berry": 4, "silver": 2, "gold": 3}, young=True) == 9
    path = tmp_path / "tiles.png"
    cv2.imwrite(str(path), render_tiles({"berry": 5, "silver": 1, "gold": 2}, np.random.default_rng(8)))
    assert tile_scan.main([str(path)]) == 0
    assert "9 points (5 berries, 1 silver rings, 2 gold rings)" in capsys.readouterr().out
    touching = tmp_path / "touching.png"
    cv2.imwrite(str(touching), render_tiles({"berry": 3}, np.random.default_rng(5), touching=True))
    assert tile_scan.main([str(touching), "--json"]) == 1
    assert '"points": null' in capsys.readouterr().out
    assert tile_scan.main([str(tmp_path / "missing.png")]) == 2


def test_evaluate_reports_the_benchmark_fields():
    out = evaluate(2, 0)
    assert {"scenes", "per_space_error", "board_exact", "ms_median"} <= set(out)
    assert out["scenes"] == 2 and out["per_space_error"] <= 0.05
