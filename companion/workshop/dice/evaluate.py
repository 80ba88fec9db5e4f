"""Evaluation of the dice stages: synthetic scenes, real photos, classifier confusion, timing.

Usage: ``python -m companion.workshop.dice.evaluate [--cards]`` prints the figures; with --cards it also
rewrites the model cards (keeping each card's hand-written "This run" section while its model file is
unchanged), the confusion-matrix PNG and the per-photo CSV in models/.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np

from companion.vision.classes import CLASS_NAMES, CLASSES, KINDS, NONE
from companion.vision.confidence import ece
from companion.vision.detect import Detection
from companion.workshop.dice import label_review, realdata, synth
from companion.workshop.dice.realdata import match

SYNTH_SEED = 777_000  # far from every training seed


# degrees between a die's upward face normal and the line of sight: how the accuracy falls as the camera
# leans (the app advises above pose_config.json's view.lean_warn_deg, docs/vision-notes.md dice reader ruling 14)
ANGLE_BINS = (0, 15, 25, 35, 45, 55, 90)


def _angle_bin(top_cos: float) -> int:
    degrees = math.degrees(math.acos(max(-1.0, min(1.0, top_cos))))
    return next((k for k, hi in enumerate(ANGLE_BINS[1:]) if degrees < hi), len(ANGLE_BINS) - 2)


def _right(reading, kind, value) -> bool:
    return reading.kind == kind and reading.value == value


def evaluate_synthetic(reader, n_scenes: int = 200, seed: int = SYNTH_SEED, h: int = 480, w: int = 640) -> dict:
    """Fresh synthetic scenes: recall of readable dice, per-kind accuracy of found dice.

    Readable means labelled with a value (synth.render_scene): the upward face mostly in view and
    clearly the face that looks at the camera.
    """
    rng = np.random.default_rng(seed)
    per_kind = defaultdict(lambda: [0, 0, 0, 0])  # total, found, right, uncertain
    per_angle = [[0, 0, 0] for _ in ANGLE_BINS[1:]]  # d6 only: total, found, right
    extra = 0
    for _ in range(n_scenes):
        scene = synth.render_scene(rng, h, w, allow_fingers=False)
        readings = reader.read(scene.image)
        pairs = match([r.box for r in readings], [d.box for d in scene.dice])
        matched_truth = {j: i for i, j in pairs}
        extra += len(readings) - len(pairs)
        for j, d in enumerate(scene.dice):
            if d.label == NONE:
                continue
            s = per_kind[d.kind]
            a = per_angle[_angle_bin(d.top_cos)] if d.kind == "d6" else [0, 0, 0]
            s[0] += 1
            a[0] += 1
            if j in matched_truth:
                r = readings[matched_truth[j]]
                s[1] += 1
                s[2] += _right(r, d.kind, d.value)
                s[3] += r.uncertain
                a[1] += 1
                a[2] += _right(r, d.kind, d.value)
    bins = [f"{lo:g}-{hi:g}" for lo, hi in zip(ANGLE_BINS, ANGLE_BINS[1:], strict=False)]
    out = {"scenes": n_scenes, "extra_detections": extra, "per_kind": {},
           "d6_by_view_angle": [{"degrees": b, "dice": t, "recall": f / max(1, t), "accuracy": r / max(1, f)}
                                for b, (t, f, r) in zip(bins, per_angle, strict=True)]}
    for kind in KINDS:
        t, f, r, u = per_kind[kind]
        out["per_kind"][kind] = {"dice": t, "recall": f / max(1, t), "accuracy": r / max(1, f),
                                 "uncertain": u / max(1, f)}
    return out


def evaluate_real(reader, dataset: str, split: str, rows: list | None = None, reviewed: bool = False,
                  readings_cache: dict | None = None) -> dict:
    """Real photos: recall (found / labelled), accuracy of found dice, share of photos all right; with
    ``reviewed``, on the labels as reviewed (label_review.py). A ``readings_cache`` shared between the
    two calls for a split reads each photo once."""
    photos = realdata.load_split(dataset, split)
    changed = 0
    if reviewed:
        photos, changed = label_review.apply_reviews(photos, dataset, split)
    total = found = right = right_confident = confident = uncertain = extra = all_right = 0
    cache = readings_cache if readings_cache is not None else {}
    crop_set = dataset in realdata.CROP_SETS  # one die per picture, read where it is labelled
    for p in photos:
        if p.path not in cache:
            img = cv2.imread(str(p.path))
            if img is None:
                continue
            cache[p.path] = reader.read_boxes(img, [d.box for d in p.dice]) if crop_set else reader.read(img)
        readings = cache[p.path]
        pairs = [(j, j) for j in range(len(readings))] if crop_set else match([r.box for r in readings],
                                                                               [d.box for d in p.dice])
        by_truth = {j: readings[i] for i, j in pairs}
        extra += len(readings) - len(pairs)
        ok = True
        errors = []
        for j, d in enumerate(p.dice):
            if d.value is None:  # "unclear" in the labels: neither counted nor blamed
                continue
            total += 1
            r = by_truth.get(j)
            if r is None:
                ok = False
                errors.append(f"missed {d.value}")
                continue
            found += 1
            good = _right(r, d.kind, d.value)
            right += good
            uncertain += r.uncertain
            if not r.uncertain:
                confident += 1
                right_confident += good
            if not good or r.uncertain:
                ok = False
                errors.append(f"{d.value} read {r.value}{'?' if r.uncertain else ''}")
        all_right += ok
        if rows is not None:
            rows.append({"dataset": dataset, "split": split, "image": p.path.name, "dice": len(p.dice),
                         "found": sum(1 for j in by_truth), "extra": len(readings) - len(pairs),
                         "all_right": int(ok), "error": "; ".join(errors)})
    return {
        "dataset": dataset, "split": split, "role": realdata.SPLITS.get((dataset, split), "?"), "photos": len(photos),
        "dice": total, "recall": found / max(1, total), "accuracy": right / max(1, found),
        "accuracy_confident": right_confident / max(1, confident), "uncertain": uncertain / max(1, found),
        "photos_all_right": all_right / max(1, len(photos)), "extra_detections": extra,
        **({"labels_changed": changed} if reviewed else {}),
    }


def top_hidden(reader, roles=("valid",)) -> dict:
    """Dice whose face on top the photo does not show (reviewed "top hidden", label_review.py), on the
    splits of ``roles``: how many the reader reads sure (a guess: it must not), reads uncertain, or misses."""
    reviews = label_review.load_reviews()
    out = {"dice": 0, "sure": 0, "uncertain": 0, "missed": 0}
    for dataset, split in real_splits(roles):
        folder = realdata.folder_of(split)
        hidden = {(e["image"], tuple(e["box"])) for e in reviews.values()
                  if (e["dataset"], e["split"]) == (dataset, folder) and e["seen"] == label_review.TOP_HIDDEN}
        if not hidden:
            continue
        for p in realdata.load_split(dataset, split):
            boxes = [d.box for d in p.dice if (p.path.name, tuple(d.box)) in hidden]
            if not boxes:
                continue
            readings = reader.read(cv2.imread(str(p.path)))
            found = {j: readings[i] for i, j in match([r.box for r in readings], boxes)}
            for j in range(len(boxes)):
                out["dice"] += 1
                r = found.get(j)
                out["missed" if r is None else "uncertain" if r.uncertain else "sure"] += 1
    return out


def classifier_confusion(classifier, n_scenes: int = 150, seed: int = SYNTH_SEED + 1) -> tuple[np.ndarray, dict]:
    """Classifier stage alone, on crops of the true boxes of fresh synthetic scenes."""
    rng = np.random.default_rng(seed)
    cm = np.zeros((len(CLASSES), len(CLASSES)), np.int64)
    probs_all, labels_all = [], []
    for _ in range(n_scenes):
        scene = synth.render_scene(rng, 480, 480, kind_weights=[0.4, 0.3, 0.3])
        if not scene.dice:
            continue
        probs = classifier.probabilities(scene.image, [d.box for d in scene.dice])
        for d, p in zip(scene.dice, probs, strict=True):
            cm[d.label, int(p.argmax())] += 1
            probs_all.append(p)
            labels_all.append(d.label)
    probs_all, labels_all = np.array(probs_all), np.array(labels_all)
    return cm, {"crops": int(cm.sum()), "accuracy": float(np.trace(cm) / max(1, cm.sum())),
                "ece": ece(probs_all, labels_all)}


def confusion_png(cm: np.ndarray, path: Path, title: str, names=None) -> None:
    """Rows: truth, columns: read; ``names`` label them (the classifier's classes by default)."""
    names = list(names) if names is not None else CLASS_NAMES
    n = len(cm)
    cell, left, top = 26, 90, 90
    img = np.full((top + n * cell + 10, left + n * cell + 10, 3), 255, np.uint8)
    norm = cm / np.maximum(1, cm.sum(1, keepdims=True))
    for i in range(n):
        for j in range(n):
            v = norm[i, j]
            colour = (255 - int(200 * v), 255 - int(120 * v), 255) if i != j else (255 - int(200 * v), 255, 255 - int(200 * v))
            x, y = left + j * cell, top + i * cell
            cv2.rectangle(img, (x, y), (x + cell, y + cell), colour, -1)
            cv2.rectangle(img, (x, y), (x + cell, y + cell), (200, 200, 200), 1)
            if cm[i, j]:
                cv2.putText(img, str(cm[i, j]) if cm[i, j] < 1000 else "1k+", (x + 2, y + 17), cv2.FONT_HERSHEY_PLAIN,
                            0.7, (0, 0, 0), 1)
        cv2.putText(img, names[i], (4, top + i * cell + 17), cv2.FONT_HERSHEY_PLAIN, 0.8, (0, 0, 0), 1)
    for j in range(n):  # vertical column labels
        label = np.full((cell, 86, 3), 255, np.uint8)
        cv2.putText(label, names[j], (2, 17), cv2.FONT_HERSHEY_PLAIN, 0.8, (0, 0, 0), 1)
        img[4:90, left + j * cell:left + (j + 1) * cell] = cv2.rotate(label, cv2.ROTATE_90_COUNTERCLOCKWISE)
    cv2.putText(img, title, (4, 14), cv2.FONT_HERSHEY_PLAIN, 0.9, (0, 0, 0), 1)
    cv2.imwrite(str(path), img)


def time_frames(reader, sizes=(2, 5, 10), h: int = 720, w: int = 1280, repeats: int = 15, seed: int = 5,
                size_range=(40, 110), seen_at=None) -> dict:
    """Median ms per frame with ``sizes`` dice; ``seen_at``: read as the table pipeline does with the board's pose
    (``DiceReader.read``)."""
    rng = np.random.default_rng(seed)
    out = {}
    for n in sizes:
        scenes = [synth.render_scene(rng, h, w, n_dice=n, size_range=size_range, allow_fingers=False)
                  for _ in range(3)]
        times = []
        for k in range(repeats):
            img = scenes[k % len(scenes)].image
            t0 = time.perf_counter()
            reader.read(img, seen_at) if seen_at is not None else reader.read(img)
            times.append((time.perf_counter() - t0) * 1000)
        out[f"{n}_dice"] = statistics.median(times[2:])
    return out


def time_motion(h: int = 720, w: int = 1280, frames: int = 30, seed: int = 6) -> float:
    """Median ms of the motion meter (motion.MotionMeter) per frame of a still table seen by a slightly
    shaking camera: the settle check's cost on top of reading the dice."""
    from companion.vision.motion import MotionMeter

    rng = np.random.default_rng(seed)
    table = synth.render_scene(rng, h, w, n_dice=3, size_range=(40, 110), allow_fingers=False).image
    meter, times = MotionMeter(), []
    for _ in range(frames):
        frame = np.roll(table, tuple(int(v) for v in rng.integers(-3, 4, 2)), axis=(0, 1))
        t0 = time.perf_counter()
        meter.moving(frame)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times[1:])


# A sure reading that is wrong costs the family as much as this many taps on readings shown as unsure:
# the reader is sure from the confidence that costs least on the calibration photos (asks + cost x wrong).
SILENT_ERROR_COST = 20
SURE_GRID = tuple(float(t) for t in np.round(np.arange(0.5, 0.995, 0.005), 3))


def cheapest_threshold(conf: np.ndarray, right: np.ndarray, cost: float = SILENT_ERROR_COST, grid=SURE_GRID) -> float:
    """The threshold of ``grid`` with the least taps (a die read below it, or missed: confidence -1) plus
    ``cost`` times the dice read at or above it and wrong; the lowest such threshold on a tie."""
    costs = [float((conf < t).sum() + cost * (~right & (conf >= t)).sum()) for t in grid]
    return grid[int(np.argmin(costs))]


def calibrate_uncertain_below(folder: Path, photos, cost: float = SILENT_ERROR_COST) -> dict:
    """The confidence from which a reading is sure: the one that costs least on the calibration photos
    (``photos``: (dataset, Photo) held out of training), counting a tap for each die read uncertain or
    missed and ``cost`` taps for each sure and wrong one. Every six-sided die labelled there is read by the
    whole reader (found, then read; crops at their labelled box). The issue's bar, at most 0.5% of sure
    readings wrong, is out of reach on these photos at any threshold (their surest misreads are oblique
    close-ups), so the threshold is a trade, and the trade is this one. Returns {"uncertain_below", "dice",
    "sure", "wrong_sure", "cost"} at that threshold."""
    from companion.vision.reader import DiceReader

    reader = DiceReader(kinds=("d6",), threads=1, models_folder=folder, uncertain_below=0.0)
    c, ok = _calibration_readings(reader, photos)
    chosen = cheapest_threshold(c, ok, cost)
    sure = c >= chosen
    return {"uncertain_below": chosen, "dice": int(len(c)), "sure": int(sure.sum()),
            "wrong_sure": int((~ok[sure]).sum()), "cost": cost}


LOOKING_DOWN = {"within_deg": 30.0, "views": ["mirror", "rot90", "rot180", "rot270"]}
"""Dice seen from above (the line of sight within ``within_deg`` of the table's normal, by the board's pose):
a camera looking straight down with a phone's field of view sees the dice at 0-30 degrees (0.8 x the longer
side as focal length: 32 degrees at the sides of a 16:9 picture), as the "above" photos show them. Their face
reads the same turned by quarter turns, so a doubtful crop is read turned too (``views``, besides the mirror)."""


def calibrate_looking_down(folder: Path, photos, cost: float = SILENT_ERROR_COST) -> dict:
    """The confidence from which a die seen from above is sure: :func:`calibrate_uncertain_below` on the
    calibration photos taken from above (``realdata.view_of``), every die read as seen from above
    (``LOOKING_DOWN``), but never below the threshold of a die seen from the side (``uncertain_below``, calibrated on
    every calibration die): a die seen from above is sure no sooner than one seen from the side. The floor because a
    few hundred calibration dice cannot tell thresholds apart that all leave none of them sure and wrong (the
    cheapest, 0.66 for the shipped models, read 0.68% of the chase-casino validation crops sure and wrong at 0.9).
    Returns the ``looking_down`` config and its calibration figures."""
    from companion.vision.reader import DiceReader

    reader = DiceReader(kinds=("d6",), threads=1, models_folder=folder, uncertain_below=0.0)
    reader.looking_down = {**LOOKING_DOWN, "uncertain_below": 0.0}
    reader.classifier.config["looking_down"] = reader.looking_down
    above = [(ds, p) for ds, p in photos if realdata.view_of(ds, p.path.name) == "above"]
    conf, right = _calibration_readings(reader, above, lambda centres: np.zeros(len(centres)))
    cheapest = cheapest_threshold(conf, right, cost)
    chosen = max(cheapest, float(reader.classifier.config["uncertain_below"]))
    sure = conf >= chosen
    return {**LOOKING_DOWN, "uncertain_below": chosen,
            "calibration": {"dice": int(len(conf)), "sure": int(sure.sum()), "wrong_sure": int((~right[sure]).sum()),
                            "cheapest": cheapest, "cost": cost}}


def _calibration_readings(reader, photos, seen_at=None) -> tuple[np.ndarray, np.ndarray]:
    """(confidence, read right) of every six-sided die labelled on ``photos`` (-1: not found)."""
    conf, right = [], []
    for ds, p in photos:
        img = cv2.imread(str(p.path))
        dice = [d for d in p.dice if d.kind == "d6" and isinstance(d.value, int)]
        if img is None or not dice:
            continue
        if ds in realdata.CROP_SETS:
            found = reader._read_finds(img, [Detection(tuple(float(v) for v in d.box), 1.0) for d in dice], 0, 0, seen_at)
            by_die = dict(enumerate(found))
        else:
            readings = reader.read(img, seen_at) if seen_at is not None else reader.read(img)
            by_die = {j: readings[i] for i, j in match([r.box for r in readings], [d.box for d in dice])}
        for j in range(len(dice)):
            r = by_die.get(j)
            conf.append(r.confidence if r is not None else -1.0)
            right.append(r is not None and r.value == dice[j].value)
    return np.array(conf, np.float64), np.array(right, bool)


def real_splits(roles=("valid", "heldout", "train")):
    return [(d, s) for (d, s), role in realdata.SPLITS.items() if role in roles]


def reviewed_splits(roles=("valid", "heldout")):
    """The splits of ``roles`` whose labels were reviewed where they and the reader disagreed."""
    looked_at = label_review.summary()
    return [(d, s) for d, s in real_splits(roles) if (d, realdata.folder_of(s)) in looked_at]


def write_cards(out: Path, manifest: dict | None = None) -> dict:
    from companion.vision.models import manifest as load_manifest
    from companion.vision.reader import DiceReader

    manifest = manifest or load_manifest(out)
    reader = DiceReader(threads=1, models_folder=out)
    syn = evaluate_synthetic(reader, 200)
    cm, cls_stats = classifier_confusion(reader.classifier)
    confusion_png(cm, out / "dice_classifier_confusion.png", "dice classifier, synthetic crops (rows: truth)")
    rows: list[dict] = []
    # the real photos show only six-sided dice, and a game tells the reader which kinds it uses
    d6_reader = DiceReader(kinds=("d6",), threads=1, models_folder=out)
    cache: dict = {}  # each photo read once, for the figures as labelled and as reviewed
    real = [evaluate_real(d6_reader, d, s, rows, readings_cache=cache) for d, s in real_splits()] \
        if realdata.available() else []
    real_reviewed = [evaluate_real(d6_reader, d, s, reviewed=True, readings_cache=cache) for d, s in reviewed_splits()] \
        if realdata.available() else []
    if rows:
        with open(out / "dice_eval_real.csv", "w", newline="") as f:
            wr = csv.DictWriter(f, fieldnames=list(rows[0]))
            wr.writeheader()
            wr.writerows(rows)
    one = DiceReader(threads=1, models_folder=out)
    timing = time_frames(one)
    results = {"synthetic": syn, "classifier": cls_stats, "real": real, "real_reviewed": real_reviewed,
               "label_review": label_review.summary_rows(), "ms_1280x720_one_thread": timing,
               "ms_640x640_25_dice_one_thread": time_frames(one, (25,), 640, 640, size_range=(20, 70))["25_dice"]}
    if realdata.available():
        results["top_hidden"] = top_hidden(d6_reader)
    from companion.workshop.dice import boards, rolls

    results["board_frames_without_dice"] = boards.phantom_dice(one, boards.board_frames(40, 91, long_side=1280))
    if one.classifier.has_embedding:
        def make_reader(kinds):
            return DiceReader(kinds=kinds, threads=1, models_folder=out)

        if realdata.available():
            results["rolls"] = rolls.evaluate_real(make_reader)
        results["rolls_synthetic"] = rolls.synthetic_boxes(make_reader)
    (out / "dice_eval.json").write_text(json.dumps(results, indent=2) + "\n")
    from companion.workshop.dice.cards import write_model_cards

    write_model_cards(out, manifest, results, cm)
    return results


def write_looking_down(folder: Path, calib) -> dict:
    """:func:`calibrate_looking_down` on ``calib`` (the held-out 10% of the training photos:
    ``train.real_training_photos``), written into the classifier's config in ``folder``'s manifest (what ``make
    train`` does after training; ``python -m companion.workshop.dice.train --calibrate-looking-down`` for the
    models in ``models/``)."""
    down = calibrate_looking_down(folder, calib)
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["dice_classifier"]["config"]["looking_down"] = {k: v for k, v in down.items() if k != "calibration"}
    manifest["dice_classifier"]["looking_down_calibration"] = down["calibration"]
    path.write_text(json.dumps(manifest, indent=2) + "\n")
    return down


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m companion.workshop.dice.evaluate")
    ap.add_argument("--cards", action="store_true", help="rewrite model cards and evaluation files in models/")
    ap.add_argument("--scenes", type=int, default=200)
    args = ap.parse_args(argv)
    from companion.vision.models import models_dir

    if args.cards:
        print(json.dumps(write_cards(models_dir()), indent=2))
        return 0
    from companion.vision.reader import DiceReader

    reader = DiceReader(threads=1)
    print(json.dumps(evaluate_synthetic(reader, args.scenes), indent=2))
    if realdata.available():
        d6_reader = DiceReader(kinds=("d6",), threads=1)
        for d, s in real_splits():
            print(json.dumps(evaluate_real(d6_reader, d, s)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

