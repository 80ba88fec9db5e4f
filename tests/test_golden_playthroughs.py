"""Golden playthroughs: one recorded, seeded game per game set-up, replayed through the validating apply.

Each ``tests/golden/<case>.jsonl`` is an ordinary journal written by
``scripts/make_golden_journals.py``. Replaying it checks, across whole games at once,
that every recorded action is still legal, that the final position, scores and
winners are unchanged, and that the English move texts are byte-for-byte the same
(the journal and the terminal show them). A deliberate rules change regenerates the
files; an accidental one fails here.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from companion.journal import Journal, Session

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden"
EXPECTED = json.loads((GOLDEN / "expected.json").read_text(encoding="utf-8"))

_spec = importlib.util.spec_from_file_location("make_golden_journals", ROOT / "scripts" / "make_golden_journals.py")
make_golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_golden)


def test_every_case_has_a_recording():
    assert set(EXPECTED) == set(make_golden.CASES)
    assert {p.stem for p in GOLDEN.glob("*.jsonl")} == set(make_golden.CASES)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_golden_game_replays_to_the_same_end(case, tmp_path):
    journal = tmp_path / f"{case}.jsonl"
    shutil.copyfile(GOLDEN / f"{case}.jsonl", journal)  # resume opens it for appending
    session = Session.resume(journal)  # replays with full validation; raises on any refused action
    try:
        expected = EXPECTED[case]
        state = session.state
        assert len(session.history) == expected["actions"]
        assert state.is_terminal() == expected["terminal"]
        assert [float(s) for s in state.scores()] == expected["scores"]
        assert list(state.winners()) == expected["winners"]
        assert state.turn_number == expected["turns"]
        assert make_golden.state_digest(state) == expected["state_sha256"]
    finally:
        session.close()


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_golden_move_texts_are_unchanged(case):
    contents = Journal.read(GOLDEN / f"{case}.jsonl")
    module_name = contents.header["game"]
    from companion.games.registry import load_game

    game = load_game(module_name).game_class.from_config(contents.header["config"])
    state = game.new_initial_state()
    for record in contents.records:
        assert state.action_to_string(record["action"]) == record["text"], f"seq {record['seq']}"
        assert state.current_player == record["player"], f"seq {record['seq']}"
        state.apply(record["action"])
