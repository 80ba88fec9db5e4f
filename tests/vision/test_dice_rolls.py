"""Roll-level figures (companion bench dice: rolls) and the real sets' splits."""

import itertools

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
