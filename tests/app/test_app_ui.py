"""Headless UI tests (Kivy, SDL offscreen): the screens on the demo and on real pictures, with screenshots.

One app per test process (a module fixture: Kivy has one window); each test opens the source it needs.
Skipped with the reason when Kivy or the system GL libraries are missing. Screenshots go to a temporary
folder, or to $COMPANION_SCREENSHOTS (``COMPANION_SCREENSHOTS=docs/img pytest tests/app`` refreshes the
user guide's pictures).
"""

from __future__ import annotations

import itertools
import json
import os
import time
from pathlib import Path

import cv2
import numpy as np
import pytest
from kivy_app import kivy_window, pump

from companion.app.calibration import reference_map_path
from companion.app.demo import DemoScript, board_size_mm, demo_homography
from companion.app.i18n import tr
from companion.app.permission import CameraPermission
from companion.referee.dice import dice_values
from companion.vision.boardmap import load_board_map

HOME_SHOTS = {"home", "home-de", "setup", "score-a-kingdom", "score-tiles"}  # the tour's first pictures
SETUP_SHOTS = {"setup-teach", "setup-corners", "setup-empty-board", "setup-empty-board-de"}
GAME_SHOTS = {"table-dice", "table-uncertain", "table-choice", "scores", "history", "rules", "scores-final", "end"}
EXPECTED_SHOTS = HOME_SHOTS | SETUP_SHOTS | GAME_SHOTS


class _Lost:
    name = "camera 9"
    live = True

    def read(self):
        from companion.vision.sources import SourceLost

        raise SourceLost("camera 9 stopped sending pictures (unplugged, or taken by another app).")

    def close(self):
        pass


def _tap(preview, x, y):
    """A real tap on the picture at frame pixel (x, y), in window coordinates."""
    iw, ih = preview.norm_image_size
    fw, fh = preview.frame_size
    touch = type("T", (), {"pos": (preview.center_x - iw / 2 + x / fw * iw, preview.center_y - ih / 2 + (1 - y / fh) * ih)})()
    return preview.on_touch_down(touch)


def _shot(shots: Path, names: set[str]) -> None:
    assert all((shots / f"{name}.png").stat().st_size > 5000 for name in names), names


@pytest.fixture(scope="module")
def window():
    return kivy_window()


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """The app's data folder, with a journal of an old rules version (explained on the home screen)."""
    folder = tmp_path_factory.mktemp("app") / "data"
    (folder / "journals").mkdir(parents=True)
    old = {"format": "companion-journal", "version": 1, "game": "eagle-kingdoms", "rules_version": 0,
           "config": {"players": ["Old", "Timer"]}}
    (folder / "journals" / "old-version.jsonl").write_text(json.dumps(old) + "\n")
    return folder


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    return Path(os.environ.get("COMPANION_SCREENSHOTS") or tmp_path_factory.mktemp("shots"))


@pytest.fixture(scope="module")
def app(window, data, shots):
    from companion.app.main import CompanionApp

    app = CompanionApp(source="demo", data_dir=str(data), screenshot_dir=str(shots), tour=True, language="en")
    app._run_prepare()
    try:
        pump(lambda: not app.tour.busy, timeout=120, what="the home screenshots")  # slow on a shared, busy machine
        yield app
    finally:
        app.stop()


def _on_the_demo(app) -> None:
    """The demo's picture, with its board found."""
    if not app.session.is_demo:
        app.open_source("demo")
    pump(lambda: "history_len" in app.session.observation and app.ui.board_found and app.session.frame is not None
         and "step" in app.session.frame.meta, what="the demo's picture with its board found")


def _a_game(app) -> None:
    """A game at the table (the table screen is shown only during one)."""
    if app.controller.session is None:
        app.controller.new_game("eagle-kingdoms", ["Ann", "Ben"])


def _picture_source(app, tmp_path: Path, name: str, image: np.ndarray) -> None:
    """A folder holding one still picture, opened as the app's (real) source."""
    folder = tmp_path / name
    folder.mkdir()
    cv2.imwrite(str(folder / "board.png"), image)
    app.open_source(f"images:{folder}")


@pytest.fixture(scope="module")
def board():
    """The Eagle Kingdoms board seen by a camera: the board map, a true homography and its picture."""
    from companion.workshop.boards.synth_table import random_homography, render_scene

    board = load_board_map(reference_map_path("eagle-kingdoms"))
    rng = np.random.default_rng(11)
    true_H = random_homography(board, rng, (960, 720))
    return board, true_H, render_scene(board, true_H, (960, 720), rng=rng).image


# --- the home screen --------------------------------------------------------------------------------------------
def test_home_lists_the_games_explains_an_old_journal_and_switches_language(app, shots):
    home = app.sm.get_screen("home")
    app.go("home")
    assert "Eagle Kingdoms" in home.ids.game.values
    assert any("version" in getattr(w, "text", "") for w in home.ids.resume.children)
    home.ids.language.dispatch("on_release")
    assert app.ui.lang == "de" and home.ids.start.text == "Spiel starten"
    home.ids.language.dispatch("on_release")
    assert app.ui.lang == "en" and home.ids.start.text == "Start game"
    assert HOME_SHOTS <= {p.stem for p in app.tour.taken}
    _shot(shots, HOME_SHOTS)


def test_the_scoring_screens_count_within_the_box_and_total_by_the_rules(app):
    """One counter screen, each with its own kinds, limits and total."""
    from companion.app.scoring import tile_points
    from companion.games.eagle_kingdoms import rules as ek

    tally, tiles = app.sm.get_screen("tally"), app.sm.get_screen("tiles")
    app.go("tally")
    tally.bump(0, 1)
    tally.bump(0, ek.COUNTS[0] + 5)  # never more than the box holds
    tally.bump(1, -1)  # never fewer than none
    counts = tally.tally.counts
    assert counts[:2] == [ek.COUNTS[0], 0] and tally.count_labels[0].text == str(ek.COUNTS[0])
    kingdoms = ek.kingdoms_of(counts)
    assert tally.total_text == tr("tally:total", points=ek.score_of(counts), kingdoms=kingdoms,
                                  bonus=kingdoms * ek.KINGDOM_BONUS)
    tally.clear()
    assert sum(tally.tally.counts) == 0
    app.go("tiles")
    tiles.bump(1, 2)
    assert tiles.total_text == tr("tiles:total", points=tile_points({"berry": 0, "silver": 2, "gold": 0}))
    tiles.ids.young.state = "down"
    assert tiles.total_text == tr("tiles:total", points=tile_points({"berry": 0, "silver": 2, "gold": 0}, True))
    tiles.ids.young.state = "normal"
    tiles.clear()
    app.go("home")


# --- set-up on the demo's picture ---------------------------------------------------------------------------------
def test_setup_teaches_the_board_by_taps_on_the_demos_picture(app, data, shots):
    """The live indicator, teach the board on the demo's picture (real markers), the dice (nothing to tell apart)."""
    _on_the_demo(app)
    app.go("setup")
    setup = app.sm.get_screen("setup")
    assert setup.ids.indicator.text == tr("setup:board_found")
    setup.ids.teach.dispatch("on_release")
    assert setup.flow == "teach", setup.flow_text
    app.tour.shoot("setup", "setup-teach", keep=True)
    pump(lambda: not app.tour.busy, what="the teaching screenshot")
    preview = setup.ids.preview
    while setup.teaching.current is not None:
        x, y = setup.teaching.expected_px(setup.teaching.current)
        assert _tap(preview, x + 1.5, y)
    setup.ids.save.dispatch("on_release")
    assert setup.flow == "" and (data / "boards" / "eagle-kingdoms.fitted.json").is_file(), setup.flow_text
    setup.ids.dice.dispatch("on_release")
    assert setup.flow == "" and setup.flow_text == tr("setup:dice_none")
    _shot(shots, {"setup-teach"})
    app.go("home")


def test_setup_taps_the_four_corners_naming_each_and_takes_back_a_slip(app, shots):
    """Tap the 4 corners (the fallback when no marker is found): each corner named in turn, a slip taken back."""
    _on_the_demo(app)
    app.go("setup")
    setup = app.sm.get_screen("setup")
    preview = setup.ids.preview
    size = board_size_mm("eagle-kingdoms")
    demo_corners = cv2.perspectiveTransform(np.float64([[(0, 0)], [(size[0], 0)], [(size[0], size[1])], [(0, size[1])]]),
                                            demo_homography(size)).reshape(-1, 2)
    setup.ids.corners.dispatch("on_release")
    assert setup.flow == "corners" and tr("setup:corner_top_left") in setup.flow_text
    assert _tap(preview, *demo_corners[0]) and tr("setup:corner_top_right") in setup.flow_text
    assert _tap(preview, *demo_corners[1])
    assert _tap(preview, 5, 5)  # a slip of the finger ...
    assert setup.ids.capture.text == tr("setup:corners_undo")
    setup.ids.capture.dispatch("on_release")  # ... taken back
    assert len(setup.corners.taps) == 2 and tr("setup:corner_bottom_right") in setup.flow_text
    app.tour.shoot("setup", "setup-corners", keep=True)
    pump(lambda: not app.tour.busy, what="the corners screenshot")
    assert _tap(preview, *demo_corners[2]) and _tap(preview, *demo_corners[3])
    assert setup.flow == "" and setup.flow_text == tr("setup:corners_done") and setup.corners.done
    _shot(shots, {"setup-corners"})
    app.go("home")


# --- the demo game ------------------------------------------------------------------------------------------------
def test_the_preview_uploads_each_frame_and_redraws_its_overlay_only_on_a_change(app, monkeypatch):
    from companion.app import camera_session
    from companion.app.widgets import Preview, software_gl

    app.go("home")
    app.sm.get_screen("home").ids.demo.dispatch("on_release")
    assert app.sm.current == "table" and app.session.demo.following
    table = app.sm.get_screen("table")
    pump(lambda: app.controller.proposal is not None, what="the camera's first proposal")
    preview = table.ids.preview
    pump(lambda: preview.overlay_key is not None, what="the overlay")
    uploads, overlays = preview.uploads, preview.overlay_uploads
    looked_up, redrawn_keys = [], [preview.overlay_key]
    monkeypatch.setattr(camera_session, "board_geometry", lambda name: looked_up.append(name) or {})
    set_overlay = preview.set_overlay
    monkeypatch.setattr(preview, "set_overlay", lambda layer, key=None: (redrawn_keys.append(key), set_overlay(layer, key)))
    pump(lambda: preview.uploads >= uploads + 10, what="preview frames")
    # a reading may still change as the worker catches up on a busy machine: then, and only then, it is redrawn
    assert preview.overlay_uploads - overlays == len(redrawn_keys) - 1 <= 2
    assert all(a != b for a, b in itertools.pairwise(redrawn_keys))
    assert looked_up == []  # the demo board's geometry is read once per game, not per frame
    # the frame goes up as RGBA (one OpenCV swizzle into a kept buffer), into the texture the preview keeps
    texture, shown = preview.texture, preview.shown_frame.image
    assert texture.colorfmt == "rgba" and preview._rgba.shape[:2] == shown.shape[:2]
    assert (preview._rgba[..., 0] == shown[..., 2]).all() and (preview._rgba[..., 3] == 255).all()
    assert preview.fresh_textures == software_gl()
    for fresh in (False, True):  # a GPU keeps one texture; software GL (llvmpipe) gets one per frame
        probe = Preview()
        probe.fresh_textures = fresh
        probe.show(shown)
        first = probe.texture
        probe.show(shown[::-1].copy())
        assert (probe.texture is first) is not fresh and probe.texture.size == first.size
        assert (probe._rgba[0, :, 2] == shown[-1, :, 0]).all()


def test_the_demo_game_is_refereed_through_every_screen_to_its_end(app, monkeypatch, shots):
    from companion.journal import Journal

    started = time.monotonic()
    ctl = app.controller
    table = app.sm.get_screen("table")
    app.go("home")
    app.sm.get_screen("home").ids.demo.dispatch("on_release")
    assert app.sm.current == "table" and app.session.demo.following
    script = app.session.demo.script
    # the first proposal arrives from the worker thread via the Clock
    pump(lambda: ctl.proposal is not None, what="the camera's first proposal")
    assert ctl.proposal.source == "camera" and ctl.proposal.action == script.truth(0)
    assert table.has_proposal and table.ids.confirm.text == "Confirm"
    header = json.loads(ctl.session.journal.path.read_text().splitlines()[0])
    assert header["metadata"]["colours"]  # kept in the header, nothing beside the journal
    assert [p.name for p in ctl.session.journal.path.parent.glob(ctl.session.journal.path.stem + "*")] == [
        ctl.session.journal.path.name]

    # confirm: journal first, then the confirmation on screen
    order = []
    original = Journal.append_action

    def spy(self, action, player, text):
        original(self, action, player, text)
        order.append("journal")

    monkeypatch.setattr(Journal, "append_action", spy)
    app.events.clear()
    real_refresh = table.refresh_messages

    def shown():
        real_refresh()
        if "Saved:" in table.messages_text:
            order.append("shown")

    monkeypatch.setattr(table, "refresh_messages", shown)
    table.ids.confirm.dispatch("on_release")
    assert order[:2] == ["journal", "shown"] and "confirmation shown" in app.events
    monkeypatch.setattr(table, "refresh_messages", real_refresh)

    # manual dice entry: tap one face per die
    assert ctl.phase == "chance"
    ctl.discard()
    truth = dice_values(script.truth(1))
    faces = [w for row in table.ids.entry.children for w in getattr(row, "children", []) if hasattr(w, "face")]
    for die, value in enumerate(truth):
        next(b for b in faces if b.die_index == die and b.face == value).dispatch("on_release")
    assert ctl.proposal.source == "manual" and ctl.proposal.action == script.truth(1)
    table.ids.confirm.dispatch("on_release")

    # the rest of the game: camera readings, corrections, a choice by tap, an undo
    chose = undone = corrected = False
    steps = 0
    while ctl.phase != "over":
        steps += 1
        assert steps < 2000
        step = len(ctl.session.history)
        app.on_observation(ctl.generation, script.observation(step))
        if app.tour.busy:  # the proposal's screenshot, before it is confirmed
            pump(lambda: not app.tour.busy, what="screenshots")
        if ctl.phase == "decision" and not chose and len(ctl.choices()) > 1:
            buttons = [b for b in table.ids.entry.children if hasattr(b, "choice_index")]
            target = next(b for b in buttons if ctl.choices()[b.choice_index].action == script.truth(step))
            target.dispatch("on_release")
            assert ctl.proposal.source == "choice"
            chose = True
        if ctl.proposal is not None and ctl.proposal.uncertain and not corrected:
            assert table.confirm_text == tr("table:confirm_checked")
            assert any("?" in b.text for b in table.ids.proposal_dice.children)
            corrected = ctl.proposal.action != script.truth(step)
        guard = 0
        while ctl.proposal is not None and len(ctl.session.history) == step:
            app.autopilot.step()
            guard += 1
            assert guard < 5
        assert ctl.session.history[-1] == script.truth(step), f"step {step}"
        if not undone and step == len(script) // 3:
            app.go("history")
            before = len(ctl.session.history)
            app.sm.get_screen("history").ids.undo.dispatch("on_release")
            assert len(ctl.session.history) == before - 1
            app.go("table")
            undone = True
        if app.tour.busy:
            pump(lambda: not app.tour.busy, what="screenshots")
        if steps % 25 == 0:
            pump(lambda: True)
    assert chose and undone
    pump(lambda: not app.tour.busy and app.sm.current == "end", what="the end screen")
    end = app.sm.get_screen("end")
    assert "Bonus" in end.final_text and "Kingdoms" in end.final_text
    assert end.winner_text.startswith("Winner")
    journal = ctl.session.journal.path.read_text().splitlines()
    assert len(journal) == len(ctl.session.history) + 1 + 2  # header, actions, the undone action and its undo record
    assert all(p.name != ctl.session.journal.path.name for p in [i.path for i in ctl.unfinished()])
    assert GAME_SHOTS <= {p.stem for p in app.tour.taken}
    _shot(shots, GAME_SHOTS)
    assert time.monotonic() - started < 240


def test_a_phone_shaped_window_lays_the_table_out_for_portrait(app, window):
    _a_game(app)
    size = tuple(window.size)
    window.size = (420, 820)
    try:
        pump(lambda: app.ui.portrait, what="portrait layout")
        app.go("table")
        pump(lambda: True)
        table = app.sm.get_screen("table")
        assert table.ids.panel.parent.parent.orientation == "vertical"
    finally:
        window.size = size
    pump(lambda: not app.ui.portrait, what="landscape layout")


# --- real pictures: the board pose is tracked, not the demo's fixed view --------------------------------------------
def test_a_real_picture_source_tracks_the_board_pose(app, board, tmp_path):
    board_map, true_H, image = board
    _picture_source(app, tmp_path, "frames", image)
    app.go("setup")
    pump(lambda: app.session.board.homography is not None, timeout=30, what="the tracked board pose")
    assert app.ui.board_found and app.sm.get_screen("setup").ids.indicator.text == tr("setup:board_found")
    H, geometry = app.session.board_view()
    corners = board_map.board_corners_mm().reshape(-1, 1, 2).astype(np.float64)
    seen = cv2.perspectiveTransform(corners, H).reshape(-1, 2)
    assert np.abs(seen - cv2.perspectiveTransform(corners, true_H).reshape(-1, 2)).max() < 3.0
    assert not np.allclose(H, demo_homography(board_map.size_mm)) and "shield" in geometry
    assert not app.ui.view_leaning and app.sm.get_screen("setup").ids.lean.text == ""


def test_a_camera_low_at_the_tables_side_is_advised_to_rise(app, board, tmp_path):
    """Dice are read poorly from low down: set-up says so, and the table's picture too, in short."""
    from companion.workshop.boards.synth_table import camera_homography, render_scene

    board_map = board[0]
    low = render_scene(board_map, camera_homography(board_map, 60, (960, 720)), (960, 720), rng=np.random.default_rng(11))
    _picture_source(app, tmp_path, "low", low.image)
    app.go("setup")
    pump(lambda: app.ui.view_leaning, timeout=30, what="the low camera seen")
    pump(lambda: True)
    assert app.ui.board_found and abs(app.ui.view_angle - 60) < 3
    assert app.sm.get_screen("setup").ids.lean.text == tr("camera:lean", angle=round(app.ui.view_angle), limit=45)
    _a_game(app)
    app.go("table")
    table = app.sm.get_screen("table")
    lean_short = tr("camera:lean_short", angle=round(app.ui.view_angle))

    def advised() -> bool:  # a still picture sends no new frame: draw the table's overlay (again after a resize)
        table.show_frame(app.session.frame)
        line = (table.ids.preview.overlay_key or (None,) * 4)[3] or ""  # the line over the picture (the key: size, screen, status...)
        return line == lean_short or line.endswith(f" - {lean_short}")  # after the reader's status, if any

    pump(advised, what="the short advice over the table's picture")


def test_with_the_markers_hidden_the_table_offers_to_tap_the_four_corners(app, board, tmp_path):
    board_map, true_H, image = board
    _a_game(app)
    table = app.sm.get_screen("table")
    _on_the_demo(app)
    assert table.ids.tap_corners.opacity == 0  # the demo finds its board: no corners to tap
    hidden = image.copy()
    for fid in board_map.fiducials:
        quad = cv2.perspectiveTransform(fid.corners_mm().reshape(-1, 1, 2).astype(np.float64), true_H).reshape(-1, 2)
        cv2.fillConvexPoly(hidden, (quad.mean(0) + (quad - quad.mean(0)) * 1.6).round().astype(np.int32), (128, 128, 128))
    _picture_source(app, tmp_path, "hidden", hidden)
    app.go("setup")
    pump(lambda: app.ui.board_status == "board not in view", timeout=30, what="the board not found")
    assert not app.ui.board_found
    app.go("table")  # the table offers the corners while the board is not found
    pump(lambda: True)
    assert table.ids.tap_corners.opacity == 1 and not table.ids.tap_corners.disabled
    table.ids.tap_corners.dispatch("on_release")
    setup = app.sm.get_screen("setup")
    assert app.sm.current == "setup" and setup.flow == "corners"
    for corner in cv2.perspectiveTransform(board_map.board_corners_mm().reshape(-1, 1, 2).astype(np.float64),
                                           true_H).reshape(-1, 2):
        assert _tap(setup.ids.preview, *corner)
    assert setup.flow == "" and setup.flow_text == tr("setup:corners_done")
    frame = app.session.frame  # a still picture: hand it to the worker again, as a camera's next frame would be
    app.session.worker.submit(app.controller.generation, frame.image, frame.meta, time.monotonic())
    pump(lambda: app.ui.board_found, timeout=30, what="the board found from the tapped corners")
    assert app.ui.board_source == "tapped" and setup.ids.indicator.text == tr("setup:board_found_tapped")


def test_a_camera_profile_is_chosen_and_saved_and_a_damaged_one_explained(app, board, data, tmp_path):
    from companion.app import paths
    from companion.vision.intrinsics import CameraProfile

    _picture_source(app, tmp_path, "frames", board[2])
    (tmp_path / "bad.json").write_text("{damaged")
    notice = app.set_camera_profile(str(tmp_path / "bad.json"))
    assert "bad.json" in notice and app.session.profile is None and app.sm.get_screen("home").message == notice
    CameraProfile("desk-cam", (960, 720), np.array([[800.0, 0, 480], [0, 800.0, 360], [0, 0, 1]]), np.zeros(5)).save(data / "cameras")
    app.go("home")
    app.go("setup")
    setup = app.sm.get_screen("setup")
    assert "desk-cam" in setup.ids.profile.values and setup.ids.profile.text == tr("setup:profile_none")
    setup.ids.profile.text = "desk-cam"
    assert app.session.profile.name == "desk-cam" and app.session.recognizer.camera is app.session.profile
    assert setup.profile_text == tr("setup:profile_used", name="desk-cam")
    assert paths.load_settings(data)["camera_profile"].endswith("desk-cam.json")
    setup.ids.profile.text = tr("setup:profile_none")
    assert app.session.profile is None and paths.load_settings(data)["camera_profile"] == ""


def test_a_real_camera_reads_a_roll_again_when_asked(app, board, tmp_path):
    """The camera reports each roll once: the family can ask for it again."""
    ctl = app.controller
    _picture_source(app, tmp_path, "frames", board[2])
    ctl.new_game("eagle-kingdoms", ["Ann", "Ben"])
    ctl.observe(ctl.generation, DemoScript.load().observation(0))  # the set-up
    ctl.confirm()
    assert ctl.dice_specs()
    app.go("table")
    pump(lambda: True)
    table = app.sm.get_screen("table")
    buttons = [w for w in table.ids.entry.walk() if getattr(w, "text", None) == tr("table:read_again")]
    assert len(buttons) == 1 and app.session.recognizer.asked_again == 0
    buttons[0].dispatch("on_release")
    assert app.session.recognizer.asked_again == 1  # the pipeline's next frame reads the dice in view again
    assert ctl.vision_status == tr("table:reading_again")


def test_a_camera_that_disappears_is_said_plainly_and_nothing_is_lost(app):
    from companion.vision.sources import FrameGrabber

    app.session.close()
    app.session.grabber = FrameGrabber(_Lost()).start()
    app.session.lost_reported = False
    pump(lambda: app.session.lost_reported, what="the lost camera")
    assert app.controller.messages[-1].text == tr("table:camera_lost")
    assert app.ui.source_name == tr("table:manual")
    app.open_source("demo")


class _Permission(CameraPermission):
    """Android's camera permission as the app sees it: not yet granted; the answer comes later, off the UI thread."""

    def __init__(self):
        super().__init__()
        self.allowed, self.asked = False, []

    def granted(self):
        return self.allowed

    def ask(self, then):
        self.asked.append(then)


def test_the_camera_opens_once_android_grants_its_permission_and_can_be_opened_again(app, monkeypatch, tmp_path):
    import threading

    opened = []
    monkeypatch.setattr(app.session, "open", lambda spec: opened.append(spec) or "")
    permission = app.permission = _Permission()
    try:
        app.open_camera("camera:0")
        assert opened == ["demo"] and len(permission.asked) == 1  # the demo shows while the family is asked
        assert app.sm.get_screen("home").message == tr("table:camera_asked")
        permission.asked[0](False)  # "deny"
        pump(lambda: app.sm.get_screen("home").message == tr("table:camera_refused"), what="the refusal said")
        assert opened == ["demo"]
        app.go("setup")
        app.sm.get_screen("setup").ids.open_camera.dispatch("on_release")  # the way back: asked again
        assert len(permission.asked) == 2
        permission.allowed = True
        threading.Thread(target=permission.asked[1], args=(True,)).start()  # p4a answers on its own thread
        pump(lambda: opened[-1] == "auto", what="the camera opened on the answer")
        app.sm.get_screen("setup").ids.open_camera.dispatch("on_release")  # granted: opened at once
        assert opened[-2:] == ["auto", "auto"] and len(permission.asked) == 2
    finally:
        app.permission = CameraPermission()
        monkeypatch.undo()
        app.go("home")
        app.open_source("demo")


def test_a_video_that_ends_says_so_and_keeps_its_last_picture(app, board, tmp_path):
    _a_game(app)
    _picture_source(app, tmp_path, "short-film", board[2])
    pump(lambda: app.session.lost_reported, what="the end of the pictures")
    assert app.controller.messages[-1].text == tr("table:source_ended", source="short-film")
    assert app.session.frame is not None and app.ui.source_name == "short-film"
    app.open_source("demo")


def test_undo_3_asks_first_and_no_keeps_the_game(app, tmp_path):
    ctl = app.controller
    ctl.new_game("mighty-magpies", ["Ann", "Ben"])
    while len(ctl.session.history) < 5:
        ctl.random_outcome() if ctl.phase == "chance" else ctl.propose(ctl.state.legal_actions()[0], "typed")
        ctl.confirm()
    before = list(ctl.session.history)
    app.go("history")
    history = app.sm.get_screen("history")
    history.ids.undo3.dispatch("on_release")
    pump(lambda: history.undo_popup is not None and history.undo_popup.parent is not None, what="the question")
    buttons = [w for w in history.undo_popup.content.walk() if hasattr(w, "dispatch") and getattr(w, "text", "") in
               (tr("history:undo_yes", count=3), tr("common:no"))]
    assert ctl.session.history == before  # asking takes nothing back
    next(b for b in buttons if b.text == tr("common:no")).dispatch("on_release")
    assert ctl.session.history == before
    history.ids.undo3.dispatch("on_release")
    yes = next(w for w in history.undo_popup.content.walk() if getattr(w, "text", "") == tr("history:undo_yes", count=3))
    yes.dispatch("on_release")
    assert ctl.session.history == before[:-3]
    app.go("home")


@pytest.mark.parametrize("game", ["falconry", "verzauberte-eulen", "mighty-magpies"])
def test_each_games_demo_plays_on_its_own_board(app, game):
    """``companion app --source demo --game G``: the demo of G, its own board in the picture (found by G's map)."""
    from companion.cli import build_parser
    from companion.vision.pose import estimate_pose

    assert build_parser().parse_args(["app", "--source", "demo", "--game", game]).game == game
    app.start_demo(game)
    assert app.controller.module.name == game and app.sm.current == "table"
    pump(lambda: app.session.frame is not None and app.session.frame.meta.get("game") == game, what=f"{game}'s picture")
    image = app.session.frame.image
    if game != "falconry":  # Falconry's recording looks closely at its cards, its markers out of the picture
        assert estimate_pose(image, load_board_map(reference_map_path(game))).usable
    pump(lambda: tr(f"game:{game}") in app.sm.get_screen("table").ids.title.text, what="the game named in the title")
    app.session.demo.stop()
    app.go("home")


@pytest.mark.rules("VE-SETUP-CORNER")
def test_setup_offers_the_empty_boards_photo_for_a_board_with_nests_and_refuses_one_with_owls_on_it(app, data, shots):
    """The set-up covers Verzauberte Eulen's nests with owls: "photo of the empty board" is offered for it (not for
    Eagle Kingdoms), and the demo's picture, owls on their starting spaces, is no empty board: said, nothing kept."""
    from companion.vision.teach import bare_look_path

    _on_the_demo(app)
    app.go("setup")
    setup = app.sm.get_screen("setup")
    assert not setup.has_nests and setup.ids.empty_board.height == 0
    app.start_demo("verzauberte-eulen")
    pump(lambda: app.session.frame is not None and app.session.frame.meta.get("game") == "verzauberte-eulen", what="the owls' picture")
    app.go("setup")
    assert setup.has_nests and setup.ids.empty_board.opacity == 1
    setup.ids.empty_board.dispatch("on_release")
    assert setup.flow_text.startswith(tr("setup:empty_not_empty", spaces="").split("(")[0]), setup.flow_text
    assert not bare_look_path(data, "verzauberte-eulen").exists()
    app.tour.shoot("setup", "setup-empty-board", size=(360, 780), keep=True)
    pump(lambda: not app.tour.busy, timeout=120, what="the empty board's screenshot")
    app.set_language("de")
    try:
        setup.ids.empty_board.dispatch("on_release")
        assert setup.flow_text.startswith("Auf dem Brett stehen noch Figuren"), setup.flow_text
        app.tour.shoot("setup", "setup-empty-board-de", size=(360, 780), keep=True)
        pump(lambda: not app.tour.busy, timeout=120, what="the empty board's screenshot in German")
    finally:
        app.set_language("en")
    _shot(shots, {"setup-empty-board", "setup-empty-board-de"})
    app.session.demo.stop()
    app.go("home")


@pytest.mark.rules("VE-SETUP-COLOUR", "VE-SETUP-CORNER")
def test_verzauberte_eulen_colours_and_corners_are_chosen_on_the_home_screen(app):
    """Issue 22: colours and corners are the players' choice; the app's set-up offers them and the game gets them."""
    home = app.sm.get_screen("home")
    app.go("home")
    home.choose("verzauberte-eulen")
    home.ids.players.text = "Ann, Ben"
    home.options_open = True
    home.show_options()
    colours, corners = home._option_widgets["colours"], home._option_widgets["corners"]
    assert len(colours) == 2 and len(corners) == 2  # one per player
    for spinner, word in zip(colours, (tr("choice:verzauberte-eulen:green"), tr("choice:verzauberte-eulen:yellow")), strict=True):
        spinner.text = spinner.prefix + word
    corners[0].text = corners[0].prefix + tr("choice:verzauberte-eulen:ne")
    home.ids.start.dispatch("on_release")
    assert home.start_message == tr("home:options_incomplete")  # one corner left open, one chosen: asked for both
    corners[1].text = corners[1].prefix + tr("choice:verzauberte-eulen:sw")
    home.ids.start.dispatch("on_release")
    assert app.controller.module.name == "verzauberte-eulen" and app.sm.current == "table"
    options = app.controller.session.game.options
    assert options["colours"] == ["green", "yellow"] and options["corners"] == ["ne", "sw"]
    home.options_open = False
    app.go("home")
