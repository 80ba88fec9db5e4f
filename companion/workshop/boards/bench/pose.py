"""Board-pose benchmark: pose accuracy and speed on synthetic 1280x720 table scenes.

Usage::

    python -m companion.workshop.boards.bench.pose [--scenes 50] [--seed 0] [--board MAP.json] [--repeat 3]

(``companion bench board`` reports the same on the Eagle Kingdoms map as its ``pose`` entry.)

Prints one JSON object: fraction of scenes where the board was found, board-corner error in mm
(median, p95, max), and per-frame milliseconds of a cold pose (whole-frame search) and of a tracked
pose (the next frame, markers searched only where the last pose put them), single-threaded, as
wall-clock and as this thread's CPU time (``*_cpu_ms``: what a busy machine inflates least). Each
frame is timed ``--repeat`` times and the fastest kept.
Exits 1 when a found pose is off by more than ``--max-error-mm`` or fewer than ``--min-found`` of the
scenes are found. Later stages (reading spaces and dice) add their own fields.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence

import cv2
import numpy as np

from companion.vision.boardmap import BoardMapError, load_board_map
from companion.vision.pose import BoardTracker, PoseStatus
from companion.workshop.boards.synth_table import corner_error_mm, example_board_map, random_scene, render_scene


def run(board, scenes: int, seed: int, repeat: int, size: tuple[int, int]) -> dict:
    rng = np.random.default_rng(seed)
    errors, cold_ms, tracked_ms, cold_cpu, tracked_cpu, statuses = [], [], [], [], [], {}
    for _ in range(scenes):
        scene = random_scene(board, rng, size)
        best_cold, best_cpu, result = float("inf"), float("inf"), None
        for _ in range(repeat):
            tracker = BoardTracker(board)
            t, c = time.perf_counter(), time.thread_time()
            result = tracker.update(scene.image)
            best_cold = min(best_cold, (time.perf_counter() - t) * 1000)
            best_cpu = min(best_cpu, (time.thread_time() - c) * 1000)
        cold_ms.append(best_cold)
        cold_cpu.append(best_cpu)
        statuses[result.status.value] = statuses.get(result.status.value, 0) + 1
        if result.status is PoseStatus.FOUND:
            errors.append(corner_error_mm(board, scene.homography, result.homography))
            # the next frame: the camera nudged by a few px, the pose known -> the tracked path
            nudge = np.array([[1, 0, rng.uniform(-3, 3)], [0, 1, rng.uniform(-3, 3)], [0, 0, 1]])
            nxt = render_scene(board, nudge @ scene.homography, size, rng=rng).image
            best, best_cpu = float("inf"), float("inf")
            for _ in range(repeat):
                follower = BoardTracker(board)
                follower.update(scene.image)
                t, c = time.perf_counter(), time.thread_time()
                follower.update(nxt)
                best = min(best, (time.perf_counter() - t) * 1000)
                best_cpu = min(best_cpu, (time.thread_time() - c) * 1000)
            tracked_ms.append(best)
            tracked_cpu.append(best_cpu)
    err = np.asarray(errors) if errors else np.asarray([np.nan])
    return {
        "bench": "board",
        "board": board.game,
        "frame": list(size),
        "scenes": scenes,
        "seed": seed,
        "found_fraction": round(len(errors) / max(scenes, 1), 4),
        "statuses": statuses,
        "corner_error_mm": {
            "median": round(float(np.median(err)), 3),
            "p95": round(float(np.percentile(err, 95)), 3),
            "max": round(float(err.max()), 3),
        },
        "pose_ms_median": round(float(np.median(cold_ms)), 2),
        "pose_ms_p95": round(float(np.percentile(cold_ms, 95)), 2),
        "tracked_ms_median": round(float(np.median(tracked_ms)), 2) if tracked_ms else None,
        "pose_cpu_ms_median": round(float(np.median(cold_cpu)), 2),
        "tracked_cpu_ms_median": round(float(np.median(tracked_cpu)), 2) if tracked_cpu else None,
        "threads": cv2.getNumThreads(),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.workshop.boards.bench.pose", description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenes", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--board", help="board map JSON (default: the built-in example board)")
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--max-error-mm", type=float, default=1.0)
    parser.add_argument("--min-found", type=float, default=0.95)
    args = parser.parse_args(argv)
    try:
        board = load_board_map(args.board) if args.board else example_board_map()
    except BoardMapError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    w, h = (int(v) for v in args.size.lower().split("x"))
    cv2.setNumThreads(1)
    report = run(board, max(1, args.scenes), args.seed, max(1, args.repeat), (w, h))
    print(json.dumps(report))
    ok = report["found_fraction"] >= args.min_found and report["corner_error_mm"]["max"] <= args.max_error_mm
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
