"""The synthetic renderer's labels: what the classifier is taught a face reads."""

import numpy as np
import pytest

from companion.vision import synth
from companion.vision.classes import NONE

LIGHT = np.array([0.0, 0.0, 1.0])


@pytest.mark.parametrize("kind,value", [("d6", 2), ("d8", 2), ("d8", 7), ("magpie", "magpie")])
def test_face_textures_are_never_mirrored(monkeypatch, kind, value):
    # a mirrored 2 on a d8 reads as a 5 once rotated: every face warp must keep the texture's handedness
    dets = []
    for name in ("getAffineTransform", "getPerspectiveTransform"):
        orig = getattr(synth.cv2, name)

        def record(src, dst, *a, orig=orig):
            m = orig(src, dst, *a)
            dets.append(float(np.linalg.det(np.asarray(m)[:2, :2])))
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


def test_scene_labels_follow_visibility_and_obliqueness():
    rng = np.random.default_rng(2)
    seen = 0
    for _ in range(20):
        for d in synth.render_scene(rng, 256, 256).dice:
            readable = d.top_visible > 0.8 and d.top_margin > synth.TOP_MARGIN
            assert (d.label != NONE) == readable
            seen += 1
    assert seen > 20
