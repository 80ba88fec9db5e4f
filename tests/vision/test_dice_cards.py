"""Model cards: the hand-written "This run" section survives a rewrite for the same model, not a new one."""

from companion.vision.cards import kept_hand_section

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
    from companion.vision.cards import real_table

    row = {"dataset": "d", "split": "valid", "role": "valid", "photos": 88, "recall": 0.8, "accuracy": 0.75,
           "accuracy_confident": 0.85, "uncertain": 0.1, "photos_all_right": 0.5, "extra_detections": 3}
    few, many = real_table([{**row, "dice": 100}]), real_table([{**row, "dice": 400}])
    assert "60.0% ± 9.6" in few and "60.0% ± 4.8" in many  # found and read right: 0.8 x 0.75 of the dice
    assert "50.0% ± 10.4" in few  # photos all right, on 88 photos
