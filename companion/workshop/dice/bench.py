"""``companion bench dice [--json] [--scenes N] [--no-real]``: dice-reading benchmark.

Prints per-kind accuracy on a fresh synthetic set (and the six-sided dice's by the angle their top face
is seen at), recall and accuracy on the real photos (each split with its role: validation, or never used
in training; the per-die and per-photo shares with their 95% intervals; again with the labels reviewed
where they and the reader disagreed), the median ms per 1280x720 frame with 2, 5 and 10 dice using one
onnxruntime thread, and that of the motion meter that holds a roll back while something moves over the
table. Exit status 0, or 2 when the models cannot be loaded.
"""

from __future__ import annotations

import argparse
import json
import sys

from companion.vision.errors import ModelError
from companion.workshop.dice import evaluate, realdata
from companion.workshop.dice.cards import pct_with_interval


def _print_real(r: dict, extra: str = "") -> None:
    role = "NEVER USED IN TRAINING" if r["role"] == "heldout" else r["role"]
    print(f"  {r['dataset']}/{r['split']} [{role}]: {r['photos']} photos, {r['dice']} dice; "
          f"found {100 * r['recall']:.1f}%, read right {100 * r['accuracy']:.1f}% "
          f"(confident only {100 * r['accuracy_confident']:.1f}%, uncertain {100 * r['uncertain']:.1f}%), "
          f"found and read right {pct_with_interval(r['recall'] * r['accuracy'], r['dice'])}, "
          f"photos all right {pct_with_interval(r['photos_all_right'], r['photos'])}, "
          f"extra {r['extra_detections']}{extra}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="companion bench dice", description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--scenes", type=int, default=200, help="synthetic scenes (default 200)")
    ap.add_argument("--no-real", action="store_true", help="skip the real photos")
    ap.add_argument("--all-splits", action="store_true", help="also report the training splits")
    args = ap.parse_args(argv)
    from companion.vision.reader import DiceReader

    try:
        reader = DiceReader(threads=1)
    except ModelError as exc:
        print(f"error: {exc.reason}", file=sys.stderr)
        return 2
    result: dict = {"synthetic": evaluate.evaluate_synthetic(reader, args.scenes)}
    roles = ("valid", "heldout", "train") if args.all_splits else ("valid", "heldout")
    if not args.no_real:
        if realdata.available():
            d6_reader = DiceReader(kinds=("d6",), threads=1)  # the photos show only six-sided dice
            cache: dict = {}  # each photo read once, for the figures as labelled and as reviewed
            result["real"] = [evaluate.evaluate_real(d6_reader, d, s, readings_cache=cache)
                              for d, s in evaluate.real_splits(roles)]
            result["real_reviewed"] = [evaluate.evaluate_real(d6_reader, d, s, reviewed=True, readings_cache=cache)
                                       for d, s in evaluate.reviewed_splits(roles)]
        else:
            result["real"] = f"skipped: no datasets at {realdata.datasets_root()}"
    result["ms_1280x720_one_thread"] = evaluate.time_frames(reader)
    result["ms_640x640_25_dice_one_thread"] = evaluate.time_frames(reader, (25,), 640, 640, size_range=(20, 70))["25_dice"]
    result["ms_motion_meter_1280x720"] = evaluate.time_motion()
    if args.json:
        print(json.dumps(result))
        return 0
    syn = result["synthetic"]
    print(f"synthetic ({syn['scenes']} fresh scenes, {syn['extra_detections']} extra detections):")
    for kind, s in syn["per_kind"].items():
        print(f"  {kind:7} {s['dice']:5} dice  found {100 * s['recall']:6.2f}%  read right {100 * s['accuracy']:6.2f}%"
              f"  uncertain {100 * s['uncertain']:5.2f}%")
    print("  d6 read right by the angle its top face is seen at (degrees from the line of sight): "
          + ", ".join(f"{a['degrees']} {100 * a['accuracy']:.0f}% of {a['dice']}" for a in syn["d6_by_view_angle"]))
    if isinstance(result.get("real"), str):
        print(f"real photos: {result['real']}")
    elif "real" in result:
        print("real photos (read with --kinds d6):")
        for r in result["real"]:
            _print_real(r)
        if result["real_reviewed"]:
            print("the same, labels reviewed where they and the reader disagreed (companion/workshop/dice/label_review.json):")
            for r in result["real_reviewed"]:
                _print_real(r, f"; {r['labels_changed']} labels changed")
        print("  (± half-width of the 95% interval: a difference between two models smaller than this can be chance)")
    print("median ms per 1280x720 frame (1 thread): "
          + ", ".join(f"{k.replace('_', ' ')} {v:.1f}" for k, v in result["ms_1280x720_one_thread"].items()))
    print(f"median ms per 640x640 photo with 25 dice (1 thread): {result['ms_640x640_25_dice_one_thread']:.1f}")
    print(f"median ms of the motion meter (is anything moving over the table?) per 1280x720 frame: "
          f"{result['ms_motion_meter_1280x720']:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
