"""Drawing the demo recording's frames: pluggable renderers, one frame per step of the script.

Renderers plug in with :func:`register_renderer`: ``scene`` (:mod:`companion.app.demo_scene`, the game's own
board scene as the board readers see it, with the dice drawn in) is the recordings' choice; the
:class:`PlaceholderRenderer` (schematic OpenCV drawing) stands in when the scene code cannot load.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from companion.app.demo import FRAME_SIZE, DemoScript, board_geometry, board_size_mm, demo_view
from companion.referee.dice import dice_values

Renderer = Callable[[DemoScript, int], np.ndarray]
RENDERERS: dict[str, Callable[[], Renderer]] = {}


def register_renderer(name: str, factory: Callable[[], Renderer]) -> None:
    RENDERERS[name] = factory


def project(H: np.ndarray, points: list[tuple[float, float]]) -> np.ndarray:
    if not points:
        return np.zeros((0, 2), np.float32)
    pts = np.float32(points).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, H).reshape(-1, 2)


PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)], 4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
        5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)], 6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}


def draw_die(img: np.ndarray, box: tuple[int, int, int, int], value, kind: str) -> None:
    x, y, w, h = box
    colour = (235, 235, 235) if kind == "d6" else (60, 40, 150)
    cv2.rectangle(img, (x, y), (x + w, y + h), colour, -1)
    cv2.rectangle(img, (x, y), (x + w, y + h), (30, 30, 30), 2)
    if kind == "d6" and isinstance(value, int) and value in PIPS:
        for dx, dy in PIPS[value]:
            cv2.circle(img, (x + w // 2 + dx * w // 4, y + h // 2 + dy * h // 4), max(3, w // 12), (20, 20, 20), -1)
    else:
        cv2.putText(img, str(value), (x + w // 4, y + 3 * h // 4), cv2.FONT_HERSHEY_SIMPLEX, 1.1, (255, 255, 255), 2, cv2.LINE_AA)


class PlaceholderRenderer:
    """Draws a schematic board through the demo homography, the pieces still on it, and the dice."""

    def __init__(self):
        self._cache: dict[int, np.ndarray] = {}

    def __call__(self, script: DemoScript, step: int) -> np.ndarray:
        if step in self._cache:
            return self._cache[step]
        w, h = FRAME_SIZE
        img = np.full((h, w, 3), (40, 80, 45), np.uint8)  # green felt
        size = board_size_mm(script.module.name)
        H = demo_view(script.module.name)
        corners = project(H, [(0, 0), (size[0], 0), size, (0, size[1])]).astype(np.int32)
        cv2.fillConvexPoly(img, corners, (70, 120, 150))
        cv2.polylines(img, [corners], True, (20, 40, 60), 2)
        for c in corners:  # the corner markers
            cv2.rectangle(img, (int(c[0]) - 9, int(c[1]) - 9), (int(c[0]) + 9, int(c[1]) + 9), (0, 0, 0), -1)
            cv2.rectangle(img, (int(c[0]) - 4, int(c[1]) - 4), (int(c[0]) + 4, int(c[1]) + 4), (255, 255, 255), -1)
        geometry = board_geometry(script.module.name)
        state = script.state_at(step)
        data = state.to_json()
        board = data.get("board") if isinstance(data.get("board"), dict) else {}
        captured = set(data.get("captured") or [])
        ids = list(geometry)
        pts = project(H, [geometry[i] for i in ids])
        for pid, (px, py) in zip(ids, pts, strict=True):
            if pid in captured:
                cv2.circle(img, (int(px), int(py)), 9, (50, 90, 110), 1)
                continue
            cv2.circle(img, (int(px), int(py)), 11, (200, 215, 225), -1)
            kind = str(board.get(pid, ""))
            if kind:
                cv2.putText(img, kind[:2].upper(), (int(px) - 9, int(py) + 5), cv2.FONT_HERSHEY_PLAIN, 0.9, (30, 30, 30), 1, cv2.LINE_AA)
        if step < len(script):
            obs = script.observation(step)
            readings = obs.get("dice", [])
            truth = dice_values(script.truth(step) or {}) if readings else []
            for r, value in zip(readings, truth, strict=False):
                draw_die(img, tuple(r["box"]), value, r["kind"])
                if r.get("uncertain"):  # a hand half over the die: why the reader is unsure
                    x, y, bw, bh = r["box"]
                    cv2.ellipse(img, (x + bw, y + bh // 3), (bw // 2, bh // 2), 30, 0, 360, (120, 150, 190), -1)
        label = f"demo {step}/{len(script)}"
        cv2.putText(img, label, (8, h - 8), cv2.FONT_HERSHEY_PLAIN, 1.0, (230, 230, 230), 1, cv2.LINE_AA)
        if len(self._cache) > 64:
            self._cache.clear()
        self._cache[step] = img
        return img


class LazySceneRenderer:
    """Builds the scene renderer on its first frame (on the frame source's thread: the heavy imports stay
    out of the app's start), falling back to the placeholder when the scene code cannot load."""

    def __init__(self):
        self._renderer: Renderer | None = None
        self.error = ""

    def __call__(self, script: DemoScript, step: int) -> np.ndarray:
        if self._renderer is None:
            try:
                from companion.app.demo_scene import SceneRenderer

                self._renderer = SceneRenderer(script.module.name, seed=7)
            except Exception as exc:  # the scene code is another package's work in progress: the demo still runs
                self.error = f"{type(exc).__name__}: {exc}"
                self._renderer = PlaceholderRenderer()
        return self._renderer(script, step)

    @property
    def renderer(self) -> Renderer | None:
        return self._renderer


def _scene_renderer() -> Renderer:
    return LazySceneRenderer()


register_renderer("placeholder", PlaceholderRenderer)
register_renderer("scene", _scene_renderer)


def renderer_for(script: DemoScript, name: str | None = None) -> Renderer:
    """The recording's renderer (or ``name``); the placeholder when it cannot be built or draw this game."""
    name = name or script.data.get("renderer", "placeholder")
    factory = RENDERERS.get(name) or RENDERERS["placeholder"]
    try:
        return factory()
    except Exception:  # a renderer that cannot be built: the demo still runs
        return RENDERERS["placeholder"]()
