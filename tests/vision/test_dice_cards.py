"""Model cards: the hand-written "This run" section survives a rewrite for the same model, not a new one;
the figures they show."""

import math

from companion.workshop.dice.cards import kept_hand_section

CARD = """# dice_detector.onnx

Finds dice, SHA-256 `{sha}`.

## This run

Seed 1 beat seed 0 on Catan.

| models | found |
|---|---|

## Training

generated text
"""


def test_the_hand_section_is_kept_for_the_same_model_file(tmp_path):
    card = tmp_path / "dice_detector.md"
    card.write_text(CARD.format(sha="abc123"))
    kept = kept_hand_section(card, "abc123")
    assert kept.startswith("## This run\n") and "Seed 1 beat seed 0" in kept and "|---|---|" in kept
    assert "## Training" not in kept and "generated text" not in kept


def test_the_hand_section_is_dropped_for_a_new_model_or_a_missing_card(tmp_path):
    card = tmp_path / "dice_detector.md"
    card.write_text(CARD.format(sha="abc123"))
    assert kept_hand_section(card, "def456") == ""
    assert kept_hand_section(tmp_path / "missing.md", "abc123") == ""
    card.write_text(CARD.format(sha="abc123").replace("## This run", "## Notes"))
    assert kept_hand_section(card, "abc123") == ""


def test_real_figures_carry_their_95_percent_interval_which_narrows_with_more_dice():
    from companion.workshop.dice.cards import real_table

    row = {"dataset": "d", "split": "valid", "role": "valid", "photos": 88, "recall": 0.8, "accuracy": 0.75,
           "accuracy_confident": 0.85, "uncertain": 0.1, "photos_all_right": 0.5, "extra_detections": 3}
    few, many = real_table([{**row, "dice": 100}]), real_table([{**row, "dice": 400}])
    assert "60.0% ± 9.6" in few and "60.0% ± 4.8" in many  # found and read right: 0.8 x 0.75 of the dice
    assert "50.0% ± 10.4" in few  # photos all right, on 88 photos


def test_the_synthetic_benchmark_splits_the_six_sided_dice_by_the_angle_their_top_is_seen_at():
    from companion.workshop.dice.evaluate import ANGLE_BINS, _angle_bin, evaluate_synthetic

    assert [_angle_bin(math.cos(math.radians(d))) for d in (0, 14.9, 15.1, 44, 50, 80)] == [0, 0, 1, 3, 4, 5]

    class Blind:  # finds nothing: every die counts, none is found
        def read(self, img):
            return []

    result = evaluate_synthetic(Blind(), 4)
    by_angle = result["d6_by_view_angle"]
    assert [a["degrees"] for a in by_angle][0] == "0-15" and len(by_angle) == len(ANGLE_BINS) - 1
    assert sum(a["dice"] for a in by_angle) == result["per_kind"]["d6"]["dice"] > 0
    assert all(a["recall"] == 0 for a in by_angle)


def test_the_photos_from_above_are_tabled_as_seen_from_the_side_and_from_above():
    from companion.workshop.dice.cards import from_above_table
    from companion.workshop.dice.rolls import roll_shares

    side = roll_shares({"right": 6, "asked": 4})
    above = roll_shares({"right": 9, "asked": 1})
    results = {"rolls": [{"dataset": "top", "untaught": {"per_view": {"above": side}}, "untaught_from_above": above},
                         {"dataset": "leaning", "untaught": {"per_view": {"oblique": side}}}]}
    table = from_above_table(results)
    assert "| top | 10 | 60.0% / 0.00% |" in table and "| 90.0% / 0.00% |" in table
    assert "leaning" not in table
    assert from_above_table({"rolls": [results["rolls"][1]]}) == ""
