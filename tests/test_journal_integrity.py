"""One writer per journal, tamper-evident lines, durable creation, and resuming after kills (issue 24)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import toy_game
from journal_tools import as_format_1

from companion import cli, storage
from companion.games import registry
from companion.journal import (
    Journal,
    JournalDamaged,
    JournalError,
    JournalLocked,
    Session,
    line_hash,
)
from companion.workshop.robustness import kill_chain, recorded_game, tamper_cases, tamper_detection

ROOT = Path(__file__).resolve().parents[1]
ROLL4 = {"type": "roll", "dice": [4]}
ADVANCE = {"type": "advance"}
BANK = {"type": "bank"}


@pytest.fixture(autouse=True)
def toy_registered(monkeypatch):
    monkeypatch.setitem(registry.GAMES, "toy-race", "toy_game")


def toy_journal(path: Path, actions=(ROLL4, ADVANCE, {"type": "roll", "dice": [6]}, BANK,
                                     {"type": "roll", "dice": [2]}, ADVANCE), undo_at: int | None = 3) -> Session:
    session = Session.start(toy_game.ToyGame(players=["Ann", "Ben"]), path)
    for n, action in enumerate(actions):
        session.apply(action)
        if n == undo_at:
            session.undo(1)
            session.apply(action)
    return session


# --- the format ---------------------------------------------------------------------------------------------


def test_every_line_carries_its_seq_and_a_check_chained_from_the_header(tmp_path):
    toy_journal(tmp_path / "j.jsonl").close()
    lines = [json.loads(line) for line in (tmp_path / "j.jsonl").read_text().splitlines()]
    header, records = lines[0], lines[1:]
    assert header["version"] == 2 and header["h"] == line_hash("", header)
    previous = header["h"]
    for seq, record in enumerate(records, start=1):
        assert record["seq"] == seq
        assert record["h"] == line_hash(previous, record) and len(record["h"]) == 16
        previous = record["h"]
    assert any("undo" in r for r in records)


# --- tampering ------------------------------------------------------------------------------------------------


def test_every_edit_of_a_middle_line_is_found_at_that_line(tmp_path):
    toy_journal(tmp_path / "j.jsonl").close()
    raw = (tmp_path / "j.jsonl").read_bytes()
    result = tamper_detection(raw, tmp_path, random.Random(0), bitflips=8, digits=6)
    assert result["edits"] > 100
    assert result["undetected"] == [] and result["detected"] == result["edits"]


def test_edits_of_a_real_game_are_found(tmp_path):
    raw = recorded_game("mighty-magpies", 3, tmp_path / "mm.jsonl", max_actions=25)
    result = tamper_detection(raw, tmp_path, random.Random(1), bitflips=2, digits=2)
    assert result["edits"] > 100 and result["undetected"] == []


def test_the_changed_roll_beside_its_text_is_named(tmp_path):
    """Dice [4] became [5] next to "Roll: 4": the line is named, the file left untouched."""
    toy_journal(tmp_path / "j.jsonl").close()
    path = tmp_path / "j.jsonl"
    lines = path.read_text().splitlines()
    assert '"dice":[4]' in lines[1] and '"text":"Roll: 4"' in lines[1]
    lines[1] = lines[1].replace('"dice":[4]', '"dice":[5]')
    path.write_text("\n".join(lines) + "\n")
    before = path.read_bytes()
    with pytest.raises(JournalDamaged) as info:
        Session.resume(path)
    assert info.value.damage.line == 2
    assert "Line 2 of j.jsonl is damaged: its check (h) does not match" in str(info.value)
    assert path.read_bytes() == before and not (tmp_path / "j.jsonl.damaged").exists()


def test_a_repeated_last_undo_line_is_refused_not_applied(tmp_path):
    session = toy_journal(tmp_path / "j.jsonl", undo_at=None)
    session.undo(1)
    session.close()
    path = tmp_path / "j.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines + [lines[-1]]) + "\n")
    with pytest.raises(JournalDamaged, match=r"its number \(seq\) is 7 where 8 was due"):
        Session.resume(path)


@pytest.mark.parametrize("line, reason", [
    ('{"seq":100,"undo":"all"}', "seq"),
    ('{"seq":7,"undo":"all"}', "undoes 'all' actions"),
    ('{"seq":7,"undo":99}', "undoes 99 actions, but 6 can be taken back"),
    ('{"seq":7,"undo":true}', "undoes True"),
    ('{"seq":7,"action":{"type":"bank"},"player":"0","text":""}', "player or text"),
    ('[' * 5000 + ']' * 5000, "not a journal line"),
    ('{"seq":' + "9" * 5000 + '}', "not JSON"),
    (b'{"seq":7,"undo":1,"x":"\xff\xfe"}', "not UTF-8"),
])
def test_odd_lines_in_an_older_journal_are_damage_not_a_traceback(tmp_path, line, reason):
    """Format 1 has no checks: the fields and the order are still checked, line by line."""
    toy_journal(tmp_path / "j.jsonl", undo_at=None).close()
    path = tmp_path / "j.jsonl"
    as_format_1(path)
    with open(path, "ab") as handle:
        handle.write((line if isinstance(line, bytes) else line.encode()) + b"\n" + b'{"seq":8,"undo":1}\n')
    with pytest.raises(JournalDamaged, match=reason) as info:
        Session.resume(path)
    assert info.value.damage.line == 8


def test_the_family_chooses_to_go_on_from_the_last_good_line(tmp_path):
    session = toy_journal(tmp_path / "j.jsonl", undo_at=None)
    history = list(session.history)
    session.close()
    path = tmp_path / "j.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    lines[4] = lines[4].replace(b'"text":"', b'"text":"x')  # line 5 changed
    path.write_bytes(b"".join(lines))
    with pytest.raises(JournalDamaged) as info:
        Session.resume(path)
    assert "The game can go on from the last good line (line 4, 3 action(s) in); lines 5-7 would be set aside" in str(
        info.value)
    resumed = Session.resume(path, continue_from_last_good=True)
    assert resumed.history == history[:3]
    assert any("Went on from line 4" in w for w in resumed.warnings)
    assert (tmp_path / "j.jsonl.damaged").read_bytes() == b"".join(lines[4:])  # nothing deleted
    assert path.read_bytes() == b"".join(lines[:4])
    resumed.apply(BANK)  # chained to line 4: the next resume is clean
    resumed.close()
    again = Session.resume(path)
    assert again.history == history[:3] + [BANK] and not again.warnings
    again.close()


def test_the_terminal_asks_and_a_script_needs_the_flag(tmp_path, monkeypatch, capsys):
    toy_journal(tmp_path / "j.jsonl").close()
    path = tmp_path / "j.jsonl"
    lines = path.read_text().splitlines()
    del lines[3]  # a dropped line
    path.write_text("\n".join(lines) + "\n")
    before = path.read_bytes()

    class Answers:
        def __init__(self, text):
            self.lines = text.splitlines(keepends=True)

        def isatty(self):
            return True

        def readline(self):
            return self.lines.pop(0) if self.lines else ""

    monkeypatch.setattr("sys.stdin", Answers("n\n"))
    assert cli.main(["play", "toy-race", "--resume", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Line 4 of j.jsonl is damaged: its number (seq) is 4 where 3 was due" in err
    assert "Go on from the last good line? (y/N)" in err and "Not resumed; the journal was left untouched." in err
    assert path.read_bytes() == before
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO("quit\n"))  # not a terminal: never continued silently
    assert cli.main(["play", "toy-race", "--resume", str(path)]) == 2
    assert "run again with --continue-from-last-good" in capsys.readouterr().err and path.read_bytes() == before
    monkeypatch.setattr("sys.stdin", Answers("y\nquit\n"))
    assert cli.main(["play", "toy-race", "--resume", str(path)]) == 0
    assert (tmp_path / "j.jsonl.damaged").exists()
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO("quit\n"))
    assert cli.main(["play", "toy-race", "--resume", str(path), "--continue-from-last-good"]) == 0


def test_older_journals_load_with_a_notice_and_stay_in_their_format(tmp_path):
    toy_journal(tmp_path / "j.jsonl").close()
    path = tmp_path / "j.jsonl"
    as_format_1(path)
    session = Session.resume(path)
    assert len(session.warnings) == 1 and "before journal lines carried checks" in session.warnings[0]
    session.apply({"type": "roll", "dice": [1]})
    session.close()
    last = json.loads(path.read_text().splitlines()[-1])
    assert "h" not in last and last["seq"] == 9
    Session.resume(path).close()


def test_the_golden_journals_are_older_ones_and_load_with_the_notice():
    for path in sorted((ROOT / "tests" / "golden").glob("*.jsonl")):
        contents = Journal.read(path)
        assert contents.header["version"] == 1 and contents.damage is None
        assert "before journal lines carried checks" in contents.warnings[0]


def test_a_damaged_header_is_refused(tmp_path):
    toy_journal(tmp_path / "j.jsonl").close()
    path = tmp_path / "j.jsonl"
    path.write_text(path.read_text().replace('"Ben"', '"Bob"', 1))
    with pytest.raises(JournalError, match="Line 1 of .* is damaged"):
        Session.resume(path)


# --- one writer -----------------------------------------------------------------------------------------------


HOLD = """
import sys, time
from companion.journal import Session
sys.path.insert(0, sys.argv[2])
import toy_game
from companion.games import registry
registry.GAMES["toy-race"] = "toy_game"
session = Session.resume(sys.argv[1])
print("holding", flush=True)
time.sleep(60)
"""


def test_a_second_writer_is_refused_naming_the_holder_and_a_killed_one_blocks_nothing(tmp_path):
    toy_journal(tmp_path / "j.jsonl").close()
    path = tmp_path / "j.jsonl"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(path), str(ROOT / "tests")], stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        with pytest.raises(JournalLocked, match=f"open in another process \\(process {holder.pid}"):
            Session.resume(path)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    assert (tmp_path / ".j.jsonl.lock").exists()  # left behind by the killed process: it blocks nothing
    session = Session.resume(path)
    assert json.loads((tmp_path / ".j.jsonl.lock").read_text())["pid"] == os.getpid()
    session.close()
    assert not (tmp_path / ".j.jsonl.lock").exists()


def test_the_holder_is_named_from_the_kernel_when_the_side_file_is_gone(tmp_path):
    session = toy_journal(tmp_path / "j.jsonl")
    (tmp_path / ".j.jsonl.lock").unlink()
    with pytest.raises(JournalLocked, match=f"process {os.getpid()}" if Path("/proc/locks").exists() else "process"):
        Session.resume(tmp_path / "j.jsonl")
    session.close()


# --- creating, writing ------------------------------------------------------------------------------------------


def test_new_journals_are_created_exclusively_and_their_folders_fsynced(tmp_path, monkeypatch):
    synced = []
    real = storage.fsync_dir
    monkeypatch.setattr(storage, "fsync_dir", lambda p: (synced.append(Path(p)), real(p)))
    path = tmp_path / "new" / "deeper" / "j.jsonl"
    Session.start(toy_game.ToyGame(players=["Ann"]), path).close()
    assert {tmp_path, tmp_path / "new", tmp_path / "new" / "deeper"} <= set(synced)
    with pytest.raises(JournalError, match="already exists; use --resume"):
        Session.start(toy_game.ToyGame(players=["Ann"]), path)
    empty = tmp_path / "empty.jsonl"  # what a kill between create and header leaves: used, not refused
    empty.touch()
    Session.start(toy_game.ToyGame(players=["Ann"]), empty).close()
    assert Journal.read(empty).header["game"] == "toy-race"


@pytest.mark.parametrize("name, message", [
    ("", "needs a file name"),
    ("folder", "is a folder; give a file name"),
    ("file/j.jsonl", "a part of the path is a file"),
])
def test_unusable_journal_paths_are_one_plain_line(tmp_path, capsys, name, message):
    (tmp_path / "folder").mkdir()
    (tmp_path / "file").write_text("x")
    target = str(tmp_path / name) if name else ""
    assert cli.main(["play", "toy-race", "--players", "Ann", "--journal", target]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


def test_a_failed_write_leaves_no_half_line_and_changes_nothing(tmp_path, monkeypatch):
    session = toy_journal(tmp_path / "j.jsonl", undo_at=None)
    path = tmp_path / "j.jsonl"
    before, state = path.read_bytes(), session.state.to_json()
    real_write = os.write

    def half_then_full(fd, data):
        if fd == session.journal._fd:
            real_write(fd, bytes(data[:10]))
            raise OSError(28, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", half_then_full)
    with pytest.raises(JournalError, match="the disk is full. Nothing was changed"):
        session.apply({"type": "roll", "dice": [3]})
    monkeypatch.setattr(os, "write", real_write)
    assert path.read_bytes() == before and session.state.to_json() == state
    session.apply({"type": "roll", "dice": [3]})  # once there is room again, the next line is whole
    session.close()
    assert Session.resume(path).state.roll == 3


def test_the_terminal_stops_in_one_line_when_the_disk_is_full(tmp_path, monkeypatch):
    import io

    from companion.terminal import TerminalReferee, run_terminal

    session = toy_journal(tmp_path / "j.jsonl", undo_at=None)
    monkeypatch.setattr(os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(28, "No space left on device")))
    out = io.StringIO()
    referee = TerminalReferee(registry.load_game("toy-race"), session, stdin=io.StringIO("3\n"), stdout=out)
    assert run_terminal(referee) == 1
    assert "Not saved: Could not save it in" in out.getvalue() and "the disk is full" in out.getvalue()
    session.close()


# --- kills ------------------------------------------------------------------------------------------------------


def test_a_kill_at_any_byte_loses_no_acknowledged_action(tmp_path):
    """Every prefix of a journal is what a kill mid-write can leave: each resumes to exactly the actions
    whose lines were whole, and the game goes on from there."""
    raw = recorded_game("verzauberte-eulen", 5, tmp_path / "whole.jsonl", max_actions=40)
    whole = Journal.read(tmp_path / "whole.jsonl")
    ends = [whole.offsets[i] + len(raw[whole.offsets[i]:].split(b"\n", 1)[0]) + 1 for i in range(len(whole.records))]
    header_end = raw.index(b"\n") + 1
    rng = random.Random(0)
    cuts = sorted({header_end, len(raw)} | set(ends) | {e - 1 for e in ends} | {rng.randrange(header_end, len(raw))
                                                                                 for _ in range(60)})
    path = tmp_path / "cut.jsonl"
    for cut in cuts:
        path.write_bytes(raw[:cut])
        whole_lines = sum(1 for e in ends if e <= cut) + sum(1 for e in ends if e - 1 == cut)  # a lost newline only
        session = Session.resume(path)
        assert session.journal._seq == whole_lines + 1, cut
        assert [r for r in Journal.read(path).records] == whole.records[:whole_lines]
        session.apply(session.state.sample_chance(rng) if session.state.is_chance_node()
                      else rng.choice(session.state.legal_actions()))
        session.close()
        assert Journal.read(path).damage is None and len(Journal.read(path).records) == whole_lines + 1


@pytest.mark.slow
def test_killed_processes_lose_nothing_and_the_game_resumes_to_its_end(tmp_path):
    # paced at 0.05 s an action (about 4 s a game), killed 0.5-2 s after its first action: each plays some moves
    # however slowly the machine starts Python
    result = kill_chain("verzauberte-eulen", 11, 3, tmp_path, random.Random(4), delay=0.05, kill_after=(0.5, 2.0),
                        from_first_action=True)
    assert result["kills"] >= 1 and result["acknowledged"] > 0, result
    assert result["lost"] == 0 and result["refused"] == 0, result
    assert result["finished"], result


def test_the_tamper_cases_cover_every_middle_line():
    raw = b"".join(json.dumps({"seq": i, "x": i * 11}).encode() + b"\n" for i in range(6))
    kinds: dict[str, set[int]] = {}
    for kind, line, data in tamper_cases(raw, random.Random(0)):
        assert data != raw
        kinds.setdefault(kind, set()).add(line)
    assert kinds["drop"] == kinds["repeat"] == {2, 3, 4, 5} and kinds["swap"] == {2, 3, 4}
    assert kinds["bit"] == kinds["digit"] == {2, 3, 4, 5}


def test_the_chain_of_kills_counts_a_lost_action(tmp_path, monkeypatch):
    """The kill check can fail: a journal that forgets a printed action is counted as a loss."""
    import companion.workshop.robustness as robustness

    real = robustness._records
    calls = {"n": 0}

    def forgetful(journal, stats):
        records = real(journal, stats)
        calls["n"] += 1
        return records[:-3] if records and calls["n"] % 2 == 0 else records

    monkeypatch.setattr(robustness, "_records", forgetful)
    result = kill_chain("falconry", 2, 1, tmp_path, random.Random(0), delay=0.05, kill_after=(30, 30))
    assert result["acknowledged"] > 3 and result["lost"] > 0

