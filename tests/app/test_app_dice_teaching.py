"""Teach your dice in the app (issue 21, item 1): the box's profiles (list, choose, rename, delete, all written
atomically), teaching by showing each face or confirming a roll, the grid of faces still missing, and every
roll confirmed or corrected during play added to the profile in use, on disk before the app says so."""

from __future__ import annotations

import json

import numpy as np
import pytest

from companion.app.controller import Controller
from companion.app.dice_teaching import (
    DiceProfiles,
    DiceTeaching,
    LearningProfile,
    box_kinds,
    cell_at,
    faces_picture,
    roll_lessons,
)
from companion.app.i18n import tr
from companion.referee.dice import DieValue
from companion.vision.profile import DiceProfile, ProfileError


def crop(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 255, (48, 48, 3), dtype=np.uint8)


def reading(seed: int, value, x: int, kind: str = "d6", uncertain: bool = False) -> dict:
    return {"kind": kind, "value": value, "confidence": 0.9, "uncertain": uncertain, "box": [x, 40, 30, 30],
            "crop": crop(seed)}


def on_disk(profiles: DiceProfiles, name: str) -> DiceProfile:
    return DiceProfile.load(profiles.store.path(name))  # read again from the file, not the cache


def test_the_boxes_dice_are_the_readers_kinds():
    assert box_kinds("eagle-kingdoms") == ("d6", "d8")
    assert box_kinds("mighty-magpies") == ("magpie",)
    assert box_kinds("falconry") == () and box_kinds(None) == () and box_kinds("chess") == ()


def test_profiles_per_box_are_listed_chosen_renamed_and_deleted_and_the_choice_follows(tmp_path):
    profiles = DiceProfiles(tmp_path)
    assert profiles.entries() == [] and profiles.active_name("eagle-kingdoms") is None
    profiles.create("Eagle Kingdoms")
    with pytest.raises(ProfileError, match="already"):
        profiles.create("eagle kingdoms!")  # the same file name
    assert profiles.free_name("Eagle Kingdoms") == "Eagle Kingdoms 2"
    profiles.create("Magpies")
    profiles.choose("eagle-kingdoms", "Eagle Kingdoms")
    profiles.choose("mighty-magpies", "Magpies")
    assert [e["name"] for e in profiles.entries()] == ["Eagle Kingdoms", "Magpies"]
    assert profiles.active_name("eagle-kingdoms") == "Eagle Kingdoms"
    profiles.rename("Eagle Kingdoms", "Kitchen table")
    assert profiles.active_name("eagle-kingdoms") == "Kitchen table"  # the game keeps its profile
    assert not profiles.store.path("Eagle Kingdoms").exists()
    profiles.delete("Kitchen table")
    assert profiles.active_name("eagle-kingdoms") is None  # the generic reader again
    assert profiles.learning("eagle-kingdoms") is None
    assert profiles.active_name("mighty-magpies") == "Magpies"
    with pytest.raises(ProfileError):
        profiles.choose("eagle-kingdoms", "no such profile")
    assert json.loads((tmp_path / "dice_profiles_in_use.json").read_text()) == {"mighty-magpies": "Magpies"}
    assert not list((tmp_path / "dice_profiles").glob("*.tmp*"))  # no temporary file left behind


def test_a_damaged_profile_is_listed_with_its_reason_and_never_used(tmp_path):
    profiles = DiceProfiles(tmp_path)
    profiles.create("Box")
    profiles.choose("eagle-kingdoms", "Box")
    profiles.store.path("Box").write_text('{"format": "companion-dice-profile", "version": 1, "na')
    [entry] = profiles.entries()
    assert "error" in entry and "damaged" in entry["error"]
    assert profiles.learning("eagle-kingdoms") is None  # the generic reader reads, nothing crashes
    (tmp_path / "dice_profiles_in_use.json").write_text("not json")
    assert profiles.active_name("eagle-kingdoms") is None


def test_learning_saves_before_it_returns_and_a_failed_save_leaves_the_profile_as_it_was(tmp_path, monkeypatch):
    profiles = DiceProfiles(tmp_path)
    learning = LearningProfile(profiles, profiles.create("Box"))
    heard = []
    learning.on_change = heard.append
    assert learning.learn([("d6", 4, crop(1), "confirmed"), ("d8", 7, crop(2), "corrected")]) == 2
    assert [(e.kind, e.value, e.source) for e in on_disk(profiles, "Box").examples] == [
        ("d6", 4, "confirmed"), ("d8", 7, "corrected")]
    assert len(heard) == 1 and len(heard[0].examples) == 2 and heard[0] is not learning.profile  # a snapshot
    with pytest.raises(ProfileError):
        learning.learn([("d6", 5, crop(3), "confirmed"), ("d6", 9, crop(4), "confirmed")])  # a d6 shows no 9
    assert len(learning.profile.examples) == 2  # nothing of it was added

    def full(_profile):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(profiles.store, "save", full)
    with pytest.raises(OSError):
        learning.learn([("d6", 1, crop(5), "confirmed")])
    assert len(learning.profile.examples) == 2 and len(on_disk(profiles, "Box").examples) == 2
    assert len(heard) == 1


def test_a_confirmed_roll_teaches_each_die_read_a_changed_one_as_corrected():
    dice = [DieValue("d6", "", 3, box=(10, 40, 30, 30)), DieValue("d6", "", 5, box=(80, 40, 30, 30), source="corrected"),
            DieValue("colour", "die 1", "red", box=(150, 40, 30, 30)), DieValue("d6", "", 2)]  # the last one entered by hand
    crops = {(10, 40, 30, 30): crop(1), (80, 40, 30, 30): crop(2), (150, 40, 30, 30): crop(3)}
    lessons = roll_lessons(dice, crops)
    assert [(k, v, s) for k, v, _c, s in lessons] == [("d6", 3, "confirmed"), ("d6", 5, "corrected"),
                                                     ("magpie", "red", "confirmed")]
    assert lessons[1][2] is crops[(80, 40, 30, 30)]


def test_teaching_each_face_by_a_tap_on_the_grid_and_a_roll_confirmed_at_once(tmp_path):
    profiles = DiceProfiles(tmp_path)
    teaching = DiceTeaching("eagle-kingdoms", LearningProfile(profiles, profiles.create("EK")))
    assert teaching.missing() == {"d6": [1, 2, 3, 4, 5, 6], "d8": list(range(1, 9))}
    assert teaching.teach_face("d6", 3) == (False, tr("dice:show_one"))  # no die in view: nothing learned
    teaching.see([reading(1, 2, 100)])
    assert teaching.selected == 0  # the one die in view is the one taught
    ok, said = teaching.teach_face("d6", 3)  # the reader said 2, the family says 3
    assert ok and said == tr("dice:learned_face", kind=tr("dice:one_d6"), face="3")
    assert [(e.value, e.source) for e in on_disk(profiles, "EK").examples] == [(3, "taught")]
    assert teaching.missing()["d6"] == [1, 2, 4, 5, 6]
    teaching.see([reading(2, 5, 102), reading(3, 8, 300, kind="d8")])
    assert teaching.selected == 0  # a second die came: the one chosen stays chosen where it lies
    # the dice taken away, then two thrown: the family taps the one it means on the picture
    teaching.see([])
    teaching.see([reading(2, 5, 100), reading(3, 8, 300, kind="d8")])
    assert teaching.selected is None and teaching.prompt() == tr("dice:tap_one", count=2)
    assert teaching.teach_face("d6", 5)[0] is False
    assert not teaching.select_at(600, 600) and teaching.select_at(310, 50) and teaching.selected == 1
    assert teaching.teach_face("d8", 8)[0]
    teaching.see([reading(4, 5, 101), reading(5, 8, 301, kind="d8")])  # the same dice a frame later
    assert teaching.selected == 1  # still the one tapped
    ok, said = teaching.confirm_all()  # "all read right": the roll is learned as read
    assert ok and said == tr("dice:learned_roll", count=2)
    assert [(e.kind, e.value, e.source) for e in on_disk(profiles, "EK").examples][-2:] == [
        ("d6", 5, "confirmed"), ("d8", 8, "confirmed")]
    assert teaching.missing() == {"d6": [1, 2, 4, 6], "d8": [1, 2, 3, 4, 5, 6, 7]}
    assert "2 of 6 faces taught (2 pictures)" in teaching.progress() and "1 of 8" in teaching.progress()
    assert teaching.teach_face("magpie", "red") == (False, tr("dice:not_this_box"))


def test_the_grid_shows_the_familys_own_picture_where_a_face_is_taught_and_a_gap_where_missing(tmp_path):
    profile = DiceProfile.new("EK")
    empty, cells = faces_picture(profile, "d6", 480)
    assert len(cells) == 6 and [c.face for c in cells] == [1, 2, 3, 4, 5, 6]
    red = np.zeros((48, 48, 3), np.uint8)
    red[..., 2] = 255
    profile.add("d6", 4, red)
    profile.add("d6", 4, red)
    taught, cells = faces_picture(profile, "d6", 480)
    x, y, w, h = cells[3].rect
    assert cells[3].count == 2 and cells[2].count == 0
    middle = taught[y + h // 2, x + w // 3]
    assert middle[2] > 200 and middle[0] < 60  # the crop itself, scaled into its cell
    assert not np.array_equal(taught[y:y + h, x:x + w], empty[y:y + h, x:x + w])
    other = cells[2].rect
    assert np.array_equal(taught[other[1]:other[1] + other[3], other[0]:other[0] + other[2]],
                          empty[other[1]:other[1] + other[3], other[0]:other[0] + other[2]])  # still missing
    assert cell_at(cells, x + 2, y + 2).face == 4 and cell_at(cells, -5, -5) is None
    d8, d8_cells = faces_picture(profile, "d8", 480)
    colours, colour_cells = faces_picture(profile, "magpie", 480)
    assert len(d8_cells) == 8 and len(colour_cells) == 5 and d8.shape[0] > colours.shape[0]


def _camera_roll(ctl: Controller, values: list[int]) -> dict:
    return {"dice": [reading(10 + i, v, 40 + 80 * i) for i, v in enumerate(values)],
            "history_len": len(ctl.session.history)}


def test_every_roll_confirmed_or_corrected_in_play_is_added_to_the_profile_in_use_before_it_is_said(tmp_path):
    ctl = Controller(tmp_path, seed=1)
    ctl.new_game("eagle-kingdoms", ["Ann", "Ben"])
    ctl.random_outcome()
    ctl.confirm()  # the set-up: no dice, nothing to learn
    profiles = DiceProfiles(tmp_path)
    said_when_saved = []

    def listener(event, payload):
        if event == "message" and payload.level == "info":
            said_when_saved.append(len(on_disk(profiles, "EK").examples))

    ctl.listeners.append(listener)
    ctl.dice_learning = LearningProfile(profiles, profiles.create("EK"))
    assert ctl.observe(ctl.generation, _camera_roll(ctl, [2, 6]))
    assert ctl.proposal is not None and ctl.proposal.source == "camera"
    ctl.correct_die(0, 3)  # the camera read 2; the die shows 3
    ctl.confirm()
    examples = on_disk(profiles, "EK").examples
    assert [(e.kind, e.value, e.source) for e in examples] == [("d6", 3, "corrected"), ("d6", 6, "confirmed")]
    assert np.array_equal(examples[0].crop, crop(10))  # the crop of the die the family corrected
    assert ctl.messages[-1].text == tr("dice:learned_correction", count=1, profile="EK")
    assert said_when_saved == [2]  # said only once both were on disk
    # a roll entered by hand has no picture: nothing learned
    while ctl.phase != "chance" or not ctl.dice_specs():
        ctl.choose(0)
        ctl.confirm()
    ctl.manual_dice([1, 1] if len(ctl.dice_specs()) == 2 else [1] * len(ctl.dice_specs()))
    ctl.confirm()
    assert len(on_disk(profiles, "EK").examples) == 2


def test_a_profile_that_cannot_be_saved_is_said_and_the_roll_is_still_confirmed(tmp_path, monkeypatch):
    ctl = Controller(tmp_path, seed=1)
    ctl.new_game("eagle-kingdoms", ["Ann", "Ben"])
    ctl.random_outcome()
    ctl.confirm()
    profiles = DiceProfiles(tmp_path)
    ctl.dice_learning = LearningProfile(profiles, profiles.create("EK"))

    def gone(_profile):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(profiles.store, "save", gone)
    ctl.observe(ctl.generation, _camera_roll(ctl, [4, 4]))
    history = len(ctl.session.history)
    ctl.confirm()
    assert len(ctl.session.history) == history + 1  # the game goes on: the roll is in the journal
    assert ctl.messages[-1].level == "warn" and "Input/output error" in ctl.messages[-1].text
    assert on_disk(profiles, "EK").examples == [] and ctl.dice_learning.profile.examples == []


def test_the_camera_teaches_with_the_dice_in_view_and_a_corrected_die_is_then_read_as_corrected(tmp_path):
    """The real reader: teaching reports each die in view with its crop; once the family corrected a die, the
    camera reads that die lying the same way as corrected (sure), not as its mistake."""
    from companion.app.dice_teaching import snapshot
    from companion.app.table_camera import TableRecognizer
    from companion.workshop.dice.synth import render_scene

    scene = render_scene(np.random.default_rng(5), 480, 640, n_dice=1, size_range=(80, 90), kinds=("d6",),
                         allow_fingers=False, upright=False)
    camera = TableRecognizer(tmp_path)
    camera.teach_dice(("d6", "d8"))
    seen = camera(scene.image, {})["teach_dice"]
    assert len(seen) == 1 and seen[0]["crop"].shape == (48, 48, 3) and seen[0]["kind"] == "d6"
    read = seen[0]["value"]
    wrong = 1 if read != 1 else 2  # the family "corrects" the die to a face it does not show
    profiles = DiceProfiles(tmp_path)
    teaching = DiceTeaching("eagle-kingdoms", LearningProfile(profiles, profiles.create("EK")))
    teaching.see(seen)
    assert teaching.teach_face("d6", wrong)[0]
    camera.set_dice_profile(snapshot(teaching.profile))
    again = camera(scene.image, {})["teach_dice"]
    assert [(d["value"], d["uncertain"]) for d in again] == [(wrong, False)]
    camera.set_dice_profile(None)  # the generic reader again
    assert [d["value"] for d in camera(scene.image, {})["teach_dice"]] == [read]
    camera.teach_dice(None)
    assert "teach_dice" not in camera(scene.image, {})


def test_a_roll_the_table_camera_reads_and_the_family_confirms_grows_the_profile_in_use(tmp_path):
    """The live table pipeline reads a roll with the family's profile; the confirmed roll is added to it."""
    from companion.app.dice_teaching import snapshot
    from companion.app.table_camera import TableRecognizer
    from companion.workshop.table.film import GameFilm

    film = GameFilm("eagle-kingdoms", 1, light=False)
    ctl = Controller(tmp_path, seed=1)
    ctl.new_game("eagle-kingdoms", list(film.game.players))
    profiles = DiceProfiles(tmp_path)
    ctl.dice_learning = LearningProfile(profiles, profiles.create("EK"))
    camera = TableRecognizer(tmp_path, camera=film.camera)
    camera.set_game("eagle-kingdoms")
    camera.set_dice_profile(snapshot(ctl.dice_learning.profile))
    ctl.dice_learning.on_change = camera.set_dice_profile
    rng = np.random.default_rng(0)
    rolls = []
    for shot in film.shots[:60]:
        camera.set_position(ctl.session.game, ctl.session.state, ctl.session.history)
        observation = camera(film.draw(shot, rng), {"captured_at": None})
        ctl.observe(ctl.generation, observation)
        if ctl.proposal is not None:
            if ctl.proposal.dice:
                rolls.append([(d.kind, d.value) for d in ctl.proposal.dice])
            ctl.confirm()
        if rolls:
            break
    assert rolls, "no roll read"
    examples = on_disk(profiles, "EK").examples
    assert [(e.kind, e.value, e.source) for e in examples] == [(k, v, "confirmed") for k, v in rolls[0]]
    assert camera._profile_applied is not None  # the pipeline's reader reads with the grown profile
    assert camera._dice_profile is not ctl.dice_learning.profile and len(camera._dice_profile.examples) == 2
