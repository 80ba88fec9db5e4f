"""``companion read-board GAME IMAGE... [--map FILE] [--json]``: read the board in pictures.

One line per picture; with ``--json`` each is one JSON object::

    {"image": path, "status": "ok" | "refused", "reason": "...", "observation": {...}, "ms": 12.3}

``observation`` is what the referee consumes (:meth:`companion.vision.readers.Observation.as_json`; the
vocabulary of each game is in ``docs/observations.md``); ``reason`` says why a picture was refused (it
cannot be read as a picture, no board in it, too dark, a hand over the pieces...) and is empty for "ok";
``ms`` is the pose and reading time, decoding excluded. Each picture is read on its own (a cold pose).
A picture that cannot be read gets its own refusal; the others go on. Exit status: 0 when every picture
was read, 1 when some were refused, 2 on bad usage (an unknown game, a map that cannot be used).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from companion.referee.table_games import GAMES, table_game


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("read-board", help="read the board and pieces in pictures (JSON per picture)",
                              description=__doc__.split("\n\n")[0])
    p.add_argument("game", help=f"one of: {', '.join(GAMES)}")
    p.add_argument("images", nargs="+", metavar="IMAGE", help="picture files (or folders of pictures)")
    p.add_argument("--map", help="a board map (JSON) instead of the game's reference map")
    p.add_argument("--json", action="store_true", help="one JSON object per picture per line")
    p.set_defaults(func=cmd_read_board)


def read_pictures(game: str, paths: list[str], board_map: Any = None) -> list[dict[str, Any]]:
    """One result per picture (see the module docstring)."""
    from companion.vision.errors import ImageError
    from companion.vision.imageio import expand_paths, load

    table = table_game(game)
    board = board_map if board_map is not None else table.board_map()
    reading = table.make_reader(board, None)
    out = []
    for path in expand_paths(paths):
        result: dict[str, Any] = {"image": str(path)}
        try:
            image, _scale = load(path)  # the pose works in the loaded picture's pixels: a downscale is harmless
        except ImageError as exc:
            out.append({**result, "status": "refused", "reason": f"not a picture that can be read: {exc.reason}",
                        "observation": None, "ms": None})
            continue
        forget = getattr(reading.reader, "reset", None) or reading.tracker.reset
        forget()  # independent pictures: no pose carried over
        t0 = time.perf_counter()
        pose = reading.tracker.update(image)
        obs = reading.read(image, pose) if pose.usable else None
        ms = round((time.perf_counter() - t0) * 1000, 2)
        if obs is None or not obs.usable:
            reason = obs.status if obs is not None else f"no board pose: {pose.message}"
            out.append({**result, "status": "refused", "reason": reason,
                        "observation": obs.as_json() if obs is not None else None, "ms": ms})
        else:
            out.append({**result, "status": "ok", "reason": "", "observation": obs.as_json(), "ms": ms})
    return out


def cmd_read_board(args: argparse.Namespace) -> int:
    board = None
    try:
        table_game(args.game)
    except KeyError as exc:
        print(f"error: {exc.args[0]}", file=sys.stderr)
        return 2
    if args.map:
        from companion.vision.boardmap import BoardMapError, load_board_map

        try:
            board = load_board_map(Path(args.map))
        except BoardMapError as exc:
            print(f"error: the board map cannot be used: {exc}", file=sys.stderr)
            return 2
    results = read_pictures(args.game, args.images, board)
    if not results:
        print("error: no pictures found", file=sys.stderr)
        return 2
    for r in results:
        if args.json:
            print(json.dumps(r), flush=True)
        elif r["status"] == "ok":
            obs = r["observation"]
            print(f"{r['image']}: ok, {len(obs['regions'])} spaces with pieces, {len(obs['uncertain'])} unsure [{r['ms']} ms]")
        else:
            print(f"{r['image']}: refused: {r['reason']}")
    return 1 if any(r["status"] != "ok" for r in results) else 0
