"""Append-only JSON Lines journal of a game, and a Session that never reports unsaved work.

The format is documented in ``docs/journal.md``. In short: line 1 is a header naming the game, its
rules version and configuration (and, optionally, ``metadata``: a JSON object the caller keeps with
the game, e.g. the app's player colours; written once with the header, never changed); every later
line is one applied action (``{"seq", "action", "player", "text", "h"}``) or an undo record
(``{"seq", "undo": n, "h"}``). ``seq`` counts the lines after the header from 1 without gaps;
``h`` chains each line to the one before it (the header's ``h`` starts the chain), so a changed,
dropped, repeated or swapped line is found on resume. Each line is written and fsync'ed before
``Session.apply`` returns, so anything the UI acknowledges survives a kill.

One process writes a journal at a time: it holds an OS lock on the file for as long as the journal is
open (:mod:`companion.storage`), and a second writer is refused with the holder's process named.

A game resumes by replaying the journal from the initial state. A last line cut off mid-write (the
usual result of a crash) is reported and set aside in ``<journal>.damaged``. Damage anywhere else (a
line that does not read, does not match its check, is out of order, or cannot be replayed) is named
by its line number and never continued silently: :class:`JournalDamaged` is raised unless the caller
passes ``continue_from_last_good=True`` (the family chose so), which sets that line and every later
one aside in ``<journal>.damaged`` -- nothing is deleted -- and goes on from the last good line.
Journals written before lines were chained (format 1) load with a one-line notice.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from companion import storage
from companion.games.core import Action, Game, GameError, State
from companion.games.registry import load_game

JOURNAL_FORMAT = "companion-journal"
JOURNAL_VERSION = 2
"""2: every line carries ``seq`` and the chained check ``h``. 1: the same lines without ``h`` (still read)."""
READABLE_VERSIONS = (1, 2)
HASH_CHARS = 16
MAX_JOURNAL_BYTES = 64 * 2**20  # a game is a few hundred KB; a bigger file is not a journal
DAMAGED_SUFFIX = ".damaged"


class JournalError(Exception):
    """The journal cannot be used (missing, unreadable, of another game or version, or not writable)."""


class JournalLocked(JournalError):
    """Another process has the journal open."""


class JournalDamaged(JournalError):
    """A line of the journal is damaged; the game can go on from the last good line if the family chooses so."""

    def __init__(self, message: str, damage: Damage):
        super().__init__(message)
        self.damage = damage


@dataclass(frozen=True)
class Damage:
    """The first damaged line of a journal and what is before it."""

    line: int
    """1-based number of the first damaged line."""
    reason: str
    offset: int
    """Bytes before that line: the good part that is kept."""
    actions: int
    """Actions in effect after the last good line (undo records applied)."""
    lines: int
    """Lines in the file (the damaged one and every later one are set aside)."""


def canonical(record: Mapping[str, Any]) -> str:
    """The one text of a line: sorted keys, no spaces, ASCII (what is written and what is hashed)."""
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def line_hash(previous: str, record: Mapping[str, Any]) -> str:
    """The check of a line: the first 16 hex digits of sha256(previous line's check + the line without ``h``)."""
    body = canonical({k: v for k, v in record.items() if k != "h"})
    return hashlib.sha256((previous + body).encode("ascii")).hexdigest()[:HASH_CHARS]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass
class JournalContents:
    header: dict[str, Any]
    records: list[dict[str, Any]]
    warnings: list[str] = field(default_factory=list)
    good_bytes: int = 0
    """Length of the readable prefix (header and every good record, newlines included)."""
    damaged_tail: bytes = b""
    """A last line cut off mid-write, kept aside before the journal is appended to."""
    damage: Damage | None = None
    """The first damaged line (not a cut-off last line), or None."""
    line_numbers: list[int] = field(default_factory=list)
    """The line number of each record."""
    offsets: list[int] = field(default_factory=list)
    """Bytes before each record's line."""
    chained: bool = True
    """Whether the lines carry checks (format 2); False for an older journal."""
    last_hash: str = ""
    """The check of the last good line (what the next line chains to)."""
    line_count: int = 0
    """Lines in the file, the header included."""

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


def _check_record(line: bytes, seq: int, in_effect: int, chained: bool, previous: str) -> dict[str, Any]:
    """The record on ``line`` if it is sound; ValueError saying what is wrong with it."""
    if not line.strip():
        raise ValueError("it is empty")
    try:
        record = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError("it is not UTF-8 text") from None
    except RecursionError:
        raise ValueError("it is not a journal line") from None
    except ValueError:  # not JSON, or a number too long to read
        raise ValueError("it is not JSON") from None
    if not isinstance(record, dict):
        raise ValueError("it is not a journal line")
    got = record.get("seq")
    if not _is_int(got) or got != seq:
        raise ValueError(f"its number (seq) is {got!r} where {seq} was due: a line is missing, repeated or out of order")
    if "undo" in record:
        count = record["undo"]
        if not _is_int(count) or not 1 <= count <= in_effect:
            raise ValueError(f"it undoes {count!r} actions, but {in_effect} can be taken back there")
    elif "action" in record:
        action = record["action"]
        if not (isinstance(action, dict) and isinstance(action.get("type"), str)):
            raise ValueError("its action is malformed")
        if not _is_int(record.get("player")) or not isinstance(record.get("text"), str):
            raise ValueError("its player or text is malformed")
    else:
        raise ValueError("it is neither an action nor an undo")
    if chained and record.get("h") != line_hash(previous, record):
        raise ValueError("its check (h) does not match: it was changed after it was written, or a line before it was")
    return record


def _parse_header(first: bytes, name: str) -> dict[str, Any]:
    try:
        header = json.loads(first.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise JournalError(f"{name} is not a companion journal (its first line is not a header).") from None
    if not isinstance(header, dict) or header.get("format") != JOURNAL_FORMAT:
        raise JournalError(f"{name} is not a companion journal.")
    if header.get("version") not in READABLE_VERSIONS:
        raise JournalError(
            f"{name} was written in journal format {header.get('version')}; this version reads formats "
            f"{', '.join(map(str, READABLE_VERSIONS))}."
        )
    if header["version"] >= 2 and header.get("h") != line_hash("", header):
        raise JournalError(
            f"Line 1 of {name} (the header: the game, its players and options) is damaged: its check (h) does "
            "not match. The game's set-up cannot be trusted, so it cannot be resumed; the file was left untouched."
        )
    return header


def parse(raw: bytes, path: Path) -> JournalContents:
    """Check a journal's bytes line by line (nothing is replayed here)."""
    if len(raw) > MAX_JOURNAL_BYTES:
        raise JournalError(f"{path} is {len(raw) // 2**20} MB: too big for a game journal.")
    lines = raw.split(b"\n")
    ends_cleanly = lines[-1] == b""
    if ends_cleanly:
        lines.pop()
    if not lines:
        raise JournalError(f"{path} is empty: it is not a companion journal.")
    header = _parse_header(lines[0], str(path))
    chained = header["version"] >= 2
    contents = JournalContents(header, [], chained=chained, last_hash=str(header.get("h", "")),
                               good_bytes=len(lines[0]) + 1, line_count=len(lines))
    if not chained:
        contents.warnings.append(
            f"{path.name} was written by an older version, before journal lines carried checks: damage to its "
            "lines cannot be detected (new lines are added in the same older format)."
        )
    in_effect = 0
    for number, line in enumerate(lines[1:], start=2):
        cut_off = number == len(lines) and not ends_cleanly
        try:
            record = _check_record(line, len(contents.records) + 1, in_effect, chained, contents.last_hash)
        except ValueError as exc:
            if cut_off and not _complete_json(line):
                contents.warnings.append(
                    f"The last line of {path.name} (line {number}) was cut off mid-write: that action was never "
                    f"confirmed, so it is not in the game (the fragment is kept in {path.name}{DAMAGED_SUFFIX})."
                )
                contents.damaged_tail = bytes(line)
            else:
                contents.damage = Damage(number, str(exc), contents.good_bytes, in_effect, contents.line_count)
            return contents
        contents.records.append(record)
        contents.line_numbers.append(number)
        contents.offsets.append(contents.good_bytes)
        contents.good_bytes += len(line) + 1
        contents.last_hash = str(record.get("h", ""))
        in_effect = in_effect - record["undo"] if "undo" in record else in_effect + 1
    return contents


def _complete_json(line: bytes) -> bool:
    """Whether ``line`` reads as JSON (a write cut off mid-line never does: every line ends with '}')."""
    try:
        json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False
    return True


def describe_damage(path: Path, damage: Damage) -> str:
    """One paragraph for the family: which line, why, and what going on from the last good line means."""
    rest = f"line {damage.line}" if damage.lines == damage.line else f"lines {damage.line}-{damage.lines}"
    return (
        f"Line {damage.line} of {path.name} is damaged: {damage.reason}. The game can go on from the last good "
        f"line (line {damage.line - 1}, {damage.actions} action(s) in); {rest} would be set aside in "
        f"{path.name}{DAMAGED_SUFFIX}, nothing deleted."
    )


def _journal_path(path: str | os.PathLike | None) -> Path:
    if path is None or not str(path).strip():
        raise JournalError("A journal needs a file name, such as game.jsonl.")
    return Path(path)


class Journal:
    """An open journal: the file, its lock (held until :meth:`close`), the next seq and the chain."""

    def __init__(self, path: Path, fd: int, next_seq: int, last_hash: str | None):
        self.path = path
        self._fd: int | None = fd
        self._seq = next_seq
        self._last_hash = last_hash  # None: an older journal, continued without checks

    @property
    def chained(self) -> bool:
        return self._last_hash is not None

    @classmethod
    def create(cls, path: str | os.PathLike, game: Game, metadata: Mapping[str, Any] | None = None,
               created: str | None = None) -> Journal:
        """Write the header (fsync'ed, the folder too). ``metadata``: an optional JSON object kept in the
        header; ``created``: the creation time to record (default now)."""
        header = _header(game, metadata, created)  # bad metadata creates no file
        journal = cls.reserve(path)
        try:
            journal._write_header(header)
        except BaseException:
            journal.close()
            raise
        return journal

    @classmethod
    def reserve(cls, path: str | os.PathLike) -> Journal:
        """A new journal's file, created (exclusively) and locked now, its header written later by
        :meth:`write_header` (``companion follow`` reads the game's set-up from the camera first, and no other
        writer may take the file meanwhile). :class:`JournalLocked` naming the holder when another process
        has it open; :class:`JournalError` when it exists with lines in it."""
        path = _journal_path(path)
        fd = _create_fd(path)
        journal = cls(path, fd, 1, None)
        try:
            storage.lock_file(fd, path)
            if os.fstat(fd).st_size:  # an empty file reused, and someone wrote to it meanwhile
                raise JournalError(f"{path} already exists; use --resume to continue it or choose another file.")
        except storage.LockedError as exc:
            journal.close(unlock=False)
            raise JournalLocked(str(exc)) from None
        except BaseException:
            journal.close()
            raise
        return journal

    def write_header(self, game: Game, metadata: Mapping[str, Any] | None = None, created: str | None = None) -> None:
        """The header of a journal made by :meth:`reserve` (fsync'ed); see :meth:`create`."""
        self._write_header(_header(game, metadata, created))

    def _write_header(self, header: dict[str, Any]) -> None:
        if self._seq != 1 or self._last_hash is not None:
            raise JournalError(f"{self.path} has its header already.")
        check = header["h"] = line_hash("", header)
        self._write(canonical(header) + "\n", "start the journal")
        self._last_hash = check

    @classmethod
    def open_existing(cls, path: str | os.PathLike) -> tuple[Journal, JournalContents]:
        """Lock an existing journal for writing and read it (under the lock): (journal, its contents).
        Nothing is changed yet: :meth:`prepare_append` does that once the caller has replayed it."""
        path = _journal_path(path)
        try:
            fd = storage.open_regular(path, os.O_RDWR | os.O_APPEND)
        except FileNotFoundError:
            raise JournalError(f"No journal at {path}.") from None
        except OSError as exc:
            raise JournalError(f"Cannot open journal {path}: {storage.plain_os_error(exc)}.") from None
        journal = cls(path, fd, 1, None)
        try:
            storage.lock_file(fd, path)
            contents = parse(storage.read_fd(fd), path)
        except storage.LockedError as exc:
            journal.close(unlock=False)
            raise JournalLocked(str(exc)) from None
        except OSError as exc:
            journal.close()
            raise JournalError(f"Cannot read journal {path}: {storage.plain_os_error(exc)}.") from None
        except BaseException:
            journal.close()
            raise
        journal._seq = len(contents.records) + 1
        journal._last_hash = contents.last_hash if contents.chained else None
        return journal, contents

    @staticmethod
    def read(path: str | os.PathLike) -> JournalContents:
        """Read and check a journal without opening it for writing (no lock; nothing is changed)."""
        path = _journal_path(path)
        try:
            fd = storage.open_regular(path, os.O_RDONLY)
        except FileNotFoundError:
            raise JournalError(f"No journal at {path}.") from None
        except OSError as exc:
            raise JournalError(f"Cannot read journal {path}: {storage.plain_os_error(exc)}.") from None
        try:
            raw = storage.read_fd(fd)
        except OSError as exc:
            raise JournalError(f"Cannot read journal {path}: {storage.plain_os_error(exc)}.") from None
        finally:
            os.close(fd)
        return parse(raw, path)

    def prepare_append(self, contents: JournalContents, keep: int | None = None, records: int | None = None) -> None:
        """Make the file end after its good part, ready for new lines.

        ``keep``: bytes to keep (default: the good part). Whatever follows -- a cut-off last line, or the
        damaged line and every later one when the family chose to go on from the last good line -- is
        first appended to ``<journal>.damaged`` (fsync'ed): nothing is deleted. ``records``: how many
        records are kept (sets the next seq and the chain's end).
        """
        keep = contents.good_bytes if keep is None else keep
        if records is not None and records < len(contents.records):
            self._seq = records + 1
            if self.chained:
                self._last_hash = contents.records[records - 1]["h"] if records else contents.header["h"]
        fd = self._open_fd()
        try:
            size = os.fstat(fd).st_size
            if size > keep:
                set_aside = os.pread(fd, size - keep, keep)
                self._set_aside(set_aside)
                os.ftruncate(fd, keep)
                os.fsync(fd)
            elif size < keep:  # the last good record lacks its newline
                self._write("\n", "finish its last line")
        except OSError as exc:
            raise JournalError(f"Cannot prepare {self.path} for new lines: {storage.plain_os_error(exc)}.") from None

    def _set_aside(self, data: bytes) -> None:
        aside = self.path.with_name(self.path.name + DAMAGED_SUFFIX)
        new = not aside.exists()
        fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_CLOEXEC", 0), 0o644)
        try:
            storage.write_all(fd, data if data.endswith(b"\n") else data + b"\n")
            os.fsync(fd)
        finally:
            os.close(fd)
        if new:
            storage.fsync_dir(aside.parent)

    def append_action(self, action: Action, player: int, text: str) -> None:
        self._append({"seq": self._seq, "player": player, "action": action, "text": text})

    def append_undo(self, count: int) -> None:
        self._append({"seq": self._seq, "undo": count})

    def _append(self, record: dict[str, Any]) -> None:
        check = None if self._last_hash is None else line_hash(self._last_hash, record)
        if check is not None:
            record["h"] = check
        self._write(canonical(record) + "\n", "save it")
        self._seq += 1
        if check is not None:
            self._last_hash = check

    def _write(self, text: str, what: str) -> None:
        """Write one whole line and fsync it; on failure the file is cut back to where it was (so no half
        line is left for the next write to follow) and JournalError says why."""
        fd = self._open_fd()
        size = None
        try:
            size = os.fstat(fd).st_size
            storage.write_all(fd, text.encode("ascii"))
            os.fsync(fd)
        except OSError as exc:
            if size is not None:
                try:
                    os.ftruncate(fd, size)
                    os.fsync(fd)
                except OSError:
                    pass
            raise JournalError(f"Could not {what} in {self.path}: {storage.plain_os_error(exc)}. "
                               "Nothing was changed.") from None

    def _open_fd(self) -> int:
        if self._fd is None:
            raise JournalError(f"{self.path} is closed.")
        return self._fd

    def close(self, unlock: bool = True) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        if unlock:
            storage.unlock_file(fd, self.path)
        os.close(fd)

    @property
    def closed(self) -> bool:
        return self._fd is None


def _header(game: Game, metadata: Mapping[str, Any] | None, created: str | None) -> dict[str, Any]:
    """A new journal's header (without its check), the metadata checked to be a JSON object."""
    if metadata is not None:
        if not isinstance(metadata, Mapping):
            raise JournalError(f"journal metadata must be a JSON object, not {type(metadata).__name__}.")
        try:
            metadata = json.loads(canonical(dict(metadata)))
        except (TypeError, ValueError) as exc:
            raise JournalError(f"journal metadata is not JSON: {exc}.") from None
    header = {
        "format": JOURNAL_FORMAT,
        "version": JOURNAL_VERSION,
        "game": game.name,
        "rules_version": game.version,
        "config": game.config(),
        "created": created or datetime.now(UTC).isoformat(timespec="seconds"),
    }
    if metadata is not None:
        header["metadata"] = metadata
    return header


def _create_fd(path: Path) -> int:
    """A new journal file, created exclusively (an existing empty file -- a crash before its header was
    written -- is reused: :meth:`Journal.reserve` checks, under the lock, that it is empty)."""
    if path.is_dir():
        raise JournalError(f"{path} is a folder; give a file name, e.g. {path / 'game.jsonl'}.")
    try:
        return storage.create_exclusive(path)
    except FileExistsError:
        pass
    except OSError as exc:
        raise JournalError(f"Cannot create journal {path}: {storage.plain_os_error(exc)}.") from None
    try:  # its size is checked under the lock: a file another process holds is refused naming it
        return storage.open_regular(path, os.O_WRONLY | os.O_APPEND)
    except OSError as exc:
        raise JournalError(f"{path} already exists and cannot be used: {storage.plain_os_error(exc)}.") from None


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
    def start(cls, game: Game, journal_path: str | os.PathLike | Journal | None = None,
              metadata: Mapping[str, Any] | None = None, created: str | None = None) -> Session:
        """A new game; ``metadata`` (a JSON object) goes into the journal's header with it. ``journal_path``
        may be a journal made earlier by :meth:`Journal.reserve`: its header is written now."""
        journal: Journal | None
        if isinstance(journal_path, Journal):
            journal = journal_path
            try:
                journal.write_header(game, metadata, created)
            except BaseException:
                journal.close()
                raise
        else:
            journal = Journal.create(journal_path, game, metadata, created) if journal_path is not None else None
        return cls(game, journal, metadata=metadata)

    @classmethod
    def resume(cls, journal_path: str | os.PathLike, expected_game: str | None = None,
               continue_from_last_good: bool = False) -> Session:
        """Replay a journal and open it for new lines (locked). A damaged line raises
        :class:`JournalDamaged` unless ``continue_from_last_good`` (the family's choice)."""
        journal, contents = Journal.open_existing(journal_path)
        try:
            return cls._replay(journal, contents, expected_game, continue_from_last_good)
        except BaseException:
            journal.close()
            raise

    @classmethod
    def _replay(cls, journal: Journal, contents: JournalContents, expected_game: str | None,
                continue_from_last_good: bool) -> Session:
        path = journal.path
        game = game_of(contents, path, expected_game)
        session = cls(game, None, contents.warnings, contents.metadata)
        damage = contents.damage
        kept = len(contents.records)
        for index, record in enumerate(contents.records):
            try:
                session.replay_record(record)
            except GameError as exc:
                damage = Damage(contents.line_numbers[index], f"its action cannot be replayed ({exc})",
                                contents.offsets[index], len(session.history), contents.line_count)
                kept = index
                break
        if damage is not None:
            if not continue_from_last_good:
                raise JournalDamaged(describe_damage(path, damage), damage)
            session.warnings.append(f"Went on from line {damage.line - 1} of {path.name}; line {damage.line} and "
                                    f"later lines were set aside in {path.name}{DAMAGED_SUFFIX}.")
            journal.prepare_append(contents, keep=damage.offset, records=kept)
        else:
            journal.prepare_append(contents)
        session.journal = journal
        return session

    def replay_record(self, record: Mapping[str, Any]) -> None:
        """Apply one checked journal record (an action, validated: GameError if refused; or an undo)."""
        if "undo" in record:
            count = int(record["undo"])
            self.state = self._replayed(self.history[:-count])
            del self.history[-count:]
            return
        self.state.apply(record["action"])
        self.history.append(record["action"])

    def _replayed(self, actions: list[Action]) -> State:
        state = self.game.new_initial_state()
        for action in actions:
            state.apply_unchecked(action)
        return state

    def apply(self, action: Action) -> str:
        """Apply a validated action; returns its description once it is on disk (JournalError if it
        cannot be saved: then nothing changed)."""
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
        replay = self._replayed(self.history[:-count])
        if self.journal:
            self.journal.append_undo(count)
        self.state = replay
        del self.history[-count:]
        return count

    def close(self) -> None:
        if self.journal:
            self.journal.close()


def game_of(contents: JournalContents, path: Path, expected_game: str | None = None) -> Game:
    """The game a journal's header describes (JournalError for another game or rules version)."""
    name = contents.header.get("game")
    if expected_game and name != expected_game:
        raise JournalError(f"{path} is a journal of {name!r}, not of {expected_game!r}.")
    try:
        module = load_game(str(name))
    except GameError as exc:
        raise JournalError(f"{path}: {exc}") from None
    game_class = module.game_class
    if contents.header.get("rules_version") != game_class.version:
        raise JournalError(
            f"{path} was written by rules version {contents.header.get('rules_version')} of "
            f"{name}; this program has version {game_class.version} and cannot replay it."
        )
    try:
        return game_class.from_config(contents.header.get("config") or {})
    except (GameError, TypeError, ValueError, AttributeError) as exc:
        raise JournalError(f"{path}: its game set-up cannot be used ({exc}).") from None
