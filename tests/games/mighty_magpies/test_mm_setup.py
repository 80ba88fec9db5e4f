"""Set-up as a chance step (MM-SETUP-*)."""

import math
import random
from collections import Counter

import pytest
from mm_helpers import SETUP, game

from companion.games.core import CHANCE, IllegalAction, InvalidAction
from companion.games.mighty_magpies.board import BOARD
from companion.games.mighty_magpies.view import parse_setup


@pytest.mark.rules("MM-SETUP-1")
def test_sampled_setup_fills_every_nest_to_its_mark():
    for seed in range(20):
        state = game().new_initial_state()
        assert state.current_player == CHANCE and state.chance_request().kind == "setup"
        action = state.sample_chance(random.Random(seed))
        state.apply(action)
        totals = Counter()
        for nest, cap in enumerate(BOARD.capacity):
            tiles = state.nest_tiles(nest)
            assert sum(tiles) == cap
            totals.update({k: n for k, n in zip("bsg", tiles, strict=True)})
        assert totals == {"b": 19, "s": 3, "g": 3}
        assert state.check_invariants() == []


@pytest.mark.rules("MM-SETUP-1")
def test_setup_sampling_is_seeded_and_outcomes_are_a_distribution():
    state = game().new_initial_state()
    assert state.sample_chance(random.Random(4)) == state.sample_chance(random.Random(4))
    outcomes = state.chance_outcomes()
    assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
    # independent check: nest A (4 tiles) holds no ring with the hypergeometric probability C(19,4)/C(25,4)
    no_ring_in_a = sum(p for a, p in outcomes if a["nests"]["A"] == "bbbb")
    assert no_ring_in_a == pytest.approx(math.comb(19, 4) / math.comb(25, 4))
    drawn = state.sample_chance(random.Random(9))
    assert drawn in [a for a, _ in outcomes]
    assert state.is_legal(SETUP)


@pytest.mark.rules("MM-SETUP-1")
@pytest.mark.parametrize(
    "nests, rule, words",
    [
        ({"A": "bbb"}, "MM-SETUP-1", "marked for 4 tiles"),
        ({"E": "bbbb", "A": "bbs"}, "MM-SETUP-1", "marked for"),
        ({"A": "bbss", "C": "bbbs"}, "MM-CONTENTS-1", "3 silver, 3 gold tiles; the set-up places 17 berry, 5 silver"),
        ({"R": "b"}, "MM-SETUP-1", "red nest"),
    ],
)
def test_a_wrong_typed_setup_is_refused(nests, rule, words):
    state = game().new_initial_state()
    action = {"type": "setup", "nests": {**SETUP["nests"], **nests}}
    with pytest.raises(IllegalAction, match=words) as info:
        state.apply(action)
    assert info.value.rule_id == rule
    assert state.phase == "setup"


@pytest.mark.rules("MM-SETUP-1")
def test_typed_setup_forms():
    assert parse_setup("A bbbs B bbbg C bbbb D bbsg E bbb F bsg G bbb") == SETUP["nests"]
    assert parse_setup("a:sbbb, b:gbbb c:bbbb d:gsbb e:bbb f:gsb g:bbb") == SETUP["nests"]
    assert parse_setup("bbbs bbbg bbbb bbsg bbb bsg bbb") == SETUP["nests"]
    with pytest.raises(InvalidAction, match="not a tile letter"):
        parse_setup("A bbbx B bbbg C bbbb D bbsg E bbb F bsg G bbb")
    with pytest.raises(InvalidAction, match="No nest 'Q'"):
        parse_setup("Q bbbb")


@pytest.mark.rules("MM-SETUP-2")
def test_magpies_start_in_the_red_nest():
    state = game(("Ann", "Ben", "Cy")).new_initial_state()
    state.apply(SETUP)
    start = BOARD.nest_ids.index("R")
    assert BOARD.capacity[start] == 0
    assert [state.position(p) for p in range(3)] == [start] * 3
