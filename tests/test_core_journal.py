"""Engine core, journal and session, tested on the toy race (tests/toy_game.py)."""

import json
import os

import pytest
import toy_game
from journal_tools import kill

from companion.games import registry
from companion.games.core import CHANCE, ConfigError, IllegalAction, InvalidAction
from companion.journal import JournalContents, JournalDamaged, JournalError, JournalLocked, Session


@pytest.fixture(autouse=True)
def toy_registered(monkeypatch):
    monkeypatch.setitem(registry.GAMES, "toy-race", "toy_game")


def new_session(tmp_path, name="game.jsonl"):
    return Session.start(toy_game.ToyGame(players=["Ann", "Ben"]), tmp_path / name)


def play(session, *actions):
    for action in actions:
        session.apply(action)


ROLL4 = {"type": "roll", "dice": [4]}
ADVANCE = {"type": "advance"}
BANK = {"type": "bank"}


def test_illegal_action_names_rule_and_changes_nothing(tmp_path):
    session = new_session(tmp_path)
    play(session, ROLL4)
    before = session.state.to_json()
    journal_before = (tmp_path / "game.jsonl").read_text()
    with pytest.raises(IllegalAction) as info:
        session.apply({"type": "roll", "dice": [3]})
    assert info.value.rule_id == "TOY-ROLL"
    assert "already rolled" in str(info.value)
    assert session.state.to_json() == before
    assert (tmp_path / "game.jsonl").read_text() == journal_before


def test_malformed_action_is_invalid_not_a_crash(tmp_path):
    session = new_session(tmp_path)
    for junk in ["advance", None, {"dice": [1]}]:
        with pytest.raises(InvalidAction):
            session.apply(junk)
    with pytest.raises(InvalidAction):
        session.apply({"type": "roll", "dice": [7]})
    assert session.state.current_player == CHANCE


def test_action_is_on_disk_before_it_is_acknowledged(tmp_path, monkeypatch):
    session = new_session(tmp_path)

    def disk_full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(JournalError, match="the disk is full"):
        session.apply(ROLL4)
    # the write failed, so the action was never acknowledged and the state did not move
    assert session.state.current_player == CHANCE
    assert session.history == []


def test_resume_after_kill_replays_every_acknowledged_action(tmp_path):
    session = new_session(tmp_path)
    play(session, ROLL4, ADVANCE, {"type": "roll", "dice": [6]}, BANK)
    expected = session.state.to_json()
    kill(session)  # every line was fsync'ed
    resumed = Session.resume(tmp_path / "game.jsonl")
    assert resumed.state.to_json() == expected
    assert resumed.state.positions == [4, 1]
    play(resumed, {"type": "roll", "dice": [2]})
    kill(resumed)
    again = Session.resume(tmp_path / "game.jsonl")
    assert again.state.roll == 2


def test_undo_is_journaled_and_survives_resume(tmp_path):
    session = new_session(tmp_path)
    play(session, ROLL4, ADVANCE, {"type": "roll", "dice": [5]})
    assert session.undo(2) == 2
    assert session.state.positions == [0, 0] and session.state.roll == 4
    assert session.undo(0) == 0
    kill(session)
    resumed = Session.resume(tmp_path / "game.jsonl")
    assert resumed.state.to_json() == session.state.to_json()
    records = [json.loads(line) for line in (tmp_path / "game.jsonl").read_text().splitlines()]
    assert records[-1]["undo"] == 2


def test_truncated_last_line_is_reported_and_skipped(tmp_path):
    session = new_session(tmp_path)
    play(session, ROLL4, ADVANCE)
    kill(session)
    path = tmp_path / "game.jsonl"
    with open(path, "a") as handle:
        handle.write('{"seq": 3, "player": -1, "action": {"type": "ro')  # killed mid-write
    resumed = Session.resume(path)
    assert resumed.state.positions == [4, 0]
    assert any("line 4) was cut off mid-write" in w for w in resumed.warnings)
    play(resumed, {"type": "roll", "dice": [1]})  # appends on a fresh line
    resumed.close()
    assert Session.resume(path).state.roll == 1
    # the fragment is kept aside, not lost
    assert '"type": "ro' in (tmp_path / "game.jsonl.damaged").read_text()


def test_last_record_without_newline_is_kept(tmp_path):
    session = new_session(tmp_path)
    play(session, ROLL4)
    kill(session)
    path = tmp_path / "game.jsonl"
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    resumed = Session.resume(path)
    assert resumed.state.roll == 4 and not resumed.warnings
    play(resumed, ADVANCE)
    resumed.close()
    assert Session.resume(path).state.positions == [4, 0]


def test_corrupt_middle_line_is_refused_and_file_untouched(tmp_path):
    session = new_session(tmp_path)
    play(session, ROLL4, ADVANCE)
    session.close()
    path = tmp_path / "game.jsonl"
    lines = path.read_text().splitlines()
    lines[1] = "garbage"
    path.write_text("\n".join(lines) + "\n")
    before = path.read_bytes()
    with pytest.raises(JournalDamaged, match="Line 2 of game.jsonl is damaged: it is not JSON"):
        Session.resume(path)
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    "header, message",
    [
        ({"format": "companion-journal", "version": 99, "game": "toy-race"}, "format 99"),
        ({"format": "something-else"}, "not a companion journal"),
        ({"format": "companion-journal", "version": 1, "game": "chess"}, "Unknown game"),
        (
            {"format": "companion-journal", "version": 1, "game": "toy-race", "rules_version": 0, "config": {}},
            "rules version 0",
        ),
    ],
)
def test_incompatible_journals_are_refused(tmp_path, header, message):
    path = tmp_path / "j.jsonl"
    path.write_text(json.dumps(header) + "\n")
    with pytest.raises(JournalError, match=message):
        Session.resume(path)


def test_journal_of_another_game_is_refused(tmp_path):
    new_session(tmp_path).close()
    with pytest.raises(JournalError, match="not of 'eagle-kingdoms'"):
        Session.resume(tmp_path / "game.jsonl", expected_game="eagle-kingdoms")


def test_missing_empty_or_binary_journal(tmp_path):
    with pytest.raises(JournalError, match="No journal"):
        Session.resume(tmp_path / "absent.jsonl")
    (tmp_path / "empty.jsonl").write_text("")
    with pytest.raises(JournalError, match="empty"):
        Session.resume(tmp_path / "empty.jsonl")
    (tmp_path / "bin.jsonl").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    with pytest.raises(JournalError):
        Session.resume(tmp_path / "bin.jsonl")


def test_replayed_action_that_is_illegal_is_reported(tmp_path):
    from companion.journal import line_hash

    session = new_session(tmp_path)
    play(session, ROLL4)
    session.close()
    path = tmp_path / "game.jsonl"
    previous = json.loads(path.read_text().splitlines()[-1])["h"]
    with open(path, "a") as handle:  # lines with sound checks whose action the rules refuse
        for record in ({"seq": 2, "player": 0, "action": {"type": "roll", "dice": [2]}, "text": ""},
                       {"seq": 3, "player": 0, "action": ADVANCE, "text": ""}):
            record["h"] = previous = line_hash(previous, record)
            handle.write(json.dumps(record) + "\n")
    with pytest.raises(JournalDamaged, match="Line 3 of game.jsonl is damaged: its action cannot be replayed"):
        Session.resume(path)


def test_existing_journal_is_never_overwritten(tmp_path):
    session = new_session(tmp_path)
    with pytest.raises(JournalLocked, match="game.jsonl is open elsewhere in this program"):
        new_session(tmp_path)  # still open: its holder is named
    session.close()
    with pytest.raises(JournalError, match="already exists"):
        new_session(tmp_path)


def test_config_errors():
    with pytest.raises(ConfigError, match="1-3 players"):
        toy_game.ToyGame(players=["a", "b", "c", "d"])
    with pytest.raises(ConfigError, match="differ"):
        toy_game.ToyGame(players=["Ann", "ann"])
    with pytest.raises(ConfigError, match="no modes"):
        toy_game.ToyGame(players=["Ann"], mode="fast")
    with pytest.raises(ConfigError, match="Unknown game"):
        registry.load_game("chess")


def test_journal_undo_never_underflows():
    effective = JournalContents({}, [{"action": ROLL4}, {"undo": 5}, {"action": ROLL4}]).actions()
    assert effective == [ROLL4]


def test_header_metadata_is_written_once_fsynced_and_read_back(tmp_path, monkeypatch):
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    meta = {"colours": [3, 1], "note": "grandma's table"}
    session = Session.start(toy_game.ToyGame(players=["Ann", "Ben"]), tmp_path / "game.jsonl", metadata=meta)
    assert synced  # the header (with its metadata) is on disk before start returns
    meta["colours"].append(9)  # the caller's object is copied, not kept
    play(session, ROLL4, ADVANCE)
    session.close()
    lines = (tmp_path / "game.jsonl").read_text().splitlines()
    header = json.loads(lines[0])
    assert header["metadata"] == {"colours": [3, 1], "note": "grandma's table"}
    assert all("metadata" not in json.loads(line) for line in lines[1:])  # written once, with the header
    resumed = Session.resume(tmp_path / "game.jsonl")
    assert resumed.metadata == {"colours": [3, 1], "note": "grandma's table"}
    assert resumed.state.positions == [4, 0]
    play(resumed, {"type": "roll", "dice": [2]})
    resumed.close()
    assert json.loads((tmp_path / "game.jsonl").read_text().splitlines()[0]) == header  # never rewritten


def test_journals_without_metadata_still_load_and_bad_metadata_is_refused(tmp_path):
    session = new_session(tmp_path)
    play(session, ROLL4)
    session.close()
    header = json.loads((tmp_path / "game.jsonl").read_text().splitlines()[0])
    assert "metadata" not in header  # no metadata given: the header is as before
    resumed = Session.resume(tmp_path / "game.jsonl")
    assert resumed.metadata == {}
    resumed.close()
    from companion.journal import Journal

    assert Journal.read(tmp_path / "game.jsonl").metadata == {}
    weird = dict(header, metadata=[1, 2], version=1)  # an older, hand-edited header: ignored, the game still loads
    del weird["h"]
    (tmp_path / "weird.jsonl").write_text(json.dumps(weird) + "\n")
    assert Session.resume(tmp_path / "weird.jsonl").metadata == {}
    with pytest.raises(JournalError, match="JSON object"):
        Session.start(toy_game.ToyGame(players=["Ann"]), tmp_path / "list.jsonl", metadata=[1, 2])
    with pytest.raises(JournalError, match="not JSON"):
        Session.start(toy_game.ToyGame(players=["Ann"]), tmp_path / "set.jsonl", metadata={"x": {1, 2}})
    assert not (tmp_path / "list.jsonl").exists() and not (tmp_path / "set.jsonl").exists()
