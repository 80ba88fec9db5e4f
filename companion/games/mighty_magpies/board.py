"""The Mighty Magpies board, tiles and dice, loaded from ``board.json`` and checked once.

Everything physical (nests, their tile capacity, positions in millimetres, the
coloured routes, the die faces) lives in the data file; this module turns it
into small integer tables the rules use on every move:

- nests, colours, faces and tile kinds are numbered by their order in the file;
- ``exits[nest][colour]`` lists the ``(route, neighbour)`` pairs a magpie in
  ``nest`` can fly when a die shows ``colour``;
- ``roll_outcomes`` lists every unordered pair of faces with its probability,
  computed from the face lists of the two dice.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

TILE_KINDS = ("berry", "silver", "gold")
"""Tile kinds, in this order everywhere (holdings, nest contents)."""
TILE_LETTERS = "bsg"
"""One letter per tile kind, used in typed set-ups and in the text board."""
BERRY, SILVER, GOLD = 0, 1, 2
MAGPIE_FACE = "magpie"
DATA_FILE = Path(__file__).with_name("board.json")


class BoardDataError(ValueError):
    """The board data file is inconsistent (the message names what was expected and found)."""


@dataclass(frozen=True)
class Board:
    nest_ids: tuple[str, ...]
    nest_names: tuple[str, ...]
    capacity: tuple[int, ...]
    positions_mm: tuple[tuple[float, float], ...]
    start: int
    route_ids: tuple[str, ...]
    route_colour: tuple[int, ...]
    route_ends: tuple[tuple[int, int], ...]
    colours: tuple[str, ...]
    faces: tuple[str, ...]
    """Face names: the colours, then ``"magpie"`` (index ``magpie``)."""
    dice: tuple[tuple[int, ...], ...]
    """Face indices of each die, one entry per physical face."""
    die_names: tuple[str, ...]
    tiles: tuple[int, int, int]
    exits: tuple[tuple[tuple[tuple[int, int], ...], ...], ...]
    roll_outcomes: tuple[tuple[tuple[int, int], float], ...]
    """Unordered face pairs (sorted indices) with their probability."""
    size_mm: tuple[float, float]

    @property
    def magpie(self) -> int:
        return len(self.colours)

    @property
    def total_tiles(self) -> int:
        return sum(self.tiles)

    def nest_index(self, nest_id: str) -> int:
        return self.nest_ids.index(nest_id)

    def tile_nests(self) -> list[int]:
        """Nests that receive tiles in the set-up (capacity above zero)."""
        return [n for n, cap in enumerate(self.capacity) if cap > 0]


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise BoardDataError(message)


def build_board(data: dict[str, Any]) -> Board:
    """Check the raw data and build the tables; raises :class:`BoardDataError` naming expected vs found."""
    nests = data["nests"]
    nest_ids = tuple(str(n["id"]) for n in nests)
    _require(len(set(nest_ids)) == len(nest_ids), f"nest ids must differ, got {nest_ids}")
    index = {nid: i for i, nid in enumerate(nest_ids)}
    capacity = tuple(int(n["capacity"]) for n in nests)
    start_id = str(data["start_nest"])
    _require(start_id in index, f"start nest {start_id!r} is not one of the nests {nest_ids}")
    start = index[start_id]
    _require(capacity[start] == 0, f"the start nest holds no tiles; capacity {capacity[start]} given")
    tiles = tuple(int(data["tiles"][kind]) for kind in TILE_KINDS)
    _require(
        sum(capacity) == sum(tiles),
        f"nest capacities must add up to the {sum(tiles)} tiles, they add up to {sum(capacity)}",
    )
    colours = tuple(str(c) for c in data["colours"])
    _require(MAGPIE_FACE not in colours, "'magpie' is a face, not a route colour")
    faces = colours + (MAGPIE_FACE,)
    route_ids: list[str] = []
    route_colour: list[int] = []
    route_ends: list[tuple[int, int]] = []
    for route in data["routes"]:
        rid = str(route["id"])
        _require(rid not in route_ids, f"route id {rid!r} is used twice")
        _require(route["colour"] in colours, f"route {rid}: colour {route['colour']!r} is not one of {colours}")
        a, b = (str(e) for e in route["ends"])
        _require(a in index and b in index, f"route {rid}: ends {a!r}, {b!r} must be nests of {nest_ids}")
        _require(a != b, f"route {rid} must join two different nests, both ends are {a}")
        route_ids.append(rid)
        route_colour.append(colours.index(route["colour"]))
        route_ends.append((index[a], index[b]))
    exits: list[list[list[tuple[int, int]]]] = [[[] for _ in colours] for _ in nest_ids]
    for r, (one, other) in enumerate(route_ends):
        exits[one][route_colour[r]].append((r, other))
        exits[other][route_colour[r]].append((r, one))
    _require(any(exits[start]), f"the start nest {start_id} needs at least one route")
    seen = {start}
    frontier = [start]
    while frontier:
        nest = frontier.pop()
        for per_colour in exits[nest]:
            for _, other in per_colour:
                if other not in seen:
                    seen.add(other)
                    frontier.append(other)
    unreachable = [nest_ids[n] for n in range(len(nest_ids)) if n not in seen]
    _require(not unreachable, f"every nest must be reachable from {start_id}; unreachable: {unreachable}")
    dice: list[tuple[int, ...]] = []
    die_names: list[str] = []
    for die in data["dice"]:
        unknown = [f for f in die["faces"] if f not in faces]
        _require(not unknown, f"{die['id']}: faces {unknown} are not among {faces}")
        dice.append(tuple(faces.index(f) for f in die["faces"]))
        die_names.append(str(die["id"]))
    _require(len(dice) == 2, f"the game has two colour dice, the data lists {len(dice)}")
    pairs: Counter[tuple[int, int]] = Counter()
    for f1 in dice[0]:
        for f2 in dice[1]:
            pairs[(min(f1, f2), max(f1, f2))] += 1
    total = len(dice[0]) * len(dice[1])
    outcomes = tuple(sorted((pair, float(Fraction(count, total))) for pair, count in pairs.items()))
    size = data.get("board_mm", {})
    return Board(
        nest_ids=nest_ids,
        nest_names=tuple(str(n.get("name", n["id"])) for n in nests),
        capacity=capacity,
        positions_mm=tuple((float(n["x_mm"]), float(n["y_mm"])) for n in nests),
        start=start,
        route_ids=tuple(route_ids),
        route_colour=tuple(route_colour),
        route_ends=tuple(route_ends),
        colours=colours,
        faces=faces,
        dice=tuple(dice),
        die_names=tuple(die_names),
        tiles=(tiles[0], tiles[1], tiles[2]),
        exits=tuple(tuple(tuple(per_colour) for per_colour in per_nest) for per_nest in exits),
        roll_outcomes=outcomes,
        size_mm=(float(size.get("width", 0)), float(size.get("height", 0))),
    )


def load_board(path: Path = DATA_FILE) -> Board:
    with open(path, encoding="utf-8") as handle:
        return build_board(json.load(handle))


BOARD = load_board()
