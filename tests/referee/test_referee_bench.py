"""``companion bench board`` (companion.workshop.boards.bench): one JSON object, per-game numbers, errors kept apart."""

from __future__ import annotations

import json
import sys
import types

from companion.workshop.boards import bench


def test_bench_reports_each_game_and_tolerates_missing_ones(monkeypatch, capsys):
    fake = types.ModuleType("fake_eval")
    fake.evaluate = lambda scenes, seed: {"scenes": scenes, "per_space_error": 0.0, "board_exact": 1.0, "ms_median": 12.0, "failures": [1]}
    monkeypatch.setitem(sys.modules, "fake_eval", fake)
    monkeypatch.setattr(bench, "EVALUATORS", {"good": "fake_eval:evaluate", "absent": "no_such_module_here:evaluate"})
    assert bench.main(["--json", "--scenes", "3", "--pose-scenes", "0"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["good"] == {"scenes": 3, "per_space_error": 0.0, "board_exact": 1.0, "ms_median": 12.0, "seconds": report["good"]["seconds"]}
    assert "error" in report["absent"] and "no evaluator" in report["absent"]["error"]
    assert report["targets"]["board_exact_min"] == 0.97


def test_bench_fails_when_a_target_is_missed(monkeypatch, capsys):
    fake = types.ModuleType("fake_eval_slow")
    fake.evaluate = lambda scenes, seed: {"scenes": scenes, "per_space_error": 0.0, "board_exact": 1.0, "ms_median": 99.0}
    monkeypatch.setitem(sys.modules, "fake_eval_slow", fake)
    monkeypatch.setattr(bench, "EVALUATORS", {"slow": "fake_eval_slow:evaluate"})
    assert bench.main(["--scenes", "1", "--pose-scenes", "0"]) == 1
    assert "targets missed: slow" in capsys.readouterr().out
    assert bench.main(["--games", "chess"]) == 2


def test_eagle_kingdoms_and_kingdom_scan_evaluate_end_to_end(capsys):
    assert bench.main(["--json", "--scenes", "1", "--games", "eagle-kingdoms,kingdom-scan", "--pose-scenes", "1"]) in (0, 1)
    report = json.loads(capsys.readouterr().out)
    for game in ("eagle-kingdoms", "kingdom-scan"):
        assert "error" not in report[game], report[game]
        assert report[game]["scenes"] == 1 and {"per_space_error", "board_exact", "ms_median"} <= set(report[game])
    assert report["pose"]["board"] == "eagle-kingdoms" and report["pose"]["found_fraction"] == 1.0


def test_shared_loop_counts_judged_regions_and_paints_what_it_is_given():
    """Falconry's benchmark runs on the shared loop: errors are counted on the judged cells only (a
    refused frame costs all of them), exactness on the whole map, and the painter gets the paint scene."""
    from types import SimpleNamespace

    from companion.referee.falconry import board_map
    from companion.vision.readers import Observation
    from companion.workshop.boards.bench.evaluation import evaluate_reader

    board = board_map()
    card = [{"noble": "H", "kind": "bird", "covers": False}]
    states = [{"x0y0": card}, {"x0y0": card}, {"x0y0": card}]
    reads = iter([
        Observation({"x0y0": card}),  # exact
        Observation({"x0y0": card, "x4y3": card}, {"x1y0": 0.2}),  # judged x1y0 uncertain; x4y3 wrong, not judged
        Observation.unusable("hand"),
    ])
    reader = SimpleNamespace(reset=lambda: None, read=lambda image: next(reads))
    painted = []

    def render(board, scene, rng):
        painted.append(scene)
        return SimpleNamespace(image=None), None

    out = evaluate_reader(board, reader, states, lambda s: s, render, 3, 0,
                          paint_from_state=lambda s: {"painted": s}, judged=lambda truth: ["x0y0", "x1y0"])
    assert painted == [{"painted": s} for s in states]
    assert out["judged_regions"] == 6 and out["board_not_found"] == 1
    assert out["per_space_error"] == round(3 / 6, 5)  # x1y0 uncertain + the refused frame's two cells
    assert out["uncertain_fraction"] == round(1 / 6, 5) and out["silent_error"] == 0.0
    assert out["board_exact"] == round(1 / 3, 4)


def test_eagle_kingdoms_runs_on_the_shared_loop_with_a_cold_pose_per_frame():
    """Its reader takes the pose as an argument; ``PosedReader`` owns the tracker, and the shared loop's
    ``reset()`` must make every frame's pose a cold one (a still picture would otherwise be 'tracked')."""
    import numpy as np

    from companion.referee import eagle_kingdoms
    from companion.referee.boardmaps import BOARDS_DIR
    from companion.vision.boardmap import load_board_map
    from companion.vision.readers import Observation
    from companion.workshop.boards.bench import eagle_kingdoms as ek_bench
    from companion.workshop.boards.scenes.eagle_kingdoms import render

    board = load_board_map(BOARDS_DIR / "eagle-kingdoms.json")
    sources = []

    class Spy:
        def read(self, image, pose):
            sources.append(pose.source)
            return Observation.unusable("spy")

    posed = ek_bench.PosedReader(board, Spy())
    frame, _ = render(board, eagle_kingdoms.scene_from_state(ek_bench.sample_states(1, 0)[0]), np.random.default_rng(0))
    posed.read(frame.image)
    posed.read(frame.image)
    posed.reset()
    posed.read(frame.image)
    assert sources == ["markers", "tracked", "markers"]

    sources.clear()
    out = ek_bench.evaluate(2, 0, reader=Spy())
    assert sources == ["markers", "markers"]
    n = len(board.regions)
    assert out["judged_regions"] == 2 * n and out["board_not_found"] == 2 and out["per_space_error"] == 1.0
