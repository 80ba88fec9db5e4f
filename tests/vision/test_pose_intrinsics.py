"""Camera intrinsics from synthetic ChArUco views, and pose through a distorting lens."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion.vision.intrinsics import CalibrationError, CameraProfile, CharucoSpec, calibrate_charuco
from companion.vision.pose import BoardTracker, PoseStatus, estimate_pose
from companion.workshop.boards.synth_table import corner_error_mm, example_board_map, random_scene, render_plane_view

TRUE = CameraProfile(
    "true", (640, 480), np.array([[700.0, 0, 322], [0, 700.0, 236], [0, 0, 1]]), np.array([-0.22, 0.06, 0.0, 0.0, 0.0])
)


def _views(n: int, seed: int = 0) -> list[np.ndarray]:
    spec = CharucoSpec()
    s = 4.0
    texture = spec.image(s)
    to_tex = np.array([[s, 0, -0.5], [0, s, -0.5], [0, 0, 1]])
    centre = np.array([spec.squares_x * spec.square_mm / 2, spec.squares_y * spec.square_mm / 2, 0])
    rng = np.random.default_rng(seed)
    views = []
    for _ in range(n):
        rvec = np.r_[rng.uniform(-0.45, 0.45, 2), rng.uniform(-0.3, 0.3)]
        R, _ = cv2.Rodrigues(rvec)
        tvec = -R @ centre + np.r_[rng.uniform(-25, 25, 2), rng.uniform(300, 380)]
        views.append(render_plane_view(texture, to_tex, TRUE, rvec, tvec))
    return views


def test_charuco_calibration_recovers_the_camera(tmp_path):
    profile = calibrate_charuco(_views(8), name="synthetic")
    assert profile.views >= 6 and profile.rms_px < 0.5
    assert profile.camera_matrix[0, 0] == pytest.approx(700, rel=0.02)
    assert profile.camera_matrix[1, 1] == pytest.approx(700, rel=0.02)
    assert profile.camera_matrix[0, 2] == pytest.approx(322, abs=8)
    assert profile.camera_matrix[1, 2] == pytest.approx(236, abs=8)
    assert profile.dist_coeffs[0] == pytest.approx(-0.22, abs=0.05)
    # a point near the image corner undistorts like the true lens does
    corner = np.array([[20.0, 20.0]])
    assert np.abs(profile.undistort_points(corner) - TRUE.undistort_points(corner)).max() < 2.0
    path = profile.save(tmp_path)
    again = CameraProfile.load(path)
    np.testing.assert_allclose(again.camera_matrix, profile.camera_matrix, atol=1e-5)
    assert again.image_size == (640, 480)


def test_too_few_views_and_damaged_profiles_are_refused(tmp_path):
    with pytest.raises(CalibrationError, match="need 4"):
        calibrate_charuco([np.full((480, 640), 128, np.uint8)] * 5)
    bad = tmp_path / "cam.json"
    bad.write_text(json.dumps({**TRUE.to_dict(), "camera_matrix": [[1, 0], [0, 1]]}))
    with pytest.raises(CalibrationError, match="damaged camera profile"):
        CameraProfile.load(bad)
    bad.write_text("{")
    with pytest.raises(CalibrationError, match="cannot read"):
        CameraProfile.load(bad)


def test_distort_and_undistort_are_inverse():
    pts = np.array([[5.0, 7.0], [320, 240], [600, 470]])
    np.testing.assert_allclose(TRUE.distort_points(TRUE.undistort_points(pts)), pts, atol=0.05)


def test_pose_through_a_wide_angle_lens_needs_the_profile():
    board = example_board_map()
    lens = CameraProfile(
        "wide",
        (1280, 720),
        np.array([[800.0, 0, 640], [0, 800.0, 360], [0, 0, 1]]),
        np.array([-0.3, 0.09, 0.0, 0.0, 0.0]),
    )
    scene = random_scene(board, np.random.default_rng(21), camera=lens, fill=(0.8, 0.85))
    with_profile = estimate_pose(scene.image, board, camera=lens)
    assert with_profile.status is PoseStatus.FOUND
    err = corner_error_mm(board, scene.homography, with_profile.homography)
    assert err < 1.0
    without = estimate_pose(scene.image, board)
    assert without.homography is None or corner_error_mm(board, scene.homography, without.homography) > 2 * err
    # rectifying through the profile straightens the board: markers land where the map says
    canvas = BoardTracker(board, camera=lens).rectify(scene.image, with_profile, 2.0)
    corners, ids, _ = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)).detectMarkers(
        canvas
    )
    assert sorted(ids.ravel()) == [0, 1, 2, 3]
    for c, i in zip(corners, ids.ravel(), strict=True):
        assert np.abs(c.reshape(4, 2) - (board.fiducial(int(i)).corners_mm() * 2.0 - 0.5)).max() < 2.0
