"""Kingdom scan: a player's captured characters photographed on the table, read and scored."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.referee import kingdom_scan
from companion.referee.kingdom_scan import scan_kingdom, score_values
from companion.vision.readers.kingdom import KingdomReader
from companion.workshop.boards.bench.kingdom_scan import sample_kingdoms
from companion.workshop.boards.scenes.kingdom import render_kingdom


@pytest.fixture(scope="module")
def reader():
    return KingdomReader()


@pytest.mark.rules("EK-SCORE-1", "EK-SCORE-2")
def test_scoring_counts_values_and_every_complete_kingdom():
    full = list(range(1, 11))
    assert score_values(full) == (70, 1)
    assert score_values(full * 2 + ["jester"]) == (140, 2)
    assert score_values([10, 10, 9, "jester"]) == (29, 0)


def test_a_photographed_kingdom_is_read_and_scored(reader):
    labels = [3, 10, "jester", 1, 2, 4, 5, 6, 7, 8, 9, 10, 9]
    frame, _ = render_kingdom(labels, np.random.default_rng(4))
    result = scan_kingdom(frame, reader)
    assert result.final, result
    assert sorted(map(str, result.values)) == sorted(map(str, labels))
    assert (result.score, result.kingdoms) == score_values(labels) == (89, 1)


def test_kingdoms_from_simulated_games_are_read(reader):
    for k, labels in enumerate(sample_kingdoms(3, 9)):
        frame, _ = render_kingdom(labels, np.random.default_rng(50 + k))
        result = scan_kingdom(frame, reader)
        assert sorted(map(str, result.values)) == sorted(map(str, labels))


def test_unreadable_pictures_say_why(reader):
    assert "too dark" in scan_kingdom(np.full((720, 1280, 3), 10, np.uint8), reader).status
    assert "overexposed" in scan_kingdom(np.full((720, 1280, 3), 252, np.uint8), reader).status
    empty = scan_kingdom(np.full((720, 1280, 3), (45, 80, 120), np.uint8), reader)
    assert empty.status == "no character stands found" and not empty.final


def test_cli_prints_values_and_score(tmp_path, capsys):
    frame, _ = render_kingdom([10, 9, 8], np.random.default_rng(1))
    path = tmp_path / "kingdom.png"
    cv2.imwrite(str(path), frame)
    assert kingdom_scan.main([str(path)]) == 0
    out = capsys.readouterr().out
    assert "3 characters" in out and "score 27" in out
    assert kingdom_scan.main(["--json", str(tmp_path / "missing.png")]) == 1
    assert '"status": "cannot read the image: cannot read file: no such file or folder' in capsys.readouterr().out
