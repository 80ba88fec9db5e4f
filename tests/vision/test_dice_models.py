"""The committed ONNX models: hashes, loading errors, size, OpenCV DNN == onnxruntime, no torch."""

import json
import shutil
import subprocess
import sys

import cv2
import numpy as np
import pytest

from companion.vision import models
from companion.vision.errors import ModelError

NAMES = ["dice_detector", "dice_classifier", "dice_d8_reader"]


def test_manifest_hashes_match_committed_files():
    for name in NAMES:
        path, entry = models.model_entry(name)
        assert models.sha256(path) == entry["sha256"]


def test_models_are_small():
    total = sum(models.model_entry(n)[0].stat().st_size for n in NAMES)
    assert total <= 5 * 1024 * 1024, f"models total {total} bytes, budget 5 MB"


def _copy_models(tmp_path):
    folder = tmp_path / "models"
    folder.mkdir()
    for f in ["manifest.json"] + [models.manifest()[n]["file"] for n in NAMES]:
        shutil.copy(models.models_dir() / f, folder / f)
    return folder


def test_damaged_model_is_refused_with_a_clear_error(tmp_path):
    folder = _copy_models(tmp_path)
    path = folder / models.manifest(folder)["dice_classifier"]["file"]
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="damaged"):
        models.ort_session("dice_classifier", folder=folder)
    with pytest.raises(ModelError, match="damaged"):
        models.opencv_net("dice_classifier", folder=folder)


def test_missing_model_and_manifest_give_clear_errors(tmp_path):
    folder = _copy_models(tmp_path)
    (folder / models.manifest(folder)["dice_detector"]["file"]).unlink()
    with pytest.raises(ModelError, match="missing"):
        models.model_entry("dice_detector", folder)
    (folder / "manifest.json").unlink()
    with pytest.raises(ModelError, match="manifest"):
        models.model_entry("dice_detector", folder)


def test_reader_reports_a_damaged_model(tmp_path):
    from companion.vision.reader import DiceReader

    folder = _copy_models(tmp_path)
    m = json.loads((folder / "manifest.json").read_text())
    m["dice_detector"]["sha256"] = "0" * 64
    (folder / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(ModelError, match="dice_detector.onnx is damaged"):
        DiceReader(models_folder=folder)


@pytest.mark.parametrize("shape", [(1, 3, 256, 416), (1, 3, 416, 416)])
def test_detector_same_outputs_in_opencv_dnn(shape):
    session, _ = models.ort_session("dice_detector")
    net, _ = models.opencv_net("dice_detector")
    rng = np.random.default_rng(0)
    x = rng.random(shape, dtype=np.float32)
    heat, reg = session.run(["heat", "reg"], {"image": x})
    net.setInput(x)
    heat_cv, reg_cv = net.forward(["heat", "reg"])
    np.testing.assert_allclose(heat_cv, heat, atol=1e-4)
    np.testing.assert_allclose(reg_cv, reg, atol=1e-3)


def test_classifier_same_outputs_in_opencv_dnn():
    from companion.vision.classify import crop, normalize
    from companion.workshop.dice.synth import render_scene

    session, entry = models.ort_session("dice_classifier")
    net, _ = models.opencv_net("dice_classifier")
    scene = render_scene(np.random.default_rng(3), 320, 320, n_dice=4)
    size = entry["config"]["size"]
    x = normalize(np.stack([crop(scene.image, d.box, size) for d in scene.dice]))
    logits = session.run(["logits"], {"crops": x})[0]
    net.setInput(x)
    logits_cv = net.forward("logits")  # by name: the classifier has a second output, its embedding
    np.testing.assert_allclose(logits_cv, logits, atol=1e-3)
    assert (logits_cv.argmax(1) == logits.argmax(1)).all()


def test_run_time_imports_neither_torch_nor_games():
    code = (
        "import sys, companion.vision, companion.vision.reader, companion.vision.cli, companion.vision.tracker, "
        "companion.vision.registry, companion.workshop.dice.bench, companion.workshop.dice.evaluate, companion.vision.d8read;"
        "bad = [m for m in sys.modules if m == 'torch' or m.startswith(('companion.games', 'companion.app'))];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_opencv_version_supports_the_models():
    major, minor = (int(v) for v in cv2.__version__.split(".")[:2])
    assert (major, minor) >= (4, 10)
