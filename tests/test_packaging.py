"""Packaging: every package ships, and the bundled data (models/, calibration/) is found through
importlib.resources the same way in this checkout as in an installed wheel (issue 23, item 5)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
import tomllib
import zipfile
from pathlib import Path

import pytest

import companion
from companion.data import bundled, source_checkout
from companion.vision.readers import canonical

ROOT = Path(__file__).resolve().parents[1]


def _setuptools() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]


def test_every_package_folder_ships():
    """package-dir needs an explicit package list: a new package folder missing from it would be left
    out of the wheel, and a listed one that is gone would break the build."""
    config = _setuptools()
    listed, mapped = set(config["packages"]), config["package-dir"]
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "companion").rglob("__init__.py")}
    assert listed - set(mapped) == on_disk
    for package, folder in mapped.items():
        assert package in listed and (ROOT / folder / "__init__.py").is_file(), package


def test_bundled_data_is_the_checkouts_folders_here():
    assert bundled("models", "manifest.json").is_file()
    assert bundled("calibration", "boards", "eagle-kingdoms.json").is_file()
    assert source_checkout() == ROOT
    assert bundled("models") == ROOT / "models"  # an editable install maps the folder, never a copy
    assert Path(companion.__file__).resolve().parent == ROOT / "companion"
    with pytest.raises(ValueError, match="no bundled folder"):
        bundled("datasets")


# -- a wheel installed outside the checkout ----------------------------------------------------------

SHIPPED = ("pyproject.toml", "README.md", "companion", "models", "calibration")
IN_THE_WHEEL = (
    "companion/data/models/manifest.json",
    "companion/data/models/dice_detector.onnx",
    "companion/data/models/stand_classifier.onnx",
    "companion/data/calibration/boards/eagle-kingdoms.json",
    "companion/data/calibration/markers/corner-markers.png",
    "companion/app/i18n/de.json",
    "companion/app/kv/table.kv",
    "companion/app/data/demo_eagle_kingdoms.json",
    "companion/games/i18n/de.json",
    "companion/games/eagle_kingdoms/board.json",
    "companion/vision/pose_config.json",
    "companion/vision/readers/falconry.json",
    "companion/workshop/dice/label_review.json",
)
DICE_PICTURE = """
import cv2, numpy as np
from companion.workshop.dice.synth import render_scene
s = render_scene(np.random.default_rng(11), 360, 480, n_dice=3, size_range=(60, 90), kinds=("d6",),
                 allow_fingers=False, effects=False)
cv2.imwrite("dice.png", s.image)
"""
BOARD_PICTURE = """
import json, cv2, numpy as np
from companion.data import bundled
from companion.referee.verzauberte_eulen import scene_from_state
from companion.vision.boardmap import load_board_map
from companion.workshop.boards.bench.verzauberte_eulen import sample_states
from companion.workshop.boards.scenes.verzauberte_eulen import render
board = load_board_map(bundled("calibration", "boards", "verzauberte-eulen.json"))
frame, truth = render(board, scene_from_state(sample_states(1, 5)[0]), np.random.default_rng(3))
cv2.imwrite("board.png", frame.image)
print(json.dumps({r: v for r, v in truth.scene.items() if v}))
"""
DEMO_SCENE = """
from companion.app.demo import DemoScript
from companion.app.demo_render import renderer_for
script = DemoScript.load()
lazy = renderer_for(script)
frame = lazy(script, 1)
assert type(lazy.renderer).__name__ == "SceneRenderer", lazy.error
print(frame.shape)
"""


def _run(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 60) -> str:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{args[:3]} exit {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return done.stdout


def _install_wheel(tmp: Path) -> Path:
    """Build the wheel from a copy of the shipped tree (no build/ left in the checkout) and install it into
    a fresh venv; the venv reaches numpy, OpenCV, onnxruntime and Kivy through the project venv's
    site-packages (a .pth line: the project's own editable companion is not loaded that way)."""
    src = tmp / "src"
    src.mkdir()
    for name in SHIPPED:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(ROOT / name, src / name)
    wheels = tmp / "wheels"
    _run([sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "--no-build-isolation", "--no-index",
          "-q", "-w", str(wheels)], tmp, dict(os.environ))
    (wheel,) = wheels.glob("companion-*.whl")
    with zipfile.ZipFile(wheel) as z:
        missing = sorted(set(IN_THE_WHEEL) - set(z.namelist()))
    assert not missing, f"not in the wheel: {missing}"
    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp, dict(os.environ))
    python = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q",
          str(wheel)], tmp, dict(os.environ))
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], tmp,
                     dict(os.environ)).strip())
    (site / "project-dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n", encoding="utf-8")
    return venv


@pytest.mark.slow
def test_a_wheel_installed_outside_the_checkout_runs(tmp_path):
    """``companion dice``, ``simulate``, ``play``, a board reader and the app's demo, from a wheel in a
    fresh venv, run in a folder outside the checkout: models, maps, i18n and the demo recording ship."""
    venv = _install_wheel(tmp_path)
    bin_ = venv / "bin"
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("COMPANION_", "PYTHON", "KIVY_", "VIRTUAL_ENV"))}
    env["HOME"] = str(tmp_path / "home")
    python = str(bin_ / "python")

    where = _run([python, "-c", "import companion, companion.data as d; print(companion.__file__); "
                  "print(d.bundled('models')); print(d.source_checkout())"], work, env).split()
    assert all(Path(p).is_relative_to(venv) for p in where[:2]) and where[2] == "None", where

    _run([python, "-c", DICE_PICTURE], work, env)
    lines = _run([str(bin_ / "companion"), "dice", "dice.png", "--json", "--kinds", "d6"], work, env).splitlines()
    dice = json.loads(lines[-1])["dice"]
    assert len(dice) >= 2 and all(d["value"] in range(1, 7) for d in dice)

    report = json.loads(_run([str(bin_ / "companion"), "simulate", "eagle-kingdoms", "--games", "3", "--json"],
                             work, env).splitlines()[-1])
    assert report["games"] == 3 and report["finished"] == 3 and report["invariant_violations"] == 0

    out = _run([str(bin_ / "companion"), "play", "eagle-kingdoms", "--players", "Ann,Ben", "--auto", "--seed", "7"],
               work, env)
    assert "Game over." in out and "Winner:" in out

    truth = json.loads(_run([python, "-c", BOARD_PICTURE], work, env))
    seen = json.loads(_run([python, "-m", "companion.vision.readers.verzauberte_eulen", "board.png"], work, env))
    assert seen["usable"], seen["status"]
    assert {r: canonical(v) for r, v in seen["regions"].items() if v} == {r: canonical(v) for r, v in truth.items()}

    assert _run([python, "-c", DEMO_SCENE], work, env).strip() == "(480, 640, 3)"
    _app_shows_the_demo_table(bin_ / "companion", work, env, tmp_path / "shots")


def _app_shows_the_demo_table(companion_cmd: Path, work: Path, env: dict[str, str], shots: Path) -> None:
    """The app on the demo, headless and in German, as far as the table with the read dice: its kv
    files, both languages' texts, the recording and the board map load from the wheel. (The whole tour
    to the game's end takes a minute; the UI tests walk it in the checkout.)"""
    args = [str(companion_cmd), "app", "--source", "demo", "--screenshot", str(shots), "--exit-after-game",
            "--lang", "de", "--data", str(work / "app-data")]
    log = work / "app.log"
    with open(log, "w", encoding="utf-8") as out:
        proc = subprocess.Popen(args, cwd=work, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None and not (shots / "table-dice.png").is_file():
            time.sleep(0.2)
        assert (shots / "table-dice.png").is_file(), log.read_text(encoding="utf-8")[-3000:]
        assert (shots / "home-de.png").is_file() and (shots / "setup.png").is_file()
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
