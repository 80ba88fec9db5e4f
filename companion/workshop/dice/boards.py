"""Hard negatives for the dice models: the four games' boards with their pieces, and no dice.

Seen whole, a board shows printed markers (black squares with white dots), cards with symbols, round
tokens and owls' eyes: things a dice reader trained on tables alone takes for dice (the shipped models
found 3-8 sure "dice" on every rendered board frame). The frames come from the board benchmarks' own
scene painters (``companion.workshop.boards.scenes``) at seeded states of simulated games, seen by the
benchmarks' random cameras and, zoomed in, by a camera close to the table, so that pieces appear at the
sizes dice do. They train the detector (scenes without a die), the classifier ("none" crops, many of
them where a detector proposes a die) and they are the backdrop of some synthetic dice scenes, so that a
die lying on a board is still a die.

    python -m companion.workshop.dice.boards [N] [SEED]   # how many sure dice the reader sees on N frames
"""

from __future__ import annotations

import json
import sys

import cv2
import numpy as np

GAMES = ("eagle_kingdoms", "falconry", "mighty_magpies", "verzauberte_eulen")
VERSION = 1  # bump when the frames change: training caches are keyed by it
FRAME_SIZE = (1280, 720)


def _zoomed(homography: np.ndarray, rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """The same camera moved closer (1-2.5x) towards a random point of the frame: pieces at the sizes of dice."""
    z = float(np.exp(rng.uniform(0.0, np.log(2.5))))
    cx, cy = rng.uniform(0.2, 0.8) * size[0], rng.uniform(0.2, 0.8) * size[1]
    zoom = np.array([[z, 0, (1 - z) * cx], [0, z, (1 - z) * cy], [0, 0, 1]])
    return zoom @ homography


def game_frames(game: str, n: int, seed: int, size: tuple[int, int] = FRAME_SIZE) -> list[np.ndarray]:
    """``n`` rendered frames of ``game``'s board with the pieces of seeded simulated states (no dice)."""
    import importlib

    from companion.workshop.boards.synth_table import random_homography

    bench = importlib.import_module(f"companion.workshop.boards.bench.{game}")
    rng = np.random.default_rng(seed)
    frames = []
    if game == "falconry":
        board = bench.board_map()
        scenes = [adapter.paint_scene(state) for state, adapter in bench.sample_states(n, seed)]
        camera = {}
    else:
        from companion.referee.boardmaps import BOARDS_DIR
        from companion.vision.boardmap import load_board_map

        board = load_board_map(BOARDS_DIR / f"{bench.GAME}.json")
        scenes = [bench.scene_from_state(s) for s in bench.sample_states(n, seed)]
        camera = getattr(importlib.import_module(f"companion.workshop.boards.scenes.{game}"), "CAMERA", {})
    for scene in scenes:
        homography = random_homography(board, rng, size, **camera)
        if rng.random() < 0.6:
            homography = _zoomed(homography, rng, size)
        frame, _ = bench.render(board, scene, rng, size, homography=homography)
        frames.append(frame.image)
    return frames


def _frames_job(args):
    game, n, seed = args
    cv2.setNumThreads(1)
    return game_frames(game, n, seed)


def board_frames(n: int, seed: int, pool=None, long_side: int = 640) -> list[np.ndarray]:
    """``n`` frames, the four games in turn, each shrunk to ``long_side`` pixels (the detector reads 416)."""
    from companion.vision.imageio import shrink

    per_game = -(-n // len(GAMES))
    jobs = [(g, per_game, seed * 1000 + k) for k, g in enumerate(GAMES)]
    results = pool.map(_frames_job, jobs) if pool is not None else [_frames_job(j) for j in jobs]
    frames = [f for i in range(per_game) for r in results if i < len(r) for f in [r[i]]][:n]
    return [shrink(f, long_side / max(f.shape[:2])) for f in frames]


def backdrop(rng: np.random.Generator, frames: list[np.ndarray], h: int, w: int) -> np.ndarray:
    """A random part of a random board frame, scaled to h x w (a table with a board for synthetic dice)."""
    f = frames[int(rng.integers(len(frames)))]
    H, W = f.shape[:2]
    side = rng.uniform(0.35, 1.0) * min(H, W)
    ch, cw = int(side * min(1.0, h / w)), int(side * min(1.0, w / h))
    y0, x0 = int(rng.integers(0, H - ch + 1)), int(rng.integers(0, W - cw + 1))
    return cv2.resize(f[y0:y0 + ch, x0:x0 + cw], (w, h), interpolation=cv2.INTER_LINEAR)


def proposals(img: np.ndarray, per_scale: int = 12) -> list[tuple[float, float, float, float]]:
    """Die-sized blobs of a frame, found without any model: the strongest local maxima of the Laplacian of
    Gaussian at three scales (what a die detector fires on: a compact patch unlike its surround: markers,
    symbols, tokens, eyes). Boxes (x, y, w, h) of about three times the scale."""
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32)
    boxes = []
    for sigma in (4.0, 8.0, 16.0):
        response = np.abs(cv2.Laplacian(cv2.GaussianBlur(grey, (0, 0), sigma), cv2.CV_32F)) * sigma**2
        k = int(2 * sigma) | 1
        peaks = (response >= cv2.dilate(response, np.ones((k, k), np.uint8))) & (response > 0)
        ys, xs = np.nonzero(peaks)
        order = np.argsort(-response[ys, xs])[:per_scale]
        side = 3 * sigma
        boxes += [(float(xs[i] - side / 2), float(ys[i] - side / 2), side, side) for i in order]
    return boxes


def phantom_dice(reader, frames: list[np.ndarray]) -> dict:
    """What a dice reader sees on board frames without dice: finds, and sure finds, per frame."""
    finds = [reader.read(f) for f in frames]
    sure = [sum(not r.uncertain for r in rs) for rs in finds]
    return {"frames": len(frames), "finds_per_frame": sum(len(rs) for rs in finds) / max(1, len(frames)),
            "sure_per_frame": sum(sure) / max(1, len(frames)),
            "frames_with_a_sure_die": sum(s > 0 for s in sure) / max(1, len(frames))}


def main(argv: list[str] | None = None) -> int:
    from companion.vision.reader import DiceReader

    args = list(sys.argv[1:] if argv is None else argv)
    n, seed = (int(args[0]) if args else 40), (int(args[1]) if len(args) > 1 else 91)
    print(json.dumps(phantom_dice(DiceReader(threads=1), board_frames(n, seed, long_side=1280))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
