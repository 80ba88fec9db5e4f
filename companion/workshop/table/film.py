"""A whole seeded game as a camera video, frame by frame, with the true journal beside it.

    film = GameFilm("eagle-kingdoms", seed=3)
    film.write_truth("true.jsonl")                 # the oracle: the true game in the journal format
    for image in film.frames():                    # BGR frames (JPEG-decoded unless quality=None)
        ...

What the camera sees (issue 20, item 8): one camera for the whole game (a random pose of the board, as
the board benchmark frames it, and a phone's wide lens: barrel distortion, ``lens_k1``), the board drawn
by the game's scene painter (:mod:`companion.workshop.boards.scenes`, rendition ``rendition``) once per
position, and on top of it, frame by frame:

- dice thrown onto and beside the board (the dice renderer of :mod:`companion.workshop.dice.synth`):
  tumbling and motion-blurred for a few frames, then lying still showing the true roll until a hand
  picks them up for the next throw;
- a hand (and arm, from the nearest edge of the picture) reaching in to make each move the board
  shows, blurred while it moves; the position changes under it;
- a slower family with ``pace`` and ``hover``: each stretch of a hand's way, and each tumbling frame of a
  throw, takes ``pace`` frames (the pieces moved are in the hand on the way), and the hand stays still for
  ``hover`` frames over the piece it takes and where it puts it;
- the light, changed now and then between turns while nothing else moves: warm, cool, dim, or a soft
  shadow over part of the board;
- sensor noise and JPEG compression (1280x720 JPEG by default).

Between events the table lies still long enough for the pipeline to settle (``STILL``). The frames are
made on demand (a whole game of Eagle Kingdoms is a few thousand); positions are painted once and cached.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.games.core import Action, Game, State
from companion.games.playout import playout
from companion.games.registry import load_game
from companion.referee.dice import wanted_dice
from companion.vision.intrinsics import CameraProfile
from companion.vision.sprites import blend_sprite

STILL = {"start": 8, "roll": 13, "move": 6, "unseen": 2, "light": 4, "end": 30}
"""Still frames after each event (a roll needs the dice tracker's 5, or 10 when a die reads unsure). The game's end
stays in view 3 s, as a family looks at the final score: with 0.8 s a last roll read unsure, asked once the hands had
left, left the last move unseen (Eulen seed 99 upright, box 43:45: the move was proposed 2.4 s after it was made)."""
DIE_MM = {"d6": 16.0, "d8": 18.0, "colour": 18.0}
BESIDE_BOARD_MM = 200.0
"""How far beyond the board's edge a die thrown beside it lands, at most (within the family's reach)."""
READER_KIND = {"d6": "d6", "d8": "d8", "colour": "magpie"}
LIGHTS = ("neutral", "warm", "cool", "dim", "shadow")
CHANGE_MARGIN_MM = {"eagle-kingdoms": 6.0, "mighty-magpies": 45.0, "verzauberte-eulen": 14.0, "falconry": 12.0}
"""How far beyond a region its pieces may lie (a magpie stands 28 mm out from its nest's centre)."""
SKINS = ((120, 160, 220), (80, 110, 160), (50, 70, 100), (170, 190, 230))
LIGHT_DIR = np.array([0.3, -0.4, 1.0]) / np.linalg.norm([0.3, -0.4, 1.0])
PLAYERS = {"eagle-kingdoms": (2, 4), "mighty-magpies": (2, 4), "verzauberte-eulen": (2, 4)}
FALCONRY_MODES = {"duel": 2, "fast-duel": 2, "allied": 3, "truel": 3, "quarrel": 4, "joint": 4}
DIE_COLOURS = {  # body BGR of the dice of a role (the family's set: head, body and eye dice told apart)
    "head": (60, 70, 215), "body": (205, 140, 60), "eye": (35, 35, 35),
}


@dataclass
class Die:
    kind: str  # the game's kind (d6, d8, colour)
    value: Any
    x: float  # centre, ideal image px
    y: float
    material: Any
    sprite: np.ndarray | None = None


@dataclass
class Shot:
    """One frame: the position shown, the dice lying or tumbling, the hand, the light."""

    scene: int
    dice: list[Die] = field(default_factory=list)
    tumbling: bool = False
    hand: tuple[float, float] | None = None  # palm centre, ideal image px
    hand_from: tuple[float, float] | None = None  # where the hand came from (its blur)
    light: tuple[str, float] = ("neutral", 1.0)  # (light, weight towards it from the previous one)
    light_from: str = "neutral"
    step: int = 0  # the true actions done before this frame (its physical events shown)


def _towards(a: tuple[float, float], b: tuple[float, float], t: float) -> tuple[float, float]:
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)


def _lifted(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """The position while a hand carries the pieces of a move: each region keeps only the pieces it still has
    after the move (those that go elsewhere are in the hand, those that come are not put down yet)."""
    out: dict[str, Any] = {}
    for region, pieces in before.items():
        if not isinstance(pieces, list):  # a card's stack (Falconry): it stays unless the move takes it
            if region in after:
                out[region] = pieces
            continue
        left = [json.dumps(p, sort_keys=True) for p in (after.get(region) or [])]
        kept = []
        for piece in pieces or []:
            key = json.dumps(piece, sort_keys=True)
            if key in left:
                left.remove(key)
                kept.append(piece)
        out[region] = kept
    return out


def true_game(name: str, seed: int, players: int | None = None) -> tuple[Game, list[Action], list[State]]:
    """A seeded simulated game: (game, actions, states before each action + the final state)."""
    rng = random.Random(seed)
    module = load_game(name)
    if name == "falconry":
        mode = rng.choice(sorted(FALCONRY_MODES))
        game = module.game_class(players=[f"P{i + 1}" for i in range(FALCONRY_MODES[mode])], mode=mode)
    else:
        lo, hi = PLAYERS[name]
        count = players or rng.randint(lo, hi)
        game = module.game_class(players=[f"P{i + 1}" for i in range(count)])
    state = game.new_initial_state()
    actions: list[Action] = []
    states: list[State] = []

    def keep(st: State, action: Action) -> None:
        states.append(st.clone())
        actions.append(action)

    playout(state, rng, getattr(module, "simulation_policy", None), on_action=keep)
    states.append(state.clone())
    return game, actions, states


class GameFilm:
    """A seeded game and its video (see the module docstring)."""

    def __init__(self, game: str, seed: int, *, players: int | None = None, rendition: int = 1,
                 size: tuple[int, int] = (1280, 720), lens_k1: float = -0.12, light: bool = True,
                 hands: bool = True, quality: int | None = 85, tries: int = 30, pace: int = 1, hover: int = 0,
                 lay_out: bool = False):
        from companion.referee.table_games import table_game

        self.name = game
        self.seed = seed
        self.rendition = rendition
        self.size = size
        self.light = light
        self.hands = hands
        self.quality = quality
        self.pace = max(1, int(pace))  # frames per stretch of a hand's way and per tumbling frame: a slower family
        self.hover = max(0, int(hover))  # frames a hand stays still over the piece it takes and where it puts it
        self.lay_out = lay_out  # the film begins with the empty board, then a hand lays out the set-up
        self.rng = np.random.default_rng(seed)
        self.table = table_game(game)
        self.board = self.table.board_map()
        for attempt in range(tries):
            self.game, self.actions, self.states = true_game(game, seed * 1000 + attempt, players)
            self.offset = self._falconry_offset() if game == "falconry" else None
            if game != "falconry" or self.offset is not None:
                break
        else:
            raise ValueError(f"no seeded Falconry game from seed {seed} fits the camera's view")
        self.camera = self._camera(lens_k1)
        self.homography = self._homography()
        self._to_mm: np.ndarray | None = None  # its inverse, once needed
        self._scenes: list[dict[str, Any]] = []
        self._scene_index: dict[str, int] = {}
        self._renders: dict[int, np.ndarray] = {}
        self._table_image = self._table()
        self._noise = [self.rng.normal(0, s, (size[1], size[0], 3)).astype(np.int16) for s in (1.5, 2.5, 3.5)]
        self._maps = self._lens_maps() if self.camera is not None else None
        self._fields: dict[str, np.ndarray] = {}
        self.materials = self._materials()
        self.shots = self._script()

    # -- the game --------------------------------------------------------------------------------------
    def write_truth(self, path: str | Path) -> Path:
        """The true game as a journal (the oracle of ``companion follow``)."""
        from companion.journal import Session

        session = Session.start(self.game, path)
        try:
            for action in self.actions:
                session.apply(action)
        finally:
            session.close()
        return Path(path)

    @property
    def players(self) -> list[str]:
        return list(self.game.players)

    def _falconry_offset(self) -> tuple[int, int] | None:
        from companion.referee.falconry import engine_stacks
        from companion.referee.falconry_map import table_range

        xs, ys = table_range()
        cells = {c for st in self.states for c in engine_stacks(st)}
        x0, x1 = min(c[0] for c in cells), max(c[0] for c in cells)
        y0, y1 = min(c[1] for c in cells), max(c[1] for c in cells)
        if x1 - x0 + 1 > len(xs) or y1 - y0 + 1 > len(ys):
            return None
        return xs.start - x0 + (len(xs) - (x1 - x0 + 1)) // 2, ys.start - y0 + (len(ys) - (y1 - y0 + 1)) // 2

    # -- the camera --------------------------------------------------------------------------------------
    def _camera(self, k1: float) -> CameraProfile | None:
        if not k1:
            return None
        W, H = self.size
        f = 0.8 * W
        K = np.array([[f, 0, W / 2], [0, f, H / 2], [0, 0, 1.0]])
        return CameraProfile("film wide lens", (W, H), K, np.array([k1, 0.0, 0.0, 0.0, 0.0]))

    def _homography(self) -> np.ndarray:
        from companion.workshop.boards.synth_table import random_homography

        camera = dict(self._scene_module().CAMERA)
        camera["fill"] = (0.8, 0.9)
        return random_homography(self.board, self.rng, self.size, **camera)

    def _scene_module(self) -> Any:
        import importlib

        return importlib.import_module(f"companion.workshop.boards.scenes.{self.name.replace('-', '_')}")

    def px_per_mm(self) -> float:
        corners = cv2.perspectiveTransform(self.board.board_corners_mm().reshape(-1, 1, 2), self.homography).reshape(-1, 2)
        return float(np.linalg.norm(corners[1] - corners[0]) / self.board.size_mm[0])

    def px_per_mm_at(self, x: float, y: float) -> float:
        """The table's scale at ideal image point (x, y): the root of the board plane's local area scale there. A
        die far across the table looks smaller than one near the camera (an oblique phone sees the far side small)."""
        pts = self.to_mm(np.array([[x, y], [x + 1.0, y], [x, y + 1.0]]))
        (ax, ay), (bx, by) = pts[1] - pts[0], pts[2] - pts[0]
        mm_per_px = abs(float(ax * by - ay * bx))
        return 1.0 / float(np.sqrt(max(mm_per_px, 1e-12)))

    def die_px(self, kind: str, x: float, y: float) -> float:
        """A die's side in ideal image px, lying at (x, y) on the table."""
        return DIE_MM.get(kind, 16.0) * self.px_per_mm_at(x, y)

    def to_px(self, pts_mm: np.ndarray) -> np.ndarray:
        return cv2.perspectiveTransform(np.asarray(pts_mm, np.float64).reshape(-1, 1, 2), self.homography).reshape(-1, 2)

    def to_mm(self, pts_px: np.ndarray) -> np.ndarray:
        """Ideal image px to board mm (the inverse of :meth:`to_px`)."""
        if self._to_mm is None:
            self._to_mm = np.linalg.inv(self.homography)
        return cv2.perspectiveTransform(np.asarray(pts_px, np.float64).reshape(-1, 1, 2), self._to_mm).reshape(-1, 2)

    def _lens_maps(self) -> tuple[np.ndarray, np.ndarray]:
        W, H = self.size
        jj, ii = np.meshgrid(np.arange(W, dtype=np.float64), np.arange(H, dtype=np.float64))
        ideal = self.camera.undistort_points(np.c_[jj.ravel(), ii.ravel()]).astype(np.float32)
        return ideal[:, 0].reshape(H, W), ideal[:, 1].reshape(H, W)

    # -- positions ------------------------------------------------------------------------------------------
    def scene_of(self, state: State) -> dict[str, Any]:
        """What the painter draws for ``state`` (Falconry: the stacks' depths and covered cards too)."""
        if self.name == "falconry":
            from companion.referee.falconry import FalconryAdapter

            return FalconryAdapter(self.offset).paint_scene(state)
        return self.table.adapter().scene_from_state(state)

    def _scene_id(self, state: State) -> int:
        return self._index_scene(self.scene_of(state))

    def _index_scene(self, scene: dict[str, Any]) -> int:
        key = json.dumps(scene, sort_keys=True)
        if key not in self._scene_index:
            self._scene_index[key] = len(self._scenes)
            self._scenes.append(scene)
        return self._scene_index[key]

    def _table(self) -> np.ndarray:
        """The table under the board: rendition 2's box lies on a linen cloth (as its board scenes do)."""
        from companion.workshop.boards.synth_table import _table, linen_table

        table = _table if self.rendition == 1 else linen_table
        return table(np.random.default_rng(self.seed), *self.size)

    def render_position(self, index: int) -> np.ndarray:
        """The board with the pieces of position ``index``, on the table, in plain light (cached). Pieces
        that did not change keep their pixels from the position shown before: the painter lays every
        piece with a little random jitter, and a piece nobody touched does not move."""
        if index in self._renders:
            return self._renders[index]
        image = self._paint(index)
        if self._renders:
            last = next(reversed(self._renders))
            mask = self._changed_mask(self._scenes[last], self._scenes[index])
            image = np.where(mask[..., None], image, self._renders[last])
        if len(self._renders) > 6:
            self._renders.pop(next(iter(self._renders)))
        self._renders[index] = image
        return image

    def _changed_mask(self, a: Mapping[str, Any], b: Mapping[str, Any]) -> np.ndarray:
        """Where the pieces of the regions that differ between two positions may lie (ideal image px): each such
        region grown by the margin its pieces may reach beyond it. Grown by a dilation, not by scaling about its
        middle: a region that is not star-shaped (the Verzauberte Eulen cave, an X with four pockets) scaled
        about its middle leaves its pockets out, and an owl put there was drawn cut in half."""
        W, H = self.size
        mask = np.zeros((H, W), np.uint8)
        margin = CHANGE_MARGIN_MM.get(self.name, 10.0)
        for rid in set(a) | set(b):
            if json.dumps(a.get(rid), sort_keys=True) == json.dumps(b.get(rid), sort_keys=True):
                continue
            region = next((r for r in self.board.regions if r.id == rid), None)
            if region is None:
                continue
            if region.polygon_mm is not None:
                pts = np.asarray(region.polygon_mm, np.float64)
            else:
                t = np.linspace(0, 2 * np.pi, 24, endpoint=False)
                pts = np.asarray(region.circle_center_mm) + float(region.radius_mm or 0) * np.c_[np.cos(t), np.sin(t)]
            cv2.fillPoly(mask, [np.round(self.to_px(pts) * 16).astype(np.int32)], 1, cv2.LINE_8, shift=4)
        # the board seen from an angle: the margin at the most magnified place (a generous ring elsewhere)
        radius = int(np.ceil(margin * self.px_per_mm() * 1.3))
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))
        return cv2.dilate(mask, kernel).astype(bool)

    def _paint(self, index: int) -> np.ndarray:
        import inspect

        from companion.workshop.boards.synth_table import board_texture

        module = self._scene_module()
        kwargs: dict[str, Any] = {}
        if "rendition" in inspect.signature(module.painter).parameters:
            kwargs["rendition"] = self.rendition
        elif self.rendition != 1:
            raise ValueError(f"the {self.name} scene painter draws rendition 1 only")
        if self.name == "falconry":
            kwargs["shift_mm"] = (0.0, 0.0)
        paint, _truth = module.painter(self.board, self._scenes[index], np.random.default_rng(self.seed), **kwargs)
        seen = self.px_per_mm()
        tex_s = float(np.clip(np.ceil(seen * 1.5), 2, 8))
        tex, T = board_texture(self.board, tex_s, paint)
        tex = cv2.GaussianBlur(tex, (0, 0), 0.5 * tex_s / max(seen, 1e-6))
        image = self._table_image.copy()
        cv2.warpPerspective(tex, self.homography @ np.linalg.inv(T), self.size, dst=image, flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_TRANSPARENT)
        return image

    # -- the script ------------------------------------------------------------------------------------------
    def _script(self) -> list[Shot]:
        """The frames of the whole game, as shots (cheap); :meth:`frames` draws them."""
        rng = random.Random(self.seed)
        shots: list[Shot] = []
        states, actions = self.states, self.actions
        first = 1 if actions and states[0].is_chance_node() and not wanted_dice(states[0]) else 0
        scene = self._scene_id(states[first])
        dice: list[Die] = []
        light = "neutral"

        def still(n: int) -> None:
            shots.extend(Shot(scene, list(dice), light=(light, 1.0), light_from=light) for _ in range(n))

        def reach(at: int, lying: list[Die], a: tuple[float, float], b: tuple[float, float], stay: int = 0,
                  on_the_way: int | None = None) -> None:
            """The hand from ``a`` to ``b`` in ``pace`` frames over position ``at`` (``on_the_way`` until the last of
            them: the pieces it carries in the hand), then held still there for ``stay`` frames."""
            was = a
            for k in range(1, self.pace + 1):
                now = b if k == self.pace else _towards(a, b, k / self.pace)
                shown = at if k == self.pace or on_the_way is None else on_the_way
                shots.append(Shot(shown, lying, hand=now, hand_from=was, light=(light, 1.0)))
                was = now
            shots.extend(Shot(at, lying, hand=b, light=(light, 1.0)) for _ in range(stay))

        def step(i: int) -> None:  # the shots since the last call show true action i
            for shot in shots[marked[0]:]:
                shot.step = i
            marked[0] = len(shots)

        marked = [0]

        if self.lay_out:
            shots.extend(self._laying_out(scene))
            step(0)  # no action shown yet: a set-up that is an action (Mighty Magpies' deal) is laid by this hand
        still(STILL["start"])
        for i in range(first, len(actions)):
            before, action, after = states[i], actions[i], states[i + 1]
            new_scene = self._scene_id(after)
            specs = wanted_dice(before) if before.is_chance_node() else []
            if specs:
                if dice and self.hands:  # the hand sweeps over the dice and takes them
                    centre = tuple(np.mean([(d.x, d.y) for d in dice], axis=0))
                    edge = self._edge(centre)
                    near = (0.75 * centre[0] + 0.25 * edge[0], 0.75 * centre[1] + 0.25 * edge[1])
                    reach(scene, list(dice), edge, centre)
                    reach(scene, [], centre, near)
                dice = self._throw(specs, action, rng)
                for k in range(3 * self.pace):
                    shots.append(Shot(scene, self._tumbling(dice, k / self.pace, rng), tumbling=True, light=(light, 1.0)))
                still(STILL["roll"])
            if new_scene != scene:
                take, put = self._hand_path(self._scenes[scene], self._scenes[new_scene])
                if self.hands:  # in from the nearest edge, over the piece taken, over where it goes, out
                    start, end = self._edge(take), self._edge(put)
                    come = ((start[0] + take[0]) / 2, (start[1] + take[1]) / 2)
                    leave = ((end[0] + put[0]) / 2, (end[1] + put[1]) / 2)
                    reach(scene, list(dice), start, come)
                    reach(scene, list(dice), come, take, self.hover)
                    carried = self._index_scene(_lifted(self._scenes[scene], self._scenes[new_scene])) if self.pace > 1 else None
                    reach(new_scene, list(dice), take, put, self.hover, carried)
                    reach(new_scene, list(dice), put, leave)
                scene = new_scene
                still(STILL["move"])
            elif not specs:
                still(STILL["unseen"])
            step(i + 1)
            if self.light and after.turn_number != before.turn_number and rng.random() < 0.25:
                new_light = rng.choice([name for name in LIGHTS if name != light])
                shots.append(Shot(scene, list(dice), light=(new_light, 0.5), light_from=light))
                light = new_light
                still(STILL["light"])
        still(STILL["end"])
        step(len(actions))
        return shots

    def _laying_out(self, scene: int) -> list[Shot]:
        """The camera on before the pieces were laid (``lay_out``): the empty board, still, then a hand in over the
        board and out again, leaving the set-up ``scene`` laid."""
        empty = self._index_scene({})
        shots = [Shot(empty) for _ in range(STILL["start"])]
        if self.hands:
            centre = self._middle(list(self._scenes[scene]))
            edge = self._edge(centre)
            shots += [Shot(empty, hand=centre, hand_from=edge), Shot(scene, hand=edge, hand_from=centre)]
        return shots

    def _edge(self, point: tuple[float, float]) -> tuple[float, float]:
        """The nearest edge of the picture from ``point`` (where an arm reaches in from)."""
        W, H = self.size
        x, y = point
        options = [(x, -60.0, y), (x, H + 60.0, H - y), (-60.0, y, x), (W + 60.0, y, W - x)]
        ex, ey, _ = min(options, key=lambda o: o[2])
        return float(ex), float(ey)

    def _hand_path(self, a: Mapping[str, Any], b: Mapping[str, Any]) -> tuple[tuple[float, float], tuple[float, float]]:
        """Where the hand takes pieces and where it puts them down (ideal image px): the middle of the regions
        that lost pieces, and of those that gained some (either of them when the other is none)."""
        def pieces(scene: Mapping[str, Any], r: str) -> list[str]:
            return sorted(json.dumps(p, sort_keys=True) for p in (scene.get(r) or []))

        lost, gained = [], []
        for r in set(a) | set(b):
            was, now = pieces(a, r), pieces(b, r)
            if any(was.count(p) > now.count(p) for p in was):
                lost.append(r)
            if any(now.count(p) > was.count(p) for p in now):
                gained.append(r)
        take = self._middle(lost or gained)
        return take, self._middle(gained) if gained else take

    def _middle(self, regions: list[str]) -> tuple[float, float]:
        centres = [self.board.region(r).center_mm for r in regions if any(q.id == r for q in self.board.regions)]
        if not centres:
            w, h = self.board.size_mm
            centres = [(w / 2, h / 2)]
        px = self.to_px(np.asarray(centres, np.float64))
        return float(px[:, 0].mean()), float(px[:, 1].mean())

    # -- dice -----------------------------------------------------------------------------------------------
    def _materials(self) -> dict[str, Any]:
        """One material per die of the set (alike dice alike; a game's dice told apart differ in colour)."""
        from companion.workshop.dice.synth import Material

        def plain(body: tuple[int, int, int], ink: tuple[int, int, int]) -> Material:
            return Material(np.float32(body), np.float32(ink), 1.0, None, 0.0, "disc", cv2.FONT_HERSHEY_DUPLEX, 0.15)

        out = {"d6": plain((235, 240, 245), (30, 30, 30)), "d8": plain((110, 40, 120), (240, 240, 240)),
               "colour": plain((235, 240, 245), (30, 30, 30))}
        for role, body in DIE_COLOURS.items():
            out[role] = plain(body, (245, 245, 245))
        return out

    def _material(self, spec: Any) -> Any:
        return self.materials.get(spec.role) or self.materials[spec.kind]

    def _throw(self, specs: list[Any], action: Action, rng: random.Random) -> list[Die]:
        """Where the roll's dice come to rest: each on the board or beside it (half and half; beside: within
        :data:`BESIDE_BOARD_MM` of its edge), apart, off the markers, as large as the table is there; faces from the
        true action."""
        from companion.referee.dice import dice_values

        values = dice_values(action)
        placed: list[Die] = []
        W, H = self.size
        board_quad = self.to_px(self.board.board_corners_mm()).astype(np.float32)
        markers = [self.to_px(f.corners_mm()).astype(np.float32) for f in self.board.fiducials]
        scale = self.px_per_mm()
        for spec, value in zip(specs, values, strict=False):
            size = DIE_MM.get(spec.kind, 16.0) * scale
            for _ in range(200):
                on_board = rng.random() < 0.5
                if on_board:
                    u, v = rng.uniform(0.05, 0.95), rng.uniform(0.05, 0.95)
                    w, h = self.board.size_mm
                    x, y = self.to_px(np.array([[u * w, v * h]]))[0]
                else:
                    x, y = rng.uniform(size * 2, W - size * 2), rng.uniform(size * 2, H - size * 2)
                    if cv2.pointPolygonTest(board_quad, (float(x), float(y)), True) > -size:
                        continue
                if any(cv2.pointPolygonTest(m, (float(x), float(y)), True) > -2.5 * size for m in markers):
                    continue
                if all(np.hypot(x - d.x, y - d.y) > 3.5 * size for d in placed):
                    break
            if not on_board:
                x, y = self._within_reach(spec.kind, float(x), float(y), board_quad, markers, placed)
            placed.append(Die(spec.kind, value, x, y, self._material(spec)))
        for die in placed:
            die.sprite = self._die_sprite(die, random.Random(rng.random()))
        return placed

    def _within_reach(self, kind: str, x: float, y: float, board_quad: np.ndarray, markers: list[np.ndarray],
                      placed: list[Die]) -> tuple[float, float]:
        """A die's place beside the board, drawn anywhere in view: drawn again within :data:`BESIDE_BOARD_MM` of the
        board's edge when it lies farther (dice land within the family's reach, and across an oblique view the far
        table is small). The second draw comes from the first one's place, so that a film's light and hands are drawn
        as they were."""
        w, h = self.board.size_mm
        p = self.to_mm(np.array([[x, y]]))[0]
        if float(np.linalg.norm(p - np.clip(p, (0.0, 0.0), (w, h)))) <= BESIDE_BOARD_MM:
            return x, y
        W, H = self.size
        local = random.Random(f"{x:.4f},{y:.4f}")
        for _ in range(200):
            u, v = local.uniform(-BESIDE_BOARD_MM, w + BESIDE_BOARD_MM), local.uniform(-BESIDE_BOARD_MM, h + BESIDE_BOARD_MM)
            if 0 <= u <= w and 0 <= v <= h or np.hypot(u - min(max(u, 0), w), v - min(max(v, 0), h)) > BESIDE_BOARD_MM:
                continue
            px = self.to_px(np.array([[u, v]]))[0]
            at = (float(px[0]), float(px[1]))
            size = self.die_px(kind, *at)
            if not (2 * size <= at[0] <= W - 2 * size and 2 * size <= at[1] <= H - 2 * size) \
                    or cv2.pointPolygonTest(board_quad, at, True) > -size \
                    or any(cv2.pointPolygonTest(m, at, True) > -2.5 * size for m in markers):
                continue
            if all(np.hypot(at[0] - d.x, at[1] - d.y) > 3.5 * max(size, self.die_px(d.kind, d.x, d.y)) for d in placed):
                return at
        return x, y

    def _die_sprite(self, die: Die, rng: random.Random, value: Any = None, size: float | None = None) -> np.ndarray:
        from companion.workshop.dice.synth import render_die

        size = self.die_px(die.kind, die.x, die.y) if size is None else size
        out = None
        while out is None:
            out = render_die(np.random.default_rng(rng.randrange(1 << 30)), READER_KIND[die.kind],
                             die.value if value is None else value, size, 0.25, LIGHT_DIR, die.material)
        return out[0]

    def _tumbling(self, dice: list[Die], k: float, rng: random.Random) -> list[Die]:
        """The dice flying in: ``k`` from 0 to under 3, 3 - ``k`` frames (of a family at pace 1) before they lie
        still, from the side they were thrown."""
        out = []
        for die in dice:
            far = (3 - k) * 0.12 * self.size[0]
            x, y = die.x - far, die.y + far * 0.3
            faces = {"d6": [1, 2, 3, 4, 5, 6], "d8": list(range(1, 9)),
                     "colour": ["yellow", "blue", "red", "green", "magpie"]}[die.kind]
            shown = rng.choice(faces)
            ghost = Die(die.kind, shown, x, y, die.material)
            sprite = self._die_sprite(ghost, rng, size=self.die_px(die.kind, die.x, die.y))  # as large as where it lands
            length = int(far * 0.25) | 1
            kernel = np.zeros((1, length), np.float32)
            kernel[0, :] = 1.0 / length
            ghost.sprite = cv2.filter2D(sprite, -1, kernel)
            out.append(ghost)
        return out

    # -- frames ----------------------------------------------------------------------------------------------
    def frames(self, actions: int | None = None) -> Iterator[np.ndarray]:
        """Every frame of the game, in order (BGR uint8, ``size``); with ``actions``, only the frames of the
        first that many true actions (to trace a game's beginning without filming all of it)."""
        frame_rng = np.random.default_rng(self.seed + 1)
        for shot in self.shots:
            if actions is not None and shot.step > actions:
                return
            yield self.draw(shot, frame_rng)

    def __len__(self) -> int:
        return len(self.shots)

    def draw(self, shot: Shot, rng: np.random.Generator) -> np.ndarray:
        img = self.render_position(shot.scene).copy()
        for die in shot.dice:
            _paste(img, die.sprite, die.x, die.y)
        if shot.hand is not None:
            self._draw_hand(img, shot.hand, shot.hand_from, rng)
        out = img.astype(np.float32) * self._light_field(shot.light[0], shot.light_from, shot.light[1])
        noise = self._noise[int(rng.integers(len(self._noise)))]
        dx, dy = (int(v) for v in rng.integers(0, 64, 2))
        out += np.roll(noise, (dy, dx), axis=(0, 1))
        frame = np.clip(out, 0, 255).astype(np.uint8)
        if self._maps is not None:
            frame = cv2.remap(frame, self._maps[0], self._maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        if self.quality:
            ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, int(self.quality)])
            frame = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        return frame

    def _light_field(self, light: str, previous: str, weight: float) -> np.ndarray:
        key = f"{previous}>{light}:{weight}"
        if key not in self._fields:
            now = self._one_light(light)
            self._fields[key] = now if weight >= 1.0 else (weight * now + (1 - weight) * self._one_light(previous)).astype(np.float32)
        return self._fields[key]

    def _one_light(self, light: str) -> np.ndarray:
        if light in self._fields:
            return self._fields[light]
        W, H = self.size
        rng = np.random.default_rng((self.seed, LIGHTS.index(light)))
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        direction = rng.uniform(0, 2 * np.pi)
        ramp = 1.0 + (np.cos(direction) * (xx / W - 0.5) + np.sin(direction) * (yy / H - 0.5)) * 2 * rng.uniform(0.0, 0.15)
        gains = {"neutral": (1.0, 1.0, 1.0), "warm": (0.7, 0.95, 1.15), "cool": (1.15, 1.0, 0.82),
                 "dim": (0.55, 0.55, 0.55), "shadow": (1.0, 1.0, 1.0)}[light]
        field = ramp[..., None] * np.float32(gains)
        if light == "shadow":  # a soft shadow over about a third of the board
            quad = self.to_px(self.board.board_corners_mm())
            a, b = quad[int(rng.integers(4))], quad[int(rng.integers(4))]
            centre = (a + b) / 2 if np.linalg.norm(a - b) > 1 else a
            radius = 0.35 * float(np.linalg.norm(quad[0] - quad[2]))
            d = np.hypot(xx - centre[0], yy - centre[1])
            shade = 1.0 - 0.45 * np.clip((radius - d) / (0.3 * radius) + 0.5, 0, 1)
            field = field * shade[..., None]
        self._fields[light] = field.astype(np.float32)
        return self._fields[light]

    def _draw_hand(self, img: np.ndarray, at: tuple[float, float], came_from: tuple[float, float] | None,
                   rng: np.random.Generator) -> None:
        """A palm, fingers and the arm to the nearest edge; blurred along its way when it moves."""
        scale = self.px_per_mm()
        layer = np.zeros_like(img)
        mask = np.zeros(img.shape[:2], np.uint8)
        skin = SKINS[self.seed % len(SKINS)]
        edge = self._edge(at)
        arm_w = int(45 * scale)
        cv2.line(layer, (int(edge[0]), int(edge[1])), (int(at[0]), int(at[1])), skin, arm_w * 2)
        cv2.line(mask, (int(edge[0]), int(edge[1])), (int(at[0]), int(at[1])), 255, arm_w * 2)
        angle = float(np.degrees(np.arctan2(at[1] - edge[1], at[0] - edge[0])))
        palm = (int(at[0]), int(at[1]))
        axes = (int(50 * scale), int(45 * scale))
        cv2.ellipse(layer, palm, axes, angle, 0, 360, skin, -1, cv2.LINE_AA)
        cv2.ellipse(mask, palm, axes, angle, 0, 360, 255, -1, cv2.LINE_AA)
        direction = np.array([np.cos(np.radians(angle)), np.sin(np.radians(angle))])
        side = np.array([-direction[1], direction[0]])
        for k, length in enumerate((70, 80, 75, 60)):
            base = np.array(at) + direction * 40 * scale + side * (-30 + 20 * k) * scale
            tip = base + direction * length * scale
            cv2.line(layer, tuple(int(v) for v in base), tuple(int(v) for v in tip), skin, max(2, int(16 * scale)))
            cv2.line(mask, tuple(int(v) for v in base), tuple(int(v) for v in tip), 255, max(2, int(16 * scale)))
        if came_from is not None:
            shift = np.array(at) - np.array(came_from)
            length = int(min(60, np.linalg.norm(shift) * 0.3)) | 1
            if length > 2:
                kernel = np.zeros((length, length), np.float32)
                c = length // 2
                d = shift / max(np.linalg.norm(shift), 1e-6) * c
                cv2.line(kernel, (int(c - d[0]), int(c - d[1])), (int(c + d[0]), int(c + d[1])), 1.0, 1)
                kernel /= max(kernel.sum(), 1e-6)
                layer = cv2.filter2D(layer, -1, kernel)
                mask = cv2.filter2D(mask, -1, kernel)
        alpha = (mask.astype(np.float32) / 255.0)[..., None]
        img[:] = (img * (1 - alpha) + layer * alpha).astype(np.uint8)

    def teaching_photo(self) -> tuple[np.ndarray, dict[str, Any]]:
        """One photo of the box as dealt (the first position, no hand, no dice, plain light) and the scene it
        shows: what "teach your board" takes once the family has confirmed the set-up."""
        shot = Shot(next(s.scene for s in self.shots if self._scenes[s.scene]))  # (not the empty board it was laid out on)
        return self.draw(shot, np.random.default_rng(self.seed + 7)), dict(self._scenes[shot.scene])

    def bare_photo(self) -> np.ndarray:
        """One photo of the board with nothing on it (no hand, no dice, plain light): what the family shows before
        laying the set-up ("photo of the empty board")."""
        return self.draw(Shot(self._index_scene({})), np.random.default_rng(self.seed + 11))

    # -- the family's dice, shown once --------------------------------------------------------------------------
    def registry(self) -> Any:
        """The dice registered as the app's "show me each die" would (for dice told apart), else None."""
        from companion.referee.dice import dice_told_apart
        from companion.vision.registry import DieRegistry

        roll = next(iter(type(self.game).rolls.values()), ())
        roles = [d.role for d in roll]
        if not dice_told_apart(roles):
            return None
        registry = DieRegistry()
        for die_spec in roll:
            material = self.materials[die_spec.role]
            for value in (1, 4):
                canvas, box = self._die_on_table(Die(die_spec.kind, value, 0.0, 0.0, material), random.Random(value))
                registry.register(die_spec.role, canvas, box, kind=READER_KIND[die_spec.kind])
        return registry

    def show_dice(self, teacher: Any) -> int:
        """The family's "teach your dice" before the game (issue 21): each die of the box shown to the camera on the
        table once per face (``teacher``: a :class:`~companion.vision.teach_dice.DiceTeacher`). Returns the faces shown."""
        from companion.vision.profile import FACES

        shown, seen = 0, set()
        for roll in type(self.game).rolls.values():
            for spec in roll:
                material = self._material(spec)
                if (spec.kind, id(material)) in seen:
                    continue
                seen.add((spec.kind, id(material)))
                for face in FACES[READER_KIND[spec.kind]]:
                    canvas, box = self._die_on_table(Die(spec.kind, face, 0.0, 0.0, material), random.Random(self.seed * 1000 + shown))
                    teacher.show(canvas, READER_KIND[spec.kind], face, box)
                    shown += 1
        return shown

    def _die_on_table(self, die: Die, rng: random.Random) -> tuple[np.ndarray, tuple[int, int, int, int]]:
        """A corner of the table with ``die`` in the middle, as large as the film's dice lie, and the die's box."""
        sprite = self._die_sprite(die, rng, size=DIE_MM.get(die.kind, 16.0) * self.px_per_mm())
        canvas = self._table_image[:200, :200].copy()
        _paste(canvas, sprite, 100, 100)
        h, w = sprite.shape[:2]
        return canvas, (100 - w // 2, 100 - h // 2, w, h)


def _paste(img: np.ndarray, sprite: np.ndarray | None, cx: float, cy: float) -> None:
    """A BGRA float sprite (alpha 0-1) centred at (cx, cy), cropped to the image."""
    if sprite is None:
        return
    sh, sw = sprite.shape[:2]
    blend_sprite(img, sprite, int(round(cx - sw / 2)), int(round(cy - sh / 2)))
