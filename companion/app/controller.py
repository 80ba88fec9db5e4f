"""The game flow of the table app, without any UI (no Kivy import; tested headless and fast).

One :class:`Controller` holds the :class:`~companion.journal.Session` being refereed, the current
:class:`Proposal` (what the camera or a tap suggests, waiting for a one-tap confirm), and the
messages shown to the family in plain words. The Kivy screens only display what it exposes and
forward taps to it.

The rules are the engines' (through the registry and the generic ``State`` API); the camera and
the keyboard are only ways to *propose* an action. Nothing is applied without a confirm, and a
confirmed action is in the journal (fsync'ed) before the ``confirmed`` event is emitted, so the
screen can never show a confirmation that a crash could lose.

Recognition results arrive tagged with the ``generation`` they were computed for; every state
change bumps it, so a result about an older position or game is dropped, never applied.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

from companion.app import paths
from companion.app.i18n import language, spoken_list, tr
from companion.app.moves import MovePicker, regions
from companion.app.words import plain, sentence_case, space_name
from companion.games import i18n as engine_i18n
from companion.games.core import Action, GameError, IllegalAction, InvalidAction, State
from companion.games.registry import GameModule, available_games, load_game
from companion.inputs import typed_problem
from companion.journal import Journal, JournalError, Session, describe_damage, game_of
from companion.referee.dice import (
    DieSpec,
    DieValue,
    entered_dice,
    is_new_roll,
    played_dice,
    read_roll,
    roll_action,
    wanted_dice,
    with_correction,
)

DEFAULT_COLOURS = [0, 1, 2, 3, 0, 1]


def _valid_colours(saved: Any) -> list[int] | None:
    if isinstance(saved, list) and saved and all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in saved):
        return list(saved)
    return None


def load_colours(players: int, metadata: dict[str, Any] | None = None) -> list[int]:
    """The player colours of a game: from the journal header's ``metadata``, else the defaults."""
    colours = list(DEFAULT_COLOURS)
    saved = _valid_colours((metadata or {}).get("colours"))
    if saved:
        colours[:len(saved)] = saved
    return (colours * 2)[:max(players, len(DEFAULT_COLOURS))]


@dataclass
class Proposal:
    action: Action
    text: str
    source: str  # "camera" | "manual" | "choice" | "typed" | "random"
    dice: list[DieValue] = field(default_factory=list)
    before: list[Action] = field(default_factory=list)  # decisions applied first: they show nowhere, the dice tell them

    @property
    def uncertain(self) -> bool:
        return any(d.uncertain for d in self.dice)


@dataclass
class Message:
    level: str  # "info" | "ok" | "warn" | "illegal" | "error"
    text: str
    rule_id: str | None = None
    rule_text: str | None = None


@dataclass
class Choice:
    index: int
    action: Action
    text: str
    piece: str | None = None


@dataclass
class JournalInfo:
    path: Path
    game: str
    title: str
    players: list[str]
    actions: int
    finished: bool
    modified: str
    error: str | None = None
    damaged_line: int | None = None
    """The first damaged line: the game can go on from the line before it if the family chooses so."""


@cache
def rules_text(game_name: str) -> dict[str, str]:
    """Rule ID -> rule text, parsed from the game's RULES.md."""
    path = rules_path(game_name)
    if path is None:
        return {}
    rules = {}
    for match in re.finditer(r"^- \*\*([A-Z0-9-]+)\*\*\s+(.*)$", path.read_text(encoding="utf-8"), re.M):
        rules[match.group(1)] = match.group(2).strip()
    return rules


def rules_path(game_name: str) -> Path | None:
    module = load_game(game_name).module
    path = Path(module.__file__).resolve().parent / "RULES.md"
    return path if path.is_file() else None


def peek_journal(path: Path) -> JournalInfo:
    """Read a journal without opening it for writing: its game, players and whether it ended. Never
    raises: a journal that cannot be used says why (``error``), a damaged one where (``damaged_line``)."""
    modified = _modified(path)
    try:
        contents = Journal.read(path)
        name = str(contents.header.get("game"))
        game_class = load_game(name).game_class
        if contents.header.get("rules_version") != game_class.version:
            raise JournalError(
                tr("journal:old_rules", found=contents.header.get("rules_version"), current=game_class.version)
            )
        game = game_of(contents, path)
        replay = Session(game)
        damage = describe_damage(path, contents.damage) if contents.damage else None
        damaged_line = contents.damage.line if contents.damage else None
        for line, record in zip(contents.line_numbers, contents.records, strict=True):
            try:
                replay.replay_record(record)
            except GameError as exc:
                damage, damaged_line = f"line {line} of {path.name} cannot be replayed ({exc})", line
                break
        state = replay.state
        return JournalInfo(path, name, game_class.title or name, list(game.players), len(replay.history),
                           state.is_terminal(), modified, damage, damaged_line)
    except (JournalError, GameError, KeyError, TypeError, ValueError, AttributeError, RecursionError) as exc:
        return JournalInfo(path, "?", path.stem, [], 0, False, modified, str(exc))


def _modified(path: Path) -> str:
    try:
        return datetime.fromtimestamp(path.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
    except (OSError, ValueError, OverflowError):  # a broken link, or a file gone meanwhile
        return "?"


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a loop of links
        return path


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


class Controller:
    """The UI-free game flow. ``listener(event, payload)`` hears: ``changed``, ``proposal``,
    ``message``, ``confirmed``, ``over`` and ``read_again`` (the camera should report the dice in view
    again, although it reported them before)."""

    def __init__(self, data_root: str | Path | None = None, listener: Callable[[str, Any], None] | None = None,
                 seed: int | None = None):
        self.root = paths.data_dir(data_root)
        self.listeners: list[Callable[[str, Any], None]] = [listener] if listener else []
        self.session: Session | None = None
        self.module: GameModule | None = None
        self.view = None
        self.proposal: Proposal | None = None
        self.messages: list[Message] = []
        self.generation = 0
        self.changed_at = 0.0
        self.dropped = 0
        self.vision_status = ""
        self._frame_words = ""  # the last frame's own status (a hand, blur, a roll waiting), while it is shown
        self.rng = random.Random(seed)
        self.colours: list[int] = list(DEFAULT_COLOURS)
        self._entry: list[DieValue] = []
        self._picker: tuple[tuple, MovePicker] | None = None
        self.refused: str | None = None  # the region of the move last refused (marked on the picture until the next change)
        self._played_dice: list[tuple[str, str]] = []  # (kind, face) of each die of the last roll applied
        self._early_roll = False  # the camera saw a new roll while a move was still awaited
        self._last_seen: dict[str, Any] | None = None  # the camera's last illegal call or question, said once
        self.dice_learning: Any = None  # the dice profile in use (app.dice_teaching.LearningProfile): confirmed rolls teach it
        self._dice_crops: dict[tuple, Any] = {}  # box -> the camera's crop of each die of the last roll read
        self.setup_read: dict[str, Any] | None = None  # the set-up as far as the camera read it (fixed by taps)

    # --- events ---------------------------------------------------------------------------------
    def emit(self, event: str, payload: Any = None) -> None:
        for listener in list(self.listeners):
            listener(event, payload)

    def say(self, level: str, text: str, rule_id: str | None = None) -> Message:
        message = Message(level, text, rule_id, self.rule_statement(rule_id))
        self.messages.append(message)
        del self.messages[:-50]
        self.emit("message", message)
        return message

    def rule_statement(self, rule_id: str | None) -> str | None:
        """The rule's one-line statement in the current language (English: RULES.md's own line)."""
        if not (rule_id and self.module):
            return None
        return engine_i18n.rule_text(self.module.name, rule_id, language()) or rules_text(self.module.name).get(rule_id)

    def _words(self, state: State, action: Action, choice: bool = False) -> str:
        """A move in the current language: English is the engines' own text, unchanged; another language
        comes from the game's data files (``companion.games.i18n``), English where a word is missing."""
        lang = language()
        if lang == engine_i18n.DEFAULT:
            text = self.view.describe_choice(state, action) if choice else state.action_to_string(action)
        else:
            text = engine_i18n.describe_action(state, action, lang, choice=choice)
        return self.plain(text)

    def plain(self, text: str) -> str:
        """``text`` with the game's space ids, cells and owl codes in plain words (:mod:`companion.app.words`)."""
        return plain(self.module.name, text, language()) if self.module else text

    def _changed(self) -> None:
        self.generation += 1
        self.changed_at = time.monotonic()
        self.proposal = None
        self._entry = []
        self._dice_crops = {}
        self.setup_read = None
        self.vision_status = ""
        self.refused = None
        self.emit("changed", self.generation)
        if self.state is not None and self.state.is_terminal():
            self.emit("over", None)
        if self._early_roll and self.phase == "chance":
            self._early_roll = False
            self._ask_camera_again(tr("table:early_roll"))

    # --- games and journals ------------------------------------------------------------------------
    @staticmethod
    def games() -> list[dict[str, Any]]:
        out = []
        for name in available_games():
            try:
                cls = load_game(name).game_class
            except Exception:  # a game being written may not import yet; the others still work
                continue
            out.append({
                "name": name, "title": cls.title or name, "modes": list(cls.modes), "variants": list(cls.variants),
                "min_players": cls.min_players, "max_players": cls.max_players, "default_players": cls.default_players,
            })
        return out

    def journal_folder(self) -> Path:
        return paths.journals_dir(self.root)

    def new_game(self, name: str, players: list[str], mode: str | None = None, variant: str | None = None,
                 journal: bool = True, colours: list[int] | None = None, options: dict[str, Any] | None = None) -> Session:
        """Start a game (raises :class:`GameError` with a plain message for a bad set-up). ``colours``: each
        player's colour (an index into the theme's colours), kept in the journal's header for a resume;
        ``options``: the game's rules options (``Game.options_spec``), checked by the core."""
        module = load_game(name)
        game = module.game_class(players=players, mode=mode or None, variant=variant or None, options=dict(options or {}))
        path = None
        if journal:
            stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
            path = self.journal_folder() / f"{module.name}-{stamp}.jsonl"
            n = 1
            while path.exists():
                n += 1
                path = self.journal_folder() / f"{module.name}-{stamp}-{n}.jsonl"
        chosen = (list(colours or DEFAULT_COLOURS) + DEFAULT_COLOURS)[:max(len(players), len(DEFAULT_COLOURS))]
        self._install(module, Session.start(game, path, metadata={"colours": [int(c) for c in chosen]}))
        self.colours = chosen
        self.say("info", tr("table:started", game=self.title()))
        return self.session

    def replay(self, name: str, players: list[str], actions: list[Action], mode: str | None = None,
               variant: str | None = None, options: dict[str, Any] | None = None) -> Session:
        """A game without a journal, at the position after ``actions`` (the screenshot tour shows each game at
        its moments this way; nothing is written)."""
        module = load_game(name)
        session = Session(module.game_class(players=players, mode=mode or None, variant=variant or None,
                                            options=dict(options or {})))
        for action in actions:
            session.apply(action)
        self._install(module, session)
        self.colours = list(DEFAULT_COLOURS)
        return session

    def resume(self, path: str | Path, continue_from_last_good: bool = False) -> Session:
        """Resume a journal (JournalError with a plain message). A damaged one raises
        :class:`~companion.journal.JournalDamaged` (the screen asks the family) unless
        ``continue_from_last_good``: then it goes on from the last good line, the rest set aside."""
        session = Session.resume(path, continue_from_last_good=continue_from_last_good)
        self._install(load_game(session.game.name), session)
        self.colours = load_colours(len(session.game.players), session.metadata)
        for warning in session.warnings:
            self.say("warn", warning)
        self.say("info", tr("table:resumed", game=self.title(), count=len(session.history)))
        return session

    def _install(self, module: GameModule, session: Session) -> None:
        self.close()
        self.module = module
        self.view = module.text_view()
        self.session = session
        self.messages = []
        self._played_dice, self._early_roll = [], False
        self._changed()

    def unfinished(self) -> list[JournalInfo]:
        """Journals that can be resumed (newest first) and those that cannot (with the reason)."""
        infos = [peek_journal(p) for p in sorted(self.journal_folder().glob("*.jsonl"), key=_mtime, reverse=True)[:20]]
        current = self.session.journal.path.resolve() if self.session and self.session.journal else None
        return [i for i in infos if not i.finished and _resolved(i.path) != current]

    def close(self) -> None:
        if self.session:
            self.session.close()
        self.session = None

    # --- what the screens show ---------------------------------------------------------------------
    @property
    def state(self) -> State | None:
        return self.session.state if self.session else None

    def title(self) -> str:
        return tr(f"game:{self.module.name}") if self.module else ""

    @property
    def phase(self) -> str:
        state = self.state
        if state is None:
            return "none"
        if state.is_terminal():
            return "over"
        return "chance" if state.is_chance_node() else "decision"

    def at_setup(self) -> bool:
        """The game waits for its chance set-up (laid out at the table), not for dice."""
        return self.phase == "chance" and not self.dice_specs() and self.chance_kind() == "setup"

    def chance_kind(self) -> str | None:
        request = self.state.chance_request() if self.state is not None and self.phase == "chance" else None
        return request.kind if request else None

    def prompt(self) -> str:
        state = self.state
        if state is None:
            return ""
        if self.phase == "over":
            return tr("table:over")
        if self.phase == "chance":
            if self.at_setup():  # laid out on the table and read by the camera (never typed as a placement)
                return tr("table:setup_camera")
            request = state.chance_request()
            if request is None:
                return tr("table:chance")
            own = f"prompt:{self.module.name}:{request.kind}"  # the app's words where the engine's say what to type
            if tr(own) != own:
                return tr(own, player=self.current_player_name())
            return self.plain(engine_i18n.chance_prompt(state, language()) or request.prompt)
        return tr("table:your_choice", player=state.player_name(state.current_player))

    def dice_specs(self) -> list[DieSpec]:
        return wanted_dice(self.state) if self.phase == "chance" else []

    def die_label(self, role: str, index: int) -> str:
        """A die's role as the screens show it (``role`` stays the identifier vision matches on):
        in English the role itself, or "Die 2" for a die without one; else the game's word for it."""
        if not role:
            return tr("table:die", number=index + 1)
        return engine_i18n.die_label(self.module.name, role, language()) if self.module else role

    def face_label(self, face: Any) -> str:
        """A die face as the screens show it (the value sent to the game is unchanged): in English
        ``str(face)``; else the game's word for a named face ("magpie" -> "Elster")."""
        return engine_i18n.face_label(self.module.name, face, language()) if self.module else str(face)

    def choices(self) -> list[Choice]:
        state = self.state
        if state is None or self.phase != "decision":
            return []
        return [Choice(m.index, m.action, m.text, m.target) for m in self.picker().moves]

    def picker(self) -> MovePicker | None:
        """The legal moves of the decision now, placed on the board and grouped by piece (one per position
        and language: a tap's selection holds until the game changes)."""
        state = self.state
        if state is None or self.phase != "decision":
            return None
        key = (self.generation, language())
        if self._picker is None or self._picker[0] != key:
            actions = state.legal_actions()
            moves = [(i, a, self._words(state, a, choice=True)) for i, a in enumerate(actions)]
            self._picker = (key, MovePicker(self.module.name, state, moves, language()))
        return self._picker[1]

    def highlights(self) -> dict[str, str]:
        """Board spaces to mark: region id -> ``piece`` (has moves), ``target`` (a move goes there), ``selected``
        (the piece picked up), ``proposed`` (the proposal's) or ``illegal`` (the move just refused)."""
        picker = self.picker()
        marks = picker.marks() if picker is not None else {}
        if self.proposal is not None and not self.proposal.before and self.module is not None and self.state is not None:
            source, target = regions(self.module.name, self.state, self.proposal.action)
            for region in (source, target):
                if region:
                    marks[region] = "proposed"
        if self.refused:
            marks[self.refused] = "illegal"
        return marks

    def coach_lines(self) -> list[str]:
        state = self.state
        if state is None or state.is_terminal():
            return []
        try:
            lines = engine_i18n.coach(state, language())  # None in English: the view's own advice
            return [self.plain(line) for line in (lines if lines is not None else self.view.coach(state))]
        except Exception:  # advice is optional; never let it break the table
            return []

    def scores(self) -> list[tuple[str, float, bool]]:
        state = self.state
        if state is None:
            return []
        winners = set(state.winners()) if state.is_terminal() else set()
        return [(name, score, i in winners) for i, (name, score) in enumerate(zip(state.game.players, state.scores(), strict=True))]

    def current_player_name(self) -> str:
        state = self.state
        if state is None or state.is_terminal():
            return ""
        player = state.current_player
        if player < 0:  # a chance node during someone's turn (Verzauberte Eulen keeps it as ``to_move``)
            player = getattr(state, "player", getattr(state, "to_move", player))
        return state.player_name(player) if player >= 0 else ""

    def board_text(self) -> str:
        """The board as text (the scores screen): English is the view's own ``render``, unchanged."""
        if self.state is None:
            return ""
        return engine_i18n.board_text(self.state, language()) or self.view.render(self.state)

    def final_table(self) -> str:
        if self.state is None:
            return ""
        return self.plain(engine_i18n.final_table(self.state, language()) or self.view.final_table(self.state))

    def history_entries(self) -> list[str]:
        if not self.session:
            return []
        replay = self.session.game.new_initial_state()
        lines = []
        for action in self.session.history:
            lines.append(self._words(replay, action))
            replay.apply_unchecked(action)
        return lines

    def rules_markdown(self) -> str:
        if self.module and language() != engine_i18n.DEFAULT:
            translated = engine_i18n.rules_markdown(self.module.name, language())
            if translated:
                return self.plain(translated)
        path = rules_path(self.module.name) if self.module else None
        return self.plain(path.read_text(encoding="utf-8")) if path else ""

    # --- proposals ---------------------------------------------------------------------------------------
    def _set_proposal(self, proposal: Proposal | None) -> None:
        self.proposal = proposal
        self.emit("proposal", proposal)

    def propose(self, action: Action, source: str, dice: list[DieValue] | None = None,
                before: list[Action] | None = None) -> Proposal | None:
        """Check ``action`` against the rules; a legal one becomes the proposal, an illegal one is called.
        ``before``: a roll's decisions that show nowhere (the dice thrown tell them), confirmed with it in one tap."""
        state = self._after(before or [])
        if state is None or state.is_terminal():
            return None
        if not state.is_legal(dict(action)):
            if not before:
                self.call_illegal(action, state.explain_illegal(dict(action)), source)
            return None
        text = "; ".join([*self._path_words(before or []), self._words(state, action)])
        proposal = Proposal(dict(action), text, source, list(dice or []), [dict(a) for a in before or []])
        self._set_proposal(proposal)
        return proposal

    def _after(self, decisions: list[Action]) -> State | None:
        """The position after ``decisions`` (None: there is no game, or the rules refuse one of them -- a reading
        about a position gone by)."""
        state = self.state
        if state is None or not decisions:
            return state
        state = state.clone()
        for decision in decisions:
            if state.is_terminal() or not state.is_legal(dict(decision)):
                return None
            state.apply(dict(decision))
        return state

    def _path_words(self, decisions: list[Action]) -> list[str]:
        state, words = self.state.clone(), []
        for decision in decisions:
            words.append(self._words(state, decision))
            state.apply(dict(decision))
        return words

    def call_illegal(self, action: Action, error: GameError, source: str) -> Message:
        """Say why ``action`` is not allowed, mark where on the picture, and drop an older proposal the camera's
        call makes stale (what it proposed is no longer what lies on the table)."""
        rule_id = getattr(error, "rule_id", None)
        reason = (engine_i18n.refusal(self.state, action, error, language(), seen=source == "camera")
                  or getattr(error, "message", str(error)))  # English, or a refusal without a rule statement
        reason = sentence_case(self.plain(reason))  # a reason may begin with a space's name
        if source == "camera":
            text = tr("table:illegal_seen", move=self._describe(action), reason=reason)
        else:
            text = tr("table:illegal", reason=reason)
        self.refused = self._refused_region(action)
        if source == "camera" and self.proposal is not None:
            self._set_proposal(None)
        message = self.say("illegal", text, rule_id)
        self.emit("refused", self.refused)
        return message

    def _refused_region(self, action: Action) -> str | None:
        try:
            source, target = regions(self.module.name, self.state, action) if self.module and self.state else (None, None)
        except (KeyError, TypeError, ValueError, IndexError):  # a malformed action: nowhere to mark
            return None
        return target or source

    def _describe(self, action: Action) -> str:
        try:
            return self._words(self.state, action)
        except Exception:
            return json.dumps(action)

    # manual dice entry: tap a face for each die in turn
    def entry(self) -> list[DieValue]:
        return list(self._entry)

    def tap_face(self, die_index: int, value) -> Proposal | None:
        specs = self.dice_specs()
        if not specs or not 0 <= die_index < len(specs):
            return None
        if len(self._entry) < len(specs):
            self._entry += entered_dice(specs[len(self._entry):], [None] * (len(specs) - len(self._entry)))
        self._entry[die_index].value = value
        self._entry[die_index].source = "manual"
        self.emit("entry", self.entry())
        if all(d.value is not None for d in self._entry):
            return self.manual_dice([d.value for d in self._entry])
        return None

    def manual_dice(self, values: list) -> Proposal | None:
        specs = self.dice_specs()
        if len(values) != len(specs):
            self.say("warn", tr("table:dice_count", expected=len(specs), got=len(values)))
            return None
        return self._propose_dice(entered_dice(specs, values), "manual")

    def _propose_dice(self, dice: list[DieValue], source: str, before: list[Action] | None = None) -> Proposal | None:
        roll_state = self._after(before or [])
        if roll_state is None:
            return None
        try:
            action = roll_action(roll_state, dice)
        except GameError as exc:
            shown = " ".join(self.face_label(d.value) for d in dice)
            self.say("warn", self._unreadable(shown, exc, dice=True), getattr(exc, "rule_id", None))
            return None
        return self.propose(action, source, dice, before)

    def proposal_dice_specs(self) -> list[DieSpec]:
        """The dice of the proposal's roll: the roll wanted now, or the one its decisions lead to."""
        if self.proposal is None or not self.proposal.before:
            return self.dice_specs()
        state = self._after(self.proposal.before)
        return wanted_dice(state) if state is not None and state.is_chance_node() else []

    def _unreadable(self, text: str, error: GameError, dice: bool = False) -> str:
        """What to say about input the game's parser refused: in English the parser's own message,
        unchanged; in another language a sentence that it could not be read and what to type
        (``companion.games.i18n.unreadable``), without the parser's English detail."""
        return engine_i18n.unreadable(self.state, text, language(), dice=dice) or str(error)

    def correct_die(self, index: int, value) -> Proposal | None:
        """Tap a die of the proposal and give its true face."""
        if not self.proposal or not 0 <= index < len(self.proposal.dice):
            return None
        return self._propose_dice(with_correction(self.proposal.dice, index, value), "corrected", self.proposal.before)

    def choose(self, index: int) -> Proposal | None:
        choices = self.choices()
        if not 0 <= index < len(choices):
            return None
        return self.propose(choices[index].action, "choice")

    def tap_region(self, region: str | None) -> Proposal | None:
        """A tap on a board space: a piece with moves is picked up (its targets are marked), a target with one
        move proposes it, one with several leaves those to choose in the list (``picker().narrowed``)."""
        picker = self.picker()
        if picker is None or region is None:
            return None
        moves = picker.tap(region)
        self.emit("picked", region)
        if len(moves) == 1 and picker.narrowed is None and picker.selected != region:
            picker.reset()
            return self.propose(moves[0].action, "choice")
        if not moves and picker.selected is None:
            self.say("warn", tr("table:no_move_there", piece=space_name(self.module.name, region, language())))
        return None

    def choose_piece(self, piece: str) -> Proposal | None:
        """A tap on a board space (see :meth:`tap_region`)."""
        return self.tap_region(piece)

    def typed(self, text: str) -> Proposal | None:
        """Anything typed in the game's notation (the terminal's syntax): a roll, a set-up, a move."""
        state = self.state
        if state is None or not text.strip():
            return None
        if self.at_setup():  # a set-up is laid out on the table and read by the camera, or random: never typed
            self.say("warn", tr("table:setup_not_typed"))
            return None
        problem = typed_problem(text.strip())  # digits other than 0-9, huge numbers, control characters...
        if problem:
            self.say("warn", tr("table:typed_refused", reason=problem))
            return None
        # the game's parser reads English words; the family's own ("rot elster") are swapped first
        readable = engine_i18n.typed_to_english(self.module.name, text, language()) if self.module else text
        try:
            if state.is_chance_node():
                action = self.view.parse_chance(state, readable)
            else:
                action = self.view.parse_action(state, readable)
        except GameError as exc:
            self.say("warn", self._unreadable(text, exc), getattr(exc, "rule_id", None))
            return None
        return self.propose(action, "typed")

    def random_outcome(self) -> Proposal | None:
        """Let the app roll (or lay out a random set-up) when no physical outcome is wanted."""
        if self.state is None or self.phase != "chance":
            return None
        return self.propose(self.state.sample_chance(self.rng), "random")

    def confirm_setup(self, action: Action) -> str | None:
        """A set-up the family finished on the picture: checked by the rules and applied with this one tap (an
        impossible one is called with its rule, nothing applied)."""
        if not self.at_setup() or self.propose(action, "corrected") is None:
            return None
        return self.confirm()

    def discard(self) -> None:
        self._entry = []
        self._set_proposal(None)

    # --- recognition -------------------------------------------------------------------------------------
    def observe(self, generation: int, observation: dict[str, Any], captured_at: float | None = None) -> bool:
        """A recognition result. Dropped (False) when computed for an older position or game: another
        generation, a frame captured before the last change, or a result about another history length."""
        if (generation != self.generation or self.state is None or self.state.is_terminal()
                or (captured_at is not None and captured_at < self.changed_at)
                or observation.get("history_len", len(self.session.history)) != len(self.session.history)):
            self.dropped += 1
            if observation.get("dice") and self.state is not None and not self.state.is_terminal():
                self._unused_roll(observation["dice"])  # it settled just before the last change
            return False
        self._frame_said(observation)
        self._said_look(observation.get("look"))
        if observation.get("setup_read") and self.at_setup():  # unsure pieces: fixed by taps on the picture
            self.setup_read = observation["setup_read"]
            self.emit("setup_read", self.setup_read)
        if observation.get("error"):
            self.vision_status = observation["error"]
            return True
        if self.phase == "decision" and observation.get("dice") and not observation.get("before"):
            self._unused_roll(observation["dice"])
        if self.proposal is not None and self.proposal.source not in ("camera",):
            return True  # the family's own entry wins over the camera
        if observation.get("dice") and (self.phase == "chance" or observation.get("before")):
            self._observe_dice(observation["dice"], observation.get("before") or [], bool(observation.get("missed")))
        elif self.phase == "chance" and observation.get("outcome"):
            if self.proposal is None or self.proposal.action != observation["outcome"]:
                self.propose(observation["outcome"], "camera")
        elif self.phase == "decision" and observation.get("move"):
            move = observation["move"]
            if self.proposal is None or self.proposal.action != move:
                self.propose(move, "camera")
        if observation.get("illegal"):
            self._seen_illegal(observation["illegal"])
        if observation.get("question"):
            self._camera_asks(observation["question"])
        return True

    def _frame_said(self, observation: dict[str, Any]) -> None:
        """The camera's words for the frame (a hand over the table, a roll waiting for the move) shown while such
        frames come; a plain frame of the camera ends them, not a question the camera asked meanwhile."""
        if "status" in observation:
            self.vision_status = self._frame_words = observation["status"]
        elif "board" in observation and self._frame_words and self.vision_status == self._frame_words:
            self.vision_status = self._frame_words = ""

    def _said_look(self, look: dict[str, Any] | None) -> None:
        """Teach your board: the look of the family's box learned at the set-up, or a saved one not usable."""
        if look:
            self.say("info" if look["kind"] == "taught" else "warn", tr(f"table:look_{look['kind']}", why=look.get("why", "")))

    def _seen_illegal(self, seen: dict[str, Any]) -> None:
        """The camera saw a move the rules forbid: called with the rule, in the family's language, once."""
        action = seen.get("action")
        if not action or self.state is None or seen == self._last_seen:
            return
        self._last_seen = seen
        error = self.state.problem(action)
        if error is not None:
            self.call_illegal(action, error, "camera")

    def _camera_asks(self, question: dict[str, Any]) -> None:
        """The camera cannot decide (several moves fit, a choice it cannot see, an unsure reading): the family
        answers by a tap on the choices or the dice, as without a camera; said once."""
        if question == self._last_seen:
            return
        self._last_seen = question
        reason = question.get("reason") or "misread"
        regions = question.get("regions") or question.get("unsure") or []
        game = self.module.name if self.module is not None else ""
        if reason == "setup" and not regions:  # no frame of the box could be read: the family says the set-up once
            reason = "setup_unread"
        self.vision_status = tr(f"table:camera_{reason}", spaces=spoken_list(space_name(game, r, language()) for r in regions))

    def _unused_roll(self, readings: list[dict[str, Any]]) -> None:
        """The camera reports each settled roll once. One that came while a move was awaited (the next
        player threw early), or that settled just before the last change, would be lost: when it is a new
        throw (:func:`companion.referee.dice.is_new_roll`) the dice are read again when a roll is next wanted."""
        if not is_new_roll(readings, self._played_dice):
            return
        if self.phase == "chance":
            self._ask_camera_again(tr("table:early_roll"))
        else:
            self._early_roll = True
            self.vision_status = tr("table:early_roll_seen")

    def _ask_camera_again(self, status: str) -> None:
        """Without a proposal yet, ask the camera for the dice in view (a proposal already shown stays)."""
        if self.proposal is None and self.dice_specs():
            self.vision_status = status
            self.emit("read_again")

    def read_again(self) -> bool:
        """The family asks the camera to read the dice in view again, once they lie still: to retake a
        reading, or for dice that settled while the app was not waiting for them. Drops the current proposal
        (the fresh reading replaces it). False when no roll is wanted now."""
        if self.phase != "chance" or not self.dice_specs():
            return False
        self.discard()
        self._ask_camera_again(tr("table:reading_again"))
        return True

    def _observe_dice(self, readings: list[dict[str, Any]], before: list[Action], missed: bool = False) -> None:
        """A settled roll read by the camera; ``before``: the decisions the pipeline found it was thrown after;
        ``missed``: the camera doubts these dice are the roll due (a throw it may have missed)."""
        roll_state = self._after(before)
        specs = wanted_dice(roll_state) if roll_state is not None and roll_state.is_chance_node() else []
        if not specs:
            return
        self._dice_crops = {tuple(r["box"]): r["crop"] for r in readings if r.get("box") and r.get("crop") is not None}
        roll = read_roll(specs, readings)
        if roll.dice is None:
            self.vision_status = tr("table:dice_seen", expected=len(specs), got=roll.seen)
            return
        # the roll is complete: an earlier "I see 1 die" no longer holds
        self.vision_status = tr("table:set_aside", n=roll.set_aside) if roll.set_aside else ""
        if self.proposal is not None and [d.value for d in self.proposal.dice] == [d.value for d in roll.dice] \
                and self.proposal.before == before:
            return
        if roll.guessed_roles:
            # dice that must be told apart but were not recognised: their roles are a guess, so each is marked
            roles = ", ".join(self.die_label(s.role, i) for i, s in enumerate(specs))
            self.say("warn", tr("table:which_die", roles=roles))
        elif roll.uncertain:
            # shown for confirmation, never applied silently: the die is marked '?' until confirmed or corrected
            self.say("warn", tr("table:uncertain"))
        if missed:  # every die may be read right and still be another throw's: the family checks the roll itself
            self.say("warn", tr("table:roll_missed"))
        self._propose_dice(roll.dice, "camera", before)

    # --- confirm / undo ------------------------------------------------------------------------------------
    def confirm(self) -> str | None:
        """Apply the proposal (a roll's decisions first, in order). Each action is in the journal (fsync'ed) before
        ``confirmed`` is emitted."""
        if self.proposal is None or self.session is None:
            return None
        proposal = self.proposal
        specs = self.proposal_dice_specs()
        for done, decision in enumerate(proposal.before):
            if self._apply_confirmed(decision, proposal, done) is None:
                return None
        shown = None if language() == engine_i18n.DEFAULT else self._describe(proposal.action)  # before it is applied
        played = played_dice(specs, proposal.action)  # none for a set-up or a move
        text = self._apply_confirmed(proposal.action, proposal, len(proposal.before))
        if text is None:
            return None
        if played:
            self._played_dice = played
        learned = self._learn_dice(proposal)  # on disk before it is said
        self.say("ok", tr("table:confirmed", text=shown or text))
        if learned:
            self.say(*learned)
        self.emit("confirmed", shown or text)
        self._changed()
        return text

    def _apply_confirmed(self, action: Action, proposal: Proposal, done: int) -> str | None:
        """One action of a confirmed proposal, written and fsync'ed first; None when it was not applied (said why).
        ``done``: the proposal's actions applied before it -- those stay (on disk), and the rest is proposed."""
        shown = None if language() == engine_i18n.DEFAULT or action is proposal.action else self._describe(action)
        try:
            text = self.session.apply(action)  # writes + fsyncs the journal first
        except JournalError as exc:  # not saved (the disk is full or gone): nothing applied, the proposal stays
            self.say("error", tr("table:not_saved", reason=str(exc)))
            if done:
                self._changed()
                self._propose_dice(proposal.dice, proposal.source, proposal.before[done:])
            return None
        except (IllegalAction, InvalidAction) as exc:
            if isinstance(exc, IllegalAction):
                self.call_illegal(action, exc, proposal.source)
            else:
                self.say("warn", str(exc), exc.rule_id)
            self._set_proposal(None)
            if done:
                self._changed()  # the decisions before it stand
            return None
        if action is not proposal.action:
            self.say("ok", tr("table:confirmed", text=shown or text))
        return text

    def _learn_dice(self, proposal: Proposal) -> tuple[str, str] | None:
        """A roll the camera read and the family confirmed (or corrected) teaches the dice profile in use, saved
        before anything says so; (level, what to say) about a correction learned or a profile not saved."""
        if self.dice_learning is None or not proposal.dice or not self._dice_crops:
            return None
        from companion.app.dice_teaching import roll_lessons
        from companion.vision.profile import ProfileError

        lessons = roll_lessons(proposal.dice, self._dice_crops)
        try:
            self.dice_learning.learn(lessons)
        except OSError as exc:
            return "warn", tr("dice:not_saved", reason=exc.strerror or str(exc))
        except ProfileError as exc:
            return "warn", tr("dice:not_learned", reason=exc.reason)
        corrected = sum(1 for lesson in lessons if lesson[3] == "corrected")
        return ("info", tr("dice:learned_correction", count=corrected, profile=self.dice_learning.name)) if corrected else None

    def undo(self, count: int = 1) -> int:
        if self.session is None:
            return 0
        try:
            undone = self.session.undo(count)
        except JournalError as exc:
            self.say("error", tr("table:not_saved", reason=str(exc)))
            return 0
        if undone:
            self.say("info", tr("history:undone", count=undone))
            self._changed()
        else:
            self.say("info", tr("history:nothing"))
        return undone

