"""``companion bench board`` (companion.referee.bench): one JSON object, per-game numbers, errors kept apart."""

from __future__ import annotations

import json
import sys
import types

from companion.referee import bench


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
