"""The terminal referee through the generic CLI: typed set-up and rolls, menu, undo, journal, final table."""

import io
import json

import pytest

from companion.cli import main
from companion.games.core import InvalidAction
from companion.games.mighty_magpies import TEXT_VIEW
from companion.games.mighty_magpies.rules import MightyMagpies
from companion.games.registry import load_game
from companion.journal import Session
from companion.terminal import TerminalReferee, run_terminal

SETUP_LINE = "A bbbs B bbbg C bbbb D bbsg E bbb F bsg G bbb"


def referee(session, lines):
    out = io.StringIO()
    ref = TerminalReferee(load_game("magpies"), session, stdin=io.StringIO("\n".join(lines) + "\n"), stdout=out, seed=1)
    return ref, out


@pytest.mark.rules("MM-SETUP-1", "MM-PLAY-2")
def test_typed_game_with_refusals_undo_and_resume(tmp_path):
    path = tmp_path / "mm.jsonl"
    session = Session.start(MightyMagpies(players=["Ann", "Ben"]), path)
    ref, out = referee(session, [SETUP_LINE, "purple magpie", "red", "magpie red", "2", "undo", "quit"])
    assert run_terminal(ref) == 0
    session.close()
    text = out.getvalue()
    assert "A b b b s" in text and "magpies: Ann, Ben" in text
    assert "Refused: The colour dice have no face 'purple'" in text
    assert "Refused: Type the two faces shown, e.g. 'red magpie'" in text
    assert "> Roll: red + magpie" in text
    assert "> Ann flies red r1 R->G, takes a berry" in text
    assert "Undid 1 action(s)." in text
    resumed = Session.resume(path, expected_game="mighty-magpies")
    assert resumed.state.phase == "move" and resumed.state.dice == ("red", "magpie")
    assert len(resumed.history) == 2
    resumed.close()


@pytest.mark.rules("MM-CONTENTS-3")
def test_parse_chance_messages():
    view = TEXT_VIEW()
    state = MightyMagpies(players=["Ann", "Ben"]).new_initial_state()
    assert view.parse_chance(state, SETUP_LINE)["nests"]["D"] == "bbsg"
    state.apply(view.parse_chance(state, SETUP_LINE))
    assert view.parse_chance(state, "magpie, y") == {"type": "roll", "faces": ["yellow", "magpie"]}
    assert view.parse_chance(state, "Blue + BLUE") == {"type": "roll", "faces": ["blue", "blue"]}
    for typed, words in [("purple red", "no face 'purple'"), ("red", "two faces"), ("red red red", "two faces")]:
        with pytest.raises(InvalidAction, match=words) as info:
            view.parse_chance(state, typed)
        assert "\n" not in str(info.value)


@pytest.mark.rules("MM-WIN-1", "MM-SCORE-2")
def test_auto_game_through_the_cli_ends_with_the_final_table(capsys):
    assert main(["play", "mighty-magpies", "--players", "Ann,Ben,Cy", "--auto", "--seed", "5", "--no-coach"]) == 0
    text = capsys.readouterr().out
    assert "Game over." in text and "ring sets: silver" in text and "Winner: " in text


def test_simulate_command_json(capsys):
    assert main(["simulate", "magpies", "--games", "30", "--seed", "7", "--check", "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["finished"] == 30 and result["invariant_violations"] == 0
