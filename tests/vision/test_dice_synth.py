"""The synthetic renderer: the labels it teaches (what a face reads) and the tables it draws."""

import cv2
import numpy as np
import pytest

from companion.vision.classes import NONE
from companion.workshop.dice import synth

LIGHT = np.array([0.0, 0.0, 1.0])


@pytest.mark.parametrize("kind,value", [("d6", 2), ("d8", 2), ("d8", 7), ("magpie", "magpie")])
def test_face_textures_are_never_mirrored(monkeypatch, kind, value):
    # a mirrored 2 on a d8 reads as a 5 once rotated: every face warp must keep the texture's handedness
    dets = []
    for name in ("getAffineTransform", "getPerspectiveTransform"):
        orig = getattr(synth.cv2, name)

        def record(src, dst, *a, orig=orig):
            m = orig(src, dst, *a)
            # the sign of a homography's Jacobian is the sign of its 3x3 determinant wherever w > 0
            # (the upper-left 2x2 alone misjudges a nearly edge-on face)
            h = np.vstack([np.asarray(m, np.float64), [0, 0, 1]])[:3]
            dets.append(float(np.linalg.det(h)))
            return m

        monkeypatch.setattr(synth.cv2, name, record)
    rng = np.random.default_rng(0)
    for _ in range(10):
        synth.render_die(rng, kind, value, 60, float(rng.uniform(0, 0.6)), LIGHT, tilt=float(rng.uniform(0, 0.3)))
    assert dets and all(d > 0 for d in dets), dets


def test_top_margin_says_which_face_looks_at_the_camera():
    rng = np.random.default_rng(1)
    straight, oblique = {}, {}
    synth.render_die(rng, "d8", 3, 60, 0.0, LIGHT, info=straight)
    synth.render_die(rng, "d8", 3, 60, 1.0, LIGHT, info=oblique)  # seen from 57 degrees: a side face looks at the camera
    assert straight["top_margin"] > 0.5
    assert oblique["top_margin"] < synth.TOP_MARGIN


@pytest.mark.parametrize("roll,top_is_above", [(0.0, True), (np.pi, False)])
def test_a_leaning_upright_camera_shows_the_upward_face_at_the_top(roll, top_is_above):
    # the classifier learns "the upward face is the one at the top of the die" from upright renders
    rng = np.random.default_rng(3)
    sprite, top = synth.render_die(rng, "d6", 4, 60, 0.9, LIGHT, roll=roll)
    rows = np.arange(sprite.shape[0])[:, None]
    top_y = float((top * rows).sum() / top.sum())
    die_y = float((sprite[..., 3] * rows).sum() / sprite[..., 3].sum())
    assert (top_y < die_y - 3) if top_is_above else (top_y > die_y + 3)


def test_scene_labels_follow_visibility_and_obliqueness():
    rng = np.random.default_rng(2)
    seen = {True: 0, False: 0}
    oblique_but_readable = 0
    for _ in range(40):
        for d in synth.render_scene(rng, 256, 256).dice:
            if d.upright:  # an upright camera: readable until the upward face turns nearly edge-on
                readable = d.top_visible > 0.8 and d.top_cos > synth.MIN_TOP_COS
                oblique_but_readable += readable and d.top_margin <= synth.TOP_MARGIN
            else:  # any roll: the upward face must clearly be the one looking at the camera
                readable = d.top_visible > 0.8 and d.top_margin > synth.TOP_MARGIN
            assert (d.label != NONE) == readable
            seen[d.upright] += 1
    assert seen[True] > 20 and seen[False] > 20
    assert oblique_but_readable > 0  # the two rules differ on these scenes


@pytest.mark.parametrize("texture", ["carpet", "printed_pattern", "illustrated_board"])
def test_busy_tables_are_reproducible_and_full_of_pip_sized_detail(texture):
    """Carpets, polka dots and printed boards are where a detector taught on plain tables sees phantom
    dice: the renderer must give them, at the scale of pips, and the same ones for the same seed."""
    draw = getattr(synth, texture)
    detail = []
    for seed in range(8):
        img = draw(np.random.default_rng(seed), 160, 200)
        assert img.shape == (160, 200, 3) and np.isfinite(img).all()
        assert np.array_equal(img, draw(np.random.default_rng(seed), 160, 200))
        grey = cv2.cvtColor(np.clip(img, 0, 255).astype(np.uint8), cv2.COLOR_BGR2GRAY).astype(np.float32)
        detail.append((grey - cv2.GaussianBlur(grey, (0, 0), 4)).std())  # detail smaller than about 8 px
    assert np.median(detail) > 4  # 0 on a plain colour; some cloths are low-contrast, most are not


def test_illustrated_boards_are_painted_in_several_regions():
    """A printed board is a map of coloured regions (fields, water, paths), not one colour with noise."""
    for seed in range(6):
        board = synth.illustrated_board(np.random.default_rng(seed), 192, 256)
        coarse = (cv2.resize(board, (16, 12), interpolation=cv2.INTER_AREA) // 32).reshape(-1, 3)
        assert len({tuple(c) for c in coarse.astype(int)}) >= 3


def test_a_blank_eighth_face_has_no_numeral_and_only_the_d8_changes():
    """EK-R-D8-BLANK: a box whose Enchanted Die leaves its eighth face blank (``blank_eight``)."""
    m = synth.random_material(np.random.default_rng(0))
    _tex, ink = synth.face_texture(np.random.default_rng(1), "d8", 8, m, triangle=True)
    _tex, blank_ink = synth.face_texture(np.random.default_rng(1), "d8", 8, m, triangle=True, blank=True)
    assert ink.max() > 0.5 and blank_ink.max() == 0
    # the share is drawn only for a d8, so a scene without one is the same pixel for pixel
    d6 = [synth.render_scene(np.random.default_rng(2), 160, 160, n_dice=3, kinds=("d6",), blank_eight=b).image
          for b in (0.0, 1.0)]
    np.testing.assert_array_equal(*d6)
    d8 = [synth.render_scene(np.random.default_rng(3), 160, 160, n_dice=3, kinds=("d8",), blank_eight=b).image
          for b in (0.0, 1.0)]
    assert not np.array_equal(*d8)


def test_the_classifiers_training_crops_pass_the_blank_eighth_face_share_to_the_renderer(monkeypatch):
    """``train --blank-eight`` (EK-R-D8-BLANK): the share reaches every rendered scene."""
    from companion.workshop.dice import train

    seen = []
    real = synth.render_scene

    def recording(*args, **kw):
        seen.append(kw.get("blank_eight"))
        return real(*args, **kw)

    monkeypatch.setattr(synth, "render_scene", recording)
    crops = train._cls_chunk((3, 2, 48, train.CROP_JITTER, 0.5))
    assert seen == [0.5, 0.5] and crops


def test_the_classifiers_small_dice_share_blurs_crops_as_a_die_seen_from_afar():
    """``train --small-dice``: a share of the crops is shrunk to a die 13-30 px across and scaled back, so the
    sharp dice of the real photos also teach the small dice a phone at the table's side sees."""
    from companion.workshop.dice import train

    sharp = np.indices((48, 48)).sum(axis=0) % 2 * 255  # pip-sized detail a small die cannot show
    crops = np.repeat(np.stack([sharp] * 3, axis=-1)[None].astype(np.uint8), 8, axis=0)
    upright = np.ones(8, bool)

    def detail(x):
        return float(np.mean([cv2.Laplacian(c[..., 0], cv2.CV_32F).var() for c in x]))

    as_seen = train.cls_batch_augment(np.random.default_rng(0), crops, upright)
    from_afar = train.cls_batch_augment(np.random.default_rng(0), crops, upright, small_share=1.0)
    assert from_afar.shape == crops.shape and from_afar.dtype == np.uint8
    assert detail(from_afar) < 0.1 * detail(as_seen)
