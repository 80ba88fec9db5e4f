"""The camera session (no Kivy): sources and their fallbacks, frames to the worker, readings to the board
seen, the overlay's key and the demo played along."""

from __future__ import annotations

import threading
import time

import numpy as np

from companion.app.camera_session import CameraSession, Overlay
from companion.app.i18n import tr


def _wait(until, timeout=20.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if until():
            return True
        time.sleep(0.01)
    return False


def test_the_demo_source_sends_frames_to_the_worker_and_its_readings_back(tmp_path):
    delivered = []
    arrived = threading.Event()
    session = CameraSession(tmp_path, lambda g, obs, t: delivered.append((g, obs)), on_frame=arrived.set)
    try:
        assert session.open("demo") == "" and session.is_demo and not session.live
        assert session.recognizer is None  # the demo's scripted reader needs no board tracking
        assert arrived.wait(30)
        assert _wait(lambda: session.next_frame(7) is not None)
        frame = session.frame
        assert session.next_frame(7) is None  # each frame is taken once
        assert frame.meta == {"step": 0, "game": "eagle-kingdoms"}
        assert _wait(lambda: delivered)
        generation, observation = delivered[0]
        assert generation == 7 and observation["status"] == "board found"
        assert session.take(observation) == "" and session.board.found and session.board.homography is None
        H, geometry = session.board_view()
        assert H is not None and "shield" in geometry  # the demo's fixed view of its board
    finally:
        session.close()


def test_a_source_that_cannot_be_opened_is_explained_and_falls_back_to_manual(tmp_path):
    session = CameraSession(tmp_path, lambda *a: None)
    notice = session.open(f"video:{tmp_path / 'missing.mp4'}")
    assert notice.startswith(tr("table:bad_video", source=f"video:{tmp_path / 'missing.mp4'}", reason="")[:20])
    assert session.grabber is None and session.worker is None and not session.live
    assert session.name == tr("table:manual") and session.next_frame(0) is None


def test_a_camera_reading_moves_the_board_seen_and_the_overlay_with_it(tmp_path):
    session = CameraSession(tmp_path, lambda *a: None)
    session.is_demo = False
    obs = {"board": "board found", "board_source": "markers", "homography": np.eye(3).tolist(),
           "view_angle": 52.0, "view_leaning": True, "view_lean_limit": 45.0}
    assert session.take(obs) == ""
    board = session.board
    assert (board.status, board.found, board.source, board.view_angle, board.leaning) == ("board found", True, "markers",
                                                                                        52.0, True)
    assert np.array_equal(board.homography, np.eye(3))
    lean = tr("camera:lean_short", angle=52)
    assert session.picture_status("reading dice") == f"reading the dice - {lean}"
    session.take({"board": "board not in view"})
    assert not session.board.found and session.board.homography is None
    assert session.picture_status("") == "board not in view"
    key, draw = session.overlay((64, 48), Overlay(status="x"), "table")
    assert key[2:4] == ("table", "x") and draw().shape == (48, 64, 4)
    dice = [{"box": (10, 10, 20, 20), "value": 3, "uncertain": True}]
    assert session.overlay((64, 48), Overlay(dice=dice, status="x"), "table")[0] != key
    assert session.overlay((64, 48), Overlay(), "table")[1]() is None  # nothing to show: no layer
    assert session.die_at(dice, 12, 12) == 0 and session.die_at(dice, 60, 40) is None


def test_a_profile_that_does_not_fit_the_camera_is_set_aside_with_the_reason(tmp_path):
    session = CameraSession(tmp_path, lambda *a: None)
    assert "absent.json" in session.set_profile(tmp_path / "absent.json") and session.profile is None
    session.profile, session.profile_name = object(), "hd-cam"
    assert session.take({"camera_warning": "does not fit", "board": "board found"}) == "does not fit"
    assert session.profile is None and session.profile_name == "" and session.profile_notice == "does not fit"


def test_the_demo_follows_the_game_until_it_goes_its_own_way(tmp_path):
    session = CameraSession(tmp_path, lambda *a: None)
    session.is_demo = True
    demo = session.demo
    script = demo.load()
    demo.start()
    assert demo.following and demo.step == 0 and session.feeds_the_game()
    assert demo.follow(script.actions[:3]) and demo.step == 3
    other = dict(script.actions[3], type="something else")
    assert not demo.follow(script.actions[:3] + [other]) and not demo.following and not session.feeds_the_game()
    session.resume_game(script.module.name, script.actions[:5])
    assert demo.following and demo.step == 5
    session.resume_game("falconry", [])  # Falconry's own recording, from its start
    assert demo.following and demo.step == 0 and demo.script.module.name == "falconry"
    session.resume_game(script.module.name, [other])  # a game the recording never played
    assert not demo.following
    session.is_demo = False
    session.resume_game(script.module.name, script.actions[:5])
    assert not demo.following and session.feeds_the_game()  # a real camera's readings always go to the game
