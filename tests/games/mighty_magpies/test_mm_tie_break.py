"""How the end table explains a tie (English and German share ``view.tie_break``)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from companion.games.mighty_magpies.view import tie_break


def _final(points, rings, gold, winners):
    """A stand-in for a finished state: what ``tie_break`` reads of it."""
    return SimpleNamespace(
        game=SimpleNamespace(num_players=len(points)),
        scores=lambda: list(points),
        rank_key=lambda p: (points[p], rings[p], gold[p]),
        winners=lambda: list(winners),
    )


@pytest.mark.rules("MM-WIN-2", "MM-WIN-3")
@pytest.mark.parametrize("points,rings,gold,winners,expected", [
    ([9, 7, 5], [2, 2, 1], [1, 0, 0], [0], None),           # no tie on points
    ([9, 9, 5], [3, 2, 1], [0, 2, 0], [0], "rings"),        # more rings wins (MM-WIN-2)
    ([9, 9, 5], [2, 2, 1], [2, 1, 0], [0], "gold"),         # rings equal, more gold wins (MM-WIN-3)
    ([9, 9, 5], [2, 2, 1], [1, 1, 0], [0, 1], "shared"),    # equal on all three
    ([9, 9, 9], [2, 2, 1], [1, 1, 0], [0, 1], "shared"),    # two share, the third has fewer rings
])
def test_tie_break_names_what_settled_the_tie(points, rings, gold, winners, expected):
    assert tie_break(_final(points, rings, gold, winners)) == expected
