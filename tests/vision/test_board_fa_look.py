"""Teach your board, Falconry (issue 20, item 5): the reader learns another deck's emblems and nobles' colours
from one photo of cards whose identities are known, and reads the second rendition's deck after it -- never
silently wrong, a kind the photo did not show unsure (asked), not guessed."""

from __future__ import annotations

import numpy as np
import pytest

from companion.games.falconry import FalconryGame
from companion.referee.falconry import FalconryAdapter, align_cells, board_map
from companion.vision.readers import canonical
from companion.vision.readers.falconry import FalconryReader
from companion.vision.teach import TeachError, teach_appearance
from companion.workshop.boards.bench.falconry import sample_states
from companion.workshop.boards.scenes.falconry import render


@pytest.fixture(scope="module")
def board():
    return board_map()


def _photo(board, state, adapter, seed, rendition=2):
    frame, _ = render(board, adapter.paint_scene(state), np.random.default_rng(seed), rendition=rendition)
    return frame.image, adapter.scene_from_state(state)


def _all_kinds(n=12, seed=99):
    """A position of a seeded game whose table shows all three kinds of card."""
    return next(sa for sa in sample_states(n, seed) if len({v[0]["kind"] for v in sa[1].scene_from_state(sa[0]).values()}) == 3)


def _read(board, reader, state, adapter, seed):
    image, truth = _photo(board, state, adapter, seed)
    reader.reset()
    obs = reader.read(image)
    wrong = {r for r in set(truth) | set(obs.regions) if canonical(truth.get(r)) != canonical(obs.regions.get(r))}
    return obs, wrong


def test_the_second_deck_is_refused_untaught_and_read_once_taught(board):
    state, adapter = _all_kinds()
    test_state, test_adapter = sample_states(5, 3)[4]
    obs, _wrong = _read(board, FalconryReader(board), test_state, test_adapter, 5)
    assert not obs.usable  # its emblems are not the described ones: refused, never guessed
    reader = FalconryReader(board)
    look = teach_appearance(reader, *_photo(board, state, adapter, 4242))
    assert set(look["emblems"]) == {"marker", "bird", "falconer"} and set(look["nobles"]) <= {"H", "E", "G", "P"}
    for k, (st, ad) in enumerate(sample_states(6, 3)):
        obs, wrong = _read(board, reader, st, ad, 100 + k)
        assert obs.usable, obs.status
        assert wrong == set(), wrong  # read right, each card


def test_a_kind_the_set_up_did_not_show_is_unsure_on_another_deck_never_guessed(board):
    """A duel's set-up shows falconers and birds only: taught from it, a marker card of the second deck is
    read unsure (its emblem was never shown), and the board is not refused as a hand for it."""
    setup = FalconryGame(players=["A", "B"], mode="duel").new_initial_state()
    reader = FalconryReader(board)
    look = teach_appearance(reader, *_photo(board, setup, FalconryAdapter((0, 0)), 7))
    assert set(look["emblems"]) == {"bird", "falconer"}
    markers = 0
    for k, (st, ad) in enumerate(sample_states(8, 1)):
        obs, wrong = _read(board, reader, st, ad, 200 + k)
        assert obs.usable, obs.status
        assert all(obs.is_uncertain(r) for r in wrong), wrong  # never silently wrong
        marker_cells = {r for r, v in ad.scene_from_state(st).items() if v[0]["kind"] == "marker"}
        assert marker_cells <= obs.uncertain and marker_cells <= set(obs.extra["look_doubt"])
        markers += len(marker_cells)
    assert markers > 0
    # the project's own deck, taught the same way, stays read surely: its emblems are the described ones
    reader1 = FalconryReader(board)
    teach_appearance(reader1, *_photo(board, setup, FalconryAdapter((0, 0)), 7, rendition=1))
    st, ad = sample_states(8, 1)[0]
    image, truth = _photo(board, st, ad, 300, rendition=1)
    reader1.reset()
    obs = reader1.read(image)
    assert obs.usable and not obs.uncertain and {r: canonical(v) for r, v in obs.regions.items()} == {r: canonical(v) for r, v in truth.items()}


def test_a_photo_that_does_not_show_the_cards_named_teaches_nothing(board):
    setup = FalconryGame(players=["A", "B"], mode="duel").new_initial_state()
    image, scene = _photo(board, setup, FalconryAdapter((0, 0)), 7)
    reader = FalconryReader(board)
    shifted = FalconryAdapter((1, 0)).scene_from_state(setup)
    with pytest.raises(TeachError, match="do not lie as the set-up says"):
        teach_appearance(reader, image, shifted)
    assert reader.appearance == {}  # the look is unchanged
    with pytest.raises(TeachError, match="no cards"):
        teach_appearance(reader, image, {})
    # where the cards lie places the set-up on the table before the deck's look is known
    assert align_cells(setup, reader.read(image).regions) == (0, 0)


def test_a_look_that_does_not_fit_the_reader_is_refused(board):
    reader = FalconryReader(board)
    with pytest.raises(ValueError, match="teach the board again"):
        reader.teach({"emblems": {"marker": [0.1, 0.2]}})
    reader.teach(None)
    assert reader.appearance == {} and not reader.untaught_kinds.any()
