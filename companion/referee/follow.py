"""``companion follow``: the app's camera pipeline, headless, over a recorded game.

    companion follow VIDEO --game G --players A,B[,...] [--mode M] [--variant V] [--option K=V]
                     --journal J [--oracle TRUE.jsonl] [--look LOOK.json] [--json]

VIDEO is any file OpenCV can read, or a folder of frames taken in name order at 10 frames a second
(unless the folder's ``fps.txt`` says otherwise). Every frame goes through
:class:`companion.referee.table.TablePipeline`; what it is sure of is confirmed and written to the journal
J exactly as the app writes it (header, set-up, every action, each on disk before the next frame). Where
the app would ask the family -- a reading it is unsure of, several explanations, an illegal call, a set-up
it could not read, a choice the camera cannot see -- the answer is the next action of ``--oracle`` (a
journal of the true game) and one ask is counted; the oracle is read only then. An unsure roll proposed with
the decisions before it that show nowhere is one proposal in the app, so one ask answers it whole (while the
oracle's decisions are the ones proposed). Without an oracle a
question waits for a later frame that settles it.

The look of the family's box (teach your board) is taught as in the app: from the set-up photo once the
set-up is confirmed (read, or answered by the oracle). ``--look FILE`` reads a look taught before from
FILE (a damaged one: one line on stderr, and the box is read as the project draws it until the set-up
teaches it again) and writes the look taught in this run there (atomically).

With ``--json`` the last line is exactly ``{"frames", "actions", "asked", "proposed_by_camera",
"illegal_calls", "refused_frames", "ms_per_frame_median", "journal"}`` (``journal``: the file written, or
null when no game began); why following stopped, or could not start, is said on stderr. Exit status: 0
when the game was followed to its end, 1 when following stopped (a frame size that changes, no board in
the video, the video ends before the game does, an oracle shorter than the game or one the followed game
left), 2 when it could not start (no such video, a bad oracle or game, a journal that exists or that
another process has open: one writer per journal, the lock taken before the first frame). Every action
confirmed before a stop is in the journal.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.games.core import Action, Game, GameError, State
from companion.referee.table import DICE, ILLEGAL, QUESTION, STATUS, TableEvent, TablePipeline

DEFAULT_FPS = 10.0
APP_COLOURS = [0, 1, 2, 3, 0, 1]
"""The player colours the app keeps in a new journal's header when the family chooses none
(``companion.app.controller.DEFAULT_COLOURS``): the journal is written as the app writes it."""
MAX_STEPS_PER_FRAME = 64  # events acted on for one frame (a chain of answers), a guard against loops


class FollowError(Exception):
    """The video cannot be followed (on): the message says why, in plain words."""


# -- frames -------------------------------------------------------------------------------------------


def video_frames(path: str | Path) -> tuple[Iterator[tuple[float, np.ndarray | None]], float]:
    """(frames as (time in s, BGR image or None for a frame that cannot be read), frames per second) of a
    video file or a folder of pictures. Raises :class:`FollowError` when it cannot be opened."""
    path = Path(path)
    if path.is_dir():
        return _folder_frames(path)
    if not path.is_file():
        raise FollowError(f"no video at {path}")
    capture = cv2.VideoCapture(str(path))
    if not capture.isOpened():
        capture.release()
        raise FollowError(f"{path} cannot be opened as a video")
    fps = float(capture.get(cv2.CAP_PROP_FPS) or 0) or DEFAULT_FPS

    def frames() -> Iterator[tuple[float, np.ndarray | None]]:
        index = 0
        try:
            while True:
                ok, image = capture.read()
                if not ok or image is None:
                    return
                yield index / fps, image
                index += 1
        finally:
            capture.release()

    return frames(), fps


def _folder_frames(folder: Path) -> tuple[Iterator[tuple[float, np.ndarray | None]], float]:
    from companion.vision.errors import ImageError
    from companion.vision.imageio import IMAGE_SUFFIXES, load

    fps = DEFAULT_FPS
    fps_file = folder / "fps.txt"
    if fps_file.is_file():
        try:
            fps = float(fps_file.read_text(encoding="utf-8").strip())
        except (OSError, ValueError, UnicodeDecodeError):
            raise FollowError(f"{fps_file} does not hold a number of frames per second") from None
        if not 0 < fps <= 1000:
            raise FollowError(f"{fps_file} says {fps:g} frames per second; give a number above 0")
    files = sorted((p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES), key=lambda p: p.name)
    if not files:
        raise FollowError(f"{folder} holds no pictures")

    def frames() -> Iterator[tuple[float, np.ndarray | None]]:
        for index, file in enumerate(files):
            try:
                image, scale = load(file)
            except ImageError:
                image, scale = None, 1.0
            if image is not None and scale != 1.0:  # a huge picture comes back shrunk: its frame size changed
                image = None
            yield index / fps, image

    return frames(), fps


# -- the oracle ---------------------------------------------------------------------------------------


class Oracle:
    """A journal of the true game: asked, it answers with the action at the position asked about."""

    def __init__(self, path: str | Path, game_name: str):
        from companion.journal import Journal, JournalError

        try:
            contents = Journal.read(path)
        except JournalError as exc:
            raise FollowError(f"the oracle cannot be read: {exc}") from None
        found = contents.header.get("game")
        if found != game_name:
            raise FollowError(f"the oracle {path} is a journal of {found!r}, not of {game_name!r}")
        self.path = Path(path)
        self.config = dict(contents.header.get("config") or {})
        self._actions = contents.actions()

    def ready(self, index: int, frame: int) -> bool:
        """Whether the family can answer with action ``index`` at ``frame``: a journal has no clock, so always
        (a film knows when the table made each action: ``companion.workshop.table.bench.FilmedFamily``)."""
        return True

    def answer(self, index: int) -> Action:
        """The true action number ``index`` (0-based)."""
        if index >= len(self._actions):
            raise FollowError(f"the oracle is shorter than the game: asked for action {index + 1}, it has {len(self._actions)}")
        return self._actions[index]


# -- following ----------------------------------------------------------------------------------------


@dataclass
class FollowReport:
    frames: int = 0
    actions: int = 0
    asked: int = 0
    proposed_by_camera: int = 0
    illegal_calls: int = 0
    refused_frames: int = 0
    ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    journal: str = ""
    error: str = ""
    camera_actions: list[int] = field(default_factory=list)  # indices of the actions confirmed without asking
    asked_early: int = 0  # questions about an action the table had not made yet (the oracle not ``ready``)

    def as_json(self) -> dict[str, Any]:
        """Exactly the fields of issue 20, item 7 (a stop's reason goes to stderr): ``journal`` is the file
        written, or None when none was."""
        return {
            "frames": self.frames, "actions": self.actions, "asked": self.asked,
            "proposed_by_camera": self.proposed_by_camera, "illegal_calls": self.illegal_calls,
            "refused_frames": self.refused_frames,
            "ms_per_frame_median": round(float(np.median(self.ms)), 2) if self.ms else None,
            "journal": self.journal or None,
        }


class Follower:
    """Feeds frames to the pipeline and acts on its events as ``companion follow`` does (the benchmark
    uses it the same way). ``game``: the game as configured on the command line; ``journal``: where to
    write it (None: nowhere); ``oracle``: the true game or None."""

    def __init__(self, game: Game, journal: str | Path | None, oracle: Oracle | None = None, *, camera: Any = None,
                 registry: Any = None, pipeline: TablePipeline | None = None,
                 on_event: Callable[[int, TableEvent], None] | None = None):
        self.game = game
        self.journal_path = journal
        self.oracle = oracle
        self.pipeline = pipeline or TablePipeline(game, camera=camera, registry=registry)
        self.session: Any = None
        self.report = FollowReport(journal=str(journal or ""))
        self._reserved = _reserve(journal)  # the writer's lock, from the first frame (the set-up may come late)
        self.on_event = on_event
        self.size: tuple[int, int] | None = None
        self._index = 0
        self._question: tuple[int, tuple[Action, ...]] | None = None  # on screen: (at history length, roll path)
        if self.pipeline.table.setup_is_action:
            self._start({})  # the app starts the journal with the game; its set-up is the first action

    @property
    def state(self) -> State | None:
        return self.session.state if self.session is not None else None

    def close(self) -> None:
        if self.session is not None:
            self.session.close()
        elif self._reserved is not None:  # no game began: the empty file reserved for it goes
            reserved, self._reserved = self._reserved, None
            try:
                if reserved.path.stat().st_size == 0:
                    reserved.path.unlink()
            except OSError:
                pass
            reserved.close()

    # -- frames ---------------------------------------------------------------------------------------
    def feed(self, captured_at: float, image: np.ndarray | None) -> None:
        """One frame; raises :class:`FollowError` when following must stop."""
        self.report.frames += 1
        self._index = self.report.frames - 1
        if image is None:
            self.report.refused_frames += 1
            return
        size = (int(image.shape[1]), int(image.shape[0]))
        if self.size is not None and size != self.size:
            raise FollowError(f"the frame size changed at frame {self._index + 1}: {size[0]}x{size[1]}, "
                              f"the video began at {self.size[0]}x{self.size[1]}")
        self.size = size
        t0, c0 = time.perf_counter(), time.thread_time()
        events = self.pipeline.process(image, captured_at, self.state)
        self.report.ms.append((time.perf_counter() - t0) * 1000)
        self.report.cpu_ms.append((time.thread_time() - c0) * 1000)
        if events and events[0].kind == STATUS and events[0].info.get("refused"):
            self.report.refused_frames += 1
        self._act(events)
        if self._answer():  # a question asked before the table got there, answered once it has
            self._act(self.pipeline.reevaluate(self.state))

    def finish(self) -> None:
        """After the last frame: the game must be over (and a board must have been seen)."""
        if self.report.frames == 0:
            raise FollowError("the video has no frames")
        if not self.pipeline.ever_posed:
            raise FollowError("no board was seen in the video (no markers found in any frame)")
        state = self.state
        if state is None:
            raise FollowError("the video ends before the set-up was read")
        if not state.is_terminal():
            waits = "a roll" if state.is_chance_node() else state.player_name(state.current_player)
            raise FollowError(f"the video ends mid-game, after {len(self.session.history)} actions "
                              f"(waiting for {waits}); the journal keeps every action confirmed")

    # -- events ---------------------------------------------------------------------------------------
    def _act(self, events: list[TableEvent]) -> None:
        for _step in range(MAX_STEPS_PER_FRAME):
            acted = False
            for event in events:
                if event.kind == STATUS:
                    continue
                if self.on_event is not None:
                    self.on_event(self._index, event)
                acted = self._on_event(event)
                if acted:
                    break
            if not acted:
                return
            events = self.pipeline.reevaluate(self.state)

    def _on_event(self, event: TableEvent) -> bool:
        """Act on one event; True when the game moved on (the other events of the frame are stale)."""
        if event.kind == ILLEGAL:
            self.report.illegal_calls += 1
        if event.proposal and event.sure:
            if event.setup is not None and self.session is None:
                self._start(event.setup.options)
            for action in event.actions:
                self._apply(action, camera=True)
            return True
        if event.kind == QUESTION or event.kind == ILLEGAL or event.proposal:
            return self._ask(event.actions if event.kind == DICE else ())
        return False

    def _ask(self, roll_path: tuple[Action, ...] = ()) -> bool:
        """One question to the family, answered by the oracle. ``roll_path``: an unsure roll proposed with the
        decisions before it that show nowhere ("P2 rolls the Enchanted Die; Enchanted Die: 5") -- one proposal in
        the app, confirmed with one tap (a die fixed first if need be): the oracle answers it whole while its
        decisions are the ones proposed."""
        if self.oracle is None:
            return False  # the family has not answered: a later frame may settle it
        self.report.asked += 1
        if self.session is None:
            options = {k: v for k, v in (self.oracle.config.get("options") or {}).items()
                       if k not in (self.game.config().get("options") or {})}
            self._start(options)  # the set-up's options come from the oracle's header
            if not self.pipeline.table.setup_is_action:
                self._align_from_start()
                return True
        self._question = (len(self.session.history), tuple(roll_path))
        moved = self._answer()
        if self._question is not None:
            self.report.asked_early += 1
        return moved

    def _answer(self) -> bool:
        """The family answers the question on screen as far as the table has played (``Oracle.ready``: asked
        about an action not made yet, the question stays on screen until it is); True when the game moved on.
        A decision proposed with the roll and confirmed leaves the roll to answer; any other answer ends the
        question (the family tapped their own choice), and so does the game moving on otherwise."""
        moved = False
        while self._question is not None:
            at, path = self._question
            if self.oracle is None or self.session is None or at != len(self.session.history):
                self._question = None
            elif not self.oracle.ready(at, self._index):
                break
            else:
                answer = self.oracle.answer(at)
                self._apply(answer, camera=False)
                moved = True
                self._question = (at + 1, path[1:]) if len(path) > 1 and answer == path[0] else None
        return moved

    def _align_from_start(self) -> None:
        """Falconry told its set-up by the family: the table offset is found from the board next."""
        if hasattr(self.pipeline.adapter, "offset"):
            self.pipeline.aligned = False

    def _start(self, options: Mapping[str, Any]) -> None:
        from companion.journal import JournalError, Session

        game = self.game
        if options:
            config = game.config()
            config["options"] = {**(config.get("options") or {}), **options}
            try:
                game = type(game).from_config(config)
            except GameError as exc:
                raise FollowError(f"the set-up read does not make a game: {exc}") from None
            self.game = self.pipeline.game = game
        metadata = {"colours": (APP_COLOURS * 2)[:max(len(game.players), len(APP_COLOURS))]}
        journal, self._reserved = self._reserved, None
        try:
            self.session = Session.start(game, journal, metadata=metadata)
        except JournalError as exc:
            raise FollowError(str(exc)) from None

    def _apply(self, action: Action, camera: bool) -> None:
        if self.session is None:
            self._start({})
        before = self.session.state
        try:
            self.session.apply(action)  # on disk before anything goes on
        except GameError as exc:
            index = len(self.session.history) + 1
            if camera:
                raise FollowError(f"the pipeline proposed an action the rules refuse (action {index}): {exc}") from None
            raise FollowError(f"the oracle's action {index} does not fit the game followed (it left the true game "
                              f"earlier): {exc}") from None
        self.report.actions += 1
        if camera:
            self.report.proposed_by_camera += 1
            self.report.camera_actions.append(len(self.session.history) - 1)
        self.pipeline.applied(action, before)


def _reserve(journal: str | Path | None) -> Any:
    """The journal's file, created and locked (one writer per journal, as the app and the terminal hold
    theirs); :class:`FollowError` in one line naming the process that has it open."""
    from companion.journal import Journal, JournalError, JournalLocked

    if journal is None:
        return None
    try:
        return Journal.reserve(journal)
    except JournalLocked as exc:
        raise FollowError(str(exc)) from None
    except JournalError as exc:
        if Path(journal).is_file() and Path(journal).stat().st_size:
            raise FollowError(f"{journal} already exists; choose another file") from None
        raise FollowError(str(exc)) from None


def follow(frames: Iterable[tuple[float, np.ndarray | None]], follower: Follower) -> FollowReport:
    """Run ``follower`` over ``frames`` to the end; a stop is recorded in ``report.error``."""
    try:
        for captured_at, image in frames:
            follower.feed(captured_at, image)
        follower.finish()
    except FollowError as exc:
        follower.report.error = str(exc)
    finally:
        follower.close()
    return follower.report


# -- the command ----------------------------------------------------------------------------------------


def register(subparsers: Any) -> None:
    from companion.cli import add_game_options

    p = subparsers.add_parser("follow", help="follow a recorded game on video and write its journal",
                              description=__doc__.split("\n\n")[0])
    p.add_argument("video", help="a video file, or a folder of frames (name order; fps.txt, else 10 fps)")
    add_game_options(p, game_as_option=True)
    p.add_argument("--journal", required=True, help="the journal to write (a new file)")
    p.add_argument("--oracle", help="a journal of the true game: the answer wherever the app would ask")
    p.add_argument("--camera", help="a camera profile (JSON) for the lens")
    p.add_argument("--look", help="the look of the family's box (teach your board): read if there, the look taught at the set-up written there")
    p.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    p.set_defaults(func=cmd_follow)


def cmd_follow(args: argparse.Namespace) -> int:
    from companion.cli import make_game

    try:
        _module, game = make_game(args)
    except GameError as exc:
        return _fail(args, f"error: {exc}", 2)
    try:
        oracle = Oracle(args.oracle, game.name) if args.oracle else None
        frames, _fps = video_frames(args.video)
        camera = _camera(args.camera)
        pipeline = TablePipeline(game, camera=camera, look=_look(args.look, game.name))
        follower = Follower(game, args.journal, oracle, pipeline=pipeline)
    except (FollowError, KeyError) as exc:
        return _fail(args, f"error: {exc}", 2)
    report = follow(frames, follower)
    if report.error:
        print(f"stopped: {report.error}", file=sys.stderr)
    _keep_look(args.look, follower.pipeline)
    if follower.session is None or follower.session.journal is None:
        report.journal = ""  # no game began: no journal was written
    if args.json:
        print(json.dumps(report.as_json()))
    else:
        for key, value in report.as_json().items():
            print(f"{key:>20}: {value}")
    return 1 if report.error else 0


def _camera(path: str | None) -> Any:
    if not path:
        return None
    from companion.vision.intrinsics import CalibrationError, CameraProfile

    try:
        return CameraProfile.load(path)
    except (CalibrationError, OSError, ValueError) as exc:
        raise FollowError(f"the camera profile {path} cannot be used: {exc}") from None


def _look(path: str | None, game_name: str) -> Any:
    """The look taught before (``--look``), or None: not there yet, or damaged (said in one line)."""
    if not path:
        return None
    from companion.referee.table_games import table_game
    from companion.vision.teach import read_appearance

    look, why = read_appearance(table_game(game_name).board_map(), path)
    if look is None and why != "not taught":
        print(f"look not used: {why}", file=sys.stderr)
    return look


def _keep_look(path: str | None, pipeline: TablePipeline) -> None:
    """The look taught in this run, written to ``--look`` (a write that fails is said; the journal stands)."""
    if pipeline.look_error:
        print(pipeline.look_error, file=sys.stderr)
    if not path or not pipeline.look_taught or pipeline.look is None:
        return
    from companion.vision.teach import write_appearance

    try:
        write_appearance(pipeline.look, pipeline.board, path)
    except OSError as exc:
        print(f"the board's look could not be written to {path}: {exc}", file=sys.stderr)


def _fail(args: argparse.Namespace, message: str, status: int) -> int:
    """Following could not start: the message on stderr; with --json the last line still has item 7's fields."""
    print(message, file=sys.stderr)
    if getattr(args, "json", False):
        print(json.dumps(FollowReport().as_json()))
    return status
