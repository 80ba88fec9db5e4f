"""Eagle Kingdoms' board benchmark: seeded states along simulated games, rendered, read, compared.

Usage (a quick look)::

    python -m companion.workshop.boards.bench.eagle_kingdoms [SCENES] [SEED]     # the figures, as JSON
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np

from companion.games.eagle_kingdoms import simulation_policy
from companion.games.eagle_kingdoms.rules import EagleKingdoms, EagleState
from companion.games.playout import playout
from companion.referee.boardmaps import BOARDS_DIR
from companion.referee.eagle_kingdoms import GAME, scene_from_state
from companion.vision.boardmap import load_board_map
from companion.vision.pose import BoardTracker
from companion.vision.readers import Observation, TrackedReader
from companion.vision.readers.eagle_kingdoms import EagleKingdomsReader
from companion.workshop.boards.bench.evaluation import evaluate_reader, teach_from_photo
from companion.workshop.boards.scenes.eagle_kingdoms import render


def sample_states(n: int, seed: int, players: int | None = None) -> list[EagleState]:
    """``n`` states picked along seeded simulated games (random players, the simulation policy),
    from the set-up to the final shield, each at a decision point."""
    rng = random.Random(seed)
    out: list[EagleState] = []
    while len(out) < n:
        k = players or rng.randint(2, 6)
        game = EagleKingdoms(players=[f"P{i + 1}" for i in range(k)])
        state = game.new_initial_state()
        state.apply_unchecked({"type": "setup", "placement": state.random_placement(rng)})
        trail: list[EagleState] = []
        playout(state, rng, simulation_policy, on_action=lambda s, _, trail=trail: s.is_chance_node() or trail.append(s.clone()))
        want = min(n - len(out), rng.randint(3, 8))
        for _ in range(want):
            out.append(trail[int(rng.random() ** 0.8 * len(trail))])  # a little more weight late
    return out[:n]


class PosedReader(TrackedReader):
    """An :class:`~companion.vision.readers.eagle_kingdoms.EagleKingdomsReader` (it reads with a pose
    handed in and keeps no state) behind the shared loop's ``reset()`` / ``read(image)``: the wrapper
    owns the board tracker, so ``reset()`` makes the next pose a cold one."""

    def __init__(self, board: Any, reader: Any) -> None:
        self.reader = reader
        self.tracker = BoardTracker(board)

    def read_with_pose(self, image: np.ndarray, pose: Any) -> Observation:
        obs = self.reader.read(image, pose)
        # the shared loop reports timings_ms["read"]; this reader calls its reading time "total"
        return replace(obs, timings_ms={**obs.timings_ms, "read": float(obs.timings_ms.get("total", 0.0))})


def evaluate(scenes: int, seed: int, *, reader: Any = None, condition: str = "as-rendered", rendition: int = 1,
             taught: bool = False) -> dict[str, Any]:
    """Render ``scenes`` states of seeded games, find the board, read it, compare with the truth
    (the shared loop, :func:`companion.workshop.boards.bench.evaluation.evaluate_reader`; ``reader`` reads with a
    pose handed in, like :class:`~companion.vision.readers.eagle_kingdoms.EagleKingdomsReader`).

    ``per_space_error``: share of regions (46 per board) not read exactly -- a wrong reading *or* an
    uncertain one; ``silent_error`` counts only confident wrong readings. ``board_exact``: boards with
    every region right and none uncertain. ``ms_median``: cold pose (whole-frame marker search) plus
    reading, one thread, wall clock; ``cpu_ms_median`` the same as this thread's CPU time (what a busy
    machine inflates least).
    """
    board = load_board_map(BOARDS_DIR / f"{GAME}.json")
    posed = PosedReader(board, reader or EagleKingdomsReader(board))
    if taught:  # ``taught``: first taught the box's look from one photo of another game's set-up
        teach_from_photo(posed.reader, board, scene_from_state(sample_states(1, seed + 1)[0]), partial(render, rendition=rendition),
                         seed, pose_reader=posed.reader)
    return evaluate_reader(board, posed, sample_states(scenes, seed), scene_from_state, partial(render, rendition=rendition), scenes, seed,
                          condition=condition)


if __name__ == "__main__":
    args = sys.argv[1:]
    print(json.dumps(evaluate(int(args[0]) if args else 5, int(args[1]) if len(args) > 1 else 0), indent=1))
