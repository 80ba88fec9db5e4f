"""Teach your board: corrections in the photo fit the reference map to the owner's print."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from companion.vision.boardmap import BoardMap, MapSource, load_user_map
from companion.vision.pose import PoseResult, PoseStatus, apply_homography, estimate_pose
from companion.vision.teach import Correction, TeachError, fit_board_map, projected_layout, teach_board
from companion.workshop.boards.synth_table import example_board_map, random_scene, render_scene

REFERENCE = example_board_map()
# The owner's print: 1.5 % small, turned 0.4 degrees, 3 mm right and 2 mm up; one space printed 4.5 mm off.
ANGLE, SCALE, SHIFT = np.deg2rad(0.4), 0.985, np.array([3.0, -2.0])
LOCAL = {"r2c2": (4.0, 2.0)}


def _owner_point(p: np.ndarray) -> np.ndarray:
    c = np.array([160.0, 160.0])
    R = np.array([[np.cos(ANGLE), -np.sin(ANGLE)], [np.sin(ANGLE), np.cos(ANGLE)]])
    return (np.asarray(p) - c) @ R.T * SCALE + c + SHIFT


def _owner_map() -> BoardMap:
    regions = []
    for r in REFERENCE.regions:
        pts = tuple(tuple(_owner_point(np.array(p)) + LOCAL.get(r.id, (0, 0))) for p in r.polygon_mm)
        regions.append(replace(r, polygon_mm=pts))
    return replace(REFERENCE, regions=tuple(regions))


OWNER = _owner_map()


@pytest.fixture(scope="module")
def photo():
    rng = np.random.default_rng(31)
    scene = random_scene(OWNER, rng)
    return scene


def _taps(scene, ids, noise_px=0.3, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for i in ids:
        px = apply_homography(scene.homography, np.array([OWNER.region(i).center_mm]))[0]
        out.append(Correction(i, tuple(px + rng.normal(0, noise_px, 2))))
    return out


def _worst_error(fitted: BoardMap, skip=()) -> float:
    return max(
        np.hypot(*(np.subtract(fitted.region(r.id).center_mm, r.center_mm))) for r in OWNER.regions if r.id not in skip
    )


def test_the_reference_layout_projects_onto_the_photo(photo):
    pose = estimate_pose(photo.image, REFERENCE)
    layout = projected_layout(REFERENCE, pose)
    assert set(layout) == {r.id for r in REFERENCE.regions}
    truth = apply_homography(photo.homography, np.array([REFERENCE.region("r0c0").center_mm]))[0]
    assert np.linalg.norm(layout["r0c0"]["center"] - truth) < 1.0
    assert layout["r0c0"]["outline"].shape == (4, 2)


def test_six_corrections_fit_every_space_within_half_a_millimetre(photo):
    pose = estimate_pose(photo.image, REFERENCE)
    before = max(np.hypot(*np.subtract(REFERENCE.region(r.id).center_mm, r.center_mm)) for r in OWNER.regions)
    assert before > 4.0
    taps = _taps(photo, ["r0c0", "r0c4", "r4c0", "r4c4", "r1c3", "r2c2"])
    fitted, report = fit_board_map(REFERENCE, pose, taps)
    assert report.model == "homography"
    assert set(report.offsets_mm) >= {"r2c2"}
    assert report.offsets_mm["r2c2"] == pytest.approx(LOCAL["r2c2"], abs=0.5)
    assert _worst_error(fitted) < 0.5
    assert fitted.fiducials == REFERENCE.fiducials  # markers stay where the guide put them
    assert fitted.fitted["corrections"] == 6


@pytest.mark.parametrize(
    ("ids", "model", "limit"), [(["r2c3"], "translation", 3.5), (["r0c0", "r4c4"], "similarity", 1.0)]
)
def test_few_corrections_fit_a_simpler_model(photo, ids, model, limit):
    pose = estimate_pose(photo.image, REFERENCE)
    fitted, report = fit_board_map(REFERENCE, pose, _taps(photo, ids))
    assert report.model == model
    assert _worst_error(fitted, skip=LOCAL) < limit  # the misprinted space needs its own tap
    assert report.residual_after_mm < 0.5


def test_useless_corrections_are_refused_with_a_reason(photo):
    pose = estimate_pose(photo.image, REFERENCE)
    with pytest.raises(TeachError, match="no region 'nowhere'"):
        fit_board_map(REFERENCE, pose, [Correction("nowhere", (10, 10))])
    far = apply_homography(photo.homography, np.array([REFERENCE.region("r4c4").center_mm]))[0]
    with pytest.raises(TeachError, match="mm from that space"):
        fit_board_map(REFERENCE, pose, [Correction("r0c0", tuple(far))])
    with pytest.raises(TeachError, match="no usable board pose"):
        fit_board_map(REFERENCE, PoseResult(PoseStatus.NOT_IN_VIEW), [])


def test_teach_saves_a_fitted_map_that_readers_pick_up(photo, tmp_path):
    taps = _taps(photo, ["r0c0", "r0c4", "r4c0", "r4c4", "r1c3", "r2c2"])
    fitted, report, path = teach_board(REFERENCE, photo.image, taps, tmp_path)
    assert path.exists()
    chosen = load_user_map(REFERENCE, tmp_path)
    assert chosen.source is MapSource.FITTED
    assert _worst_error(chosen.map) < 0.5
    # a later photo of the owner's board: the fitted map places the spaces, the reference does not
    later = render_scene(OWNER, photo.homography, rng=np.random.default_rng(5))
    pose = estimate_pose(later.image, chosen.map)
    centre = pose.image_to_board(apply_homography(later.homography, np.array([OWNER.region("r2c2").center_mm])))[0]
    assert chosen.map.region_at(*centre).id == "r2c2"
