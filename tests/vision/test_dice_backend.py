"""The two run-time backends (onnxruntime and OpenCV DNN, the Android path) read dice identically."""

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision import models
from companion.vision.errors import ModelError
from companion.workshop.dice.synth import render_scene

DATASETS = Path(__file__).resolve().parents[2].parent / "shared" / "datasets"


@pytest.fixture(scope="module")
def readers():
    from companion.vision.reader import DiceReader

    ort = DiceReader(threads=1, backend="onnxruntime")
    cv = DiceReader(threads=1, backend="opencv")
    assert (ort.backend, cv.backend) == ("onnxruntime", "opencv")
    return ort, cv


def _images():
    rng = np.random.default_rng(11)
    imgs = [render_scene(rng, 360, 480, n_dice=4, size_range=(40, 100), kinds=(kind,), allow_fingers=False).image
            for kind in ("d6", "d8", "magpie")]
    for ds in ("dice-photos-matteop65", "dice-photos-roboflow-catan"):
        folder = DATASETS / ds / "valid"
        for p in sorted(folder.glob("*.jpg"))[:2] if folder.is_dir() else []:
            img = cv2.imread(str(p))
            if img is not None:
                imgs.append(img)
    return imgs


def test_both_backends_give_the_same_readings(readers):
    ort, cv = readers
    n = 0
    for img in _images():
        a, b = ort.read(img), cv.read(img)
        assert [(r.kind, r.value, r.box, r.uncertain) for r in a] == [(r.kind, r.value, r.box, r.uncertain) for r in b]
        for ra, rb in zip(a, b, strict=True):
            assert abs(ra.confidence - rb.confidence) < 1e-3
            assert abs(ra.detector_score - rb.detector_score) < 1e-3
        n += len(a)
    assert n >= 6, "too few dice read to compare the backends"


def test_auto_falls_back_to_opencv_without_onnxruntime(monkeypatch):
    from companion.vision.reader import DiceReader

    monkeypatch.delenv(models.BACKEND_ENV, raising=False)
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # makes `import onnxruntime` raise ImportError
    assert models.resolve_backend() == "opencv"
    reader = DiceReader(threads=1)
    assert reader.backend == "opencv"
    reader.read(np.zeros((240, 320, 3), np.uint8))
    with pytest.raises(ModelError, match="onnxruntime is not installed"):
        DiceReader(threads=1, backend="onnxruntime")


def test_backend_chosen_by_environment(monkeypatch):
    monkeypatch.setenv(models.BACKEND_ENV, "opencv")
    assert models.resolve_backend() == "opencv"
    assert models.resolve_backend("onnxruntime") == "onnxruntime"  # an explicit choice wins
    monkeypatch.setenv(models.BACKEND_ENV, "auto")
    assert models.resolve_backend() == "onnxruntime"
    monkeypatch.setenv(models.BACKEND_ENV, "tflite")
    with pytest.raises(ModelError, match="unknown dice backend"):
        models.resolve_backend()


def test_both_backends_read_alike_with_a_profile(readers):
    """The embedding output (what a taught profile compares) comes out of OpenCV's DNN as out of onnxruntime."""
    from companion.vision.profile import DiceProfile
    from companion.vision.teach_dice import DiceTeacher, LabelledImage, teach_images

    ort, cv = readers
    assert ort.classifier.has_embedding and cv.classifier.has_embedding
    rng = np.random.default_rng(4)
    scenes = [render_scene(rng, 360, 480, n_dice=3, size_range=(50, 90), kinds=("d6",), allow_fingers=False)
              for _ in range(3)]
    images = [LabelledImage(None, [(d.kind, d.value, d.box) for d in s.dice if d.label != 19], s.image) for s in scenes]
    try:
        for reader in (ort, cv):
            teach_images(DiceTeacher(reader, DiceProfile.new("box")), images[:2])
        crops = ort.classifier.crops(scenes[2].image, [d.box for d in scenes[2].dice])
        np.testing.assert_allclose(ort.classifier.embed_crops(crops), cv.classifier.embed_crops(crops), atol=1e-4)
        a, b = ort.read(scenes[2].image), cv.read(scenes[2].image)
        assert [(r.kind, r.value, r.uncertain, r.box) for r in a] == [(r.kind, r.value, r.uncertain, r.box) for r in b]
    finally:
        ort.set_profile(None)
        cv.set_profile(None)
