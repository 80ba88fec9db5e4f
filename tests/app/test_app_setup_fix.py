"""Eagle Kingdoms' set-up from the camera with tap-to-fix on the board's picture (issue 20, item 3): what the
camera read surely stays, the pieces it could not read are marked and chosen by a tap, one tap confirms; the
rules judge the result; no set-up is ever typed or given as JSON in the app."""

from __future__ import annotations

import json
import os
from pathlib import Path

import cv2
import numpy as np
import pytest
from ui_process import PHONE, run_ui

from companion.app.controller import Controller
from companion.app.i18n import tr
from companion.app.setup_fix import SetupFix
from companion.games.eagle_kingdoms.rules import PIECE_IDS, SHIELD_ID
from companion.journal import Journal
from companion.referee.eagle_kingdoms import scene_from_state
from companion.referee.setup_taps import setup_action, setup_spaces
from companion.vision.readers import Observation


def _placement(state) -> dict:
    from companion.games.eagle_kingdoms.rules import KINDS

    return {PIECE_IDS[p]: KINDS[k] for p, k in enumerate(state.kind_on) if k >= 0 and PIECE_IDS[p] != SHIELD_ID}


def _observation(truth_state, unsure=(), hidden=()) -> Observation:
    """The board of ``truth_state`` as a reader saw it: ``unsure`` read with low confidence, ``hidden`` unseen."""
    return Observation(dict(scene_from_state(truth_state)), {pid: 0.3 for pid in unsure}, hidden=frozenset(hidden))


def _laid_out(tmp_path, seed: int):
    """A game at its set-up, the state after a random set-up laid out at the table, and its placement."""
    ctl = Controller(tmp_path, seed=seed)
    ctl.new_game("eagle-kingdoms", ["Ann", "Ben"])
    truth = ctl.state.clone()
    truth.apply(ctl.state.sample_chance(ctl.rng))
    return ctl, truth, _placement(truth)


@pytest.mark.rules("EK-SETUP-RANDOM")
def test_the_set_up_read_in_part_keeps_what_was_sure_and_marks_the_rest(tmp_path):
    _ctl, truth, placement = _laid_out(tmp_path, 3)
    obs = _observation(truth, unsure=["beak-left", "neck"], hidden=["crown-left"])
    spaces = setup_spaces("eagle-kingdoms", obs, "cannot read the set-up")
    assert spaces.unsure == tuple(p for p in PIECE_IDS if p in {"beak-left", "neck", "crown-left"})
    assert spaces.hidden == ("crown-left",) and SHIELD_ID not in spaces.read
    assert all(spaces.read[p] == placement[p] for p in placement if p not in spaces.unsure)
    assert all(spaces.read[p] is None for p in spaces.unsure)
    assert setup_spaces("falconry", obs) is None

    fix = SetupFix(spaces.as_json())
    marks = fix.marks()
    assert {p for p, m in marks.items() if m == "illegal"} == set(spaces.unsure)
    assert {m for p, m in marks.items() if p not in spaces.unsure} == {"legal"}
    assert fix.action() is None and fix.prompt() == tr("fix:check", count=3)
    assert not fix.choose("beak-left", "emperor") and not fix.choose(SHIELD_ID, "king")  # no such character / space
    for pid in spaces.unsure:
        assert fix.choose(pid, placement[pid])
    assert fix.marks()["beak-left"] == "proposed" and fix.prompt() == tr("fix:ready")
    assert fix.action() == setup_action("eagle-kingdoms", placement) == {"type": "setup", "placement": placement}


@pytest.mark.rules("EK-SETUP-RANDOM")
def test_a_box_the_camera_cannot_read_is_set_up_by_taps_on_every_piece(tmp_path):
    """No usable reading (a box of another print, before its look is taught): the set-up check opens with every
    piece (every nest) to choose, rather than leaving the family only "Random set-up"."""
    from companion.referee.mighty_magpies import BOARD

    refused = Observation({}, usable=False, status="something covers the board")
    for obs in (None, refused):
        spaces = setup_spaces("eagle-kingdoms", obs, "cannot read the set-up")
        assert spaces is not None and set(spaces.unsure) == set(PIECE_IDS) - {SHIELD_ID}
        assert all(v is None for v in spaces.read.values()) and SetupFix(spaces.as_json()).action() is None
    nests = setup_spaces("mighty-magpies", refused)
    assert nests is not None and set(nests.unsure) == {n for i, n in enumerate(BOARD.nest_ids) if BOARD.capacity[i]}


def test_the_pieces_to_check_are_named_as_families_say_them(tmp_path):
    """The chooser's title and the buttons name a piece in plain words (issue 22: no space ids on screen)."""
    from companion.app import i18n
    from companion.app.words import raw_id

    _ctl, truth, _placement = _laid_out(tmp_path, 3)
    fix = SetupFix(setup_spaces("eagle-kingdoms", _observation(truth, unsure=["plume-right-1", "neck"])).as_json())
    for lang in ("en", "de"):
        i18n.set_language(lang)
        try:
            names = [fix.space_words(p) for p in fix.unsure]
            assert all(name and not raw_id(name) for name in names), names
            assert not raw_id(tr("fix:choose", space=names[0]))
        finally:
            i18n.set_language("en")
    assert fix.space_words("plume-right-1") != fix.space_words("neck")


@pytest.mark.rules("EK-SETUP-RANDOM")
def test_the_finished_set_up_is_confirmed_with_one_tap_and_an_impossible_one_is_called(tmp_path):
    ctl, truth, placement = _laid_out(tmp_path, 4)
    heard = []
    ctl.listeners.append(lambda event, payload: heard.append(event))
    obs = _observation(truth, unsure=["beak-left"])
    assert ctl.observe(ctl.generation, {"setup_read": setup_spaces("eagle-kingdoms", obs).as_json()})
    assert ctl.setup_read is not None and "setup_read" in heard
    fix = SetupFix(ctl.setup_read)
    # the family picks a character there is no piece left for: the rules say no, nothing is applied
    other = next(k for k in fix.options if k != placement["beak-left"] and k != "jester")
    fix.choose("beak-left", other)
    assert ctl.confirm_setup(fix.action()) is None
    assert ctl.session.history == [] and ctl.messages[-1].level == "illegal" and ctl.at_setup()
    fix.choose("beak-left", placement["beak-left"])
    assert ctl.confirm_setup(fix.action()) is not None
    assert Journal.read(ctl.session.journal.path).actions() == [{"type": "setup", "placement": placement}]
    assert ctl.setup_read is None and not ctl.at_setup() and ctl.dice_specs()
    assert ctl.confirm_setup(fix.action()) is None  # nothing to set up any more


def test_no_set_up_is_typed_or_shown_as_json_in_the_app(tmp_path, german):
    for game in ("eagle-kingdoms", "mighty-magpies"):
        ctl = Controller(tmp_path, seed=1)
        ctl.new_game(game, ["Ann", "Ben"])
        assert ctl.at_setup() and ctl.prompt() == tr("table:setup_camera")
        assert "JSON" not in ctl.prompt() and "{" not in ctl.prompt()
        assert ctl.typed('{"beak-left": "king"}') is None and ctl.typed("random") is None
        assert ctl.messages[-1].text == tr("table:setup_not_typed") and ctl.session.history == []
        ctl.random_outcome()  # the app's own random set-up stays
        ctl.confirm()
        assert not ctl.at_setup() and ctl.prompt() != tr("table:setup_camera")


COVERED = ["beak-left", "head-left", "plume-right-1"]


def _covered_set_up(tmp_path):
    """The film's set-up frame with something grey over three pieces, and the film."""
    from companion.app.table_camera import TableRecognizer
    from companion.workshop.table.film import GameFilm

    film = GameFilm("eagle-kingdoms", 1, light=False)
    image = film.draw(film.shots[0], np.random.default_rng(0))
    camera = TableRecognizer(tmp_path, camera=film.camera)
    camera.set_game("eagle-kingdoms")
    seen = camera(image, {"captured_at": None})
    H, geometry = np.asarray(seen["homography"]), camera.info.geometry()
    for pid in COVERED:
        x, y = cv2.perspectiveTransform(np.array([[geometry[pid]]], np.float64), H)[0, 0]
        cv2.circle(image, (int(x), int(y)), 14, (120, 120, 120), -1)
    return film, image


def test_the_table_camera_reads_the_set_up_with_covered_pieces_and_the_family_finishes_it(tmp_path):
    """A rendered set-up with three pieces covered: the camera keeps the others as read (all right) and asks for
    those three; the family's three taps and one confirm give the true set-up in the journal."""
    from companion.app.table_camera import TableRecognizer

    film, image = _covered_set_up(tmp_path)
    truth = film.actions[0]["placement"]
    ctl = Controller(tmp_path, seed=1)
    ctl.new_game("eagle-kingdoms", list(film.game.players))
    camera = TableRecognizer(tmp_path, camera=film.camera)
    camera.set_game("eagle-kingdoms")
    for _ in range(6):
        camera.set_position(ctl.session.game, ctl.session.state, ctl.session.history)
        ctl.observe(ctl.generation, camera(image, {"captured_at": None}))
    assert ctl.proposal is None and ctl.setup_read is not None
    fix = SetupFix(ctl.setup_read)
    assert sorted(fix.left()) == sorted(COVERED)
    assert all(fix.value(p) == truth[p] for p in truth if p not in COVERED)  # no piece read wrongly while sure
    for pid in COVERED:
        fix.choose(pid, truth[pid])
    assert ctl.confirm_setup(fix.action()) is not None
    assert Journal.read(ctl.session.journal.path).actions() == [film.actions[0]]


@pytest.mark.slow
def test_the_app_shows_the_unsure_pieces_on_the_boards_picture_and_a_tap_fixes_each(tmp_path):
    """At phone size, in English and German: the app goes to the board's picture by itself, the three covered
    pieces are marked, a tap on each chooses its character, one tap confirms the true set-up."""
    film, image = _covered_set_up(tmp_path)
    pictures = tmp_path / "pictures"
    pictures.mkdir()
    for i in range(40):  # a still camera over the table
        cv2.imwrite(str(pictures / f"f{i:02d}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    profile = film.camera.save(tmp_path / "cameras")
    truth = tmp_path / "truth.json"
    truth.write_text(json.dumps({"players": list(film.game.players), "placement": film.actions[0]["placement"]}))
    shots = Path(os.environ.get("COMPANION_SCREENSHOTS") or tmp_path / "shots")
    said = run_ui("setup_fix_run.py", tmp_path / "data", pictures, shots, truth, profile)
    assert said["prompt"] == tr("table:setup_camera")
    assert sorted(said["left"]) == sorted(COVERED) and said["wrong_sure"] == []
    assert said["marks"] == ["illegal", "legal"] and said["flow"] == tr("fix:check", count=3)
    assert len(said["after"]) == 1 and said["still"] == "setup_fix" and said["history"] == 0
    assert "Ritter" in said["de_options"] and "König" in said["de_options"] and "Was steht auf" in said["de_title"]
    assert said["de_flow"] == tr("fix:ready", "de")
    assert said["back"] == "table" and said["journal"] == [film.actions[0]] and said["dice"] == 2
    for name in ("setup-fix-en", "setup-fix-de", "setup-fix-de-ready"):
        picture = cv2.imread(str(shots / f"{name}.png"))
        assert picture is not None and picture.shape[:2] == PHONE[::-1], name


@pytest.mark.rules("MM-SETUP-1")
def test_mighty_magpies_nests_read_in_part_are_finished_by_choosing_their_tiles(tmp_path):
    from companion.referee.mighty_magpies import scene_from_state

    ctl = Controller(tmp_path, seed=5)
    ctl.new_game("mighty-magpies", ["Ann", "Ben"])
    truth = ctl.state.clone()
    action = ctl.state.sample_chance(ctl.rng)
    truth.apply(action)
    obs = Observation(dict(scene_from_state(truth)), {"B": 0.2}, hidden=frozenset({"E"}))
    spaces = setup_spaces("mighty-magpies", obs)
    assert spaces.unsure == ("B", "E") and spaces.hidden == ("E",) and "R" not in spaces.read  # the red nest holds none
    assert all(spaces.read[n] == action["nests"][n] for n in action["nests"] if n not in ("B", "E"))
    assert len(spaces.space_options["B"]) == 15 and all(len(o) == 4 for o in spaces.space_options["B"])
    assert len(spaces.space_options["E"]) == 10  # three tiles: ten ways
    fix = SetupFix(spaces.as_json())
    assert fix.prompt() == tr("fix:check_nests", count=2)
    assert not fix.choose("E", "bbbs")  # four tiles on a nest marked for three
    assert fix.option_label("bbbs") == "berry ×3, silver ×1"
    ctl.observe(ctl.generation, {"setup_read": spaces.as_json()})
    fix.choose("B", action["nests"]["B"])
    fix.choose("E", action["nests"]["E"])
    assert ctl.confirm_setup(fix.action()) is not None
    assert Journal.read(ctl.session.journal.path).actions() == [action]


def test_the_table_camera_asks_for_a_covered_nest_and_keeps_the_nests_it_read(tmp_path):
    from companion.app.table_camera import TableRecognizer
    from companion.workshop.table.film import GameFilm

    film = GameFilm("mighty-magpies", 1, light=False)
    truth = film.actions[0]
    image = film.draw(film.shots[0], np.random.default_rng(0))
    camera = TableRecognizer(tmp_path, camera=film.camera)
    camera.set_game("mighty-magpies")
    seen = camera(image, {"captured_at": None})
    x, y = cv2.perspectiveTransform(np.array([[camera.info.geometry()["B"]]], np.float64), np.asarray(seen["homography"]))[0, 0]
    cv2.circle(image, (int(x), int(y)), 30, (120, 120, 120), -1)
    ctl = Controller(tmp_path, seed=1)
    ctl.new_game("mighty-magpies", list(film.game.players))
    camera = TableRecognizer(tmp_path, camera=film.camera)
    camera.set_game("mighty-magpies")
    for _ in range(6):
        camera.set_position(ctl.session.game, ctl.session.state, ctl.session.history)
        ctl.observe(ctl.generation, camera(image, {"captured_at": None}))
    fix = SetupFix(ctl.setup_read)
    assert "B" in fix.left() and ctl.proposal is None
    assert all(fix.value(n) == truth["nests"][n] for n in fix.read if n not in fix.left())  # none read wrongly
    for nest in fix.left():
        fix.choose(nest, truth["nests"][nest])
    assert ctl.confirm_setup(fix.action()) is not None
    assert Journal.read(ctl.session.journal.path).actions() == [truth]


@pytest.mark.rules("EK-SETUP-RANDOM")
def test_a_piece_misread_while_sure_shows_in_the_boxs_counts_and_is_ringed_for_a_look(tmp_path):
    from companion.games.eagle_kingdoms.rules import KIND_INDEX
    from companion.referee.eagle_kingdoms import stand

    ctl, truth, placement = _laid_out(tmp_path, 6)
    misread = next(p for p, k in placement.items() if k == "squire")
    regions = dict(scene_from_state(truth))
    regions[misread] = [{"piece": True}, stand(KIND_INDEX["king"])]  # a squire read as a king, surely
    spaces = setup_spaces("eagle-kingdoms", Observation(regions))
    kings = sorted([p for p, k in placement.items() if k == "king"] + [misread])
    assert spaces.unsure == () and sorted(spaces.suspect) == kings  # one king too many: the kings are looked at
    ctl.observe(ctl.generation, {"setup_read": spaces.as_json()})
    fix = SetupFix(ctl.setup_read)
    assert fix.left() == [] and fix.prompt() == tr("fix:suspect")
    assert {fix.marks()[p] for p in kings} == {"suspect"} and fix.marks()[misread] == "suspect"
    assert ctl.confirm_setup(fix.action()) is None and ctl.messages[-1].level == "illegal"  # the rules say no
    fix.choose(misread, "squire")
    assert fix.marks()[misread] == "proposed" and fix.prompt() == tr("fix:ready")
    assert {fix.marks()[p] for p in kings if p != misread} == {"suspect"}  # the other kings stay ringed
    assert ctl.confirm_setup(fix.action()) is not None
    assert Journal.read(ctl.session.journal.path).actions() == [{"type": "setup", "placement": placement}]
