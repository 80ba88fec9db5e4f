"""``companion bench dice-on-board [--json] [--scenes N] [--seed S] [--games g1,g2]``: dice with the board in view.

For each game, N camera set-ups of its board with its pieces (states along seeded games, the light cycling
through as rendered, warm, cool, dim and a soft shadow; :mod:`companion.workshop.boards.dice_scenes`): the
frame before the roll, the same board with nothing thrown, and the same board with the game's dice thrown
onto a free space, the bare board, a space with a piece and beside the board. Each frame is read by the
dice reader and judged three ways:

- ``raw``: the dice reader alone (all kinds), as ``companion dice`` read before;
- ``single_picture``: ``companion dice`` now: the boards posed from their markers in the one picture
  (:func:`companion.vision.dice_context.find_boards`), finds on markers and spaces rejected (all kinds);
- ``raw_game_kinds``: the dice reader alone with the game's dice kinds, as the app reads;
- ``pipeline``: :func:`companion.vision.dice_context.filter_dice` as the table pipeline calls it: the
  game's dice kinds, the pose, the settled reading, the frame before the roll and the roll's dice.

Recall is compared ``single_picture`` against ``raw`` and ``pipeline`` against ``raw_game_kinds``.

Figures per game and way: ``false_dice_per_frame`` on frames with nothing thrown (target 0) and on frames
with dice (finds that are no thrown die), ``found`` and ``found_and_read_right`` of the thrown dice (all,
and per place they landed), and ``ms_added_median``: what the context costs per frame on top of the
dice reader (board finding included for ``single_picture``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from companion.workshop.boards import dice_scenes

WAYS = ("raw", "single_picture", "raw_game_kinds", "pipeline")


def matches(reading_box: Sequence[float], die_box: Sequence[float]) -> bool:
    """A find is a thrown die when its centre lies on the die (its box grown by half a die each side:
    the detector's boxes of small dice are two to three times the die)."""
    x, y, w, h = reading_box
    dx, dy, dw, dh = die_box
    cx, cy = x + w / 2, y + h / 2
    return dx - dw / 2 <= cx <= dx + 1.5 * dw and dy - dh / 2 <= cy <= dy + 1.5 * dh


def judge(dice: Sequence[Any], found: Sequence[Any]) -> tuple[list[tuple[Any, Any]], int]:
    """(thrown die, its reading or None) for every die, and how many finds are no thrown die."""
    used: set[int] = set()
    pairs = []
    for d in dice:
        hit = next((i for i, r in enumerate(found) if i not in used and matches(r.box, d.box)), None)
        if hit is not None:
            used.add(hit)
        pairs.append((d, found[hit] if hit is not None else None))
    return pairs, len(found) - len(used)


class Ways:
    """The three ways of judging one frame (the readers are loaded once)."""

    def __init__(self, kinds: Sequence[str]) -> None:
        from companion.vision.dice_context import bundled_boards
        from companion.vision.reader import DiceReader

        self.all_kinds = DiceReader(threads=1)
        self.game_kinds = DiceReader(kinds=tuple(dict.fromkeys(kinds)), threads=1)
        self.boards = bundled_boards()

    def run(self, case: dice_scenes.DiceCase, image: np.ndarray) -> dict[str, tuple[list[Any], float]]:
        from companion.vision.dice_context import filter_dice, filter_on_boards, find_boards
        from companion.vision.pose import BoardTracker

        raw = self.all_kinds.read(image)
        t0 = time.perf_counter()
        single = filter_on_boards(raw, image, find_boards(image, self.boards)).dice
        single_ms = (time.perf_counter() - t0) * 1000
        mine = self.game_kinds.read(image)
        # the pipeline poses every frame anyway (its board reading needs it): the filter is what it adds
        pose = BoardTracker(case.board).update(image)
        pose_before = BoardTracker(case.board).update(case.before)
        t0 = time.perf_counter()
        piped = filter_dice(mine, image, pose=pose, board=case.board, settled=case.settled,
                            before=(case.before, pose_before), expected=case.expected).dice
        piped_ms = (time.perf_counter() - t0) * 1000
        return {"raw": (raw, 0.0), "single_picture": (single, single_ms), "raw_game_kinds": (mine, 0.0),
                "pipeline": (piped, piped_ms)}


def evaluate(game: str, scenes: int, seed: int) -> dict[str, Any]:
    g = dice_scenes.games()[game]
    ways = Ways(g.kinds)
    with_dice = dice_scenes.cases(game, scenes, seed)
    tally: dict[str, dict[str, Any]] = {w: defaultdict(float) for w in WAYS}
    per_place: dict[str, dict[str, list[int]]] = {w: defaultdict(lambda: [0, 0, 0]) for w in WAYS}
    per_light: dict[str, dict[str, float]] = {w: defaultdict(float) for w in WAYS}
    ms: dict[str, list[float]] = {w: [] for w in WAYS}
    for case in with_dice:
        for image, dice in ((case.before, []), (case.image, case.dice)):
            for way, (found, spent) in ways.run(case, image).items():
                t = tally[way]
                ms[way].append(spent)
                pairs, false = judge(dice, found)
                if dice:
                    t["frames_with_dice"] += 1
                    t["false_with_dice"] += false
                    for d, r in pairs:
                        right = r is not None and r.kind == d.kind and r.value == d.value
                        t["thrown"] += 1
                        t["found"] += r is not None
                        t["right"] += right
                        p = per_place[way][d.place]
                        p[0] += 1
                        p[1] += r is not None
                        p[2] += right
                else:
                    t["frames_without_dice"] += 1
                    t["false_without_dice"] += false
                    t["frames_with_false"] += false > 0
                    per_light[way][case.light] += false
    out: dict[str, Any] = {"scenes": scenes, "seed": seed}
    lights = defaultdict(int)
    for case in with_dice:
        lights[case.light] += 1
    for way in WAYS:
        t = tally[way]
        out[way] = {
            "false_dice_per_frame_without_dice": round(t["false_without_dice"] / max(1, t["frames_without_dice"]), 3),
            "frames_without_dice_with_a_false_die": int(t["frames_with_false"]),
            "false_dice_per_frame_with_dice": round(t["false_with_dice"] / max(1, t["frames_with_dice"]), 3),
            "thrown": int(t["thrown"]),
            "found": round(t["found"] / max(1, t["thrown"]), 3),
            "found_and_read_right": round(t["right"] / max(1, t["thrown"]), 3),
            "per_place": {p: {"thrown": v[0], "found": round(v[1] / max(1, v[0]), 3),
                              "found_and_read_right": round(v[2] / max(1, v[0]), 3)}
                          for p, v in sorted(per_place[way].items())},
            "false_dice_per_frame_without_dice_by_light": {k: round(v / max(1, lights[k]), 3)
                                                           for k, v in sorted(per_light[way].items())},
            "ms_added_median": round(statistics.median(ms[way]), 2) if ms[way] else 0.0,
        }
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="companion bench dice-on-board", description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--scenes", type=int, default=20, help="camera set-ups per game (default 20)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--games", default=",".join(dice_scenes.GAMES), help="comma-separated games (default all four)")
    args = ap.parse_args(argv)
    import cv2

    cv2.setNumThreads(1)
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    bad = [g for g in games if g not in dice_scenes.GAMES]
    if bad or args.scenes < 1:
        print(f"error: unknown game(s) {', '.join(bad)}; choose from {', '.join(dice_scenes.GAMES)}" if bad
              else "error: --scenes must be at least 1", file=sys.stderr)
        return 2
    result = {g: evaluate(g, args.scenes, args.seed) for g in games}
    if args.json:
        print(json.dumps(result))
        return 0
    for g, r in result.items():
        print(f"{g} ({r['scenes']} set-ups, each without and with dice):")
        for way in WAYS:
            w = r[way]
            print(f"  {way:15} false dice per frame {w['false_dice_per_frame_without_dice']:.2f} without dice "
                  f"({w['frames_without_dice_with_a_false_die']} frames with any), "
                  f"{w['false_dice_per_frame_with_dice']:.2f} with; thrown {w['thrown']}: found {100 * w['found']:.0f}%, "
                  f"read right {100 * w['found_and_read_right']:.0f}%; +{w['ms_added_median']:.1f} ms")
            print("  " + " " * 16 + ", ".join(f"{p} {100 * v['found_and_read_right']:.0f}% of {v['thrown']}"
                                               for p, v in w["per_place"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
