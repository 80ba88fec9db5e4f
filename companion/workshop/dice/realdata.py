"""The shared real dice photos (``../shared/datasets`` beside the repo, or $COMPANION_DATASETS).

Each split folder has ``labels.json``: {filename: [{"value": 1-6 or "unclear", "box": [x, y, w, h]}]}.
Boxes differ between sets (top face only in matteop65, the whole cube elsewhere), so evaluation
matches detections to labels by centres, not by overlap.

Which data trains the models and which only judges them is decided here, once:
``dice-photos-aws-reinvent2019`` is never used in training or calibration, and models are not chosen on it
(one exception, its carpet photos, is told in models/dice_detector.md).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from companion.data import source_checkout


def datasets_root() -> Path:
    env = os.environ.get("COMPANION_DATASETS")
    return Path(env) if env else (source_checkout() or Path.cwd()).parent / "shared" / "datasets"


# (dataset, split) -> role. "train": training (90% of images; the other 10% calibrate);
# "valid": reported, never trained on (but same source as a training split);
# "heldout": a whole dataset never used in training, calibration or model selection.
SPLITS = {
    ("dice-photos-matteop65", "train"): "train",
    ("dice-photos-roboflow-catan", "train"): "train",
    ("dice-photos-matteop65", "valid"): "valid",
    ("dice-photos-roboflow-catan", "valid"): "valid",
    ("dice-photos-roboflow-catan", "test"): "valid",
    ("dice-photos-aws-reinvent2019", "all"): "heldout",
}


@dataclass
class LabelledDie:
    value: int | None  # None: marked "unclear" in the labels
    box: tuple[int, int, int, int]


@dataclass
class Photo:
    path: Path
    dice: list[LabelledDie]


def load_split(dataset: str, split: str, root: Path | None = None) -> list[Photo]:
    folder = (root or datasets_root()) / dataset / split
    labels = json.loads((folder / "labels.json").read_text())
    photos = []
    for name in sorted(labels):
        dice = []
        for item in labels[name]:
            v = item.get("value")
            value = int(v) if isinstance(v, int) or (isinstance(v, str) and v.isdigit()) else None
            dice.append(LabelledDie(value, tuple(int(round(c)) for c in item["box"])))
        photos.append(Photo(folder / name, dice))
    return photos


def available() -> bool:
    root = datasets_root()
    return all((root / d / s / "labels.json").is_file() for d, s in SPLITS)


def split_for_calibration(photos: list[Photo]) -> tuple[list[Photo], list[Photo]]:
    """Deterministic 90/10 split of a training split by file name: (train, calibration)."""
    import zlib

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
