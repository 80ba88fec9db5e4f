"""`companion play eagle-kingdoms` through the generic CLI, driven through stdin (subprocess)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from ek_helpers import placement

from companion.journal import Journal

ROOT = Path(__file__).resolve().parents[3]
PLACEMENT = json.dumps(placement({"plume-left-1": "king", "feather-left-5": "duke", "crown-left": "queen"}))


def play(args, lines, timeout=60):
    result = subprocess.run(
        [sys.executable, "-m", "companion", "play", "eagle-kingdoms", *args],
        input="".join(f"{line}\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )
    return result.returncode, result.stdout + result.stderr


@pytest.mark.rules("EK-CAP-MATCH", "EK-TWO-1")
def test_scripted_turns_bad_input_and_undo(tmp_path):
    journal = tmp_path / "game.jsonl"
    lines = [
        PLACEMENT,
        "1 3",  # Ann's roll: plume-left-1 (King) or feather-left-5 (Duke)
        "9",  # no such choice
        "1",  # captures the King
        "9 9",  # not a roll
        "two",  # not a roll either
        "1 4",  # Ben: crown-left (Queen) is now available
        "1",
        "undo",
        "2",  # Ben passes instead
        "quit",
    ]
    code, out = play(["--players", "Ann,Ben,Cy", "--journal", str(journal)], lines)
    assert code == 0, out
    assert "> Ann captures the King (10) from plume-left-1" in out
    assert "Refused: type a number from 1 to 3 (or 'help'); got '9'." in out
    assert "Refused: A die shows 1-6; 9 is not a face." in out
    assert "Refused: Type the die values as numbers" in out
    assert "> Ben captures the Queen (9) from crown-left" in out
    assert "Undid 1 action(s)." in out
    assert "> Ben passes (no capture, turn over)" in out
    assert "Coach: Chance that this roll captures something: 27/36 (75.0%)." in out
    assert "unlocks crown-left" in out
    actions = Journal.read(journal).actions()
    assert [a["type"] for a in actions] == ["setup", "roll", "capture", "roll", "pass"]


def test_resume_after_a_kill_mid_write(tmp_path):
    journal = tmp_path / "game.jsonl"
    code, out = play(["--players", "Ann,Ben,Cy", "--journal", str(journal)], [PLACEMENT, "1 3", "1", "1 4"])
    assert code == 3 and "continue it with --resume" in out  # stdin ran dry: stopped, saved
    with open(journal, "a", encoding="utf-8") as handle:
        handle.write('{"seq": 5, "action": {"type": "capt')  # killed in the middle of a write
    code, out = play(["--resume", str(journal)], ["1", "quit"])
    assert code == 0, out
    assert "Warning: The last line of game.jsonl (line 6) was cut off mid-write" in out
    assert "Ben to play" in out
    assert "> Ben captures the Queen (9) from crown-left" in out
    actions = Journal.read(journal).actions()
    assert actions[-1] == {"type": "capture", "piece": "crown-left"} and len(actions) == 5
    code, out = play(["--resume", str(journal)], ["quit"])
    assert "Scores: Ann 10, Ben 9, Cy 0" in out


def test_auto_game_runs_to_the_end():
    code, out = play(["--players", "Ann,Ben,Cy", "--auto", "--seed", "3", "--no-coach"], [], timeout=120)
    assert code == 0, out[-2000:]
    assert "Game over." in out
    assert "captures the centre shield" in out
    tail = out.splitlines()[-1]
    assert tail.startswith("Winner: ") or tail.startswith("Shared win: ")
