"""The live table pipeline: camera frames in, referee events out. UI-free; the app, ``companion follow``
and ``companion bench table`` all use it, and none of them matches readings to rules itself.

    pipeline = TablePipeline(game)                       # a Game (its configuration); map and readers built
    for frame in frames:
        for event in pipeline.process(frame.image, frame.time, state):
            ...                                          # show it; on a confirm: state.apply(...)
            pipeline.applied(action, state_before)       # after every action applied, however it came

Per frame: motion (:class:`companion.vision.motion.MotionMeter`) -> board pose (the reader's
:class:`~companion.vision.pose.BoardTracker`) -> dice (the dice reader, then :func:`dice_in_context`,
then a :class:`~companion.vision.tracker.SettleTracker`) -> board reading (only on still frames with a
usable pose; the spaces under the dice are hidden) -> *settled*: the same board reading for
``board_settle`` still frames in a row -> matched against the engine state.

Events (:class:`TableEvent`), one kind each:

``status``    every frame, first: plain words ("board found", "something is moving", ...) and ``info``
              (the pose: homography, view angle; stage timings);
``setup``     the set-up read from the board (:class:`~companion.referee.table_games.SetupReading`);
``dice``      a settled roll -> the chance action to confirm (after the decisions that must have come
              first, when they show nowhere else: Eagle Kingdoms' "roll again" is seen in the dice thrown);
``move``      a settled board change that exactly one legal action explains (or the only legal action
              when it shows nowhere);
``illegal``   the change means an action the rules forbid: rule id, plain words, spaces to mark;
``question``  the family must say: several explanations, unsure readings, a set-up not read, a decision
              the camera cannot see, dice not read.

A proposal (``setup``, ``dice``, ``move``) is ``sure`` when nothing in it was read unsure and no other
legal action explains the same pixels; the app asks one tap for each, ``companion follow`` confirms the
sure ones and asks its oracle about the rest. Chance steps come only from dice; board changes only from
settled board frames; a misread the rules make impossible is fixed by them (:func:`companion.referee.match.match`).
"""

from __future__ import annotations

import functools
import itertools
import json
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from companion.games.core import Action, Game, GameError, State
from companion.referee.dice import (
    READER_KIND,
    DieValue,
    dice_values,
    in_game_terms,
    read_roll,
    reader_kinds,
    usual_roll,
    wanted_dice,
)
from companion.referee.dice_learning import RollLearning
from companion.referee.match import (
    MatchKind,
    MatchResult,
    differences,
    legal_successors,
    match,
    settled_by_rules,
    told_apart,
)
from companion.referee.table_games import SetupReading, table_game
from companion.vision import face_colour, photometry
from companion.vision.pose import PoseStatus
from companion.vision.readers import Observation, canonical
from companion.vision.table_changes import (
    DIE_MM,
    DiceWindows,
    DiePxAt,
    at_changed_places,
    changed_since,
    frame_diff,
    hand_changes,
    in_light_of,
    only_light_changed,
    quarter,
    reaches_the_edge,
    slow_hand_changes,
    uneven_light,
)

BOARD_SETTLE_FRAMES = 3
SLOW_HAND_FRAMES = 3  # a hand moving slowly is seen against the frame this many back
HAND_GONE_WAIT_S = 4.0  # the longest the frame before a throw waits, from the hands' coming, for an arm in view to go
VIEW_SETTLE_S = 1.0  # after the pose tracker said the camera moved, the picture may still be shaking (s)
REST_FRAMES = 10  # quiet frames with no hands after which the view counts as free of arms again
RELIGHT_FRAMES = 2  # frames after a change of light within which the view must be quiet to take it afresh
SETUP_PHOTOS = 3  # still spells at the set-up whose last frame is kept to teach the box's look
DICE_SETTLE_FRAMES = 5
DIE_PX_SPREAD = 3.0  # a die where it lies is at most this many times larger or smaller than in the board's middle
ROLL_SEARCH_DEPTH = 3  # decisions that show nowhere, followed before a roll (pass, then the next player's start)

STATUS, SETUP, DICE, MOVE, ILLEGAL, QUESTION = "status", "setup", "dice", "move", "illegal", "question"


MISSED_ROLL = "missed"  # a roll proposed unsure because a throw may have been missed (_missed_throw)


@dataclass(frozen=True)
class TableEvent:
    """What the pipeline says about a frame (see the module docstring for the kinds).

    ``actions``: the path to confirm, in order (``setup``, ``dice``, ``move``); ``options``: the candidate
    paths (``question``, ``illegal``); ``regions``: spaces to mark; ``unsure``: spaces or dice read unsure;
    ``reason`` (questions): ``several`` | ``unsure`` | ``setup`` | ``hidden`` (a decision that shows
    nowhere) | ``misread`` (nothing legal explains the board) | ``dice`` (a roll not read); (a roll proposed unsure)
    ``missed`` (:data:`MISSED_ROLL`) when its dice may be another throw's than the roll due's."""

    kind: str
    message: str = ""
    actions: tuple[Action, ...] = ()
    options: tuple[tuple[Action, ...], ...] = ()
    rule_id: str | None = None
    regions: tuple[str, ...] = ()
    unsure: tuple[str, ...] = ()
    sure: bool = True
    reason: str = ""
    dice: tuple[DieValue, ...] = ()
    setup: SetupReading | None = None
    info: Mapping[str, Any] = field(default_factory=dict)

    @property
    def proposal(self) -> bool:
        return self.kind in (SETUP, DICE, MOVE) and (bool(self.actions) or self.setup is not None)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "message": self.message}
        for key in ("actions", "regions", "unsure"):
            if getattr(self, key):
                out[key] = list(getattr(self, key))
        if self.options:
            out["options"] = [list(o) for o in self.options]
        if self.rule_id:
            out["rule_id"] = self.rule_id
        if self.proposal:
            out["sure"] = self.sure
        if self.reason:
            out["reason"] = self.reason
        if self.dice:
            out["dice"] = [{"kind": d.kind, "role": d.role, "value": d.value, "uncertain": d.uncertain,
                            "box": list(d.box) if d.box else None} for d in self.dice]
        if self.setup is not None and self.setup.options:
            out["options_read"] = dict(self.setup.options)
        if self.info:
            out["info"] = dict(self.info)
        return out


# -- dice in context ---------------------------------------------------------------------------------


def dice_in_context(readings: Sequence[Any], frame: np.ndarray, *, pose: Any = None, board: Any = None,
                    settled: Observation | None = None, before: np.ndarray | None = None,
                    expected: Mapping[str, int] | None = None, places: Sequence[tuple[int, int]] | None = None,
                    die_px: float = 20.0, die_px_at: DiePxAt | None = None) -> tuple[list[Any], list[tuple[Any, str]]]:
    """The dice reader's finds that are dice, and the rest with the reason: first the finds with a die-sized
    change at their middle (``places``, from :class:`~companion.vision.table_changes.DiceWindows`, when
    known), then the dice-in-context stage (contract 4 of the shared design:
    :func:`companion.vision.dice_context.filter_dice`: the board's markers and spaces, its last settled
    reading, what changed since ``before``, the dice the roll has)."""
    from companion.vision.dice_context import filter_dice

    kept, rejected = at_changed_places(readings, places, die_px, die_px_at) if places is not None else (list(readings), [])
    result = filter_dice(kept, frame, pose=pose, board=board, settled=settled, before=before, expected=expected)
    return list(result.dice), rejected + list(result.rejected)


# -- roll paths and decisions that show nowhere -------------------------------------------------------


def _scene_key(scene: Mapping[str, list[Any]]) -> tuple:
    return tuple(sorted((r, canonical(p)) for r, p in scene.items() if p))


def _changed_regions(before: Mapping[str, list[Any]], after: Mapping[str, list[Any]]) -> set[str]:
    return {r for r in set(before) | set(after) if canonical(before.get(r) or []) != canonical(after.get(r) or [])}


def _child(state: State, action: Action) -> State:
    """``state`` with ``action`` applied (``state`` is left as it is)."""
    child = state.clone()
    child.apply_unchecked(action)
    return child


def _scene_after(state: State, action: Action, scene_of: Any) -> Any:
    """The board's scene once ``action`` is applied to ``state`` (``state`` is left as it is)."""
    return scene_of(_child(state, action))


def _shown_by(state: State, action: Action, scene_of: Any, start: Mapping[str, list[Any]]) -> set[str]:
    """The spaces ``action`` changes on the board (``start``: the scene of ``state``)."""
    return _changed_regions(start, _scene_after(state, action, scene_of))


def _reads_as(obs: Observation, region: str, pieces: Any) -> bool:
    """``region`` read surely in ``obs`` as holding ``pieces``."""
    return region not in obs.hidden and not obs.is_uncertain(region) and \
        canonical(obs.regions.get(region) or []) == canonical(pieces or [])


@dataclass
class RollPath:
    path: tuple[Action, ...]  # decisions before the roll (none at a chance node)
    chance: State  # the chance node the roll answers
    same_turn: bool  # the roll is thrown in the turn now being played
    skipped_shown: tuple[frozenset[str], ...] = ()  # the spaces each alternative on the way would have changed
    skipped_this_turn: bool = False  # a decision in the turn being played had an alternative that would show

    @property
    def skipped_visible(self) -> bool:
        """A decision on the way had alternatives that would show on the board."""
        return bool(self.skipped_shown)


def roll_paths(state: State, kinds: Counter | None, scene_of: Any, depth: int = ROLL_SEARCH_DEPTH,
               unread: frozenset[str] = frozenset(), board: Observation | None = None) -> list[RollPath]:
    """Ways to reach a roll from ``state`` through decisions that change nothing on the board: a roll whose
    dice are among the dice seen (``kinds``: kind -> count; None: any roll). ``unread``: spaces the camera reads
    unsure or not at all -- a decision that changes only those shows nowhere either. ``board``: the board settled
    since -- a decision it reads surely as made, on every space the decision changes, is followed too."""
    start_scene = scene_of(state)
    start = _scene_key(start_scene)
    turn = state.turn_number
    out: list[RollPath] = []
    frontier: list[tuple[State, tuple[Action, ...], tuple[frozenset[str], ...], bool]] = [(state, (), (), False)]
    for level in range(depth + 1):
        nxt = []
        for st, path, skipped, own in frontier:
            if st.is_terminal():
                continue
            if st.is_chance_node():
                specs = wanted_dice(st)
                if specs and (kinds is None or not Counter(s.kind for s in specs) - kinds):
                    out.append(RollPath(path, st, st.turn_number == turn, skipped, own))
                continue
            if level == depth:
                continue
            unseen, made, shown = [], [], []
            here = start_scene if board is None or not path else scene_of(st)
            for action in st.legal_actions():
                child = _child(st, action)
                scene = scene_of(child)
                changed = frozenset() if _scene_key(scene) == start else frozenset(_changed_regions(start_scene, scene))
                # after a decision made, its own change (from the start, the change itself: not worked out twice)
                own_change = (changed if here is start_scene else frozenset(_changed_regions(here, scene))) - unread
                if changed <= unread or not own_change:
                    unseen.append((child, path + (action,)))
                elif board is not None and _shows_made(own_change, scene, board):
                    made.append((child, path + (action,)))  # shown as made: no alternative was skipped
                else:
                    shown.append(changed)
            own_now = own or bool(shown) and st.turn_number == turn
            nxt += [(child, p, skipped + tuple(shown), own_now) for child, p in unseen]
            nxt += [(child, p, skipped, own) for child, p in made]
        frontier = nxt
    return out


def _shows_made(changed: frozenset[str], scene: Mapping[str, list[Any]], seen: Observation) -> bool:
    """Whether ``seen`` reads every space in ``changed`` surely as ``scene`` holds it."""
    return all(not seen.is_uncertain(r) and r not in seen.hidden
               and canonical(scene.get(r) or []) == canonical(seen.regions.get(r) or []) for r in changed)


def preferred(paths: list[RollPath]) -> list[RollPath]:
    """Paths that differ only in what shows nowhere: the dice are taken as thrown in the turn being
    played (after a failed first roll, "roll again" rather than "end the turn and the next player
    rolls"), when that leaves one."""
    same = [p for p in paths if p.same_turn]
    return same if same else paths


def best_fitting(paths: list[RollPath], readings: Sequence[Mapping[str, Any]]) -> list[RollPath]:
    """The paths whose roll takes up the dice seen best: a complete roll, leaving the fewest dice read
    confidently (then the fewest dice at all) unused -- two clear d6 and a faint d8 are the regular dice."""
    def left(p: RollPath) -> tuple[int, int, int]:
        specs = wanted_dice(p.chance)
        roll = read_roll(specs, readings)
        if roll.dice is None:
            return (1, len(readings), len(readings))
        need = Counter(s.kind for s in specs)
        unused = []
        for r in sorted(readings, key=lambda r: bool(r.get("uncertain"))):  # the clear ones are taken first
            kind = r.get("kind") or ""
            if need[kind] > 0:
                need[kind] -= 1
            else:
                unused.append(r)
        return (0, sum(1 for r in unused if not r.get("uncertain")), len(unused))

    scored = [(left(p), p) for p in paths]
    low = min(score for score, _ in scored)
    return [p for score, p in scored if score == low]


def _first(path: RollPath) -> str:
    return json.dumps(path.path[:1], sort_keys=True)


def unseen_decision(state: State, scene_of: Any, unreadable: frozenset[str] = frozenset()) -> tuple[str, list[Action]]:
    """At a decision: ``("visible", [])`` when some legal action shows on the board (wait for it);
    ``("only", [a])`` when one legal action is possible and it shows nowhere (propose it);
    ``("unread", actions)`` when the actions show only on spaces in ``unreadable`` (the camera reads them unsure:
    ask the family once a hand has moved something);
    ``("dice", [])`` when the dice thrown next will tell the actions apart (wait for them);
    ``("ask", actions)`` when nothing the camera can see will tell (ask the family now)."""
    start = scene_of(state)
    actions = state.legal_actions()
    unread = False
    for action in actions:
        changed = _shown_by(state, action, scene_of, start)
        if changed - unreadable:
            return "visible", []
        unread |= bool(changed)
    if len(actions) == 1:
        return "only", actions
    if unread:
        return "unread", actions
    paths = roll_paths(state, None, scene_of)
    reached = {_first(p) for p in paths}
    if len(reached) < len(actions):
        return "ask", actions  # some action leads to no roll: nothing will show it
    by_kinds: dict[tuple, list[RollPath]] = {}
    for p in paths:
        by_kinds.setdefault(tuple(sorted(s.kind for s in wanted_dice(p.chance))), []).append(p)
    for group in by_kinds.values():
        if len({_first(p) for p in preferred(group)}) > 1:
            return "ask", actions
    return "dice", []


# -- the pipeline ------------------------------------------------------------------------------------


@dataclass
class _BoardRun:
    reading: dict[str, tuple[str, ...]]  # space -> what it was read confidently to hold (canonical), first read
    unsure: set[str]  # spaces unsure or hidden in some frame of the run
    frames: int = 0
    sure_frames: Counter[str] = field(default_factory=Counter)  # frames in which each space was read confidently
    guesses: dict[str, set[tuple[str, ...]]] = field(default_factory=dict)  # what the unsure frames guessed there
    wavered: set[str] = field(default_factory=set)  # spaces hidden in some frame of the run
    # spaces read confidently as two things in still frames with no motion between, in this run or the runs it
    # followed since the last motion: nothing changed them, so neither reading holds (unsure for the run)
    flickered: set[str] = field(default_factory=set)
    partly: dict[str, list[Any]] = field(default_factory=dict)  # space -> what each frame saw of it partly hidden

    def partly_seen(self, now: Mapping[str, Any]) -> dict[str, Any]:
        """The spaces partly hidden by dice that every frame of the run saw alike (see ``_partly_seen``)."""
        return {r: v for r, v in now.items() if len(self.partly.get(r, ())) == self.frames and set(self.partly[r]) == {v}}

    def firm(self, unsure_now: set[str]) -> set[str]:
        """Spaces unsure in some frame of the run that are read as settled all the same: every frame read them alike
        (the unsure frames' guess too), most frames and the last one surely, and none hid them (Verzauberte Eulen
        seed 43 r2: an owl just put down read 0.82 in the second still frame, 0.93-1.0 in the others, and its move
        was put to the family)."""
        return {r for r in self.unsure - unsure_now - self.wavered - self.flickered
                if r in self.reading and self.guesses.get(r, set()) <= {self.reading[r]}
                and 2 * self.sure_frames[r] > self.frames}


@dataclass
class _Roll:
    readings: list[Any]  # the settled dice (vision Readings)
    frame: int
    used: bool = False
    reaches: int = 0  # times a hand reached over the table between the last action applied and this roll
    kept: bool = False  # the family answered another roll where this one was offered: kept for a later roll
    awaits: bool = False  # kept when a roll of none of its kinds of dice was entered (a d8 for lone d6): its own is to come
    offered: bool = False  # put to the family: proposed as a roll, or asked about
    owed: bool = False  # settled while an earlier roll, offered or kept, was still unanswered
    passed: int = 0  # throws before it, never offered nor spent, taken up and thrown again (:meth:`_passed_over`)
    earlier: list[Any] = field(default_factory=list)  # that earlier roll's dice, when owed and no roll entered for them
    earlier_awaits: bool = False  # those dice kept awaiting their own roll: even their faces read unsure may be it
    unseen: int = 0  # rolls the family had entered whose dice the camera had not seen when this one settled
    picture: np.ndarray | None = None  # the frame it settled on, when the answers teach the reader (dice_learning)
    swallowed: bool = False  # dice lying in view before it went into the frame before a throw, never settled
    doubted: bool = False  # the roll entered before it was answered for dice that may have been this roll's
    ahead: bool = False  # the family answered a misread question and the board still showed what the game does not hold
    missed: bool = False  # offered for a roll due while the board showed a later move already (a roll missed)
    places: int = 0  # die-sized places the throw changed (:attr:`DiceWindows.places`): more than its dice read, one was missed
    strays: int = 0  # of those places, the ones no die read lies at, nor the last roll's dice taken up: a move unseen?


# On since session 27: ten whole films of the three dice games followed exactly with it, no silent error; session 15's
# error at Eagle Kingdoms r2 action 290 was a roll read surely by the generic reader while the camera lagged far
# behind the table, not a die the profile made sure (docs/vision-notes.md, session 27).
LEARN_FROM_ANSWERS = True
UNSEEN_DOUBT = 2  # rolls entered unseen from which the next throw is not sure
STRAY_DOUBT = 3  # places changed by a throw that its dice do not explain from which it is not sure (a throw: 0-1)
BOARD_CONFIRMS_S = 6.0  # a roll read with an unsure face waits this long for the board to show the move its dice allow
WAITING_FOR_MOVE = "dice read - waiting for the move"  # the frame's status while a roll waits for the board
ARM_IN_VIEW = "a hand or an arm reaches over the board's edge: take it away"  # the readers' own words for it
MOVING = "something is moving over the table"  # the status of a frame with a hand or motion (not read)
OFF_MAP = "a card lies beyond the camera's play area"  # Falconry: the engine holds a card the map cannot show
PUT_OFF = "which die? the next move tells"  # the status while a question is put off for the next move (next_tells)
_EXPLAINED = (MatchKind.PROPOSED, MatchKind.AMBIGUOUS)  # a board some legal move (or several) explains
UNREADABLE_AFTER_S = 15.0  # a space unsure this long in every settled board is unreadable until it reads otherwise


class TablePipeline:
    """The camera pipeline of one game at one table (see the module docstring).

    ``game``: the game being played (its configuration: players, mode, variant, options). ``board_map``:
    the map to read (default: the game's reference map). ``camera``: a camera profile
    (:class:`companion.vision.intrinsics.CameraProfile`) or None. ``registry``: the family's registered
    dice (Verzauberte Eulen's head, body and eye dice told apart). ``look``: the look of the family's box
    as taught from one photo (:meth:`teach_look`, :func:`companion.vision.teach.load_appearance`), or None.
    ``bare_look``: the look of the family's board with nothing on it (:meth:`teach_bare`), or None: each set-up
    taught then learns the print under its nests from it as well.
    ``dice_reader`` / ``board_reading``: injected readers (tests). ``board_confirms_s``: how long a roll read with
    an unsure face waits for the move that may tell it (0: asked at once)."""

    def __init__(self, game: Game, board_map: Any = None, camera: Any = None, *, registry: Any = None,
                 dice_reader: Any = None, board_reading: Any = None, board_settle: int = BOARD_SETTLE_FRAMES,
                 dice_settle: int = DICE_SETTLE_FRAMES, look: Mapping[str, Any] | None = None,
                 bare_look: Mapping[str, Any] | None = None, board_confirms_s: float = BOARD_CONFIRMS_S):
        from companion.vision.motion import MotionMeter
        from companion.vision.tracker import SettleTracker

        self.game = game
        self.table = table_game(game.name)
        self.board = board_map if board_map is not None else self.table.board_map()
        self.camera = camera
        # the frames are undistorted once, here: the pose, the board reader and the dice reader all see a
        # pinhole camera's picture (a reader rectifying through the lens model per frame is far slower)
        self.reading = board_reading if board_reading is not None else self.table.make_reader(self.board, None)
        # the look of the family's box: handed in (taught at an earlier game), taught again from the set-up
        # photo once the set-up is confirmed (:meth:`applied`), read by the caller to keep (``look_taught``)
        self.look: dict[str, Any] | None = None
        self.look_taught = 0  # looks taught by this pipeline (the caller keeps the newest, ``look``)
        self.look_error = ""  # why the last teaching taught nothing, in plain words
        self.bare_look: dict[str, Any] | None = dict(bare_look) if bare_look else None  # the empty board's (teach_bare)
        self._settled_frame: tuple[np.ndarray, Any] | None = None  # the last frame read, when it settled the board
        self._refused: tuple[int, str] = (0, "")  # still frames with a pose in a row whose reading was refused, and why
        self._setup_photos: list[tuple[np.ndarray, Any]] = []  # the last still frame of each still spell at set-up
        self._first_still: tuple[np.ndarray, Any] | None = None  # the first still frame at set-up (an empty board?)
        self._thrown_at_setup = False  # dice were seen thrown while the game still stood at its prescribed set-up
        self._setup_again: str | None = None  # a set-up (its state's JSON) to teach from its next still spell
        self._setup_moved = False  # the table moved since that set-up's last try
        self._photo_still = False
        self._setup_key: str | None = None  # the configured set-up (its state's JSON): Falconry, Verzauberte Eulen
        self._taught_setup: str | None = None  # the set-up (its state's JSON, or "" before the game) last taught from
        self._started = False  # the pipeline has been given a game's state (not only the set-up to read)
        if look is not None and hasattr(self.reading.reader, "teach"):
            try:  # the family's box as taught (vision.teach), not the default colours
                self.reading.reader.teach(look)
                self.look = dict(look)
            except (ValueError, TypeError, KeyError, IndexError) as exc:  # a look written by another version
                self.reading.reader.teach(None)
                self.look_error = f"the box's taught look cannot be used ({exc}); it is taught again at the set-up"
        self._undistort: tuple[tuple[int, int], Any] | None = None
        self.adapter = self.table.adapter()
        self.aligned = not hasattr(self.adapter, "offset")  # Falconry: the table offset is found at the set-up
        self.dice_kinds = tuple(type(game).dice_kinds)
        self.registry = registry
        self._shown_light: Any = None  # photometry.Photometry of the first frame measured: the light the dice were shown in
        self._dice_reader = dice_reader
        self._windows: DiceWindows | None = None
        self._refresh_before = False
        self.dice_error = ""
        self.learning = RollLearning(on=LEARN_FROM_ANSWERS)  # the family's dice, learnt from the rolls they answer
        self.motion = MotionMeter()
        self.dice_tracker = SettleTracker(dice_settle)
        self.board_settle = board_settle
        self.board_confirms_s = board_confirms_s  # 0: a roll read with an unsure face is put to the family at once
        self.frames = 0
        self.size: tuple[int, int] | None = None
        self.ever_posed = False
        self.last_ms: dict[str, float] = {}
        # the board: readings of the still frames in a row, the settled one, what was done about it
        self._board_run: _BoardRun | None = None
        self.settled: Observation | None = None
        self._settled_key: tuple | None = None
        self._settled_at = -1  # the frame that last settled the board
        self._board_done: tuple | None = None
        self._board_open = False  # the settled board shows a change not yet explained
        self._state_key: str | None = None
        self._behind: list[tuple[dict[str, list[Any]], str]] = []  # positions before the actions not yet seen
        self._unsure_since: dict[str, float] = {}  # space -> since when (s) every settled board read it unsure
        self._clock = 0.0  # the last frame's time (s)
        # the dice
        self._before: np.ndarray | None = None
        self._before_throw: np.ndarray | None = None  # the frame before the last roll's throw
        self._frame: np.ndarray | None = None  # the last frame read (undistorted)
        self._spent_frame: np.ndarray | None = None  # the frame when the last roll was used
        self._answered: Counter | None = None  # (kind, face) of a roll entered before its dice settled
        self._unseen_rolls = 0  # rolls entered whose dice the camera did not see, since it was last level with the table
        self._swallowed = False  # dice lay in view, not the last roll settled, when the frame before a throw was refreshed
        self._unread_run = 0  # frames running with dice in view that are no settled roll's (a throw not settled yet)
        self._landed = False  # dice read surely were kept new through a refresh of the frame before a throw, not settled yet
        self._doubt_next = False  # the last roll entered was answered for dice settled after a throw never read
        # the faces of the last roll entered for a throw read in part (:meth:`_read_in_part`): a throw showing them
        # next may be that roll's own dice, settled late, as well as the next roll's
        self._late_faces: Counter | None = None
        # the spaces of the last misread question answered that still showed what the game does not hold -> their reading
        self._ahead_spaces: dict[str, tuple[str, ...]] = {}
        # spaces whose piece the family's answer to a misread question said is the game's, read as another -> that
        # reading, no reading while it lasts (:meth:`_overrule`)
        self._overruled: dict[str, tuple[str, ...]] = {}
        self._quarters: deque[np.ndarray] = deque(maxlen=SLOW_HAND_FRAMES)  # the last frames' quarters, oldest first
        self._compared: tuple[np.ndarray | None, ...] = ()  # the quarters the hand check compared the last one with
        self._fast_hand_at = 0  # the last frame in which something larger than a die changed from the frame before
        self._touched: np.ndarray | None = None  # where hands passed in the motion going on (quarter size)
        self._touched_at = 0.0  # when something larger than a die began to change, after a still view (s)
        self._untouched: np.ndarray | None = None  # the quarter of the last frame before the hands came
        self._moved_at = float("-inf")  # when the pose tracker last said the camera moved (s)
        self._untouched_at = 0.0  # when the picture before the hands was taken (s)
        self._unread_at_rest = False  # dice lay unread (no spent roll's) when the table was last at rest
        # frames left to take the frame before a throw afresh: the light changed unevenly in the motion just ended,
        # and no die lay unread before it (0: no such change)
        self._relit_left = 0
        self._roll: _Roll | None = None
        self._kept_over: _Roll | None = None  # a roll kept for a later roll when a throw was spent on the roll entered
        self._reaches = 0  # hands reaching in since the last action applied
        self._reach_owed = 0  # of them, the hand that carries out what the last roll did on the board
        self._hands_unsettled = 0  # hands reaching in since the board last settled
        self._hands_before_settled = 0  # hands that reached in between the board settled before and as it is now
        self._settled_after_hands = 0  # boards settled with a hand come and gone since the one before: each is judged
        self._still = 0  # still frames in a row
        self._reach_due = False  # the table lay still long enough for a throw to settle, and no hand has come since
        self._roll_done: tuple | None = None
        # a roll read with an unsure face, not yet put to the family: (its roll, its proposal, since when (s), the state)
        self._held: tuple[_Roll, TableEvent, float, str | None] | None = None
        self._played: list[tuple[str, str, float, float]] = []
        self._taken_up: list[tuple[float, float]] = []  # where the dice lay that the last throw's hand took up
        self._dice_in_view: list[Any] = []
        self._on_moved: list[Any] = []  # of those, the ones read unsure on a space a move since the last roll changed
        self._moved_spaces: set[str] = set()  # the spaces the moves applied since the last roll changed
        self._covering: set[tuple] = set()  # boxes of dice whose patch covered more than the die (this frame)
        self._asked: str | None = None  # the state (its JSON) a decision was last asked about
        self._said: dict[tuple, int] = {}  # evidence questioned -> how far the state was from it then
        self._put_off: tuple[str | None, MatchResult] | None = None  # (state, question) the next move may answer
        self._misread_asked: dict[str, tuple[str, ...]] = {}  # spaces of the misread question on screen -> their reading
        self._made_last: dict[str, tuple[str | None, Any]] = {}  # kind of call -> (state, what it was about), the last made

    # -- readers ------------------------------------------------------------------------------------
    @property
    def tracker(self) -> Any:
        return self.reading.tracker

    def dice_reader(self) -> Any:
        if self._dice_reader is None and self.dice_kinds and not self.dice_error:
            try:
                from companion.vision.reader import DiceReader

                self._dice_reader = DiceReader(kinds=reader_kinds(self.dice_kinds), registry=self.registry)
            except Exception as exc:  # ModelError, no onnxruntime: the dice are entered by hand
                self.dice_error = f"The dice reader is not available ({exc}); enter the dice by hand."
        return self._dice_reader

    def dice_crops(self, boxes: Sequence[Sequence[float]]) -> list[Any]:
        """The dice reader's crops of ``boxes`` in the last frame read (None each without a reader or frame):
        the app teaches the family's dice profile each roll they confirm or correct."""
        reader = self._dice_reader
        if reader is None or self._frame is None or not boxes:
            return [None] * len(boxes)
        return list(reader.classifier.crops(self._frame, boxes))

    # -- the caller's side ---------------------------------------------------------------------------
    def applied(self, action: Action, before: State) -> None:
        """An action was applied to ``before`` (confirmed, typed, answered): a roll it used is spent, and the
        board may lag behind it for a while (a piece still to be moved)."""
        self._misread_answered(action, before)
        specs = wanted_dice(before) if before.is_chance_node() else []
        if specs:
            self._spent_frame = self._frame  # every die lying now belongs to the roll just used
            roll, self._kept_over = self._last_roll(), None
            pending = roll is not None and not roll.used
            said = Counter((READER_KIND.get(s.kind, s.kind), str(v)) for s, v in zip(specs, dice_values(action), strict=False))
            # dice of other kinds than this roll's (a d8 where two d6 were due) are a later roll's (the pipeline lags
            # behind the table): kept for it, and never sure there; so are dice with a face read surely that the roll
            # entered does not have (one die unsure does not make the other one's face a guess), kept once
            read_surely = Counter((r.kind, str(r.value)) for r in roll.readings if not r.uncertain) if roll else Counter()
            read_kinds = Counter(r.kind for r in roll.readings) if roll else Counter()
            said_kinds = Counter(k for k, _ in said.elements())
            # kept once already, they are kept again only when they lack this roll's dice: dice holding them were offered as
            # this roll and answered otherwise twice (bench table, Eagle Kingdoms r1 seed 0, frame 6954: a 1+4 beside two
            # unsure "d8" read in the board's art was offered for six rolls running, one after the other)
            in_part_spent = roll is not None and pending and self._read_in_part(roll, said)
            self._late_faces = said if in_part_spent else None
            other_kinds = roll is not None and read_kinds != said_kinds and (not roll.kept or not said_kinds <= read_kinds) \
                and not _lone_die_misread(roll, said_kinds) and not in_part_spent
            # dice offered for a missed roll (the board had moved on) with a face, even read unsure, that the roll
            # entered lacks: the camera is behind the table, and they may be a later roll's -- kept too
            read = Counter((r.kind, str(r.value)) for r in roll.readings) if roll else Counter()
            other_faces = read_surely if roll is None or not roll.missed else read
            later = pending and roll is not None and (other_kinds or not roll.kept and bool(other_faces - said))
            # a roll entered before its dice were read (none pending, or the pending dice are another roll's): the
            # dice that settle next showing it are that roll, not the next one
            # kept dice (a later roll's, by the rules above) answered otherwise are behind the table too: the roll entered
            # is still to settle (bench table EK seed 0 r2, action 119: a kept 1+3 answered 2+6, and the 2+6 settling
            # next was offered surely as the next player's roll)
            behind = pending and roll is not None and roll.kept and read != said
            # unless a throw read in part shows the roll entered: its dice settled already, one of them missed (bench
            # table, Eagle Kingdoms seed 4 r2, action 152: a 1+3 read as a lone 3, kept for a later roll when 1+3 was
            # entered; the next 1+3 thrown was spent on it, and the throw after that confirmed, sure, one roll late)
            in_part = pending and roll is not None and len(roll.readings) < sum(said.values()) and _shows(roll.readings, said)
            self._answered = said if (not pending or later or behind) and not in_part else None
            # a roll entered for dice that settled while an earlier throw was unanswered, when that throw shows it
            # too, may be either's: these dice are kept for the next roll (never sure there), the entered roll's
            # dice having settled already (the earlier throw). So are such dice kept once already for a later roll
            # (bench table, Eagle Kingdoms seed 10 r1, action 213: 4+5, then 2+2 twice, settled at a forfeit not made;
            # the last 2+2, kept when the 4+5 was entered, was spent on the first 2+2's roll, and the next throw was
            # confirmed, sure, for the last one's)
            either = pending and roll is not None and roll.owed and _shows(roll.earlier, said, roll.earlier_awaits)
            # dice that settled after a throw the camera never read, answered: the roll entered may have been that
            # throw's and these dice the next roll's -- the next throw is not sure (bench table EK seed 1 r1, 183)
            self._doubt_next = bool(pending and roll is not None and roll.swallowed and not later and not either)
            self._count_unseen(roll if pending and not later else None, said)
            if roll is not None and (later or either):
                roll.kept, roll.awaits = True, not set(read_kinds) & set(said_kinds)
                if either:  # the earlier throw has its roll now: a roll entered next that these dice show is theirs
                    # (bench table, Eagle Kingdoms seed 47 r1, action 120: a 3+4 thrown after a lone 4, kept when the
                    # lone die's 4+6 was entered, then answered 3+4 and kept again -- offered for three rolls more)
                    roll.earlier = []
            elif roll is not None:
                if pending:  # the family's answer names the faces of dice read unsure: the reader learns them
                    self.learning.learn(self._dice_reader, roll.picture, roll.readings, said)
                roll.used = True
                if roll is self._roll:  # dice kept over lie no longer: the last throw lies where it fell
                    self._play(roll.readings)
        was = self.adapter.scene_from_state(before)
        self._behind = (self._behind + [(was, before.action_to_string(action))])[-8:]
        self._reaches = 0
        if before.is_chance_node():
            shown, self._moved_spaces = set(), set()
            self._reach_owed = int(bool(specs) and self._owes_a_hand(before, action, was))
        else:
            self._reach_owed = 0
            shown = _shown_by(before, action, self.adapter.scene_from_state, was)
            self._moved_spaces |= shown
        if shown and self._roll is not None and not self._roll.used:
            # a move entered after a throw settled: the hand that made it was one of the throw's reaches (bench table,
            # Eagle Kingdoms seed 2, frame 1737: a capture, then the throw; asked as "hands reached in 2 times")
            self._roll.reaches = max(0, self._roll.reaches - 1)
        if self._at_setup(before):  # the set-up confirmed: its photo teaches the box's look
            if self.table.setup_is_action:
                after = before.clone()
                after.apply_unchecked(action)
                self._teach_setup(after)
            else:
                self._teach_setup(before)
        self._started = True
        if not before.is_chance_node():
            self._refresh_before = True  # what a move changed is no place where a die fell

    def _misread_answered(self, action: Action, before: State) -> None:
        """The family answered a misread question (nothing legal explained the board) with ``action``: the spaces it
        leaves reading otherwise than the game holds them may show the table ahead of the game, not a misread (Eagle
        Kingdoms seed 45 r1, action 106: a roll, the Enchanted Die and a forfeit made while an arm was refused, the King
        seen on the shield asked about as misread, answered with the move before them; the next throw, two rolls later,
        was confirmed, sure, for the roll due). The next throw is not sure while the board still shows them."""
        asked, self._misread_asked = self._misread_asked, {}
        if not asked:
            return
        now = _scene_after(before, action, self.adapter.scene_from_state)
        self._ahead_spaces = {r: read for r, read in asked.items() if canonical(now.get(r) or []) != read}
        # one for one: as many pieces read as the game holds there (a piece more or less may be the table ahead)
        self._overruled.update({r: read for r, read in self._ahead_spaces.items() if read and len(read) == len(now.get(r) or [])})
        if self._ahead_spaces and self._roll is not None and not self._roll.used:
            self._roll.ahead = True

    def _shows_ahead(self) -> bool:
        """Whether the settled board still reads, on a space of the last misread question answered, what it read then
        (``_ahead_spaces``)."""
        obs = self.settled
        return obs is not None and any(canonical(obs.regions.get(r) or []) == read for r, read in self._ahead_spaces.items())

    def _count_unseen(self, used: _Roll | None, said: Counter) -> None:
        """A roll entered: one more whose dice the camera did not see, unless dice lying were spent on it (``used``).
        Dice spent on it that read as the family entered it say the camera is level with the table again; dice spent
        on it that read otherwise were misread or another roll's, and say neither. A throw seen later is no sign
        either: it may be one of those rolls', late (a game the family's answers had run thirty actions ahead of the
        table saw every old throw settle and spent each on the roll due, and forgot how far behind it was). Nor do dice
        kept for another roll or read unsure: an old Enchanted Die read unsure as 3, kept, then spent on the 3 the
        family entered by chance, set the count of 59 to 0 and the next old throw was confirmed, sure (action 582).
        Dice spent on it with a face read surely that it lacks, or kept once for a later roll and read otherwise than
        it, are another roll's: its own were not seen (rendition 2, action 482: a 1:3 read 1:6, kept when the family
        entered the Enchanted Die, then spent on the 3:6 entered next; the 1:3's roll was confirmed, sure, with the
        throw after it). So are dice that settled while an earlier throw was unanswered, spent on a roll they do not read
        as: the roll entered was an older throw's (seed 8 r2, action 270: an old 5+6, kept and forgotten when a d8 settled
        after it, was entered; a 2+6 read after the d8 was spent on it, and the next pair confirmed, sure, one roll late).
        So are dice read as entered that settled after an earlier throw, still unanswered, that cannot be the roll
        entered (other dice, or other faces): that throw was no throw at all, or a later roll's, and then so are these
        dice, which came after it (seed 61 r1, action 348: a d8 showing 1 settled while a trade was due, then a 1+4; the
        family entered the 1+4 thrown before the d8, then the d8's 1 and a give; the second 1+4's roll was due, unseen,
        and the pair after it was confirmed, sure, for it)."""
        if used is None:
            self._unseen_rolls += 1
            return
        read = Counter((r.kind, str(r.value)) for r in used.readings)
        read_surely = Counter((r.kind, str(r.value)) for r in used.readings if not r.uncertain)
        after_another = used.owed and bool(used.earlier) and not _shows(used.earlier, said, unsure_too=True)
        if read_surely - said or (used.kept or used.owed) and read != said or after_another:
            # each throw passed over before these dice may be a roll to come (EK seed 87 r2 upright, action 116: three
            # throws settled while a take was asked, the last spent on the roll due; the Enchanted Die among them was
            # never offered, and the next pair was confirmed, sure, as the roll again)
            self._unseen_rolls += used.passed if after_another and used.passed else 1
        elif not used.kept and read_surely == read == said:  # every die read surely, as entered
            self._seen_as_entered()

    def _seen_as_entered(self) -> None:
        """Dice read surely as the roll the family entered: the camera may be level with the table again. Far behind
        or ahead, one throw showing the roll entered may be chance (two d6 alike one roll in twelve, a d8 one in eight):
        a second is needed (Eagle Kingdoms r1 seed 0, action 565: a 2:6 read as 31 rolls were owed, the next throw
        confirmed, sure, three rolls off; action 536: an old d8 read unsure as the 1 just entered, 14 rolls ahead of
        the table, and the next three old throws confirmed, sure)."""
        self._unseen_rolls = UNSEEN_DOUBT if self._unseen_rolls > UNSEEN_DOUBT else 0

    def read_dice_again(self) -> None:
        """Report the dice in view again once they are still (the family asks for a new reading): the dice of
        the last roll are looked for again against the frame from before their throw."""
        self.dice_tracker.forget()
        self._roll, self._played, self._roll_done, self._held, self._kept_over = None, [], None, None, None
        self._taken_up = []
        if self._before_throw is not None:
            self._before = self._before_throw

    def tap_corners(self, frame: np.ndarray, corners_px: Sequence[Sequence[float]]) -> None:
        """Four board corners the family tapped on ``frame`` (raw picture px: top-left, top-right,
        bottom-right, bottom-left) for a board without markers in view; PoseError when they make no board."""
        size = (int(frame.shape[1]), int(frame.shape[0]))
        pts = np.asarray(corners_px, np.float64).reshape(-1, 2)
        if self.camera is not None and tuple(int(v) for v in self.camera.image_size) == size:
            pts = self.camera.undistort_points(pts)
        self.tracker.set_tapped_corners(self._undistorted(frame, size), [tuple(p) for p in pts])

    def teach_look(self, photo: np.ndarray, scene: Mapping[str, Any]) -> dict[str, Any]:
        """Teach the board reader the look of the family's box from one photo of it with its pieces where
        ``scene`` says (:func:`companion.vision.teach.teach_appearance`); the look, to keep (``look``).
        TeachError when the photo teaches nothing or the game's reader learns no look."""
        return self._teach(*self._photo_posed(photo), scene)

    def _photo_posed(self, photo: np.ndarray) -> tuple[np.ndarray, Any]:
        """A photo taken apart from the frames followed (undistorted) and its board's pose, found afresh."""
        frame = self._undistorted(photo, (int(photo.shape[1]), int(photo.shape[0])))
        self.tracker.reset()
        try:
            return frame, self.tracker.update(frame)
        finally:
            self.tracker.reset()

    def teach_bare(self, photo: np.ndarray) -> dict[str, Any]:
        """Teach the board reader the print under its nests from one photo of the family's board with nothing on
        it (:func:`companion.vision.teach.teach_bare_board`): a set-up covers the nests, so its photo never shows
        them bare. Kept (``bare_look``) for every set-up taught after; put into the look taught already, if any.
        Returns the empty board's look. TeachError when the photo cannot teach it (the look in use stays)."""
        from companion.vision.teach import teach_bare_board

        frame, pose = self._photo_posed(photo)
        look, bare = teach_bare_board(self.reading.reader, frame, self.look, pose=pose)
        self.bare_look = bare
        if look is not None:
            self._taught(look)
        return bare

    def _taught(self, look: dict[str, Any]) -> None:
        self.look, self.look_error = look, ""
        self.look_taught += 1
        self._board_run = None  # the next still frames are read with the look taught

    def _teach(self, frame: np.ndarray, pose: Any, scene: Mapping[str, Any]) -> dict[str, Any]:
        from companion.vision.teach import TeachError, teach_appearance, with_bare_board

        if not hasattr(self.reading.reader, "learn_appearance"):
            raise TeachError(f"the {self.game.name} board reader learns no look from a photo")
        reader, before = self.reading.reader, self.look
        look = teach_appearance(reader, frame, scene, pose=pose)
        seen = self.reading.read(frame, pose)  # the look must read its own photo as the scene it was taught
        hard, soft = differences(scene, seen) if seen.usable else ([seen.status], [])
        # and none of its pieces may match no colour on the very photo the colours were taught from (a photo of
        # another set-up: its owls' heads match none; the reader reads such a piece unsure, elsewhere a far head)
        hard += [r for r in soft if r in seen.extra.get("unmatched", ())]
        # and a set-up the game prescribes (taught from the first still frame) must show most of its pieces: a board
        # before they were laid (a camera on while the family lays out the game) teaches only the colours nowhere in
        # doubt, and reads empty, unsure
        occupied = [r for r, pieces in scene.items() if pieces]
        if not hard and not self.table.setup_is_action and 2 * len(soft) > len(occupied):
            hard = soft
        if hard:
            reader.teach(before)
            raise TeachError(f"taught so, the photo does not read as the set-up confirmed ({', '.join(hard[:6])})")
        why = ""
        if self.bare_look is not None:
            try:
                look, _learnt = with_bare_board(reader, look, self.bare_look)
            except TeachError as exc:  # the set-up's look is still good; the empty board's is not used
                why = f"the photo of the empty board was not used: {exc}"
        self._taught(look)
        self.look_error = why
        return look

    # -- the family's box, taught at the set-up ---------------------------------------------------------
    def _at_setup(self, state: State | None) -> bool:
        """The table shows the set-up: the game has not begun, its set-up is still to be laid (Eagle Kingdoms,
        Mighty Magpies), or no action has been applied to the configured set-up yet."""
        if state is None:
            return True
        if state.is_terminal():
            return False
        if self.table.setup_is_action:
            return state.is_chance_node() and not wanted_dice(state)
        if self._setup_key is None:
            self._setup_key = _key(self.game.new_initial_state())
        return _key(state) == self._setup_key

    def _keep_setup_photo(self, frame: np.ndarray, pose: Any, state: State | None, moving: bool) -> None:
        """The last still frame of each of the last still spells at a set-up not taught from yet (a hand may
        already be laying the first move in the newest; the teaching tries the newest first). Where the game prescribes
        the set-up, none once dice were thrown at it: the table may be a move ahead of the game from then on (the first
        roll not read yet), and its photo is no set-up's."""
        if self._roll is not None and not self.table.setup_is_action and self._at_setup(state):
            self._thrown_at_setup = True  # a roll settled (not pieces just laid, new on the table, taken for dice)
        key = _key(state) if state is not None else ""
        at_setup = (self._at_setup(state) and self._taught_setup != key) or key == self._setup_again
        still = not moving and pose.usable and not self._lying_dice() and at_setup and not self._thrown_at_setup
        if still:
            if self._first_still is None and self._taught_setup is None:
                self._first_still = (frame, pose)
            if self._photo_still and self._setup_photos:
                self._setup_photos[-1] = (frame, pose)
            else:
                self._setup_photos = (self._setup_photos + [(frame, pose)])[-SETUP_PHOTOS:]
        self._photo_still = still

    def _teach_setup(self, state: State) -> None:
        """The set-up ``state`` is confirmed (read, fixed by taps, or told): the newest set-up photo that
        shows it teaches the reader the look of the family's box. A photo that teaches nothing leaves the look
        as it was (``look_error`` says why), and so does a table that moved since the newest photo (the set-up
        confirmed as the hand that laid it left): both are taught again at the next still frame of the set-up, while
        the game stands there (:meth:`_set_up_again`)."""
        from companion.vision.teach import TeachError

        key, learns = _key(state), hasattr(self.reading.reader, "learn_appearance")
        self._setup_again = None
        if learns and self._setup_photos and not self._photo_still:
            self._setup_again, self._setup_moved = key, True  # the newest photo is older than the table: pieces laid since?
            return
        photos, self._setup_photos = self._setup_photos, []
        self._taught_setup = key
        if not photos or not learns:
            return
        why = ""
        for frame, pose in reversed(photos):
            try:
                self._teach(frame, pose, self._look_scene(state, frame, pose))
                self._bare_from_first_still()
                return
            except TeachError as exc:
                why = str(exc)
        self.look_error = f"the board's look was not taught from the set-up: {why}"
        self._setup_again, self._setup_moved = key, False  # tried again once the table moved and lies still again

    def _set_up_again(self, state: State | None) -> None:
        """A set-up whose teaching waits (:meth:`_teach_setup`): taught from the still frame just kept, while the
        game still stands at it; forgotten once the game moved on."""
        if self._setup_again is None:
            return
        if state is None or _key(state) != self._setup_again:
            self._setup_again = None
        elif not self._photo_still:
            self._setup_moved = True
        elif self._setup_moved and self._setup_photos:
            self._teach_setup(state)

    def _bare_from_first_still(self) -> None:
        """The first still frame at the set-up, where the camera watched the family lay out the game: when the board
        lay there empty, the print under the nests, learnt as from a photo of the empty board (:meth:`teach_bare`).
        Taken only where the look just taught reads no piece on it surely; a spot whose colour there is a piece's is
        not learnt (the first frame showed the set-up already), nor is a frame unlike the set-up's board."""
        from companion.vision.teach import TeachError, learn_from_photo, with_bare_board

        first, self._first_still = self._first_still, None
        reader = self.reading.reader
        if first is None or self.bare_look is not None or self.look is None or not hasattr(reader, "with_bare_board"):
            return
        frame, pose = first
        seen = self.reading.read(frame, pose)
        if not seen.usable or any(not seen.is_uncertain(r) for r in seen.regions):
            return
        try:
            bare = learn_from_photo(reader, frame, {}, pose=pose)
            look, learnt = with_bare_board(reader, self.look, bare)
        except TeachError:
            return
        if learnt:
            self.bare_look = bare
            self._taught(look)

    def _look_scene(self, state: State, frame: np.ndarray, pose: Any) -> dict[str, Any]:
        """What the table shows at ``state``, in the reader's regions. Falconry's cards lie anywhere on the
        table: where the pipeline has not found them yet, the cards found in the photo place them (the one
        table offset that puts the set-up's cards exactly there)."""
        if self.aligned:
            return self.adapter.scene_from_state(state)
        from companion.referee.falconry import FalconryAdapter, align_cells
        from companion.vision.teach import TeachError

        offset = align_cells(state, self.reading.read(frame, pose).regions)
        if offset is None:
            raise TeachError("the cards in the photo are not laid as the game begins")
        return FalconryAdapter(offset).scene_from_state(state)

    def set_offset(self, offset: tuple[int, int]) -> None:
        """Falconry: the table cell of the engine's cell (0, 0) (from a set-up read elsewhere)."""
        self.adapter.offset = tuple(offset)
        self.aligned = True

    # -- per frame ------------------------------------------------------------------------------------
    def process(self, frame: np.ndarray, captured_at: float | None, state: State | None) -> list[TableEvent]:
        """Read one frame and say what it means for ``state`` (None: the game has not begun; its set-up is
        read). The first event is always the frame's ``status``."""
        t0 = time.perf_counter()
        self.frames += 1
        self._clock = float(captured_at) if captured_at is not None else self.frames / 10.0
        if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            return [TableEvent(STATUS, "not a colour picture", info={"refused": True})]
        size = (int(frame.shape[1]), int(frame.shape[0]))
        info: dict[str, Any] = {"size": list(size)}
        if self.size is not None and size != self.size:
            self._forget_view()
            info["size_changed"] = True
        self.size = size
        warning = self._check_camera(size)
        if warning:
            info["camera_warning"] = warning
        frame = self._undistorted(frame, size)
        self._frame = frame
        moving = self.motion.moving(frame)
        t1 = time.perf_counter()
        pose = self.tracker.update(frame)
        t2 = time.perf_counter()
        info.update(self._pose_info(pose, size))
        self.ever_posed |= pose.usable
        if pose.status is PoseStatus.MOVED:
            self._moved_at = self._clock
        timings = {"motion": (t1 - t0) * 1000, "pose": (t2 - t1) * 1000}
        small = quarter(frame)  # the hand check's and the dice windows' picture of the frame
        die_px = self._die_px(pose)
        moving = self._track_hands(frame, moving, die_px, small, self._die_px_at(pose, die_px))
        self._keep_setup_photo(frame, pose, state, moving)
        self._set_up_again(state)
        # a hand comes in (to take the dice, to move a piece) after the table lay still long enough for a roll to
        # settle: a throw missed in between would have been one (a hand's brief pause is none, nor a hand held still
        # with its arm in view: a slower family's film, Eagle Kingdoms seed 18 r2, each hand held over a piece counted
        # as a second reach, and the throw after it was asked). A change of light is no hand: the reach is the stir's
        # first frame that is more than light (bench table, Mighty Magpies s36 r1: 6 of 38 asks were "hands reached in
        # 2 times", each a lamp or a shadow between turns, then the throw)
        self._reach_due |= moving and self._still >= self.dice_tracker.settle_frames
        reach = self._reach_due and moving and not self._relit(small)
        self._reach_due &= not reach
        self._reaches += reach
        self._hands_unsettled += reach
        self._still = 0 if moving or self._touched is not None else self._still + 1
        if moving:
            # dice that lay unread for as long as an unsure roll takes to settle, taken up: a throw the camera never
            # read (bench table, Mighty Magpies seed 6 r1, action 1: magpie + magpie read flickering for 15 frames,
            # never settled; the next throw was confirmed, sure, as the first roll)
            # so are dice kept new through a refresh of the frame before a throw (_remember_before), taken up unsettled
            self._swallowed |= self._unread_run >= 2 * self.dice_tracker.settle_frames or self._landed and self._unread_run > 0
            self._unread_run, self._landed = 0, False
            self.dice_tracker.update([], hand=True)
            self._board_run, self._refused, self._settled_frame = None, (0, ""), None
            self._dice_in_view = []
            self.last_ms = {**timings, "total": (time.perf_counter() - t0) * 1000}
            return [TableEvent(STATUS, MOVING, info={**info, "moving": True, "refused": True})]
        self._read_dice(frame, pose, state, timings, small)
        t3 = time.perf_counter()
        words = self._read_board(frame, pose, info)
        timings["board"] = (time.perf_counter() - t3) * 1000
        self._remember_before(frame)
        later = self.reevaluate(state)
        if self._held is not None and not info.get("refused"):
            words = WAITING_FOR_MOVE  # the family would otherwise see nothing new about their roll for a while
        elif not info.get("refused") and self._off_map(state):
            words = f"{OFF_MAP}: slide both marker strips so that every card lies between them"
        events = [TableEvent(STATUS, words, info=info), *later]
        timings["total"] = (time.perf_counter() - t0) * 1000
        self.last_ms = timings
        return events

    def reevaluate(self, state: State | None) -> list[TableEvent]:
        """What the settled board and the settled roll mean for ``state`` (after an action was applied, with
        no new frame): the events not said before for this state."""
        if state is not None and not self._started:
            self._started = True
            if not self.table.setup_is_action and self._setup_photos:  # the set-up read, or told by the family
                self._teach_setup(state)
        key = None if state is None else json.dumps(state.to_json(), sort_keys=True)
        if key != self._state_key:
            self._state_key = key
            self._asked = None
        if state is None:
            return self._setup_events(None)
        if state.is_terminal():
            return []
        if self.table.setup_is_action and state.is_chance_node() and not wanted_dice(state):
            return self._setup_events(state)
        events = self._held_events(key)
        events += self._board_events(state, key)
        events += self._dice_events(state, key)
        if not events and not state.is_chance_node():
            events += self._decision_events(state, key)
        return events

    # -- the board ----------------------------------------------------------------------------------------
    def _read_board(self, frame: np.ndarray, pose: Any, info: dict[str, Any]) -> str:
        """Read the board of a still frame towards its settling; the frame's status in words."""
        if not pose.usable:
            info["refused"] = True
            self._board_run = None
            return pose.status.value
        if self._touched is not None:  # an arm still in view (_arm_in_view): a hand held still hides what it holds
            # (a slower family's film, Mighty Magpies seed 11 r1 upright: a pale hand over nest R, its arm unseen by the
            # reader on the pale board, read as "no magpies": a dozen moves asked as misread)
            info["refused"] = True
            self._board_run = None
            return ARM_IN_VIEW
        self._settled_frame = None
        obs = self._hide_under_dice(self.reading.read(self._without_dice(frame), pose), pose)
        if not obs.usable:
            info["refused"] = True
            self._board_run = None
            self._refused = (self._refused[0] + 1, obs.status)
            return obs.status
        self._refused = (0, "")
        self._settle_board(obs)
        if self.settled is not None and self._board_run is not None and self._board_run.frames >= self.board_settle:
            self._settled_frame = (frame, pose)  # a still frame of the board as settled: what may teach it
        return pose.status.value

    def _settle_board(self, obs: Observation) -> None:
        """Still frames in a row whose confident readings agree settle the board (``board_settle`` of them).
        What an unsure space is guessed to hold is no reading: a guess that changes from frame to frame, or a
        space unsure in one frame and not in the next, does not keep the board from settling; such a space
        is unsure in the settled board unless the run has read it firmly since (``_BoardRun.firm``). A space read
        confidently as two different things starts a new run, and stays unsure until the view moves: no motion came
        between the two frames, so nothing changed it, and neither reading holds (a box with crimson felt, Eagle
        Kingdoms seed 61 r2: a blurred 8 read 8 at 1.0 and a Jester at 0.93 in still frames taking turns; a run of
        Jesters settled, and a Jester trade no one made was confirmed, sure)."""
        unsure = set(obs.uncertain | obs.hidden)
        ids = {r.id for r in self.board.regions} | set(obs.regions)
        reading = {r: canonical(obs.regions.get(r) or []) for r in ids - unsure}
        run = self._board_run
        flickered = set() if run is None else run.flickered | {r for r, v in reading.items() if run.reading.get(r, v) != v}
        if run is not None and flickered - run.flickered:
            run = None
        if run is None:
            run = self._board_run = _BoardRun({}, set(flickered), flickered=flickered)
        run.unsure |= unsure
        run.wavered |= obs.hidden
        for r in unsure - obs.hidden:
            run.guesses.setdefault(r, set()).add(canonical(obs.regions.get(r) or []))
        for r, v in reading.items():
            run.reading.setdefault(r, v)
        run.sure_frames.update(reading.keys())
        for r, seen in (obs.extra.get("partly_hidden") or {}).items():
            run.partly.setdefault(r, []).append(seen)
        run.frames += 1
        if run.frames == self.board_settle:
            self._settled_after_hands += bool(self._hands_unsettled)
            self._hands_before_settled, self._hands_unsettled = self._hands_unsettled, 0
        if run.frames >= self.board_settle:
            doubt = run.unsure - run.firm(unsure) | self._overrule(run.reading)
            confidence = {r: (0.0 if r in doubt else obs.confidence_of(r)) for r in set(obs.confidence) | doubt}
            extra = {**obs.extra, "partly_hidden": run.partly_seen(obs.extra.get("partly_hidden") or {})}
            self.settled, self._settled_at = replace(obs, confidence=confidence, extra=extra), self.frames
            self._unsure_since = {r: self._unsure_since.get(r, self._clock) for r in self.settled.uncertain}
            key = tuple(sorted((r, v) for r, v in run.reading.items() if r not in doubt))
            self._settled_key = (key, tuple(sorted(doubt)))

    def _overrule(self, settled: dict) -> set[str]:
        """The spaces the settled board reads as the family overruled (``_overruled``): a piece the game holds there,
        read as another piece after the family answered the question it raised (Eagle Kingdoms seed 59 r2: a Queen read
        surely as a Vendor on a tail feather in board after board asked the same question 13 times, and at each roll
        that the board had changed). Such a space is unsure, taken from the rules, until a settled board reads it
        otherwise (not one frame: the Queen was read right now and then, and the Vendor came back). Only a space read
        with as many pieces as the game holds there is overruled: a piece more or less may be the table ahead of the
        game (:meth:`_misread_answered`)."""
        self._overruled = {r: v for r, v in self._overruled.items() if settled.get(r, v) == v}
        return set(self._overruled)

    def _lying_dice(self) -> list[Any]:
        return list(self._dice_in_view) + (list(self._roll.readings) if self._roll is not None else [])

    def _without_dice(self, frame: np.ndarray) -> np.ndarray:
        """The frame with the dice lying on the table covered by what lay there before the throw: a board
        reader must not refuse the whole board for a die on it (the spaces under the dice are hidden anyway,
        :meth:`_hide_under_dice`). The patch is brought to the light of now, measured round it in both frames
        (a lamp switched on since the throw made every patch off colour: the board refused as covered)."""
        lying = self._lying_dice()
        under = self._before_throw if self._before_throw is not None else self._before
        self._covering = set()
        if not lying or under is None or under.shape != frame.shape:
            return frame
        out = frame.copy()
        for r, (x0, y0, x1, y1), patch in _dice_patches(frame, under, lying):
            if _covers_more_than_the_die(frame[y0:y1, x0:x1], patch, r.box, (x0, y0)):
                self._covering.add(tuple(r.box))
            out[y0:y1, x0:x1] = patch
        return out

    def _hide_under_dice(self, obs: Observation, pose: Any) -> Observation:
        """Spaces under a die in view are hidden: never read, never a confident difference -- and where the patch
        :meth:`_without_dice` laid over the die covered more than the die, every space whose pieces may reach
        under it (a piece put down since the throw, half covered by the patch, would be read as something else).
        A space of several spots with only some under a patch is hidden too, and what its other spots read is kept as
        what it holds at least (``extra["partly_hidden"]``, :func:`_partly_seen`)."""
        lying = self._lying_dice()
        if not obs.usable or not lying:
            return obs
        discs = getattr(getattr(self.reading, "reader", None), "piece_discs", None) or ()
        hidden: set[str] = set()
        under: set[int] = set()  # spots of ``discs`` under a patch that changed only its die
        for r in lying:
            x0, y0, x1, y1 = _patch_rect(r.box, (10**6, 10**6))
            try:
                pts = pose.image_to_board(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1], [(x0 + x1) / 2, (y0 + y1) / 2]], np.float64))
            except Exception:
                continue
            if tuple(r.box) in self._covering:
                # the patch covered more than the die (a piece put down beside it since the throw): every space whose
                # pieces may reach under it, in a circle round it
                reach = float(getattr(self.table, "piece_reach_mm", 0.0))
                centre, radius = pts[4], float(np.max(np.linalg.norm(pts[:4] - pts[4], axis=1))) + reach
                hidden |= {region.id for region in self.board.regions if _near(region, centre, radius)}
            elif discs:  # it changed only the die: the spots read under the patch
                under |= _spots_under(discs, pts[:4])
            else:  # a reader that does not say where it reads: the spaces the patch overlaps
                hidden |= _overlapping(self.board.regions, pts[:4])
        partly = _partly_seen(discs, under, obs.extra.get("spot_reads"), hidden, obs.uncertain_below)
        hidden |= {discs[i][0] for i in under}
        if not hidden:
            return obs
        confidence = {**obs.confidence, **dict.fromkeys(hidden, 0.0)}
        extra = {**obs.extra, "hidden_by_dice": sorted(hidden), "partly_hidden": partly}
        return replace(obs, confidence=confidence, extra=extra)

    def _board_events(self, state: State, key: str | None) -> list[TableEvent]:
        obs = self.settled
        if obs is None or not self.aligned and not self._align(state, obs):
            return []
        # a board settled after a hand came and went is judged though it reads as the one before: the hand may have
        # moved pieces only in spaces read unsure (bench table, Mighty Magpies seed 71 on box 41:300: the game's last
        # move, out to a nest read unsure throughout and back, taking its berry, never asked -- the film ended waiting)
        done = (key, self._settled_key, self._settled_after_hands)
        if done == self._board_done:
            return []
        self._board_done = done
        if state.is_chance_node() and wanted_dice(state):
            # what the rules make impossible is no change
            hard, _ = differences(self.adapter.scene_from_state(state), settled_by_rules(self.adapter, state, obs))
            lag = self._lagging(obs) if hard else None
            self._board_open = bool(hard) and lag is None
            if lag is not None:
                return [TableEvent(STATUS, f"waiting for the board to show: {lag}", info={"waiting": True})]
            if self._board_open and self._held is not None:
                held, self._held = self._held, None
                return self._board_confirms(state, held[1], obs)
            if self._board_open:
                # its own evidence: the roll answered, the same board is a move to ask about (Eulen seed 3 r1, action
                # 117: two moves fitting it went unasked, and the next board was read from before both); not asked
                # at all where that board was asked about already
                if ("board", self._settled_key) in self._said:
                    return []
                return self._roll_not_read(("roll for the board", self._settled_key), obs, tuple(hard), "the roll")
            return []
        # two hands since the board last settled, or since the last action (the first move unseen: Eagle Kingdoms seed 6
        # r1, action 161 -- a capture on a space read unsure, then a trade; "pass, trade" was proposed surely)
        hands = max(self._hands_before_settled, self._reaches)
        put_off = self._put_off_answered(state, key, obs, hands >= 2)
        if put_off is not None:
            return put_off
        result = match(state, None, obs, self.adapter, two_moves=hands >= 2, three_moves=hands >= 3)
        if result.kind in (MatchKind.ILLEGAL, MatchKind.MISREAD) and hasattr(self.adapter, "offset"):
            result = self._realigned(state, obs, result)
        self._board_open = result.kind not in (MatchKind.UNCHANGED, MatchKind.UNREADABLE)
        if result.kind is MatchKind.UNCHANGED:
            self._behind = []
            return self._move_in_unsure_spaces(state, obs, result.corrected) or self._untaught_pieces(state, obs)
        if result.kind is MatchKind.PROPOSED:
            between = result.sure and self._roll_may_come_between(state, result.actions)
            message = result.message + (" -- dice thrown since were not used: was a roll made before it?" if between else "")
            return [TableEvent(MOVE, message, actions=result.actions, regions=result.changed,
                               unsure=result.corrected, sure=result.sure and not between)]
        if result.kind is MatchKind.AMBIGUOUS:
            return self._several(key, result)
        return self._unexplained(state, obs, result)

    def _roll_may_come_between(self, state: State, actions: Sequence[Action]) -> bool:
        """Whether a move proposed with a choice before it comes while a throw lies unanswered, and another choice there
        leads to a roll: that choice and its roll may be what was done, these dice its throw (a box in other colours,
        Eagle Kingdoms seed 61 r2, action 229: a challenge, its duel's 1+4 thrown and kept for another roll, then a
        Jester traded; "passes; trades a Jester" was confirmed, sure)."""
        if len(actions) < 2 or self._roll is None or self._roll.used:
            return False
        return any(_child(state, other).is_chance_node() for other in state.legal_actions() if other != actions[0])

    def _unexplained(self, state: State, obs: Observation, result: MatchResult) -> list[TableEvent]:
        """No legal move explains the board: it lags behind the actions applied (wait), or a roll the camera did not
        find explains it (asked), or the move is called illegal, or the board is asked about as misread."""
        if result.kind not in (MatchKind.ILLEGAL, MatchKind.MISREAD):
            return []
        lag = self._lagging(obs)
        if lag is not None:
            self._board_open = False
            return [TableEvent(STATUS, f"waiting for the board to show: {lag}", info={"waiting": True})]
        evidence, far = ("board", self._settled_key), len(result.changed)
        if result.kind is MatchKind.ILLEGAL and self._an_unread_roll_explains(state, obs):
            return self._roll_not_read(evidence, obs, result.changed, "a roll")
        if result.kind is MatchKind.ILLEGAL:
            if self._made_again(ILLEGAL, result.message):
                # the same call for the same game, unanswered: a board settled again is no new evidence (box 23:180,
                # Eagle Kingdoms seed 73 r2: "could not capture on the first roll" called four times a turn, 66 calls
                # for 17 boards read wrong)
                return []
            return self._once(evidence, far, TableEvent(ILLEGAL, result.message, options=result.options, rule_id=result.rule_id,
                                                   regions=result.changed))
        reads = {r: canonical(obs.regions.get(r) or []) for r in result.changed if not obs.is_uncertain(r)}
        if reads and reads == self._misread_asked:
            # the same question is on screen, unanswered: this board is asked about by it (a board settled again is
            # no new evidence, and once answered it is not "a change the roll was not read for" either)
            self._said.setdefault(evidence, far)
            return []
        asked = self._once(evidence, far, TableEvent(QUESTION, result.message, options=result.options,
                                                     regions=result.changed, reason="misread"))
        if asked:
            self._misread_asked = reads
        return asked

    def _roll_not_read(self, evidence: tuple, obs: Observation, changed: tuple[str, ...], roll: str) -> list[TableEvent]:
        """The board changed as a roll the camera did not read would explain: asked which dice were thrown -- not again
        for a board settled again with those spaces read alike while the game has not moved on, which is no new evidence
        (box 23:180, Eagle Kingdoms seed 73 r2: a piece read surely as gone, a flickering space elsewhere, asked three
        times in four frames while the roll was still to come)."""
        if self._made_again("roll not read", {r: canonical(obs.regions.get(r) or []) for r in changed}):
            return []
        return self._once(evidence, len(changed), TableEvent(
            QUESTION, f"the board changed, but {roll} was not read: which dice were thrown?", regions=changed, reason="dice"))

    def _an_unread_roll_explains(self, state: State, obs: Observation) -> bool:
        """Whether a roll the camera did not find, and then a legal move, explain the board: the roll reached by
        decisions that show nowhere, none of them the player's own skipping what would show (box 67:90, Eagle
        Kingdoms seed 81 r2, action 231: the Enchanted Die, magenta on blue felt, not found; the character its 7
        let the player take was called "could not capture on the first roll"). A capture that passing would have
        left undone is no such roll: the next player's throw does not excuse it. A decision shown only where the
        board reads unsure shows nowhere (box 89:150, Eagle Kingdoms seed 85 r2, action 14: a Knight forfeited to
        the centre shield, read unsure in dim light, then a roll not found; the next capture was called "must
        forfeit one of their characters"). Nor does one the board reads surely as made (box 53:120, Eagle Kingdoms
        seed 101 r2, action 160, a slower family: the Duchess forfeited, the next roll not found, then the orb's
        character taken -- called "must forfeit" over a shield that showed the Duchess)."""
        scene_of = self.adapter.scene_from_state
        for path in roll_paths(state, None, scene_of, unread=obs.uncertain | obs.hidden, board=obs):
            if path.skipped_this_turn:
                continue
            for outcome, _ in path.chance.chance_outcomes():
                if match(_child(path.chance, outcome), None, obs, self.adapter).kind in (MatchKind.PROPOSED, MatchKind.AMBIGUOUS):
                    return True
        return False

    def _several(self, key: str | None, result: MatchResult) -> list[TableEvent]:
        """Several moves explain the board: asked, or put off for the next move (``next_tells``)."""
        if result.next_tells:
            self._put_off = (key, result)
            return [_put_off_status(result)]
        return self._once(("board", self._settled_key), len(result.changed), _several_question(result))

    def _put_off_answered(self, state: State, key: str | None, obs: Observation, two_hands: bool) -> list[TableEvent] | None:
        """A question put off for the next move (``MatchResult.next_tells``) and the board settled again: the one
        option the next move explains is proposed with it, surely where that move is (Verzauberte Eulen seed 31 r2:
        four owls of the player's colours moved by a head or body die of the same number, asked each time; the die
        left moved an owl of one colour only); a board that explains none or several puts the question now. None
        when nothing was put off for this state; no event while the board shows no new move."""
        if self._put_off is None or self._put_off[0] != key:
            self._put_off = None
            return None
        asked = self._put_off[1]
        told = told_apart(state, asked, obs, self.adapter, two_moves=two_hands)
        if told is None:
            return [_put_off_status(asked)]
        self._put_off = None
        if told is asked:
            return [_several_question(asked)]
        return [TableEvent(MOVE, told.message, actions=told.actions, regions=told.changed, unsure=told.corrected,
                           sure=told.sure)]

    def _untaught_pieces(self, state: State, obs: Observation) -> list[TableEvent]:
        """Pieces read unsure only because the box did not show their kind when it was taught (Falconry's set-up
        shows no marker card): where the state has no such piece there, the family is asked (one tap); where
        it has, the still frame teaches the reader that kind, so the next one is read surely."""
        doubt = [r for r in obs.extra.get("look_doubt") or () if r in obs.regions]
        if not doubt:
            return []
        scene = self.adapter.scene_from_state(state)
        new = sorted(r for r in doubt if not _same_piece(scene.get(r), obs.regions.get(r)))
        if new:
            self._board_open = True
            return self._once(("board", self._settled_key), len(new), TableEvent(
                QUESTION, "a card whose face the camera has not learned yet: say the move once, and it learns it",
                regions=tuple(new), unsure=tuple(new), reason="unsure"))
        if self._settled_frame is not None:
            from companion.vision.teach import TeachError

            try:
                self._teach(*self._settled_frame, scene)
            except TeachError as exc:
                self.look_error = f"the board's look was not taught from the position: {exc}"
        return []

    def _move_in_unsure_spaces(self, state: State, obs: Observation, unsure: Sequence[str]) -> list[TableEvent]:
        """A hand came and went since the last action, and the board differs from the state only in spaces read
        unsure: the one legal move whose board agrees with every space read surely and explains some of the guesses,
        put to the family (bench table, Verzauberte Eulen seed 40 r2: the game's last move, an owl from beside a die into the
        crowded cave, read "no change" until the film ended). The move's board may disagree with a guess in a space
        the move changes (Eulen seed 27 r1: the cave's fifth owl not seen, its space left read empty). A space read
        unsure under a die has no guess: it is read from the picture before the throw (Mighty Magpies seed 71 on box
        41:300: the game's last move took the berry beside a die lying in its nest, and the nest still read as holding
        it), so a move may change it whatever it is read as. Guesses in other spaces that differ from the state are
        misreads the move leaves as they were (Eulen seed 73 on box 23:180: the game's last move, into the crowded cave,
        with four far corners read unsure and wrong). Asked once for this board, never confirmed alone."""
        blind = frozenset(obs.extra.get("hidden_by_dice") or ()) & obs.uncertain
        if not (unsure or blind) or self._reaches < 1 or state.is_chance_node() or state.is_terminal():
            return []
        now = Observation.from_scene(self.adapter.scene_from_state(state))
        fits = [s for s in legal_successors(state, self.adapter.scene_from_state)
                if _explains_unsure(s.scene, now, obs, unsure, blind)]
        if len(fits) != 1:
            return []
        path = fits[0].path
        spaces = sorted(set(differences(fits[0].scene, now)[0]) & (set(unsure) | blind))
        text = "; ".join(state.action_to_string(a) for a in path) + f" (read unsure: {', '.join(spaces)})"
        return self._once(("unsure move", self._settled_key), len(spaces),
                          TableEvent(MOVE, text, actions=path, regions=tuple(spaces), unsure=tuple(spaces), sure=False))

    def _made_again(self, kind: str, about: Any) -> bool:
        """Whether the last call or question of ``kind`` was about ``about`` for this very game state (the family has
        not answered it: the game has not moved on), noting this one as the last."""
        again = self._made_last.get(kind) == (self._state_key, about)
        self._made_last[kind] = (self._state_key, about)
        return again

    def _once(self, evidence: tuple, far: int, event: TableEvent) -> list[TableEvent]:
        """A question or call about ``evidence`` (a settled board, a settled roll) is made again only when the
        family's answer brought the game closer to it (``far``: spaces where the state and the board differ;
        several moves made before the board settled are asked one by one): an answer that leaves it as
        unexplained as before means a later frame must bring new evidence."""
        if evidence in self._said and far >= self._said[evidence]:
            return []
        self._said[evidence] = far
        return [event]

    def _lagging(self, obs: Observation) -> str | None:
        """The board still shows a position before the last actions applied (a piece not moved yet): the
        actions it does not show yet, in words; else None."""
        for k, (scene, _text) in enumerate(self._behind):
            hard, _ = differences(scene, obs)
            if not hard:
                return "; ".join(text for _scene, text in self._behind[k:])
        return None

    def _realigned(self, state: State, obs: Observation, result: Any) -> Any:
        """Falconry: when nothing legal explains the cards, they may have been shifted on the table as a
        whole (or the camera's idea of the card grid moved by a cell): the offset that explains them, if
        one does, is taken instead."""
        from companion.referee.falconry import FalconryAdapter, align

        offset = align(state, obs)
        if offset == tuple(self.adapter.offset):
            return result
        shifted = match(state, None, obs, FalconryAdapter(offset))
        if shifted.kind in (MatchKind.UNCHANGED, MatchKind.PROPOSED):
            self.set_offset(offset)
            return shifted
        return result

    def _off_map(self, state: State | None) -> bool:
        """Whether the game holds a card on a cell the camera's map does not cover (Falconry: one laid beyond it and
        entered by the family): the camera keeps the game's word there, and the family is asked to bring it in."""
        off_map = getattr(self.adapter, "off_map", None)
        return bool(off_map is not None and state is not None and self.aligned and off_map(state))

    def _align(self, state: State, obs: Observation) -> bool:
        from companion.referee.falconry import align

        self.set_offset(align(state, obs))
        return True

    def _setup_events(self, state: State | None) -> list[TableEvent]:
        obs = self.settled
        if obs is None:
            return self._setup_unreadable()
        done = (self._state_key, self._settled_key)
        if done == self._board_done:
            return []
        self._board_done = done
        reading = self.table.read_setup(self.game, obs, self.adapter)
        if reading.offset is not None:
            self.set_offset(reading.offset)
        if reading.complete:
            actions = (reading.action,) if reading.action is not None else ()
            return [TableEvent(SETUP, reading.message or "set-up read", actions=actions, setup=reading)]
        return [TableEvent(QUESTION, reading.message, regions=reading.unsure, unsure=reading.unsure, reason="setup",
                           setup=reading)]

    def _setup_unreadable(self) -> list[TableEvent]:
        """The board lies still in view, but its reader refuses every frame (a box whose look it does not know
        yet): the family is asked for the set-up; once confirmed, its photo teaches the reader the box."""
        refused, why = self._refused
        if refused < self.board_settle:
            return []
        return self._once(("setup", "unreadable"), 0, TableEvent(
            QUESTION, f"the set-up cannot be read from the camera ({why}): say it once, and the camera learns your box",
            reason="setup"))

    # -- the dice -------------------------------------------------------------------------------------------
    def _read_dice(self, frame: np.ndarray, pose: Any, state: State | None, timings: dict[str, float],
                   small: np.ndarray | None = None) -> None:
        at_setup = state is None or state.is_chance_node() and not wanted_dice(state)
        reader = self.dice_reader() if not at_setup and state is not None and not state.is_terminal() else None
        if reader is None or self._before is None:  # no frame to tell a thrown die from a piece yet
            self._dice_in_view, self._unread_run = [], 0
            return
        t0 = time.perf_counter()
        if self._windows is None or self._windows.reader is not reader:
            self._windows = DiceWindows(reader)
            self.dice_tracker.any_face_kinds = frozenset(getattr(reader, "always_confirm_kinds", ()))
        die_px = self._die_px(pose)
        gone = [(x, y) for _kind, _value, x, y in self._played] + self._taken_up
        angles = getattr(self.tracker, "seen_at", None)  # dice seen from above read more surely (dice reader)
        seen_at = angles(pose, frame.shape[1::-1]) if angles is not None and pose is not None else None
        shown, white = self._dice_light(frame, pose)
        die_px_at = self._die_px_at(pose, die_px)
        readings = self._windows.read(frame, self._before, die_px, gone, small, seen_at, shown, white, die_px_at,
                                      self._played)
        dice, _rejected = dice_in_context(readings, frame, pose=pose if pose.usable else None, board=self.board,
                                          settled=self._settled_for_dice(state), before=self._before, expected=self._expected_dice(state),
                                          places=self._windows.places if self._before is not None else None,
                                          die_px=die_px, die_px_at=die_px_at)
        self._dice_in_view = dice
        self._on_moved = self._on_moved_spaces(dice, pose)
        timings["dice"] = (time.perf_counter() - t0) * 1000
        roll = self.dice_tracker.update(dice, hand=False)
        if roll is not None and not self._just_played(roll.dice) and self._thrown_since_spent(roll.dice, frame):
            earlier, self._kept_over = self._last_roll(), None  # dice seen while an earlier roll is owed may be a later roll's
            again = self._read_again(earlier, roll.dice)
            passed_over = self._passed_over(earlier, roll.dice)
            owed = earlier is not None and not earlier.used and (earlier.kept or earlier.offered) and not again or passed_over
            # the earlier dice may be the roll the family enters next unless a roll was entered for them already (kept), or
            # only one of other dice (bench table, Eagle Kingdoms seed 2 r2, action 263: a lone 1 of a 1:4, kept when the
            # Enchanted Die was entered; the next throw, 1:4 again, was spent on its roll, and the throw after it confirmed,
            # sure, for the next roll -- truly the second 1:4's)
            awaits = owed and earlier is not None and earlier.awaits
            unanswered = list(earlier.readings) if owed and earlier is not None and (not earlier.kept or awaits) else []
            self._roll = _Roll(list(roll.dice), self.frames, reaches=max(0, self._reaches - self._reach_owed), owed=owed, earlier=unanswered, earlier_awaits=awaits,
                               passed=earlier.passed + 1 if passed_over and earlier is not None else 0,
                               unseen=self._unseen_rolls, swallowed=self._swallowed or again and bool(earlier and earlier.swallowed),
                               doubted=self._doubt_next or again and bool(earlier and earlier.doubted)
                               or self._late_faces == Counter((r.kind, str(r.value)) for r in roll.dice),
                               ahead=self._shows_ahead() or again and bool(earlier and earlier.ahead),
                               picture=frame if self.learning.on else None, places=len(self._windows.places),
                               strays=_strays(self._windows.places, roll.dice, gone, die_px,
                                              functools.partial(self._windows.lit_only, die_px=die_px, die_px_at=die_px_at)))
            self._swallowed = self._doubt_next = self._landed = False
            self._late_faces = None
            self._ahead_spaces = {}
            self._before_throw = self._before
            if self._answered and Counter((r.kind, str(r.value)) for r in roll.dice) == self._answered:
                self._roll.used = True  # the roll the family entered before it settled here
                self._play(roll.dice)
                self._answered = None
                if earlier is not None and earlier.kept and not earlier.used:
                    # still a later roll's: this throw was the roll entered (bench table, Eagle Kingdoms seed 4 r1, action
                    # 334: a 1+5 kept when the Enchanted Die was entered, forgotten when that die settled and was spent
                    # on it; the next pair thrown was confirmed, sure, for the 1+5's roll)
                    self._kept_over = earlier
                if not any(r.uncertain for r in roll.dice):  # the last roll entered: every earlier one was thrown before
                    self._seen_as_entered()
        self._unread_run = self._unread_run + 1 if self._unread_dice_lying() else 0

    def _settled_for_dice(self, state: State | None) -> Observation | None:
        """The last settled board, to tell a die from a piece by: a space hidden only by dice in view holds what the
        game holds there. Hidden, it would be a space that may hold a piece, and a die whose middle changed too little
        to count as new by itself is then dropped -- by the space it hides (box 67:90, Eagle Kingdoms seed 81 r2, frame
        1807: the Enchanted Die on beak-left, its middle changed by 0.22, kept while the space read empty, dropped the
        next frame, taken into the frame before a throw and never read)."""
        obs = self.settled
        hidden = obs.extra.get("hidden_by_dice") if obs is not None else None
        if obs is None or not hidden or state is None:
            return obs
        scene = self.adapter.scene_from_state(state)
        regions = {**obs.regions, **{r: list(scene.get(r) or []) for r in hidden}}
        return replace(obs, regions=regions, confidence={**obs.confidence, **dict.fromkeys(hidden, 1.0)})

    def _dice_light(self, frame: np.ndarray, pose: Any) -> tuple[Callable[[np.ndarray], np.ndarray] | None,
                                                                Callable[[np.ndarray], np.ndarray] | None]:
        """The frame's colours, from the markers' black and white, as they would look (1) in the light of the first
        frame whose markers were measured, taken for the light the family showed their dice in (``registry``), and (2)
        in white light, to read colour faces by their colour (:mod:`companion.vision.face_colour`); each None when
        not needed (no registry; no colour dice) or not measured."""
        wants_shown = self.registry is not None
        wants_white = face_colour.KIND in reader_kinds(self.dice_kinds)
        if not (wants_shown or wants_white) or pose is None or not pose.usable:
            return None, None
        now = photometry.measure(frame, pose, self.board)
        if now is None:
            return None, None
        if self._shown_light is None:
            self._shown_light = now
        return (photometry.relight(now, self._shown_light) if wants_shown else None), (now.apply if wants_white else None)

    def _last_roll(self) -> _Roll | None:
        """The last throw settled, or dice kept for a later roll when that throw was spent already."""
        if self._kept_over is not None and (self._roll is None or self._roll.used):
            return self._kept_over
        return self._roll

    def _expected_dice(self, state: State | None) -> dict[str, int] | None:
        """The dice a throw may show now (reader kind -> how many), beyond which finds are trimmed: the roll the game
        waits for, or the game's usual roll -- the camera lags behind the table at times (bench table, Eagle Kingdoms
        seed 2 r2, frames 1001-3728: five pairs of d6 thrown while it still waited for the Enchanted Die were cut to one
        die, marked unsure; kept as a lone die for a later roll, each set off a chain of questions)."""
        wanted = wanted_dice(state) if state is not None else []
        if not wanted:
            return None
        expected = Counter(READER_KIND.get(s.kind, s.kind) for s in wanted)
        return dict(expected | Counter(READER_KIND.get(kind, kind) for _role, kind in usual_roll(type(self.game))))

    @staticmethod
    def _read_again(earlier: _Roll | None, dice: Sequence[Any]) -> bool:
        """Whether a settled throw is the offered, unanswered one read again where it lies: as many dice of the same kinds,
        each where one of them lay (a face read unsure, then surely in a box a few pixels off, settles anew). Not a
        second throw owed after it (bench table, Mighty Magpies seed 7 r1, action 115: taken for one, it was kept for a
        later roll and spent on the roll after the next move; the throw truly thrown for that roll was confirmed, sure,
        one roll late)."""
        if earlier is None or earlier.used or earlier.kept or not earlier.offered:
            return False
        if sorted(r.kind for r in earlier.readings) != sorted(r.kind for r in dice):
            return False
        return _pairs_up(dice, earlier.readings, lambda die, r: _lies_at(r, *_centre(die.box)))

    @staticmethod
    def _passed_over(earlier: _Roll | None, dice: Sequence[Any]) -> bool:
        """Whether a settled throw, never offered nor spent, was taken up and thrown again: some die of it no longer
        lies where it settled (read again there, as another face or with a die more, it is the same throw). The table
        played on while the pipeline waited (bench table, Eagle Kingdoms r1 seed 0, frames 4782-4910: at a forfeit it
        could not see, six throws settled one after the other; when the family answered, the last was confirmed, sure,
        for a roll ten actions back): one of the two throws is a later roll's, as when an offered one is unanswered."""
        if earlier is None or earlier.used or earlier.offered or earlier.kept:
            return False
        centres = [_centre(r.box) for r in dice]
        return not all(any(_lies_at(r, x, y) for x, y in centres) for r in earlier.readings)

    def _thrown_since_spent(self, readings: Sequence[Any], frame: np.ndarray) -> bool:
        """Whether some die of a settled roll lies where the picture changed since the last roll was used:
        dice that lay there then (one read late, after the family answered for the roll) are no new throw."""
        spent = self._spent_frame
        if spent is None or spent.shape != frame.shape:
            return True
        changed, _ = changed_since(readings, frame, spent)
        return bool(changed)

    def _die_px(self, pose: Any) -> float:
        """A die's side in frame pixels, from the board's scale (a guess without a pose)."""
        if pose.usable:
            try:
                w, h = self.board.size_mm
                return _die_side_px(pose, np.array([w / 2, h / 2]))
            except Exception:
                pass
        return DIE_MM * (self.size[0] if self.size else 1280) / 600

    def _die_px_at(self, pose: Any, die_px: float) -> DiePxAt | None:
        """A die's side in frame px where it lies, by the board's pose (None without one): a phone held at a slant sees
        a die near it larger than the board's middle shows one (bench table, Mighty Magpies s5 r2 at a slow pace: a die
        beside the board's near corner, 2.3 times the middle's size, was looked for in a window and a box too small
        for it, and "1 of the 2 dice read" asked), bounded to :data:`DIE_PX_SPREAD` times the middle's either way."""
        if not pose.usable:
            return None

        def at(x: float, y: float) -> float:
            try:
                local = _die_side_px(pose, pose.image_to_board(np.array([[x, y]], np.float64))[0])
            except Exception:  # a pose that cannot map the point: the middle's size
                return die_px
            return float(np.clip(local, die_px / DIE_PX_SPREAD, die_px * DIE_PX_SPREAD)) if np.isfinite(local) else die_px

        return at

    def _play(self, dice: Sequence[Any]) -> None:
        """The dice of the roll just used lie where they fell; the dice before them were taken up for that throw: until
        the frame before a throw is taken afresh, the table bared where they lay is no die (bench table, Eagle Kingdoms
        s33 r1, frame 376: the board's art where a 3 had lain read as a d8 at 0.44 once the next roll was used, taken
        for dice never read, and the next throw asked)."""
        self._taken_up = [(x, y) for _kind, _value, x, y in self._played]
        self._played = [(r.kind, str(r.value), *_centre(r.box)) for r in dice]

    def _just_played(self, readings: Sequence[Any], played: Sequence[tuple[str, str, float, float]] | None = None) -> bool:
        """The dice of the roll just used (all or some of them), still lying where they fell: not a new throw.
        ``played``: other dice known (kind, face, centre) instead of the roll just used."""
        played = self._played if played is None else played
        if not played or not readings:
            return False
        return _pairs_up(readings, played, lambda r, p: p[0] == r.kind and p[1] == str(r.value) and _lies_at(r, p[2], p[3]))

    def _track_hands(self, frame: np.ndarray, moving: bool, die_px: float, now: np.ndarray | None = None,
                     die_px_at: DiePxAt | None = None) -> bool:
        """Whether something larger than a die changed since the last frame (a hand, an arm, a shadow: a
        hand moving slowly over the board changes less of the picture than the motion meter asks for).
        Where such things passed, what changed is a piece moved or dice picked up, not a die thrown: once
        the view is quiet again, the frame before a throw takes those parts of the new picture (a magpie
        disc or a stand put down by hand is never taken for a die) -- once the arm has gone from the picture
        (:meth:`_arm_in_view`)."""
        now = quarter(frame) if now is None else now
        last = self._quarters[-1] if self._quarters else None
        back = self._quarters[0] if len(self._quarters) == SLOW_HAND_FRAMES else None
        self._quarters.append(now)
        self._compared = (last, back)
        if last is None or last.shape != now.shape:
            self._touched = None
            return moving
        diff = frame_diff(now, last)
        hand = hand_changes(now, last, die_px, diff=diff, die_px_at=die_px_at)
        if moving or hand.any():
            self._fast_hand_at = self.frames
        elif back is not None and back.shape == now.shape and self.frames - self._fast_hand_at > SLOW_HAND_FRAMES:
            # only after a while with no fast change: a hand that went fast differs from a frame a few back, and the
            # dice it threw change the view frame to frame (bench table, Mighty Magpies seed 13 r2, action 15: dice
            # landing where the hand had taken them up were taken into the frame before the throw, one never read)
            hand = slow_hand_changes(now, last, back, die_px, diff, die_px_at)
        if moving or hand.any():  # what changed by a hand: pieces moved, dice picked up
            touched = cv2.dilate(hand, np.ones((9, 9), np.uint8))
            if self._touched is None:
                self._touched, self._touched_at = touched, self._clock
                # across a camera move the picture before is no measure, and one taken as the view still shakes may
                # hold the last hand: a new one once the view has rested (REST_FRAMES)
                if not self._reference_moved() or self._still >= REST_FRAMES:
                    self._untouched, self._untouched_at = last, self._clock
            else:
                self._touched |= touched
            return True
        if self._arm_in_view(now, die_px):
            return False
        if self._touched is not None:
            if self._before is not None and self._before.shape == frame.shape:
                relit = not self._unread_at_rest and uneven_light(now, quarter(self._before))
                self._relit_left = RELIGHT_FRAMES if relit else 0
                mask = cv2.resize(self._touched, (frame.shape[1], frame.shape[0]), interpolation=cv2.INTER_NEAREST) > 0
                # in the light of before: the light may have changed since (a lamp, between turns)
                self._before = np.where(mask[..., None], in_light_of(frame, self._before, self._touched), self._before)
            self._touched = None
        return False

    def _relit(self, now: np.ndarray) -> bool:
        """Whether all that changed since the last frame, and since the frame the slow-hand check looks back to, is the
        light (:func:`only_light_changed`): a lamp or a shadow between turns, no hand."""
        pictures = [q for q in self._compared if q is not None and q.shape == now.shape]
        return bool(pictures) and all(only_light_changed(now, q) for q in pictures)

    def _arm_in_view(self, now: np.ndarray, die_px: float) -> bool | None:
        """Whether an arm still reaches in where hands passed, in a view where nothing larger than a die changed
        since the last frame: a hand held still over the table, or moving slowly along its arm (each frame then
        changes only a finger's width at its ends). Told at the picture's edge, against the last frame before the
        hands came (``reaches_the_edge``; the frame before a throw may be older than a change of light). The frame
        before a throw waits for it to go, for at most ``HAND_GONE_WAIT_S`` from the hands' coming: taken in, the
        places the hand covered and then left stay changed since before the throw -- read for dice, and counted as
        the throw's strays (a slower family's film, Mighty Magpies seed 5 r2: fingertips taken in as a hand drew back
        from the dice it had picked up, four strays at a dozen throws). None: not told (no picture before, the wait
        ran out, or the camera moved since that picture)."""
        untouched = self._untouched
        if self._touched is None:
            return False
        if untouched is None or untouched.shape != now.shape or self._clock - self._touched_at > HAND_GONE_WAIT_S:
            return None
        if self._reference_moved():
            return None
        # all that changed since the picture before is the light (a lamp, a cloud): no arm is in view, though the edge,
        # told against that picture, may differ by more than the light matched along it (box 41:300, Eulen seed 71 r2:
        # the board's white rim at the picture's top edge, turned cool, told as an arm for the rest of the turn; its
        # moves were asked as misread, two at a time)
        return reaches_the_edge(now, untouched, die_px) and not only_light_changed(now, untouched)

    def _reference_moved(self) -> bool:
        """Whether the camera moved since the picture before the hands was taken, or just before it (it may be one of
        the jolt's): every edge then differs from it (bench table, Falconry seed 21 r2, a jolt at action 12: each later
        move waited the whole HAND_GONE_WAIT_S, the last two never seen; seed 13 r2, the hands of action 32 came in as a
        jolt ended, and those of action 33 were told against a picture with the hand of 32 in it)."""
        return self._moved_at >= self._untouched_at - VIEW_SETTLE_S

    def _remember_before(self, frame: np.ndarray) -> None:
        """The frame before a throw: refreshed whenever the table is at rest with no new die on it -- nothing
        die-sized changed since the last frame (a thrown die is too small for the motion meter: it may still
        be rolling) and no die read where the picture changed since ``before``, or only the dice of the roll
        just used -- and kept from a throw until its roll is used. Not while an arm is still in view (a hand held
        still is a table at rest to the frame-to-frame checks; ``_track_hands`` waits for it to go)."""
        windows = self._windows
        if windows is None or self._before is None:
            self._before = frame
            return
        if self._touched is not None:
            return
        roll = self._roll
        spent = roll is not None and roll.used and self._just_played(self._dice_in_view)
        if self._relit_now(windows.quiet):
            # a shadow came or went while nothing lay unread: the frame pasted together in the old light would leave
            # the shadow's edges as die-sized changes, read as dice that never settle (the next roll never read)
            self._before, self._unread_at_rest, self._taken_up = frame, False, []
            return
        self._unread_at_rest = bool(self._dice_in_view) and not spent
        if (not self._dice_in_view or spent or self._refresh_before) and windows.quiet:  # quiet: asked last, it costs
            # a refresh after an action with dice lying in view that are no spent roll's: a throw with a die read surely
            # stays new (one landing just after a move was entered: bench table, Eagle Kingdoms seed 9 r2, frame 660 --
            # taken in, a 2+5 read surely was never read, and 97 rolls were asked so); dice all read unsure may be a
            # piece moved, taken in, or a throw not settled yet, never read as new again -- the next throw may be a
            # later roll's
            landed = [] if spent or all(r.uncertain for r in self._dice_in_view) else list(self._dice_in_view)
            self._swallowed |= not spent and not landed and (self._swallows_a_throw() or self._unread_dice_lying())
            self._before, self._taken_up = _with_patches_of(frame, self._before, landed), []
            self._refresh_before, self._landed = False, bool(landed)

    def _relit_now(self, quiet: bool) -> bool:
        """Whether the frame before a throw is to be taken afresh for a change of light (``_relit_left``): when the view
        is quiet within ``RELIGHT_FRAMES`` of that change ending and nothing was read surely meanwhile -- a throw's dice
        roll on for longer, and are most often read surely; the light's own edges are read unsure."""
        if not self._relit_left:
            return False
        if any(not r.uncertain for r in self._dice_in_view):
            self._relit_left = 0
            return False
        self._relit_left = 0 if quiet else self._relit_left - 1
        return quiet

    def _swallows_a_throw(self) -> bool:
        """Whether dice lying in view now, read surely, may be a throw that refreshing the frame before a throw takes
        in before it settled (after an action, so that a piece moved is no die): bench table, Eagle Kingdoms rendition
        2, action 156 -- a 4:6 thrown while the family answered the roll before, four still frames in view, never seen
        again; the next throw, 1:6, was confirmed, sure, for it. The roll entered before its dice settled is none."""
        sure = Counter((r.kind, str(r.value)) for r in self._dice_in_view if not r.uncertain)
        return bool(sure) and not (self._answered is not None and not sure - self._answered)

    def _unread_dice_lying(self) -> bool:
        """Dice in view, even read unsure, that are not the last settled roll lying where it settled (Eagle Kingdoms
        rendition 1, action 373: a d8 still rolling when the family entered 'roll again'), nor finds read unsure where
        a move put or took a piece (:meth:`_on_moved_spaces`)."""
        roll = self._roll
        known = [(r.kind, str(r.value), *_centre(r.box)) for r in roll.readings] if roll is not None else []
        lying = [r for r in self._dice_in_view if not any(r is m for m in self._on_moved)]
        return bool(lying) and not self._just_played(lying, known)

    def _on_moved_spaces(self, dice: Sequence[Any], pose: Any) -> list[Any]:
        """The finds read unsure on a space that the moves applied since the last roll changed: the piece moved there,
        not a throw the camera missed (bench table, Verzauberte Eulen seed 31 r1: the black owl, a dark disc, moved
        by the eye die, read as a die showing 1 at 0.01-0.68 where it landed; taken for a throw never read, and the
        next roll asked, seven times in the game)."""
        if not self._moved_spaces or pose is None or not pose.usable:
            return []
        reach = float(getattr(self.table, "piece_reach_mm", 0.0))
        moved = [region for region in self.board.regions if region.id in self._moved_spaces]
        out = []
        for r in dice:
            if not r.uncertain:
                continue
            try:
                centre = pose.image_to_board(np.array([_centre(r.box)], np.float64))[0]
            except Exception:  # a pose that cannot map the point: the find counts as it did
                continue
            if any(_near(region, centre, reach) for region in moved):
                out.append(r)
        return out

    def _dice_events(self, state: State, key: str | None) -> list[TableEvent]:
        roll = self._roll
        if roll is None or roll.used:
            return []
        done = (key, roll.frame)
        if done == self._roll_done:
            return []
        readings = [in_game_terms(r.as_json()) for r in roll.readings]
        if state.is_chance_node():
            specs = wanted_dice(state)
            if not specs:
                return []
            self._roll_done, roll.offered = done, True
            event = self._dice_proposal(state, (), readings, False)
            roll.missed |= self._board_open
            if self._may_wait_for_board(state, roll, event):
                self._held = (roll, event, self._clock, key)
                return []
            if event.kind == DICE and self._board_open:  # a missed roll: these dice may be a later roll's
                event = replace(event, sure=False, message=event.message + " -- but the board has moved on since "
                                "this roll: are these its dice?")
            return self._roll_event(roll, self._missed_throw(roll, event))
        if self._board_open or self.settled is None:
            return []  # the board first: a move shown there comes before the next throw
        kinds = Counter(r["kind"] for r in readings)
        paths = roll_paths(state, kinds, self.adapter.scene_from_state)
        if not paths:
            wanted = Counter(s.kind for p in roll_paths(state, None, self.adapter.scene_from_state) for s in wanted_dice(p.chance))
            if not wanted:
                return []  # no roll can come now: dice lying about
            self._roll_done, roll.offered = done, True
            return self._once(("roll", roll.frame), 0, TableEvent(
                QUESTION, f"dice seen ({_dice_words(readings)}), but not the dice a roll needs now", reason="dice"))
        self._roll_done, roll.offered = done, True
        best = preferred(best_fitting(paths, readings))
        if len({_first(p) for p in best}) > 1:
            options = tuple(p.path for p in best)
            names = " | ".join("; ".join(state.action_to_string(a) for a in p.path) for p in best)
            return self._once(("roll", roll.frame), 0, TableEvent(QUESTION, f"the dice were thrown after: {names}?",
                                                               options=options, reason="several"))
        chosen = min(best, key=lambda p: len(p.path))
        skipped = chosen.skipped_visible and not self._shown_not_taken(state, chosen.skipped_shown, roll)
        event = self._dice_proposal(chosen.chance, chosen.path, readings, skipped, state)
        return self._roll_event(roll, self._missed_throw(roll, event))

    def _read_in_part(self, roll: _Roll, said: Counter) -> bool:
        """Whether a throw read in part (a die of it missed) is the roll entered's, spent on it: its dice show that
        roll, and nothing doubts it was the roll due's throw -- the doubts that leave a throw read whole unsure
        (:meth:`_missed_throw`). Kept for a later roll instead, it left the next throw unsure as "the dice of an
        earlier throw were still unanswered" (bench table, Mighty Magpies seed 49 r1: five asks of 54). A throw
        showing that roll's faces next stays unsure (``_late_faces``): it may be its own dice, settled late."""
        if roll.kept or roll.missed or len(roll.readings) >= sum(said.values()) or not _shows(roll.readings, said):
            return False
        return self._missed_throw(roll, TableEvent(DICE, sure=True)).sure

    def _owes_a_hand(self, before: State, action: Action, was: Mapping[str, list[Any]]) -> bool:
        """Whether a roll just entered changes the board itself (Eagle Kingdoms' double sixes: the roller's best
        character carried to the shield) and the settled board does not show it yet: the hand that does it is owed,
        not a second reach before the next throw (bench table, Eagle Kingdoms s33 r1, frames 454 and 705: each roll
        after double sixes asked as "hands reached in 2 times")."""
        now = _scene_after(before, action, self.adapter.scene_from_state)
        changed = _changed_regions(was, now)
        obs = self.settled
        return bool(changed) and not (obs is not None and all(_reads_as(obs, r, now.get(r)) for r in changed))

    def _shown_not_taken(self, state: State, skipped_shown: tuple[frozenset[str], ...], roll: _Roll) -> bool:
        """Whether the board, settled with these dice lying, rules out every alternative to the decisions before
        the throw that would show on it (``skipped_shown``: the spaces each would change): each reads unchanged,
        surely, on a space it would change (Mighty Magpies: "stays in nest C" before the next throw, sure once
        nest C still surely holds the magpie; the family decides before throwing)."""
        obs = self.settled
        if obs is None or self._settled_at < roll.frame:
            return False
        start = self.adapter.scene_from_state(state)
        return all(any(_reads_as(obs, r, start.get(r)) for r in shown) for shown in skipped_shown)

    def _missed_throw(self, roll: _Roll, event: TableEvent) -> TableEvent:
        """A roll taken for the next one is sure only when one hand reached in before it (to take up the last
        dice and throw): after two or more, a throw may have been missed (a d8 not read, and the dice seen
        now are a later roll's; Eagle Kingdoms' "roll again" would be read into them). Nor when the dice of an
        earlier throw, offered or kept, were still unanswered when these settled: one of the two throws is a later
        roll's, and the camera cannot tell which the family has in mind (a die of it read alone counts: its mate
        may have been missed). Nor when the family had entered two or more rolls whose dice the camera never saw since
        it was last level with the table: it is behind the table, and these dice may be one of those rolls' (bench
        table, Eagle Kingdoms rendition 2, action 353: a duel's 2:1 thrown some thirty actions back confirmed as a
        roll of 1+2). Nor when the family answered a misread question and the board still showed what the game
        does not hold (``ahead``): it may have been ahead of the game, not misread."""
        if event.kind != DICE or not event.sure or roll.reaches <= 1 and not roll.kept and not roll.owed \
                and roll.unseen < UNSEEN_DOUBT and not roll.swallowed and not roll.doubted and not roll.ahead \
                and roll.strays < STRAY_DOUBT:
            return event
        why = "these dice were taken for another roll before" if roll.kept else \
            "the board showed what the game does not hold yet" if roll.ahead else \
            "dice lying before them were never read" if roll.swallowed else \
            "the roll before was answered for dice that may have been this one's" if roll.doubted else \
            "the dice of an earlier throw were still unanswered" if roll.owed else \
            f"the camera could not match {roll.unseen} rolls to the dice it saw" if roll.unseen >= UNSEEN_DOUBT else \
            f"{roll.strays} other places on the table changed since the last action" if roll.strays >= STRAY_DOUBT else \
            f"hands reached in {roll.reaches} times since the last action"
        return replace(event, sure=False, reason=MISSED_ROLL, message=event.message + f" -- {why}: was a roll missed?")

    def _roll_event(self, roll: _Roll, event: TableEvent) -> list[TableEvent]:
        return self._once(("roll", roll.frame), 0, event) if event.kind == QUESTION else [event]

    # -- a roll the board confirms ------------------------------------------------------------------------
    def _may_wait_for_board(self, state: State, roll: _Roll, event: TableEvent) -> bool:
        """Whether a roll proposal is unsure only for the faces of some of its dice (no rule holds it back: a throw
        missed?), and the roll as read lets a move the board would show and no roll missed before it would explain
        (a magpie's flight shows its colours): that move, once made, may tell the faces -- asked only if it does not.
        A roll as read that lets no such move is asked at once: the next throw would come soon, and a roll still
        unanswered holds it back."""
        if self.board_confirms_s <= 0 or event.kind != DICE or event.sure or not event.unsure or not event.dice \
                or len(event.actions) != 1 or self._board_open or not self._missed_throw(roll, replace(event, sure=True)).sure:
            return False
        direct = self._move_scenes(state, event.actions[-1])
        if not direct:
            return False
        missed = _rolls_after_a_missed_roll(state, event, self.adapter.scene_from_state)
        after_missed = set().union(*(self._move_scenes(chance, thrown) for chance, thrown in missed))
        return bool(direct - after_missed)

    def _move_scenes(self, chance: State, roll: Action) -> set[tuple]:
        """The boards the moves after ``roll`` would show (those that change the board)."""
        after = chance.clone()
        after.apply_unchecked(roll)
        if after.is_terminal() or after.is_chance_node():
            return set()
        scene_of = self.adapter.scene_from_state
        start = _scene_key(scene_of(chance))
        out = set()
        for action in after.legal_actions():
            out.add(_scene_key(_scene_after(after, action, scene_of)))
        return out - {start}

    def _held_events(self, key: str | None) -> list[TableEvent]:
        """The roll held for the board, put to the family once it waited ``board_confirms_s`` or a new throw
        settled; dropped once the family entered something (the state changed)."""
        if self._held is None:
            return []
        roll, event, since, at = self._held
        if key != at or roll.used:
            self._held = None
            return []
        if roll is self._roll and self._clock - since < self.board_confirms_s:
            return []
        self._held = None
        return [event]

    def _board_confirms(self, state: State, event: TableEvent, obs: Observation) -> list[TableEvent]:
        """The board settled showing a change while a roll read with unsure faces (``event``) waited for it: the roll
        read is sure when it is the only roll its sure dice allow after which a legal move explains the change (the
        faces read and the move shown agree), surely, and no roll missed before it would explain it too; else it is put
        to the family as read."""
        read = json.dumps(event.actions[-1], sort_keys=True)
        found = {json.dumps(a, sort_keys=True): self._move_after(state, a, obs) for a in _alternative_rolls(state, event)}
        explaining = [k for k, result in found.items() if result is not None and result.kind in _EXPLAINED]
        mine = found.get(read)
        if explaining != [read] or mine is None or mine.kind is not MatchKind.PROPOSED or not mine.sure:
            return [event]
        if self._after_a_missed_roll(state, event, obs):
            return [event]
        return [replace(event, sure=True, unsure=(), message=event.message + " (the move on the board shows these dice)")]

    def _after_a_missed_roll(self, state: State, event: TableEvent, obs: Observation) -> bool:
        """Whether the dice read and the move shown could as well come after a roll the camera missed: some roll of
        ``state``, then decisions that show nowhere (roll again, pass), lead to a roll of these dice after which a
        legal move explains the board (bench table, Eagle Kingdoms seed 2 r2, action 71: a 2+3 never read, "roll
        again", then a 4+4 read unsure and its capture: the 4+4 was confirmed for the first roll). Then it is asked."""
        for chance, roll in _rolls_after_a_missed_roll(state, event, self.adapter.scene_from_state):
            result = self._move_after(chance, roll, obs)
            if result is not None and result.kind in _EXPLAINED:
                return True
        return False

    def _move_after(self, chance: State, roll: Action, obs: Observation) -> Any:
        """What the settled board means after ``roll`` (a MatchResult), or None when the game ends with it."""
        after = chance.clone()
        after.apply_unchecked(roll)
        return None if after.is_terminal() else match(after, None, obs, self.adapter)

    def _dice_proposal(self, chance: State, path: tuple[Action, ...], readings: list[dict[str, Any]],
                       skipped: bool, start: State | None = None) -> TableEvent:
        specs = wanted_dice(chance)
        roll = read_roll(specs, readings)
        if roll.dice is None:
            return TableEvent(QUESTION, f"{roll.seen} of the {len(specs)} dice read: which dice were thrown?", reason="dice")
        try:
            action = chance.chance_action([d.value for d in roll.dice])
        except GameError as exc:
            return TableEvent(QUESTION, f"the dice read ({_dice_words(readings)}) are not a roll here: {exc}", reason="dice")
        unsure = tuple(f"{d.role or f'die {i + 1}'}" for i, d in enumerate(roll.dice) if d.uncertain)
        words = "; ".join((start or chance).action_to_string(a) for a in path)
        text = (words + "; " if words else "") + chance.action_to_string(action)
        if roll.guessed_roles:
            text += " (which die is which was not seen)"
        return TableEvent(DICE, text, actions=path + (action,), unsure=unsure, sure=not unsure and not skipped,
                          dice=tuple(roll.dice))

    # -- decisions that show nowhere -----------------------------------------------------------------------
    def _decision_events(self, state: State, key: str | None) -> list[TableEvent]:
        if self.settled is None or self._board_open or self._asked == key:
            return []
        unreadable = self._unreadable(self.settled)
        kind, actions = unseen_decision(state, self.adapter.scene_from_state, unreadable)
        # dice thrown and not used wait to tell the choice -- but none tells one shown only where the camera reads unsure:
        # throws settling then are the table's next turns (Eagle Kingdoms r1 seed 0: a forfeit to a crowded shield
        # waited for 49 s behind one throw after another, 40 actions behind the table when at last it was asked)
        if self._roll is not None and not self._roll.used and kind != "unread":
            return []
        # a choice shown only where the camera reads unsure (a crowded centre shield): asked once a hand has moved
        # something and the board settled again without a change it can read -- waiting would never end
        if kind in ("visible", "dice") or kind == "unread" and not self._reaches:
            return []
        self._asked = key
        if kind == "only":
            return [TableEvent(MOVE, state.action_to_string(actions[0]) + " (the only legal move)", actions=(actions[0],))]
        names = " | ".join(state.action_to_string(a) for a in actions[:12])
        scene_of, start = self.adapter.scene_from_state, self.adapter.scene_from_state(state)
        shown = set().union(*(_shown_by(state, a, scene_of, start) for a in actions)) if kind == "unread" else set()
        spaces = tuple(sorted(unreadable & shown))
        where = f"read the pieces on {', '.join(spaces)}" if spaces else "see this choice"
        return [TableEvent(QUESTION, f"the camera cannot {where}: {names}", options=tuple((a,) for a in actions),
                           regions=spaces, reason="hidden")]

    def _unreadable(self, obs: Observation) -> frozenset[str]:
        """Spaces the settled board reads unsure for good (a crowded stack), not just now: unsure in every settled
        board for ``UNREADABLE_AFTER_S`` (a shadow, fingers near, a die lying there pass: a question asked before
        the move was made would run ahead of the table)."""
        lasting = {r for r, since in self._unsure_since.items() if self._clock - since >= UNREADABLE_AFTER_S}
        return frozenset(lasting & obs.uncertain) - set(obs.extra.get("hidden_by_dice") or ())

    # -- the pose, for the app -------------------------------------------------------------------------------
    def _pose_info(self, pose: Any, size: tuple[int, int]) -> dict[str, Any]:
        out: dict[str, Any] = {"board": pose.status.value, "board_reason": pose.reason, "board_source": pose.source}
        if pose.usable:
            out["homography"] = np.asarray(pose.homography, np.float64).tolist()
            angle = self.tracker.view_angle(pose, size)
            if angle is not None:  # dice read poorly from low down
                limit = float(self.tracker.config["view"]["lean_warn_deg"])
                out.update(view_angle=round(angle, 1), view_leaning=angle > limit, view_lean_limit=limit)
        return out

    def _undistorted(self, frame: np.ndarray, size: tuple[int, int]) -> np.ndarray:
        """The frame as a distortion-free camera with the profile's focal length would see it (the
        homography reported maps to these pixels)."""
        if self.camera is None:
            return frame
        if self._undistort is None or self._undistort[0] != size:
            K, dist = self.camera.camera_matrix, self.camera.dist_coeffs
            self._undistort = (size, cv2.initUndistortRectifyMap(K, dist, None, K, size, cv2.CV_16SC2))
        maps = self._undistort[1]
        return cv2.remap(frame, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def _check_camera(self, size: tuple[int, int]) -> str:
        """A profile calibrated for another picture size would bend the picture wrongly: it is set aside."""
        camera = self.camera
        if camera is None or tuple(int(v) for v in camera.image_size) == size:
            return ""
        self.camera = None
        w, h = camera.image_size
        return f"the camera profile {camera.name} is for {w}x{h} pictures, not {size[0]}x{size[1]}: set aside"

    def _forget_view(self) -> None:
        self.tracker.reset()
        self.motion.reset()
        self._board_run, self._before = None, None


def _several_question(asked: MatchResult) -> TableEvent:
    return TableEvent(QUESTION, asked.message, options=asked.options, regions=asked.changed, reason="several")


def _put_off_status(asked: MatchResult) -> TableEvent:
    """The frame's words while a question waits for the next move (short: they are shown over the picture too)."""
    return TableEvent(STATUS, PUT_OFF, options=asked.options, info={"waiting": True})


def _explains_unsure(scene: Mapping[str, list[Any]], now: Observation, obs: Observation, unsure: Sequence[str],
                     blind: frozenset[str] = frozenset()) -> bool:
    """Whether a move's board ``scene`` agrees with every space read surely in ``obs`` and explains some of the spaces
    read ``unsure`` that differ from the board ``now`` (or changes a space read ``blind``: no guess). Guesses it leaves
    unexplained are in spaces it changes, or differ from the board without the move too: misreads either way."""
    hard, soft = differences(scene, obs)
    return not hard and bool(set(unsure) - set(soft) or set(differences(scene, now)[0]) & blind)


def _same_piece(expected: Any, seen: Any) -> bool:
    """The same piece but for its kind (which the look taught so far cannot tell): noble and whether it covers."""
    def without_kind(pieces: Any) -> list[str]:
        return sorted(json.dumps({k: v for k, v in p.items() if k != "kind"} if isinstance(p, Mapping) else p, sort_keys=True)
                      for p in pieces or [])

    return bool(expected) and without_kind(expected) == without_kind(seen)


def _key(state: State) -> str:
    return json.dumps(state.to_json(), sort_keys=True)


def _alternative_rolls(chance: State, event: TableEvent) -> list[Action]:
    """The rolls a proposal's dice may be: the faces read surely kept, every face for each die read unsure (the roll
    read among them)."""
    specs = wanted_dice(chance)
    choices = [list(spec.faces) if die.uncertain else [die.value] for spec, die in zip(specs, event.dice, strict=False)]
    out: list[Action] = []
    for values in itertools.product(*choices):
        try:
            action = chance.chance_action(list(values))
        except GameError:
            continue
        if action not in out:
            out.append(action)
    return out


def _rolls_after_a_missed_roll(state: State, event: TableEvent, scene_of: Any) -> Iterator[tuple[State, Action]]:
    """(chance state, roll) for each way a roll of the dice read could come after a roll of ``state`` that the camera
    missed: that roll, then decisions that show nowhere on the board (Eagle Kingdoms: "roll again", a pass), to a
    roll of the same dice. The board cannot tell such a roll from this one."""
    kinds = Counter(s.kind for s in wanted_dice(state))
    values = [d.value for d in event.dice]
    for outcome in state.legal_actions():
        missed = state.clone()
        missed.apply_unchecked(outcome)
        for path in roll_paths(missed, kinds, scene_of):
            try:
                yield path.chance, path.chance.chance_action(values)
            except GameError:
                continue


def _die_side_px(pose: Any, at_mm: np.ndarray) -> float:
    """A die's side in frame px lying at ``at_mm`` on the board's plane: 10 mm steps along both axes, mapped."""
    c = pose.board_to_image(np.array([at_mm, at_mm + (10.0, 0.0), at_mm + (0.0, 10.0)], np.float64))
    return DIE_MM * float(np.linalg.norm(c[1] - c[0]) + np.linalg.norm(c[2] - c[0])) / 20


def _strays(places: Sequence[tuple[int, int]], dice: Sequence[Any], gone: Sequence[tuple[float, float]], die_px: float,
            lit_only: Callable[[Sequence[tuple[int, int]]], list[tuple[int, int]]] | None = None) -> int:
    """Places changed since the frame before a throw that neither a die read nor the last roll's dice taken up
    explain: a piece moved, dice taken up that were never read -- the table went on while the camera did not see
    it (bench table, Mighty Magpies seed 13 r2, action 55: a roll and a flight made while the board was refused,
    the next throw, read with seven such places, was confirmed for the roll missed). Places only the light changed
    (``lit_only``: :meth:`DiceWindows.lit_only`) are none: a lamp switched on between turns."""
    near = [_centre(d.box) for d in dice] + list(gone)
    unexplained = [(px, py) for px, py in places
                   if not any(abs(px - x) <= 0.8 * die_px and abs(py - y) <= 0.8 * die_px for x, y in near)]
    return len(unexplained) - (len(lit_only(unexplained)) if lit_only is not None and unexplained else 0)


def _lone_die_misread(roll: _Roll, said_kinds: Counter) -> bool:
    """Whether a throw is the one die of the roll entered, its kind misread: one die, read unsure as another kind,
    where the throw changed one die-sized place only -- a second die thrown and missed would have changed a second
    (bench table, Eagle Kingdoms seed 2: every Enchanted Die read as a d6 changed one place, every pair of d6 read as
    one die changed two or more; kept for a later roll of its kind, the lone "d6" set off a chain of questions)."""
    return sum(said_kinds.values()) == 1 and len(roll.readings) == 1 and roll.readings[0].uncertain \
        and roll.places == 1 and not roll.kept


def _shows(readings: Sequence[Any], said: Counter, unsure_too: bool = False) -> bool:
    """Whether dice read (some of a throw's: a die may have been missed) may be the roll entered, ``said``
    ((kind, face) per die): their kinds among its dice, and some face read surely (or, ``unsure_too``, read at all)
    and every one of them its."""
    surely = Counter((r.kind, str(r.value)) for r in readings if unsure_too or not r.uncertain)
    kinds = Counter(r.kind for r in readings)
    return bool(surely) and not surely - said and not kinds - Counter(k for k, _ in said.elements())


def _centre(box: Sequence[float]) -> tuple[float, float]:
    return float(box[0] + box[2] / 2), float(box[1] + box[3] / 2)


def _lies_at(die: Any, x: float, y: float) -> bool:
    """Whether a die read lies at (x, y): its centre within 0.3 of its size (a die left where it was, read again)."""
    (cx, cy), tol = _centre(die.box), 0.3 * max(die.box[2], die.box[3])
    return abs(cx - x) <= tol and abs(cy - y) <= tol


def _patch_rect(box: Sequence[float], shape: Sequence[int]) -> tuple[int, int, int, int]:
    """The rectangle laid over a die (its box and a third of it round it), within a frame of ``shape``."""
    x, y, bw, bh = (int(v) for v in box)
    h, w = int(shape[0]), int(shape[1])
    return max(0, x - bw // 3), max(0, y - bh // 3), min(w, x + bw + bw // 3), min(h, y + bh + bh // 3)


PATCH_CHANGED_LEVELS = 40  # a pixel of the patch's margin this far from the frame (any channel) was covered
PATCH_CHANGED_SHARE = 0.2  # the patch covered more than its die when this share of its margin was covered


def _covers_more_than_the_die(now: np.ndarray, patch: np.ndarray, box: Sequence[float], origin: tuple[int, int]) -> bool:
    """Whether the patch hides more than the die (and its shadow) in its margin round the die's box: something
    else there now differs from what lay there before the throw."""
    x, y, bw, bh = (int(v) for v in box)
    margin = np.ones(now.shape[:2], bool)
    mx, my = x - origin[0], y - origin[1]
    margin[max(0, my):max(0, my + bh), max(0, mx):max(0, mx + bw)] = False
    if not margin.any():
        return False
    changed = np.abs(now.astype(np.int16) - patch.astype(np.int16)).max(axis=2) > PATCH_CHANGED_LEVELS
    return float(changed[margin].mean()) >= PATCH_CHANGED_SHARE


def _pairs_up(dice: Sequence[Any], others: Sequence[Any], fits: Callable[[Any, Any], bool]) -> bool:
    """Whether each of ``dice`` fits another one of ``others`` (the first that fits, one to one)."""
    left = list(others)
    for die in dice:
        hit = next((other for other in left if fits(die, other)), None)
        if hit is None:
            return False
        left.remove(hit)
    return True


def _in_light_of_now(now: np.ndarray, then: np.ndarray, rect: tuple[int, int, int, int]) -> np.ndarray:
    """``then``'s patch ``rect`` brought to the light of ``now`` (measured round it in both)."""
    x0, y0, x1, y1 = rect
    return np.clip(then[y0:y1, x0:x1] * _light_ratio(now, then, rect), 0, 255).astype(np.uint8)


def _with_patches_of(frame: np.ndarray, under: np.ndarray, dice: Sequence[Any]) -> np.ndarray:
    """``frame`` with what lay under ``dice`` in ``under`` (in the light of now): the frame before a throw taken afresh,
    the dice lying in it still new."""
    if not dice or under.shape != frame.shape:
        return frame
    out = frame.copy()
    for _r, (x0, y0, x1, y1), patch in _dice_patches(frame, under, dice):
        out[y0:y1, x0:x1] = patch
    return out


def _dice_patches(frame: np.ndarray, under: np.ndarray, dice: Sequence[Any]) -> Iterator[tuple[Any, tuple, np.ndarray]]:
    """Per die, its patch's rect and what lay there in ``under``, in the light of ``frame`` (same shape)."""
    for r in dice:
        x0, y0, x1, y1 = _patch_rect(r.box, frame.shape)
        if x1 > x0 and y1 > y0:
            yield r, (x0, y0, x1, y1), _in_light_of_now(frame, under, (x0, y0, x1, y1))


def _light_ratio(now: np.ndarray, then: np.ndarray, rect: tuple[int, int, int, int]) -> np.ndarray:
    """Per channel, how much brighter the ring round ``rect`` is now than then (the light's change there)."""
    x0, y0, x1, y1 = rect
    pad = max(3, (x1 - x0) // 4)
    h, w = now.shape[:2]
    X0, Y0, X1, Y1 = max(0, x0 - pad), max(0, y0 - pad), min(w, x1 + pad), min(h, y1 + pad)
    ring = np.ones((Y1 - Y0, X1 - X0), bool)
    ring[y0 - Y0:y1 - Y0, x0 - X0:x1 - X0] = False
    if not ring.any():
        return np.ones(3)
    a = np.median(now[Y0:Y1, X0:X1][ring].astype(np.float64), axis=0)
    b = np.median(then[Y0:Y1, X0:X1][ring].astype(np.float64), axis=0)
    return np.clip((a + 1.0) / (b + 1.0), 0.25, 4.0)


def _spots_under(discs: tuple[tuple[str, float, float, float], ...], quad: np.ndarray) -> set[int]:
    """The indices of ``discs`` (region, x, y, radius; board mm) that the convex ``quad`` (board mm) touches."""
    quad = np.asarray(quad, np.float32)
    centres, radii = _disc_arrays(discs)
    lo, hi = quad.min(axis=0), quad.max(axis=0)
    near = np.flatnonzero(((centres >= lo - radii[:, None]) & (centres <= hi + radii[:, None])).all(axis=1))
    poly = quad.reshape(-1, 1, 2)
    return {int(i) for i in near if cv2.pointPolygonTest(poly, (float(centres[i, 0]), float(centres[i, 1])), True) > -radii[i]}


@functools.lru_cache(maxsize=8)
def _disc_arrays(discs: tuple[tuple[str, float, float, float], ...]) -> tuple[np.ndarray, np.ndarray]:
    return np.array([d[1:3] for d in discs], np.float32).reshape(-1, 2), np.array([d[3] for d in discs], np.float32)


@functools.lru_cache(maxsize=8)
def _spots_of_spaces(discs: tuple[tuple[str, float, float, float], ...]) -> dict[str, list[int]]:
    """Space -> the indices of its spots among ``discs`` (made once per reader)."""
    spaces: dict[str, list[int]] = {}
    for i, disc in enumerate(discs):
        spaces.setdefault(disc[0], []).append(i)
    return spaces


def _partly_seen(discs: tuple[tuple[str, float, float, float], ...], under: set[int], spot_reads: Any,
                 wholly: set[str], sure_from: float) -> dict[str, tuple[tuple[str, ...], int]]:
    """Space -> (what its spots out of every patch read, canonical; how many of its spots lie under one), for the
    spaces with spots on both sides whose spots out of the patches were all read surely (a die at the edge of the
    cave hides none of the owls in its middle: bench table, Verzauberte Eulen seed 47 r1, an owl moved into the cave
    asked twice)."""
    if not under or not spot_reads or len(spot_reads) != len(discs):
        return {}
    spaces = _spots_of_spaces(discs)
    out = {}
    for space in {discs[i][0] for i in under} - wholly:
        seen = [i for i in spaces[space] if i not in under]
        if seen and all(spot_reads[i][1] >= sure_from for i in seen):
            out[space] = (canonical([spot_reads[i][0] for i in seen if spot_reads[i][0] is not None]),
                          len(spaces[space]) - len(seen))
    return out


def _overlapping(regions: Sequence[Any], quad: np.ndarray) -> set[str]:
    """The ids of the ``regions`` that overlap the convex quadrilateral ``quad`` (board mm); a region's outline is
    taken as its convex hull (an eagle piece's outline is not convex: a little more is hidden, never less)."""
    quad = np.asarray(quad, np.float32)
    (qx0, qy0), (qx1, qy1) = quad.min(axis=0), quad.max(axis=0)
    out = set()
    for region in regions:
        (x0, y0, x1, y1), hull = _outline(region)
        if x0 > qx1 or x1 < qx0 or y0 > qy1 or y1 < qy0:
            continue
        if hull is not None:
            touches = cv2.intersectConvexConvex(hull, quad)[0] > 0
        else:
            (cx, cy), r = region.circle_center_mm, float(region.radius_mm or 0)
            touches = cv2.pointPolygonTest(quad.reshape(-1, 1, 2), (float(cx), float(cy)), True) > -r
        if touches:
            out.add(region.id)
    return out


@functools.lru_cache(maxsize=512)
def _outline(region: Any) -> tuple[tuple[float, float, float, float], np.ndarray | None]:
    """A region's bounds and (a polygon's) convex hull, made once."""
    hull = None if region.polygon_mm is None else cv2.convexHull(np.asarray(region.polygon_mm, np.float32)).reshape(-1, 2)
    x0, y0, x1, y1 = (float(v) for v in region.bounds_mm())
    return (x0, y0, x1, y1), hull


def _near(region: Any, centre: np.ndarray, radius: float) -> bool:
    if region.polygon_mm is not None:
        poly = np.asarray(region.polygon_mm, np.float32).reshape(-1, 1, 2)
        return cv2.pointPolygonTest(poly, (float(centre[0]), float(centre[1])), True) > -radius
    (cx, cy), r = region.circle_center_mm, float(region.radius_mm or 0)
    return float(np.hypot(centre[0] - cx, centre[1] - cy)) < r + radius


def _dice_words(readings: Sequence[Mapping[str, Any]]) -> str:
    return ", ".join(f"{r.get('kind')} {r.get('value')}" for r in readings) or "none"


__all__ = [
    "DICE", "ILLEGAL", "MOVE", "QUESTION", "SETUP", "STATUS", "RollPath", "TableEvent", "TablePipeline",
    "dice_in_context", "preferred", "roll_paths", "unseen_decision",
]
