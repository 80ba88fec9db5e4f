"""Board pose in the app, the set-up flows (teach the board, show each die once), the overlay layer,
the worker's rate cap, the demo's real scene and the saved player colours. No Kivy."""

from __future__ import annotations

import json
import threading
import time

import cv2
import numpy as np
import pytest
from journal_tools import as_format_1

from companion.app import overlay
from companion.app.calibration import board_map_for, load_registry, reference_map_path
from companion.app.controller import Controller
from companion.app.setup_flow import BoardTeaching, DiceRegistration, dice_roles
from companion.app.table_camera import TableRecognizer
from companion.app.words import space_name
from companion.app.worker import RecognitionWorker
from companion.vision.boardmap import MapSource, load_board_map, load_user_map

GAME = "eagle-kingdoms"


@pytest.fixture(scope="module")
def scene():
    """A synthetic camera frame of the Eagle Kingdoms board (markers included) and its true homography."""
    from companion.workshop.boards.synth_table import random_homography, render_scene

    board = load_board_map(reference_map_path(GAME))
    rng = np.random.default_rng(5)
    H = random_homography(board, rng, (960, 720))
    return board, render_scene(board, H, (960, 720), rng=rng).image, H


def _corner_px_error(board, H_true, H_est):
    corners = board.board_corners_mm().reshape(-1, 1, 2).astype(np.float64)
    a = cv2.perspectiveTransform(corners, H_true).reshape(-1, 2)
    b = cv2.perspectiveTransform(corners, np.asarray(H_est, np.float64)).reshape(-1, 2)
    return float(np.abs(a - b).max())


def test_the_camera_tracks_the_board_of_the_game(scene, tmp_path):
    board, image, H = scene
    rec = TableRecognizer(tmp_path)
    assert rec(image, {}) == {}  # no game chosen yet: nothing to look for
    rec.set_game(GAME)
    obs = rec(image, {})
    assert obs["board"] == "board found" and obs["board_source"] == "markers"
    assert rec.info.source == MapSource.REFERENCE.value and rec._pipeline.tracker.board is rec.info.map
    assert _corner_px_error(board, H, obs["homography"]) < 3.0
    assert rec.info.geometry()["shield"] == board.region("shield").center_mm
    blank = np.full_like(image, 90)
    rec.set_game(GAME, reload=True)
    assert rec(blank, {})["board"] in ("board not in view", "too dark") and "homography" not in rec(blank, {})
    rec.set_game("no-such-game")
    assert rec(image, {})["board"] == "no board map"
    info, why = board_map_for("no-such-game", tmp_path)
    assert info is None and "no board map" in why


def test_the_camera_says_when_it_sees_the_table_too_obliquely(tmp_path):
    """Dice are read poorly beyond about 45 degrees from straight down (pose_config.json "view"): the camera
    path reports the angle and whether it is past that, so the app can advise raising the camera."""
    from companion.workshop.boards.synth_table import camera_homography, render_scene

    board = load_board_map(reference_map_path(GAME))
    rec = TableRecognizer(tmp_path)
    rec.set_game(GAME)
    seen = {}
    for tilt in (15, 60):
        image = render_scene(board, camera_homography(board, tilt, (960, 720)), (960, 720),
                             rng=np.random.default_rng(tilt)).image
        rec.set_game(GAME, reload=True)  # a new camera position: no pose carried over
        obs = rec(image, {})
        assert "homography" in obs, obs["board"]
        seen[tilt] = (obs["view_angle"], obs["view_leaning"], obs["view_lean_limit"])
    assert abs(seen[15][0] - 15) < 2 and seen[15][1] is False
    assert abs(seen[60][0] - 60) < 2 and seen[60][1] is True and seen[60][2] == 45.0
    assert "view_angle" not in rec(np.full((720, 960, 3), 90, np.uint8), {})  # no board, no angle


def test_teach_the_board_from_taps_saves_the_fitted_map_the_tracker_then_uses(scene, tmp_path):
    board, image, H = scene
    teaching = BoardTeaching(GAME, tmp_path)
    assert len(teaching.targets) == 5 and len(set(teaching.targets)) == 5
    ok, text = teaching.start(np.full_like(image, 90))
    assert not ok and "not found" in text
    ok, text = teaching.start(image)
    assert ok and space_name(GAME, teaching.targets[0], "en") in text and teaching.targets[0] not in text
    shift = np.array([4.0, 0.0])  # the family's board is printed 4 mm to the right of the reference
    first = teaching.current
    ex, ey = teaching.expected_px(first)
    centre = np.asarray(board.region(first).center_mm)
    assert np.hypot(*(cv2.perspectiveTransform(centre.reshape(1, 1, 2), H).ravel() - (ex, ey))) < 3.0
    while teaching.current is not None:
        c = np.asarray(board.region(teaching.current).center_mm) + shift
        x, y = cv2.perspectiveTransform(c.reshape(1, 1, 2).astype(np.float64), H).ravel()
        teaching.tap(x, y)
    assert teaching.ready and "Save" in teaching.prompt()
    ok, text = teaching.finish()
    assert ok and teaching.saved.is_file() and "mm" in text
    user = load_user_map(board, tmp_path)
    assert user.source is MapSource.FITTED
    moved = np.subtract(user.map.region("shield").center_mm, board.region("shield").center_mm)
    assert abs(moved[0] - 4.0) < 1.5 and abs(moved[1]) < 1.5
    rec = TableRecognizer(tmp_path)
    rec.set_game(GAME)
    obs = rec(image, {})
    assert rec.info.source == MapSource.FITTED.value and obs["board"] in ("board found", "markers partly hidden")
    assert rec._pipeline.board is rec.info.map and rec._pipeline.tracker.board is rec.info.map  # read and tracked
    assert np.allclose(rec._pipeline.board.region("shield").center_mm, user.map.region("shield").center_mm)


def test_teaching_with_a_wild_tap_is_explained_and_starts_over(scene, tmp_path):
    board, image, H = scene
    teaching = BoardTeaching(GAME, tmp_path, targets=1)
    assert teaching.start(image)[0]
    teaching.tap(1.0, 1.0)  # the corner of the picture, far from the space asked for
    ok, text = teaching.finish()
    assert not ok and "did not fit" in text and teaching.index == 0 and teaching.saved is None


def _dice_frame(colours):
    img = np.full((240, 480, 3), 200, np.uint8)
    boxes = []
    for i, bgr in enumerate(colours):
        x = 40 + i * 140
        cv2.rectangle(img, (x, 80), (x + 60, 140), bgr, -1)
        boxes.append([x, 80, 60, 60])
    return img, boxes


def test_show_each_die_once_registers_every_role_and_the_reader_can_tell_them_apart(tmp_path):
    assert [r for r, _ in dice_roles("verzauberte-eulen")] == ["head", "body", "eye"]
    reg = DiceRegistration("verzauberte-eulen", tmp_path)
    assert reg.needed and "head" in reg.prompt()
    colours = [(30, 30, 200), (200, 60, 30), (40, 180, 40)]
    frame, boxes = _dice_frame(colours)
    ok, text = reg.capture(frame, [])
    assert not ok and "No die" in text
    ok, text = reg.capture(frame, [{"kind": "d6", "box": b} for b in boxes])
    assert not ok and "3 dice" in text
    for i in range(3):
        alone, box = _dice_frame([colours[i]])
        ok, text = reg.capture(alone, [{"kind": "d6", "box": box[0]}])
        assert ok
    assert reg.done and reg.saved.is_file() and "3 dice" in text
    registry = load_registry(tmp_path, "verzauberte-eulen")
    assert [registry.identify(frame, b, "d6") for b in boxes] == ["head", "body", "eye"]
    assert not DiceRegistration(GAME, tmp_path).needed  # two alike d6: nothing to tell apart


def test_the_camera_hands_the_registered_dice_and_the_games_kinds_to_the_dice_reader(tmp_path, scene):
    board, image, _ = scene
    rec = TableRecognizer(tmp_path)
    rec.set_game("verzauberte-eulen")
    rec(image, {})
    assert rec._pipeline.registry is None  # none registered yet: dice of one kind stay anonymous
    reg = DiceRegistration("verzauberte-eulen", tmp_path)
    for c in [(30, 30, 200), (200, 60, 30), (40, 180, 40)]:
        alone, box = _dice_frame([c])
        reg.capture(alone, [{"kind": "d6", "box": box[0]}])
    rec.set_game("verzauberte-eulen", reload=True)  # as the set-up screen does once every die was shown
    rec(image, {})
    pipeline = rec._pipeline
    assert [d.name for d in pipeline.registry.dice] == ["head", "body", "eye"]
    reader = pipeline.dice_reader()
    assert reader.registry is pipeline.registry
    assert pipeline.dice_kinds == ("d6",) and reader.kinds == ("d6",)  # only this game's dice (ruling 6)
    rec.set_game("mighty-magpies")
    rec(image, {})
    assert rec._pipeline.dice_kinds == ("colour",) and rec._pipeline.dice_reader().kinds == ("magpie",)  # the reader's word


def test_overlay_layer_is_transparent_and_only_made_when_something_shows():
    assert overlay.layer((64, 48), [], {}, {}, None) is None
    dice = [{"box": (10, 10, 20, 20), "value": 3, "uncertain": True}]
    layer = overlay.layer((64, 48), dice, {}, {}, None, "reading dice")
    assert layer.shape == (48, 64, 4) and layer[..., 3].max() == 255 and layer[40:, 50:, 3].max() == 0
    image = np.full((48, 64, 3), 77, np.uint8)
    composed = overlay.compose(image, dice, {}, {}, None, "reading dice")
    assert np.array_equal(composed, overlay.blend(image, layer)) and not np.array_equal(composed, image)
    H = np.eye(3)
    marks = overlay.layer((64, 48), [], {"a": "legal"}, {"a": (30.0, 30.0)}, H)
    assert marks[30, 15, 3] == 255 and overlay.hit_space({"a": "legal"}, {"a": (30.0, 30.0)}, H, 33, 28) == "a"


def test_worker_caps_its_rate_and_runs_below_the_ui_priority():
    started, done = [], []

    def recognize(image, meta):
        started.append(time.perf_counter())
        return {"n": meta["n"]}

    worker = RecognitionWorker(recognize, lambda g, obs, t: done.append(obs), max_hz=10).start()
    n = 0
    try:  # counted in frames, not seconds: a loaded machine only makes the test slower
        while len(done) < 4 and n < 20_000:
            worker.submit(1, np.zeros((2, 2, 3), np.uint8), {"n": n}, time.monotonic())
            n += 1
            time.sleep(0.005)
    finally:
        worker.stop()
    assert len(done) >= 4 and min(np.diff(started)) >= 0.1 - 0.002  # never more than 10 a second
    read = [obs["n"] for obs in done]
    assert worker.replaced > 0 and read == sorted(set(read))  # waiting frames give way to newer ones
    if hasattr(__import__("os"), "setpriority") and threading.current_thread() is threading.main_thread():
        assert worker.niced


def test_demo_draws_the_real_scene_one_step_ahead():
    from companion.app.demo import DemoScript, demo_homography
    from companion.app.demo_render import renderer_for
    from companion.app.demo_scene import SceneRenderer
    from companion.vision.pose import estimate_pose

    script = DemoScript.load()
    lazy = renderer_for(script)
    frame = lazy(script, 1)  # a roll: the dice are drawn in
    renderer = lazy.renderer
    assert isinstance(renderer, SceneRenderer), lazy.error
    assert frame.shape == (480, 640, 3)
    t = time.perf_counter()
    again = renderer(script, 1)
    assert again is frame and time.perf_counter() - t < 0.01  # per frame: a look-up
    renderer._job(script, 2).result(timeout=30)  # step 2 was drawn ahead
    board = load_board_map(reference_map_path(GAME))
    pose = estimate_pose(frame, board)
    assert pose.usable and _corner_px_error(board, demo_homography(board.size_mm), pose.homography) < 4.0
    assert isinstance(renderer_for(script, "placeholder"), type(renderer_for(script, "no-such-renderer")))
    other = DemoScript.load(game="mighty-magpies")  # each game's recording draws its own board
    own = renderer_for(other)
    magpies = own(other, 0)
    assert isinstance(own.renderer, SceneRenderer) and not own.error
    assert estimate_pose(magpies, load_board_map(reference_map_path("mighty-magpies"))).usable
    assert not estimate_pose(magpies, board).usable  # not the Eagle Kingdoms board


def test_player_colours_are_kept_in_the_journal_header_for_a_resume(tmp_path):
    ctl = Controller(tmp_path, seed=1)
    ctl.new_game(GAME, ["Ann", "Ben", "Cy"], colours=[3, 2, 1, 0, 0, 1])
    path = ctl.session.journal.path
    header = json.loads(path.read_text().splitlines()[0])
    assert header["metadata"]["colours"][:3] == [3, 2, 1]
    # nothing beside the journal but, while it is open, the hidden note of who holds its lock
    assert [p.name for p in path.parent.iterdir() if p.name != f".{path.name}.lock"] == [path.name]
    ctl.random_outcome()
    ctl.confirm()
    ctl.close()
    again = Controller(tmp_path)
    again.resume(path)
    assert again.colours[:3] == [3, 2, 1]
    again.close()


def test_a_journal_without_colours_in_its_header_gets_the_default_colours(tmp_path):
    ctl = Controller(tmp_path, seed=1)
    ctl.new_game(GAME, ["Ann", "Ben", "Cy"], colours=[3, 2, 1])
    path = ctl.session.journal.path
    ctl.close()
    as_format_1(path, drop_metadata=True)
    old = Controller(tmp_path)
    old.resume(path)
    assert old.colours[:3] == [0, 1, 2]
    old.close()


def test_score_my_tiles_reads_a_photo_and_scores_by_the_rules():
    from companion.app.scoring import read_tiles, tile_points
    from companion.workshop.boards.scenes.mighty_magpies import render_tiles

    assert tile_points({"berry": 2, "silver": 2, "gold": 1}) == 2 + 3 + 1
    assert tile_points({"berry": 2, "silver": 2, "gold": 1}, young=True) == 5
    image = render_tiles({"berry": 3, "silver": 2, "gold": 1}, np.random.default_rng(2))
    reading = read_tiles(image)
    assert reading.ok and reading.counts == [3, 2, 1], reading
    assert not read_tiles(None).ok


def test_kingdom_read_by_camera_counts_each_kind_and_says_when_unsure():
    from companion.app.scoring import read_kingdom
    from companion.games.eagle_kingdoms.rules import NK

    class Stand:
        def __init__(self, label, uncertain=False):
            self.label, self.uncertain, self.centre_px = label, uncertain, (4.0, 4.0)

    class Reading:
        usable, status = True, "ok"
        stands = [Stand(1), Stand(1), Stand(10), Stand("jester", True)]

    class Reader:
        def read(self, image):
            return Reading()

    reading = read_kingdom(np.zeros((8, 8, 3), np.uint8), Reader())
    assert reading.ok and sum(reading.counts) == 4 and len(reading.counts) == NK and reading.unsure == 1
    assert max(reading.counts) == 2

    class Broken:
        def read(self, image):
            raise RuntimeError("model missing")

    reading = read_kingdom(np.zeros((8, 8, 3), np.uint8), Broken())
    assert not reading.ok and "model missing" in reading.message


def _hide_markers(board, image, H):
    """The scene with every corner marker painted over (what a hand, a shadow or a lost marker does)."""
    out = image.copy()
    for fid in board.fiducials:
        corners = cv2.perspectiveTransform(fid.corners_mm().reshape(-1, 1, 2).astype(np.float64), H).reshape(-1, 2)
        centre = corners.mean(axis=0)
        grown = (centre + (corners - centre) * 1.6).round().astype(np.int32)
        cv2.fillConvexPoly(out, grown, (128, 128, 128))
    return out


def _true_corners(board, H):
    return cv2.perspectiveTransform(board.board_corners_mm().reshape(-1, 1, 2).astype(np.float64), H).reshape(-1, 2)


def test_corner_tapping_names_each_corner_allows_redo_and_checks_the_four(scene):
    from companion.app.i18n import tr
    from companion.app.setup_flow import CORNERS, CornerTapping

    board, _image, H = scene
    truth = [tuple(p) for p in _true_corners(board, H)]
    flow = CornerTapping(board)
    assert flow.current == "top_left" and tr("setup:corner_top_left") in flow.prompt() and "1 of 4" in flow.prompt()
    assert flow.tap(*truth[0]) == (False, flow.prompt()) and flow.current == "top_right"
    flow.tap(500.0, 5.0)  # a slip of the finger
    assert flow.current == "bottom_right" and flow.marks()[1] == ((500.0, 5.0), "2")
    assert flow.undo() == flow.prompt() and flow.current == "top_right" and len(flow.taps) == 1
    for xy in truth[1:3]:
        assert flow.tap(*xy)[0] is False
    assert tr("setup:corner_bottom_left") in flow.prompt()
    ok, text = flow.tap(*truth[3])
    assert ok and flow.done and text == tr("setup:corners_done") and flow.corners == truth
    assert _corner_px_error(board, H, flow.pose.homography) < 1e-3 and flow.pose.source == "tapped"
    # in the wrong order (clockwise from the wrong corner, crossing): explained, and the taps start over
    wrong = CornerTapping(board)
    for xy in (truth[0], truth[2], truth[1], truth[3]):
        ok, text = wrong.tap(*xy)
    assert not ok and text == tr("setup:corners_bad") and wrong.taps == [] and wrong.current == CORNERS[0]
    assert wrong.restart() == wrong.prompt() and not wrong.done


def test_tapped_corners_find_the_board_without_markers_until_the_picture_changes(scene, tmp_path):
    board, image, H = scene
    hidden = _hide_markers(board, image, H)
    rec = TableRecognizer(tmp_path)
    rec.set_game(GAME)
    obs = rec(hidden, {})
    assert obs["board"] == "board not in view" and "homography" not in obs  # no marker: no pose
    rec.tap_corners([tuple(p) for p in _true_corners(board, H)])
    obs = rec(hidden, {})
    assert obs["board"] == "board found" and obs["board_source"] == "tapped"
    assert _corner_px_error(board, H, obs["homography"]) < 1.0
    assert rec(hidden, {})["board_source"] == "tapped"  # they hold frame after frame
    rec.set_game(GAME, reload=True)  # the board was taught again: same board, same view, the taps still hold
    assert rec(hidden, {})["board_source"] == "tapped"
    moved = np.roll(hidden, 120, axis=1)  # the camera moved: the taps no longer fit, say so
    obs = rec(moved, {})
    assert obs["board"] == "camera moved - re-checking" and "homography" not in obs
    assert rec(hidden, {})["board"] == "board not in view"  # forgotten: tap again
    rec.tap_corners([tuple(p) for p in _true_corners(board, H)])
    assert rec(hidden, {})["board_source"] == "tapped"
    rec.tap_corners(None)  # forget them
    assert rec(hidden, {})["board"] == "board not in view"
    assert rec(image, {})["board_source"] in ("markers", "tracked")  # markers win whenever they show


def test_camera_profile_is_loaded_or_explained_and_reaches_the_pose_stage(scene, tmp_path):
    from companion.app.calibration import camera_profiles, load_camera_profile
    from companion.app.i18n import tr
    from companion.vision.intrinsics import CameraProfile

    board, image, H = scene
    assert load_camera_profile(None) == (None, "") and load_camera_profile("") == (None, "")
    profile, why = load_camera_profile(tmp_path / "absent.json")
    assert profile is None and why == tr("camera:profile_missing", path=str(tmp_path / "absent.json"))
    (tmp_path / "broken.json").write_text("{not json")
    profile, why = load_camera_profile(tmp_path / "broken.json")
    assert profile is None and "broken.json" in why and "lens correction" in why
    (tmp_path / "wrong.json").write_text(json.dumps({"format_version": 1, "camera_matrix": [[1, 0], [0, 1]]}))
    assert load_camera_profile(tmp_path / "wrong.json")[0] is None
    K = np.array([[800.0, 0, 480], [0, 800.0, 360], [0, 0, 1]])
    good = CameraProfile("desk-cam", (960, 720), K, np.zeros(5)).save(tmp_path / "cameras")
    profile, why = load_camera_profile(good)
    assert why == "" and profile.name == "desk-cam"
    assert good in camera_profiles(tmp_path, cameras_dir=tmp_path / "none")
    rec = TableRecognizer(tmp_path, camera=profile)
    rec.set_game(GAME)
    obs = rec(image, {})  # the pipeline undistorts each frame with the profile before the pose stage
    assert obs["board"] == "board found" and rec._pipeline.camera is profile
    assert _corner_px_error(board, H, obs["homography"]) < 3.0  # a distortion-free profile changes nothing
    rec.set_camera(None)
    rec(image, {})
    assert rec._pipeline.camera is None
    # a profile of another picture size would bend this picture wrongly: said once, set aside
    rec.set_camera(CameraProfile("hd-cam", (1280, 720), K, np.zeros(5)))
    obs = rec(image, {})
    assert obs["camera_warning"] == tr("camera:profile_size", name="hd-cam", profile="1280x720", frame="960x720")
    assert obs["board"] == "board found" and rec.camera is None and rec._pipeline.camera is None
    assert "camera_warning" not in rec(image, {})
    rec.set_game(GAME, reload=True)  # a pipeline built anew does not take the profile set aside again
    assert "camera_warning" not in rec(image, {}) and rec._pipeline.camera is None
    # the overlay projects board points through the profile's distortion onto the raw picture
    bent = CameraProfile("bent", (960, 720), K, np.array([-0.3, 0.1, 0, 0, 0]))
    centre = [board.size_mm[0] / 2, board.size_mm[1] / 2]
    corner = [0.0, 0.0]
    straight = overlay.project(H, [centre, corner])
    curved = overlay.project(H, [centre, corner], bent)
    from companion.vision.pose import to_image

    assert np.allclose(curved, to_image(H, np.array([centre, corner]), bent), atol=1e-3)
    assert not np.allclose(straight, curved, atol=1.0)


def test_app_command_takes_a_camera_profile(tmp_path, capsys):
    import argparse

    from companion.app import cli

    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers())
    args = parser.parse_args(["app", "--camera-profile", str(tmp_path / "cam.json")])
    assert args.camera_profile == str(tmp_path / "cam.json") and args.func is cli.cmd_app
    assert parser.parse_args(["app"]).camera_profile is None

