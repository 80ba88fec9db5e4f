"""The app's data folder (issue 24): state files written atomically, every field checked on load, and a
damaged file set aside with a notice that names it -- the app starts whatever it finds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from companion import storage
from companion.app import paths, theme
from companion.app.controller import Controller
from companion.app.datacheck import data_folder_notices

ROOT = Path(__file__).resolve().parents[2]


def test_bad_settings_values_fall_back_one_by_one_and_are_named(tmp_path):
    settings = {"version": 1, "language": "klingon", "speech": True, "camera_profile": [1], "source": "demo"}
    (tmp_path / "settings.json").write_text(json.dumps(settings))
    notices: list[str] = []
    loaded = paths.load_settings(tmp_path, notices)
    assert loaded["language"] == "en" and loaded["camera_profile"] == ""  # the defaults
    assert loaded["speech"] is True and loaded["source"] == "demo"  # the good values kept
    assert len(notices) == 1 and notices[0].startswith("settings.json: language 'klingon' (not one of en, de")
    assert "camera_profile '[1]' (not a text" in notices[0]
    assert json.loads((tmp_path / "settings.json.damaged").read_text()) == settings  # set aside, not lost


@pytest.mark.parametrize("content", [b"{damaged", b"\xff\xfe", b"[" * 100_000, b"[1]"])
def test_an_unreadable_settings_file_is_set_aside(tmp_path, content):
    (tmp_path / "settings.json").write_bytes(content)
    notices: list[str] = []
    assert paths.load_settings(tmp_path, notices) == paths.DEFAULT_SETTINGS
    assert (tmp_path / "settings.json.old").read_bytes() == content
    assert not (tmp_path / "settings.json").exists()


def test_settings_are_written_atomically(tmp_path, monkeypatch):
    synced, replaced = [], []
    real_fsync_dir, real_replace = storage.fsync_dir, os.replace
    monkeypatch.setattr(storage, "fsync_dir", lambda p: (synced.append(Path(p)), real_fsync_dir(p)))
    monkeypatch.setattr(os, "replace", lambda a, b: (replaced.append((Path(a), Path(b))), real_replace(a, b)))
    paths.save_settings(tmp_path, {**paths.DEFAULT_SETTINGS, "language": "de"})
    assert replaced and replaced[0][1] == tmp_path / "settings.json" and replaced[0][0].parent == tmp_path
    assert tmp_path in synced
    assert [p.name for p in tmp_path.iterdir()] == ["settings.json"]  # no temporary file left
    assert paths.load_settings(tmp_path)["language"] == "de"


def test_a_crash_mid_write_keeps_the_old_settings(tmp_path, monkeypatch):
    paths.save_settings(tmp_path, {**paths.DEFAULT_SETTINGS, "language": "de"})

    def crash(fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", crash)
    with pytest.raises(OSError):
        paths.save_settings(tmp_path, {**paths.DEFAULT_SETTINGS, "language": "en"})
    monkeypatch.undo()
    assert paths.load_settings(tmp_path)["language"] == "de"
    assert [p.name for p in tmp_path.iterdir()] == ["settings.json"]


def test_theme_values_unlike_their_defaults_are_skipped_and_named(tmp_path, monkeypatch):
    for name in ("FONT_SIZE", "ACCENT", "PLAYER_COLOURS"):
        monkeypatch.setattr(theme, name, getattr(theme, name))
    (tmp_path / "theme.json").write_text(json.dumps({"FONT_SIZE": "huge", "ACCENT": [1, 0, 0, 1], "TEXT": 5,
                                                     "PLAYER_COLOURS": [{"name": "red"}]}))
    notices: list[str] = []
    applied = theme.load_overrides(tmp_path / "theme.json", notices)
    assert applied == {"ACCENT": [1, 0, 0, 1]} and theme.ACCENT == (1, 0, 0, 1)
    assert theme.FONT_SIZE == 20 and notices == [
        "theme.json: FONT_SIZE, TEXT, PLAYER_COLOURS kept the standard value (the file's value is not of its kind)."]


def test_damaged_profiles_registries_and_maps_are_named(tmp_path):
    from companion.app.calibration import reference_map_path
    from companion.vision.boardmap import load_board_map, save_fitted_map
    from companion.vision.intrinsics import CameraProfile
    from companion.vision.registry import DieRegistry

    (tmp_path / "cameras").mkdir()
    (tmp_path / "cameras" / "bent.json").write_text(json.dumps({"format_version": 1, "camera_matrix": [1]}))
    CameraProfile("fine", (640, 480), np.array([[500.0, 0, 320], [0, 500.0, 240], [0, 0, 1]]), np.zeros(5)).save(
        tmp_path / "cameras")
    (tmp_path / "dice").mkdir()
    (tmp_path / "dice" / "verzauberte-eulen.json").write_text(json.dumps(
        {"dice": [{"name": "head", "kind": "d6", "lab": ["a", 1, 2], "spread": [1, 1, 1]}]}))
    reference = load_board_map(reference_map_path("eagle-kingdoms"))
    path = save_fitted_map(reference, reference, tmp_path)
    path.write_text(path.read_text()[:200])
    notices = data_folder_notices(tmp_path)
    assert any(n.startswith("cameras/bent.json is not used: damaged camera profile") for n in notices)
    assert any(n.startswith("dice/verzauberte-eulen.json is not used") and "lab must be 3 numbers" in n
               for n in notices)
    assert any(n.startswith("boards/eagle-kingdoms.fitted.json is not used") for n in notices)
    assert len(notices) == 3
    with pytest.raises(ValueError, match=r"dice\[0\].lab"):
        DieRegistry.load(tmp_path / "dice" / "verzauberte-eulen.json")


def test_the_registry_round_trips_and_is_written_atomically(tmp_path):
    from companion.vision.registry import DieRegistry, RegisteredDie

    registry = DieRegistry([RegisteredDie("head", "d6", [50.0, 1.0, 2.0], [3.0, 3.0, 3.0], 2)], 5.0)
    registry.save(tmp_path / "dice" / "x.json")
    assert DieRegistry.load(tmp_path / "dice" / "x.json") == registry
    assert [p.name for p in (tmp_path / "dice").iterdir()] == ["x.json"]


def test_broken_links_and_damaged_journals_are_listed_not_fatal(tmp_path):
    ctl = Controller(tmp_path)
    folder = ctl.journal_folder()
    (folder / "gone.jsonl").symlink_to(tmp_path / "nowhere.jsonl")
    (folder / "loop.jsonl").symlink_to(folder / "loop.jsonl")
    (folder / "junk.jsonl").write_bytes(b"\x00\xff" * 10)
    os.mkfifo(folder / "pipe.jsonl")
    infos = {i.path.name: i for i in ctl.unfinished()}
    assert set(infos) == {"gone.jsonl", "loop.jsonl", "junk.jsonl", "pipe.jsonl"}
    assert all(info.error for info in infos.values())
    assert "not a regular file" in infos["pipe.jsonl"].error


def test_a_damaged_journal_offers_to_go_on_from_the_last_good_line(tmp_path):
    ctl = Controller(tmp_path, seed=1)
    ctl.new_game("verzauberte-eulen", ["Ann", "Ben"])
    for _ in range(4):
        ctl.random_outcome() if ctl.phase == "chance" else ctl.choose(0)
        ctl.confirm()
    path = ctl.session.journal.path
    ctl.close()
    lines = path.read_text().splitlines()
    lines[2] = lines[2].replace('"seq":2', '"seq":3')
    path.write_text("\n".join(lines) + "\n")
    other = Controller(tmp_path)
    (info,) = other.unfinished()
    assert info.damaged_line == 3 and "Line 3 of" in info.error
    from companion.journal import JournalDamaged

    with pytest.raises(JournalDamaged):
        other.resume(path)
    other.resume(path, continue_from_last_good=True)
    assert len(other.session.history) == 1 and (path.parent / (path.name + ".damaged")).exists()
    other.close()


START = """
import os, sys, tempfile
os.environ.update(SDL_VIDEODRIVER="offscreen", KIVY_NO_ARGS="1", KIVY_NO_FILELOG="1", KIVY_CLIPBOARD="sdl2",
                  KIVY_HOME=tempfile.mkdtemp())
try:
    from kivy.core.window import Window
except BaseException:
    print("NO-WINDOW"); sys.exit(0)
if Window is None:
    print("NO-WINDOW"); sys.exit(0)
from companion.app.main import CompanionApp
app = CompanionApp(source="demo", data_dir=sys.argv[1])
app._run_prepare()
print("HOME:" + app.sm.get_screen("home").message.replace("\\n", " | "))
print("RESUME:" + " | ".join(getattr(w, "text", "") for w in app.sm.get_screen("home").ids.resume.children))
app.stop()
"""


@pytest.mark.slow
def test_the_app_starts_with_every_file_in_its_data_folder_damaged(tmp_path):
    pytest.importorskip("kivy")
    data = tmp_path / "data"
    (data / "journals").mkdir(parents=True)
    (data / "journals" / "gone.jsonl").symlink_to(tmp_path / "nowhere.jsonl")
    (data / "settings.json").write_text(json.dumps({"version": 1, "language": "klingon", "camera_profile": [1]}))
    (data / "theme.json").write_text("{damaged")
    (data / "cameras").mkdir()
    (data / "cameras" / "bent.json").write_text("[1]")
    (data / "dice").mkdir()
    (data / "dice" / "eagle-kingdoms.json").write_text('{"dice": 5}')
    done = subprocess.run([sys.executable, "-c", START, str(data)], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)
    if "NO-WINDOW" in done.stdout:
        pytest.skip("no GL window available")
    assert done.returncode == 0, done.stderr[-2000:]
    home = next(line for line in done.stdout.splitlines() if line.startswith("HOME:"))
    for name in ("settings.json", "theme.json", "cameras/bent.json", "dice/eagle-kingdoms.json"):
        assert name in home, name
    assert "gone.jsonl" in next(line for line in done.stdout.splitlines() if line.startswith("RESUME:"))


@pytest.mark.parametrize("typed", ["²", "9" * 5000, "3\x1b[2J", "x" * 3000])
def test_typed_input_in_the_app_is_checked_before_the_game_reads_it(tmp_path, typed):
    ctl = Controller(tmp_path, seed=1)
    ctl.new_game("verzauberte-eulen", ["Ann", "Ben"])
    before = ctl.state.to_json()
    assert ctl.typed(typed) is None and ctl.proposal is None
    assert ctl.messages[-1].level == "warn" and ctl.messages[-1].text.startswith("Not read: ")
    assert ctl.state.to_json() == before
    ctl.close()
