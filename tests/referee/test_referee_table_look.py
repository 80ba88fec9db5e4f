"""Teach your board where the family plays (issue 20, item 5): the table pipeline learns the look of the box
from the set-up photo once the set-up is confirmed, and reads with it from the next frame on; ``companion
follow --look`` keeps that look in a file and reads it back; a damaged look file is said once and the box
read as drawn."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
import short_film

from companion.cli import main
from companion.referee.table import QUESTION, SETUP, TablePipeline
from companion.vision.teach import APPEARANCE_FORMAT
from companion.workshop.table import film

FOLLOW_FIELDS = {"frames", "actions", "asked", "proposed_by_camera", "illegal_calls", "refused_frames",
                 "ms_per_frame_median", "journal"}


@pytest.fixture(scope="module")
def owls():
    """Verzauberte Eulen's second rendition (a box the reader does not know), its first still frames."""
    box = film.GameFilm("verzauberte-eulen", 3, rendition=2, light=False, hands=False, lens_k1=0.0)
    rng = np.random.default_rng(0)
    return box, [box.draw(box.shots[i], rng) for i in range(6)]


def test_a_look_is_taught_when_the_set_up_is_confirmed_and_read_with_on_the_next_frame(owls):
    box, frames = owls
    pipeline = TablePipeline(box.game)
    said = [pipeline.process(f, i / 10, None) for i, f in enumerate(frames[:4])]
    assert all(events[0].info.get("refused") for events in said)  # its print is not known: refused, not guessed
    asked = [e for events in said for e in events[1:]]
    assert [(e.kind, e.reason) for e in asked] == [(QUESTION, "setup")]  # the set-up it could not read is asked
    assert pipeline.look is None and pipeline.look_taught == 0
    state = box.game.new_initial_state()  # the family says the set-up (follow: the oracle)
    assert pipeline.reevaluate(state) == []
    assert pipeline.look_taught == 1 and pipeline.look is not None and pipeline.look_error == ""
    after = pipeline.process(frames[4], 0.4, state)
    assert not after[0].info.get("refused"), after[0].message  # the next frame is read with the look taught
    # the look kept (the app saves it) reads the next game's set-up from the camera, surely
    again = TablePipeline(box.game, look=pipeline.look)
    events = [e for i, f in enumerate(frames[:4]) for e in again.process(f, i / 10, None)[1:]]
    assert [(e.kind, e.sure) for e in events] == [(SETUP, True)]


def test_a_set_up_photo_that_does_not_show_the_set_up_teaches_nothing(owls):
    box, frames = owls
    pipeline = TablePipeline(box.game)
    for i, f in enumerate(frames[:4]):
        pipeline.process(f, i / 10, None)
    other = film.GameFilm("verzauberte-eulen", 3, players=2).game  # two players: other owls in the nests
    pipeline.reevaluate(other.new_initial_state())
    assert pipeline.look_taught == 0 and pipeline.look is None
    assert pipeline.look_error.startswith("the board's look was not taught from the set-up")


def test_a_look_that_does_not_fit_the_reader_leaves_the_box_read_as_drawn(owls):
    box, _frames = owls
    pipeline = TablePipeline(film.GameFilm("falconry", 0).game, look={"emblems": {"bird": [1, 2, 3]}})
    assert pipeline.look is None and "cannot be used" in pipeline.look_error


def _film_folder(tmp_path, short):
    frames = tmp_path / "frames"
    frames.mkdir()
    for k, image in enumerate(short.frames()):
        cv2.imwrite(str(frames / f"{k:04d}.jpg"), image)
    return frames


class ShortFilm(short_film.ShortFilm):
    FRAMES = 30


def _follow(capsys, frames, oracle, journal, short, *extra):
    code = main(["follow", str(frames), "--game", short.game.name, "--players", ",".join(short.players), "--mode",
                 short.game.mode, "--journal", str(journal), "--oracle", str(oracle), "--json", *extra])
    out = capsys.readouterr()
    result = json.loads(out.out.strip().splitlines()[-1])
    assert set(result) == FOLLOW_FIELDS and code == 1  # cut short: ends mid-game
    return result, out.err


def test_follow_look_writes_the_look_taught_at_the_set_up_and_reads_it_back(tmp_path, capsys):
    short = ShortFilm("falconry", 0, rendition=2, light=False, lens_k1=0.0)
    frames = _film_folder(tmp_path, short)
    oracle = short.write_truth(tmp_path / "true.jsonl")
    look = tmp_path / "look.json"
    first, _err = _follow(capsys, frames, oracle, tmp_path / "1.jsonl", short, "--look", str(look))
    assert first["asked"] >= 1 and first["actions"] >= 1  # the set-up it could not read was asked, then taught
    doc = json.loads(look.read_text())
    assert doc["format"] == APPEARANCE_FORMAT and doc["game"] == "falconry" and "bird" in doc["appearance"]["emblems"]
    second, _err = _follow(capsys, frames, oracle, tmp_path / "2.jsonl", short, "--look", str(look))
    assert second["asked"] < first["asked"]  # the set-up read from the camera with the look kept
    assert second["actions"] >= first["actions"]
    journal = [json.loads(line) for line in (tmp_path / "2.jsonl").read_text().splitlines()]
    assert journal[0]["game"] == "falconry"


def test_follow_says_a_damaged_look_file_once_and_writes_the_look_taught_over_it(tmp_path, capsys):
    short = ShortFilm("falconry", 0, rendition=2, light=False, lens_k1=0.0)
    short.FRAMES = 12
    frames = _film_folder(tmp_path, short)
    oracle = short.write_truth(tmp_path / "true.jsonl")
    look = tmp_path / "look.json"
    look.write_text("{half a look", encoding="utf-8")
    result, err = _follow(capsys, frames, oracle, tmp_path / "1.jsonl", short, "--look", str(look))
    assert [line for line in err.splitlines() if "look" in line] == [
        f"look not used: {look}: cannot read the taught look (JSONDecodeError); teach the board again"]
    assert result["asked"] >= 1
    assert json.loads(look.read_text())["format"] == APPEARANCE_FORMAT
