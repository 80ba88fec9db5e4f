"""Confidence calibration: temperature scaling and expected calibration error (numpy only)."""

from __future__ import annotations

import math

import numpy as np


def softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def ece(probs: np.ndarray, labels: np.ndarray, bins: int = 15) -> float:
    """Expected calibration error of the top class, equal-width bins."""
    if not len(labels):
        return 0.0
    conf = probs.max(1)
    correct = probs.argmax(1) == labels
    e = 0.0
    edges = np.linspace(0, 1, bins + 1)
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        m = (conf > lo) & (conf <= hi)
        if m.any():
            e += m.mean() * abs(correct[m].mean() - conf[m].mean())
    return float(e)


def fit_temperature(logits: np.ndarray, labels: np.ndarray) -> float:
    """The temperature minimizing the negative log-likelihood on a held-out set (grid search)."""
    best = (math.inf, 1.0)
    for t in np.exp(np.linspace(math.log(0.3), math.log(5), 80)):
        p = softmax(logits / t)
        nll = float(-np.log(p[np.arange(len(labels)), labels] + 1e-12).mean())
        best = min(best, (nll, float(t)))
    return best[1]
