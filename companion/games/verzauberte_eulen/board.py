"""The Verzauberte Eulen board as a graph, loaded from ``board.json`` and ``setup.json``.

Spaces are indexed by their position in ``board.json``; the rules work on those
indices and show the readable ids (``"b1"``, ``"a1-b1"``, ``"c3"``) to people.
Every route an owl can take in one move (1-6 spaces, one direction, never
through a nest or the cave) is computed once here, so move generation is a
lookup plus the blocking checks that depend on the position.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Board:
    ids: tuple[str, ...]
    index: dict[str, int]
    kind: tuple[str, ...]
    label: tuple[str, ...]
    neighbours: tuple[tuple[int, ...], ...]
    cell: tuple[tuple[int, int], ...]
    position_mm: tuple[tuple[float, float], ...]
    nests: dict[str, int]
    """Compass name (``"sw"``) -> space index of that starting nest."""
    cave: int
    max_steps: int
    routes: tuple[tuple[dict[int, tuple[tuple[int, ...], ...]], ...], ...]
    """``routes[start][n][dest]``: the intermediate spaces of every n-step route from start to dest."""
    route_items: tuple[tuple[tuple[tuple[int, tuple[tuple[int, ...], ...]], ...], ...], ...]
    """``routes`` as (dest, routes) pairs, for fast iteration."""
    cave_steps: tuple[frozenset[int], ...]
    """``cave_steps[s]``: the dice values that reach the cave from s exactly (ignoring blockers)."""

    @property
    def size(self) -> int:
        return len(self.ids)

    def name(self, space: int) -> str:
        return "box" if space < 0 else self.ids[space]

    def describe(self, space: int) -> str:
        """'the cave', 'the south-west nest', 'b2' - for messages."""
        if space < 0:
            return "the box"
        kind = self.kind[space]
        if kind in ("cave", "nest"):
            return f"the {self.label[space]} ({self.ids[space]})"
        return self.ids[space]


def _walks(neighbours, passable, start: int, steps: int):
    """Every walk of ``steps`` spaces from start that never turns back; yields full paths."""
    stack: list[tuple[int, int, tuple[int, ...]]] = [(start, -1, ())]
    while stack:
        here, previous, path = stack.pop()
        if len(path) == steps:
            yield path
            continue
        if path and not passable[here]:
            continue  # a nest or the cave ends every route that reaches it
        for nxt in neighbours[here]:
            if nxt != previous:
                stack.append((nxt, here, path + (nxt,)))


def build_board(data: dict[str, Any], max_steps: int) -> Board:
    spaces = data["spaces"]
    ids = tuple(s["id"] for s in spaces)
    index = {sid: i for i, sid in enumerate(ids)}
    if len(index) != len(ids):
        raise ValueError("board.json: space ids must be unique")
    neighbours = tuple(tuple(sorted(index[n] for n in s["neighbours"])) for s in spaces)
    for i, near in enumerate(neighbours):
        for j in near:
            if i not in neighbours[j]:
                raise ValueError(f"board.json: {ids[i]} lists {ids[j]} as a neighbour but not the other way round")
    kind = tuple(s["kind"] for s in spaces)
    passable = tuple(k in ("path", "crossing") for k in kind)
    cave = index[data["cave"]]
    routes = []
    for start in range(len(ids)):
        by_steps: list[dict[int, tuple[tuple[int, ...], ...]]] = [{}]
        for steps in range(1, max_steps + 1):
            found: dict[int, list[tuple[int, ...]]] = {}
            for path in _walks(neighbours, passable, start, steps):
                dest = path[-1]
                if kind[dest] == "nest" or not all(passable[s] for s in path[:-1]):
                    continue
                found.setdefault(dest, []).append(path[:-1])
            by_steps.append({d: tuple(sorted(r)) for d, r in sorted(found.items())})
        routes.append(tuple(by_steps))
    cave_steps = tuple(frozenset(n for n in range(1, max_steps + 1) if cave in routes[s][n]) for s in range(len(ids)))
    return Board(
        ids=ids,
        index=index,
        kind=kind,
        label=tuple(s["label"] for s in spaces),
        neighbours=neighbours,
        cell=tuple((int(s["cell"][0]), int(s["cell"][1])) for s in spaces),
        position_mm=tuple((float(s["x_mm"]), float(s["y_mm"])) for s in spaces),
        nests={compass: index[sid] for compass, sid in data["nests"].items()},
        cave=cave,
        max_steps=max_steps,
        routes=tuple(routes),
        route_items=tuple(tuple(tuple(by_steps.items()) for by_steps in r) for r in routes),
        cave_steps=cave_steps,
    )


@cache
def setup_data() -> dict[str, Any]:
    return json.loads((HERE / "setup.json").read_text(encoding="utf-8"))


@cache
def board() -> Board:
    data = json.loads((HERE / "board.json").read_text(encoding="utf-8"))
    return build_board(data, int(setup_data()["max_steps"]))
