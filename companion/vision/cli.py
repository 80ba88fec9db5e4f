"""``companion dice PATH... [--json] [--annotate DIR] [--kinds d6,d8,magpie] [--board MAP|none] [--before IMAGE]
[--profile PROFILE.json]``: read dice in image files.

With --json, exactly one JSON object per image, one per line:
{"image": path, "dice": [{"kind", "value", "confidence", "box": [x, y, w, h], "uncertain"}], "ms": ...}
("ms" excludes file decoding), or {"image": path, "error": "..."} for a file that cannot be read;
the other files go on. With --explain the object also has "rejected": the finds that are no dice, each
with its "reason". Exit status: 0 when every file was read, 1 when some could not be, 2 on a usage or
model error.

When a picture shows a board's markers (the four games' bundled maps, or the ``--board`` maps) the
board is posed, and finds on its markers and on its spaces, which may hold pieces, are not dice
(:mod:`companion.vision.dice_context`): a die there cannot be told from a piece in one picture. Given
the frame taken before the roll from the same place (``--before``), a find where nothing changed is no
die, and a die thrown onto a space is kept.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2

from companion.inputs import int_argument
from companion.storage import plain_os_error, write_atomic
from companion.vision import imageio
from companion.vision.boardmap import BoardMapError
from companion.vision.classes import parse_kinds
from companion.vision.errors import ImageError, VisionError


def register(subparsers) -> None:
    p = subparsers.add_parser("dice", help="read the dice in photos (files or folders)",
                              description=__doc__.split("\n")[0])
    p.add_argument("paths", nargs="+", metavar="PATH", help="image files or folders of images")
    p.add_argument("--json", action="store_true", help="one JSON object per image per line")
    p.add_argument("--annotate", metavar="DIR", help="write each image with boxes and values drawn into DIR")
    p.add_argument("--kinds", default=None, help="dice kinds on the table, comma-separated: d6,d8,magpie (default all)")
    p.add_argument("--registry", metavar="FILE", help="registered dice (JSON) so readings carry the die's identity")
    p.add_argument("--threads", type=int_argument(1, 64), default=1, help="onnxruntime threads (1-64, default 1)")
    p.add_argument("--board", action="append", metavar="MAP",
                   help="the board in the pictures: a game (eagle-kingdoms, falconry, mighty-magpies, "
                        "verzauberte-eulen) or a board map JSON (repeatable; default: the four games' maps, found "
                        "by their markers); 'none' reads the dice without looking for a board")
    p.add_argument("--before", metavar="IMAGE",
                   help="the picture taken before the roll from the same place: finds where nothing changed are no dice")
    p.add_argument("--explain", action="store_true",
                   help="also list the finds that are no dice, with the reason (JSON: \"rejected\"; --annotate: grey boxes)")
    p.add_argument("--profile", metavar="PROFILE.json",
                   help="read with a dice profile (companion teach-dice); --kinds defaults to the profile's kinds")
    p.add_argument("--backend", choices=("auto", "onnxruntime", "opencv"), default=None,
                   help="inference runtime (default auto: onnxruntime if installed, else OpenCV DNN; "
                        "or $COMPANION_DICE_BACKEND)")
    p.set_defaults(func=cmd_dice)


def annotate(img, readings, rejected=()):
    out = img.copy()
    thick = max(1, round(max(img.shape[:2]) / 500))
    for r in rejected:  # finds that are no dice: a thin grey box, no label
        x, y, w, h = r.box
        cv2.rectangle(out, (x, y), (x + w, y + h), (150, 150, 150), 1)
    for r in readings:
        x, y, w, h = r.box
        colour = (0, 165, 255) if r.uncertain else (0, 200, 0)
        cv2.rectangle(out, (x, y), (x + w, y + h), colour, thick)
        label = f"{r.value}{'?' if r.uncertain else ''} {r.confidence:.2f}"
        if r.identity:
            label = f"{r.identity}:{label}"
        cv2.putText(out, label, (x, max(12, y - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.4 * thick + 0.1, colour, thick,
                    cv2.LINE_AA)
    return out


def _say_error(path: Path, reason: str, as_json: bool) -> None:
    if as_json:
        print(json.dumps({"image": str(path), "error": reason}), flush=True)
    else:
        print(f"{path}: error: {reason}", flush=True)


def _write_picture(path: Path, img) -> bool:
    ok, data = cv2.imencode(".png", img)
    if not ok:
        return False
    try:
        write_atomic(path, data.tobytes())
    except OSError:
        return False
    return True


class _UsageError(Exception):
    """A command line that cannot run: said as ``error: <message>``, exit status 2."""


def cmd_dice(args: argparse.Namespace) -> int:
    try:
        reader = _dice_reader(args)
        try:
            boards = _boards(args.board)
            before = _before(args.before)
        except (BoardMapError, ImageError) as exc:
            raise _UsageError(str(exc)) from None
        outdir = _annotate_dir(args.annotate)
        paths = imageio.expand_paths(args.paths)
        if not paths:
            raise _UsageError("no image files found")
    except _UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    failures = 0
    written: set[str] = set()
    for path in paths:  # every file gets exactly one answer; one file's failure never ends the batch
        if not _read_picture(path, reader, boards, before, args, outdir, written):
            failures += 1
    return 1 if failures else 0


def _dice_reader(args: argparse.Namespace):
    """The reader for the kinds, registry, profile, threads and backend asked for."""
    from companion.vision.reader import DiceReader

    try:
        kinds = parse_kinds(args.kinds)
    except ValueError as exc:
        raise _UsageError(str(exc)) from None
    registry = None
    if args.registry:
        from companion.vision.registry import DieRegistry

        try:
            registry = DieRegistry.load(args.registry)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise _UsageError(f"cannot load registry {args.registry}: {exc}") from None
    profile = None
    if args.profile:
        from companion.vision.profile import DiceProfile

        try:
            profile = DiceProfile.load(args.profile)
        except VisionError as exc:
            raise _UsageError(exc.reason) from None
        if not args.kinds and profile.kinds():
            kinds = profile.kinds()
    try:
        return DiceReader(kinds=kinds, threads=args.threads, registry=registry, backend=args.backend, profile=profile)
    except VisionError as exc:
        raise _UsageError(exc.reason) from None


def _annotate_dir(name: str | None) -> Path | None:
    """The --annotate folder, made if missing."""
    if not name:
        return None
    outdir = Path(name)
    try:
        outdir.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise _UsageError(f"--annotate {outdir}: that is a file; give a folder for the annotated pictures") from None
    except OSError as exc:
        raise _UsageError(f"--annotate {outdir}: cannot make that folder ({plain_os_error(exc)})") from None
    return outdir


def _read_picture(path: Path, reader, boards, before, args: argparse.Namespace, outdir: Path | None,
                  written: set[str]) -> bool:
    """Read, say (and draw) the dice in one picture; False when it could not be read."""
    try:
        img, scale = imageio.load(path)
        t0 = time.perf_counter()
        readings = reader.read(img)
        context = _in_context(readings, img, boards, before, path)
        ms = (time.perf_counter() - t0) * 1000
    except ImageError as exc:
        _say_error(path, exc.reason, args.json)
        return False
    except Exception as exc:  # a reader failure on one picture: said, and the next picture is read
        _say_error(path, f"the picture could not be read ({exc.__class__.__name__})", args.json)
        return False
    readings, rejected = context.dice, context.rejected
    if scale != 1.0:  # report boxes in the file's pixels
        for r in [*readings, *(r for r, _ in rejected)]:
            r.box = tuple(int(round(v / scale)) for v in r.box)
    if outdir:
        shown = cv2.resize(img, None, fx=1 / scale, fy=1 / scale) if scale != 1.0 else img
        drawn = annotate(shown, readings, [r for r, _ in rejected] if args.explain else ())
        _write_annotated(outdir, _picture_name(path, written), drawn)
    if args.json:
        obj = {"image": str(path), "dice": [r.as_json() for r in readings], "ms": round(ms, 2)}
        if args.explain:
            obj["rejected"] = context.as_json()["rejected"]
        print(json.dumps(obj), flush=True)
    else:
        _say_reading(path, readings, rejected if args.explain else [], ms)
    return True


def _picture_name(path: Path, written: set[str]) -> str:
    """A file name for the annotated ``path`` that no earlier picture of this run took."""
    name = f"{path.stem}.png"
    i = 1
    while name in written:
        name, i = f"{path.stem}-{i}.png", i + 1
    written.add(name)
    return name


def _write_annotated(outdir: Path, name: str, drawn) -> None:
    if not _write_picture(outdir / name, drawn):
        print(f"warning: could not write {outdir / name}", file=sys.stderr)


def _say_reading(path: Path, readings, rejected, ms: float) -> None:
    """One line of dice for a picture, then one line for each find that is no die (--explain)."""
    text = ", ".join(f"{r.kind} {r.value}{' (uncertain)' if r.uncertain else ''} {r.confidence:.2f}"
                     for r in readings) or "no dice"
    print(f"{path}: {text}  [{ms:.1f} ms]", flush=True)
    for r, why in rejected:
        print(f"  not a die: {r.kind} {r.value} at {list(r.box)}: {why}", flush=True)


def _boards(names: list[str] | None) -> list:
    """The board maps to look for: the bundled ones by default, none for ``--board none``; a name is a
    bundled game's map (``--board verzauberte-eulen``) or a map file."""
    from companion.vision.boardmap import load_board_map
    from companion.vision.dice_context import bundled_boards

    bundled = bundled_boards()
    if not names:
        return bundled
    if any(n.lower() == "none" for n in names):
        return []
    by_game = {b.game: b for b in bundled}
    return [by_game[n] if n in by_game else load_board_map(n) for n in names]


def _before(path: str | None):
    return imageio.load(path)[0] if path else None


def _in_context(readings, img, boards, before, path):
    from companion.vision.dice_context import filter_on_boards, find_boards

    if before is not None and before.shape != img.shape:
        print(f"{path}: note: the --before picture has another size; nothing is compared with it", file=sys.stderr)
        before = None
    return filter_on_boards(readings, img, find_boards(img, boards) if boards else [], before)
