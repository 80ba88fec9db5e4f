"""Falconry's board benchmark: tables of seeded games of every mode, rendered, read, compared.

Usage::

    python -m companion.workshop.boards.bench.falconry [--scenes 200] [--seed 0]     # the figures, as JSON
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from companion.games.core import State
from companion.games.falconry import FalconryGame, simulation_policy
from companion.games.playout import playout
from companion.referee.falconry import FalconryAdapter, board_map, engine_stacks
from companion.referee.falconry_map import cell_id, parse_cell_id, table_range
from companion.vision.readers.falconry import FalconryReader
from companion.workshop.boards.bench.evaluation import evaluate_reader, teach_from_photo
from companion.workshop.boards.scenes.falconry import render

MODES = {"duel": 2, "fast-duel": 2, "allied": 3, "truel": 3, "quarrel": 4, "joint": 4}


def sample_states(n: int, seed: int) -> list[tuple[State, FalconryAdapter]]:
    """``n`` states from seeded games of every mode (round robin), each with a fitting offset.

    A game is played from its seed with the engine's simulation policy; one position is drawn at a
    random point of it; positions whose table does not fit the map are replaced by an earlier one.
    """
    rng = random.Random(seed)
    xs, ys = table_range()
    out = []
    modes = list(MODES)
    while len(out) < n:
        mode = modes[len(out) % len(modes)]
        game = FalconryGame(players=[f"P{i}" for i in range(MODES[mode])], mode=mode)
        state = game.new_initial_state()
        history: list[State] = []
        playout(state, rng, simulation_policy, max_actions=399, on_action=lambda s, _, history=history: history.append(s.clone()))
        history.append(state.clone())
        for pick in sorted(range(len(history)), key=lambda _: rng.random()):
            st = history[pick]
            cells = list(engine_stacks(st))
            w = max(c[0] for c in cells) - min(c[0] for c in cells) + 1
            h = max(c[1] for c in cells) - min(c[1] for c in cells) + 1
            if w <= len(xs) and h <= len(ys):
                ox = xs.start - min(c[0] for c in cells) + rng.randint(0, len(xs) - w)
                oy = ys.start - min(c[1] for c in cells) + rng.randint(0, len(ys) - h)
                out.append((st, FalconryAdapter((ox, oy))))
                break
    return out


def judged_cells(scene: Mapping[str, Any]) -> set[str]:
    """Occupied cells and their eight neighbours inside the map: the spaces a reading is judged on."""
    xs, ys = table_range()
    out = set()
    for rid in scene:
        tx, ty = parse_cell_id(rid)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                if tx + dx in xs and ty + dy in ys:
                    out.add(cell_id(tx + dx, ty + dy))
    return out


def teaching_position(seed: int) -> tuple[State, FalconryAdapter]:
    """A position of a seeded game whose table shows every kind of card (marker, bird, falconer): what the table
    pipeline has taught itself once a game's set-up (falconers, birds) and its first marker were confirmed."""
    for state, adapter in sample_states(24, seed + 1000):
        if len({cards[0]["kind"] for cards in adapter.scene_from_state(state).values()}) == 3:
            return state, adapter
    raise ValueError(f"no position with every kind of card among seed {seed + 1000}'s")


def evaluate(scenes: int = 200, seed: int = 0, *, reader: Any = None, condition: str = "as-rendered", rendition: int = 1,
             taught: bool = False) -> dict[str, Any]:
    """Read ``scenes`` fresh frames rendered from seeded simulations; accuracy and time per frame
    (the shared loop, :func:`companion.workshop.boards.bench.evaluation.evaluate_reader`).

    ``per_space_error``: judged cells (occupied + neighbours, ``judged_regions`` in all) read wrong,
    uncertain ones included, every judged cell of a refused frame (``board_not_found``) counted wrong;
    ``board_exact``: frames usable with every cell of the map read right and none uncertain;
    ``ms_median``: pose (cold, whole-frame marker search) + reading, wall clock, one OpenCV thread;
    ``cpu_ms_median`` the same as this thread's CPU time. ``taught``: the reader first learns the deck's look
    from one photo of a position showing every kind (:func:`teaching_position`).
    """
    board = board_map()
    reader = reader or FalconryReader(board)
    if taught:  # first taught the deck's look from one photo of cards whose identities are known
        state, adapter = teaching_position(seed)
        teach_from_photo(reader, board, adapter.scene_from_state(state), partial(render, rendition=rendition), seed)
    states = sample_states(scenes, seed)
    result = evaluate_reader(
        board,
        reader,
        states,
        lambda sa: sa[1].scene_from_state(sa[0]),
        partial(render, rendition=rendition),
        scenes,
        seed,
        paint_from_state=lambda sa: sa[1].paint_scene(sa[0]),
        judged=judged_cells,
        condition=condition,
    )
    return {"seed": seed, **result}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.workshop.boards.bench.falconry", description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenes", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    report = evaluate(max(1, args.scenes), args.seed)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
