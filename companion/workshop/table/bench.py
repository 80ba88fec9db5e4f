"""``companion bench table``: whole seeded games rendered as videos, followed with the code of ``companion follow``.

Usage::

    companion bench table [--json] [--seed S] [--games N] [--only g1,g2] [--renditions 1,2] [--taught] [--failures]
                          [--actions N] [--upright] [--slow] [--box SEED:HUE] [--no-profile]
                          [--taught-dice] [--bare-board] [--lay-out]

For every game and rendition, N seeded games are filmed (:class:`companion.workshop.table.film.GameFilm`:
1280x720 JPEG frames, dice thrown onto and beside the board, hands, light changing between turns, blur
while things move, a phone's wide lens) and followed by :class:`companion.referee.follow.Follower` with
the true journal as the oracle and the lens's camera profile. One JSON object: per game (both renditions
together) exactly issue 20 item 8's fields::

    {"games", "actions", "followed_exactly", "silent_errors", "asks_per_turn", "ms_per_frame_median"}

and beside the games ``targets``, ``run`` (seed, games per rendition, renditions) and ``details``: per game
the CPU time per frame, turns, asks by reason, illegal calls, frames refused, why games stopped, and every
figure per rendition (``renditions``; each game's own figures with ``--failures``).

Teach your board is on the natural path, as in the app: the pipeline learns the look of the filmed box from
the set-up photo once the set-up is confirmed (read from the camera, or answered by the oracle where it
could not be read). ``--taught`` hands each pipeline a look taught before the film from one photo of the box
as dealt (a family that taught its box at an earlier game: ``follow --look``). Each game's ``look`` says
what was taught.

``--box SEED:HUE`` films rendition 2 as another box, one the readers were never tuned on: its printed art drawn
from SEED, its art, felt and wood turned HUE degrees round the hue circle (the pieces keep the colours the
rulebooks give them).

- ``followed_exactly``: share of games whose journal equals the true game (followed to the end);
- ``silent_errors``: actions confirmed without asking that differ from the truth (the first one of a game;
  the game followed then differs from the true one, and what follows is its consequence);
- ``asks_per_turn``: answers taken from the oracle per turn followed (a turn: one player's go; its dice and
  its move each count; a game that stopped early counts the turns up to there), with ``asks_by_reason``. The
  oracle is the family at the filmed table (:class:`FilmedFamily`): it answers with an action only once the
  film has shown the table make it; a question about an action not made yet stays on screen until then
  (``asked_early`` in details counts them). An oracle that answered at once let the camera run ahead of the
  table on answers about the future (Eagle Kingdoms s11 r2: 100 actions ahead by the film's frame 2599);
- ``ms_per_frame_median``: the pipeline's wall clock per frame (motion, pose, board and dice), one thread;
  ``cpu_ms_per_frame_median`` (details) the same in this thread's CPU time (what a busy machine inflates
  least: the speed target is judged on it), and ``stages_cpu_ms`` where it goes: per stage of the pipeline
  (undistort, motion, pose, quality, photometry, reader, dice, match, other) the median and p90 CPU ms over
  the frames (:mod:`companion.workshop.table.stages`; ``companion bench profile`` for a short stretch).

``--taught-dice`` follows a family that showed the camera each face of its dice before the game (the app's "teach
your dice", issue 21): the pipeline's dice reader reads with that profile.

``--bare-board`` follows a family that showed the camera its board with nothing on it before laying the set-up
(the app's "photo of the empty board"): Verzauberte Eulen and Mighty Magpies learn the print under their nests,
which every set-up covers (:meth:`companion.referee.table.TablePipeline.teach_bare`).

``--lay-out`` films the camera on before the set-up was laid: the empty board, still, then a hand that lays out the
pieces (the pipeline learns the nests' print from it by itself once the set-up is taught).

``--no-profile`` follows as a family whose phone was never calibrated: the pipeline gets no camera profile of the
film's wide lens (k1 -0.12) and measures it on the board (:mod:`companion.vision.lens`).

``--upright`` films the games as a phone held upright sees them: 720x1280 portrait frames (the same lens, light,
hands and JPEG), the board across the picture's narrow side.

``--slow`` films a slower family (``SLOW``): each hand's way and each throw's tumble takes three frames where
it took one, and a hand stays still for six frames (0.6 s at 10 frames a second) over the piece it takes and
again where it puts it -- a hand held over the board long enough for the board to look settled under it.

``--actions N`` films and follows only the first N true actions of each game (to trace a divergence early in
a long game; the game is then "stopped", never followed exactly; its silent errors and asks count as usual).

Targets (benchmarks, not tests): 0 silent errors, <= 0.2 asks per turn, >= 98 % followed exactly, <= 40 ms
per frame. Exit status 0 when every game met them, 1 otherwise, 2 on bad usage. A whole game of Eagle
Kingdoms is a few thousand frames: run it under ``nice``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from companion.referee.follow import Oracle
from companion.referee.table import MISSED_ROLL
from companion.workshop.boards.scenes import art

GAMES = ("eagle-kingdoms", "falconry", "verzauberte-eulen", "mighty-magpies")
LANDSCAPE, UPRIGHT = (1280, 720), (720, 1280)  # frame sizes: a phone on its side, a phone held upright
SLOW = {"pace": 3, "hover": 6}  # a slower family's film (GameFilm's pace and hover)
TARGETS = {"silent_errors_max": 0, "asks_per_turn_max": 0.2, "followed_exactly_min": 0.98, "ms_per_frame_max": 40.0}


def turns_of(states: Sequence[Any]) -> int:
    """Turns of a game: runs of decisions by one player (chance steps do not break a run)."""
    turns, last = 0, None
    for state in states[:-1]:
        if state.is_chance_node():
            continue
        if state.current_player != last:
            turns += 1
            last = state.current_player
    return max(turns, 1)


class FilmedFamily(Oracle):
    """The true game as the family at a filmed table knows it: ready with an action once the film's frame
    (``steps``: each frame's shot's step) shows the table making it or a later one."""

    def __init__(self, path: str | Path, game_name: str, steps: Sequence[int]):
        super().__init__(path, game_name)
        self._steps = list(steps)

    def ready(self, index: int, frame: int) -> bool:
        return bool(self._steps) and index < self._steps[min(frame, len(self._steps) - 1)]


def _teach_dice(pipeline: Any, film: Any) -> str:
    """The family's dice profile, each face shown once (``--taught-dice``); what was done, in words."""
    from companion.vision.profile import DiceProfile, ProfileError
    from companion.vision.teach_dice import DiceTeacher

    reader = pipeline.dice_reader()
    if reader is None:
        return "no dice to teach; "
    config = reader.classifier.config
    try:
        shown = film.show_dice(DiceTeacher(reader, DiceProfile.new("the family's dice", int(config["size"]), float(config["crop_scale"]))))
    except ProfileError as exc:
        return f"dice not taught: {exc}; "
    return f"{shown} dice faces taught before the film; "


def follow_film(game: str, seed: int, rendition: int, work: Path, taught: bool = False,
                actions: int | None = None, frames: int | None = None, size: tuple[int, int] = LANDSCAPE,
                pace: int = 1, hover: int = 0, profile: bool = True, taught_dice: bool = False,
                bare_board: bool = False, lay_out: bool = False) -> dict[str, Any]:
    """Film one seeded game and follow it; the figures of that one game, with the CPU ms of each stage of
    each frame (``stages``: :class:`~companion.workshop.table.stages.StageClock`). ``taught``: the board
    reader first learns the box's look from one photo of it as dealt (as at an earlier game); either way the
    pipeline learns it again from the set-up photo once the set-up is confirmed. ``actions``: film only the
    first that many true actions. ``frames``: follow only the film's first so many frames (a profile; the
    game then ends unfinished). ``size``: the film's frames (720x1280: a phone held upright). ``pace``,
    ``hover``: a slower family (:class:`~companion.workshop.table.film.GameFilm`). ``profile``: the pipeline
    knows the film's lens (a calibrated phone); without, it measures the lens on the board itself. ``taught_dice``: the
    family showed the camera each face of its dice before the game (:meth:`GameFilm.show_dice`). ``bare_board``: and its
    board with nothing on it (:meth:`GameFilm.bare_photo`). ``lay_out``: the film begins with the empty board, then the
    set-up is laid out in view."""
    from itertools import islice

    from companion.referee.follow import Follower, follow
    from companion.referee.table import TablePipeline
    from companion.vision.teach import TeachError
    from companion.workshop.table.film import GameFilm
    from companion.workshop.table.stages import StageClock

    film = GameFilm(game, seed, rendition=rendition, size=size, pace=pace, hover=hover, lay_out=lay_out)
    pipeline = TablePipeline(film.game, camera=film.camera if profile else None, registry=film.registry())
    look = _teach_dice(pipeline, film) if taught_dice else ""
    if bare_board:
        try:
            pipeline.teach_bare(film.bare_photo())
            look += "the empty board shown before the film; "
        except TeachError as exc:
            look += f"the empty board not taught: {exc}; "
    if taught:
        try:
            pipeline.teach_look(*film.teaching_photo())
            look += "taught before the film; "
        except TeachError as exc:
            look += f"not taught before the film: {exc}; "
    truth_path = film.write_truth(work / f"{game}-{seed}-{rendition}-true.jsonl")
    journal = work / f"{game}-{seed}-{rendition}.jsonl"
    reasons: Counter[str] = Counter()

    def on_event(_frame: int, event: Any) -> None:
        if event.kind in ("question", "illegal") or (event.proposal and not event.sure):
            if event.kind == "dice":
                reasons["missed roll" if event.reason == MISSED_ROLL else "unsure dice"] += 1
            else:
                reasons[event.reason or event.kind] += 1

    family = FilmedFamily(truth_path, film.game.name, [shot.step for shot in film.shots])
    follower = Follower(film.game, journal, family, pipeline=pipeline, on_event=on_event)
    t0 = time.perf_counter()
    with StageClock() as clock:
        report = follow(((i / 10.0, image) for i, image in enumerate(islice(film.frames(actions), frames))), follower)
    seconds = time.perf_counter() - t0
    followed = follower.session.history if follower.session is not None else []
    truth = film.actions
    diverged = next((i for i, action in enumerate(followed) if i >= len(truth) or action != truth[i]), None)
    # a confirmed action that differs from the truth leaves the game followed: the rest is its consequence
    silent = int(diverged is not None and diverged in report.camera_actions)
    return {
        # asks per turn over the turns followed (a game that stopped early asked over fewer)
        "seed": seed, "rendition": rendition, "actions": len(truth), "turns": turns_of(film.states[:len(followed) + 1]),
        "followed_exactly": not report.error and followed == truth, "silent_errors": silent, "diverged_at": diverged,
        "followed": len(followed),
        "asked": report.asked, "asks_by_reason": dict(reasons), "asked_early": report.asked_early,
        "illegal_calls": report.illegal_calls,
        "frames": report.frames, "refused_frames": report.refused_frames,
        "ms": report.ms, "cpu_ms": report.cpu_ms, "stages": clock.frames, "error": report.error, "seconds": round(seconds, 1),
        "look": look + _look_words(pipeline),
    }


def _look_words(pipeline: Any) -> str:
    """What the pipeline learned of the box while following: the looks taught, or why none was."""
    taught = pipeline.look_taught
    empty = "; the empty board's print learnt" if pipeline.bare_look is not None else ""
    if pipeline.look_error:
        return f"{taught} look(s) taught{empty}; {pipeline.look_error}"
    return (f"{taught} look(s) taught while following" if taught else "no look taught") + empty


FIELDS = ("games", "actions", "followed_exactly", "silent_errors", "asks_per_turn", "ms_per_frame_median")
"""A game's figures in the output: exactly issue 20, item 8's fields (the rest is under ``details``)."""


def summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of some followed games: issue 20 item 8's :data:`FIELDS` first, then the details."""
    from companion.workshop.table.stages import stage_summary

    done = [r for r in results if "actions" in r]
    if not done:
        return {**dict.fromkeys(FIELDS), "games": 0, "error": results[0].get("error") if results else "nothing run"}
    turns = sum(r["turns"] for r in done)
    ms = [m for r in done for m in r["ms"]]
    cpu = [m for r in done for m in r["cpu_ms"]]
    reasons: Counter[str] = Counter()
    for r in done:
        reasons.update(r["asks_by_reason"])
    return {
        "games": len(done),
        "actions": sum(r["actions"] for r in done),
        "followed_exactly": round(sum(r["followed_exactly"] for r in done) / len(done), 4),
        "silent_errors": sum(r["silent_errors"] for r in done),
        "asks_per_turn": round(sum(r["asked"] for r in done) / turns, 4),
        "ms_per_frame_median": round(float(np.median(ms)), 2) if ms else None,
        "cpu_ms_per_frame_median": round(float(np.median(cpu)), 2) if cpu else None,
        "stages_cpu_ms": stage_summary([f for r in done for f in r.get("stages", [])]),
        "turns": turns,
        "asked": sum(r["asked"] for r in done),
        "asks_by_reason": dict(reasons),
        "asked_early": sum(r.get("asked_early", 0) for r in done),
        "illegal_calls": sum(r["illegal_calls"] for r in done),
        "frames": sum(r["frames"] for r in done),
        "refused_frames": sum(r["refused_frames"] for r in done),
        "stopped": [f"seed {r['seed']} r{r['rendition']}: {r['error']}" for r in done if r["error"]][:5],
        **({"look": sorted({r["look"] for r in done if "look" in r})} if any("look" in r for r in done) else {}),
    }


def meets_targets(s: dict[str, Any]) -> bool:
    """The targets, the speed judged on the pipeline thread's CPU time (one core; a shared machine inflates
    the wall clock with other work)."""
    return bool(s.get("games")) and s["silent_errors"] <= TARGETS["silent_errors_max"] \
        and s["asks_per_turn"] <= TARGETS["asks_per_turn_max"] \
        and s["followed_exactly"] >= TARGETS["followed_exactly_min"] \
        and (s.get("cpu_ms_per_frame_median") or 1e9) <= TARGETS["ms_per_frame_max"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="companion bench table", description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", type=int, default=50, help="games per game and rendition (default 50)")
    parser.add_argument("--only", default=",".join(GAMES), help="comma-separated subset of the games")
    parser.add_argument("--renditions", default="1,2", help="renditions to film (default 1,2)")
    parser.add_argument("--failures", action="store_true", help="keep each game's figures in the output")
    parser.add_argument("--actions", type=int, default=None,
                        help="film and follow only the first N true actions of each game (tracing)")
    parser.add_argument("--taught", action="store_true",
                        help="hand each pipeline a look taught before the film from one photo of the box as dealt "
                             "(the set-up teaches it anyway, as in the app)")
    parser.add_argument("--upright", action="store_true", help="film as a phone held upright sees: 720x1280 frames")
    parser.add_argument("--slow", action="store_true",
                        help="film a slower family: hands and throws three times as long, hands held still over the board")
    parser.add_argument("--box", default="", help=art.BOX_HELP)
    parser.add_argument("--taught-dice", action="store_true",
                        help="the family showed the camera each face of its dice before the game (teach your dice)")
    parser.add_argument("--bare-board", action="store_true",
                        help="the family showed the camera its empty board before the set-up (Eulen, Magpies: the nests' print)")
    parser.add_argument("--lay-out", action="store_true",
                        help="the film begins with the empty board, then a hand lays out the set-up in view")
    parser.add_argument("--no-profile", action="store_true",
                        help="a phone never calibrated: the pipeline gets no camera profile and measures the lens itself")
    args = parser.parse_args(argv)
    box_error = art.use_box_option(args.box)
    if box_error:
        print(box_error, file=sys.stderr)
        return 2
    games = [g.strip() for g in args.only.split(",") if g.strip()]
    try:
        renditions = [int(r) for r in args.renditions.split(",") if r.strip()]
    except ValueError:
        renditions = []
    if args.games < 1 or not renditions or any(g not in GAMES for g in games) or (args.actions or 1) < 1:
        print(f"error: --games >= 1, --actions >= 1, --renditions like 1,2, --only among {', '.join(GAMES)}", file=sys.stderr)
        return 2
    import cv2

    cv2.setNumThreads(1)
    report: dict[str, Any] = {}
    details: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-table-") as tmp:
        for game in games:
            per_rendition: dict[str, Any] = {}
            every: list[dict[str, Any]] = []
            for rendition in renditions:
                results = []
                for k in range(args.games):
                    try:
                        results.append(follow_film(game, args.seed + k, rendition, Path(tmp), args.taught, args.actions,
                                                   size=UPRIGHT if args.upright else LANDSCAPE,
                                                   **(SLOW if args.slow else {}), profile=not args.no_profile,
                                                   taught_dice=args.taught_dice, bare_board=args.bare_board,
                                                   lay_out=args.lay_out))
                    except ValueError as exc:  # e.g. a rendition the painter does not draw yet
                        results.append({"error": str(exc)})
                        break
                    r = results[-1]  # progress: a whole game takes minutes
                    print(f"{game} r{rendition} seed {r['seed']}: exact={r['followed_exactly']} silent={r['silent_errors']} "
                          f"asked={r['asked']}/{r['turns']} turns, {r['frames']} frames, {r['seconds']} s"
                          + (f" -- {r['error']}" if r["error"] else ""), file=sys.stderr, flush=True)
                per_rendition[str(rendition)] = summary(results)
                if args.failures:
                    per_rendition[str(rendition)]["runs"] = [{k: v for k, v in r.items() if k not in ("ms", "cpu_ms", "stages")} for r in results]
                every += [r for r in results if "actions" in r]
            overall = summary(every)
            report[game] = {k: overall[k] for k in FIELDS}
            details[game] = {**{k: v for k, v in overall.items() if k not in FIELDS}, "renditions": per_rendition}
            if not args.json:
                print(f"{game}: {json.dumps(report[game])}", flush=True)
    ok = all(meets_targets({**report[g], **details[g]}) for g in games)
    report["targets"] = dict(TARGETS)
    report["run"] = {"seed": args.seed, "games_per_rendition": args.games, "renditions": renditions, "taught": args.taught,
                     **({"actions": args.actions} if args.actions else {}), **({"upright": True} if args.upright else {}),
                     **({"slow": SLOW} if args.slow else {}), **({"box": args.box} if args.box else {}),
                     **({"camera_profile": False} if args.no_profile else {}),
                     **({"taught_dice": True} if args.taught_dice else {}),
                     **({"bare_board": True} if args.bare_board else {}),
                     **({"lay_out": True} if args.lay_out else {})}
    report["details"] = details
    if args.json:
        print(json.dumps(report))
    else:
        print("targets met" if ok else "targets missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
