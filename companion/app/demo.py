"""The bundled demo recordings: a seeded game of each of the four games as a small JSON script, frames rendered
on the fly.

A recording (``data/demo_<game>.json``, one per game) holds the game, its configuration, the seed and the
list of actions of a seeded simulation. Nothing is stored as pictures: a *renderer* draws the frame of
each step (the dice of a roll, the board with the pieces still on it), and the demo *recognizer*
returns what the camera reader would see in that frame (the dice readings, the move made). Every
``uncertain_every``-th roll one die is read with low confidence, and every ``misread_every``-th of
those is misread, so the demo shows the confirm-and-correct flow.

The frames are drawn by the renderers of :mod:`companion.app.demo_render` (the recording names its
choice: ``scene``, the game's own board scene). Regenerate the files with
``python -m companion.app.demo --write`` (all games, or ``--game G``) after a rules change (the app also
regenerates one in memory, with a warning, when the committed script no longer replays).
"""

from __future__ import annotations

import argparse
import json
import random
from functools import cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.games.core import Action, GameError, State
from companion.games.playout import playout
from companion.games.registry import load_game
from companion.referee.dice import dice_values

FORMAT = "companion-demo"
VERSION = 1
DATA = Path(__file__).resolve().parent / "data"
DEFAULT_GAME = "eagle-kingdoms"
DEFAULT_FILE = DATA / "demo_eagle_kingdoms.json"
RECORDINGS = {  # each game's demo: its players and configuration, and the seed of its recorded game
    "eagle-kingdoms": {"players": ("Ann", "Ben", "Cy"), "seed": 7},
    "falconry": {"players": ("Ann", "Ben"), "seed": 3, "view_mm": (110, 130, 585, 660)},  # the camera near the cards
    "verzauberte-eulen": {"players": ("Ann", "Ben", "Cy"), "seed": 5},
    "mighty-magpies": {"players": ("Ann", "Ben", "Cy"), "seed": 4},
}
FRAME_SIZE = (640, 480)  # width, height
DIE_PX = 56


def simulate(game_name: str, config: dict[str, Any], seed: int) -> list[Action]:
    module = load_game(game_name)
    game = module.game_class.from_config(config)
    state = game.new_initial_state()
    actions: list[Action] = []
    playout(state, random.Random(seed), module.simulation_policy, on_action=lambda _, a: actions.append(a), apply=state.apply)
    return actions


def recording_path(game: str | None = None) -> Path:
    """The bundled recording of ``game`` (the Eagle Kingdoms one by default)."""
    return DATA / f"demo_{(game or DEFAULT_GAME).replace('-', '_')}.json"


def make_recording(seed: int = 7, players: tuple[str, ...] = ("Ann", "Ben", "Cy"), game_name: str = "eagle-kingdoms") -> dict[str, Any]:
    module = load_game(game_name)
    game = module.game_class(players=list(players))
    config = game.config()
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": module.name,
        "rules_version": module.game_class.version,
        "config": config,
        "seed": seed,
        "renderer": "scene",
        "uncertain_every": 9,
        "misread_every": 2,
        "actions": simulate(module.name, config, seed),
    }


class DemoScript:
    """A recording, checked by replaying it; the states of every step are computed lazily."""

    def __init__(self, data: dict[str, Any], warnings: list[str] | None = None):
        self.data = data
        self.warnings = list(warnings or [])
        self.module = load_game(data["game"])
        self.game = self.module.game_class.from_config(data["config"])
        self.actions: list[Action] = [dict(a) for a in data["actions"]]
        self._states: list[State] = [self.game.new_initial_state()]
        self._roll_number: dict[int, int] = {}

    @classmethod
    def load(cls, path: str | Path | None = None, game: str | None = None) -> DemoScript:
        """The recording at ``path``, else the bundled one of ``game`` (Eagle Kingdoms by default)."""
        path = Path(path) if path else recording_path(game)
        warnings = []
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("format") != FORMAT or data.get("version") != VERSION:
                raise ValueError(f"not a {FORMAT} file of version {VERSION}")
        except (OSError, ValueError) as exc:
            raise GameError(f"Cannot read the demo recording {path}: {exc}") from None
        module = load_game(data["game"])
        try:
            if data.get("rules_version") != module.game_class.version:
                raise GameError(f"rules version {data.get('rules_version')} != {module.game_class.version}")
            script = cls(data)
            script.state_at(len(script.actions))
            if not script.state_at(len(script.actions)).is_terminal():
                raise GameError("the game does not end")
            return script
        except GameError as exc:
            warnings.append(f"The demo recording no longer replays ({exc}); it was re-simulated from seed {data.get('seed')}.")
        fresh = make_recording(int(data.get("seed", 7)), tuple(data["config"]["players"]), data["game"])
        return cls(fresh, warnings)

    def __len__(self) -> int:
        return len(self.actions)

    def state_at(self, step: int) -> State:
        step = max(0, min(step, len(self.actions)))
        while len(self._states) <= step:
            state = self._states[-1].clone()
            state.apply(self.actions[len(self._states) - 1])
            self._states.append(state)
        return self._states[step]

    def roll_number(self, step: int) -> int:
        """How many dice rolls came before ``step`` (drives the uncertain/misread schedule)."""
        if step not in self._roll_number:
            count = 0
            for i in range(step):
                state = self.state_at(i)
                request = state.chance_request() if state.is_chance_node() else None
                if request is not None and request.dice:
                    count += 1
            self._roll_number[step] = count
        return self._roll_number[step]

    def dice_boxes(self, count: int) -> list[tuple[int, int, int, int]]:
        w, h = FRAME_SIZE
        gap = DIE_PX // 2
        total = count * DIE_PX + (count - 1) * gap
        x0 = (w - total) // 2
        return [(x0 + i * (DIE_PX + gap), h - DIE_PX - 24, DIE_PX, DIE_PX) for i in range(count)]

    def observation(self, step: int) -> dict[str, Any]:
        """What the camera reader reports in the frame of ``step`` (before its action is made)."""
        obs: dict[str, Any] = {"history_len": step, "status": "board found"}
        if step >= len(self.actions):
            return obs
        state = self.state_at(step)
        action = self.actions[step]
        request = state.chance_request() if state.is_chance_node() else None
        if request is not None and request.dice:
            values = dice_values(action)
            roles = list(request.roles) if len(request.roles) == len(request.dice) else [""] * len(request.dice)
            readings = []
            for i, (kind, value, box) in enumerate(zip(request.dice, values, self.dice_boxes(len(values)), strict=False)):
                readings.append({"kind": kind, "value": value, "confidence": 0.97, "box": list(box), "uncertain": False,
                                 "identity": roles[i] or None})
            n = self.roll_number(step) + 1
            every = int(self.data.get("uncertain_every") or 0)
            if every and n % every == 0 and readings:
                readings[-1]["confidence"] = 0.41
                readings[-1]["uncertain"] = True
                misread = int(self.data.get("misread_every") or 0)
                if misread and (n // every) % misread == 0 and isinstance(readings[-1]["value"], int):
                    faces = request.faces[-1]  # the next face: a misread
                    readings[-1]["value"] = faces[(faces.index(readings[-1]["value"]) + 1) % len(faces)]
            if readings and action.get("type") == "roll" and request.kind == "dice" and "dice" in action:
                readings.sort(key=lambda r: r["box"][0])
            obs["dice"] = readings
        elif request is not None:
            obs["outcome"] = action  # the taught board supplies the set-up
        else:
            obs["move"] = action
        return obs

    def truth(self, step: int) -> Action | None:
        return self.actions[step] if 0 <= step < len(self.actions) else None


@cache
def _reference_map(game_name: str):
    """The game's reference board map (what the demo's scenes are drawn from), or None."""
    from companion.app.calibration import reference_map_path
    from companion.vision.boardmap import BoardMapError, load_board_map

    try:
        return load_board_map(reference_map_path(game_name))
    except (OSError, BoardMapError):
        return None


def demo_view(game_name: str) -> np.ndarray:
    """The demo camera's homography for ``game_name`` (board mm -> frame px)."""
    return demo_homography(board_size_mm(game_name), RECORDINGS.get(game_name, {}).get("view_mm"))


def board_geometry(game_name: str) -> dict[str, tuple[float, float]]:
    """Region id -> centre in board millimetres, from the game's reference board map (empty without one)."""
    board = _reference_map(game_name)
    if board is None:
        return {}
    return {r.id: (float(r.center_mm[0]), float(r.center_mm[1])) for r in board.regions}


def board_size_mm(game_name: str) -> tuple[float, float]:
    board = _reference_map(game_name)
    return (float(board.size_mm[0]), float(board.size_mm[1])) if board is not None else (500.0, 500.0)


def demo_homography(size_mm: tuple[float, float] = (500, 500), view_mm: tuple[float, float, float, float] | None = None
                    ) -> np.ndarray:
    """Board mm -> image px of the demo camera: the board seen slightly from the front, tilted (a square board
    as always; another board keeps its own shape, as wide as the frame allows). ``view_mm`` (x0, y0, x1, y1): the
    part of the board the camera frames (a large play mat: the cards; default the whole board)."""
    x0, y0, x1, y1 = view_mm or (0.0, 0.0, float(size_mm[0]), float(size_mm[1]))
    w, h = x1 - x0, y1 - y0
    aspect = min(w / h, 1.45)
    top, bottom, cx = 300 * aspect, 400 * aspect, FRAME_SIZE[0] / 2
    src = np.float32([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    dst = np.float32([[cx - top / 2, 28], [cx + top / 2, 28], [cx + bottom / 2, 380], [cx - bottom / 2, 380]])
    return cv2.getPerspectiveTransform(src, dst)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write the bundled demo recordings (a seeded game of each game).")
    parser.add_argument("--write", action="store_true", help=f"write {DATA}/demo_<game>.json")
    parser.add_argument("--game", choices=sorted(RECORDINGS), default=None, help="only this game (default: all)")
    parser.add_argument("--seed", type=int, default=None, help="the seed (default: each game's own)")
    args = parser.parse_args(argv)
    for game in [args.game] if args.game else sorted(RECORDINGS):
        spec = RECORDINGS[game]
        recording = make_recording(spec["seed"] if args.seed is None else args.seed, spec["players"], game)
        text = json.dumps(recording, separators=(",", ":"), sort_keys=True)
        if args.write:
            DATA.mkdir(parents=True, exist_ok=True)
            recording_path(game).write_text(text + "\n", encoding="utf-8")
            print(f"wrote {recording_path(game)} ({len(recording['actions'])} actions, {len(text)} bytes)")
        else:
            print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
