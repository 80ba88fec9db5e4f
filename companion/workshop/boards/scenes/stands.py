"""Character stands (Eagle Kingdoms) seen from above: drawing them, for scenes and for training.

The look is a ruling (docs/vision-notes.md): a character stands on a small plastic base
and shows, towards the camera, a cream card ``CARD_MM`` (w x h) with a coloured frame, its point value
1-10 printed large in the upper part and a little figure below; a Jester shows a jester's cap
instead of a number. A stand may be turned by up to ``MAX_YAW_DEG`` on its piece.

:func:`card_image` draws one upright card at any resolution (the reader's templates use it);
:func:`draw_stand` puts a stand, turned and with its shadow and base, on a texture in board mm.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

CARD_MM = (18.0, 21.0)  # width, height of the card as the camera sees it
MAX_YAW_DEG = 20.0
STAND_LABELS: tuple[int | str, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, "jester")
FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_COMPLEX_SMALL,
)
FRAME_COLOURS = ((40, 40, 150), (120, 50, 30), (40, 110, 40), (110, 40, 110), (30, 90, 150), (90, 30, 60))  # saturated: a frame must not look like paper


@dataclass(frozen=True)
class StandStyle:
    """How one physical set of characters is printed (a set keeps one style)."""

    font: int = cv2.FONT_HERSHEY_DUPLEX
    weight: float = 1.0  # stroke thickness factor
    italic: bool = False
    ink: tuple[int, int, int] = (25, 20, 20)
    paper: tuple[int, int, int] = (215, 232, 242)
    frame: tuple[int, int, int] = (40, 40, 150)
    figure: tuple[int, int, int] = (60, 90, 170)
    rendition: int = 1  # 2: white card, rounded frame, a shield below the value, a two-pointed cap

    @classmethod
    def random2(cls, rng: np.random.Generator) -> StandStyle:
        """The second rendition's characters: white card, a deep frame, coloured ink, another typeface."""
        paper = tuple(int(v) for v in (rng.uniform(232, 248), rng.uniform(236, 250), rng.uniform(238, 252)))
        ink = ((110, 40, 20), (30, 30, 120), (20, 20, 20), (40, 70, 20))[int(rng.integers(4))]
        return cls(
            font=int((cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, cv2.FONT_HERSHEY_SCRIPT_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX)[rng.integers(3)]),
            weight=float(rng.uniform(1.0, 1.5)),
            italic=False,
            ink=ink,
            paper=paper,  # type: ignore[arg-type]
            frame=((20, 20, 110), (90, 30, 20), (20, 80, 30), (80, 20, 80))[int(rng.integers(4))],
            figure=(30, 140, 190),
            rendition=2,
        )

    @classmethod
    def random(cls, rng: np.random.Generator) -> StandStyle:
        paper = tuple(int(v) for v in (rng.uniform(195, 230), rng.uniform(220, 240), rng.uniform(232, 250)))
        ink = tuple(int(v) for v in rng.uniform(10, 60, 3))
        figure = tuple(int(v) for v in rng.uniform(40, 190, 3))
        return cls(
            font=int(FONTS[rng.integers(len(FONTS))]),
            weight=float(rng.uniform(0.8, 1.4)),
            italic=bool(rng.random() < 0.25),
            ink=ink,  # type: ignore[arg-type]
            paper=paper,  # type: ignore[arg-type]
            frame=FRAME_COLOURS[int(rng.integers(len(FRAME_COLOURS)))],
            figure=figure,  # type: ignore[arg-type]
        )


def card_image(label: int | str, style: StandStyle, px_per_mm: float) -> np.ndarray:
    """The upright card face, BGR, ``round(CARD_MM * px_per_mm)`` pixels."""
    s = float(px_per_mm)
    w, h = max(4, round(CARD_MM[0] * s)), max(4, round(CARD_MM[1] * s))
    img = np.empty((h, w, 3), np.uint8)
    img[:] = style.frame
    b = max(1, round(1.2 * s))
    if style.rendition == 2:  # rounded inner corners, a small shield below the value
        r = max(1, round(1.6 * s))
        cv2.rectangle(img, (b + r, b), (w - b - 1 - r, h - b - 1), style.paper, -1)
        cv2.rectangle(img, (b, b + r), (w - b - 1, h - b - 1 - r), style.paper, -1)
        for cx, cy in ((b + r, b + r), (w - b - 1 - r, b + r), (b + r, h - b - 1 - r), (w - b - 1 - r, h - b - 1 - r)):
            cv2.circle(img, (cx, cy), r, style.paper, -1, cv2.LINE_AA)
        shield = np.array([[6.6, 14.6], [11.4, 14.6], [11.4, 16.8], [9, 19.0], [6.6, 16.8]]) * s
        cv2.fillPoly(img, [np.round(shield * 16).astype(np.int32)], style.figure, cv2.LINE_AA, shift=4)
    else:
        img[b : h - b, b : w - b] = style.paper
        # the little figure in the lower part (a robe and a head)
        fig = np.array([[9, 16.2], [6.2, 18.8], [11.8, 18.8]]) * s
        cv2.fillPoly(img, [np.round(fig * 16).astype(np.int32)], style.figure, cv2.LINE_AA, shift=4)
        cv2.circle(img, (round(9 * s * 16), round(15.9 * s * 16)), round(1.1 * s * 16), style.figure, -1, cv2.LINE_AA, shift=4)
    if label == "jester":
        (_jester_cap2 if style.rendition == 2 else _jester_cap)(img, s, style)
    else:
        _number(img, str(label), s, style)
    return img


def _number(img: np.ndarray, text: str, s: float, style: StandStyle) -> None:
    """The value, fitted into the box 2..16 x 2.3..12.3 mm of the card (upper part)."""
    box_w, box_h = 14.0 * s, 10.0 * s
    thick = max(1, round(style.weight * 1.1 * s * (0.8 if len(text) == 2 else 1.0)))
    (tw, th), _ = cv2.getTextSize(text, style.font, 1.0, thick)
    scale = min(box_w / max(tw, 1), box_h / max(th, 1))
    (tw, th), base = cv2.getTextSize(text, style.font, scale, thick)
    layer = np.zeros(img.shape[:2], np.uint8)
    org = (round((img.shape[1] - tw) / 2), round(2.3 * s + (box_h + th) / 2))
    cv2.putText(layer, text, org, style.font, scale, 255, thick, cv2.LINE_AA)
    if style.italic:
        M = np.float32([[1, -0.2, 0.2 * org[1] - 0.1 * th], [0, 1, 0]])
        layer = cv2.warpAffine(layer, M, (layer.shape[1], layer.shape[0]))
    a = layer.astype(np.float32)[..., None] / 255.0
    img[:] = (img * (1 - a) + np.array(style.ink, np.float32) * a).astype(np.uint8)


def _jester_cap(img: np.ndarray, s: float, style: StandStyle) -> None:
    """A jester's cap with three points and bells, where the number would be."""
    base_y = 11.0
    pts = np.array([[4.5, base_y], [3.6, 4.2], [7.2, 8.0], [9.0, 3.4], [10.8, 8.0], [14.4, 4.2], [13.5, base_y]]) * s
    cv2.fillPoly(img, [np.round(pts * 16).astype(np.int32)], style.ink, cv2.LINE_AA, shift=4)
    for x, y in ((3.6, 4.2), (9.0, 3.4), (14.4, 4.2)):  # bells, clear of the frame
        cv2.circle(img, (round(x * s * 16), round(y * s * 16)), round(1.0 * s * 16), style.frame, -1, cv2.LINE_AA, shift=4)
    cv2.rectangle(img, (round(4 * s), round(base_y * s)), (round(14 * s), round((base_y + 1.5) * s)), style.ink, -1)


def _jester_cap2(img: np.ndarray, s: float, style: StandStyle) -> None:
    """The second rendition's Jester: a two-pointed cap with bells, drawn in the ink colour."""
    pts = np.array([[5.0, 11.5], [3.4, 3.6], [9.0, 8.4], [14.6, 3.6], [13.0, 11.5]]) * s
    cv2.fillPoly(img, [np.round(pts * 16).astype(np.int32)], style.ink, cv2.LINE_AA, shift=4)
    for x, y in ((3.8, 3.8), (14.2, 3.8)):
        cv2.circle(img, (round(x * s * 16), round(y * s * 16)), round(1.1 * s * 16), style.figure, -1, cv2.LINE_AA, shift=4)


def draw_stand(
    tex: np.ndarray,
    to_px: Callable[[np.ndarray], np.ndarray],
    centre_mm: tuple[float, float],
    label: int | str,
    style: StandStyle,
    yaw_deg: float = 0.0,
    shadow: tuple[float, float] = (1.5, 2.0),
) -> None:
    """Paint one stand on ``tex`` (BGR, board mm -> px by ``to_px``) centred at ``centre_mm``."""
    c = np.asarray(centre_mm, np.float64)
    p0, p1 = to_px(np.array([c, c + (1.0, 0.0)]))
    s = float(np.linalg.norm(p1 - p0))  # texture px per mm
    card = card_image(label, style, s)
    h, w = card.shape[:2]
    a = np.deg2rad(yaw_deg)
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    # card px -> texture px: centre the card on the stand's centre, turned by yaw
    A = np.c_[R, p0 - R @ np.array([(w - 1) / 2, (h - 1) / 2])]
    # base (plastic) peeking out under the card's lower edge, then a soft shadow, then the card
    base_c = p0 + R @ np.array([0, (CARD_MM[1] / 2 + 0.5) * s])
    axes = (round(CARD_MM[0] * 0.55 * s), round(2.2 * s))
    cv2.ellipse(tex, (round(base_c[0]), round(base_c[1])), axes, float(yaw_deg), 0, 360, (35, 35, 40), -1, cv2.LINE_AA)
    H, W = tex.shape[:2]
    ones = np.full((h, w), 255, np.uint8)
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    for offset, alpha in ((np.asarray(shadow) * s, 0.45), (np.zeros(2), None)):
        placed = corners @ A[:, :2].T + A[:, 2] + offset
        pad = 2 * s + 2 if alpha is not None else 2
        x0, y0 = np.floor(placed.min(axis=0) - pad).astype(int)
        x1, y1 = np.ceil(placed.max(axis=0) + pad).astype(int)
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
        if x1 <= x0 or y1 <= y0:
            continue
        A2 = A.copy()
        A2[:, 2] += offset - (x0, y0)
        m = cv2.warpAffine(ones, A2, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderValue=0)
        roi = tex[y0:y1, x0:x1]
        if alpha is not None:  # soft shadow
            k = max(3, int(2 * s) | 1)
            a = cv2.GaussianBlur(m, (k, k), 0).astype(np.float32)[..., None] / 255.0
            roi[:] = (roi * (1 - alpha * a)).astype(np.uint8)
        else:
            warped = cv2.warpAffine(card, A2, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            a = m.astype(np.float32)[..., None] / 255.0
            roi[:] = (roi * (1 - a) + warped * a).astype(np.uint8)
