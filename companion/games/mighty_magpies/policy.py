"""Simulation policy for seeded games: a quick, goal-directed random turn (``companion simulate``)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from companion.games.core import Action, State
from companion.games.mighty_magpies.rules import (
    EXITS,
    MAGPIE,
    MOVE,
    NESTS,
    ROUTE_IDS,
    TILE_KINDS,
    TILE_NESTS,
    MagpiesState,
)


def _distances() -> tuple[tuple[int, ...], ...]:
    """Fewest flights between every two nests (breadth-first search over the routes)."""
    table = []
    for origin in range(NESTS):
        dist = [NESTS] * NESTS
        dist[origin] = 0
        frontier = [origin]
        while frontier:
            nxt = []
            for nest in frontier:
                for hops in EXITS[nest]:
                    for _, other in hops:
                        if dist[other] > dist[nest] + 1:
                            dist[other] = dist[nest] + 1
                            nxt.append(other)
            frontier = nxt
        table.append(tuple(dist))
    return tuple(table)


DISTANCE = _distances()
NEAREST = tuple(
    tuple(min((DISTANCE[nest][t] for t in range(NESTS) if mask >> t & 1), default=0) for mask in range(1 << NESTS))
    for nest in range(NESTS)
)
"""``NEAREST[nest][mask]``: flights from ``nest`` to the closest nest in the bit set ``mask``."""


def random_turn(state: MagpiesState, rng: random.Random) -> Action:
    """A quick, goal-directed random turn for simulations (never enumerates the whole menu).

    Each die is used with probability 0.9 when a route of its colour exists; among the routes
    it picks at random one that brings the magpie closest to a nest that still holds tiles;
    the tile kind is random, and it steals as many berries as it may, from random victims.
    """
    me = state._player
    pos = state._pos[me]
    nests = state._nests
    f1, f2 = state._dice  # type: ignore[misc]
    steps: list[dict[str, Any]] = []
    if f1 != MAGPIE:
        colours = [f1] if f2 == MAGPIE else [f2, f1] if f1 != f2 and rng.random() < 0.5 else [f1, f2]
        mask = -1  # nests with tiles, as bits; computed when a choice of routes needs it
        for colour in colours:
            hops: Sequence[tuple[int, int]] = EXITS[pos][colour]
            if not hops or rng.random() < 0.1:
                break
            if len(hops) > 1:
                if mask < 0:
                    mask = 0
                    for n in TILE_NESTS:
                        i = 3 * n
                        if nests[i] or nests[i + 1] or nests[i + 2]:
                            mask |= 1 << n
                near = NEAREST
                best = min(near[d][mask] for _, d in hops)
                hops = [hop for hop in hops if near[hop[1]][mask] == best]
            r, dest = hops[0] if len(hops) == 1 else hops[int(rng.random() * len(hops))]
            i = 3 * dest
            kinds = [k for k in (0, 1, 2) if nests[i + k]]
            if kinds:
                k = kinds[0] if len(kinds) == 1 else kinds[int(rng.random() * len(kinds))]
                steps.append({"route": ROUTE_IDS[r], "take": TILE_KINDS[k]})
                if mask > 0 and nests[i] + nests[i + 1] + nests[i + 2] == 1:
                    mask &= ~(1 << dest)
            else:
                steps.append({"route": ROUTE_IDS[r], "take": None})
            pos = dest
    steal: list[int] = []
    if f2 == MAGPIE:  # stealing is optional (MM-STEAL-6), but a berry more for me and one less for them is a gain
        options = state.most_steals()
        steal = list(options[0] if len(options) == 1 else rng.choice(options))
    return {"type": "turn", "steps": steps, "steal": steal}


def simulation_policy(state: State, rng: random.Random) -> Action:
    if isinstance(state, MagpiesState) and state._phase == MOVE:
        return random_turn(state, rng)
    return rng.choice(state.legal_actions())
