"""Append-only JSON Lines journal of a game, and a Session that never reports unsaved work.

Line 1 is a header naming the game, its rules version and configuration (and, optionally,
``metadata``: a JSON object the caller keeps with the game, e.g. the app's player colours; written once
with the header, never changed, absent from older journals); every
later line is one applied action (``{"seq", "action", "player", "text"}``) or an
undo record (``{"seq", "undo": n}``). Each line is flushed and fsync'ed before
``Session.apply`` returns, so anything the UI acknowledges survives a kill.

A game resumes by replaying the journal from the initial state. A truncated or
corrupt *last* line (the usual result of a crash mid-write) is reported and
skipped; a corrupt line elsewhere, a journal of another game or of an
incompatible version is refused with a clear message.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from companion.games.core import Action, Game, GameError, State
from companion.games.registry import load_game

JOURNAL_FORMAT = "companion-journal"
JOURNAL_VERSION = 1


class JournalError(Exception):
    """The journal cannot be used (missing, unreadable, of another game or version)."""


def _write_line(handle, record: Mapping[str, Any]) -> None:
    handle.write(json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n")
    handle.flush()
    os.fsync(handle.fileno())


@dataclass
class JournalContents:
    header: dict[str, Any]
    records: list[dict[str, Any]]
    warnings: list[str] = field(default_factory=list)
    good_bytes: int = 0
    """Length of the readable prefix (header and every good record, newlines included)."""
    damaged_tail: bytes = b""
    """A truncated or corrupt last line, kept aside before the journal is appended to."""

    @property
    def metadata(self) -> dict[str, Any]:
        """The header's ``metadata`` object ({} for a journal without one, or with a malformed one)."""
        metadata = self.header.get("metadata")
        return dict(metadata) if isinstance(metadata, dict) else {}

    def actions(self) -> list[Action]:
        """The effective action list after applying undo records."""
        actions: list[Action] = []
        for record in self.records:
            if "undo" in record:
                del actions[len(actions) - min(int(record["undo"]), len(actions)):]
            else:
                actions.append(record["action"])
        return actions


class Journal:
    def __init__(self, path: Path, handle, next_seq: int):
        self.path = path
        self._handle = handle
        self._seq = next_seq

    @classmethod
    def create(cls, path: str | os.PathLike, game: Game, metadata: Mapping[str, Any] | None = None) -> Journal:
        """Write the header (fsync'ed). ``metadata``: an optional JSON object kept in the header."""
        path = Path(path)
        if metadata is not None:
            if not isinstance(metadata, Mapping):
                raise JournalError(f"journal metadata must be a JSON object, not {type(metadata).__name__}.")
            try:
                metadata = json.loads(json.dumps(dict(metadata)))
            except (TypeError, ValueError) as exc:
                raise JournalError(f"journal metadata is not JSON: {exc}.") from None
        if path.exists() and path.stat().st_size > 0:
            raise JournalError(f"{path} already exists; use --resume to continue it or choose another file.")
        path.parent.mkdir(parents=True, exist_ok=True)
        header = {
            "format": JOURNAL_FORMAT,
            "version": JOURNAL_VERSION,
            "game": game.name,
            "rules_version": game.version,
            "config": game.config(),
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        if metadata is not None:
            header["metadata"] = metadata
        handle = open(path, "a", encoding="utf-8")
        _write_line(handle, header)
        return cls(path, handle, 1)

    @staticmethod
    def read(path: str | os.PathLike) -> JournalContents:
        path = Path(path)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            raise JournalError(f"No journal at {path}.") from None
        except OSError as exc:
            raise JournalError(f"Cannot read journal {path}: {exc.strerror or exc}.") from None
        lines = raw.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        if not lines:
            raise JournalError(f"{path} is empty: it is not a companion journal.")
        try:
            header = json.loads(lines[0].decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise JournalError(f"{path} is not a companion journal (its first line is not a header).") from None
        if not isinstance(header, dict) or header.get("format") != JOURNAL_FORMAT:
            raise JournalError(f"{path} is not a companion journal.")
        if header.get("version") != JOURNAL_VERSION:
            raise JournalError(
                f"{path} was written in journal format {header.get('version')}; this version reads format {JOURNAL_VERSION}."
            )
        records: list[dict[str, Any]] = []
        warnings: list[str] = []
        good_bytes = len(lines[0]) + 1
        for number, line in enumerate(lines[1:], start=2):
            last = number == len(lines)
            try:
                record = json.loads(line.decode("utf-8"))
                if not isinstance(record, dict) or not ("action" in record or "undo" in record):
                    raise ValueError("not an action record")
                if "action" in record and not (isinstance(record["action"], dict) and "type" in record["action"]):
                    raise ValueError("malformed action")
            except (UnicodeDecodeError, json.JSONDecodeError, ValueError) as exc:
                if last:
                    warnings.append(
                        f"Line {number} of {path.name} is truncated or corrupt ({exc}); it was skipped "
                        "- the last action before the interruption was not saved."
                    )
                    return JournalContents(header, records, warnings, good_bytes, bytes(line))
                raise JournalError(
                    f"Line {number} of {path} is corrupt ({exc}); later lines depend on it, so the journal "
                    "cannot be replayed. The file was left untouched."
                ) from None
            records.append(record)
            good_bytes += len(line) + 1
        return JournalContents(header, records, warnings, good_bytes)

    @classmethod
    def open_for_append(cls, path: str | os.PathLike, contents: JournalContents) -> Journal:
        """Continue a journal that ``read`` accepted.

        A damaged last line is moved to ``<name>.damaged`` (never deleted) and cut from the
        journal, so the next record starts on a clean line and later resumes read it all.
        """
        path = Path(path)
        if contents.damaged_tail:
            with open(path.with_name(path.name + ".damaged"), "ab") as aside:
                aside.write(contents.damaged_tail + b"\n")
                aside.flush()
                os.fsync(aside.fileno())
        size = path.stat().st_size
        if size > contents.good_bytes:
            with open(path, "r+b") as handle:
                handle.truncate(contents.good_bytes)
                handle.flush()
                os.fsync(handle.fileno())
        handle = open(path, "a", encoding="utf-8")
        if size < contents.good_bytes:  # the last good record lacks its newline
            handle.write("\n")
        next_seq = max((int(r.get("seq", 0)) for r in contents.records), default=0) + 1
        return cls(path, handle, next_seq)

    def append_action(self, action: Action, player: int, text: str) -> None:
        _write_line(self._handle, {"seq": self._seq, "player": player, "action": action, "text": text})
        self._seq += 1

    def append_undo(self, count: int) -> None:
        _write_line(self._handle, {"seq": self._seq, "undo": count})
        self._seq += 1

    def close(self) -> None:
        if not self._handle.closed:
            self._handle.close()


class Session:
    """A game being refereed: state + history + optional journal.

    ``apply`` validates on a copy, writes the journal (fsync) and only then
    commits the new state, so a refused action changes nothing and an accepted
    one is on disk before anyone is told.
    """

    def __init__(self, game: Game, journal: Journal | None = None, warnings: list[str] | None = None,
                 metadata: Mapping[str, Any] | None = None):
        self.game = game
        self.journal = journal
        self.history: list[Action] = []
        self.state: State = game.new_initial_state()
        self.warnings = list(warnings or [])
        self.metadata: dict[str, Any] = dict(metadata or {})

    @classmethod
    def start(cls, game: Game, journal_path: str | os.PathLike | None = None,
              metadata: Mapping[str, Any] | None = None) -> Session:
        """A new game; ``metadata`` (a JSON object) goes into the journal's header with it."""
        journal = Journal.create(journal_path, game, metadata) if journal_path else None
        return cls(game, journal, metadata=metadata)

    @classmethod
    def resume(cls, journal_path: str | os.PathLike, expected_game: str | None = None) -> Session:
        contents = Journal.read(journal_path)
        name = contents.header.get("game")
        if expected_game and name != expected_game:
            raise JournalError(f"{journal_path} is a journal of {name!r}, not of {expected_game!r}.")
        try:
            module = load_game(str(name))
        except GameError as exc:
            raise JournalError(f"{journal_path}: {exc}") from None
        game_class = module.game_class
        if contents.header.get("rules_version") != game_class.version:
            raise JournalError(
                f"{journal_path} was written by rules version {contents.header.get('rules_version')} of "
                f"{name}; this program has version {game_class.version} and cannot replay it."
            )
        try:
            game = game_class.from_config(contents.header.get("config") or {})
        except GameError as exc:
            raise JournalError(f"{journal_path}: {exc}") from None
        session = cls(game, None, contents.warnings, contents.metadata)
        for index, action in enumerate(contents.actions(), start=1):
            try:
                session.state.apply(action)
            except GameError as exc:
                raise JournalError(f"{journal_path}: action {index} cannot be replayed: {exc}") from None
            session.history.append(action)
        session.journal = Journal.open_for_append(journal_path, contents)
        return session

    def apply(self, action: Action) -> str:
        """Apply a validated action; returns its description once it is on disk."""
        candidate = self.state.clone()
        player = candidate.current_player
        candidate.apply(action)  # raises GameError, self.state untouched
        text = self.state.action_to_string(action)
        if self.journal:
            self.journal.append_action(action, player, text)
        self.state = candidate
        self.history.append(dict(action))
        return text

    def undo(self, count: int = 1) -> int:
        """Take back the last ``count`` actions (recorded in the journal); returns how many."""
        count = max(0, min(count, len(self.history)))
        if count == 0:
            return 0
        replay = self.game.new_initial_state()
        for action in self.history[:-count]:
            replay.apply_unchecked(action)
        if self.journal:
            self.journal.append_undo(count)
        self.state = replay
        del self.history[-count:]
        return count

    def close(self) -> None:
        if self.journal:
            self.journal.close()
