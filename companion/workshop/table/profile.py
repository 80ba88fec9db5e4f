"""``companion bench profile``: where the live table pipeline's time goes, on a short stretch of a seeded game.

Usage::

    companion bench profile [--game G] [--renditions 1,2] [--seed S] [--frames N] [--json]

Films the first N frames (default 300: the set-up read, then a dozen actions with dice thrown, hands and a
change of light) of the seeded game of ``companion bench table`` (:mod:`companion.workshop.table.film`:
1280x720 JPEG, a phone's wide lens and its profile), follows them with the code of ``companion follow``
(the true journal answering its questions) and reports, per rendition, the pipeline thread's CPU ms per
frame (median, p90) and per stage (:mod:`companion.workshop.table.stages`: undistort, motion, pose,
quality, photometry, reader, dice, match, other), each the median and p90 over the frames and the share
of frames it ran on. The same stretch each run: repeatable, a minute or two per rendition. Run it under
``nice``; the figures are CPU time, so a busy machine inflates them little. Exit status 0 when the
median frame is within the 40 ms target, 1 otherwise, 2 on bad usage.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

TARGET_MS = 40.0


def profile(game: str, seed: int, rendition: int, frames: int) -> dict[str, Any]:
    """The stage profile of one rendition's first ``frames`` frames."""
    from companion.workshop.table.bench import follow_film
    from companion.workshop.table.stages import stage_summary

    with tempfile.TemporaryDirectory(prefix="bench-profile-") as tmp:
        run = follow_film(game, seed, rendition, Path(tmp), frames=frames)
    cpu = np.asarray(run["cpu_ms"], np.float64)
    return {
        "frames": run["frames"], "actions_followed": run["followed"], "diverged_at": run["diverged_at"],
        "refused_frames": run["refused_frames"], "asked": run["asked"], "asks_by_reason": run["asks_by_reason"],
        "cpu_ms_per_frame": {"median": round(float(np.median(cpu)), 2), "p90": round(float(np.percentile(cpu, 90)), 2)},
        "stages_cpu_ms": stage_summary(run["stages"]),
    }


def table(result: dict[str, Any]) -> str:
    """The stages of one rendition as plain lines."""
    lines = [f"{'stage':<11} {'median':>7} {'p90':>7} {'ran':>5}"]
    for stage, s in result["stages_cpu_ms"].items():
        lines.append(f"{stage:<11} {s['median']:7.2f} {s['p90']:7.2f} {s['ran'] * 100:4.0f}%")
    c = result["cpu_ms_per_frame"]
    lines.append(f"{'per frame':<11} {c['median']:7.2f} {c['p90']:7.2f}   (CPU ms, {result['frames']} frames)")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    from companion.workshop.table.bench import GAMES

    parser = argparse.ArgumentParser(prog="companion bench profile", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="eagle-kingdoms", choices=GAMES)
    parser.add_argument("--renditions", default="1,2", help="renditions to film (default 1,2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--frames", type=int, default=300, help="frames from the game's start (default 300)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    try:
        renditions = [int(r) for r in args.renditions.split(",") if r.strip()]
    except ValueError:
        renditions = []
    if args.frames < 1 or not renditions:
        print("error: --frames >= 1 and --renditions like 1,2", file=sys.stderr)
        return 2
    import cv2

    cv2.setNumThreads(1)  # one core, as the target says
    report: dict[str, Any] = {"game": args.game, "seed": args.seed, "target_ms": TARGET_MS, "renditions": {}}
    for rendition in renditions:
        try:
            result = profile(args.game, args.seed, rendition, args.frames)
        except ValueError as exc:  # a rendition the painter does not draw
            print(f"error: {exc}", file=sys.stderr)
            return 2
        report["renditions"][str(rendition)] = result
        if not args.json:
            print(f"{args.game} rendition {rendition}, seed {args.seed}:\n{table(result)}\n", flush=True)
    if args.json:
        print(json.dumps(report))
    ok = all(r["cpu_ms_per_frame"]["median"] <= TARGET_MS for r in report["renditions"].values())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
