"""The generic terminal referee and the shared CLI commands, driven through stdin."""

import io
import json
import random

import pytest
import toy_game

from companion import cli
from companion.games import registry
from companion.games.playout import playout
from companion.journal import Session
from companion.terminal import TerminalReferee, run_terminal


@pytest.fixture(autouse=True)
def toy_registered(monkeypatch):
    monkeypatch.setitem(registry.GAMES, "toy-race", "toy_game")


def referee(script, tmp_path=None, **kwargs):
    module = registry.load_game("toy-race")
    journal = tmp_path / "j.jsonl" if tmp_path else None
    session = Session.start(toy_game.ToyGame(players=["Ann", "Ben"]), journal)
    out = io.StringIO()
    ref = TerminalReferee(module, session, stdin=io.StringIO(script), stdout=out, **kwargs)
    return ref, session, out


def test_bad_input_is_explained_and_play_goes_on(tmp_path):
    script = "9\nfour\n4\n7\nx\n1\n"
    ref, session, out = referee(script, tmp_path)
    code = run_terminal(ref)
    text = out.getvalue()
    assert "Refused: A die shows 1-6; 9 is not a face." in text
    assert "Refused: Type the die values as numbers" in text
    assert "Refused: type a number from 1 to 2" in text and "Refused: Type the number of a choice" in text
    assert session.state.positions == [4, 0]
    assert code == 3  # input ended mid-game: cannot go on
    assert "continue it with --resume" in text


def test_undo_and_quit(tmp_path):
    ref, session, out = referee("4\n1\nundo 2\nquit\n", tmp_path)
    assert run_terminal(ref) == 0
    assert session.state.positions == [0, 0]
    assert "Undid 2 action(s)." in out.getvalue()


def test_auto_game_reaches_the_end_and_is_seeded():
    ref, session, out = referee("", auto=True, seed=3)
    assert run_terminal(ref) == 0
    ref2, session2, _ = referee("", auto=True, seed=3)
    run_terminal(ref2)
    assert session.history == session2.history
    assert "Game over." in out.getvalue()


def test_auto_plays_the_same_game_as_the_one_playout_helper():
    ref, session, _ = referee("", auto=True, seed=5)
    run_terminal(ref)
    simulated = []
    playout(toy_game.ToyGame(players=["Ann", "Ben"]).new_initial_state(), random.Random(5),
            registry.load_game("toy-race").simulation_policy, on_action=lambda state, action: simulated.append(action))
    assert session.history == simulated


def test_cli_play_resume_and_errors(tmp_path, monkeypatch, capsys):
    journal = tmp_path / "g.jsonl"
    monkeypatch.setattr("sys.stdin", io.StringIO("3\n1\n"))
    assert cli.main(["play", "toy-race", "--players", "Ann,Ben", "--journal", str(journal)]) == 3
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert cli.main(["play", "toy-race", "--resume", str(journal)]) == 0
    assert "Positions: Ann=3, Ben=0" in capsys.readouterr().out
    assert cli.main(["play", "toy-race", "--resume", str(tmp_path / "missing.jsonl")]) == 2
    assert "No journal" in capsys.readouterr().err
    assert cli.main(["play", "toy-race", "--players", "A,B,C,D"]) == 2
    assert "1-3 players" in capsys.readouterr().err
    assert cli.main(["play", "no-such-game"]) == 2


def test_cli_simulate_prints_shared_json_line(capsys):
    assert cli.main(["simulate", "toy-race", "--games", "20", "--seed", "1", "--check", "--json"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    result = json.loads(last)
    assert set(result) == {"game", "games", "finished", "mean_turns", "max_turns", "games_per_second", "invariant_violations"}
    assert result["game"] == "toy-race" and result["games"] == 20 and result["finished"] == 20
    assert result["invariant_violations"] == 0
    assert result["max_turns"] >= result["mean_turns"] > 0


def test_simulate_counts_invariant_violations(monkeypatch, capsys):
    monkeypatch.setattr(toy_game.ToyState, "check_invariants", lambda self: ["broken on purpose"])
    assert cli.main(["simulate", "toy-race", "--games", "2", "--check", "--json"]) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out.strip().splitlines()[-1])["invariant_violations"] > 0
    assert "broken on purpose" in captured.err


def test_a_single_choice_is_confirmed_with_enter(monkeypatch):
    monkeypatch.setattr(toy_game.ToyState, "legal_actions", lambda self: [{"type": "bank"}] if self.roll else [{"type": "roll", "dice": [v]} for v in range(1, 7)])
    ref, session, out = referee("2\n\n")
    run_terminal(ref)
    assert "Press Enter to confirm" in out.getvalue()
    assert session.state.positions == [1, 0]


def test_cli_options_reach_the_game(capsys):
    args = cli.build_parser().parse_args(["simulate", "toy-race", "--option", "goal=12", "--option", "label=x"])
    _, game = cli.make_game(args)
    assert game.options == {"goal": 12, "label": "x"}
    assert cli.main(["simulate", "toy-race", "--option", "oops"]) == 2
    assert "key=value" in capsys.readouterr().err


def test_scan_commands_pass_their_arguments_through(tmp_path, capsys):
    missing = str(tmp_path / "none.png")
    assert cli.main(["scan-tiles", missing]) != 0
    assert cli.main(["scan-kingdom", missing]) != 0
    captured = capsys.readouterr()
    assert (captured.out + captured.err).count("none.png") >= 2
