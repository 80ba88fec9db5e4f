"""Teach your board, its look (issue 20, item 5): one photo of the family's box adapts the readers."""

from __future__ import annotations

import json

import numpy as np
import pytest

from companion.games.verzauberte_eulen.rules import VerzauberteEulen
from companion.referee.boardmaps import BOARDS_DIR
from companion.referee.verzauberte_eulen import scene_from_state
from companion.vision.boardmap import load_board_map
from companion.vision.readers import canonical
from companion.vision.readers.verzauberte_eulen import EulenReader
from companion.vision.teach import TeachError, appearance_path, load_appearance, save_appearance, teach_appearance
from companion.workshop.boards.bench.verzauberte_eulen import sample_states
from companion.workshop.boards.scenes.verzauberte_eulen import render


@pytest.fixture(scope="module")
def board():
    return load_board_map(BOARDS_DIR / "verzauberte-eulen.json")


@pytest.fixture(scope="module")
def taught(board):
    """A reader taught the second rendition's box from one photo of a four-player set-up."""
    setup = scene_from_state(VerzauberteEulen(players=["A", "B", "C", "D"]).new_initial_state())
    photo, _ = render(board, setup, np.random.default_rng(11), rendition=2)
    reader = EulenReader(board)
    look = teach_appearance(reader, photo.image, setup)
    return reader, look


def test_another_box_is_refused_untaught_and_read_once_taught(board, taught):
    reader, look = taught
    truth = scene_from_state(sample_states(3, 0)[2])
    frame, _ = render(board, truth, np.random.default_rng(5), rendition=2)
    untaught = EulenReader(board).read(frame.image)
    assert not untaught.usable and "teach" in untaught.status
    reader.reset()
    obs = reader.read(frame.image)
    assert obs.usable, obs.status
    wrong = [r.id for r in board.regions if canonical(truth.get(r.id)) != canonical(obs.regions.get(r.id))]
    assert [r for r in wrong if not obs.is_uncertain(r)] == []  # never silently wrong
    assert len(wrong) + len(obs.uncertain) <= 10  # and most of the board read
    assert set(look["palettes"]["body"]) == {"red", "blue", "green", "yellow", "black"}


def test_the_taught_look_is_saved_beside_the_fitted_map_and_refused_when_damaged(board, taught, tmp_path):
    _reader, look = taught
    path = save_appearance(look, board, tmp_path)
    assert path == appearance_path(tmp_path, board.game) and path.parent.name == "boards"
    back, why = load_appearance(board, tmp_path)
    assert back == json.loads(json.dumps(look)) and why == "taught"
    assert not list(path.parent.glob("*.tmp"))
    path.write_text("{not json", encoding="utf-8")
    assert load_appearance(board, tmp_path)[0] is None and "teach the board again" in load_appearance(board, tmp_path)[1]
    other = load_board_map(BOARDS_DIR / "mighty-magpies.json")
    save_appearance(look, other, tmp_path)
    doc = json.loads((tmp_path / "boards" / "mighty-magpies.appearance.json").read_text())
    doc["reference_sha256"] = "0" * 64
    (tmp_path / "boards" / "mighty-magpies.appearance.json").write_text(json.dumps(doc))
    assert load_appearance(other, tmp_path) == (None, f"{tmp_path / 'boards' / 'mighty-magpies.appearance.json'}: taught for another board map; teach the board again")
    assert load_appearance(board, None) == (None, "no user folder")


def test_teaching_needs_a_board_in_the_photo(board):
    with pytest.raises(TeachError, match="no usable board pose"):
        teach_appearance(EulenReader(board), np.full((720, 1280, 3), 90, np.uint8), {})


def test_eagle_kingdoms_learns_its_felt_from_the_bare_margin():
    from companion.referee.eagle_kingdoms import scene_from_state as ek_scene
    from companion.vision.pose import BoardTracker
    from companion.vision.readers.eagle_kingdoms import EagleKingdomsReader
    from companion.workshop.boards.bench.eagle_kingdoms import sample_states as ek_states
    from companion.workshop.boards.scenes.eagle_kingdoms import FELT2_BGR
    from companion.workshop.boards.scenes.eagle_kingdoms import render as ek_render

    ek = load_board_map(BOARDS_DIR / "eagle-kingdoms.json")
    scene = ek_scene(ek_states(1, 0)[0])
    frame, _ = ek_render(ek, scene, np.random.default_rng(2), rendition=2)
    reader = EagleKingdomsReader(ek)
    look = teach_appearance(reader, frame.image, scene, pose=BoardTracker(ek).update(frame.image))
    felt = np.asarray(look["felt_bgr"])
    assert np.argmax(felt) == 0 and np.linalg.norm(felt / felt.sum() - np.asarray(FELT2_BGR) / sum(FELT2_BGR)) < 0.06
    assert reader.appearance == look
