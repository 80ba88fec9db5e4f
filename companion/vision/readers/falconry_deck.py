"""The Falconry deck as the reader knows it: card kinds, nobles, table cell ids and how one card looks.

Shared by the reader (:mod:`companion.vision.readers.falconry` draws its emblem templates with
:func:`draw_card`) and the workshop's scene painter, which lays whole tables of these cards. The
deck's look is data (``readers/falconry.json``, ``cards``): a white-bordered card in the noble's colour
with the noble's letter in two corners and a white emblem in the middle whose shape tells the kind.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from importlib import resources
from typing import Any

import cv2
import numpy as np

KINDS = ("marker", "bird", "falconer")
NOBLES = ("H", "E", "G", "P")
_CELL_RE = re.compile(r"^x(-?\d+)y(-?\d+)$")


def deck_config() -> dict[str, Any]:
    """The ``cards`` subtree of ``readers/falconry.json``: the deck's look in card millimetres."""
    text = resources.files("companion.vision.readers").joinpath("falconry.json").read_text(encoding="utf-8")
    return json.loads(text)["cards"]


def cell_id(tx: int, ty: int) -> str:
    return f"x{tx}y{ty}"


def parse_cell(region: Any) -> tuple[int, int] | None:
    if isinstance(region, list | tuple) and len(region) == 2:
        return int(region[0]), int(region[1])
    m = _CELL_RE.match(str(region))
    return (int(m.group(1)), int(m.group(2))) if m else None


def card_points(local_mm: np.ndarray, centre: tuple[float, float], angle_deg: float, size: tuple[float, float]) -> np.ndarray:
    """Card-local mm (origin top-left) -> board mm for a card centred at ``centre`` turned by ``angle_deg``."""
    a = np.deg2rad(angle_deg)
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    pts = np.asarray(local_mm, np.float64) - (size[0] / 2, size[1] / 2)
    return pts @ R.T + centre


def draw_card(
    tex: np.ndarray,
    to_px: Callable[[np.ndarray], np.ndarray],
    px_per_mm: float,
    centre: tuple[float, float],
    angle_deg: float,
    noble: str,
    kind: str,
    deck: Mapping[str, Any],
) -> None:
    """One card, face up, into the texture ``tex`` (board mm -> px by ``to_px``)."""
    size = tuple(deck["size_mm"])
    w, h = size
    b = float(deck["border_mm"])

    def poly(local: np.ndarray, colour) -> None:
        px = to_px(card_points(local, centre, angle_deg, size))
        cv2.fillPoly(tex, [np.round(px * 16).astype(np.int32)], tuple(int(c) for c in colour), cv2.LINE_AA, shift=4)

    rect = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    poly(rect, deck["paper_bgr"])
    poly(np.array([[b, b], [w - b, b], [w - b, h - b], [b, h - b]], np.float64), deck["nobles"][noble]["bgr"])
    ax, ay = deck["emblems"][kind]["axes_mm"]
    t = np.linspace(0, 2 * np.pi, 36, endpoint=False)
    poly(np.c_[w / 2 + ax * np.cos(t), h / 2 + ay * np.sin(t)], deck["paper_bgr"])
    size_mm = float(deck["letter_mm"])
    scale = size_mm * px_per_mm / 22.0  # Hershey simplex capitals are about 22 units tall at scale 1
    thick = max(1, round(1.2 * px_per_mm))
    for corner in ((b + 1.5, b + 1.5 + size_mm), (w - b - 1.5 - 0.75 * size_mm, h - b - 1.5)):
        x, y = to_px(card_points(np.array([corner]), centre, angle_deg, size))[0]
        cv2.putText(tex, noble, (round(x), round(y)), cv2.FONT_HERSHEY_SIMPLEX, scale, tuple(deck["paper_bgr"]), thick, cv2.LINE_AA)
