"""The dice reader on the whole-game films, die by die: how the table pipeline's dice reading fares on the
small dice of ``companion bench table`` (16 mm dice at 1280x720 through a phone's wide lens, ~20 px across).

    figures = measure(games=("eagle-kingdoms", "mighty-magpies", "verzauberte-eulen"), seeds=(0,), rolls=30)

For each seeded film (:class:`companion.workshop.table.film.GameFilm`, rendition 1) the settled rolls are taken
in order: the first ``frames`` still frames after the dice land, each drawn as the film draws it (light,
noise, lens, JPEG), undistorted with the film's camera profile as the pipeline does, and read as the
pipeline reads dice: :class:`companion.vision.table_changes.DiceWindows` around what changed since the
frame before the throw (the same position and light without the dice), with the game's kinds of dice and,
where the game tells its dice apart, the registry the app's "show me each die" makes, and the board's pose
found in the frame by the game's board tracker (which tells the reader the dice it sees from above). The film
knows the true dice; a reading whose box centre lies within half a die of a true die's centre is its find.

Each die of each frame ends as one of: **sure and right**, **sure and wrong** (what the pipeline would
take without asking), **unsure** (found, marked uncertain: one ask) or **missed**; sure readings matching
no die are counted as **extra**. Per die kind, and per roll as the settled roll would be: the last frame's
readings, since the dice tracker reports a roll with the readings of the frame it settled on. Falconry
has no dice and is not filmed here. Two seeds x three games x 30 rolls x 3 frames took 13 minutes on this
shared 2-core machine (drawing the films and posing each frame included).
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

DICE_GAMES = ("eagle-kingdoms", "mighty-magpies", "verzauberte-eulen")
OUTCOMES = ("sure_right", "sure_wrong", "unsure", "missed")


@dataclass
class TrueDie:
    kind: str  # the reader's kind (d6, d8, magpie)
    value: Any
    x: float  # centre, undistorted frame px
    y: float
    size: float  # side in px


@dataclass
class SettledRoll:
    """One roll of a film: the frames after the dice came to rest, the frame before the throw, the truth."""

    game: str
    index: int
    frames: list[np.ndarray]
    before: np.ndarray
    dice: list[TrueDie]
    die_px: float
    extra: dict[str, Any] = field(default_factory=dict)
    die_px_at: Callable[[float, float], float] | None = None  # a die's side where it lies (the pipeline's, by the pose)


def outcome(reading: Any, die: TrueDie) -> str:
    """How one true die fared with the reading found for it (None: not found)."""
    if reading is None:
        return "missed"
    if reading.uncertain:
        return "unsure"
    return "sure_right" if (reading.kind, str(reading.value)) == (die.kind, str(die.value)) else "sure_wrong"


def match_dice(readings: Sequence[Any], dice: Sequence[TrueDie]) -> tuple[list[Any], int]:
    """(the reading found for each true die or None, sure readings matching no die). Nearest centres first;
    a reading matches a die when its box centre lies within half the die's side of the die's centre."""
    pairs = []
    for i, r in enumerate(readings):
        cx, cy = r.box[0] + r.box[2] / 2, r.box[1] + r.box[3] / 2
        for j, d in enumerate(dice):
            dist = float(np.hypot(cx - d.x, cy - d.y))
            if dist <= 0.5 * d.size + 2:
                pairs.append((dist, i, j))
    found: list[Any] = [None] * len(dice)
    used: set[int] = set()
    for _dist, i, j in sorted(pairs):
        if i in used or found[j] is not None:
            continue
        found[j] = readings[i]
        used.add(i)
    extra = sum(1 for i, r in enumerate(readings) if i not in used and not r.uncertain)
    return found, extra


def film_rolls(film: Any, rolls: int, frames: int = 3) -> Iterator[SettledRoll]:
    """The first ``rolls`` settled rolls of a film, ``frames`` still frames each (see the module docstring)."""
    from companion.workshop.table.film import READER_KIND, Shot

    shots = film.shots
    rng = np.random.default_rng(film.seed + 11)
    undistort = _undistorter(film)
    scale = film.px_per_mm()
    done = 0
    for i in range(1, len(shots)):
        if done >= rolls:
            return
        if not shots[i - 1].tumbling or shots[i].tumbling or not shots[i].dice:
            continue
        still = []
        for shot in shots[i:i + frames]:
            if shot.tumbling or shot.hand is not None or [id(d) for d in shot.dice] != [id(d) for d in shots[i].dice]:
                break
            still.append(shot)
        if not still:
            continue
        first = still[0]
        empty = Shot(first.scene, [], light=first.light, light_from=first.light_from)
        truth = [TrueDie(READER_KIND[d.kind], d.value, d.x, d.y, film.die_px(d.kind, d.x, d.y)) for d in first.dice]
        yield SettledRoll(film.name, done, [undistort(film.draw(s, rng)) for s in still], undistort(film.draw(empty, rng)),
                          truth, 16.0 * scale, die_px_at=lambda x, y: 16.0 * film.px_per_mm_at(x, y))
        done += 1


def _undistorter(film: Any):
    """The pipeline's undistortion (``TablePipeline._undistorted``) for the film's camera."""
    if film.camera is None:
        return lambda frame: frame
    K, dist = film.camera.camera_matrix, film.camera.dist_coeffs
    maps = cv2.initUndistortRectifyMap(K, dist, None, K, film.size, cv2.CV_16SC2)
    return lambda frame: cv2.remap(frame, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def read_roll(reader: Any, roll: SettledRoll, tracker: Any = None) -> tuple[list[list[Any]], list[int], list[float]]:
    """Per frame of the roll: (the reading found for each die, sure extras, CPU ms of the dice reading), read through
    fresh windows (each window's detector and classifier: the pipeline keeps still windows' finds instead); ``tracker`` (a board tracker, optional) poses the frame as the pipeline does."""
    from companion.vision.table_changes import DiceWindows

    per_frame, extras, ms = [], [], []
    for frame in roll.frames:
        seen_at = tracker.seen_at(tracker.update(frame), frame.shape[1::-1]) if tracker is not None else None
        windows = DiceWindows(reader)  # fresh: each frame read, none kept from the frame before
        t0 = time.thread_time()  # CPU time of this thread: what a busy machine inflates least
        readings = windows.read(frame, roll.before, roll.die_px, (), seen_at=seen_at, die_px_at=roll.die_px_at)
        ms.append((time.thread_time() - t0) * 1000)
        found, extra = match_dice(readings, roll.dice)
        per_frame.append(found)
        extras.append(extra)
    return per_frame, extras, ms


def tally(results: Iterable[tuple[SettledRoll, list[list[Any]], list[int]]]) -> dict[str, Any]:
    """Counts per die kind over every frame read, and per roll from each roll's last frame."""
    per_kind: dict[str, Counter] = defaultdict(Counter)
    last_kind: dict[str, Counter] = defaultdict(Counter)
    rolls = Counter()
    extra = frames = 0
    for roll, per_frame, extras in results:
        for found in per_frame:
            frames += 1
            for die, reading in zip(roll.dice, found, strict=True):
                per_kind[die.kind][outcome(reading, die)] += 1
        extra += sum(extras)
        last = [outcome(r, d) for d, r in zip(roll.dice, per_frame[-1], strict=True)]
        for die, o in zip(roll.dice, last, strict=True):
            last_kind[die.kind][o] += 1
        rolls["rolls"] += 1
        if "sure_wrong" in last:
            rolls["silently_wrong"] += 1
        elif all(o == "sure_right" for o in last):
            rolls["right_without_tap"] += 1
        else:
            rolls["asked"] += 1
    return {"frames": frames, "sure_extra_finds": extra,
            "per_kind": {k: shares(c) for k, c in sorted(per_kind.items())},
            "settled_per_kind": {k: shares(c) for k, c in sorted(last_kind.items())},
            "rolls": dict(rolls)}


def shares(counts: Counter) -> dict[str, Any]:
    n = sum(counts[o] for o in OUTCOMES)
    sure = counts["sure_right"] + counts["sure_wrong"]
    return {"dice": n, **{o: counts[o] for o in OUTCOMES},
            "found": (n - counts["missed"]) / max(1, n), "sure_right_share": counts["sure_right"] / max(1, n),
            "unsure_share": counts["unsure"] / max(1, n), "wrong_of_sure": counts["sure_wrong"] / max(1, sure)}


def reader_for(game: str, film: Any = None, **options: Any) -> Any:
    """The dice reader the table pipeline makes for ``game`` (its kinds; the film's registry of dice told apart)."""
    from companion.games.registry import load_game
    from companion.referee.dice import reader_kinds
    from companion.vision.reader import DiceReader

    kinds = reader_kinds(load_game(game).game_class.dice_kinds)
    return DiceReader(kinds=kinds, threads=1, registry=film.registry() if film is not None else None, **options)


def measure(games: Sequence[str] = DICE_GAMES, seeds: Sequence[int] = (0,), rolls: int = 30, frames: int = 3,
            make_reader: Any = reader_for, progress: Any = None) -> dict[str, Any]:
    """Per game (its films of ``seeds``, ``rolls`` settled rolls each, ``frames`` frames each) and all games
    together: ``tally``'s figures plus the median CPU ms of reading one frame's windows afresh (one thread)."""
    from companion.referee.table_games import table_game
    from companion.workshop.table.film import GameFilm

    out: dict[str, Any] = {"run": {"seeds": list(seeds), "rolls_per_film": rolls, "frames_per_roll": frames},
                           "games": {}}
    every: list[tuple[SettledRoll, list[list[Any]], list[int]]] = []
    all_ms: list[float] = []
    for game in games:
        results, ms = [], []
        for seed in seeds:
            film = GameFilm(game, seed)
            reader = make_reader(game, film)
            tracker = table_game(game).make_reader(film.board, None).tracker  # the pipeline's (frames undistorted)
            for roll in film_rolls(film, rolls, frames):
                per_frame, extras, took = read_roll(reader, roll, tracker)
                results.append((roll, per_frame, extras))
                ms.extend(took)
                if progress is not None:
                    progress(game, seed, roll.index)
        out["games"][game] = {**tally(results), "ms_per_frame_median": round(float(np.median(ms)), 2) if ms else None}
        every.extend(results)
        all_ms.extend(ms)
    out["all"] = {**tally(every), "ms_per_frame_median": round(float(np.median(all_ms)), 2) if all_ms else None}
    return out
