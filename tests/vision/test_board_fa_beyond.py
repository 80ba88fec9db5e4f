"""Falconry: the cells just beyond the map, seen clear of cards or not (``clear_beyond``), for the referee to rule out a
card laid out of the camera's map (docs/vision-notes.md, session 36)."""

from __future__ import annotations

import functools

import cv2
import numpy as np
import pytest

from companion.referee.falconry_map import cell_centre_mm
from companion.vision.readers.falconry import FalconryReader
from companion.vision.readers.falconry_deck import draw_card
from companion.workshop.table.film import GameFilm

SHOTS = (140, 215, 330)  # still frames of the seed-15 film: cards on the map's right edge, and on its far row from 213


@functools.cache
def _taught(seed: int, rendition: int):
    """A film and the look of its box, taught from its set-up photo (the second box's deck is read once taught, as the
    app does)."""
    film = GameFilm("falconry", seed, rendition=rendition)
    photo, scene = film.teaching_photo()
    reader = FalconryReader(film.board, camera=film.camera)
    return film, reader.learn_appearance(photo, reader.tracker.update(photo), scene)


@pytest.fixture(scope="module", params=[1, 2])
def film_and_look(request):
    return _taught(15, request.param)


def _reader(film: GameFilm, look) -> FalconryReader:
    reader = FalconryReader(film.board, camera=film.camera)
    reader.teach(look)
    return reader


def _lay_card(image: np.ndarray, reader: FalconryReader, cell: str, rng: np.random.Generator,
              blur: float = 0.7) -> np.ndarray:
    """``image`` with a card drawn where a hand would lay one in ``cell`` (through the reader's pose), blurred."""
    tx, ty = (int(v) for v in cell[1:].split("y"))
    pose = reader.tracker.update(image)
    out = image.copy()
    centre = np.array(cell_centre_mm(tx, ty)) + rng.uniform(-6, 6, 2)
    draw_card(out, pose.board_to_image, 0.7, tuple(centre), float(rng.uniform(-4, 4)), str(rng.choice(list("HEGP"))),
              str(rng.choice(["marker", "bird", "falconer"])), reader.deck)
    return cv2.GaussianBlur(out, (0, 0), blur) if blur else out


@pytest.mark.rules("FA-MARK-1")
def test_the_cells_beyond_the_map_beside_its_edge_cards_are_seen_clear_and_a_card_laid_there_is_not(film_and_look):
    film, look = film_and_look
    rng = np.random.default_rng(3)
    for shot in SHOTS:
        image = film.draw(film.shots[shot], np.random.default_rng(shot))
        reader = _reader(film, look)
        obs = reader.read(image)
        assert obs.usable, obs.status
        clear = set(obs.extra["clear_beyond"])
        # beside the right edge's card; beside the far row's card once there is one (its strip markers showing)
        assert clear == ({"x5y0"} if shot < 213 else {"x5y0", "x0y-4"}), (shot, clear)
        for cell in sorted(clear):
            watching = _reader(film, look)
            watching.arms.crossings = lambda *_: False  # a card across the board's edge is also refused as an arm
            again = watching.read(_lay_card(image, reader, cell, rng))
            assert again.usable, again.status
            assert cell not in again.extra["clear_beyond"], (shot, cell)


def test_a_strip_marker_under_a_cell_beyond_shows_its_pattern_unless_covered(film_and_look):
    film, look = film_and_look
    image = film.draw(film.shots[215], np.random.default_rng(215))
    reader = _reader(film, look)
    pose = reader.tracker.update(image)
    assert reader._markers_showing(image, pose, {11, 12}) == {11, 12}
    covered = image.copy()
    quad = np.round(pose.board_to_image(film.board.fiducial(11).corners_mm())).astype(np.int32)
    cv2.fillConvexPoly(covered, quad, (60, 180, 220))  # a card's yellow over marker 11 alone
    assert reader._markers_showing(covered, pose, {11, 12}) == {12}
    watching = _reader(film, look)
    watching.arms.crossings = lambda *_: False
    obs = watching.read(covered)
    assert obs.usable, obs.status
    assert "x0y-4" not in obs.extra["clear_beyond"]  # the rest of the cell is clear, but what covers the marker?


@pytest.mark.rules("FA-MARK-1")
@pytest.mark.parametrize("seed, shot, cells", [
    # the map's area is a mat of its own on a wooden table: the cells beyond its edge cards lie half on the mat and
    # half on the wood, or on the wood just past the mat's edge; each side is one colour
    (41, 329, {"x-2y-4", "x1y4", "x2y4", "x0y4", "x-5y2"}),
    # the frame's lower edge cuts the cells beyond the near row (some 60% of each in view); one lies on the strip
    (42, 83, {"x-3y4", "x-2y4", "x0y4"}),
])
def test_a_cell_beyond_the_map_across_the_mats_edge_or_the_frames_is_seen_clear_and_a_card_laid_there_is_not(
        seed, shot, cells):
    film, look = _taught(seed, 1)
    image = film.draw(film.shots[shot], np.random.default_rng(shot))
    reader = _reader(film, look)
    obs = reader.read(image)
    assert obs.usable, obs.status
    assert cells <= set(obs.extra["clear_beyond"])
    rng = np.random.default_rng(seed)
    for cell in sorted(cells):
        watching = _reader(film, look)
        watching.arms.crossings = lambda *_: False
        again = watching.read(_lay_card(image, reader, cell, rng, blur=0.0))  # the far view is as sharp as read
        assert again.usable, again.status
        assert cell not in again.extra["clear_beyond"], cell


def test_a_card_laid_across_the_tables_edge_is_named_with_the_hand_and_the_arm_and_the_strips_are_the_way_out():
    """A card laid beyond the map's side lies across its edge for as long as it lies there: the frame is refused, and
    the family is told that a card may be what crosses it, and how to bring it between the strips (session 41)."""
    film, look = _taught(41, 1)
    image = film.draw(film.shots[329], np.random.default_rng(329))
    reader = _reader(film, look)
    assert reader.read(image).usable
    crossed = _reader(film, look).read(_lay_card(image, reader, "x-5y2", np.random.default_rng(5), blur=0.0))
    assert not crossed.usable
    assert "a card reaches over the table's edge" in crossed.status and "strips" in crossed.status, crossed.status
