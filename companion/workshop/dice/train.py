"""Train both dice stages on the CPU and export them to ONNX in ``models/``.

Usage: ``python -m companion.workshop.dice.train [--seed 1] [--det-steps 16000] [--cls-steps 30000] [--cls-size 48]
[--cls-grid 0|3] [--cls-arch conv|separable|separable-deep] [--no-balance-classes] [--cls-full-res-stem]
[--crop-jitter narrow|wide] [--no-boards] [--embed-dim 64] [--keep-detector models] [--out DIR] [--quick]``. The
defaults are the recipe of the committed models (models/manifest.json "training"): one cold run of them made both
committed files in 79 minutes on the shared 2-core machine (under nice, other jobs running; seeded, one torch
thread per model; the step counts, not the time caps, end a run).
``--keep-detector FOLDER`` trains the classifier only and keeps that folder's (checked) detector;
``--cls-size`` changes the crop side (written to the manifest config, which the reader follows).

Steps (each seeded): render synthetic detector scenes and classifier crops (synth.VERSION 5: upright
leaning cameras and cameras looking down; plain, carpeted, patterned and illustrated tables; cached
under runs/dice-cache/), render the four games' boards with their pieces (boards.py: bare frames, and synthetic
dice laid on them), add crops and scenes from the real training splits of every shared set (realdata.SPLITS), then
train the detector (in a second process, one thread) while training the classifier (one thread; rare synthetic
classes such as each d8 face are drawn more often, weight 1/sqrt(class count), unless --no-balance-classes; its
embedding head on episodes within one set of dice), fit the temperature on a calibration set (synthetic + 10% of the
real training photos), export both models (torch.onnx.export, dynamo=False, opset 13; the classifier with its
outputs ``logits`` and ``embedding``), check the classifier's ONNX against torch, write models/manifest.json with
SHA-256 hashes, choose the confidence from which a reading is sure on the held-out photos
(evaluate.calibrate_uncertain_below), then evaluate and write the model cards.
The d8 reader (stage 2b) is trained by its own command, ``python -m companion.workshop.dice.train_d8``; ``make train``
runs both. This command keeps its entry in the manifest.
Needs the ``train`` extra (torch==2.13.0, onnx, tqdm).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from companion.data import source_checkout
from companion.vision import classify, detect, imageio
from companion.vision.classes import CLASSES, NONE, class_index
from companion.vision.confidence import ece, fit_temperature, softmax
from companion.vision.models import manifest as manifest_of
from companion.vision.models import models_dir, sha256
from companion.workshop.dice import realdata, synth

RUNS = (source_checkout() or Path.cwd()) / "runs"  # beside the checkout's models, or here for a wheel
CACHE = RUNS / "dice-cache"
DET_SIZE = 256  # training patch side of the detector
CLS_SIZE = classify.DEFAULTS["size"]  # the helpers' default; the trained size is --cls-size
# Kinds whose readings are always shown for confirmation, whatever their confidence: even with the d8
# reader's second look, about half the d8 numerals are read right (model cards). Drop a kind only when its
# card shows it read reliably.
ALWAYS_CONFIRM_KINDS = ("d8",)

# the recipe of the committed models (models/manifest.json); `python -m companion.workshop.dice.train` repeats it
DEFAULT_DET_STEPS, DEFAULT_MINUTES_DET = 16000, 240.0
DEFAULT_CLS_STEPS, DEFAULT_CLS_SIZE, DEFAULT_MINUTES_CLS = 30000, 48, 240.0
DEFAULT_CLS_GRID, DEFAULT_CLS_ARCH = 3, "conv"
DEFAULT_EMBED_DIM = 64
# shares of the classifier's batches besides the synthetic crops: dice on boards and bare boards, real photos
BOARD_SHARE, REAL_SHARE = 0.2, 0.9
# seeds 0 and 1 of this recipe were trained; 1 read the validation photos and synthetic scenes better
# (models/dice_detector.md, "This run")
DEFAULT_SEED = 1
CROP_SCALE = classify.DEFAULTS["crop_scale"]
# Dice this many pixels across are what a phone at the table's side sees (16 mm dice at 1280x720 through a
# wide lens: about 20 px); the real photos' dice are mostly far larger. Shrinking 30% of each batch so was
# tried (session 32, docs/vision-notes.md): the films' dice read far better, real dice seen from afar hardly,
# and the real photos' sure readings were more often wrong, so the committed models train without it.
SMALL_DIE_PX = (13.0, 30.0)
DEFAULT_SMALL_DICE = 0.0


# ---------------------------------------------------------------- synthetic data (worker functions)
def _det_chunk(args):
    seed, n = args
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    imgs, targets = [], []
    for _ in range(n):
        s = synth.render_scene(rng, DET_SIZE, DET_SIZE, size_range=(6, 110))
        imgs.append(s.image)
        targets.append(np.array([[*d.box, d.top_visible] for d in s.dice], np.float32).reshape(-1, 5))
    return imgs, targets


# box jitter of the training crops (scale range, centre offset sd as a share of the die). "wide" matches
# the detector's errors on the validation photos (boxes 0.8-1.35x the labelled size, off-centre by
# 0.05-0.1 of the die, 0.2-0.3 at the 90th percentile) but did not beat "narrow" there.
CROP_JITTERS = {"narrow": ((0.85, 1.2), 0.06), "wide": ((0.8, 1.35), 0.1)}
CROP_JITTER = CROP_JITTERS["narrow"]


def jittered_crops(rng, img, box, n, label, size=CLS_SIZE, jitter=None):
    x, y, w, h = box
    out = []
    (lo, hi), sd = jitter or CROP_JITTER
    for _ in range(n):
        s = rng.uniform(lo, hi)
        dx, dy = rng.normal(0, sd, 2) * max(w, h)
        bw, bh = w * s, h * s
        out.append((classify.crop(img, (x + w / 2 + dx - bw / 2, y + h / 2 + dy - bh / 2, bw, bh), size, CROP_SCALE),
                    label))
    return out


def negative_crops(rng, img, boxes, n, size=CLS_SIZE):
    """Crops with no die centred in them: background, clutter, off-centre halves of dice."""
    H, W = img.shape[:2]
    out = []
    tries = 0
    while len(out) < n and tries < n * 20:
        tries += 1
        if boxes and rng.random() < 0.35:  # off-centre on a die
            x, y, w, h = boxes[int(rng.integers(len(boxes)))]
            ang = rng.uniform(0, 2 * math.pi)
            r = rng.uniform(0.65, 1.0) * max(w, h)
            s = max(w, h) * rng.uniform(0.8, 1.2)
            cx, cy = x + w / 2 + r * math.cos(ang), y + h / 2 + r * math.sin(ang)
        else:
            s = math.exp(rng.uniform(math.log(12), math.log(min(H, W) / 2)))
            cx, cy = rng.uniform(0, W), rng.uniform(0, H)
        if any(abs(cx - (bx + bw / 2)) < 0.55 * max(bw, bh) and abs(cy - (by + bh / 2)) < 0.55 * max(bw, bh)
               for bx, by, bw, bh in boxes):
            continue
        out.append((classify.crop(img, (cx - s / 2, cy - s / 2, s, s), size, CROP_SCALE), NONE))
    return out


def _cls_chunk(args):
    seed, n, size, jitter, blank_eight = args
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    crops = []
    for _ in range(n):
        s = synth.render_scene(rng, 448, 448, size_range=(15, 120),
                               kind_weights=[0.5, 0.25, 0.25], blank_eight=blank_eight)
        boxes = [d.box for d in s.dice]
        upright = bool(s.dice and s.dice[0].upright)  # one camera per scene
        scene_crops = []
        for d in s.dice:
            scene_crops += jittered_crops(rng, s.image, d.box, 2, d.label, size, jitter)
        scene_crops += negative_crops(rng, s.image, boxes, max(1, len(boxes) // 2), size)
        crops += [(c, lab, upright) for c, lab in scene_crops]
    return crops


def render_pool():
    """Two rendering processes, started fresh ("spawn"): a forked copy of a process that runs other threads
    (onnxruntime's, a UI's) can inherit a lock held by one of them and hang. Each job seeds its own
    generator, so the renders do not depend on how the processes start."""
    return multiprocessing.get_context("spawn").Pool(2)


def _pool_map(fn, jobs, desc):
    from tqdm import tqdm

    results = []
    with render_pool() as pool:
        for r in tqdm(pool.imap(fn, jobs), total=len(jobs), desc=desc):
            results.append(r)
    return results


def _cached_scenes(path: Path, chunk, jobs, desc: str):
    """Detector scenes rendered by ``chunk`` over ``jobs``, kept in ``path`` as plain arrays (boxes of all
    scenes concatenated, with per-scene counts: no pickled objects)."""
    if path.is_file():
        z = np.load(path)
        return list(z["imgs"]), np.split(z["boxes"], np.cumsum(z["counts"])[:-1])
    imgs, targets = [], []
    for a, b in _pool_map(chunk, jobs, desc):
        imgs += a
        targets += b
    CACHE.mkdir(parents=True, exist_ok=True)
    np.savez(path, imgs=np.stack(imgs), boxes=np.concatenate(targets).reshape(-1, 5),
             counts=np.array([len(t) for t in targets], np.int64))
    return imgs, targets


def synthetic_detector_set(seed: int, n: int):
    return _cached_scenes(CACHE / f"det_v{synth.VERSION}_{seed}_{n}.npz", _det_chunk,
                          [(seed * 100_000 + i, 25) for i in range(n // 25)], "render detector scenes")


def blank_eight_key(blank_eight: float) -> str:
    """The cache file names' part for renders with blank eighth faces ("" when none: older caches still fit)."""
    return f"_b{blank_eight:g}" if blank_eight > 0 else ""


def synthetic_crop_set(seed: int, n_scenes: int, size: int = CLS_SIZE, jitter=CROP_JITTER, blank_eight: float = 0.0):
    # keyed by the renderer's and the crop's versions: crops from an older synth.py or crop() must not be reused
    (lo, hi), sd = jitter
    path = CACHE / (f"cls_v{synth.VERSION}c{classify.CROP_VERSION}_j{lo}-{hi}-{sd}_{seed}_{n_scenes}_{size}"
                    f"{blank_eight_key(blank_eight)}.npz")
    if path.is_file():
        z = np.load(path)
        return z["x"], z["y"], z["upright"]
    jobs = [(seed * 100_000 + 50_000 + i, 20, size, jitter, blank_eight) for i in range(n_scenes // 20)]
    crops = []
    for r in _pool_map(_cls_chunk, jobs, "render classifier crops"):
        crops += r
    x = np.stack([c for c, _, _ in crops])
    y = np.array([lab for _, lab, _ in crops], np.int64)
    upright = np.array([u for _, _, u in crops], bool)
    CACHE.mkdir(parents=True, exist_ok=True)
    np.savez(path, x=x, y=y, upright=upright)
    return x, y, upright


# ---------------------------------------------------------------- the games' boards (hard negatives)
BOARD_FRAMES = 320  # rendered board frames (80 per game), cached
BOARD_SCENES = 600  # synthetic dice scenes on a board backdrop, per model


def board_frame_set(seed: int, n: int) -> np.ndarray:
    """N x 360 x 640 x 3 board frames without dice (boards.board_frames), cached as one plain array."""
    from companion.workshop.dice import boards

    path = CACHE / f"boards_v{boards.VERSION}_{seed}_{n}.npy"
    if not path.is_file():
        with render_pool() as pool:
            frames = boards.board_frames(n, seed, pool)
        CACHE.mkdir(parents=True, exist_ok=True)
        np.save(path, np.stack(frames))
    return np.load(path, mmap_mode="r")


def _board_det_chunk(args):
    seed, n, frames_seed, n_frames = args
    from companion.workshop.dice import boards

    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    frames = board_frame_set(frames_seed, n_frames)  # rendered by the parent first
    imgs, targets = [], []
    for _ in range(n):
        s = synth.render_scene(rng, DET_SIZE, DET_SIZE, size_range=(6, 110),
                               backdrop=boards.backdrop(rng, frames, DET_SIZE, DET_SIZE))
        imgs.append(s.image)
        targets.append(np.array([[*d.box, d.top_visible] for d in s.dice], np.float32).reshape(-1, 5))
    return imgs, targets


def _board_cls_chunk(args):
    seed, n, size, jitter, frames_seed, n_frames = args
    from companion.workshop.dice import boards

    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    frames = board_frame_set(frames_seed, n_frames)  # rendered by the parent first
    crops = []
    for _ in range(n):
        s = synth.render_scene(rng, 448, 448, size_range=(15, 120), kind_weights=[0.5, 0.25, 0.25],
                               backdrop=boards.backdrop(rng, frames, 448, 448))
        upright = bool(s.dice and s.dice[0].upright)
        for d in s.dice:
            crops += [(c, lab, upright) for c, lab in jittered_crops(rng, s.image, d.box, 2, d.label, size, jitter)]
        crops += [(c, lab, upright) for c, lab in negative_crops(rng, s.image, [d.box for d in s.dice],
                                                                 max(1, len(s.dice) // 2), size)]
    return crops


def board_detector_set(seed: int, frames_seed: int, n_frames: int, n: int):
    """Synthetic dice scenes laid on parts of board frames (a die on a board is still a die), cached."""
    from companion.workshop.dice import boards

    return _cached_scenes(CACHE / f"det_boards_v{synth.VERSION}b{boards.VERSION}_{seed}_{n}_{frames_seed}_{n_frames}.npz",
                          _board_det_chunk, [(seed * 100_000 + 70_000 + i, 20, frames_seed, n_frames)
                                             for i in range(n // 20)], "render dice on boards (detector)")


def board_crop_set(seed: int, frames_seed: int, n_frames: int, n: int, size: int, jitter):
    """Classifier crops: dice laid on board frames (labelled), and "none" crops of the bare frames where a
    die detector would look (boards.proposals) or anywhere. (x, y, upright), cached."""
    from companion.workshop.dice import boards

    (lo, hi), sd = jitter
    path = CACHE / (f"cls_boards_v{synth.VERSION}b{boards.VERSION}c{classify.CROP_VERSION}_j{lo}-{hi}-{sd}_{seed}_{n}"
                    f"_{frames_seed}_{n_frames}_{size}.npz")
    if path.is_file():
        z = np.load(path)
        return z["x"], z["y"], z["upright"]
    jobs = [(seed * 100_000 + 80_000 + i, 20, size, jitter, frames_seed, n_frames) for i in range(n // 20)]
    crops = []
    for r in _pool_map(_board_cls_chunk, jobs, "render dice on boards (classifier)"):
        crops += r
    rng = np.random.default_rng(seed + 11)
    frames = board_frame_set(frames_seed, n_frames)
    for f in frames:
        f = np.asarray(f)
        for box in boards.proposals(f):
            s = rng.uniform(0.85, 1.2)
            x, y, w, h = box
            crops.append((classify.crop(f, (x + w * (1 - s) / 2, y + h * (1 - s) / 2, w * s, h * s), size, CROP_SCALE),
                          NONE, bool(rng.random() < 0.5)))
        crops += [(c, lab, True) for c, lab in negative_crops(rng, f, [], 6, size)]
    x = np.stack([c for c, _, _ in crops])
    y = np.array([lab for _, lab, _ in crops], np.int64)
    upright = np.array([u for _, _, u in crops], bool)
    CACHE.mkdir(parents=True, exist_ok=True)
    np.savez(path, x=x, y=y, upright=upright)
    return x, y, upright


def board_detector_negatives(frames) -> list:
    """The bare board frames at the detector's scale, as (image, no boxes)."""
    long_side = detect.DEFAULTS["long_side"]
    return [(imageio.shrink(np.asarray(f), long_side / max(f.shape[:2])), np.zeros((0, 5), np.float32)) for f in frames]


# ---------------------------------------------------------------- real data
def real_training_photos():
    """(train, calibration) lists of (dataset, photo) from every training split (realdata.SPLITS), labels
    reviewed where a review looked (``label_review``: a die whose top face the photo does not show is
    trained as unreadable, "none")."""
    from companion.workshop.dice import label_review

    if not realdata.available():
        print("note: ../shared/datasets not found; training on synthetic data only", file=sys.stderr)
        return [], []
    train, calib = [], []
    reviews = label_review.load_reviews()
    for (ds, split), role in realdata.SPLITS.items():
        if role != "train":
            continue
        photos, _ = label_review.apply_reviews(realdata.load_split(ds, split), ds, split, reviews, top_hidden_unreadable=True)
        a, b = realdata.split_for_calibration(photos)
        train += [(ds, p) for p in a]
        calib += [(ds, p) for p in b]
    return train, calib


def _label_box(ds: str, box):
    x, y, w, h = box
    if ds == "dice-photos-matteop65":  # labels box the top face only; grow to the whole die
        g = 0.15
        return (x - w * g / 2, y - h * g / 2, w * (1 + g), h * (1 + g))
    return tuple(float(v) for v in box)


# Real sets photographed by an upright, leaning camera: their crops keep their orientation in training
# (the upward face is the one at the top of the die's image). The other sets look straight down.
UPRIGHT_SETS = {"dice-photos-roboflow-catan", "dice-photos-aws-reinvent2019", "dice-photos-rune55",
                "dice-photos-skovy-catan", "dice-crops-skovy-catan"}
# Fully labelled photo sets: a crop with no labelled die in it shows none (catan does not label every die).
NEGATIVE_SETS = {"dice-photos-matteop65", "dice-photos-aws-reinvent2019", "dice-photos-rune55",
                 "dice-photos-skovy-catan"}


def _label_class(d) -> int | None:
    """The classifier's class of a labelled die: None when it cannot train (unclear, or a kind the reader
    does not read, such as a d20); "none" when the review says its top face is not in the photo."""
    from companion.workshop.dice.label_review import TOP_HIDDEN

    if d.value == TOP_HIDDEN:
        return NONE
    if d.value is None:
        return None
    try:
        return class_index(d.kind, d.value)
    except (ValueError, IndexError):
        return None


def real_crops(rng, photos, per_die: int, negatives: bool = True, size: int = CLS_SIZE, jitter=CROP_JITTER):
    """Crops of the labelled dice (and, from fully labelled sets, background):
    (crop, label, upright, dataset, die id), the die id -1 for background."""
    out = []
    for ds, p in photos:
        img = cv2.imread(str(p.path))
        if img is None:
            continue
        boxes = [_label_box(ds, d.box) for d in p.dice]
        for d, b in zip(p.dice, boxes, strict=True):
            label = _label_class(d)
            if label is None:
                continue
            die = int(rng.integers(1 << 62))
            crops = jittered_crops(rng, img, b, per_die, label, size, jitter)
            out += [(c, lab, ds in UPRIGHT_SETS, ds, die) for c, lab in crops]
        if negatives and ds in NEGATIVE_SETS:
            out += [(c, lab, ds in UPRIGHT_SETS, ds, -1) for c, lab in negative_crops(rng, img, boxes, 2, size)]
    return out


def real_detector_scenes(photos):
    """Letterboxed to the detector's inference scale: (image, boxes)."""
    out = []
    long_side = detect.DEFAULTS["long_side"]
    for ds, p in photos:
        if ds in realdata.CROP_SETS:  # one die filling the picture: nothing to find
            continue
        img = cv2.imread(str(p.path))
        if img is None:
            continue
        s = long_side / max(img.shape[:2])
        img = imageio.shrink(img, s)  # exactly as detect.preprocess shrinks a frame at run time
        boxes = np.array([[*(np.array(_label_box(ds, d.box)) * s), 1.0] for d in p.dice], np.float32).reshape(-1, 5)
        out.append((img, boxes))
    return out


# ---------------------------------------------------------------- detector training
def det_targets(boxes, size):
    g = size // detect.STRIDE
    hm = np.zeros((g, g), np.float32)
    ignore = np.zeros((g, g), np.float32)
    reg = np.zeros((4, g, g), np.float32)
    mask = np.zeros((g, g), np.float32)
    yy, xx = np.mgrid[0:g, 0:g].astype(np.float32)
    for x, y, w, h, vis in boxes:
        cx, cy = (x + w / 2) / detect.STRIDE, (y + h / 2) / detect.STRIDE
        if not (0 <= cx < g and 0 <= cy < g) or w < 3 or h < 3:
            continue
        ix, iy = int(cx), int(cy)
        if vis < 0.25:  # mostly hidden: neither a positive nor a negative
            ignore[max(0, iy - 1):iy + 2, max(0, ix - 1):ix + 2] = 1
            continue
        sigma = max(0.6, 0.15 * min(w, h) / detect.STRIDE)
        hm = np.maximum(hm, np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * sigma**2)))
        reg[:, iy, ix] = [cx - ix, cy - iy, math.log(w / detect.STRIDE), math.log(h / detect.STRIDE)]
        mask[iy, ix] = 1
        hm[iy, ix] = 1.0
    return hm, reg, mask, ignore


def random_patch(rng, img, boxes, size):
    H, W = img.shape[:2]
    if H < size or W < size:
        canvas = np.zeros((max(H, size), max(W, size), 3), np.uint8)
        canvas[:H, :W] = img
        img, H, W = canvas, max(H, size), max(W, size)
    x0, y0 = int(rng.integers(0, W - size + 1)), int(rng.integers(0, H - size + 1))
    b = boxes.copy()
    b[:, 0] -= x0
    b[:, 1] -= y0
    return img[y0:y0 + size, x0:x0 + size], b


def augment_patch(rng, img, boxes):
    size = img.shape[0]
    k = int(rng.integers(4))
    for _ in range(k):  # rotate 90 degrees counter-clockwise
        img = np.rot90(img)
        x, y, w, h = boxes[:, 0].copy(), boxes[:, 1].copy(), boxes[:, 2].copy(), boxes[:, 3].copy()
        boxes = np.stack([y, size - x - w, h, w, boxes[:, 4]], 1)
    if rng.random() < 0.5:
        img = img[:, ::-1]
        boxes = boxes.copy()
        boxes[:, 0] = size - boxes[:, 0] - boxes[:, 2]
    return np.ascontiguousarray(img), boxes


# shares of the detector's training patches: real photos, bare board frames (hard negatives); the rest synthetic
DET_REAL_SHARE, DET_BOARD_SHARE = 0.3, 0.1


def train_detector(torch, syn_imgs, syn_targets, real_scenes, seed, steps, minutes, log, bar_position=0,
                   board_scenes=()):
    from tqdm import tqdm

    from companion.workshop.dice.nets import DiceDetector

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed + 1)
    net = DiceDetector().to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    batch = 8
    deadline = time.time() + minutes * 60  # a safety cap; the step count makes runs reproducible
    step, total = 0, steps
    bar = tqdm(desc="train detector", total=total, unit="step", position=bar_position)
    while step < total and time.time() < deadline:
        xs, tg = [], []
        for _ in range(batch):
            pick = rng.random()
            if real_scenes and pick < DET_REAL_SHARE:
                img, boxes = real_scenes[int(rng.integers(len(real_scenes)))]
                img, boxes = random_patch(rng, img, boxes, DET_SIZE)
            elif board_scenes and pick < DET_REAL_SHARE + DET_BOARD_SHARE:
                img, boxes = board_scenes[int(rng.integers(len(board_scenes)))]
                img, boxes = random_patch(rng, img, boxes, DET_SIZE)
            else:
                i = int(rng.integers(len(syn_imgs)))
                img, boxes = syn_imgs[i], syn_targets[i]
            img, boxes = augment_patch(rng, img, boxes)
            xs.append(img.astype(np.float32) / 255.0)
            tg.append(det_targets(boxes, DET_SIZE))
        x = torch.from_numpy(np.stack(xs).transpose(0, 3, 1, 2).copy()).contiguous(memory_format=torch.channels_last)
        hm_t = torch.from_numpy(np.stack([t[0] for t in tg]))[:, None]
        reg_t = torch.from_numpy(np.stack([t[1] for t in tg]))
        mask = torch.from_numpy(np.stack([t[2] for t in tg]))[:, None]
        ign = torch.from_numpy(np.stack([t[3] for t in tg]))[:, None]
        lr = 3e-3 * 0.5 * (1 + math.cos(math.pi * min(1.0, step / total))) * min(1.0, (step + 1) / 50)
        for gparam in opt.param_groups:
            gparam["lr"] = lr
        hm_l, reg_l = net(x)
        p = torch.sigmoid(hm_l).clamp(1e-4, 1 - 1e-4)
        pos = (hm_t == 1).float()
        neg_w = (1 - hm_t) ** 4 * (1 - ign)
        pos_loss = -(torch.log(p) * (1 - p) ** 2 * pos).sum()
        neg_loss = -(torch.log(1 - p) * p**2 * neg_w * (1 - pos)).sum()
        npos = pos.sum().clamp(min=1)
        reg_loss = (torch.abs(reg_l - reg_t) * mask).sum() / npos
        loss = (pos_loss + neg_loss) / npos + reg_loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 20 == 0:
            log(f"det step {step}/{total} loss {loss.item():.3f} reg {reg_loss.item():.3f}")
        bar.update(1)
    bar.close()
    if step < total:
        log(f"detector stopped by the time cap after {step} of {total} steps")
    net.eval()
    return net, step


# ---------------------------------------------------------------- classifier training
def shrunk_die(rng, im: np.ndarray) -> np.ndarray:
    """The crop of a die seen from afar: shrunk to a die SMALL_DIE_PX across (JPEG at that size, as a phone's
    frame is), then scaled back up as the reader scales a small find (classify.crop)."""
    side = max(8, int(round(rng.uniform(*SMALL_DIE_PX) * CROP_SCALE)))
    small = cv2.resize(im, (side, side), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.7:
        ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(50, 95))])
        small = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else small
    return cv2.resize(small, im.shape[1::-1], interpolation=cv2.INTER_LINEAR)


def cls_batch_augment(rng, x, upright, small_share: float = 0.0):
    """x: N x S x S x 3 uint8 -> augmented copy (rotations, colour, blur, noise; ``small_share`` of them seen
    from afar, shrunk_die). Crops seen by an upright camera (``upright``) are not turned: there the upward face
    is the one at the top of the image."""
    out = np.empty_like(x)
    for i in range(len(x)):
        im = x[i] if upright[i] else np.rot90(x[i], int(rng.integers(4)))
        if small_share and rng.random() < small_share:
            im = shrunk_die(rng, np.ascontiguousarray(im))
        im = im.astype(np.float32)
        im = im * rng.uniform(0.7, 1.3) + rng.uniform(-25, 25)
        im = im * rng.uniform(0.92, 1.08, 3)
        if rng.random() < 0.2:
            im = cv2.GaussianBlur(im, (0, 0), rng.uniform(0.5, 1.2))
        if rng.random() < 0.3:
            im = im + rng.normal(0, rng.uniform(2, 8), im.shape)
        out[i] = np.clip(im, 0, 255).astype(np.uint8)
    return out


# Episodes train the embedding head (nets.DiceClassifier ``embed_dim``) for taught dice profiles: within one
# set of dice (a real dataset, or the synthetic renders), a few dice per face are the "taught" ones, and other
# dice of that set are read by the nearest face mean (a prototypical network's loss).
EPISODE_WAYS, EPISODE_SHOTS, EPISODE_QUERIES = 8, 2, 2
EPISODE_SCALE = 10.0  # cosine similarities times this are the logits of an episode's query
EPISODE_SYNTHETIC_SHARE = 0.3


def episode_index(y: np.ndarray, domains: np.ndarray, dies: np.ndarray) -> dict:
    """domain -> class -> [crop indices of one die, ...]: the classes with enough dice for an episode.
    A crop with die id -1 (background, a synthetic crop) counts as its own die."""
    grouped: dict = {}
    for i, (dom, lab, die) in enumerate(zip(domains.tolist(), y.tolist(), dies.tolist(), strict=True)):
        grouped.setdefault(dom, {}).setdefault(lab, {}).setdefault(die if die != -1 else -(i + 2), []).append(i)
    need = EPISODE_SHOTS + EPISODE_QUERIES
    out = {}
    for dom, by_class in grouped.items():
        usable = {lab: list(by_die.values()) for lab, by_die in by_class.items() if len(by_die) >= need}
        if len(usable) >= 2:
            out[dom] = usable
    return out


def sample_episode(rng, index: dict) -> tuple[np.ndarray, np.ndarray]:
    """(crop indices, class of each: 0..ways-1): per class EPISODE_SHOTS support then EPISODE_QUERIES query
    crops, each of another die."""
    real = [d for d in index if d != -1]
    if -1 in index and (not real or rng.random() < EPISODE_SYNTHETIC_SHARE):
        dom = -1
    else:
        dom = real[int(rng.integers(len(real)))]
    classes = list(index[dom])
    chosen = rng.choice(len(classes), min(EPISODE_WAYS, len(classes)), replace=False)
    idx, lab = [], []
    for k, c in enumerate(chosen):
        dice = index[dom][classes[c]]
        for d in rng.choice(len(dice), EPISODE_SHOTS + EPISODE_QUERIES, replace=False):
            idx.append(dice[d][int(rng.integers(len(dice[d])))])
            lab.append(k)
    return np.array(idx), np.array(lab)


def episode_loss(torch, emb, labels: np.ndarray):
    """Prototypical loss: each class's support embeddings averaged (then normalised), each query classed by
    cosine similarity to those means."""
    n = EPISODE_SHOTS + EPISODE_QUERIES
    ways = len(labels) // n
    e = emb.view(ways, n, -1)
    protos = torch.nn.functional.normalize(e[:, :EPISODE_SHOTS].mean(1), dim=1)
    queries = e[:, EPISODE_SHOTS:].reshape(-1, e.shape[-1])
    target = torch.arange(ways).repeat_interleave(EPISODE_QUERIES)
    return torch.nn.functional.cross_entropy(EPISODE_SCALE * queries @ protos.T, target)


def train_classifier(torch, x_train, y_train, u_train, weights, seed, steps, minutes, log, net_options=None,
                     episodes: dict | None = None, episode_weight: float = 0.5, small_share: float = 0.0):
    """``net_options``: keyword arguments of nets.DiceClassifier (grid, layers, embed_dim). ``episodes``
    (``episode_index``) trains the embedding head beside the linear one, ``episode_weight`` times its loss.
    ``small_share``: the share of crops seen as small dice (shrunk_die)."""
    from tqdm import tqdm

    from companion.workshop.dice.nets import DiceClassifier

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed + 2)
    net = DiceClassifier(len(CLASSES), **(net_options or {})).to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=5e-4)
    batch = 64
    deadline = time.time() + minutes * 60  # a safety cap; the step count makes runs reproducible
    step, total = 0, steps
    p = weights / weights.sum()
    use_episodes = bool(episodes) and net.embed is not None
    bar = tqdm(desc="train classifier", total=total, unit="step")
    while step < total and time.time() < deadline:
        idx = rng.choice(len(x_train), batch, p=p)
        ep_labels = None
        if use_episodes:
            ep_idx, ep_labels = sample_episode(rng, episodes)
            idx = np.concatenate([idx, ep_idx])
        xb = torch.from_numpy(classify.normalize(cls_batch_augment(rng, x_train[idx], u_train[idx], small_share)))
        xb = xb.contiguous(memory_format=torch.channels_last)
        yb = torch.from_numpy(y_train[idx[:batch]])
        lr = 3e-3 * 0.5 * (1 + math.cos(math.pi * min(1.0, step / total))) * min(1.0, (step + 1) / 50)
        for g in opt.param_groups:
            g["lr"] = lr
        net.train()
        pooled = net.pooled(xb)
        loss = torch.nn.functional.cross_entropy(net.fc(net.drop(pooled[:batch])), yb, label_smoothing=0.05)
        if ep_labels is not None:
            ep_loss = episode_loss(torch, net.embedding(pooled[batch:]), ep_labels)
            loss = loss + episode_weight * ep_loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 50 == 0:
            log(f"cls step {step}/{total} loss {loss.item():.3f}"
                + (f" episode {ep_loss.item():.3f}" if ep_labels is not None else ""))
        bar.update(1)
    bar.close()
    if step < total:
        log(f"classifier stopped by the time cap after {step} of {total} steps")
    net.eval()
    return net, step


def predict_logits(torch, net, x, batch=512):
    out = []
    with torch.no_grad():
        for i in range(0, len(x), batch):
            out.append(net(torch.from_numpy(classify.normalize(x[i:i + batch]))).numpy())
    return np.concatenate(out) if out else np.zeros((0, len(CLASSES)), np.float32)


# ---------------------------------------------------------------- main
def _logger():
    """Appends progress lines to runs/dice-train.log (when runs/ exists); safe from both training processes."""
    logf = open(RUNS / "dice-train.log", "a") if RUNS.is_dir() else None

    def log(msg):
        if logf:
            print(msg, file=logf, flush=True)

    return log


def detector_job(seed: int, n_scenes: int, steps: int, minutes: float, det_path: str,
                 boards: tuple[int, int] | None = None) -> int:
    """Train and export the detector (run in its own process, beside the classifier's training).
    The synthetic scenes are already rendered into the cache by the parent. Returns the steps trained."""
    import torch

    from companion.workshop.dice.nets import DetectorExport, export_onnx

    torch.set_num_threads(1)
    cv2.setNumThreads(1)
    log = _logger()
    real_train, _ = real_training_photos()
    syn_imgs, syn_targets = synthetic_detector_set(seed, n_scenes)
    board_scenes = []
    if boards:  # dice on boards join the synthetic scenes; bare boards are drawn on their own
        n_frames, n_scenes_on_boards = boards
        b_imgs, b_targets = board_detector_set(seed, seed, n_frames, n_scenes_on_boards)
        syn_imgs, syn_targets = list(syn_imgs) + list(b_imgs), list(syn_targets) + list(b_targets)
        board_scenes = board_detector_negatives(board_frame_set(seed, n_frames))
    det, done = train_detector(torch, syn_imgs, syn_targets, real_detector_scenes(real_train), seed, steps, minutes,
                               log, bar_position=1, board_scenes=board_scenes)
    det = det.to(memory_format=torch.contiguous_format)
    export_onnx(DetectorExport(det), torch.zeros(1, 3, 256, 416), det_path, ["image"], ["heat", "reg"],
                {"image": {2: "height", 3: "width"}, "heat": {2: "h4", 3: "w4"}, "reg": {2: "h4", 3: "w4"}})
    return done


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.calibrate_looking_down or args.calibrate:
        return _calibrate_only(args.out or models_dir(), both=args.calibrate)
    if args.quick:
        args.det_scenes, args.cls_scenes, args.det_steps, args.cls_steps = 100, 60, 10, 10
        args.board_frames, args.board_scenes = 8, 40

    import torch

    # one thread: on a shared 2-core machine two OpenMP threads ran 10x slower than one
    torch.set_num_threads(1)
    cv2.setNumThreads(1)
    np.random.seed(args.seed)
    out = args.out or models_dir()
    out.mkdir(parents=True, exist_ok=True)
    log = _logger()
    started = time.time()
    rng = np.random.default_rng(args.seed)
    real_train, real_calib = real_training_photos()
    log(f"real photos: {len(real_train)} train, {len(real_calib)} calibration")

    det_path, cls_path = out / "dice_detector.onnx", out / "dice_classifier.onnx"
    cls_size = args.cls_size
    jitter = CROP_JITTERS[args.crop_jitter]
    # detector: trained in its own process while this one trains the classifier (two cores, one thread
    # each: the wall time is the longer of the two, not their sum); both renders come first, on both cores
    kept_detector = det_future = None
    if args.keep_detector is not None:
        from companion.vision.models import model_entry

        kept_path, kept_entry = model_entry("dice_detector", args.keep_detector)  # checks its sha256
        kept_detector = (kept_path.read_bytes(), kept_entry, manifest_of(args.keep_detector).get("training"))
        det_steps = kept_entry.get("trained_steps")
    else:
        synthetic_detector_set(args.seed, args.det_scenes)  # render (cached) before the two trainings start
    boards = (args.board_frames, args.board_scenes) if args.boards else None
    if boards:
        board_frame_set(args.seed, args.board_frames)
        if kept_detector is None:
            board_detector_set(args.seed, args.seed, *boards)
    xs, ys, us = synthetic_crop_set(args.seed, args.cls_scenes, cls_size, jitter, args.blank_eight)
    if kept_detector is None:
        from concurrent.futures import ProcessPoolExecutor

        det_pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
        det_future = det_pool.submit(detector_job, args.seed, args.det_scenes, args.det_steps, args.minutes_det,
                                     str(det_path), boards)

    # classifier
    n_cal = len(xs) // 10
    x_cal_s, y_cal_s = xs[:n_cal], ys[:n_cal]
    xs, ys, us = xs[n_cal:], ys[n_cal:], us[n_cal:]
    rc = real_crops(rng, real_train, 4, size=cls_size, jitter=jitter)
    rcal = real_crops(np.random.default_rng(args.seed + 9), real_calib, 1, negatives=False, size=cls_size,
                      jitter=jitter)
    board_crops = board_crop_set(args.seed, args.seed, *boards, cls_size, jitter) if args.boards else None
    x_train, y_train, u_train, w, domains, dies = classifier_mix((xs, ys, us), board_crops, rc, args.balance_classes)
    log(f"classifier: {len(xs)} synthetic + {len(x_train) - len(xs) - len(rc)} board + {len(rc)} real crops; "
        f"classes {np.bincount(y_train, minlength=len(CLASSES))}")
    from companion.workshop.dice.nets import CLASSIFIER_ARCHS

    net_options = {"full_res_stem": args.cls_full_res_stem, "grid": args.cls_grid, "embed_dim": args.embed_dim,
                   **CLASSIFIER_ARCHS[args.cls_arch]}
    episodes = episode_index(y_train, domains, dies) if args.embed_dim else None
    cls, cls_steps = train_classifier(torch, x_train, y_train, u_train, w, args.seed, args.cls_steps, args.minutes_cls, log,
                                      net_options, episodes, small_share=args.small_dice)

    # calibration
    x_cal = np.concatenate([x_cal_s] + ([np.stack([c[0] for c in rcal])] if rcal else []))
    y_cal = np.concatenate([y_cal_s] + ([np.array([c[1] for c in rcal], np.int64)] if rcal else []))
    logits = predict_logits(torch, cls, x_cal)
    temperature = fit_temperature(logits, y_cal)
    ece_before = ece(softmax(logits), y_cal)
    ece_after = ece(softmax(logits / temperature), y_cal)
    log(f"temperature {temperature:.3f}; ECE {ece_before:.4f} -> {ece_after:.4f}")

    # export
    from companion.workshop.dice.nets import ClassifierExport, export_onnx

    cls = cls.to(memory_format=torch.contiguous_format)
    if kept_detector is not None:
        if det_path.resolve() != (args.keep_detector / kept_detector[1]["file"]).resolve():
            det_path.write_bytes(kept_detector[0])
    else:
        det_steps = det_future.result()  # waits for the detector's process (it exports its own model)
        det_pool.shutdown()
    outputs = ["logits", "embedding"] if args.embed_dim else ["logits"]
    export_onnx(ClassifierExport(cls, temperature), torch.zeros(2, 3, cls_size, cls_size), cls_path, ["crops"],
                outputs, {"crops": {0: "n"}, **{o: {0: "n"} for o in outputs}})
    # the exported graph must give what torch gives (temperature baked in)
    import onnxruntime

    probe = x_cal[:32]
    got = onnxruntime.InferenceSession(str(cls_path), providers=["CPUExecutionProvider"]).run(
        ["logits"], {"crops": classify.normalize(probe)})[0]
    want = predict_logits(torch, cls, probe) / temperature
    if not np.allclose(got, want, atol=1e-3):
        raise SystemExit(f"exported classifier differs from torch by {np.abs(got - want).max():.4f}")
    wall = time.time() - started
    manifest = _manifest(args, argv, det_path, det_steps, kept_detector, cls_path, cls_steps,
                         (temperature, ece_before, ece_after), wall, torch.__version__)
    _write_manifest(out, manifest, real_calib, log)
    print(f"wrote {det_path} and {cls_path} in {wall / 60:.1f} min; temperature {temperature:.2f}, "
          f"ECE {ece_before:.3f} -> {ece_after:.3f}")
    if os.environ.get("COMPANION_SKIP_CARDS") != "1":
        from companion.workshop.dice import evaluate

        evaluate.write_cards(out, manifest)
    return 0


def _manifest(args, argv, det_path: Path, det_steps, kept_detector, cls_path: Path, cls_steps, calibration,
              wall: float, torch_version: str) -> dict:
    """The models' manifest entries and the record of this training run."""
    temperature, ece_before, ece_after = calibration
    manifest = {
        "dice_detector": {
            "file": det_path.name, "sha256": sha256(det_path), "bytes": det_path.stat().st_size,
            "config": dict(kept_detector[1]["config"]) if kept_detector else dict(detect.DEFAULTS),
            "trained_steps": det_steps,
        },
        "dice_classifier": {
            "file": cls_path.name, "sha256": sha256(cls_path), "bytes": cls_path.stat().st_size,
            "config": {**classify.DEFAULTS, "size": args.cls_size, "uncertain_below": 0.6, "faint_min_confidence": 0.8,
                       "always_confirm_kinds": list(ALWAYS_CONFIRM_KINDS)},
            "classes": [f"{k}:{v}" if v is not None else "none" for k, v in CLASSES],
            "layers": args.cls_arch, "pooling": "3x3 grid" if args.cls_grid else "global",
            **({"embedding_dim": args.embed_dim} if args.embed_dim else {}),
            "temperature": temperature, "ece_calibration_before": ece_before, "ece_calibration_after": ece_after,
            "trained_steps": cls_steps,
        },
        "training": {"command": "python -m companion.workshop.dice.train " + " ".join(argv if argv is not None else sys.argv[1:]),
                     "arguments": {k: str(v) for k, v in vars(args).items()},
                     "seed": args.seed, "wall_seconds": round(wall, 1), "torch": torch_version},
    }
    if kept_detector is not None:  # the detector was trained by an earlier run: keep its record
        manifest["training"]["detector_kept_from"] = kept_detector[2]
    return manifest


def _write_manifest(out: Path, manifest: dict, real_calib, log) -> None:
    """Write the manifest, keeping other models' entries; then calibrate when the reader is sure (from the
    held-out photos) and write it again."""
    # models trained by other commands (the d8 reader: train_d8) keep their entries: they read crops of any
    # detector's boxes, so a new detector or classifier does not invalidate them
    try:
        previous = json.loads((out / "manifest.json").read_text())
    except (OSError, ValueError):  # none yet, or damaged: nothing to keep
        previous = {}
    manifest.update({k: v for k, v in previous.items() if k not in manifest})
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    if real_calib:  # sure from the confidence at which the held-out photos' sure readings are right enough
        _calibrate(out, manifest, real_calib, log)


def _calibrate(out: Path, manifest: dict, real_calib, log) -> None:
    """Calibrate from which confidence a reading is sure, seen from the side and from above, on the held-out photos
    (``real_calib``), and write both into ``out``'s manifest (and ``manifest``)."""
    from companion.workshop.dice.evaluate import calibrate_uncertain_below, write_looking_down

    sure = calibrate_uncertain_below(out, real_calib)
    manifest["dice_classifier"]["config"]["uncertain_below"] = sure["uncertain_below"]
    manifest["dice_classifier"]["sure_calibration"] = sure
    log(f"uncertain below {sure['uncertain_below']}: {sure}")
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    log(f"dice seen from above: {write_looking_down(out, real_calib)}")
    manifest.update(json.loads((out / "manifest.json").read_text()))


def classifier_mix(synthetic, board_crops, real, balance_classes: bool):
    """The classifier's training set: synthetic crops (rare classes weighted up when ``balance_classes``),
    dice on boards and bare boards (``board_crops``, or None) and real crops (``real``: (crop, class,
    uncertain, set, die) each); returns (crops, classes, uncertain, sampling weights, set index, die index),
    the weights giving each part its share of a batch (-1: no real set, no known die)."""
    xs, ys, us = synthetic
    w_syn = np.full(len(xs), 1.0)
    if balance_classes:  # rare synthetic classes (each d8 face, each colour face) drawn more often
        counts = np.bincount(ys, minlength=len(CLASSES)).astype(np.float64)
        w_syn = 1.0 / np.sqrt(np.maximum(counts[ys], 1.0))
    parts = [(xs, ys, us, w_syn / w_syn.sum(), np.full(len(xs), -1), np.full(len(xs), -1))]
    shares = [1.0]
    if board_crops is not None:  # dice on boards and bare boards ("none"): synthetic, one share of each batch
        xb_, yb_, ub_ = board_crops
        parts.append((xb_, yb_, ub_, np.full(len(xb_), 1.0 / len(xb_)), np.full(len(xb_), -1), np.full(len(xb_), -1)))
        shares.append(BOARD_SHARE)
    if real:
        parts.append(_real_part(real))
        shares.append(REAL_SHARE)
    weights = np.array(shares) / sum(shares) if len(shares) > 1 else np.ones(1)
    return (
        np.concatenate([q[0] for q in parts]),
        np.concatenate([q[1] for q in parts]),
        np.concatenate([q[2] for q in parts]),
        np.concatenate([q[3] * sh for q, sh in zip(parts, weights, strict=True)]),
        np.concatenate([q[4] for q in parts]),
        np.concatenate([q[5] for q in parts]),
    )


def _real_part(rc):
    sets = sorted({c[3] for c in rc})
    dom = np.array([sets.index(c[3]) for c in rc])
    n_set = np.bincount(dom, minlength=len(sets)).astype(np.float64)
    w_real = np.sqrt(n_set)[dom] / n_set[dom]  # a set's share grows as the root of its size
    return (np.stack([c[0] for c in rc]), np.array([c[1] for c in rc], np.int64), np.array([c[2] for c in rc]),
            w_real / w_real.sum(), dom, np.array([c[4] for c in rc], np.int64))


def _calibrate_only(folder: Path, both: bool) -> int:
    """Only calibrate, for the models in ``folder`` (no training): when a die seen from above is sure, and with
    ``both`` first when any reading is (after a change to how the classifier reads, such as ``shifted_looks``)."""
    from companion.workshop.dice.evaluate import write_looking_down

    _, calib = real_training_photos()
    if not calib:
        print("error: no calibration photos: ../shared/datasets not found", file=sys.stderr)
        return 2
    if both:
        manifest = json.loads((folder / "manifest.json").read_text())
        manifest["dice_classifier"]["config"] = {**classify.DEFAULTS, **manifest["dice_classifier"]["config"]}
        _calibrate(folder, manifest, calib, print)
    else:
        print(json.dumps(write_looking_down(folder, calib)))
    return 0


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m companion.workshop.dice.train", description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--det-scenes", type=int, default=3000)
    ap.add_argument("--cls-scenes", type=int, default=3000)
    ap.add_argument("--det-steps", type=int, default=DEFAULT_DET_STEPS)
    ap.add_argument("--cls-steps", type=int, default=DEFAULT_CLS_STEPS)
    ap.add_argument("--cls-size", type=int, default=DEFAULT_CLS_SIZE, help="classifier crop side in pixels")
    ap.add_argument("--cls-full-res-stem", action="store_true",
                    help="classifier's first layer at full crop resolution (nets.DiceClassifier)")
    ap.add_argument("--cls-grid", type=int, choices=(0, 3), default=DEFAULT_CLS_GRID,
                    help="classifier pooling: 0 global, 3 a 3x3 grid of cells (nets.DiceClassifier)")
    ap.add_argument("--cls-arch", choices=("conv", "separable", "separable-deep"), default=DEFAULT_CLS_ARCH,
                    help="classifier layers (nets.CLASSIFIER_ARCHS)")
    ap.add_argument("--crop-jitter", choices=sorted(CROP_JITTERS), default="narrow",
                    help="box jitter of the training crops (train.CROP_JITTERS)")
    ap.add_argument("--minutes-det", type=float, default=DEFAULT_MINUTES_DET, help="time cap of detector training")
    ap.add_argument("--minutes-cls", type=float, default=DEFAULT_MINUTES_CLS, help="time cap of classifier training")
    ap.add_argument("--balance-classes", action=argparse.BooleanOptionalAction, default=True,
                    help="draw rare synthetic classes (each d8 face, each colour face) more often: weight 1/sqrt(count)")
    ap.add_argument("--blank-eight", type=float, default=0.0,
                    help="share of the d8 dice whose eighth face is blank (labelled 8; rule EK-R-D8-BLANK)")
    ap.add_argument("--keep-detector", type=Path, default=None, metavar="FOLDER",
                    help="reuse the detector (model and manifest entry) of this models folder; train the classifier only")
    ap.add_argument("--boards", action=argparse.BooleanOptionalAction, default=True,
                    help="train on the four games' boards with their pieces (hard negatives; dice laid on boards)")
    ap.add_argument("--board-frames", type=int, default=BOARD_FRAMES, help="rendered board frames (hard negatives)")
    ap.add_argument("--board-scenes", type=int, default=BOARD_SCENES, help="synthetic dice scenes on boards, per model")
    ap.add_argument("--embed-dim", type=int, default=DEFAULT_EMBED_DIM,
                    help="classifier's embedding head for taught dice profiles (0: none)")
    ap.add_argument("--small-dice", type=float, default=DEFAULT_SMALL_DICE,
                    help="share of the classifier's crops shrunk to a die 13-30 px across and scaled back (train.shrunk_die)")
    ap.add_argument("--quick", action="store_true", help="a tiny smoke run (minutes -> seconds)")
    ap.add_argument("--out", type=Path, default=None, help="models folder (default models/)")
    ap.add_argument("--calibrate-looking-down", action="store_true",
                    help="train nothing: only calibrate when a die seen from above is sure (evaluate.calibrate_looking_down)"
                         " for the models in --out, and write it into their manifest")
    ap.add_argument("--calibrate", action="store_true",
                    help="train nothing: calibrate when a reading is sure, seen from the side and from above, for the"
                         " models in --out (after a change to how the classifier reads), and write both into their manifest")
    return ap

if __name__ == "__main__":
    sys.exit(main())
