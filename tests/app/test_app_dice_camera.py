"""The app's camera path for dice (worker.DiceRecognizer): a roll settles on a still view, a hand moving
over the dice pauses it, and the same dice are not reported twice."""

import numpy as np
from camera_frames import SKINS, exposed, with_hand

from companion.app.worker import DiceRecognizer
from companion.vision.synth import render_scene


def test_a_still_roll_settles_a_moving_hand_pauses_and_the_same_dice_are_not_reported_twice():
    rng = np.random.default_rng(3)
    table = render_scene(rng, 480, 640, n_dice=2, size_range=(70, 90), kinds=("d6",), allow_fingers=False).image
    camera = DiceRecognizer(kinds=("d6",))
    results = [camera(exposed(table, rng, 0.02), {}) for _ in range(12)]
    rolls = [r for r in results if "dice" in r]
    assert len(rolls) == 1, results
    assert len(rolls[0]["dice"]) == 2
    # a hand sweeps over the dice: reading waits, and says why
    for f in range(4):
        frame = exposed(with_hand(table, (150 + 60 * f, 300), SKINS[f % 4], 1.5), rng, 0.02)
        result = camera(frame, {})
        assert "dice" not in result and result["status"] == "waiting: something is moving over the table"
    # the hand has gone and the dice lie as they were: no second report of the same roll
    assert all("dice" not in camera(exposed(table, rng, 0.02), {}) for _ in range(12))
