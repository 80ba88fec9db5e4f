"""Stage 1: find dice in a frame with a tiny CenterNet-style network (heatmap of die centres + size).

The frame is letterboxed so its long side is ``long_side`` pixels (padded to a multiple of 32).
The network outputs, at stride 4, ``heat`` (probability of a die centre) and ``reg`` (sub-cell
offset x/y and log box width/height in cells). Peaks are local 3x3 maxima above ``threshold``.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

STRIDE = 4
DEFAULTS = {"long_side": 416, "threshold": 0.3, "max_dice": 64}


@dataclass
class Detection:
    box: tuple[float, float, float, float]  # x, y, w, h in frame pixels
    score: float


def preprocess(img: np.ndarray, long_side: int) -> tuple[np.ndarray, float]:
    """BGR uint8 frame -> (1x3xHxW float32 in 0..1, scale frame->input)."""
    h, w = img.shape[:2]
    scale = long_side / max(h, w)
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    small = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    H, W = -(-nh // 32) * 32, -(-nw // 32) * 32
    canvas = np.zeros((H, W, 3), np.float32)
    canvas[:nh, :nw] = small.astype(np.float32) * (1 / 255.0)
    return np.ascontiguousarray(canvas.transpose(2, 0, 1)[None]), scale


def decode(heat: np.ndarray, reg: np.ndarray, scale: float, threshold: float, max_dice: int) -> list[Detection]:
    """Network outputs (1x1xhxw, 1x4xhxw) -> detections in frame pixels."""
    hm = heat[0, 0]
    peaks = (hm >= cv2.dilate(hm, np.ones((3, 3), np.uint8))) & (hm >= threshold)
    ys, xs = np.nonzero(peaks)
    if len(xs) > max_dice:
        keep = np.argsort(-hm[ys, xs])[:max_dice]
        ys, xs = ys[keep], xs[keep]
    out = []
    for y, x in zip(ys, xs, strict=True):
        ox, oy, lw, lh = reg[0, :, y, x]
        cx, cy = (x + ox) * STRIDE / scale, (y + oy) * STRIDE / scale
        bw, bh = np.exp(np.clip([lw, lh], -3, 6)) * STRIDE / scale
        out.append(Detection((float(cx - bw / 2), float(cy - bh / 2), float(bw), float(bh)), float(hm[y, x])))
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
    return kept


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
