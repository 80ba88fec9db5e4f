"""The "teach your dice" screen at phone size (420x820), in its own process (tests/app/dice_screen_run.py):
a die in view is taught by taps on the grid of faces and saved, the grid shows what is missing, the box's
profile is renamed, set aside for the generic reader, chosen again and deleted; English and German
screenshots ($COMPANION_SCREENSHOTS, else a temporary folder)."""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np
import pytest
from ui_process import PHONE, run_ui

from companion.app.i18n import tr


@pytest.mark.slow
def test_the_family_teaches_a_die_by_taps_and_manages_the_boxs_profiles(tmp_path):
    from companion.workshop.dice.synth import render_scene

    pictures = tmp_path / "pictures"
    pictures.mkdir()
    scene = render_scene(np.random.default_rng(5), 480, 640, n_dice=1, size_range=(80, 90), kinds=("d6",),
                         allow_fingers=False, upright=False)
    for i in range(60):  # a still camera: the same picture again and again
        cv2.imwrite(str(pictures / f"f{i:02d}.png"), scene.image)
    shots = Path(os.environ.get("COMPANION_SCREENSHOTS") or tmp_path / "shots")
    said = run_ui("dice_screen_run.py", tmp_path / "data", pictures, shots)
    # entering the screen makes this box's profile, saved and in use
    assert said["profile"] == "Eagle Kingdoms" and said["files"] == ["eagle-kingdoms.json"]
    assert said["flow_start"].startswith(tr("dice:created", name="Eagle Kingdoms"))
    [(kind, value)] = said["seen"]
    assert kind == "d6" and said["overlay"] == [[said["overlay"][0][0], f"> {value}", False]]  # the die chosen
    taught = {value, 5 if value != 5 else 2}
    assert said["missing"]["d6"] == [f for f in range(1, 7) if f not in taught]
    assert {int(f) for f, n in said["on_disk"]["d6"].items() if n} == taught  # on disk, each face tapped
    assert said["all_right"] == tr("dice:learned_roll", count=1) and said["dice"] == 3
    assert "Würfel" in said["de_flow"] and "Es fehlen noch" in said["de_progress"]
    assert said["renamed"] == tr("dice:renamed", name="Kitchen table") and said["active"] == "Kitchen table"
    assert said["values"] == [tr("dice:profile_none"), "Kitchen table"]
    assert said["generic"] is None and not said["teaching"] and not said["generic_session_profile"]
    assert said["chosen"] == "Kitchen table" and said["session_profile"] and said["learning"] == "Kitchen table"
    assert said["left"] == [] and said["back"] == "setup" and said["teaching_kinds"] is None
    assert said["demo_flow"].endswith(tr("dice:no_camera"))
    for name in ("dice-teach-start", "dice-teach-en", "dice-teach-de"):
        picture = cv2.imread(str(shots / f"{name}.png"))
        assert picture is not None and picture.shape[:2] == PHONE[::-1], name
    en, de = (cv2.imread(str(shots / f"dice-teach-{lang}.png")) for lang in ("en", "de"))
    assert np.abs(en.astype(int) - de.astype(int)).mean() > 0.5  # the words differ
