"""The Android tree, as far as it can be checked without the SDK (issue 22, item 5): python-for-android pinned to
a release, the sources staged by one make target (no manual step), the staged app finding its models and
calibration, every model loading through the backend chosen (onnxruntime, or cv2.dnn where onnxruntime is
missing, as on a phone), and the APK's entry point asking for the camera before opening it."""

from __future__ import annotations

import ast
import configparser
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _spec() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(inline_comment_prefixes=None)
    parser.read(ROOT / "android" / "buildozer.spec", encoding="utf-8")
    return parser["app"]


def test_python_for_android_is_pinned_to_a_release_tag_and_needs_no_onnxruntime():
    spec = _spec()
    assert re.fullmatch(r"v\d{4}\.\d{2}\.\d{2}", spec["p4a.branch"]), spec["p4a.branch"]
    requirements = [r.split("==")[0] for r in spec["requirements"].split(",")]
    assert "opencv" in requirements and "onnxruntime" not in requirements
    assert "CAMERA" in spec["android.permissions"]
    assert spec["source.dir"] == "build-src"
    assert {"py", "json", "kv", "onnx"} <= set(spec["source.include_exts"].split(","))


@pytest.mark.skipif(shutil.which("make") is None or shutil.which("tar") is None, reason="needs make and tar")
def test_make_android_src_stages_what_the_build_needs(tmp_path):
    staged = tmp_path / "build-src"
    subprocess.run(["make", "-s", "android-src", f"ANDROID_SRC={staged}"], cwd=ROOT, check=True, capture_output=True)
    assert (staged / "main.py").is_file() and not (staged / "android").exists()  # p4a's own `android` module wins
    assert (staged / "companion" / "app" / "kv" / "table.kv").is_file()
    assert (staged / "companion" / "data" / "models" / "manifest.json").is_file()
    assert (staged / "companion" / "data" / "calibration" / "boards").is_dir()
    assert not list(staged.rglob("__pycache__"))
    # the staged tree on its own (as in the APK): the bundled folders are found inside it
    probe = ("from companion.data import bundled; from companion.vision.models import model_entry; "
             "print(bundled('models')); print(model_entry('dice_detector')[0])")
    out = subprocess.run([sys.executable, "-c", probe], cwd=staged, check=True, capture_output=True, text=True,
                         env={"PYTHONPATH": str(staged), "PATH": "/usr/bin:/bin"}).stdout.splitlines()
    assert all(Path(line).resolve().is_relative_to(staged.resolve()) for line in out), out


def test_the_apk_entry_point_asks_for_the_camera_before_it_opens_it():
    tree = ast.parse((ROOT / "android" / "main.py").read_text(encoding="utf-8"))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "CompanionApp"]
    assert calls and any(k.arg == "camera_permission" for k in calls[0].keywords)
    assert "request_permissions" not in (ROOT / "android" / "main.py").read_text()  # asked by the app, then opened


def test_the_permission_answer_comes_back_as_a_yes_or_no():
    from companion.app.permission import CameraPermission, needs_camera

    class Api:  # python-for-android's android.permissions
        class Permission:
            CAMERA = "android.permission.CAMERA"

        def __init__(self, allowed):
            self.allowed, self.requests = allowed, []

        def check_permission(self, name):
            return self.allowed

        def request_permissions(self, names, callback):
            self.requests.append(names)
            callback(names, [True])

    answers = []
    CameraPermission().ask(answers.append)  # a desktop: nothing to ask
    api = Api(False)
    CameraPermission(api).ask(answers.append)
    assert answers == [True, True] and api.requests == [[Api.Permission.CAMERA]]
    assert not CameraPermission(api).granted() and CameraPermission(Api(True)).granted()
    assert needs_camera("auto") and needs_camera("camera:1") and not needs_camera("demo") and not needs_camera("video:x")


@pytest.mark.parametrize("backend", ["onnxruntime", "opencv"])
def test_read_my_kingdom_loads_its_model_through_either_backend(backend):
    from companion.referee.kingdom_scan import StandClassifier
    from companion.vision.readers.stands import LABELS

    if backend == "onnxruntime":
        pytest.importorskip("onnxruntime")
    classifier = StandClassifier(backend)
    patches = np.random.default_rng(3).random((4, 26, 36)).astype(np.float32)
    probabilities = classifier.probabilities(patches)
    assert classifier.backend == backend and probabilities.shape == (4, len(LABELS))
    reference = StandClassifier("opencv").probabilities(patches)
    assert np.allclose(probabilities, reference, atol=1e-4)


def test_without_onnxruntime_read_my_kingdom_falls_back_to_cv2_dnn(monkeypatch):
    from companion.referee.kingdom_scan import StandClassifier

    monkeypatch.delenv("COMPANION_DICE_BACKEND", raising=False)
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import onnxruntime raises ImportError, as on a phone
    assert StandClassifier().backend == "opencv"
