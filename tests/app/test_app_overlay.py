"""The board overlays at phone size and for colour-blind eyes (issue 22, item 3): every mark kind drawn on each
game's own board picture stands out from the board under deuteranopia and protanopia simulations (Machado et
al. 2009, severity 1), and die values and mark letters are at least 24 px tall at a phone's scale.

The contrast measured is WCAG's ratio between the mark's most contrasting stroke and the board right under
it, in the simulated picture. A bare green ring on Eagle Kingdoms' green felt (the old legal-move mark) is
the control that must fail: the check can tell a weak mark from a strong one.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.app import overlay, theme
from companion.app.demo import DemoScript, board_geometry, demo_view
from companion.app.demo_render import renderer_for

GAMES = ("eagle-kingdoms", "falconry", "verzauberte-eulen", "mighty-magpies")
# Machado, Oliveira & Fernandes (2009), severity 1.0, on linear RGB
SIMULATIONS = {
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    "protanopia": np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
}
LEAST_CONTRAST = 3.0  # WCAG's least contrast for graphics and large text
MARK_KINDS = ("piece", "target", "selected", "proposed", "illegal", "unsure")


def _linear(bgr: np.ndarray) -> np.ndarray:
    c = bgr[..., ::-1].astype(np.float64) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _luminance(linear_rgb: np.ndarray) -> np.ndarray:
    return linear_rgb @ np.array([0.2126, 0.7152, 0.0722])


def simulated_luminance(bgr: np.ndarray, kind: str) -> np.ndarray:
    rgb = np.clip(_linear(bgr) @ SIMULATIONS[kind].T, 0.0, 1.0)
    return _luminance(rgb)


def contrast(a: float, b: float) -> float:
    hi, lo = max(a, b), min(a, b)
    return (hi + 0.05) / (lo + 0.05)


def mark_contrast(board: np.ndarray, layer: np.ndarray, kind: str) -> float:
    """The mark's best stroke against the board under it: the highest contrast between any drawn pixel's
    simulated luminance and the median board luminance of the ring just outside the mark."""
    drawn = layer[..., 3] > 200
    if not drawn.any():
        return 0.0
    composed = overlay.blend(board, layer)
    under = cv2.dilate(drawn.astype(np.uint8), np.ones((9, 9), np.uint8)) > 0
    around = under & ~drawn
    lum_board, lum_mark = simulated_luminance(board, kind), simulated_luminance(composed, kind)
    background = float(np.median(lum_board[around]))
    return max(contrast(float(v), background) for v in np.percentile(lum_mark[drawn], (2, 50, 98)))


@pytest.fixture(scope="module")
def boards():
    """Each game's demo picture at its first step, at a phone's shown size (the layer's scale)."""
    out = {}
    for game in GAMES:
        script = DemoScript.load(game=game)
        frame = renderer_for(script)(script, 0)
        out[game] = frame
    return out


def _layer(frame, game, marks, scale=1.0):
    h, w = frame.shape[:2]
    return overlay.layer((w, h), [], marks, board_geometry(game), demo_view(game), scale=scale, unit=1.0)


@pytest.mark.parametrize("simulation", sorted(SIMULATIONS))
def test_every_mark_stands_out_on_every_board_for_colour_blind_eyes(boards, simulation):
    weakest = {}
    for game, frame in boards.items():
        spaces = list(board_geometry(game))[::7][:4]
        for kind in MARK_KINDS:
            layer = _layer(frame, game, dict.fromkeys(spaces, kind))
            weakest[(game, kind)] = mark_contrast(frame, layer, simulation)
    bad = {k: round(v, 2) for k, v in weakest.items() if v < LEAST_CONTRAST}
    assert not bad, bad


def test_a_bare_green_ring_on_the_green_felt_is_what_the_check_refuses(boards):
    frame = boards["eagle-kingdoms"]
    geometry, H = board_geometry("eagle-kingdoms"), demo_view("eagle-kingdoms")
    layer = np.zeros((*frame.shape[:2], 4), np.uint8)
    felt = [p for p in list(geometry)[::7][:4]]
    for x, y in overlay.project(H, [geometry[p] for p in felt]):
        cv2.circle(layer, (int(x), int(y)), 15, (40, 150, 60, 255), 3)  # green, no outline
    assert mark_contrast(frame, layer, "deuteranopia") < LEAST_CONTRAST
    strong = _layer(frame, "eagle-kingdoms", dict.fromkeys(felt, "target"))
    assert mark_contrast(frame, strong, "deuteranopia") >= LEAST_CONTRAST


def test_no_mark_relies_on_colour_alone():
    shapes = {theme.MARKS[k]["shape"] for k in MARK_KINDS}
    assert len(shapes) == len(MARK_KINDS)  # each kind its own shape
    assert all(theme.MARKS[k]["letter"] for k in ("selected", "proposed", "illegal", "unsure"))


def _text_rows(layer: np.ndarray) -> int:
    rows = np.flatnonzero((layer[..., 3] > 0).any(axis=1))
    return int(rows.max() - rows.min() + 1) if len(rows) else 0


def test_die_values_and_mark_letters_are_at_least_24_px_on_a_phone():
    """A 640 px camera frame shown 420 px wide (a phone upright: scale 0.66, 1 px per dp): the digits of a die's
    value and a mark's letter are 24 px tall, the ring 24 px across at least."""
    scale = 420 / 640
    die = overlay.layer((640, 480), [{"box": (300, 300, 30, 30), "value": 4}], {}, {}, None, scale=scale, unit=1.0)
    box_top = int(300 * scale - 4)
    digits = die[:box_top - 2]  # the value, written above its box
    assert _text_rows(digits) >= theme.MARK_TEXT - 1
    assert theme.MARK_TEXT >= 24 and 2 * theme.MARK_RADIUS_MIN >= 24
    geometry = {"a": (0.0, 0.0), "b": (200.0, 0.0)}
    mark = overlay.layer((640, 480), [], {"a": "illegal"}, geometry, np.array([[1, 0, 200], [0, 1, 200], [0, 0, 1.0]]),
                         scale=scale, unit=1.0)
    assert _text_rows(mark) >= 2 * theme.MARK_RADIUS_MIN
