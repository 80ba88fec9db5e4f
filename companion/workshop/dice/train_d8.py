"""Train the d8 reader (stage 2b, ``d8read``) on the CPU and export it to ONNX in ``models/``.

Usage: ``python -m companion.workshop.dice.train_d8 [--seed 1] [--steps 6000] [--scenes 12000] [--size 64]
[--blank-eight 0.5] [--out DIR] [--quick]``
(``make train`` runs it after ``companion.workshop.dice.train``). Seeded; two torch threads (this model is trained
alone, not beside another one), so a rerun on the same machine gives the same weights.

Steps: render small synthetic scenes of d8 dice only (``synth.render_scene`` with kinds ("d8",), one to four
dice, upright leaning cameras and cameras looking down, every table of the renderer, half of the dice with a
blank eighth face labelled 8; cached under
runs/dice-cache/), cut two jittered crops of each die as ``train.jittered_crops`` does for the classifier,
labelled with the die's value or "unreadable" when the renderer says its upward face cannot be read; train;
fit the temperature on a held-out tenth; export (opset 13, dynamo=False, temperature baked in) and check the
ONNX against torch; write its entry into ``manifest.json`` (the other entries are kept) and its model card
with a confusion matrix on fresh scenes.
Needs the ``train`` extra (torch==2.13.0, onnx, tqdm).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from companion.vision import classify, d8read
from companion.vision.classes import NONE
from companion.vision.confidence import ece, fit_temperature, softmax
from companion.vision.models import MANIFEST, models_dir, sha256
from companion.workshop.dice import synth
from companion.workshop.dice.cards import kept_hand_section
from companion.workshop.dice.train import (
    CACHE,
    blank_eight_key,
    cls_batch_augment,
    jittered_crops,
    predict_logits,
    render_pool,
)

DEFAULT_SEED, DEFAULT_STEPS, DEFAULT_SCENES, DEFAULT_MINUTES = 1, 6000, 12000, 28.0
DEFAULT_BLANK_EIGHT = 0.5
TEST_SEED = 777_900  # the card's fresh scenes: never trained on
THREADS = 2
NAMES = [str(v) for v in d8read.VALUES] + ["unreadable"]


def _d8_chunk(args):
    seed, n, size, blank_eight = args
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    xs, ys, ups = [], [], []
    for _ in range(n):
        scene = synth.render_scene(rng, 192, 192, n_dice=int(rng.choice([1, 1, 2, 2, 3, 4])), kinds=("d8",),
                                   size_range=(25, 120), blank_eight=blank_eight)
        upright = bool(scene.dice and scene.dice[0].upright)  # one camera per scene
        for d in scene.dice:
            label = d.value - 1 if d.label != NONE else d8read.UNREADABLE
            for c, _ in jittered_crops(rng, scene.image, d.box, 2, label, size):
                xs.append(c)
                ys.append(label)
                ups.append(upright)
    return xs, ys, ups


def d8_crop_set(seed: int, n_scenes: int, size: int, cache: bool = True, blank_eight: float = 0.0):
    """(crops, labels 0-8, upright flags) of ``n_scenes`` d8 scenes, a ``blank_eight`` share of the dice with a
    blank face for their 8 (labelled 8); cached by renderer and crop version."""
    path = CACHE / f"d8_v{synth.VERSION}c{classify.CROP_VERSION}_{seed}_{n_scenes}_{size}{blank_eight_key(blank_eight)}.npz"
    if cache and path.is_file():
        z = np.load(path)
        return z["x"], z["y"], z["upright"]
    from tqdm import tqdm

    jobs = [(seed * 100_000 + i, 50, size, blank_eight) for i in range(max(1, n_scenes // 50))]
    xs, ys, ups = [], [], []
    with render_pool() as pool:
        for a, b, c in tqdm(pool.imap(_d8_chunk, jobs), total=len(jobs), desc="render d8 scenes"):
            xs += a
            ys += b
            ups += c
    x, y, u = np.stack(xs), np.array(ys, np.int64), np.array(ups, bool)
    if cache:
        CACHE.mkdir(parents=True, exist_ok=True)
        np.savez(path, x=x, y=y, upright=u)
    return x, y, u


def train(torch, x, y, upright, seed: int, steps: int, minutes: float, size: int):
    from tqdm import tqdm

    from companion.workshop.dice.nets import D8Reader

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed + 2)
    net = D8Reader(len(NAMES), size=size).to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=5e-4)
    deadline = time.time() + minutes * 60  # a safety cap; the step count makes runs reproducible
    step = 0
    bar = tqdm(desc="train d8 reader", total=steps, unit="step")
    while step < steps and time.time() < deadline:
        idx = rng.integers(0, len(x), 64)
        xb = torch.from_numpy(classify.normalize(cls_batch_augment(rng, x[idx], upright[idx])))
        lr = 3e-3 * 0.5 * (1 + math.cos(math.pi * step / steps)) * min(1.0, (step + 1) / 50)
        for g in opt.param_groups:
            g["lr"] = lr
        net.train()
        loss = torch.nn.functional.cross_entropy(net(xb.contiguous(memory_format=torch.channels_last)),
                                                 torch.from_numpy(y[idx]), label_smoothing=0.05)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        bar.update(1)
        if step % 100 == 0:
            bar.set_postfix(loss=f"{loss.item():.3f}")
    bar.close()
    net.eval()
    return net, step


def held_out_figures(probs: np.ndarray, y: np.ndarray, upright: np.ndarray) -> dict:
    """Read right among the readable dice (any view, upright camera, camera looking down), and the unreadable
    dice called unreadable; the value read is the most likely one of 1-8, as the app shows it."""
    readable = y < d8read.UNREADABLE
    value = probs[:, :d8read.UNREADABLE].argmax(1)

    def share(mask):
        return float(np.mean(value[mask] == y[mask])) if mask.any() else float("nan")

    return {"readable": int(readable.sum()), "unreadable": int((~readable).sum()),
            "read_right": share(readable), "read_right_upright": share(readable & upright),
            "read_right_looking_down": share(readable & ~upright),
            "unreadable_called_unreadable": float(np.mean(probs[~readable].argmax(1) == d8read.UNREADABLE))}


def confusion(probs: np.ndarray, y: np.ndarray) -> np.ndarray:
    cm = np.zeros((len(NAMES), len(NAMES)), np.int64)
    np.add.at(cm, (y, probs.argmax(1)), 1)
    return cm


def write_card(out: Path, entry: dict, figures: dict, baseline: dict | None, command: str) -> None:
    def pct(v):
        return f"{100 * v:.1f}%"

    base = ""
    if baseline is not None:
        base = (f"\nThe dice classifier alone (its most likely d8 value, crops of the same dice at its own size) reads "
                f"{pct(baseline['read_right'])} of them right (upright camera {pct(baseline['read_right_upright'])}, "
                f"looking down {pct(baseline['read_right_looking_down'])}).\n")
    hand = kept_hand_section(out / "dice_d8_reader.md", entry["sha256"])  # "## This run", for the same file
    blank_row = blank_data = ""
    if figures.get("blank_eight_read_as_8") is not None:
        blank_row = (f"| a blank eighth face read as 8 (fresh dice whose eighth face is blank) | "
                     f"{pct(figures['blank_eight_read_as_8'])} |\n")
    if entry.get("blank_eight"):
        blank_data = (f" On {pct(entry['blank_eight'])} of the dice the eighth face is blank instead of an 8, and"
                      " labelled 8:\na box may leave it blank (rule EK-R-D8-BLANK treats an 8 as blank either way).")
    (out / "dice_d8_reader.md").write_text(f"""\
# dice_d8_reader.onnx

Reads the numeral on the upward face of a d8 (the Eagle Kingdoms Enchanted Die), stage 2b of the dice reader
(`companion/vision/d8read.py`): it runs only on the dice the dice classifier reads as a d8, and shares out
the classifier's probability that the die is a d8 between the values 1-8 and "unreadable".
Seven conv-BN-ReLU layers on a {entry['config']['size']}x{entry['config']['size']} crop centred on the
detection ({entry['config']['crop_scale']}x its longer side), the last {entry['config']['size'] // 16}x{entry['config']['size'] // 16} feature map flattened, one linear layer.
{entry['bytes'] // 1024} KiB, SHA-256 `{entry['sha256']}`.
Input `crops`: Nx3x{entry['config']['size']}x{entry['config']['size']} float32 (standardized per crop, as the
classifier's); output `logits`: Nx9, temperature-scaled (T = {entry['temperature']:.3f} baked in), over
{", ".join(NAMES)}.

Calibration (a held-out tenth of the training scenes): expected calibration error
{entry['ece_calibration_before']:.4f} before and {entry['ece_calibration_after']:.4f} after temperature scaling.

## Evaluation on fresh synthetic d8 dice (seed {TEST_SEED}, never trained on)

{figures['readable']} crops of readable dice and {figures['unreadable']} of dice whose upward face cannot be read
(two jittered crops of each die, as in training):

| | read right |
|---|---|
| all readable dice | {pct(figures['read_right'])} |
| upright camera leaning towards the table | {pct(figures['read_right_upright'])} |
| camera looking down | {pct(figures['read_right_looking_down'])} |
| unreadable dice called unreadable | {pct(figures['unreadable_called_unreadable'])} |
{blank_row}{base}
![confusion matrix](dice_d8_reader_confusion.png)

The whole reader's d8 figures (found, read right, on full synthetic scenes) are in `dice_classifier.md`.

{hand}## Training

`{command}` (or `make train`), seed {entry['seed']}, CPU only (torch {entry['torch']}, {THREADS} threads),
{entry['trained_steps']} steps of 64 crops, {entry['wall_seconds'] / 60:.1f} minutes wall time, rendering included.
Data: synthetic only (`companion/workshop/dice/synth.py`, kinds d8): {entry['training_crops']} crops of
{entry['training_scenes']} scenes of one to four d8 dice with random bodies (opaque, translucent, marbled,
glittery), numeral fonts, sizes and thicknesses (a 6 sometimes underlined), at any rotation, seen from above
or by a leaning upright camera, on every table of the renderer.{blank_data} There are no real photos of d8
dice in `../shared/datasets/`.

## Known failure cases

- Every d8 reading is still shown for confirmation (`always_confirm_kinds` in the classifier's config): the
  figures above are far from the 99.5% a reading should reach before it is trusted.
- From an upright, leaning camera a side face of a d8 looks as square-on as its upward face; the reader must
  take the numeral nearest the top of the die, and it reads those views worse than views from above.
- Some numerals look alike when turned (1 and 7; 6 and 9 would, but a d8 has no 9).
- Trained and measured on synthetic dice only: real Enchanted Dice may print their numerals differently.
""")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m companion.workshop.dice.train_d8", description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--steps", type=int, default=DEFAULT_STEPS)
    ap.add_argument("--scenes", type=int, default=DEFAULT_SCENES, help="training scenes (a tenth more calibrate)")
    ap.add_argument("--size", type=int, default=d8read.DEFAULTS["size"],
                    help="crop side in pixels, a multiple of 16 (written to the manifest config, which the reader follows)")
    ap.add_argument("--blank-eight", type=float, default=DEFAULT_BLANK_EIGHT,
                    help="share of training dice whose eighth face is blank, read as 8 (rule EK-R-D8-BLANK)")
    ap.add_argument("--minutes", type=float, default=DEFAULT_MINUTES, help="time cap of the training")
    ap.add_argument("--quick", action="store_true", help="a tiny smoke run (minutes -> seconds)")
    ap.add_argument("--out", type=Path, default=None, help="models folder (default models/)")
    args = ap.parse_args(argv)
    if args.size % 16 or args.size < 32:
        ap.error("--size must be a multiple of 16, at least 32")
    if args.quick:
        args.steps, args.scenes = 5, 100
    import torch

    from companion.workshop.dice.nets import ClassifierExport, export_onnx

    torch.set_num_threads(THREADS)
    cv2.setNumThreads(1)
    started = time.time()
    out = args.out or models_dir()
    out.mkdir(parents=True, exist_ok=True)
    size = args.size
    x, y, u = d8_crop_set(args.seed, args.scenes, size, cache=not args.quick, blank_eight=args.blank_eight)
    x_cal, y_cal, _ = d8_crop_set(args.seed + 500, max(50, args.scenes // 10), size, cache=not args.quick,
                                  blank_eight=args.blank_eight)
    net, steps = train(torch, x, y, u, args.seed, args.steps, args.minutes, size)

    logits = predict_logits(torch, net, x_cal, batch=256)
    temperature = fit_temperature(logits, y_cal)
    ece_before, ece_after = ece(softmax(logits), y_cal), ece(softmax(logits / temperature), y_cal)

    path = out / "dice_d8_reader.onnx"
    net = net.to(memory_format=torch.contiguous_format)
    export_onnx(ClassifierExport(net, temperature), torch.zeros(2, 3, size, size), path, ["crops"], ["logits"],
                {"crops": {0: "n"}, "logits": {0: "n"}})
    import onnxruntime

    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    probe = x_cal[:32]
    got = session.run(None, {"crops": classify.normalize(probe)})[0]
    want = predict_logits(torch, net, probe, batch=256) / temperature
    if not np.allclose(got, want, atol=1e-3):
        raise SystemExit(f"exported d8 reader differs from torch by {np.abs(got - want).max():.4f}")

    x_test, y_test, u_test = d8_crop_set(TEST_SEED, 100 if args.quick else 1000, size, cache=False)
    test_probs = d8read.D8Reader(session).probabilities_of_crops(x_test)
    figures = held_out_figures(test_probs, y_test, u_test)
    figures["blank_eight_read_as_8"] = blank_eight_figure(session, size, args.quick)
    from companion.workshop.dice import evaluate

    evaluate.confusion_png(confusion(test_probs, y_test), out / "dice_d8_reader_confusion.png",
                           "d8 reader (rows: truth)", NAMES)
    baseline = _classifier_baseline(out, u_test, y_test, args.quick)

    command = "python -m companion.workshop.dice.train_d8 " + " ".join(argv if argv is not None else sys.argv[1:])
    entry = {"file": path.name, "sha256": sha256(path), "bytes": path.stat().st_size,
             "config": {**d8read.DEFAULTS, "size": size}, "classes": [f"d8:{n}" if n != "unreadable" else "none" for n in NAMES],
             "temperature": temperature, "ece_calibration_before": ece_before, "ece_calibration_after": ece_after,
             "trained_steps": steps, "training_crops": int(len(x)), "training_scenes": args.scenes, "seed": args.seed,
             "blank_eight": args.blank_eight,
             "command": command.strip(), "threads": THREADS, "torch": torch.__version__,
             "wall_seconds": round(time.time() - started, 1), "test": figures}
    manifest_path = out / MANIFEST
    manifest = json.loads(manifest_path.read_text()) if manifest_path.is_file() else {}
    manifest[d8read.MODEL_NAME] = entry  # the detector's and classifier's entries stay as they are
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    write_card(out, entry, figures, baseline, command.strip())
    if os.environ.get("COMPANION_SKIP_CARDS") != "1":  # the reader's d8 figures change with this model
        evaluate.write_cards(out, manifest)
    print(f"wrote {path} in {entry['wall_seconds'] / 60:.1f} min: d8 read right {100 * figures['read_right']:.1f}% "
          f"of fresh synthetic crops (temperature {temperature:.2f}, ECE {ece_before:.3f} -> {ece_after:.3f})")
    return 0


def blank_eight_figure(session, size: int, quick: bool) -> float | None:
    """Share of fresh dice showing a blank eighth face (readable) that the reader reads as 8 (None: no such die)."""
    x, y, _ = d8_crop_set(TEST_SEED + 1, 50 if quick else 400, size, cache=False, blank_eight=1.0)
    eights = y == 7
    if not eights.any():
        return None  # (a quick run's few scenes)
    probs = d8read.D8Reader(session).probabilities_of_crops(x[eights])
    return float(np.mean(probs.argmax(1) == 7))


def _classifier_baseline(out: Path, upright, y, quick: bool) -> dict | None:
    """The same dice read by the dice classifier alone (its most likely d8 value), for the card."""
    from companion.vision.classify import Classifier
    from companion.vision.errors import ModelError
    from companion.vision.models import backend_session

    try:
        session, entry, _ = backend_session("dice_classifier", "onnxruntime", 1, out)
    except ModelError:
        return None
    classifier = Classifier(session, entry.get("config", {}))
    x, y2, _ = d8_crop_set(TEST_SEED, 100 if quick else 1000, classifier.config["size"], cache=False)
    if not np.array_equal(y, y2):  # the same scenes, cut at the classifier's size
        return None
    logits = np.concatenate([session.run([classify.LOGITS], {classifier.input: classify.normalize(x[i:i + 500])})[0]
                             for i in range(0, len(x), 500)])
    probs = np.zeros((len(x), len(NAMES)), np.float32)
    probs[:, :d8read.UNREADABLE] = softmax(logits[:, d8read.D8_CLASSES])
    return held_out_figures(probs, y, upright)


if __name__ == "__main__":
    sys.exit(main())
