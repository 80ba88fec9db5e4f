"""The board, tiles and dice as data (MM-CONTENTS-*): facts from the published game, checked."""

import copy
import json
from collections import Counter
from fractions import Fraction

import pytest
from mm_helpers import position

from companion.games.core import ConfigError, InvalidAction
from companion.games.mighty_magpies.board import BOARD, DATA_FILE, BoardDataError, build_board
from companion.games.mighty_magpies.rules import MightyMagpies
from companion.games.mighty_magpies.view import parse_faces

RAW = json.loads(DATA_FILE.read_text(encoding="utf-8"))


@pytest.mark.rules("MM-CONTENTS-1")
def test_twenty_five_tiles_and_two_to_four_players():
    assert RAW["tiles"] == {"berry": 19, "silver": 3, "gold": 3}
    assert BOARD.total_tiles == 25
    MightyMagpies(players=["A", "B"])
    MightyMagpies(players=["A", "B", "C", "D"])
    for players in (["A"], ["A", "B", "C", "D", "E"]):
        with pytest.raises(ConfigError, match="2-4 players"):
            MightyMagpies(players=players)


@pytest.mark.rules("MM-CONTENTS-2")
def test_fourteen_routes_by_colour_and_nest_capacities():
    colours = Counter(route["colour"] for route in RAW["routes"])
    assert colours == {"red": 3, "green": 3, "yellow": 4, "blue": 4}
    assert len(RAW["routes"]) == 14
    caps = {nest["id"]: nest["capacity"] for nest in RAW["nests"]}
    assert caps[RAW["start_nest"]] == 0
    assert sorted(c for n, c in caps.items() if n != RAW["start_nest"]) == [3, 3, 3, 4, 4, 4, 4]
    assert sum(caps.values()) == 25


@pytest.mark.rules("MM-CONTENTS-2")
def test_every_nest_is_reachable_and_the_red_nest_has_routes():
    neighbours = {nest["id"]: set() for nest in RAW["nests"]}
    for route in RAW["routes"]:
        a, b = route["ends"]
        assert a != b
        neighbours[a].add(b)
        neighbours[b].add(a)
    start = RAW["start_nest"]
    assert neighbours[start]
    seen, todo = {start}, [start]
    while todo:
        for other in neighbours[todo.pop()] - seen:
            seen.add(other)
            todo.append(other)
    assert seen == set(neighbours)
    width, height = RAW["board_mm"]["width"], RAW["board_mm"]["height"]
    for nest in RAW["nests"]:
        assert 0 <= nest["x_mm"] <= width and 0 <= nest["y_mm"] <= height


@pytest.mark.rules("MM-CONTENTS-2")
@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda d: d["routes"].__setitem__(slice(None), [r for r in d["routes"] if "F" not in r["ends"]]),
            "unreachable",
        ),
        (
            lambda d: d["routes"].__setitem__(slice(None), [r for r in d["routes"] if "R" not in r["ends"]]),
            "start nest",
        ),
        (lambda d: d["nests"][1].__setitem__("capacity", 5), "add up"),
        (lambda d: d["routes"][0].__setitem__("colour", "purple"), "purple"),
        (lambda d: d["dice"][0]["faces"].__setitem__(0, "owl"), "owl"),
    ],
)
def test_inconsistent_board_data_is_refused(change, message):
    data = copy.deepcopy(RAW)
    change(data)
    with pytest.raises(BoardDataError, match=message):
        build_board(data)


@pytest.mark.rules("MM-CONTENTS-3")
def test_dice_faces_and_roll_probabilities_follow_the_face_counts():
    faces = [face for die in RAW["dice"] for face in die["faces"]]
    counts = Counter(faces)
    assert set(counts) == {"yellow", "red", "blue", "green", "magpie"}
    assert all(len(die["faces"]) == 6 for die in RAW["dice"])
    # yellow and red appear more often than the other faces (over the pair of dice)
    assert min(counts["yellow"], counts["red"]) > max(counts["blue"], counts["green"], counts["magpie"])
    expected: Counter = Counter()
    for a in RAW["dice"][0]["faces"]:
        for b in RAW["dice"][1]["faces"]:
            expected[tuple(sorted((a, b)))] += Fraction(1, 36)
    state = position()
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 15
    assert abs(sum(p for _, p in outcomes) - 1) < 1e-12
    for action, p in outcomes:
        assert p == pytest.approx(float(expected[tuple(sorted(action["faces"]))]))


@pytest.mark.rules("MM-CONTENTS-3")
def test_a_face_that_does_not_exist_is_refused():
    state = position()
    before = state.to_json()
    with pytest.raises(InvalidAction, match="no face 'purple'") as info:
        state.apply({"type": "roll", "faces": ["purple", "red"]})
    assert info.value.rule_id == "MM-CONTENTS-3"
    assert state.to_json() == before
    with pytest.raises(InvalidAction, match="no face 'purple'"):
        parse_faces("purple red")
