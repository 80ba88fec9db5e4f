"""Mighty Magpies' board benchmark: seeded states along simulated games, rendered, read, compared.

Usage (a quick look)::

    python -m companion.workshop.boards.bench.mighty_magpies [SCENES] [SEED]     # the figures, as JSON
"""

from __future__ import annotations

import json
import random
import sys
from functools import partial
from typing import Any

from companion.games.mighty_magpies import simulation_policy
from companion.games.mighty_magpies.rules import MagpiesState, MightyMagpies
from companion.games.playout import playout
from companion.referee.boardmaps import BOARDS_DIR
from companion.referee.mighty_magpies import GAME, scene_from_state
from companion.vision.boardmap import load_board_map
from companion.vision.readers.mighty_magpies import MagpiesReader
from companion.workshop.boards.bench.evaluation import evaluate_reader, teach_from_photo
from companion.workshop.boards.scenes.mighty_magpies import render


def sample_states(n: int, seed: int) -> list[MagpiesState]:
    """``n`` states picked along seeded simulated games (2-4 players), at the roll or the move."""
    rng = random.Random(seed)
    out: list[MagpiesState] = []
    while len(out) < n:
        k = rng.randint(2, 4)
        game = MightyMagpies(players=[f"P{i + 1}" for i in range(k)])
        state = game.new_initial_state()
        trail: list[MagpiesState] = []
        playout(state, rng, simulation_policy, on_action=lambda s, _, trail=trail: s.phase in ("roll", "move") and trail.append(s.clone()))
        for _ in range(min(n - len(out), rng.randint(3, 8))):
            out.append(trail[int(rng.random() ** 0.8 * len(trail))])
    return out[:n]


def evaluate(scenes: int, seed: int, *, reader: Any = None, condition: str = "as-rendered", rendition: int = 1,
             taught: bool = False, bare_board: bool = False) -> dict[str, Any]:
    """As :func:`companion.workshop.boards.bench.verzauberte_eulen.evaluate`, over the 8 nests (tiles and magpies)."""
    board = load_board_map(BOARDS_DIR / f"{GAME}.json")
    reader = reader or MagpiesReader(board)
    if taught:  # first taught the box's look from one photo of a four-player set-up, as dealt (MM-SETUP-1)
        setup = MightyMagpies(players=["P1", "P2", "P3", "P4"]).new_initial_state()
        setup.apply(setup.sample_chance(random.Random(seed)))
        teach_from_photo(reader, board, scene_from_state(setup), partial(render, rendition=rendition), seed,
                         bare_board=bare_board)
    return evaluate_reader(board, reader, sample_states(scenes, seed), scene_from_state, partial(render, rendition=rendition), scenes, seed,
                          condition=condition)


if __name__ == "__main__":
    args = sys.argv[1:]
    print(json.dumps(evaluate(int(args[0]) if args else 5, int(args[1]) if len(args) > 1 else 0), indent=1))
