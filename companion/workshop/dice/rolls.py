"""Roll-level figures: what a family meets when it rolls two dice, untaught and after teaching a profile.

Every labelled die of a set ends in one of three ways: **right** (found, read right, sure), **asked** (the app
asks for a tap: **missed**, not found, or **unsure**, found but read uncertain) or **wrong** (read wrong while
sure: the app would take it). Missed and unsure are counted apart too, per set and per kind of die: where
the dice are lost (the detector, or the reading).
A roll of two dice, drawn from the set's dice, is *right without a tap* when both are right, *silently
wrong* when either is wrong (even if the other is asked: a family tapping one die does not check the other),
and *asked* otherwise. The roll shares are exact over every pair of two different dice of the set (the
expectation of sampled rolls, without their noise).

Taught: a profile is taught on the first ``TEACH_PHOTOS`` photos of the set by file name (any split; ``companion
teach-dice``'s way: each labelled die, and the finds no label names as things that are not dice), and both
figures are counted on the set's validation photos after them, so that they compare the same dice. Sets of single-die crops are read at
their labelled boxes (``DiceReader.read_boxes``), with and without the profile.

The synthetic boxes (``synthetic_boxes``) do the same for each kind of die the games use, the d8's numerals
and the colour dice included, which no real photos show: each box is one set of dice (one material and
font) on one table, seen by one kind of camera.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from pathlib import Path

import cv2
import numpy as np

from companion.vision.classes import KINDS, NONE
from companion.vision.profile import FACES, DiceProfile
from companion.vision.teach_dice import DiceTeacher, LabelledImage, teach_images
from companion.workshop.dice import label_review, realdata, synth
from companion.workshop.dice.realdata import match

TEACH_PHOTOS = 10
OUTCOMES = ("right", "missed", "unsure", "wrong")
ASKED = ("missed", "unsure", "asked")  # "asked": either, where it is not told which


def roll_shares(counts: dict) -> dict:
    """Per-die and two-dice-roll shares from outcome counts (exact over all pairs of different dice)."""
    asked = sum(counts.get(o, 0) for o in ASKED)
    r, w = counts.get("right", 0), counts.get("wrong", 0)
    n = r + w + asked
    pairs = n * (n - 1)
    sure = r + w
    shares = {"dice": n, "right_sure": r / max(1, n), "asked": asked / max(1, n),
              "missed": counts.get("missed", 0) / max(1, n), "unsure": counts.get("unsure", 0) / max(1, n),
              "wrong_of_sure": w / max(1, sure), "wrong": w / max(1, n),
              "rolls": {"right_without_tap": 0.0, "asked": 0.0, "silently_wrong": 0.0}}
    if pairs:
        both_right, none_wrong = r * (r - 1) / pairs, (n - w) * (n - w - 1) / pairs
        shares["rolls"] = {"right_without_tap": both_right, "asked": max(0.0, none_wrong - both_right),
                           "silently_wrong": 1.0 - none_wrong}
    return shares


def _outcome(reading, kind, value) -> str:
    if reading is None:
        return "missed"
    if reading.uncertain:
        return "unsure"
    return "right" if (reading.kind, reading.value) == (kind, value) else "wrong"


def photo_outcomes(reader, photo: realdata.Photo, crop_set: bool, seen_at=None) -> tuple[list[tuple[str, str]], int]:
    """([(kind, outcome)] per labelled die, sure finds matching no label) of one photo; ``seen_at`` as the table
    pipeline gives it with the board's pose (``DiceReader.read``)."""
    img = cv2.imread(str(photo.path))
    dice = [d for d in photo.dice if d.value is not None]
    if img is None:
        return [(d.kind, "missed") for d in dice], 0
    if crop_set:
        readings = reader.read_boxes(img, [d.box for d in dice], seen_at)
        return [(d.kind, _outcome(r, d.kind, d.value)) for d, r in zip(dice, readings, strict=True)], 0
    readings = reader.read(img, seen_at) if seen_at is not None else reader.read(img)
    pairs = match([r.box for r in readings], [d.box for d in photo.dice])
    by_die = {j: readings[i] for i, j in pairs}
    matched = {i for i, _ in pairs}
    extra = sum(1 for i, r in enumerate(readings) if i not in matched and not r.uncertain)
    return [(d.kind, _outcome(by_die.get(j), d.kind, d.value)) for j, d in enumerate(photo.dice)
            if d.value is not None], extra


def tally(reader, photos, dataset: str, seen_at=None) -> dict:
    """Outcome counts over ``photos``, in all and per view ("above" / "oblique") and per kind."""
    crop_set = dataset in realdata.CROP_SETS
    total, views, kinds = Counter(), defaultdict(Counter), defaultdict(Counter)
    extra = 0
    for p in photos:
        outcomes, n_extra = photo_outcomes(reader, p, crop_set, seen_at)
        extra += n_extra
        view = realdata.view_of(dataset, p.path.name)
        for kind, o in outcomes:
            total[o] += 1
            views[view][o] += 1
            kinds[kind][o] += 1
    return {**roll_shares(total), "sure_extra_finds_per_photo": extra / max(1, len(photos)),
            "per_view": {v: roll_shares(c) for v, c in sorted(views.items())},
            "per_kind": {k: roll_shares(c) for k, c in sorted(kinds.items())}}


def labelled_images(photos: list[realdata.Photo]) -> list[LabelledImage]:
    return [LabelledImage(p.path, [(d.kind, d.value, tuple(float(v) for v in d.box)) for d in p.dice
                                   if d.value is not None and d.kind in FACES]) for p in photos]


def teach(reader, photos: list[realdata.Photo], dataset: str, name: str):
    """A profile taught on ``photos`` (as ``companion teach-dice`` does); the reader then reads with it."""
    cfg = reader.classifier.config
    profile = DiceProfile.new(name, cfg["size"], cfg["crop_scale"])
    teacher = DiceTeacher(reader, profile)
    crops = dataset in realdata.CROP_SETS
    teach_images(teacher, labelled_images(photos), negatives=not crops, search=not crops)
    return profile


def _photos(dataset: str, split: str) -> list[realdata.Photo]:
    photos, _ = label_review.apply_reviews(realdata.load_split(dataset, split), dataset, split)
    return photos


def evaluate_set(make_reader, dataset: str, teach_photos: int = TEACH_PHOTOS) -> dict:
    """Untaught and taught figures of one set: a profile taught on the set's first ``teach_photos`` photos by
    file name (of every split), both figures counted on its validation photos not among them."""
    splits = [s for (d, s) in realdata.SPLITS if d == dataset]
    every = sorted((p for s in splits for p in _photos(dataset, s)), key=lambda p: p.path.name)
    taught_on = every[:teach_photos]
    shown = {p.path for p in taught_on}
    valid = [s for s in splits if realdata.SPLITS[(dataset, s)] == "valid"]
    rest = sorted((p for s in valid for p in _photos(dataset, s) if p.path not in shown), key=lambda p: p.path.name)
    counted_on = "validation photos"
    if not rest:  # the first photos are all its validation photos (skovy-catan): the others, which trained
        rest, counted_on = every[teach_photos:], "training photos (the validation photos are the first ones)"
    kinds = tuple(k for k in KINDS if any(d.kind == k for p in every for d in p.dice)) or ("d6",)
    reader = make_reader(kinds)
    untaught = tally(reader, rest, dataset)
    from_above = from_above_figures(reader, rest, dataset)
    started = time.perf_counter()
    profile = teach(reader, taught_on, dataset, dataset)
    seconds = time.perf_counter() - started
    taught = tally(reader, rest, dataset)
    reader.set_profile(None)
    return {"dataset": dataset, "splits_counted": valid, "counted_on": counted_on, "photos_counted": len(rest),
            "taught_on": [p.path.name for p in taught_on], "kinds": list(kinds),
            "profile": {"dice": len(profile.examples), "not_dice": len(profile.negatives),
                        "missing": {k: v for k, v in profile.missing_faces(kinds).items() if v},
                        "seconds_to_teach": round(seconds, 2)},
            "untaught": untaught, "taught": taught, **from_above}


def from_above_figures(reader, photos, dataset: str) -> dict:
    """The set's photos taken from above read untaught as the table pipeline reads dice whose board's pose says
    they are seen from above (``looking_down``); {} for a set with none, or a classifier without it. The photos
    carry no pose: the set's view (``realdata.view_of``) stands for it. Compare with ``untaught``'s per_view."""
    above = [p for p in photos if realdata.view_of(dataset, p.path.name) == "above"]
    if not above or not getattr(reader, "looking_down", None):
        return {}
    return {"untaught_from_above": tally(reader, above, dataset, lambda centres: np.zeros(len(centres)))}


def evaluate_real(make_reader) -> list[dict]:
    """``evaluate_set`` for every set that has validation photos."""
    sets = dict.fromkeys(d for (d, _), role in realdata.SPLITS.items() if role == "valid")
    return [evaluate_set(make_reader, d) for d in sets]


def seen_from_afar(photos: list[realdata.Photo], die_px: float, folder: Path) -> list[realdata.Photo]:
    """The photos as a phone at the table's side sees their dice: each shrunk so that its median labelled die is
    ``die_px`` across (never enlarged), saved under ``folder`` as JPEG (quality 80) with its own name (its view
    stays known), its labels scaled with it. Photos that cannot be read or label no die are left out."""
    out = []
    for i, p in enumerate(photos):
        img = cv2.imread(str(p.path))
        if img is None or not p.dice:
            continue
        scale = min(1.0, die_px / float(np.median([max(d.box[2], d.box[3]) for d in p.dice])))
        if scale < 1.0:
            img = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        ok, jpeg = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 80])
        if not ok:
            continue
        path = folder / f"{i:05d}" / p.path.name  # a folder each: crop sets repeat names in their class folders
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(jpeg.tobytes())  # read back by its content, whatever its name's ending
        dice = [realdata.LabelledDie(d.value, tuple(int(round(c * scale)) for c in d.box), d.kind) for d in p.dice]
        out.append(realdata.Photo(path, dice))
    return out


def evaluate_from_afar(make_reader, die_px: float, folder: Path) -> list[dict]:
    """Every set's validation photos seen from afar (``seen_from_afar``), read untaught: as seen from the side, and
    its photos from above as the table pipeline reads dice seen from above."""
    out = []
    for dataset in dict.fromkeys(d for (d, _), role in realdata.SPLITS.items() if role == "valid"):
        splits = [s for (d, s) in realdata.SPLITS if d == dataset and realdata.SPLITS[(d, s)] == "valid"]
        photos = [q for s in splits for q in seen_from_afar(_photos(dataset, s), die_px, folder / dataset / s)]
        kinds = tuple(k for k in KINDS if any(d.kind == k for q in photos for d in q.dice)) or ("d6",)
        reader = make_reader(kinds)
        out.append({"dataset": dataset, "die_px": die_px, "photos_counted": len(photos),
                    "untaught": tally(reader, photos, dataset), **from_above_figures(reader, photos, dataset)})
    return out


def synthetic_boxes(make_reader, boxes_per_kind: int = 4, teach_scenes: int = 10, test_scenes: int = 30,
                    seed: int = 424_242) -> dict:
    """Per kind: boxes of one material and font on one table and one kind of camera; a profile taught on
    ``teach_scenes`` of each box's scenes, figures counted on ``test_scenes`` more."""
    rng = np.random.default_rng(seed)
    out = {}
    for kind in KINDS:
        untaught, taught = Counter(), Counter()
        reader = make_reader((kind,))
        for b in range(boxes_per_kind):
            material = synth.random_material(rng)
            table = synth.background(rng, 480, 640)
            upright = bool(b % 2)
            scenes = [synth.render_scene(rng, 480, 640, n_dice=int(rng.integers(2, 6)), kinds=(kind,),
                                         allow_fingers=False, backdrop=table, material=material, upright=upright)
                      for _ in range(teach_scenes + test_scenes)]
            photos = [_scene_photo(s) for s in scenes]
            reader.set_profile(None)
            untaught.update(_scene_tally(reader, scenes[teach_scenes:], kind))
            cfg = reader.classifier.config
            profile = DiceProfile.new(f"synthetic {kind} box {b}", cfg["size"], cfg["crop_scale"])
            teacher = DiceTeacher(reader, profile)
            teach_images(teacher, photos[:teach_scenes])
            taught.update(_scene_tally(reader, scenes[teach_scenes:], kind))
        reader.set_profile(None)
        out[kind] = {"boxes": boxes_per_kind, "untaught": roll_shares(untaught), "taught": roll_shares(taught)}
    return out


def _scene_photo(scene) -> LabelledImage:
    """A rendered scene as a labelled teaching photo (held in memory)."""
    return LabelledImage(None, [(d.kind, d.value, tuple(float(v) for v in d.box)) for d in scene.dice
                                if d.label != NONE], scene.image)


def _scene_tally(reader, scenes, kind) -> Counter:
    c: Counter = Counter()
    for s in scenes:
        readings = reader.read(s.image)
        pairs = match([r.box for r in readings], [d.box for d in s.dice])
        by_die = {j: readings[i] for i, j in pairs}
        for j, d in enumerate(s.dice):
            if d.label != NONE:
                c[_outcome(by_die.get(j), d.kind, d.value)] += 1
    return c


def synthetic_profile(reader, scenes: int = 10, seed: int = 515) -> DiceProfile:
    """A profile taught on ``scenes`` renders of one set of six-sided dice (the reader then reads with it):
    what the benchmark times a profiled reader with."""
    rng = np.random.default_rng(seed)
    material, table = synth.random_material(rng), synth.background(rng, 480, 640)
    shots = [synth.render_scene(rng, 480, 640, n_dice=4, kinds=("d6",), allow_fingers=False, backdrop=table,
                                material=material) for _ in range(scenes)]
    cfg = reader.classifier.config
    profile = DiceProfile.new("synthetic d6 box", cfg["size"], cfg["crop_scale"])
    teach_images(DiceTeacher(reader, profile), [_scene_photo(s) for s in shots])
    return profile
