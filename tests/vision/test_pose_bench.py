"""``companion bench board``: runs on a few scenes and reports accuracy and speed as JSON."""

from __future__ import annotations

import json

from companion.workshop.boards.bench import pose as bench_board


def test_bench_reports_accuracy_and_ms(capsys):
    assert bench_board.main(["--scenes", "2", "--repeat", "1", "--seed", "3"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["bench"] == "board" and report["frame"] == [1280, 720]
    assert report["found_fraction"] == 1.0
    assert report["corner_error_mm"]["max"] < 1.0
    assert report["pose_ms_median"] > 0 and report["tracked_ms_median"] > 0


def test_bench_fails_when_accuracy_is_not_met(capsys):
    assert bench_board.main(["--scenes", "1", "--repeat", "1", "--max-error-mm", "0"]) == 1
    assert bench_board.main(["--board", "/nonexistent.json"]) == 2
