"""Stage 1: find dice in a frame with a tiny CenterNet-style network (heatmap of die centres + size).

The frame is letterboxed so its long side is ``long_side`` pixels (padded to a multiple of 32).
The network outputs, at stride 4, ``heat`` (probability of a die centre) and ``reg`` (sub-cell
offset x/y and log box width/height in cells). Peaks are local 3x3 maxima above ``threshold``; a find
nested well inside a much larger one is dropped (``drop_contained``).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.imageio import shrink

STRIDE = 4
# Peaks above ``threshold`` are candidate dice; one below ``sure_above`` counts only when the classifier
# reads its face confidently (reader.DiceReader): the low threshold finds small and oblique dice.
DEFAULTS = {"long_side": 416, "threshold": 0.15, "sure_above": 0.3, "max_dice": 64}


@dataclass
class Detection:
    box: tuple[float, float, float, float]  # x, y, w, h in frame pixels
    score: float


def preprocess(img: np.ndarray, long_side: int) -> tuple[np.ndarray, float]:
    """BGR uint8 frame -> (1x3xHxW float32 in 0..1, scale frame->input)."""
    h, w = img.shape[:2]
    scale = long_side / max(h, w)
    small = shrink(img, scale)
    nh, nw = small.shape[:2]
    H, W = -(-nh // 32) * 32, -(-nw // 32) * 32
    if (H, W) != (nh, nw):  # pad right and bottom with black
        small = cv2.copyMakeBorder(small, 0, H - nh, 0, W - nw, cv2.BORDER_CONSTANT, value=0)
    # one C pass for scale, float conversion and HWC -> NCHW
    return cv2.dnn.blobFromImage(small, 1 / 255.0), scale


def decode(heat: np.ndarray, reg: np.ndarray, scale: float, threshold: float, max_dice: int) -> list[Detection]:
    """Network outputs (1x1xhxw, 1x4xhxw) -> detections in frame pixels."""
    hm = heat[0, 0]
    peaks = (hm >= cv2.dilate(hm, np.ones((3, 3), np.uint8))) & (hm >= threshold)
    ys, xs = np.nonzero(peaks)
    if len(xs) > max_dice:
        keep = np.argsort(-hm[ys, xs])[:max_dice]
        ys, xs = ys[keep], xs[keep]
    # all peaks at once (a per-peak loop cost about 1 ms for 25 dice)
    ox, oy, lw, lh = reg[0, :, ys, xs].T.astype(np.float64)
    cx, cy = (xs + ox) * STRIDE / scale, (ys + oy) * STRIDE / scale
    bw, bh = np.exp(np.clip(np.stack([lw, lh]), -3, 6)) * STRIDE / scale
    boxes = np.stack([cx - bw / 2, cy - bh / 2, bw, bh], 1).tolist()
    out = [Detection(tuple(b), float(sc)) for b, sc in zip(boxes, hm[ys, xs].tolist(), strict=True)]
    out.sort(key=lambda d: -d.score)
    return suppress_duplicates(out)


def suppress_duplicates(dets: list[Detection]) -> list[Detection]:
    """Drop a weaker detection whose centre lies deep inside a stronger one."""
    kept: list[Detection] = []
    for d in dets:
        x, y, w, h = d.box
        cx, cy = x + w / 2, y + h / 2
        if any(abs(cx - (k.box[0] + k.box[2] / 2)) < 0.3 * k.box[2] and abs(cy - (k.box[1] + k.box[3] / 2))
               < 0.3 * k.box[3] for k in kept):
            continue
        kept.append(d)
    return drop_contained(kept)


def drop_contained(dets: list[Detection], area_ratio: float = 2.5, inner: float = 0.4) -> list[Detection]:
    """Drop a detection whose centre lies well inside a much larger one that scores at least half as
    high: dice do not nest, and on a large, close die a single pip (or a side face) otherwise looks like
    a small die showing 1. (A faint large box around a group of dice does not remove the dice.)"""
    if len(dets) < 2:
        return dets
    b = np.array([d.box for d in dets], np.float64)
    score = np.array([d.score for d in dets], np.float64)
    cx, cy, area = b[:, 0] + b[:, 2] / 2, b[:, 1] + b[:, 3] / 2, b[:, 2] * b[:, 3]
    inside = (np.abs(cx[:, None] - cx[None]) < inner * b[None, :, 2]) \
        & (np.abs(cy[:, None] - cy[None]) < inner * b[None, :, 3]) & (area[None] >= area_ratio * area[:, None]) \
        & (score[None] >= 0.5 * score[:, None])
    return [d for d, nested in zip(dets, inside.any(axis=1), strict=True) if not nested]


class Detector:
    """Runs the detector ONNX model (onnxruntime session) with its config."""

    def __init__(self, session, config: dict | None = None):
        self.session = session
        self.config = {**DEFAULTS, **(config or {})}
        self.input = session.get_inputs()[0].name

    def __call__(self, img: np.ndarray) -> list[Detection]:
        x, scale = preprocess(img, self.config["long_side"])
        heat, reg = self.session.run(["heat", "reg"], {self.input: x})
        return decode(heat, reg, scale, self.config["threshold"], self.config["max_dice"])
