"""The scoring screens' tallies (no Kivy): counts kept within what the box holds, the rules' totals,
and a reading that cannot be trusted said, never guessed."""

from __future__ import annotations

import pytest

from companion.app.i18n import tr
from companion.app.scoring import KingdomTally, Reading, TileTally, tile_points
from companion.games.eagle_kingdoms import rules as ek
from companion.referee.kingdom_scan import counts_of, kinds, total_of


@pytest.mark.rules("EK-SCORE-1", "EK-SCORE-2")
def test_kingdom_total_is_the_rules_score_with_its_bonus():
    one_of_each = counts_of(list(range(1, 11)) + ["jester"])
    total = total_of(one_of_each)
    assert (total.points, total.kingdoms, total.bonus) == (ek.score_of(one_of_each), 1, ek.KINGDOM_BONUS)
    assert total_of(counts_of([10, 10, 9, "jester"])) == type(total)(29, 0, 0)
    assert [limit for _label, limit in kinds()] == list(ek.COUNTS)


def test_kingdom_tally_keeps_counts_within_the_box_and_says_the_total():
    tally = KingdomTally()
    tally.bump(0, 1)
    tally.bump(0, ek.COUNTS[0] + 5)  # never more than the box holds
    tally.bump(1, -1)  # never fewer than none
    assert tally.counts[:2] == [ek.COUNTS[0], 0]
    kingdoms = ek.kingdoms_of(tally.counts)
    assert tally.total_text() == tr("tally:total", points=ek.score_of(tally.counts), kingdoms=kingdoms,
                                    bonus=kingdoms * ek.KINGDOM_BONUS)
    tally.clear()
    assert sum(tally.counts) == 0


def test_kingdom_tally_takes_a_reading_and_says_when_it_is_unsure_or_failed(monkeypatch):
    tally = KingdomTally()
    counts = [1] * len(tally.limits)
    monkeypatch.setattr(tally, "reading", lambda image: Reading(True, "unsure", counts, 1))
    assert tally.read(None) and tally.counts == counts
    assert tally.message == tr("tally:unsure", count=1) == "1 character hard to read (marked ?): check the counts before you use the total."
    monkeypatch.setattr(tally, "reading", lambda image: Reading(True, "unsure", counts, 2))
    assert tally.read(None) and tally.message.startswith("2 characters hard to read")
    monkeypatch.setattr(tally, "reading", lambda image: Reading(False, "too dark"))
    assert not tally.read(None) and tally.counts == counts  # a failed reading keeps the counts
    assert tally.message == tr("tally:read_failed", reason="too dark")
    assert not KingdomTally().read(None)  # no picture: said


def test_tile_tally_scores_by_the_rules_and_the_young_variant():
    tally = TileTally()
    tally.bump(1, 2)
    assert tally.total_text() == tr("tiles:total", points=tile_points({"berry": 0, "silver": 2, "gold": 0}))
    tally.young = True
    assert tally.total_text() == tr("tiles:total", points=tile_points({"berry": 0, "silver": 2, "gold": 0}, True))
    assert not tally.read(None) and tally.message == tr("tiles:read_failed", reason=tr("tally:no_picture"))


def test_a_picture_of_a_game_board_is_not_read_as_a_kingdom():
    """Issue 22: a board was 'read' as 1 Squire = 2 points. Its corner markers in view: refused with the reason."""
    import cv2
    import numpy as np

    from companion.app.scoring import read_kingdom

    image = np.full((480, 640, 3), 200, np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    for marker, (x, y) in zip((0, 1), ((40, 40), (500, 40)), strict=True):
        image[y:y + 100, x:x + 100] = cv2.cvtColor(cv2.aruco.generateImageMarker(dictionary, marker, 100), cv2.COLOR_GRAY2BGR)
    reading = read_kingdom(image)
    assert not reading.ok and reading.message == tr("tally:a_board") and not reading.counts


def test_a_kingdom_read_as_one_or_two_characters_is_checked_with_the_family():
    import numpy as np

    from companion.app.scoring import read_kingdom

    class Stand:
        def __init__(self, label):
            self.label, self.uncertain, self.centre_px = label, False, (10.0, 20.0)

    class Reader:
        def read(self, image):
            return type("R", (), {"usable": True, "status": "ok", "stands": [Stand(2)]})()

    reading = read_kingdom(np.full((64, 64, 3), 120, np.uint8), Reader())
    assert reading.ok and reading.warning == tr("tally:few", count=1) and reading.points == [((10.0, 20.0), "2")]
    tally = KingdomTally()
    tally.take(reading)
    assert tally.message == reading.warning and tally.points == reading.points  # said, and shown on the preview
