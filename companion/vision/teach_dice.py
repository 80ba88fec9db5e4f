"""Teach your dice: build and grow a dice profile (``profile.DiceProfile``) from frames (no UI here).

At set-up the family shows the camera each die of their box, one face at a time, or makes a few rolls and
confirms them; during play every confirmed or corrected roll is added too. The app's side of it::

    reader = DiceReader(kinds=("d6", "d8"))
    store = ProfileStore(user_dir / "dice_profiles")
    profile = DiceProfile.new("Eagle Kingdoms") if "Eagle Kingdoms" not in store.names() else store.load("Eagle Kingdoms")
    teacher = DiceTeacher(reader, profile)          # the reader now reads with the profile
    teacher.show(frame, "d8", 5)                    # one die in view, showing 5 (or box=... for a tapped die)
    teacher.missing(("d6", "d8"))                   # {"d6": [...], "d8": [...]}: faces still to show
    readings = reader.read(frame)                   # during play
    teacher.confirm(frame, readings, [("d6", 4), None])  # the family corrected the first die to 4
    store.save(profile)                             # on disk before the app says "learned"

``companion teach-dice FOLDER... --out PROFILE.json`` builds a profile from labelled photos: each folder as
in ``../shared/datasets`` (images plus ``labels.json`` mapping each image to ``[{"value", "box", "kind"}]``,
d6 when kind is absent). Every folder is checked before anything is read or written; each problem is one
line, and the profile file is written whole or not at all.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from companion.vision import imageio
from companion.vision.classes import NONE
from companion.vision.errors import ImageError, ModelError, VisionError
from companion.vision.profile import FACES, DiceProfile, ProfileError, check_face, check_name

LABELS = "labels.json"
TEACH_THRESHOLD = 0.05  # the detector's floor when looking for a labelled die: it is there, find its box
NOT_A_DIE = "not a die"


class TeachError(VisionError):
    """Teaching input that cannot be used (a bad folder, label or frame); the profile is unchanged."""


# ---------------------------------------------------------------- at the table
@dataclass
class Shown:
    kind: str
    value: int | str
    box: tuple[int, int, int, int]


def _match(found_boxes, box) -> int | None:
    """The find whose centre lies inside ``box`` and whose box holds the centre of ``box``, nearest first."""
    x, y, w, h = box
    cx, cy = x + w / 2, y + h / 2
    best, best_d = None, None
    for i, (fx, fy, fw, fh) in enumerate(found_boxes):
        fcx, fcy = fx + fw / 2, fy + fh / 2
        if abs(fcx - cx) <= 0.6 * max(w, h) and abs(fcy - cy) <= 0.6 * max(w, h) and abs(fcx - cx) <= 0.6 * fw \
                and abs(fcy - cy) <= 0.6 * fh:
            d = (fcx - cx) ** 2 + (fcy - cy) ** 2
            if best_d is None or d < best_d:
                best, best_d = i, d
    return best


class DiceTeacher:
    """Adds the family's dice to a profile and keeps ``reader`` reading with it."""

    def __init__(self, reader, profile: DiceProfile):
        self.reader = reader
        self.profile = profile
        reader.set_profile(profile)  # raises ProfileError when the classifier cannot use it

    def _crop(self, frame: np.ndarray, box) -> np.ndarray:
        return self.reader.classifier.crops(frame, [box])[0]

    def _refresh(self) -> None:
        self.reader.set_profile(self.profile)

    def find(self, frame: np.ndarray, box=None) -> tuple[float, float, float, float]:
        """The box of the one die in view (``box``: where the family tapped): the detector's own box, as the
        reader will crop it. TeachError when no die, or more than one and no tap, is found."""
        finds = self.reader.detector(frame)
        if box is not None:
            i = _match([f.box for f in finds], box)
            return finds[i].box if i is not None else tuple(float(v) for v in box)
        sure = [f for f in finds if f.score >= self.reader.sure_above]
        if len(sure) == 1:
            return sure[0].box
        if not sure:
            raise TeachError("no die found: show one die to the camera, or tap it")
        raise TeachError(f"{len(sure)} dice in view: show one die at a time, or tap the one you mean")

    def show(self, frame: np.ndarray, kind: str, value, box=None) -> Shown:
        """The die in view (or at ``box``) shows ``value``: learn it. ProfileError for a face the kind cannot
        show, TeachError when the die cannot be found."""
        check_face(kind, value)
        found = self.find(frame, box)
        self.profile.add(kind, value, self._crop(frame, found), "taught")
        self._refresh()
        return Shown(kind, check_face(kind, value), tuple(int(round(v)) for v in found))

    def confirm(self, frame: np.ndarray, readings, faces=None) -> int:
        """A roll the family confirmed: ``faces`` gives, per reading, None (read right), its (kind, value) as
        corrected, or ``NOT_A_DIE``. Every die is learned (a correction as such, so the reader does not make
        the same mistake with the same die again). Returns how many crops were added."""
        faces = faces if faces is not None else [None] * len(readings)
        if len(faces) != len(readings):
            raise TeachError(f"{len(readings)} dice read but {len(faces)} answers given")
        checked = [f if f in (None, NOT_A_DIE) else (f[0], check_face(*f)) for f in faces]
        for r, f in zip(readings, checked, strict=True):
            crop = self._crop(frame, r.box)
            if f == NOT_A_DIE:
                self.profile.add_negative(crop)
            elif f is None or f == (r.kind, r.value):
                self.profile.add(r.kind, r.value, crop, "confirmed")
            else:
                self.profile.add(f[0], f[1], crop, "corrected")
        if readings:
            self._refresh()
        return len(readings)

    def missing(self, kinds=None) -> dict[str, list]:
        return self.profile.missing_faces(kinds)


# ---------------------------------------------------------------- from labelled folders
@dataclass
class LabelledImage:
    path: Path | None
    dice: list[tuple[str, int | str, tuple[float, float, float, float]]]  # kind, value, box in file pixels
    image: np.ndarray | None = None  # the picture itself, when it is not read from ``path``


def _fail(where, reason: str):
    raise TeachError(f"{where}: {reason}")


def read_folder(folder) -> tuple[list[LabelledImage], dict[str, int]]:
    """A teaching folder's labelled images, every label checked against its image (TeachError on the first
    problem). Also returns what was left out: {"unclear": n, "<kind>": n} (dice whose value is "unclear" or
    whose kind the reader does not read, such as a d20)."""
    folder = Path(folder)
    labels_path, labels = _read_labels(folder)
    skipped: dict[str, int] = {}
    out = []
    for name in sorted(labels):
        out.append(_labelled_image(folder, name, labels_path, labels[name], skipped))
    return out, skipped


def _read_labels(folder: Path) -> tuple[Path, dict]:
    """The folder's labels.json and what it says: {photo file name: [die, ...]}."""
    if not folder.is_dir():
        _fail(folder, "no such folder" if not folder.exists() else "not a folder")
    files = [p for p in folder.iterdir() if not p.name.startswith(".")]
    labels_path = folder / LABELS
    if not files:
        _fail(folder, "the folder is empty: put the photos and their labels.json in it")
    if not labels_path.is_file():
        _fail(folder, f"no {LABELS} (a teaching folder holds photos and {LABELS} mapping each photo to "
                      '[{"value", "box", "kind"}])')
    try:
        labels = json.loads(labels_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        _fail(labels_path, f"not readable JSON ({exc})")
    if not isinstance(labels, dict):
        _fail(labels_path, "must map each photo's file name to a list of dice")
    return labels_path, labels


def _labelled_image(folder: Path, name: str, labels_path: Path, items: Any, skipped: dict[str, int]) -> LabelledImage:
    """Photo ``name`` of the folder and its checked dice; dice left out are counted in ``skipped``."""
    path = folder / name
    where = f"{labels_path}, {name}"
    if not path.is_file():
        _fail(labels_path, f"labels {name!r}, which is not in the folder")
    if not isinstance(items, list):
        _fail(where, "must be a list of dice")
    try:
        img, scale = imageio.load(path)
    except ImageError as exc:
        _fail(path, exc.reason)
    # the file's own pixels (imageio.load shrinks a huge image)
    size = round(img.shape[1] / scale), round(img.shape[0] / scale)
    dice = []
    for k, item in enumerate(items, start=1):
        die = _labelled_die(item, where, k, size, skipped)
        if die is not None:
            dice.append(die)
    return LabelledImage(path, dice)


def _labelled_die(item: Any, where: str, k: int, size: tuple[int, int], skipped: dict[str, int]):
    """Die ``k`` of a photo of ``size`` (w, h) as (kind, value, box), or None for one left out (counted in
    ``skipped``: an unclear value, a kind the reader does not read)."""
    if not isinstance(item, dict) or "value" not in item or "box" not in item:
        _fail(where, f'die {k} needs "value" and "box"')
    kind = item.get("kind", "d6")
    if not isinstance(kind, str):
        _fail(where, f"die {k}: kind {kind!r} is not a name")
    if item["value"] in (None, "unclear"):
        skipped["unclear"] = skipped.get("unclear", 0) + 1
        return None
    if kind not in FACES:
        skipped[kind] = skipped.get(kind, 0) + 1
        return None
    try:
        value = check_face(kind, item["value"])
    except ProfileError as exc:
        _fail(where, f"die {k}: {exc.reason}")
    box = item["box"]
    if not (isinstance(box, list) and len(box) == 4 and all(isinstance(v, int | float) and not isinstance(v, bool)
                                                           for v in box)):
        _fail(where, f"die {k}: box {box!r} is not [x, y, w, h]")
    x, y, w, h = (float(v) for v in box)
    full_w, full_h = size
    if w <= 0 or h <= 0 or x < 0 or y < 0 or x + w > full_w + 1 or y + h > full_h + 1:
        _fail(where, f"die {k}: box {box} lies outside the {full_w}x{full_h} image")
    return kind, value, (x, y, w, h)


def teach_images(teacher: DiceTeacher, images: list[LabelledImage], negatives: bool = True,
                 search: bool = True) -> dict:
    """Add each labelled die (the detector's box when it finds the die, else the label's) and, with
    ``negatives``, the finds no label names that the generic reader does not read as a sure die. Without
    ``search`` (photos of one die each, read at their box) the labels' boxes are taken as they are.
    Returns counts."""
    reader, profile = teacher.reader, teacher.profile
    added = not_dice = 0
    threshold = reader.detector.config["threshold"]
    for item in images:
        img, scale = (item.image, 1.0) if item.image is not None else imageio.load(item.path)
        reader.detector.config["threshold"] = TEACH_THRESHOLD
        try:
            finds = reader.detector(img) if search else []
        finally:
            reader.detector.config["threshold"] = threshold
        used = set()
        area = img.shape[0] * img.shape[1]
        for kind, value, box in item.dice:
            box = tuple(v * scale for v in box)
            # a die filling most of the picture (a photo of one die): the detector would find its pips
            i = _match([f.box for f in finds], box) if box[2] * box[3] < 0.4 * area else None
            if i is not None:
                used.add(i)
            profile.add(kind, value, teacher._crop(img, finds[i].box if i is not None else box), "taught")
            added += 1
        if negatives:
            rest = [f for i, f in enumerate(finds) if i not in used and f.score >= threshold]
            if rest:
                probs = reader.classifier.probabilities(img, [f.box for f in rest], reader.kinds)
                for f, p in zip(rest, probs, strict=True):
                    q = p.copy()
                    q[NONE] = 0
                    if q.max() < reader.uncertain_below or p[NONE] > q.max():  # not a sure die: an unlabelled die is not taught as "no die"
                        profile.add_negative(teacher._crop(img, f.box))
                        not_dice += 1
    teacher._refresh()
    return {"dice": added, "not_dice": not_dice}


def read_folders(folders) -> tuple[list[LabelledImage], dict[str, int]]:
    """Every folder checked (``read_folder``); TeachError on the first problem, or when no die of a kind the
    reader reads is labelled at all."""
    images, skipped = [], {}
    for folder in folders:
        got, left = read_folder(folder)
        images += got
        for k, n in left.items():
            skipped[k] = skipped.get(k, 0) + n
    if not any(item.dice for item in images):
        raise TeachError("no labelled dice of a kind the reader reads (" + ", ".join(FACES) + ") in "
                         + ", ".join(str(f) for f in folders))
    return images, skipped


# ---------------------------------------------------------------- command line
def register(subparsers) -> None:
    p = subparsers.add_parser("teach-dice", help="teach the reader your dice from labelled photos (a dice profile)",
                              description="Build a dice profile from folders of labelled photos (images + labels.json).")
    p.add_argument("folders", nargs="+", metavar="FOLDER", help="folders of photos with labels.json")
    p.add_argument("--out", required=True, metavar="PROFILE.json", help="the profile file to write")
    p.add_argument("--name", default=None, help="the profile's name (default: the file's name)")
    p.add_argument("--add", action="store_true", help="add to the profile in --out instead of starting a new one")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.add_argument("--backend", choices=("auto", "onnxruntime", "opencv"), default=None, help="inference runtime")
    p.set_defaults(func=cmd_teach_dice)


def cmd_teach_dice(args: argparse.Namespace) -> int:
    from companion.vision.reader import DiceReader

    out = Path(args.out)
    started = time.perf_counter()
    try:
        images, skipped = read_folders(args.folders)  # every folder checked before a model is loaded
        previous = DiceProfile.load(out) if args.add and out.exists() else None
        reader = DiceReader(threads=1, backend=args.backend)
        cls = reader.classifier.config
        profile = previous or DiceProfile.new(args.name or out.stem, cls["size"], cls["crop_scale"])
        counts = {**teach_images(DiceTeacher(reader, profile), images), "photos": len(images), "skipped": skipped}
        if args.name:
            profile.name = check_name(args.name)
        profile.save(out)
    except (TeachError, ProfileError, ModelError) as exc:
        print(f"error: {exc.reason}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    seconds = time.perf_counter() - started
    summary = {**profile.summary(), "file": str(out), "taught_now": counts, "seconds": round(seconds, 2)}
    if args.json:
        print(json.dumps(summary))
        return 0
    faces = "; ".join(f"{k}: " + ", ".join(f"{f}x{n}" for f, n in c.items()) for k, c in summary["faces"].items())
    print(f"{out}: {counts['dice']} dice taught from {counts['photos']} photos ({faces}); "
          f"{counts['not_dice']} things that are not dice; {seconds:.1f} s")
    for kind, faces_missing in summary["missing"].items():
        print(f"  {kind} faces not taught yet: {', '.join(str(f) for f in faces_missing)}")
    left = counts["skipped"]
    if left:
        print("  left out: " + ", ".join(f"{n} {k} dice" if k != "unclear" else f"{n} dice labelled unclear"
                                         for k, n in left.items()))
    return 0
