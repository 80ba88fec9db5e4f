"""Boards with their pieces, and dice thrown onto and beside them: the frames that measure
:func:`companion.vision.dice_context.filter_dice` (``companion bench dice-on-board``) and its tests.

A :class:`DiceCase` is one camera set-up of one game: the frame *before* the roll (the board with its
pieces, no dice) and the frame *after* (the same, with the thrown dice drawn in, or with nothing thrown),
each with its own sensor noise, under one light. The board's pieces come from a state along a seeded
simulated game, drawn by the game's scene painter (:mod:`companion.workshop.boards.scenes`); the dice
by the dice reader's own renderer (:func:`companion.workshop.dice.synth.render_die`), sized in board
millimetres at the spot they land, lit from one side, with a soft shadow.

Where a die lands is part of the truth: ``"free-region"`` (a space of the board that holds no piece),
``"felt"`` (the board between its spaces), ``"piece"`` (a space that holds a piece: the die lies
against it or on it) or ``"beside"`` (the table next to the board).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from companion.vision.boardmap import BoardMap, load_board_map
from companion.vision.readers import Observation

DIE_MM = {"d6": 16.0, "d8": 13.0, "magpie": 16.0}  # the top face's edge (the d8: its triangle's side)
GAMES = ("eagle-kingdoms", "falconry", "verzauberte-eulen", "mighty-magpies")
PLACES = ("free-region", "felt", "piece", "beside")
LIGHTS = ("as-rendered", "warm", "cool", "dim", "shadow")


@dataclass(frozen=True)
class ThrownDie:
    kind: str
    value: int | str
    box: tuple[int, int, int, int]  # x, y, w, h of the whole die in the frame
    place: str  # one of PLACES
    region: str | None = None
    top_cos: float = 1.0  # cosine of the upward face's normal with the line of sight (synth.DieInScene)


@dataclass
class DiceCase:
    game: str
    board: BoardMap
    before: np.ndarray  # the frame before the roll: pieces, no dice
    image: np.ndarray  # the frame after it (with ``dice``; without, when nothing was thrown)
    homography: np.ndarray  # true board mm -> image px
    settled: Observation  # the board's reading before the roll (its truth)
    dice: list[ThrownDie] = field(default_factory=list)
    expected: dict[str, int] = field(default_factory=dict)
    light: str = "as-rendered"


@dataclass(frozen=True)
class Game:
    name: str
    kinds: tuple[str, ...]  # the dice a roll throws (vision kinds)
    states: Callable[[int, int], list[Any]]
    scene: Callable[[Any], Mapping[str, list[Any]]]  # what a perfect reader reports
    paint: Callable[[Any], Mapping[str, Any]]  # what the painter gets
    render: Callable[..., Any]


def games() -> dict[str, Game]:
    """The four boxed games: how to sample their states and draw their boards (imported on demand)."""
    from companion.referee import eagle_kingdoms as ek
    from companion.referee import mighty_magpies as mm
    from companion.referee import verzauberte_eulen as ve
    from companion.workshop.boards.bench import eagle_kingdoms as ek_bench
    from companion.workshop.boards.bench import falconry as fa_bench
    from companion.workshop.boards.bench import mighty_magpies as mm_bench
    from companion.workshop.boards.bench import verzauberte_eulen as ve_bench
    from companion.workshop.boards.scenes import eagle_kingdoms as ek_scene
    from companion.workshop.boards.scenes import falconry as fa_scene
    from companion.workshop.boards.scenes import mighty_magpies as mm_scene
    from companion.workshop.boards.scenes import verzauberte_eulen as ve_scene

    return {
        "eagle-kingdoms": Game("eagle-kingdoms", ("d6", "d6"), ek_bench.sample_states, ek.scene_from_state,
                               ek.scene_from_state, ek_scene.render),
        # Falconry throws no dice; dice on its table (another game's, a stray one) must still be found
        "falconry": Game("falconry", ("d6", "d6"), fa_bench.sample_states, lambda sa: sa[1].scene_from_state(sa[0]),
                         lambda sa: sa[1].paint_scene(sa[0]), fa_scene.render),
        "verzauberte-eulen": Game("verzauberte-eulen", ("d6", "d6", "d6"), ve_bench.sample_states,
                                  ve.scene_from_state, ve.scene_from_state, ve_scene.render),
        "mighty-magpies": Game("mighty-magpies", ("magpie", "magpie"), mm_bench.sample_states, mm.scene_from_state,
                               mm.scene_from_state, mm_scene.render),
    }


def board_of(game: str) -> BoardMap:
    from companion.data import bundled

    return load_board_map(bundled("calibration", "boards", f"{game}.json"))


# -- light ------------------------------------------------------------------------------------------


def relight(image: np.ndarray, light: str, rng: np.random.Generator) -> np.ndarray:
    """The frame under ``light``: warm tungsten (B x0.7, R x1.15), cool daylight (B x1.15, R x0.85), dim
    (x0.55) or a soft shadow over about a third of the frame (x0.5 at its darkest)."""
    img = image.astype(np.float32)
    if light == "warm":
        img *= np.array([0.7, 1.0, 1.15], np.float32)
    elif light == "cool":
        img *= np.array([1.15, 1.0, 0.85], np.float32)
    elif light == "dim":
        img *= 0.55
    elif light == "shadow":
        h, w = img.shape[:2]
        angle = rng.uniform(0, 2 * math.pi)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        u = (np.cos(angle) * (xx - w / 2) + np.sin(angle) * (yy - h / 2)) / max(w, h)
        edge = rng.uniform(0.1, 0.25)  # the shadow covers the side of the frame beyond this line
        shade = 1.0 - 0.5 / (1.0 + np.exp(-(u - edge) / 0.03))
        img *= shade[..., None]
    elif light != "as-rendered":
        raise ValueError(f"unknown light {light!r}; expected one of {', '.join(LIGHTS)}")
    return np.clip(img, 0, 255).astype(np.uint8)


def _noisy(image: np.ndarray, rng: np.random.Generator, sigma: float = 2.0) -> np.ndarray:
    return np.clip(image.astype(np.float32) + rng.normal(0, sigma, image.shape), 0, 255).astype(np.uint8)


# -- dice -------------------------------------------------------------------------------------------


def px_per_mm(H: np.ndarray, at_mm: Sequence[float]) -> float:
    """The board's scale at a point: the square root of the homography's local area ratio."""
    x, y = float(at_mm[0]), float(at_mm[1])
    pts = np.array([[[x, y]], [[x + 1, y]], [[x, y + 1]]], np.float64)
    p = cv2.perspectiveTransform(pts, H).reshape(-1, 2)
    (ax, ay), (bx, by) = p[1] - p[0], p[2] - p[0]
    return math.sqrt(abs(float(ax * by - ay * bx)))


def paste_die(image: np.ndarray, rng: np.random.Generator, kind: str, value: int | str, centre_px: Sequence[float],
              edge_px: float, view_tilt: float, light: np.ndarray, info: dict | None = None
              ) -> tuple[int, int, int, int] | None:
    """Draw one die (:func:`companion.workshop.dice.synth.render_die`, which fills ``info``) with its soft
    shadow, centred at ``centre_px``; its box in the frame, or None when it could not be drawn inside the frame."""
    from companion.workshop.dice.synth import random_material, render_die

    out = render_die(rng, kind, value, edge_px, view_tilt, light, random_material(rng), info=info)
    if out is None:
        return None
    sprite = out[0]
    sh, sw = sprite.shape[:2]
    h, w = image.shape[:2]
    x0, y0 = int(round(centre_px[0] - sw / 2)), int(round(centre_px[1] - sh / 2))
    if x0 < 0 or y0 < 0 or x0 + sw > w or y0 + sh > h:
        return None
    img = image.astype(np.float32)
    alpha = sprite[..., 3]
    # the shadow: the silhouette pushed away from the light, blurred, darkening what lies under it
    off = (-light[:2] / max(float(light[2]), 0.3) * edge_px * 0.3).astype(int)
    shadow = np.zeros((h, w), np.float32)
    sx, sy = x0 + int(off[0]), y0 - int(off[1])
    a0, b0, a1, b1 = max(0, sx), max(0, sy), min(w, sx + sw), min(h, sy + sh)
    if a1 > a0 and b1 > b0:
        shadow[b0:b1, a0:a1] = (alpha[b0 - sy:b1 - sy, a0 - sx:a1 - sx] > 0.02).astype(np.float32)
    shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, edge_px * 0.12))
    img *= (1 - 0.4 * shadow)[..., None]
    region = img[y0:y0 + sh, x0:x0 + sw]
    a = alpha[..., None]
    behind = region * (0.4 + 0.6 * sprite[..., :3] / 255.0)  # translucent bodies tint what is behind
    mixed = np.where(a >= 0.999, sprite[..., :3], sprite[..., :3] * a + behind * (1 - a))
    cover = np.clip(a * 4, 0, 1)
    img[y0:y0 + sh, x0:x0 + sw] = region * (1 - cover) + mixed * cover
    image[:] = np.clip(img, 0, 255).astype(np.uint8)
    ys, xs = np.nonzero(alpha > 0.1)
    if not len(xs):
        return None
    return x0 + int(xs.min()), y0 + int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)


def _occupied(scene: Mapping[str, list[Any]]) -> set[str]:
    """Regions with something standing on them (Eagle Kingdoms' flat puzzle pieces are the board's surface)."""
    return {rid for rid, pieces in scene.items()
            if any(not (isinstance(p, dict) and set(p) == {"piece"}) for p in pieces or [])}


def _landing(board: BoardMap, H: np.ndarray, size: tuple[int, int], place: str, occupied: set[str],
             rng: np.random.Generator, taken: list[np.ndarray]) -> tuple[np.ndarray, str | None] | None:
    """A board point (mm) of the kind ``place`` that lies in the frame and apart from the dice already there."""
    W, Hh = size
    x0, y0, x1, y1 = board.extent_mm()
    bw, bh = board.size_mm
    outline = cv2.perspectiveTransform(board.board_corners_mm().reshape(-1, 1, 2), H).astype(np.float32)
    marker_quads = [f.corners_mm() for f in board.fiducials]
    for _ in range(400):
        if place == "beside":
            p = np.array([rng.uniform(x0 - 120, x1 + 120), rng.uniform(y0 - 120, y1 + 120)])
        else:
            p = np.array([rng.uniform(0, bw), rng.uniform(0, bh)])
        px = cv2.perspectiveTransform(p.reshape(1, 1, 2), H).reshape(2)
        s = px_per_mm(H, p)
        margin = 24 * s
        if not (margin <= px[0] <= W - margin and margin <= px[1] <= Hh - margin):
            continue
        if any(np.linalg.norm(p - q) < 30 for q in taken):
            continue
        if any(abs(p[0] - q[:, 0].mean()) < 40 and abs(p[1] - q[:, 1].mean()) < 40 for q in marker_quads):
            continue  # a die on a marker hides it: not what these frames measure
        region = board.region_at(*p)
        if place == "beside":
            if cv2.pointPolygonTest(outline, (float(px[0]), float(px[1])), True) > -18 * s:
                continue
            return p, None
        inside = 12 <= p[0] <= bw - 12 and 12 <= p[1] <= bh - 12
        if not inside:
            continue
        if place == "felt" and region is None:
            # keep clear of every space by a die's half width, so the die lies on the felt alone
            if all(board.region_at(p[0] + dx, p[1] + dy) is None for dx in (-9, 0, 9) for dy in (-9, 0, 9)):
                return p, None
        elif place == "free-region" and region is not None and region.id not in occupied:
            if all(board.region_at(p[0] + dx, p[1] + dy) is region for dx in (-8, 8) for dy in (-8, 8)):
                return p, region.id
        elif place == "piece" and region is not None and region.id in occupied:
            return p, region.id
    return None


def throw(image: np.ndarray, board: BoardMap, H: np.ndarray, rng: np.random.Generator, kinds: Sequence[str],
          places: Sequence[str], occupied: set[str]) -> list[ThrownDie]:
    """Draw dice of ``kinds`` onto ``image``, one at each of ``places`` (a place with no free spot in view
    is skipped); the dice that were drawn."""
    from companion.vision.classes import COLOUR_FACES

    size = (image.shape[1], image.shape[0])
    light = np.array([rng.normal(0, 0.5), rng.normal(0, 0.5), 1.0])
    light /= np.linalg.norm(light)
    taken: list[np.ndarray] = []
    out: list[ThrownDie] = []
    for kind, place in zip(kinds, places, strict=True):
        spot = _landing(board, H, size, place, occupied, rng, taken)
        if spot is None:
            continue
        p, region = spot
        value: int | str = str(rng.choice(COLOUR_FACES)) if kind == "magpie" else int(rng.integers(1, 9 if kind == "d8" else 7))
        centre = cv2.perspectiveTransform(p.reshape(1, 1, 2), H).reshape(2)
        tilt = math.radians(min(50.0, _view_angle(H, size, p)))
        info: dict = {}
        box = paste_die(image, rng, kind, value, centre, DIE_MM[kind] * px_per_mm(H, p), tilt, light, info)
        if box is not None:
            taken.append(p)
            out.append(ThrownDie(kind, value, box, place, region, float(info.get("top_cos", 1.0))))
    return out


def _view_angle(H: np.ndarray, size: tuple[int, int], p: np.ndarray) -> float:
    from companion.vision.pose import view_angle_deg

    return view_angle_deg(H, size, p)


# -- cases ------------------------------------------------------------------------------------------


def cases(game: str, n: int, seed: int, *, lights: Sequence[str] = LIGHTS, with_dice: bool = True,
          places: Sequence[str] | None = None) -> list[DiceCase]:
    """``n`` camera set-ups of ``game``, states along seeded games, light cycling through ``lights``.
    With ``with_dice`` each throws the game's dice, landing in turn on a free region, the felt, a piece
    and beside the board (``places`` fixes where), otherwise the frame after shows the same board again."""
    g = games()[game]
    board = board_of(game)
    states = g.states(n, seed)
    rng = np.random.default_rng((seed, len(game)))
    out = []
    for i, state in enumerate(states):
        truth = g.scene(state)
        scene, _ = g.render(board, g.paint(state), rng)
        light = lights[i % len(lights)]
        lit = relight(scene.image, light, rng)
        before, after = _noisy(lit, rng), _noisy(lit, rng)
        dice: list[ThrownDie] = []
        if with_dice:
            where = list(places) if places else [PLACES[(i + k) % len(PLACES)] for k in range(len(g.kinds))]
            dice = throw(after, board, scene.homography, rng, g.kinds, where, _occupied(truth))
        expected: dict[str, int] = {}
        for k in g.kinds:
            expected[k] = expected.get(k, 0) + 1
        out.append(DiceCase(game, board, before, after, scene.homography, Observation.from_scene(truth), dice,
                            expected, light))
    return out



def labelled_frames(n: int, seed: int, games: Sequence[str] = GAMES):
    """``(image, dice)`` for the dice detector's training (issue 21): per game ``n`` set-ups, each once
    with nothing thrown -- the board's pieces and markers as hard negatives, every find there is wrong --
    and once with the game's dice thrown (``dice``: their boxes, kinds, values and ``top_cos``). The
    benchmark (``companion bench dice-on-board``) draws seeds below 1000: train on others."""
    for game in games:
        for case in cases(game, n, seed):
            yield case.before, []
            yield case.image, list(case.dice)
