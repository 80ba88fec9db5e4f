"""The printable reference boards in calibration/reference-boards/ are drawn from the current maps."""

from pathlib import Path

import pytest

from companion.vision.boardmap import load_board_map
from companion.workshop.boards.sheets import reference_board_svg

ROOT = Path(__file__).resolve().parents[2]
GAMES = ["eagle-kingdoms", "falconry", "verzauberte-eulen", "mighty-magpies"]


@pytest.mark.parametrize("game", GAMES)
def test_committed_reference_board_is_up_to_date(game):
    board = load_board_map(ROOT / "calibration" / "boards" / f"{game}.json")
    committed = (ROOT / "calibration" / "reference-boards" / f"{game}-reference.svg").read_text(encoding="utf-8")
    assert committed == reference_board_svg(board), "regenerate with the snippet in calibration/README.md"


def test_eagle_kingdoms_reference_board_prints_the_dice_of_each_piece():
    board = load_board_map(ROOT / "calibration" / "boards" / "eagle-kingdoms.json")
    labels = {r.id: r.label for r in board.regions}
    assert labels["shield"] is None  # the shield shows no dice
    assert all(label and ":" in label for rid, label in labels.items() if rid != "shield")
    svg = reference_board_svg(board)
    assert f">{labels['crown-left']}<" in svg
