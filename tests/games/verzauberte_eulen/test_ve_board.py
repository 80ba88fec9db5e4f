"""The board data (board.json) against an independent description of the 5x5 lattice."""

import json
import re
from collections import deque
from pathlib import Path

import pytest

from companion.games.verzauberte_eulen.board import HERE, board, build_board

LETTERS = "abcde"


def lattice_name(col: int, row: int) -> str:
    return f"{LETTERS[col]}{row + 1}"


def bfs(b, start):
    """Shortest step counts from ``start``, never passing through a nest or the cave."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        if here != start and b.kind[here] in ("nest", "cave"):
            continue
        for nxt in b.neighbours[here]:
            if nxt not in dist:
                dist[nxt] = dist[here] + 1
                queue.append(nxt)
    return dist


@pytest.mark.rules("VE-COMP-BOARD")
def test_board_is_the_lattice_of_4x4_squares_with_one_path_space_per_edge():
    b = board()
    kinds = {k: b.kind.count(k) for k in set(b.kind)}
    assert kinds == {"nest": 4, "cave": 1, "crossing": 20, "path": 40}
    crossings = {lattice_name(c, r) for c in range(5) for r in range(5)}
    lattice = crossings | {f"{lattice_name(c, r)}-{lattice_name(c + 1, r)}" for c in range(4) for r in range(5)}
    lattice |= {f"{lattice_name(c, r)}-{lattice_name(c, r + 1)}" for c in range(5) for r in range(4)}
    assert set(b.ids) == lattice
    assert {b.ids[n] for n in b.nests.values()} == {"a1", "e1", "a5", "e5"}
    assert b.ids[b.cave] == "c3" and b.kind[b.cave] == "cave"
    for sid in b.ids:
        i = b.index[sid]
        if b.kind[i] == "path":
            ends = sid.split("-")
            assert {b.ids[n] for n in b.neighbours[i]} == set(ends)
        else:
            assert all(b.kind[n] == "path" for n in b.neighbours[i])
        assert re.fullmatch(r"[a-e][1-5](-[a-e][1-5])?", sid)


@pytest.mark.rules("VE-COMP-BOARD")
def test_distances_nest_to_cave_is_8_steps_and_crossings_are_2_apart():
    b = board()
    for nest in b.nests.values():
        assert bfs(b, nest)[b.cave] == 8
    dist = bfs(b, b.index["b2"])
    assert dist[b.index["c2"]] == 2 and dist[b.index["b3"]] == 2 and dist[b.index["d4"]] == 8
    data = json.loads((HERE / "board.json").read_text())
    assert data["steps_between_crossings"] == 2


@pytest.mark.rules("VE-COMP-BOARD")
def test_positions_are_millimetres_on_the_500mm_board():
    b = board()
    for sid, (x, y) in zip(b.ids, b.position_mm, strict=True):
        assert 0 < x < 500 and 0 < y < 500, sid
    # crossings 100 mm apart, a path space halfway between its two crossings
    pos = dict(zip(b.ids, b.position_mm, strict=True))
    assert pos["c3"] == (250.0, 250.0)
    assert pos["b1"][0] - pos["a1"][0] == 100 and pos["a1"][1] - pos["a2"][1] == 100
    assert pos["a1-b1"] == ((pos["a1"][0] + pos["b1"][0]) / 2, pos["a1"][1])
    assert len(set(b.position_mm)) == b.size


def test_board_data_is_checked_when_loaded(tmp_path: Path):
    data = json.loads((HERE / "board.json").read_text())
    data["spaces"][0]["neighbours"] = data["spaces"][0]["neighbours"] + ["c3"]
    with pytest.raises(ValueError, match="neighbour"):
        build_board(data, 6)


@pytest.mark.rules("VE-MOVE-EXACT", "VE-MOVE-NO-NEST", "VE-MOVE-NO-CENTRE")
def test_routes_never_turn_back_nor_pass_a_nest_or_the_cave():
    b = board()
    for start in range(b.size):
        for steps in range(1, 7):
            for dest, routes in b.routes[start][steps].items():
                assert b.kind[dest] != "nest"
                for route in routes:
                    cells = [start, *route, dest]
                    assert len(cells) == steps + 1
                    assert all(cells[k] in b.neighbours[cells[k - 1]] for k in range(1, len(cells)))
                    assert all(cells[k] != cells[k - 2] for k in range(2, len(cells)))
                    assert all(b.kind[s] in ("path", "crossing") for s in route)
    a1 = b.index["a1"]
    assert {b.ids[d] for d in b.routes[a1][2]} == {"a2", "b1"}
    assert {b.ids[d] for d in b.routes[b.index["c2-c3"]][1]} == {"c2", "c3"}
