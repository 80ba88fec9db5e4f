"""The app's camera path for dice (worker.DiceRecognizer): a roll settles on a still view, a hand moving
over the dice pauses it, the same dice are not reported twice unless the app asks to read them again."""

import numpy as np
from camera_frames import SKINS, exposed, with_hand

from companion.app.worker import DiceRecognizer
from companion.referee.dice import reader_kinds
from companion.workshop.dice.synth import render_scene


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


def test_read_again_reports_the_same_dice_again_from_the_first_frame_captured_after_the_request():
    rng = np.random.default_rng(4)
    table = render_scene(rng, 480, 640, n_dice=2, size_range=(70, 90), kinds=("d6",), allow_fingers=False).image
    camera = DiceRecognizer(kinds=("d6",))
    first = [camera(exposed(table, rng, 0.02), {"captured_at": float(t)}) for t in range(10)]
    rolls = [r for r in first if "dice" in r]
    assert len(rolls) == 1
    camera.read_again(after=20.0)
    # frames captured before the request (still queued when it came) would be dropped by the app: not used
    assert all("dice" not in camera(exposed(table, rng, 0.02), {"captured_at": float(t)}) for t in range(10, 20))
    again = camera(exposed(table, rng, 0.02), {"captured_at": 20.0})
    assert "dice" in again and sorted(d["value"] for d in again["dice"]) == sorted(d["value"] for d in rolls[0]["dice"])
    assert all("dice" not in camera(exposed(table, rng, 0.02), {"captured_at": float(t)}) for t in range(21, 30))


def test_mighty_magpies_colour_dice_read_by_the_camera_become_the_games_roll(tmp_path):
    """The reader calls the colour die "magpie"; the game asks for "colour" dice (READER_KIND)."""
    from companion.app.controller import Controller
    from companion.referee.dice import dice_values

    ctl = Controller(tmp_path, seed=1)
    ctl.new_game("mighty-magpies", ["Ann", "Ben"])
    ctl.random_outcome()  # the set-up
    ctl.confirm()
    assert [s.kind for s in ctl.dice_specs()] == ["colour", "colour"]
    rng = np.random.default_rng(7)
    scene = render_scene(rng, 480, 640, n_dice=2, size_range=(70, 90), kinds=("magpie",), allow_fingers=False)
    camera = DiceRecognizer(kinds=ctl.module.game_class.dice_kinds)
    # 16 frames: a reading shown for a tap (uncertain) settles after twice the still frames of a sure one
    rolls = [r for r in (camera(scene.image, {}) for _ in range(16)) if "dice" in r]
    assert len(rolls) == 1 and {d["kind"] for d in rolls[0]["dice"]} == {"colour"}
    assert ctl.observe(ctl.generation, rolls[0])
    truth = sorted(str(d.value) for d in scene.dice)
    assert ctl.proposal is not None, ctl.vision_status
    assert sorted(str(v) for v in dice_values(ctl.proposal.action)) == truth


def test_the_reader_is_asked_only_for_the_games_kinds_of_dice():
    assert reader_kinds(("colour",)) == ("magpie",)
    assert reader_kinds(("d6", "d8")) == ("d6", "d8")
    assert reader_kinds(("d6",)) == ("d6",)
    assert set(reader_kinds(())) == {"d6", "d8", "magpie"}


def test_dice_thrown_before_the_move_was_confirmed_become_the_next_roll(tmp_path):
    """From pixels to proposal: the camera reports the early throw once, while a move is awaited; when the
    next roll is wanted the controller asks again, and the same dice, still lying there, are offered."""
    import random
    import time

    from companion.app.controller import Controller
    from companion.referee.dice import dice_values

    ctl = Controller(tmp_path, seed=1)
    ctl.new_game("eagle-kingdoms", ["Ann", "Ben"])
    rng, pick = np.random.default_rng(11), random.Random(2)
    camera = DiceRecognizer(kinds=ctl.module.game_class.dice_kinds)
    ctl.listeners.append(lambda event, _: camera.read_again() if event == "read_again" else None)

    def show(table, frames=12):  # frames captured now, as the app's worker passes them
        for _ in range(frames):
            captured_at = time.monotonic()
            ctl.observe(ctl.generation, camera(exposed(table, rng, 0.02), {"captured_at": captured_at}), captured_at)

    def throw():
        while True:  # two d6 the reader reads right (a misread is not what this test is about)
            scene = render_scene(rng, 480, 640, n_dice=2, size_range=(80, 95), kinds=("d6",), allow_fingers=False)
            reader = DiceRecognizer(kinds=("d6",))
            got = next((r for r in (reader(scene.image, {}) for _ in range(8)) if "dice" in r), None)
            truth = sorted(d.value for d in scene.dice)
            if got and sorted(d["value"] for d in got["dice"]) == truth and truth != sorted(played):
                return scene.image, truth

    for _ in range(200):  # to Ann's first roll (the set-up first)
        if ctl.phase == "chance" and ctl.dice_specs():
            break
        ctl.random_outcome()
        ctl.confirm()
    played = []
    first, played = throw()
    show(first)
    assert sorted(dice_values(ctl.proposal.action)) == played
    ctl.confirm()
    assert ctl.phase == "decision"
    early, truth = throw()
    show(early)  # Ben throws while Ann's move is not yet confirmed
    assert ctl.proposal is None or ctl.proposal.source != "camera"
    while ctl.phase == "decision":  # Ann's move, confirmed
        ctl.choose(pick.randrange(len(ctl.choices())))
        ctl.confirm()
    assert ctl.phase == "chance" and [s.kind for s in ctl.dice_specs()] == ["d6", "d6"]
    show(early, 3)  # the same dice, still lying there
    assert ctl.proposal is not None and ctl.proposal.source == "camera"
    assert sorted(dice_values(ctl.proposal.action)) == truth
