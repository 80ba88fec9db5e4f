"""Telling apart the dice of one game (e.g. Verzauberte Eulen's head, body and eye dice).

A one-time "show me each die" registration stores each die's body colour statistics in Lab
(median and spread of the crop's dominant pixels); afterwards each reading is given the identity of
the registered die of its kind that it resembles most, each identity used at most once per frame.

    reg = DieRegistry()
    reg.register("head", frame, box, kind="d6")     # one frame per die, or several to average
    reg.save("dice.json"); reg = DieRegistry.load("dice.json")
    reader = DiceReader(registry=reg)                # readings now carry .identity
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from companion.storage import read_small_text, write_atomic

SHADE_MIN = 0.4
"""The deepest shadow (light let through) in which a die is still told by its colour: deeper, a coloured die's colour
comes near a black die's."""

Relight = Callable[[np.ndarray], np.ndarray]  # BGR floats seen now -> as seen in another light


def body_lab(frame: np.ndarray, box, light: Relight | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Median and spread (MAD) in Lab of a die's body: the central part of its box, pips excluded
    (the pixels farthest from the median are dropped twice). ``light``: the colours seen now as they would look
    in the light the dice were shown in (:meth:`DieRegistry.identify_all`)."""
    x, y, w, h = (int(round(v)) for v in box)
    H, W = frame.shape[:2]
    x0, y0 = max(0, x + w // 5), max(0, y + h // 5)
    x1, y1 = min(W, x + w - w // 5), min(H, y + h - h // 5)
    if x1 <= x0 or y1 <= y0:
        return np.zeros(3), np.full(3, 255.0)
    patch = frame[y0:y1, x0:x1]
    if light is not None:
        patch = np.clip(light(patch.astype(np.float32)), 0, 255).astype(np.uint8)
    lab = cv2.cvtColor(patch, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)
    keep = lab
    for _ in range(2):
        med = np.median(keep, 0)
        d = np.abs(keep - med).sum(1)
        keep = keep[d <= np.quantile(d, 0.7)] if len(keep) > 10 else keep
    med = np.median(keep, 0)
    mad = np.median(np.abs(keep - med), 0)
    return med, mad


@dataclass
class RegisteredDie:
    name: str
    kind: str
    lab: list[float]
    spread: list[float]
    samples: int = 1


@dataclass
class DieRegistry:
    dice: list[RegisteredDie] = field(default_factory=list)
    max_distance: float = 6.0  # in units of (spread + 4) per channel; above it: unknown die

    def register(self, name: str, frame: np.ndarray, box, kind: str = "d6") -> RegisteredDie:
        med, mad = body_lab(frame, box)
        for d in self.dice:
            if d.name == name:  # another look at the same die: running mean
                n = d.samples
                d.lab = list((np.array(d.lab) * n + med) / (n + 1))
                d.spread = list((np.array(d.spread) * n + mad) / (n + 1))
                d.samples = n + 1
                return d
        d = RegisteredDie(name, kind, [float(v) for v in med], [float(v) for v in mad])
        self.dice.append(d)
        return d

    def distances(self, frame: np.ndarray, box, kind: str | None = None, light: Relight | None = None) -> dict[str, float]:
        med, _ = body_lab(frame, box, light)
        return {d.name: _lab_distance(med, d) for d in self.dice if kind is None or d.kind == kind}

    def identify(self, frame: np.ndarray, box, kind: str | None = None) -> str | None:
        dist = self.distances(frame, box, kind)
        if not dist:
            return None
        name = min(dist, key=dist.get)
        return name if dist[name] <= self.max_distance else None

    def identify_all(self, frame: np.ndarray, readings, light: Relight | None = None) -> None:
        """Set .identity on each reading, each registered die used at most once (closest pairs first).
        ``light`` maps the frame's colours (BGR floats) to the light the dice were shown in: a dim room takes the blue
        body die nearer the black eye die than its own colour (bench table, Eulen seed 27 r2: 115 of 194 dice)."""
        pairs = []
        for i, r in enumerate(readings):
            r.identity = None
            for name, dist in self.distances(frame, r.box, r.kind, light).items():
                if dist <= self.max_distance:
                    pairs.append((dist, i, name))
        used_r, used_n = set(), set()
        for _, i, name in sorted(pairs):
            if i not in used_r and name not in used_n:
                readings[i].identity = name
                used_r.add(i)
                used_n.add(name)

    def save(self, path) -> None:
        """Written atomically (temporary file, fsync, rename, folder fsync): a crash keeps the old file or the new."""
        write_atomic(Path(path), json.dumps({"max_distance": self.max_distance,
                                             "dice": [d.__dict__ for d in self.dice]}, indent=2) + "\n")

    @classmethod
    def load(cls, path) -> DieRegistry:
        """Read and check every field; ValueError (saying which field) for a damaged file, OSError if unreadable."""
        try:
            data = json.loads(read_small_text(Path(path)))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            raise ValueError(f"{Path(path).name} is not a dice registry (not JSON)") from None
        return cls.from_dict(data, Path(path).name)

    @classmethod
    def from_dict(cls, data, source: str = "dice registry") -> DieRegistry:
        if not isinstance(data, dict) or not isinstance(data.get("dice"), list):
            raise ValueError(f"{source}: expected an object with a 'dice' list")
        limit = data.get("max_distance", 6.0)
        if not _finite(limit) or limit <= 0:
            raise ValueError(f"{source}: max_distance must be a positive number, got {limit!r}")
        dice = []
        for i, d in enumerate(data["dice"]):
            where = f"{source}: dice[{i}]"
            if not isinstance(d, dict) or not isinstance(d.get("name"), str) or not isinstance(d.get("kind"), str):
                raise ValueError(f"{where} needs a name and a kind")
            for key in ("lab", "spread"):
                v = d.get(key)
                if not (isinstance(v, list) and len(v) == 3 and all(_finite(x) for x in v)):
                    raise ValueError(f"{where}.{key} must be 3 numbers, got {v!r}")
            samples = d.get("samples", 1)
            if not (isinstance(samples, int) and not isinstance(samples, bool) and samples >= 1):
                raise ValueError(f"{where}.samples must be a whole number >= 1, got {samples!r}")
            dice.append(RegisteredDie(d["name"], d["kind"], [float(x) for x in d["lab"]],
                                      [float(x) for x in d["spread"]], samples))
        return cls(dice, float(limit))


def _lab_distance(med: np.ndarray, die: RegisteredDie) -> float:
    """How far a die's body colour seen now is from a registered die's, in units of (spread + 4) per channel: in the
    light it was shown in, or as it looks in a shadow (its lightness and its colour, both measured from black, taken
    down by one factor: Lab's lightness and colour both scale as the cube root of the light). A shadow over a third of
    the board took the red head die and the blue body die for nobody's, and the blue one nearly for the black eye die
    (bench table, Eulen seed 55 r1: 3 of 5 throws whose roles were asked)."""
    lab, scale = np.array(die.lab), np.array(die.spread) + 4.0
    shade = float(np.clip(med[0] / max(lab[0], 1.0), SHADE_MIN, 1.0))
    shaded = np.array([lab[0] * shade, *(128.0 + shade * (lab[1:] - 128.0))])
    return min(_weighted(med - lab, scale), _weighted(med - shaded, scale))


def _weighted(diff: np.ndarray, scale: np.ndarray) -> float:
    # lightness counts half: it changes with the light, hue much less
    return float(np.sqrt(((diff / scale * np.array([0.5, 1.0, 1.0])) ** 2).sum()))


def _finite(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
