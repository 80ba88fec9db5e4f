"""The ordinary conditions of ``companion bench board`` (issue 20's table), applied after rendering."""

from __future__ import annotations

import json
import sys
import types

import cv2
import numpy as np
import pytest

from companion.workshop.boards import bench
from companion.workshop.boards.bench.conditions import CONDITIONS, SMALL_SIZE, apply, covered_share, wide_lens


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(0)
    img = np.clip(rng.normal(120, 20, (720, 1280, 3)), 0, 255).astype(np.uint8)
    img[200:520, 400:880] = (170, 205, 225)  # a beige "board"
    quad = np.array([[400, 200], [880, 200], [880, 520], [400, 520]], np.float64)
    H = np.array([[1.0, 0, 400], [0, 1.0, 200], [0, 0, 1]])  # board mm = px offset
    return img, quad, H


def test_every_condition_keeps_the_frame_and_is_reproducible(frame):
    img, quad, H = frame
    for name in CONDITIONS:
        a = apply(name, img, quad, np.random.default_rng(5), H)
        b = apply(name, img, quad, np.random.default_rng(5), H)
        assert np.array_equal(a.image, b.image), name
        assert a.image.dtype == np.uint8 and a.image.shape == ((SMALL_SIZE[1], SMALL_SIZE[0], 3) if name == "small" else img.shape)
    with pytest.raises(ValueError, match="unknown condition"):
        apply("fog", img, quad, np.random.default_rng(0))


def test_warm_light_shadow_and_defocus_change_what_they_say(frame):
    img, quad, H = frame
    board = img[300, 600].astype(float)
    warm = apply("warm", img, quad, np.random.default_rng(0), H).image[300, 600].astype(float)
    assert warm[0] == pytest.approx(board[0] * 0.7, abs=1) and warm[2] == pytest.approx(min(255, board[2] * 1.15), abs=1)
    shade = apply("shadow", img, quad, np.random.default_rng(1), H).image.astype(float)
    ratio = shade[200:520, 400:880].mean(axis=2) / img[200:520, 400:880].astype(float).mean(axis=2)
    dark = (ratio < 0.8).mean()
    assert 0.25 < dark < 0.42 and ratio.min() > 0.4  # about a third, to about half the light
    sharp = cv2.Laplacian(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var()
    blurred = apply("defocus", img, quad, np.random.default_rng(0), H).image
    assert cv2.Laplacian(cv2.cvtColor(blurred, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var() < 0.2 * sharp


def test_the_wide_lens_bends_the_corners_and_the_small_camera_halves_the_frame(frame):
    img, quad, H = frame
    lens = wide_lens((1280, 720))
    corner = lens.distort_points(np.array([[0.0, 0.0]]))[0]
    assert 20 < corner[0] < 80 and 10 < corner[1] < 60  # barrel: the corner is pulled in
    bent = apply("wide-lens", img, quad, np.random.default_rng(0), H)
    assert bent.camera is not None and bent.camera.dist_coeffs[0] == pytest.approx(-0.15)
    small = apply("small", img, quad, np.random.default_rng(0), H)
    p = cv2.perspectiveTransform(np.array([[[0.0, 0.0]]]), small.homography)[0, 0]
    assert p == pytest.approx([199.75, 99.75])  # board (0, 0) at frame (400, 200): half, pixel centres


def test_a_hand_covers_a_tenth_of_the_area_and_says_where(frame):
    img, quad, H = frame
    shares = []
    for seed in range(4):
        out = apply("hand", img, quad, np.random.default_rng(seed), H)
        inside = np.zeros(img.shape[:2], np.uint8)
        cv2.fillPoly(inside, [quad.astype(np.int32)], 1)
        shares.append(((out.cover > 0) & (inside > 0)).sum() / inside.sum())
        covered = np.argwhere(out.cover > 0)[:50][:, ::-1].astype(float) - (400, 200)  # board mm of covered px
        assert covered_share(covered, out) == 1.0 and covered_share(np.array([[-300.0, -150.0]]), out) in (0.0, 1.0)
    assert all(0.06 < s < 0.16 for s in shares), shares


def test_bench_board_reports_each_condition_and_rendition_and_judges_silent_errors(monkeypatch, capsys):
    calls = []

    def evaluate(scenes, seed, condition="as-rendered", rendition=1):
        calls.append((condition, rendition))
        return {"scenes": scenes, "silent_error": 0.002 if condition == "hand" and rendition == 2 else 0.0, "board_exact": 1.0}

    fake = types.ModuleType("fake_cond_eval")
    fake.evaluate = evaluate
    monkeypatch.setitem(sys.modules, "fake_cond_eval", fake)
    monkeypatch.setattr(bench, "EVALUATORS", {"g": "fake_cond_eval:evaluate"})
    assert bench.main(["--json", "--scenes", "2", "--conditions", "warm,hand", "--renditions", "1,2"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert set(report["g"]) == {"r1", "r2"} and set(report["g"]["r2"]) == {"warm", "hand"}
    assert calls == [("warm", 1), ("hand", 1), ("warm", 2), ("hand", 2)]
    assert report["targets"]["silent_error_max"] == 0.001
    assert bench.main(["--scenes", "1", "--conditions", "warm", "--renditions", "1"]) == 0
    assert bench.main(["--conditions", "fog"]) == 2 and bench.main(["--conditions", "warm", "--renditions", "3"]) == 2


def test_bench_board_draws_rendition_2_as_another_box_and_refuses_a_box_that_is_no_box(monkeypatch, capsys):
    from companion.workshop.boards.scenes import art

    boxes = []

    def evaluate(scenes, seed, condition="as-rendered", rendition=1):
        boxes.append((art.BOX_SEED, art.BOX_HUE))
        return {"scenes": scenes, "silent_error": 0.0, "board_exact": 1.0}

    fake = types.ModuleType("fake_box_eval")
    fake.evaluate = evaluate
    monkeypatch.setitem(sys.modules, "fake_box_eval", fake)
    monkeypatch.setattr(bench, "EVALUATORS", {"g": "fake_box_eval:evaluate"})
    assert bench.main(["--json", "--scenes", "1", "--conditions", "warm", "--renditions", "2", "--box", "33:120"]) == 0
    assert bench.main(["--json", "--scenes", "1", "--conditions", "warm", "--renditions", "2"]) == 0
    assert boxes == [(33, 120.0), (20, 0.0)]  # the next run without --box draws the usual box again
    capsys.readouterr()
    assert bench.main(["--conditions", "warm", "--box", "blue"]) == 2
    assert "SEED:HUE" in capsys.readouterr().err


def test_another_box_turns_its_printed_colours_round_the_hue_circle_and_leaves_rendition_1_alone():
    from companion.workshop.boards.scenes import art
    from companion.workshop.table.film import GameFilm

    def first_frame(rendition):
        return next(iter(GameFilm("mighty-magpies", 3, rendition=rendition, light=False).frames()))

    usual = [first_frame(1), first_frame(2)]
    art.use_box("33:120")
    try:
        assert np.allclose(art.turned([0, 0, 255]), [0, 255, 0], atol=8)  # a red print comes out green
        other = [first_frame(1), first_frame(2)]
    finally:
        art.use_box(art.DEFAULT_BOX)
    assert np.array_equal(art.turned([0, 0, 255]), [0, 0, 255])
    assert np.array_equal(other[0], usual[0])
    assert np.abs(other[1].astype(int) - usual[1].astype(int)).mean() > 5
