"""Roll-level figures (companion bench dice: rolls) and the real sets' splits."""

import itertools

import cv2
import numpy as np
import pytest

from companion.workshop.dice import realdata, rolls


def test_roll_shares_are_exact_over_pairs_of_two_different_dice():
    outcomes = ["right"] * 5 + ["missed"] * 1 + ["unsure"] * 2 + ["wrong"] * 2
    counts = {o: outcomes.count(o) for o in rolls.OUTCOMES}
    pairs = list(itertools.permutations(range(len(outcomes)), 2))
    both_right = sum(outcomes[a] == outcomes[b] == "right" for a, b in pairs) / len(pairs)
    any_wrong = sum("wrong" in (outcomes[a], outcomes[b]) for a, b in pairs) / len(pairs)
    got = rolls.roll_shares(counts)
    assert got["dice"] == 10 and got["wrong_of_sure"] == pytest.approx(2 / 7)
    assert (got["asked"], got["missed"], got["unsure"]) == pytest.approx((0.3, 0.1, 0.2))  # where dice are lost
    assert got["rolls"]["right_without_tap"] == pytest.approx(both_right)
    assert got["rolls"]["silently_wrong"] == pytest.approx(any_wrong)
    assert got["rolls"]["asked"] == pytest.approx(1 - both_right - any_wrong)
    assert rolls.roll_shares({})["rolls"] == {"right_without_tap": 0.0, "asked": 0.0, "silently_wrong": 0.0}


def test_the_one_folder_sets_split_into_parts_that_do_not_overlap():
    if not realdata.available():
        pytest.skip("real dice photos not available (../shared/datasets)")
    for dataset in realdata.PARTS:
        folder = next(realdata.folder_of(s) for d, s in realdata.SPLITS if d == dataset)
        train = {p.path for p in realdata.load_split(dataset, f"{folder}/train")}
        valid = {p.path for p in realdata.load_split(dataset, f"{folder}/valid")}
        every = {p.path for p in realdata.load_split(dataset, folder)}
        assert train and valid and not train & valid and train | valid == every
    # the Catan webcam set's validation photos: their crops are never trained on either
    webcam_valid = {p.path.stem for p in realdata.load_split("dice-photos-skovy-catan", "valid")}
    crops_train = realdata.load_split("dice-crops-skovy-catan", "train/train")
    assert not {p.path.name.split("-die-")[0] for p in crops_train} & webcam_valid


def test_a_synthetic_box_is_taught_and_counted(thumbnails):
    from companion.vision.reader import DiceReader

    got = rolls.synthetic_boxes(lambda kinds: DiceReader(kinds=kinds, threads=1), boxes_per_kind=1, teach_scenes=2,
                                test_scenes=2, seed=3)
    assert set(got) == {"d6", "d8", "magpie"}
    for r in got.values():
        assert r["untaught"]["dice"] == r["taught"]["dice"] > 0
        assert np.isclose(sum(r["taught"]["rolls"].values()), 1.0)


def test_sure_begins_where_taps_and_silent_errors_cost_least():
    from companion.workshop.dice.evaluate import cheapest_threshold

    conf = np.array([0.99, 0.99, 0.97, 0.96, 0.7, 0.65, -1.0])
    right = np.array([True, True, False, True, True, False, False])
    grid = (0.6, 0.9, 0.98)
    # 0.6: 1 tap + 2 wrong; 0.9: 3 taps + 1 wrong; 0.98: 5 taps, none wrong
    assert cheapest_threshold(conf, right, cost=20, grid=grid) == 0.98
    assert cheapest_threshold(conf, right, cost=1, grid=grid) == 0.6
    assert cheapest_threshold(conf, right, cost=2, grid=grid) == 0.6  # a tie (5 each): the lowest


def test_photos_seen_from_afar_shrink_each_photo_to_dice_of_the_asked_size_and_keep_every_photo_apart(tmp_path):
    """``bench dice --far PX``: each photo shrunk so its median die is PX across, never enlarged; crop sets repeat
    file names in their class folders, and each shrunk photo keeps its own labels."""
    from companion.workshop.dice import realdata

    photos = []
    for value, side in ((3, 80), (5, 12)):
        folder = tmp_path / str(value)
        folder.mkdir()
        img = np.full((200, 300, 3), 90, np.uint8)
        cv2.imwrite(str(folder / "die.png"), img)
        photos.append(realdata.Photo(folder / "die.png", [realdata.LabelledDie(value, (40, 40, side, side))]))
    far = rolls.seen_from_afar(photos, 20, tmp_path / "far")
    shapes = [cv2.imread(str(p.path)).shape[:2] for p in far]
    assert shapes == [(50, 75), (200, 300)]  # 80 px dice shrunk by 4; 12 px dice left as they are
    assert [(p.dice[0].value, p.dice[0].box) for p in far] == [(3, (10, 10, 20, 20)), (5, (40, 40, 12, 12))]
    assert [p.path.name for p in far] == ["die.png", "die.png"] and far[0].path != far[1].path
