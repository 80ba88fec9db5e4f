"""Train the stand classifier (point value 1-10 or Jester) on synthetic stands; export ONNX.

Usage::

    python -m companion.workshop.boards.train_stands [--samples 60000] [--epochs 10] [--seed 0] [--out models]

Needs the ``train`` extra (CPU torch). Each sample goes through the reader's own path: a stand
(random style: six Hershey font faces, stroke weight, italic, colours) is painted on felt, on a
puzzle piece or on a table at 2-3 px/mm, seen by a camera at 0.9-1.4 px/mm (a quarter at 1.4-3 px/mm,
the kingdom scan's range; turned, slightly
tilted, light gain and gradient, noise, blur), rectified back to the reader's scale with a small
pose error, found by :func:`companion.vision.readers.stands.find_cards` and cut out upright. Writes
``models/stand_classifier.onnx``, its entry in ``models/stands_manifest.json`` (sha256, bytes,
accuracy on held-out samples) and the model card ``models/stand_classifier.md``. CPU: a few minutes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from companion.vision.models import models_dir, sha256
from companion.vision.readers.stands import (
    CANON_PX_PER_MM,
    LABELS,
    MANIFEST,
    MODEL_NAME,
    PATCH_H,
    PATCH_W,
    card_patches,
    find_cards,
)
from companion.workshop.boards.scenes.stands import MAX_YAW_DEG, StandStyle, draw_stand

READ_PX_PER_MM = 1.0  # the scale readers find cards at (the rectified board canvas)
BACKGROUNDS = ((40, 95, 35), (20, 160, 225), (20, 110, 220), (35, 35, 190), (30, 60, 150), (60, 20, 170), (45, 80, 120))


def synth_sample(rng: np.random.Generator, read_px_per_mm: float = READ_PX_PER_MM) -> tuple[np.ndarray, int] | None:
    """One (patch, label index) through the reader's path, or None when no card was found."""
    label_idx = int(rng.integers(len(LABELS)))
    style = StandStyle.random(rng)
    span = 44.0  # mm of table around the stand
    seen = float(rng.uniform(0.9, 1.4) if rng.random() < 0.75 else rng.uniform(1.4, 3.0))  # board / kingdom scan
    tex_s = float(rng.choice([2.0, 3.0])) if seen <= 1.4 else 4.0
    n = round(span * tex_s)
    tex = np.empty((n, n, 3), np.uint8)
    tex[:] = BACKGROUNDS[int(rng.integers(len(BACKGROUNDS)))]
    if rng.random() < 0.5:  # a second colour (piece edge / felt) across part of the patch
        cut = int(rng.integers(n // 4, n))
        tex[:, cut:] = BACKGROUNDS[int(rng.integers(len(BACKGROUNDS)))]
    centre = np.array([span / 2, span / 2]) + rng.normal(0, 0.8, 2)
    draw_stand(tex, lambda p: np.asarray(p, np.float64) * tex_s - 0.5, tuple(centre), LABELS[label_idx], style, float(rng.uniform(-MAX_YAW_DEG, MAX_YAW_DEG)))
    tex = cv2.GaussianBlur(tex, (0, 0), 0.5 * tex_s / seen)
    # texture px -> frame px: scale, turn, a little shear (perspective, locally)
    a = rng.uniform(-np.pi, np.pi)
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    S = np.array([[1 + rng.uniform(-0.08, 0.08), rng.uniform(-0.06, 0.06)], [0, 1 + rng.uniform(-0.08, 0.08)]])
    L = R @ S * (seen / tex_s)
    size = round(span * seen * 1.5)
    A = np.c_[L, np.array([size / 2, size / 2]) - L @ np.array([n / 2, n / 2])]
    frame = cv2.warpAffine(tex, A, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT).astype(np.float32)
    gain = rng.uniform(0.7, 1.2) * (1 + rng.uniform(-0.25, 0.25))
    frame *= gain
    if rng.random() < 0.7:
        frame = cv2.GaussianBlur(frame, (0, 0), float(rng.uniform(0.2, 0.8)))
    frame += rng.normal(0, rng.uniform(1, 4), frame.shape).astype(np.float32)
    frame = np.clip(frame, 0, 255).astype(np.uint8)
    # back to a top-down canvas at the reader's scale, with a small pose error
    if seen > 1.4:  # the kingdom scan finds cards in the photo itself, at its own scale
        read_px_per_mm = seen
    canvas_n = round(span * read_px_per_mm)
    err = rng.normal(0, 0.3, 2) * read_px_per_mm
    # canvas px -> texture px -> frame px
    C = np.array([[tex_s / read_px_per_mm, 0, err[0]], [0, tex_s / read_px_per_mm, err[1]], [0, 0, 1]])
    M = np.vstack([A, [0, 0, 1]]) @ C
    # the board reader samples its canvas nearest-pixel; the kingdom scan reads the photo as it is
    interp = cv2.INTER_NEAREST if seen <= 1.4 else cv2.INTER_LINEAR
    canvas = cv2.warpPerspective(frame, M, (canvas_n, canvas_n), flags=interp | cv2.WARP_INVERSE_MAP)
    cards = find_cards(canvas, read_px_per_mm)
    if not cards:
        return None
    mid = canvas_n / 2
    card = min(cards, key=lambda c: (c.centre_px[0] - mid) ** 2 + (c.centre_px[1] - mid) ** 2)
    # the crop comes from the frame itself (canvas px -> frame px), as the reader does
    return card_patches(frame, [card], read_px_per_mm, M)[0], label_idx


def make_dataset(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, int]:
    rng = np.random.default_rng(seed)
    xs, ys, missed = [], [], 0
    while len(xs) < n:
        s = synth_sample(rng)
        if s is None:
            missed += 1
            continue
        xs.append(s[0])
        ys.append(s[1])
    return np.stack(xs), np.asarray(ys, np.int64), missed


def build_net():
    import torch.nn as nn

    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),  # 13 x 18
        nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),  # 6 x 9
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),  # 3 x 4
        nn.Flatten(), nn.Dropout(0.1), nn.Linear(32 * 3 * 4, 48), nn.ReLU(), nn.Linear(48, len(LABELS)),
    )


def train(samples: int, epochs: int, seed: int, out: Path) -> dict:
    import torch
    import torch.nn as nn

    torch.manual_seed(seed)
    torch.set_num_threads(1)
    t0 = time.time()
    x, y, missed = make_dataset(samples, seed)
    xv, yv, _ = make_dataset(max(2000, samples // 10), seed + 1000)
    t_data = time.time() - t0
    net = build_net()
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    steps = epochs * ((len(x) + 127) // 128)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    X, Y = torch.from_numpy(x[:, None]), torch.from_numpy(y)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        net.train()
        perm = torch.randperm(len(X))
        total = 0.0
        for i in range(0, len(X), 128):
            idx = perm[i : i + 128]
            xb = X[idx]
            if epoch < epochs - 1:  # mild extra noise
                xb = xb + 0.05 * torch.randn_like(xb)
            loss = loss_fn(net(xb), Y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        print(f"epoch {epoch + 1}/{epochs}: loss {total / len(X):.4f}", flush=True)
    net.eval()

    class WithSoftmax(nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, z):
            return torch.softmax(self.inner(z), dim=1)

    model = WithSoftmax(net).eval()
    with torch.no_grad():
        pv = model(torch.from_numpy(xv[:, None])).numpy()
    acc = float((pv.argmax(1) == yv).mean())
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{MODEL_NAME}.onnx"
    torch.onnx.export(
        model, torch.zeros(1, 1, PATCH_H, PATCH_W), str(path), input_names=["patches"], output_names=["probs"],
        dynamic_axes={"patches": {0: "n"}, "probs": {0: "n"}}, opset_version=13, dynamo=False,
    )
    import onnxruntime as ort

    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    po = sess.run(None, {"patches": xv[:, None]})[0]
    max_diff = float(np.abs(po - pv).max())
    entry = {
        "file": path.name,
        "sha256": sha256(path),
        "bytes": path.stat().st_size,
        "labels": [str(v) for v in LABELS],
        "input": {"shape": [1, PATCH_H, PATCH_W], "px_per_mm": CANON_PX_PER_MM, "normalise": "(x - mean) / (std + 4)"},
        "trained": {"samples": int(len(x)), "epochs": epochs, "seed": seed, "cards_not_found": missed},
        "heldout": {"samples": int(len(xv)), "accuracy": round(acc, 5), "onnx_vs_torch_max_diff": max_diff},
        "seconds": {"data": round(t_data, 1), "total": round(time.time() - t0, 1)},
    }
    mpath = out / MANIFEST
    manifest = json.loads(mpath.read_text()) if mpath.exists() else {}
    manifest[MODEL_NAME] = entry
    mpath.write_text(json.dumps(manifest, indent=2) + "\n")
    write_card(out, entry)
    return entry


def write_card(out: Path, entry: dict) -> None:
    text = f"""# Model card: stand_classifier

- **Task**: the point value printed on an Eagle Kingdoms character stand (1-10) or a Jester, from an
  upright grey crop of the card's printed part ({PATCH_W} x {PATCH_H} px = 18 x 13 mm at {CANON_PX_PER_MM} px/mm), normalised
  (x - mean) / (std + 4). Output: softmax over {", ".join(str(v) for v in LABELS)}.
- **Architecture**: 3 conv blocks (8, 16, 32 channels, batch norm, max pool), dense 48, dense 11;
  {entry["bytes"]} bytes of ONNX (opset 13). sha256 `{entry["sha256"]}`.
- **Training data**: {entry["trained"]["samples"]} synthetic stands (`companion/workshop/boards/train_stands.py`, seed
  {entry["trained"]["seed"]}): six OpenCV Hershey font faces, stroke weight 0.8-1.4, 25 % italic, random ink, paper,
  frame and figure colours; painted on felt, puzzle-piece colours or table at 2-3 px/mm, turned up to
  {MAX_YAW_DEG:.0f} degrees on the stand, seen at 0.9-1.4 px/mm (a quarter at 1.4-3) with any camera turn, light gain 0.5-1.5,
  noise sigma 1-4, blur up to 0.8 px, rectified back with a 0.3 mm pose error and found by the reader's
  own card finder. No real photographs.
- **Held-out accuracy** (fresh synthetic samples, seed +1000): {entry["heldout"]["accuracy"]:.4f} on
  {entry["heldout"]["samples"]} stands; ONNX vs torch max difference {entry["heldout"]["onnx_vs_torch_max_diff"]:.1e}.
- **Limits**: trained only on the synthetic stand look of docs/vision-notes.md; a real set
  printed in another font or layout needs photos of its characters added to training (or a teach step).
  Confidence below 0.9 marks a reading uncertain.
- **Reproduce**: `python -m companion.workshop.boards.train_stands` (CPU, about {max(1, round(entry["seconds"]["total"] / 60))} min).
"""
    (out / f"{MODEL_NAME}.md").write_text(text)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.workshop.boards.train_stands", description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=60000)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    entry = train(args.samples, args.epochs, args.seed, Path(args.out) if args.out else models_dir())
    print(json.dumps(entry))
    return 0


if __name__ == "__main__":
    sys.exit(main())
