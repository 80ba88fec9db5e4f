"""Verzauberte Eulen's board benchmark: seeded states along simulated games, rendered, read, compared.

Usage (a quick look)::

    python -m companion.workshop.boards.bench.verzauberte_eulen [SCENES] [SEED]     # the figures, as JSON
"""

from __future__ import annotations

import json
import random
import sys
from functools import partial
from typing import Any

from companion.games.playout import playout
from companion.games.verzauberte_eulen import simulation_policy
from companion.games.verzauberte_eulen.rules import EulenState, VerzauberteEulen
from companion.referee.boardmaps import BOARDS_DIR
from companion.referee.verzauberte_eulen import GAME, scene_from_state
from companion.vision.boardmap import load_board_map
from companion.vision.readers.verzauberte_eulen import EulenReader
from companion.workshop.boards.bench.evaluation import evaluate_reader, teach_from_photo
from companion.workshop.boards.scenes.verzauberte_eulen import render


def sample_states(n: int, seed: int) -> list[EulenState]:
    """``n`` decision states picked along seeded simulated games (2-4 players, now and then the
    advanced variant), from the first move to the end."""
    rng = random.Random(seed)
    out: list[EulenState] = []
    while len(out) < n:
        k = rng.randint(2, 4)
        variant = "advanced" if k == 2 and rng.random() < 0.3 else None
        game = VerzauberteEulen(players=[f"P{i + 1}" for i in range(k)], variant=variant)
        state = game.new_initial_state()
        trail: list[EulenState] = []
        playout(state, rng, simulation_policy, on_action=lambda s, _, trail=trail: s.is_chance_node() or trail.append(s.clone()))
        for _ in range(min(n - len(out), rng.randint(3, 8))):
            out.append(trail[int(rng.random() ** 0.8 * len(trail))])
    return out[:n]


def evaluate(scenes: int, seed: int, *, reader: Any = None, condition: str = "as-rendered", rendition: int = 1,
             taught: bool = False, bare_board: bool = False) -> dict[str, Any]:
    """Render ``scenes`` states of seeded games, find the board, read it, compare with the truth.

    ``per_space_error``: share of spaces (65 per board) not read exactly -- a wrong reading *or* an
    uncertain one (``silent_error``: confident and wrong). ``board_exact``: boards with every space
    right and none uncertain. ``ms_median``: cold pose (whole-frame marker search) plus reading of one
    1280x720 frame (with the full-size marker search when the half-size one finds too few), one thread, wall clock (``cpu_ms_median``: this thread's CPU time).
    """
    board = load_board_map(BOARDS_DIR / f"{GAME}.json")
    reader = reader or EulenReader(board)
    if taught:  # first taught the box's look from one photo of a four-player set-up
        setup = VerzauberteEulen(players=["P1", "P2", "P3", "P4"]).new_initial_state()
        teach_from_photo(reader, board, scene_from_state(setup), partial(render, rendition=rendition), seed,
                         bare_board=bare_board)
    return evaluate_reader(board, reader, sample_states(scenes, seed), scene_from_state, partial(render, rendition=rendition), scenes, seed,
                          condition=condition)


if __name__ == "__main__":
    args = sys.argv[1:]
    print(json.dumps(evaluate(int(args[0]) if args else 5, int(args[1]) if len(args) > 1 else 0), indent=1))
