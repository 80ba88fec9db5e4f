"""The film dice measurement's counting (companion/workshop/table/dice_films.py; ``companion bench dice --films``)."""

from types import SimpleNamespace

import numpy as np

from companion.workshop.table import dice_films as df


def _reading(kind, value, cx, cy, uncertain=False, side=20):
    return SimpleNamespace(kind=kind, value=value, box=(cx - side / 2, cy - side / 2, side, side), uncertain=uncertain)


def _roll(dice, frames=1):
    return df.SettledRoll("test", 0, [np.zeros((8, 8, 3), np.uint8)] * frames, np.zeros((8, 8, 3), np.uint8),
                          dice, 20.0)


def test_each_true_die_gets_its_nearest_reading_and_sure_extras_are_counted():
    dice = [df.TrueDie("d6", 4, 100, 100, 20), df.TrueDie("d6", 2, 200, 100, 20), df.TrueDie("d8", 7, 300, 100, 22),
            df.TrueDie("magpie", "red", 400, 100, 22)]
    readings = [
        _reading("d6", 4, 104, 97),  # right and sure
        _reading("d6", 4, 112, 100),  # a second find near the first die: farther, so an extra (sure)
        _reading("d6", 5, 201, 101),  # wrong and sure
        _reading("d8", 7, 299, 100, uncertain=True),  # unsure
        _reading("magpie", "red", 440, 100),  # too far from the red die: missed, and a sure extra
        _reading("d6", 1, 600, 600, uncertain=True),  # an unsure extra is not counted
    ]
    found, extra = df.match_dice(readings, dice)
    assert [df.outcome(r, d) for r, d in zip(found, dice, strict=True)] == ["sure_right", "sure_wrong", "unsure", "missed"]
    assert found[0] is readings[0]
    assert extra == 2


def test_values_compare_as_text_and_kinds_must_agree():
    die = df.TrueDie("magpie", "red", 0, 0, 20)
    assert df.outcome(_reading("magpie", "red", 0, 0), die) == "sure_right"
    assert df.outcome(_reading("d6", "red", 0, 0), die) == "sure_wrong"
    assert df.outcome(_reading("d6", 3, 0, 0), df.TrueDie("d6", "3", 0, 0, 20)) == "sure_right"
    assert df.outcome(None, die) == "missed"


def test_tally_counts_dice_per_kind_and_rolls_by_their_last_frame():
    two = [df.TrueDie("d6", 1, 0, 0, 20), df.TrueDie("d6", 6, 100, 0, 20)]
    right, wrong, unsure = _reading("d6", 1, 0, 0), _reading("d6", 5, 100, 0), _reading("d6", 6, 100, 0, True)
    sure6 = _reading("d6", 6, 100, 0)
    results = [
        (_roll(two, 2), [[right, unsure], [right, sure6]], [0, 1]),  # settled right without a tap
        (_roll(two, 2), [[right, sure6], [right, unsure]], [0, 0]),  # asked: its last frame has an unsure die
        (_roll(two, 1), [[None, wrong]], [0]),  # silently wrong (one die also missed)
    ]
    t = df.tally(results)
    assert t["frames"] == 5 and t["sure_extra_finds"] == 1
    d6 = t["per_kind"]["d6"]
    assert (d6["dice"], d6["sure_right"], d6["sure_wrong"], d6["unsure"], d6["missed"]) == (10, 6, 1, 2, 1)
    assert d6["found"] == 0.9 and d6["wrong_of_sure"] == 1 / 7
    last = t["settled_per_kind"]["d6"]
    assert (last["dice"], last["sure_right"], last["unsure"]) == (6, 3, 1)
    assert t["rolls"] == {"rolls": 3, "right_without_tap": 1, "asked": 1, "silently_wrong": 1}
