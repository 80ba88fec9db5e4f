"""Board pose in the app, the set-up flows (teach the board, show each die once), the overlay layer,
the worker's rate cap, the demo's real scene and the saved player colours. No Kivy."""

from __future__ import annotations

import json
import threading
import time

import cv2
import numpy as np
import pytest

from companion.app import overlay
from companion.app.board import CameraRecognizer, board_map_for, reference_map_path
from companion.app.controller import Controller, app_file
from companion.app.setup_flow import BoardTeaching, DiceRegistration, dice_roles, load_registry
from companion.app.worker import RecognitionWorker
from companion.vision.boardmap import MapSource, load_board_map, load_user_map

GAME = "eagle-kingdoms"


@pytest.fixture(scope="module")
def scene():
    """A synthetic camera frame of the Eagle Kingdoms board (markers included) and its true homography."""
    from companion.vision.synth_table import random_homography, render_scene

    board = load_board_map(reference_map_path(GAME))
    rng = np.random.default_rng(5)
    H = random_homography(board, rng, (960, 720))
    return board, render_scene(board, H, (960, 720), rng=rng).image, H


def _corner_px_error(board, H_true, H_est):
    corners = board.board_corners_mm().reshape(-1, 1, 2).astype(np.float64)
    a = cv2.perspectiveTransform(corners, H_true).reshape(-1, 2)
    b = cv2.perspectiveTransform(corners, np.asarray(H_est, np.float64)).reshape(-1, 2)
    return float(np.abs(a - b).max())


def test_camera_recognizer_tracks_the_board_of_the_game(scene, tmp_path):
    board, image, H = scene
    rec = CameraRecognizer(tmp_path)
    assert rec(image, {}) == {}  # no game chosen yet: nothing to look for
    rec.set_game(GAME)
    obs = rec(image, {})
    assert obs["board"] == "board found" and obs["board_map"] == MapSource.REFERENCE.value
    assert _corner_px_error(board, H, obs["homography"]) < 3.0
    assert rec.info.geometry()["shield"] == board.region("shield").center_mm
    blank = np.full_like(image, 90)
    rec.set_game(GAME, reload=True)
    assert rec(blank, {})["board"] in ("board not in view", "too dark") and "homography" not in rec(blank, {})
    rec.set_game("no-such-game")
    assert rec(image, {})["board"] == "no board map"
    info, why = board_map_for("no-such-game", tmp_path)
    assert info is None and "no board map" in why


def test_teach_the_board_from_taps_saves_the_fitted_map_the_tracker_then_uses(scene, tmp_path):
    board, image, H = scene
    teaching = BoardTeaching(GAME, tmp_path)
    assert len(teaching.targets) == 5 and len(set(teaching.targets)) == 5
    ok, text = teaching.start(np.full_like(image, 90))
    assert not ok and "not found" in text
    ok, text = teaching.start(image)
    assert ok and teaching.targets[0] in text
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
    rec = CameraRecognizer(tmp_path)
    rec.set_game(GAME)
    obs = rec(image, {})
    assert obs["board_map"] == MapSource.FITTED.value and obs["board"] in ("board found", "markers partly hidden")


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


def test_camera_recognizer_hands_the_registered_dice_to_the_dice_reader(tmp_path, scene):
    board, image, _ = scene

    class Dice:
        registry = "unset"

        def set_registry(self, registry):
            self.registry = registry

        def __call__(self, image, meta):
            return {"status": "no dice in view"}

    reg = DiceRegistration("verzauberte-eulen", tmp_path)
    for c in [(30, 30, 200), (200, 60, 30), (40, 180, 40)]:
        alone, box = _dice_frame([c])
        reg.capture(alone, [{"kind": "d6", "box": box[0]}])
    dice = Dice()
    rec = CameraRecognizer(tmp_path, dice)
    rec.set_game("verzauberte-eulen")
    obs = rec(image, {})
    assert obs["status"] == "no dice in view" and [d.name for d in dice.registry.dice] == ["head", "body", "eye"]


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
    done = []
    worker = RecognitionWorker(lambda image, meta: {"n": meta["n"]}, lambda g, obs, t: done.append(obs), max_hz=10).start()
    try:
        end = time.monotonic() + 0.65
        n = 0
        while time.monotonic() < end:
            worker.submit(1, np.zeros((2, 2, 3), np.uint8), {"n": n}, time.monotonic())
            n += 1
            time.sleep(0.005)
        time.sleep(0.15)
    finally:
        worker.stop()
    assert 3 <= len(done) <= 9 and worker.replaced > 20  # ~10 a second, always the newest frame
    if hasattr(__import__("os"), "setpriority") and threading.current_thread() is threading.main_thread():
        assert worker.niced


def test_demo_draws_the_real_scene_one_step_ahead():
    from companion.app.demo import DemoScript, demo_homography, renderer_for
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
    other = DemoScript(dict(script.data, game="mighty-magpies", config={"players": ["A", "B"]}, actions=[]))
    fallback = renderer_for(other)
    assert fallback(other, 0).shape == (480, 640, 3) and "Eagle Kingdoms only" in fallback.error


def test_player_colours_are_kept_beside_the_journal_for_a_resume(tmp_path):
    ctl = Controller(tmp_path, seed=1)
    ctl.new_game(GAME, ["Ann", "Ben", "Cy"], colours=[3, 2, 1, 0, 0, 1])
    path = ctl.session.journal.path
    assert json.loads(app_file(path).read_text())["colours"][:3] == [3, 2, 1]
    ctl.random_outcome()
    ctl.confirm()
    ctl.close()
    again = Controller(tmp_path)
    again.resume(path)
    assert again.colours[:3] == [3, 2, 1]
    again.close()
    app_file(path).write_text("{damaged")
    third = Controller(tmp_path)
    third.resume(path)
    assert third.colours[:3] == [0, 1, 2]
    third.close()
    assert [p.name for p in (tmp_path / "journals").glob("*.jsonl")] == [path.name]


def test_score_my_tiles_reads_a_photo_and_scores_by_the_rules():
    from companion.app.scoring import read_tiles, tile_points
    from companion.vision.scenes.mighty_magpies import render_tiles

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
            self.label, self.uncertain = label, uncertain

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
