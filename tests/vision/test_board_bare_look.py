"""The print under the nests, learnt from a photo of the empty board (teach your board, issue 20).

Every set-up covers Verzauberte Eulen's four nests with owls (VE-SETUP-CORNER) and Mighty Magpies' with
tiles, so a set-up photo never shows their print; owls only ever leave a nest (VE-MOVE-NO-NEST), and an emptied
nest of a box taught only so reads unsure. A photo of the board with nothing on it shows it."""

from __future__ import annotations

import numpy as np
import pytest

from companion.games.verzauberte_eulen.rules import VerzauberteEulen
from companion.referee.boardmaps import BOARDS_DIR
from companion.referee.verzauberte_eulen import scene_from_state
from companion.vision.boardmap import load_board_map
from companion.vision.readers import canonical
from companion.vision.readers.discs import look_from, with_bare_board
from companion.vision.readers.verzauberte_eulen import EulenReader
from companion.vision.teach import TeachError, learn_from_photo, teach_appearance, teach_bare_board
from companion.vision.teach import with_bare_board as teach_with_bare_board
from companion.workshop.boards.bench.verzauberte_eulen import sample_states
from companion.workshop.boards.scenes.verzauberte_eulen import render

NESTS = ("a1", "a5", "e1", "e5")


@pytest.fixture(scope="module")
def board():
    return load_board_map(BOARDS_DIR / "verzauberte-eulen.json")


@pytest.fixture(scope="module")
def photos(board):
    """The second rendition's box: its set-up (a four-player game) and its empty board, photographed apart."""
    setup = scene_from_state(VerzauberteEulen(players=["A", "B", "C", "D"]).new_initial_state())
    setup_photo, _ = render(board, setup, np.random.default_rng(11), rendition=2)
    empty_photo, _ = render(board, {}, np.random.default_rng(12), rendition=2)
    return setup, setup_photo.image, empty_photo.image


@pytest.fixture(scope="module")
def emptied(board):
    """A position whose nests were left (owls move out, never in) and a frame of it."""
    truth = scene_from_state(sample_states(10, 0)[8])
    assert [n for n in NESTS if not truth.get(n)], "the scene must show an emptied nest"
    frame, _ = render(board, truth, np.random.default_rng(5), rendition=2)
    return truth, frame.image


def _nests_read(reader, frame, truth):
    reader.reset()
    obs = reader.read(frame)
    assert obs.usable, obs.status
    wrong = [r for r in NESTS if canonical(truth.get(r)) != canonical(obs.regions.get(r))]
    assert [r for r in wrong if not obs.is_uncertain(r)] == []  # never silently wrong
    return [r for r in NESTS if not truth.get(r) and r not in wrong and not obs.is_uncertain(r)]


def test_an_emptied_nest_reads_sure_once_the_empty_board_was_shown(board, photos, emptied):
    setup, setup_photo, empty_photo = photos
    truth, frame = emptied
    reader = EulenReader(board)
    look = teach_appearance(reader, setup_photo, setup)
    assert _nests_read(reader, frame, truth) == []  # the print under them was never seen: unsure
    merged, bare = teach_bare_board(reader, empty_photo, look)
    assert bare["empty_seen"].count(True) == len(reader.spots)
    assert sum(merged["empty_seen"]) > sum(look["empty_seen"])
    assert _nests_read(reader, frame, truth) == [n for n in NESTS if not truth.get(n)]


def test_the_empty_board_shown_first_is_kept_until_a_set_up_is_taught(board, photos):
    _setup, _setup_photo, empty_photo = photos
    reader = EulenReader(board)
    look, bare = teach_bare_board(reader, empty_photo, None)
    assert look is None and reader.look.empty_known.all()  # nothing taught yet: the default look stays in use
    assert bare["palettes"] == {"body": {}, "head": {}}


def test_a_set_up_shown_as_the_empty_board_teaches_no_nest(board, photos):
    """Owls on the "empty" board: each nest spot there looks like an owl the set-up taught, so none is learnt."""
    setup, setup_photo, _empty = photos
    reader = EulenReader(board)
    look = teach_appearance(reader, setup_photo, setup)
    not_bare = learn_from_photo(reader, setup_photo, {})
    merged, learnt = reader.with_bare_board(look, not_bare)
    assert learnt == 0 and merged["empty_bgr"] == look["empty_bgr"]


def test_an_empty_board_unlike_the_set_up_photo_is_refused_and_the_look_stays(board, photos):
    setup, setup_photo, empty_photo = photos
    reader = EulenReader(board)
    look = teach_appearance(reader, setup_photo, setup)
    other = learn_from_photo(reader, empty_photo, {})
    other["empty_bgr"] = [[v[2], v[1], v[0]] for v in other["empty_bgr"]]  # another board: its print's hue turned
    known = reader.look.empty_known.copy()
    with pytest.raises(TeachError, match="does not show the board"):
        teach_with_bare_board(reader, look, other)
    assert (reader.look.empty_known == known).all() and not known.all()


def test_a_print_like_a_pieces_colour_is_not_learnt_from_the_empty_board():
    spots = [type("Spot", (), {"region": "n", "index": i, "kind": "owl"})() for i in range(2)]
    red = [40.0, 40.0, 200.0]
    look = {"empty_bgr": [[150.0, 180.0, 200.0], None], "empty_seen": [True, False]}
    bare = {"empty_bgr": [[151.0, 181.0, 199.0], red], "empty_seen": [True, True]}
    palettes = {"body": {"red": np.array([42.0, 41.0, 195.0])}}
    merged, learnt = with_bare_board(look, bare, spots, {"body": "owl"}, palettes)
    assert learnt == 0 and merged["empty_bgr"][1] is None
    palettes = {"body": {"red": np.array([200.0, 40.0, 40.0])}}  # the print is no piece's colour: learnt
    merged, learnt = with_bare_board(look, bare, spots, {"body": "owl"}, palettes)
    assert learnt == 1 and merged["empty_bgr"][1] == red and merged["empty_seen"] == [True, True]


def test_each_taught_piece_colour_is_a_prototype_beside_its_median_unless_nearer_another():
    """A far set-up photo mixes an owl's small head with its body (one red head on four bodies of four colours):
    each head's own colour stays a prototype of its name, except one nearer another colour's median, or as near its
    own median as to add nothing but reading time."""
    appearance = {"palettes": {"head": {"red": [60.0, 80.0, 200.0], "blue": [190.0, 90.0, 40.0]}},
                  "palette_samples": {"head": {"red": [[45.0, 70.0, 225.0], [170.0, 90.0, 70.0], [62.0, 81.0, 198.0]]}}}
    look = look_from(appearance, [150.0, 180.0, 200.0], {"head": {"red": [40, 40, 200], "blue": [190, 90, 30]}}, 1, 1)
    assert [(n, c.tolist()) for n, c in look.variants["head"]] == [("red", [45.0, 70.0, 225.0])]
