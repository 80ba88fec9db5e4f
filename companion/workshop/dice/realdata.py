"""The shared real dice photos (``../shared/datasets`` beside the repo, or $COMPANION_DATASETS).

Each split folder has ``labels.json``: {filename: [{"value": 1-6 or "unclear", "box": [x, y, w, h]}]}.
Boxes differ between sets (top face only in matteop65, the whole cube elsewhere), so evaluation
matches detections to labels by centres, not by overlap.

Which data trains the models and which only judges them is decided here, once (``SPLITS``): every set
trains, and every set keeps photos it never trained on (its own validation split, or, for a set that comes as
one folder, a part named in ``PARTS``).
"""

from __future__ import annotations

import json
import os
import re
import zlib
from dataclasses import dataclass
from pathlib import Path

from companion.data import source_checkout


def datasets_root() -> Path:
    env = os.environ.get("COMPANION_DATASETS")
    return Path(env) if env else (source_checkout() or Path.cwd()).parent / "shared" / "datasets"


# (dataset, split) -> role. "train": training (90% of images; the other 10% calibrate);
# "valid": reported, never trained on (but from the same source as a training split).
# A split named "FOLDER/PART" is a part of a set that comes as one folder (``PARTS`` says which photos):
# every set trains, and every set keeps photos it never trained on.
SPLITS = {
    ("dice-photos-matteop65", "train"): "train",
    ("dice-photos-roboflow-catan", "train"): "train",
    ("dice-photos-aws-reinvent2019", "all/train"): "train",
    ("dice-photos-rune55", "train"): "train",
    ("dice-photos-skovy-catan", "train"): "train",
    ("dice-crops-tomitomi3-gray", "train/train"): "train",
    ("dice-crops-chase-casino", "train"): "train",
    ("dice-crops-skovy-catan", "train/train"): "train",
    ("dice-crops-burks-polyhedral", "all"): "train",
    ("dice-photos-matteop65", "valid"): "valid",
    ("dice-photos-roboflow-catan", "valid"): "valid",
    ("dice-photos-roboflow-catan", "test"): "valid",
    ("dice-photos-aws-reinvent2019", "all/valid"): "valid",
    ("dice-photos-rune55", "valid"): "valid",
    ("dice-photos-rune55", "test"): "valid",
    ("dice-photos-skovy-catan", "valid"): "valid",
    ("dice-crops-tomitomi3-gray", "train/valid"): "valid",
    ("dice-crops-chase-casino", "val"): "valid",
    ("dice-crops-chase-casino", "test"): "valid",
    ("dice-crops-skovy-catan", "train/valid"): "valid",
}
# Sets of single-die crops (the box is the die, often the whole image): read at the labelled box, not searched.
CROP_SETS = frozenset(d for d, _ in SPLITS if d.startswith("dice-crops-"))
VALID_SHARE = 0.3  # of a one-folder set of photos, the last 30% of each sequence (by file name) never trains


def folder_of(split: str) -> str:
    """The folder a split's photos are in ("all/valid" -> "all")."""
    return split.split("/")[0]


def _natural(name: str) -> list:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def _sequence_tail(names: list[str]) -> set[str]:
    """The last VALID_SHARE of each sequence of photos (names sharing their letters before the first digit):
    later photos of a session, so that a validation photo rarely shows the very scene of a training photo."""
    groups: dict[str, list[str]] = {}
    for n in names:
        groups.setdefault(re.split(r"\d", n, maxsplit=1)[0], []).append(n)
    tail: set[str] = set()
    for members in groups.values():
        members.sort(key=_natural)
        tail.update(members[len(members) - round(VALID_SHARE * len(members)):])
    return tail


def _hashed(names: list[str], share: float = 0.2) -> set[str]:
    return {n for n in names if zlib.crc32(n.encode()) % 100 < 100 * share}


def _skovy_crops_valid(names: list[str], root: Path) -> set[str]:
    """Crops of the Catan webcam set's validation photos stay out of training; crops of photos that set does
    not have are split by a hash of their photo."""
    webcam = json.loads((root / "dice-photos-skovy-catan" / "valid" / "labels.json").read_text())
    valid_photos = {Path(n).stem for n in webcam}
    photo = {n: n.split("-die-")[0] for n in names}
    others = _hashed(sorted({p for p in photo.values() if p not in valid_photos}))
    return {n for n in names if photo[n] in valid_photos or photo[n] in others}


# dataset -> which file names of its one folder form the "valid" part (the rest is "train")
PARTS = {
    "dice-photos-aws-reinvent2019": lambda names, root: _sequence_tail(names),
    "dice-crops-tomitomi3-gray": lambda names, root: _hashed(names),
    "dice-crops-skovy-catan": _skovy_crops_valid,
}


@dataclass
class LabelledDie:
    value: int | str | None  # None: marked "unclear" in the labels; a colour name for colour dice
    box: tuple[int, int, int, int]
    kind: str = "d6"


@dataclass
class Photo:
    path: Path
    dice: list[LabelledDie]


def _value(v) -> int | str | None:
    if isinstance(v, int):
        return v
    if isinstance(v, str) and v.isdigit():
        return int(v)
    return None if v in (None, "unclear") else v


def load_split(dataset: str, split: str, root: Path | None = None) -> list[Photo]:
    root = root or datasets_root()
    folder = root / dataset / folder_of(split)
    labels = json.loads((folder / "labels.json").read_text())
    names = sorted(labels)
    if "/" in split:
        valid = PARTS[dataset](names, root)
        names = [n for n in names if (n in valid) == (split.split("/")[1] == "valid")]
    photos = []
    for name in names:
        dice = [LabelledDie(_value(item.get("value")), tuple(int(round(c)) for c in item["box"]), item.get("kind", "d6"))
                for item in labels[name]]
        photos.append(Photo(folder / name, dice))
    return photos


def available() -> bool:
    root = datasets_root()
    return all((root / d / folder_of(s) / "labels.json").is_file() for d, s in SPLITS)


def split_for_calibration(photos: list[Photo]) -> tuple[list[Photo], list[Photo]]:
    """Deterministic 90/10 split of a training split by file name: (train, calibration)."""
    train, calib = [], []
    for p in photos:
        (calib if zlib.crc32(p.path.name.encode()) % 10 == 0 else train).append(p)
    return train, calib


def match(pred_boxes, true_boxes) -> list[tuple[int, int]]:
    """Greedy centre matching: a prediction matches a label when the label's centre lies inside the
    prediction's box (grown by 20%) and the prediction's centre lies within 0.6 of the label's longer side
    of the label's centre; nearest pairs first. Returns (pred_index, true_index) pairs.

    The label's longer side, not its height: matteop65 boxes the top face alone, which on an oblique die is
    a thin strip above the die's centre (a 50x16 box on a die 60 px tall)."""
    pairs = []
    for i, (px, py, pw, ph) in enumerate(pred_boxes):
        pcx, pcy = px + pw / 2, py + ph / 2
        for j, (tx, ty, tw, th) in enumerate(true_boxes):
            tcx, tcy = tx + tw / 2, ty + th / 2
            reach = 0.6 * max(tw, th)
            if abs(pcx - tcx) <= reach and abs(pcy - tcy) <= reach and abs(pcx - tcx) <= 0.6 * pw \
                    and abs(pcy - tcy) <= 0.6 * ph:
                pairs.append(((pcx - tcx) ** 2 + (pcy - tcy) ** 2, i, j))
    pairs.sort()
    used_p, used_t, out = set(), set(), []
    for _, i, j in pairs:
        if i not in used_p and j not in used_t:
            used_p.add(i)
            used_t.add(j)
            out.append((i, j))
    return out


# How each set's camera sees the dice (the real photos carry no angles): "above" (looking down), "oblique"
# (a phone or webcam leaning over the table, where most misreads are), per set or, for rune55, per source.
VIEWS = {
    "dice-photos-matteop65": "above", "dice-photos-roboflow-catan": "oblique", "dice-photos-aws-reinvent2019": "oblique",
    "dice-photos-skovy-catan": "oblique", "dice-crops-tomitomi3-gray": "above", "dice-crops-chase-casino": "above",
    "dice-crops-skovy-catan": "oblique", "dice-crops-burks-polyhedral": "above",
}
RUNE55_VIEWS = {"pxl_phone_colour": "oblique", "img06_grey": "oblique", "img2019_tray_grey": "above",
                "fisheye_rig_grey": "above"}


def view_of(dataset: str, name: str, root: Path | None = None) -> str:
    """"above" or "oblique": how the camera of this photo sees the table (``VIEWS``)."""
    if dataset == "dice-photos-rune55":
        return RUNE55_VIEWS.get(_rune55_sources(root or datasets_root()).get(name, ""), "oblique")
    return VIEWS.get(dataset, "oblique")


_SOURCES: dict[Path, dict[str, str]] = {}


def _rune55_sources(root: Path) -> dict[str, str]:
    if root not in _SOURCES:
        path = root / "dice-photos-rune55" / "sources.tsv"
        rows = [line.split("\t") for line in path.read_text().splitlines()[1:]] if path.is_file() else []
        _SOURCES[root] = {r[0]: r[2] for r in rows if len(r) >= 3}
    return _SOURCES[root]
