"""The bundled demo recording: a seeded Eagle Kingdoms game as a small JSON script, frames rendered on the fly.

A recording (``data/demo_eagle_kingdoms.json``) holds the game, its configuration, the seed and the
list of actions of a seeded simulation. Nothing is stored as pictures: a *renderer* draws the frame of
each step (the dice of a roll, the board with the pieces still on it), and the demo *recognizer*
returns what the camera reader would see in that frame (the dice readings, the move made). Every
``uncertain_every``-th roll one die is read with low confidence, and every ``misread_every``-th of
those is misread, so the demo shows the confirm-and-correct flow.

The frames are drawn by the renderers of :mod:`companion.app.demo_render` (the recording names its
choice: ``scene``, the real board scene). Regenerate the file with
``python -m companion.app.demo --write`` after a rules change (the app also regenerates it in memory,
with a warning, when the committed script no longer replays).
"""

from __future__ import annotations

import argparse
import json
import random
from importlib import resources
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
DEFAULT_FILE = Path(__file__).resolve().parent / "data" / "demo_eagle_kingdoms.json"
FRAME_SIZE = (640, 480)  # width, height
DIE_PX = 56


def simulate(game_name: str, config: dict[str, Any], seed: int) -> list[Action]:
    module = load_game(game_name)
    game = module.game_class.from_config(config)
    state = game.new_initial_state()
    actions: list[Action] = []
    playout(state, random.Random(seed), module.simulation_policy, on_action=lambda _, a: actions.append(a), apply=state.apply)
    return actions


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
    def load(cls, path: str | Path | None = None) -> DemoScript:
        path = Path(path) if path else DEFAULT_FILE
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


def board_geometry(game_name: str) -> dict[str, tuple[float, float]]:
    """Piece id -> centre in board millimetres, from the game's board.json (empty when it has none)."""
    module = load_game(game_name).module
    try:
        data = json.loads(resources.files(module.__name__).joinpath("board.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, ModuleNotFoundError):
        return {}
    pieces = data.get("pieces") if isinstance(data, dict) else None
    out = {}
    for piece in pieces or []:
        if isinstance(piece, dict) and "id" in piece and "centre_mm" in piece:
            out[piece["id"]] = (float(piece["centre_mm"][0]), float(piece["centre_mm"][1]))
    return out


def board_size_mm(game_name: str) -> tuple[float, float]:
    module = load_game(game_name).module
    try:
        data = json.loads(resources.files(module.__name__).joinpath("board.json").read_text(encoding="utf-8"))
        return tuple(data.get("template_mm", (500, 500)))  # type: ignore[return-value]
    except (OSError, ValueError):
        return (500.0, 500.0)


def demo_homography(size_mm: tuple[float, float] = (500, 500)) -> np.ndarray:
    """Board mm -> image px of the demo camera: the board seen slightly from the front, tilted."""
    w, h = size_mm
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = np.float32([[170, 28], [470, 28], [520, 380], [120, 380]])
    return cv2.getPerspectiveTransform(src, dst)


class DemoRecognizer:
    """The recognizer of the demo: reads the observation of the frame's step from the script."""

    def __init__(self, script: DemoScript):
        self.script = script

    def __call__(self, frame: np.ndarray, meta: dict[str, Any]) -> dict[str, Any]:
        step = int(meta.get("step", 0))
        return self.script.observation(step)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write the bundled demo recording (a seeded Eagle Kingdoms game).")
    parser.add_argument("--write", action="store_true", help=f"write {DEFAULT_FILE}")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    recording = make_recording(args.seed)
    text = json.dumps(recording, separators=(",", ":"), sort_keys=True)
    if args.write:
        DEFAULT_FILE.parent.mkdir(parents=True, exist_ok=True)
        DEFAULT_FILE.write_text(text + "\n", encoding="utf-8")
        print(f"wrote {DEFAULT_FILE} ({len(recording['actions'])} actions, {len(text)} bytes)")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
