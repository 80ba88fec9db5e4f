"""The terminal referee: drawing, menu texts, typed moves, journal and the generic CLI."""

import io

import pytest
from fa_support import make_game, move, place, position

from companion.cli import main as cli_main
from companion.games.core import InvalidAction
from companion.games.falconry import TEXT_VIEW
from companion.games.registry import load_game
from companion.journal import Session
from companion.terminal import TerminalReferee, run_terminal


def test_render_is_readable_without_colour():
    game = make_game("duel")
    state = position(game, {(0, 0): "HF", (1, 0): "EM HB", (0, 1): "EF", (1, 1): "EB"})
    text = TEXT_VIEW(colour=False).render(state)
    assert "\x1b[" not in text
    assert "HF1" in text and "HB2" in text and "EF1" in text
    assert "(1, 0) Dusky Hawk's bird on Golden Eagle's marker" in text
    assert "H = Ann (Dusky Hawk)" in text and "E = Ben (Golden Eagle)" in text
    lines = text.splitlines()
    assert lines[1].split() == ["-1", "0", "1", "2"]  # x coordinates
    assert any(line.split()[:1] == ["-1"] for line in lines[2:])  # y coordinates
    assert "Turn 5: Ann (Dusky Hawk) to act." in text
    coloured = TEXT_VIEW(colour=True).render(state)
    assert "\x1b[35mHF1\x1b[0m" in coloured


def test_menu_texts_name_claims_ambushes_uncovering_and_wins():
    game = make_game("duel")
    table = {(0, 0): "HF", (1, 0): "EB", (2, 0): "EM", (0, 1): "HM EB", **{(x, -1): "HM" for x in range(4)}}
    state = position(game, table, hands=[[10, 1, 0], [10, 0, 1]])
    view = TEXT_VIEW(colour=False)
    assert view.describe_choice(state, place("marker", 3, 0)) == "Place marker at (3, 0)"
    assert view.describe_choice(state, place("bird", 2, 0)) == "Place bird at (2, 0), claims Golden Eagle's marker"
    assert view.describe_choice(state, move(0, 0, 1, 0)) == "Move falconer (0, 0)->(1, 0), ambushes Golden Eagle's bird"
    assert view.describe_choice(state, place("marker", 4, -1)) == "Place marker at (4, -1), WINS"
    state = position(game, {(0, 0): "EM HB", (1, 0): "EF", (0, 1): "HF"})
    assert view.describe_choice(state, move(0, 0, -1, 0)) == "Move bird (0, 0)->(-1, 0), uncovers Golden Eagle's marker"


def test_typed_moves_parse_to_actions():
    view = TEXT_VIEW(colour=False)
    state = make_game("duel").new_initial_state()
    assert view.parse_action(state, "place marker 2 0") == place("marker", 2, 0)
    assert view.parse_action(state, "move (0,0) -> (1,-1)") == move(0, 0, 1, -1)
    assert view.parse_action(state, "pass") == {"type": "pass"}
    with pytest.raises(InvalidAction):
        view.parse_action(state, "place egg 1 1")


@pytest.mark.parametrize("mode, players", [("duel", "Ann,Ben"), ("allied", "Ann,Ben,Cy"), ("joint", "4")])
def test_auto_game_in_the_terminal_referee_runs_to_a_winner(mode, players, tmp_path):
    module = load_game("falconry")
    names = players.split(",") if "," in players else [f"P{i + 1}" for i in range(int(players))]
    game = module.game_class(players=names, mode=mode)
    journal = tmp_path / "fa.jsonl"
    session = Session.start(game, journal)
    out = io.StringIO()
    coach = mode != "joint"  # the coach's exact search is the slow part of a long four-player demo
    code = run_terminal(TerminalReferee(module, session, stdout=out, auto=True, seed=4, coach=coach))
    session.close()
    text = out.getvalue()
    assert code == 0 and "Game over." in text and "Winner:" in text
    resumed = Session.resume(journal, expected_game="falconry")
    assert resumed.state == session.state and resumed.state.is_terminal()
    resumed.close()


def test_typed_game_with_undo_and_refusal(tmp_path):
    module = load_game("falconry")
    session = Session.start(make_game("duel"), tmp_path / "j.jsonl")
    replies = io.StringIO("1\nundo\n99\nhelp\n2\nquit\n")
    out = io.StringIO()
    code = run_terminal(TerminalReferee(module, session, stdin=replies, stdout=out))
    text = out.getvalue()
    assert code == 0 and "Undid 1 action(s)." in text and "Refused: type a number" in text
    assert len(session.history) == 1
    session.close()


def test_cli_rejects_a_wrong_player_count(capsys):
    assert cli_main(["play", "falconry", "--mode", "allied", "--players", "Ann,Ben"]) == 2
    assert "exactly 3 players" in capsys.readouterr().err
    assert cli_main(["simulate", "falconry", "--mode", "quarrel", "--players", "4", "--games", "3", "--json"]) == 0
    assert '"finished": 3' in capsys.readouterr().out


def test_every_menu_entry_and_position_can_be_shown():
    import random

    from companion.games.falconry import simulation_policy

    view = TEXT_VIEW(colour=False)
    rng = random.Random(2)
    for mode in ["duel", "fast-duel", "allied", "truel", "quarrel", "joint"]:
        state = make_game(mode).new_initial_state()
        for step in range(40):
            if state.is_terminal():
                break
            if step % 8 == 0:
                assert view.render(state)
                texts = [view.describe_choice(state, a) for a in state.legal_actions()]
                assert len(set(texts)) == len(texts)
                assert all(
                    state.action_to_string(a).startswith(state.game.players[state.current_player])
                    for a in state.legal_actions()[:20]
                )
            state.apply(simulation_policy(state, rng))
        assert view.render(state) and view.final_table(state)
