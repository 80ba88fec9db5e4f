"""The demo's real board scenes: each game's own board, with its pieces, as the board readers see it, and the dice.

Each step's frame is drawn by the game's scene painter of :mod:`companion.workshop.boards.scenes` from the
demo's engine state (the referee's ``scene_from_state``), through the same fixed demo homography the overlays
use, then the roll's dice are drawn in with the dice engineer's renderer
(:func:`companion.workshop.dice.synth.render_die`). A scene costs 0.1-0.8 s to draw, so it is drawn once per
step, on a helper thread, one step ahead (the next step is ready before the family confirms): per camera frame
the cost is a dictionary look-up. Imported lazily by :mod:`companion.app.demo_render`; when the scene code is
missing the demo keeps its placeholder drawing. The one module of the app that uses the workshop
(tests/test_runtime_imports.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import cv2
import numpy as np

from companion.app.calibration import reference_map_path
from companion.app.demo import FRAME_SIZE, DemoScript, demo_view
from companion.games.core import State
from companion.referee.dice import READER_KIND, dice_values
from companion.vision.boardmap import BoardMap, load_board_map
from companion.vision.sprites import blend_sprite

LIGHT = np.array([0.3, -0.4, 1.0]) / np.linalg.norm([0.3, -0.4, 1.0])
KEEP = 48  # steps kept drawn


paste = blend_sprite  # a BGRA float sprite (alpha 0-1) onto the scene at (x, y), cropped to it


def _painter(game: str, board: BoardMap, seed: int) -> Callable[[State, np.random.Generator, np.ndarray], np.ndarray]:
    """``(state, rng, homography) -> BGR frame`` of the game's board with the pieces of ``state``."""
    if game == "eagle-kingdoms":
        from companion.referee.eagle_kingdoms import scene_from_state
        from companion.workshop.boards.scenes import eagle_kingdoms as scene
        from companion.workshop.boards.scenes.stands import StandStyle

        style = StandStyle.random(np.random.default_rng(seed))
        return lambda state, rng, H: scene.render(board, scene_from_state(state), rng, FRAME_SIZE, homography=H,
                                                  style=style, gain=1.0, hand_at_mm=None)[0].image
    if game == "falconry":
        from companion.referee.falconry import FalconryAdapter
        from companion.workshop.boards.scenes import falconry as scene

        adapter = FalconryAdapter()
        return lambda state, rng, H: scene.render(board, adapter.paint_scene(state), rng, FRAME_SIZE, homography=H,
                                                  gain=1.0, shift_mm=(0.0, 0.0))[0].image
    if game == "mighty-magpies":
        from companion.referee.mighty_magpies import scene_from_state as mm_scene
        from companion.workshop.boards.scenes import mighty_magpies as scene

        return lambda state, rng, H: scene.render(board, mm_scene(state), rng, FRAME_SIZE, homography=H, gain=1.0)[0].image
    if game == "verzauberte-eulen":
        from companion.referee.verzauberte_eulen import scene_from_state as ve_scene
        from companion.workshop.boards.scenes import verzauberte_eulen as scene

        return lambda state, rng, H: scene.render(board, ve_scene(state), rng, FRAME_SIZE, homography=H, gain=1.0)[0].image
    raise ValueError(f"no scene painter for {game}")


class SceneRenderer:
    """``(script, step) -> BGR frame`` of the recording's game on its own board, drawn one step ahead on a
    helper thread."""

    def __init__(self, game: str = "eagle-kingdoms", seed: int = 7):
        self.game = game
        self.board = load_board_map(reference_map_path(game))
        self.seed = seed
        self.paint = _painter(game, self.board, seed)
        self._jobs: dict[int, Future] = {}
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="demo-scene")

    def draw(self, script: DemoScript, step: int) -> np.ndarray:
        """The frame of ``step`` (slow: the whole scene)."""
        if script.module.name != self.game:
            raise ValueError(f"this renderer draws {self.game}, not {script.module.name}")
        rng = np.random.default_rng((self.seed, step))
        H = demo_view(self.game)
        img = np.ascontiguousarray(self.paint(script.state_at(step), rng, H))
        if step < len(script):
            self._draw_dice(img, script, step)
        cv2.putText(img, f"demo {step}/{len(script)}", (8, FRAME_SIZE[1] - 8), cv2.FONT_HERSHEY_PLAIN, 1.0,
                    (230, 230, 230), 1, cv2.LINE_AA)
        return img

    def _draw_dice(self, img: np.ndarray, script: DemoScript, step: int) -> None:
        from companion.workshop.dice.synth import random_material, render_die

        readings = script.observation(step).get("dice", [])
        truth = dice_values(script.truth(step) or {}) if readings else []
        for i, (r, value) in enumerate(zip(readings, truth, strict=False)):
            x, y, bw, bh = r["box"]
            kind: Any = READER_KIND.get(r["kind"], r["kind"])
            out = render_die(np.random.default_rng((self.seed, step, i)), kind, value, bw * 0.8, 0.0, LIGHT,
                             random_material(np.random.default_rng((self.seed, i))))
            if out is not None:
                sprite = out[0]
                paste(img, sprite, x + (bw - sprite.shape[1]) // 2, y + (bh - sprite.shape[0]) // 2)
            if r.get("uncertain"):  # a hand half over the die: why the reader is unsure
                cv2.ellipse(img, (x + bw, y + bh // 3), (bw // 2, bh // 2), 30, 0, 360, (120, 150, 190), -1, cv2.LINE_AA)

    def _job(self, script: DemoScript, step: int) -> Future:
        with self._lock:
            job = self._jobs.get(step)
            if job is None:
                job = self._jobs[step] = self._pool.submit(self.draw, script, step)
                for old in sorted(self._jobs, key=lambda s: abs(s - step))[KEEP:]:
                    del self._jobs[old]
            return job

    def __call__(self, script: DemoScript, step: int) -> np.ndarray:
        job = self._job(script, step)
        if step + 1 <= len(script):
            self._job(script, step + 1)  # ready before the family confirms
        return job.result()
