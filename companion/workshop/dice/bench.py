"""``companion bench dice [--json] [--scenes N] [--no-real] [--no-rolls] [--films [--film-seeds 0,1] [--film-rolls N]]``:
dice-reading benchmark.

Prints per-kind accuracy on a fresh synthetic set (and the six-sided dice's by the angle their top face
is seen at), recall and accuracy on the real photos (each split with its role: validation, or never used
in training; the per-die and per-photo shares with their 95% intervals; again with the labels reviewed
where they and the reader disagreed), two-dice rolls per validation split untaught and after teaching a profile
on the split's first photos (``rolls``; synthetic boxes too, for the d8 and the colour dice), what the reader sees
on the four games' boards without any dice (``boards``), the median ms per 1280x720 frame with 2, 5 and 10 dice using one
onnxruntime thread, and that of the motion meter that holds a roll back while something moves over the
table. Exit status 0, or 2 when the models cannot be loaded.

``--far PX`` measures instead the real validation photos shrunk so that their dice are PX pixels across, as a
phone at the table's side sees them (``rolls.evaluate_from_afar``).

``--films`` measures instead the dice of the whole-game films of ``companion bench table``, die by die (found,
sure and right, sure and wrong, unsure; per die kind and game; :mod:`companion.workshop.table.dice_films`).
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from companion.vision.errors import ModelError
from companion.workshop.dice import boards, evaluate, realdata, rolls
from companion.workshop.dice.cards import pct_with_interval


def _print_real(r: dict, extra: str = "") -> None:
    role = "NEVER USED IN TRAINING" if r["role"] == "heldout" else r["role"]
    print(f"  {r['dataset']}/{r['split']} [{role}]: {r['photos']} photos, {r['dice']} dice; "
          f"found {100 * r['recall']:.1f}%, read right {100 * r['accuracy']:.1f}% "
          f"(confident only {100 * r['accuracy_confident']:.1f}%, uncertain {100 * r['uncertain']:.1f}%), "
          f"found and read right {pct_with_interval(r['recall'] * r['accuracy'], r['dice'])}, "
          f"photos all right {pct_with_interval(r['photos_all_right'], r['photos'])}, "
          f"extra {r['extra_detections']}{extra}")


def _roll_line(label: str, r: dict) -> str:
    rr = r["rolls"]
    return (f"{label}: {r['dice']} dice, {100 * r['right_sure']:.1f}% right and sure, {100 * r['asked']:.1f}% asked "
            f"({100 * r.get('missed', 0):.1f}% missed, {100 * r.get('unsure', 0):.1f}% unsure), "
            f"{100 * r['wrong_of_sure']:.2f}% of sure readings wrong; two-dice rolls {100 * rr['right_without_tap']:.1f}% "
            f"right without a tap, {100 * rr['asked']:.1f}% asked, {100 * rr['silently_wrong']:.2f}% silently wrong")


def _print_rolls(result: dict) -> None:
    if isinstance(result.get("rolls"), str):
        print(f"two-dice rolls: {result['rolls']}")
    elif "rolls" in result:
        print(f"two-dice rolls per set, untaught and taught on the set's first {rolls.TEACH_PHOTOS} photos "
              "(counted on its validation photos after them):")
        for r in result["rolls"]:
            print(f"  {r['dataset']} ({r['photos_counted']} {r['counted_on']}; profile {r['profile']['dice']} dice, "
                  f"{r['profile']['not_dice']} not dice" + (f", missing {r['profile']['missing']}" if r["profile"]["missing"] else "") + ")")
            print("    " + _roll_line("untaught", r["untaught"]))
            print("    " + _roll_line("taught  ", r["taught"]))
            if len(r["taught"].get("per_kind", {})) > 1:
                for kind, k in r["taught"]["per_kind"].items():
                    print("      " + _roll_line(f"taught, {kind}", k))
            if "untaught_from_above" in r:
                side = r["untaught"]["per_view"]["above"]
                print("    " + _roll_line("its photos from above, read as seen from the side", side))
                print("    " + _roll_line("  and as the table pipeline reads dice seen from above", r["untaught_from_above"]))
    for kind, r in result.get("rolls_synthetic", {}).items():
        print(f"  synthetic {kind} ({r['boxes']} boxes of one set of dice on one table)")
        print("    " + _roll_line("untaught", r["untaught"]))
        print("    " + _roll_line("taught  ", r["taught"]))


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.films:
        return _films(args)
    if args.far is not None:
        return _from_afar(args)
    from companion.vision.reader import DiceReader

    try:
        reader = DiceReader(threads=1)
    except ModelError as exc:
        print(f"error: {exc.reason}", file=sys.stderr)
        return 2
    result: dict = {"synthetic": evaluate.evaluate_synthetic(reader, args.scenes)}
    if not args.no_real:
        result.update(_real_figures(("valid", "heldout", "train") if args.all_splits else ("valid", "heldout")))
    if not args.no_rolls:
        result.update(_roll_figures(reader, args))
    result["board_frames_without_dice"] = boards.phantom_dice(reader, boards.board_frames(args.board_frames, 91,
                                                                                         long_side=1280))
    result.update(_timings(reader))
    if args.json:
        print(json.dumps(result))
    else:
        _print_result(result)
    return 0


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="companion bench dice", description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--scenes", type=int, default=200, help="synthetic scenes (default 200)")
    ap.add_argument("--no-real", action="store_true", help="skip the real photos")
    ap.add_argument("--all-splits", action="store_true", help="also report the training splits")
    ap.add_argument("--no-rolls", action="store_true", help="skip the roll-level figures (untaught and taught)")
    ap.add_argument("--boxes", type=int, default=4, help="synthetic boxes of dice per kind, taught and not (default 4)")
    ap.add_argument("--board-frames", type=int, default=40, help="rendered board frames without dice (default 40)")
    ap.add_argument("--films", action="store_true", help="only the dice of the whole-game films, die by die")
    ap.add_argument("--film-seeds", default="0,1", help="seeds of the films of each game (default 0,1)")
    ap.add_argument("--film-rolls", type=int, default=30, help="settled rolls per film (default 30)")
    ap.add_argument("--film-frames", type=int, default=3, help="still frames read per roll (default 3)")
    ap.add_argument("--far", type=float, default=None, metavar="PX",
                    help="only the real validation photos seen from afar: shrunk so their dice are PX pixels across "
                         "(20: a phone at the table's side)")
    return ap


def _from_afar(args: argparse.Namespace) -> int:
    """The real sets' validation photos seen from afar (``rolls.evaluate_from_afar``), untaught."""
    import tempfile
    from pathlib import Path

    from companion.vision.reader import DiceReader

    if not realdata.available():
        print(f"error: no datasets at {realdata.datasets_root()}", file=sys.stderr)
        return 2
    if not 4 <= args.far <= 400:
        print(f"error: --far takes a die's size in pixels, 4 to 400, not {args.far:g}", file=sys.stderr)
        return 2
    try:
        with tempfile.TemporaryDirectory() as folder:
            result = rolls.evaluate_from_afar(lambda kinds: DiceReader(kinds=kinds, threads=1), args.far, Path(folder))
    except ModelError as exc:
        print(f"error: {exc.reason}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"from_afar": result}))
        return 0
    print(f"the real validation photos seen from afar (dice shrunk to {args.far:g} px across, JPEG), untaught:")
    for r in result:
        print(f"  {r['dataset']} ({r['photos_counted']} photos)")
        print("    " + _roll_line("as seen from the side", r["untaught"]))
        if "untaught_from_above" in r:
            print("    " + _roll_line("its photos from above, as seen from above", r["untaught_from_above"]))
    return 0


def _films(args: argparse.Namespace) -> int:
    from companion.workshop.table import dice_films

    try:
        seeds = tuple(int(s) for s in args.film_seeds.split(",") if s.strip())
    except ValueError:
        print(f"error: --film-seeds takes whole numbers separated by commas, not {args.film_seeds!r}", file=sys.stderr)
        return 2
    try:
        result = dice_films.measure(seeds=seeds, rolls=args.film_rolls, frames=args.film_frames)
    except ModelError as exc:
        print(f"error: {exc.reason}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"films": result}))
        return 0
    print(f"the dice of the whole-game films (seeds {args.film_seeds}; {args.film_rolls} settled rolls per film, "
          f"{args.film_frames} still frames each):")
    for game, g in [*result["games"].items(), ("all", result["all"])]:
        r = g["rolls"]
        print(f"  {game}: {g['frames']} frames, {g['ms_per_frame_median']} CPU ms per frame's dice read afresh; settled rolls "
              f"{r.get('right_without_tap', 0)} of {r.get('rolls', 0)} right without a tap, "
              f"{r.get('silently_wrong', 0)} silently wrong; {g['sure_extra_finds']} sure finds that are no die")
        for kind, k in g["per_kind"].items():
            print(f"    {kind:7} {k['dice']:4} dice read: found {100 * k['found']:5.1f}%  sure and right "
                  f"{100 * k['sure_right_share']:5.1f}%  sure and wrong {k['sure_wrong']}  unsure {100 * k['unsure_share']:5.1f}%")
    return 0


def _real_figures(roles: tuple[str, ...]) -> dict:
    """The real photos read as labelled and as reviewed, and the dice whose top face they hide."""
    from companion.vision.reader import DiceReader

    if not realdata.available():
        return {"real": f"skipped: no datasets at {realdata.datasets_root()}"}
    d6_reader = DiceReader(kinds=("d6",), threads=1)  # the photos show only six-sided dice
    cache: dict = {}  # each photo read once, for the figures as labelled and as reviewed
    return {
        "real": [evaluate.evaluate_real(d6_reader, d, s, readings_cache=cache) for d, s in evaluate.real_splits(roles)],
        "real_reviewed": [evaluate.evaluate_real(d6_reader, d, s, reviewed=True, readings_cache=cache)
                          for d, s in evaluate.reviewed_splits(roles)],
        "top_hidden": evaluate.top_hidden(d6_reader),
    }


def _roll_figures(reader, args: argparse.Namespace) -> dict:
    """Whole rolls read untaught and taught: on the real sets (unless --no-real) and on synthetic boxes."""
    from companion.vision.reader import DiceReader

    if not reader.classifier.has_embedding:
        return {"rolls": "skipped: the dice classifier in models/ has no embedding output (retrain it)"}

    def make_reader(kinds):
        return DiceReader(kinds=kinds, threads=1)

    result: dict = {}
    if realdata.available() and not args.no_real:
        result["rolls"] = rolls.evaluate_real(make_reader)
    if args.boxes:
        result["rolls_synthetic"] = rolls.synthetic_boxes(make_reader, args.boxes)
    return result


def _timings(reader) -> dict:
    from companion.vision.reader import DiceReader

    result = {"ms_1280x720_one_thread": evaluate.time_frames(reader)}
    if reader.looking_down:  # every die seen from above (the board's pose says so): doubtful crops read turned too
        result["ms_1280x720_one_thread_from_above"] = evaluate.time_frames(
            reader, seen_at=lambda centres: np.zeros(len(centres)))
    if reader.classifier.has_embedding:  # the same frames read with a taught profile (a box of six-sided dice)
        profiled = DiceReader(threads=1)
        rolls.synthetic_profile(profiled)
        result["ms_1280x720_one_thread_with_profile"] = evaluate.time_frames(profiled)
    result["ms_640x640_25_dice_one_thread"] = evaluate.time_frames(reader, (25,), 640, 640, size_range=(20, 70))["25_dice"]
    result["ms_motion_meter_1280x720"] = evaluate.time_motion()
    return result


def _print_result(result: dict) -> None:
    _print_synthetic(result["synthetic"])
    _print_real_photos(result)
    _print_rolls(result)
    b = result["board_frames_without_dice"]
    print(f"the four games' boards with their pieces, no dice ({b['frames']} rendered frames): "
          f"{b['finds_per_frame']:.2f} finds and {b['sure_per_frame']:.2f} sure dice per frame; "
          f"{100 * b['frames_with_a_sure_die']:.0f}% of frames show a sure die")
    print("median ms per 1280x720 frame (1 thread): "
          + ", ".join(f"{k.replace('_', ' ')} {v:.1f}" for k, v in result["ms_1280x720_one_thread"].items()))
    if "ms_1280x720_one_thread_from_above" in result:
        print("  the same, every die seen from above (the table pipeline with the board's pose): " + ", ".join(
            f"{k.replace('_', ' ')} {v:.1f}" for k, v in result["ms_1280x720_one_thread_from_above"].items()))
    if "ms_1280x720_one_thread_with_profile" in result:
        print("  the same with a taught profile: " + ", ".join(
            f"{k.replace('_', ' ')} {v:.1f}" for k, v in result["ms_1280x720_one_thread_with_profile"].items()))
    print(f"median ms per 640x640 photo with 25 dice (1 thread): {result['ms_640x640_25_dice_one_thread']:.1f}")
    print(f"median ms of the motion meter (is anything moving over the table?) per 1280x720 frame: "
          f"{result['ms_motion_meter_1280x720']:.1f}")


def _print_synthetic(syn: dict) -> None:
    print(f"synthetic ({syn['scenes']} fresh scenes, {syn['extra_detections']} extra detections):")
    for kind, s in syn["per_kind"].items():
        print(f"  {kind:7} {s['dice']:5} dice  found {100 * s['recall']:6.2f}%  read right {100 * s['accuracy']:6.2f}%"
              f"  uncertain {100 * s['uncertain']:5.2f}%")
    print("  d6 read right by the angle its top face is seen at (degrees from the line of sight): "
          + ", ".join(f"{a['degrees']} {100 * a['accuracy']:.0f}% of {a['dice']}" for a in syn["d6_by_view_angle"]))


def _print_real_photos(result: dict) -> None:
    if isinstance(result.get("real"), str):
        print(f"real photos: {result['real']}")
        return
    if "real" not in result:
        return
    print("real photos (read with --kinds d6):")
    for r in result["real"]:
        _print_real(r)
    if result["real_reviewed"]:
        print("the same, labels reviewed where they and the reader disagreed (companion/workshop/dice/label_review.json):")
        for r in result["real_reviewed"]:
            _print_real(r, f"; {r['labels_changed']} labels changed")
    print("  (± half-width of the 95% interval: a difference between two models smaller than this can be chance)")
    h = result["top_hidden"]
    print(f"  dice whose face on top the photo does not show (reviewed, validation photos): {h['dice']}: "
          f"{h['sure']} read sure (a guess), {h['uncertain']} uncertain, {h['missed']} not found")


if __name__ == "__main__":
    sys.exit(main())
