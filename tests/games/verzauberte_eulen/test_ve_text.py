"""The terminal view: board as letters, typed rolls, the coach, and play through the generic CLI."""

import io

import pytest
from ve_helpers import move, new_game, position

from companion import cli
from companion.games.core import InvalidAction
from companion.games.registry import load_game
from companion.games.verzauberte_eulen import TEXT_VIEW
from companion.games.verzauberte_eulen.view import move_marks, plans
from companion.journal import Session
from companion.terminal import TerminalReferee, run_terminal


def test_render_draws_owls_as_head_and_body_letters():
    view = TEXT_VIEW()
    state = position({"b2": ["Br", "Rb"], "c2": ["Kk"]}, dice=(3, 5, 1))
    text = view.render(state)
    lines = text.splitlines()
    row2 = next(line for line in lines if line.strip().startswith("2 "))
    assert "BrRb" in row2 and "Kk" in row2
    assert "Nest of Ann: the south-west nest (a1): Br Br Br" in text
    assert "Cave: empty" in text
    assert "Rb = red head on a blue body" in text
    assert "Ann rolled head 3, body 5, eye 1" in text
    assert "\x1b" not in text  # letters only, no colour codes
    start = view.render(new_game(4).new_initial_state())
    assert "Cave: Kk" in start and "Dee to" not in start and "Ann to roll" in start


@pytest.mark.rules("VE-COMP-DICE")
def test_typed_roll_is_head_body_eye():
    view = TEXT_VIEW()
    state = new_game().new_initial_state()
    assert view.parse_chance(state, "3 5 1") == {"type": "roll", "head": 3, "body": 5, "eye": 1}
    assert view.parse_chance(state, "351") == {"type": "roll", "head": 3, "body": 5, "eye": 1}
    assert view.parse_chance(state, "6,6,6") == {"type": "roll", "head": 6, "body": 6, "eye": 6}
    for bad, words in (
        ("3 5", "Three dice"),
        ("7 1 1", "head die shows 1-6"),
        ("1 0 1", "body die"),
        ("a b c", "Three dice"),
        ("", "Three"),
    ):
        with pytest.raises(InvalidAction, match=words) as info:
            view.parse_chance(state, bad)
        assert info.value.rule_id == "VE-COMP-DICE" and "3 5 1" in str(info.value)


def test_coach_marks_completions_cave_entries_and_black_heads_handed_on():
    view = TEXT_VIEW()
    state = position({"b2": ["Br"], "c2": ["Rb"], "d2-d3": ["Kk"], "d3": ["Bb"], "c2-c3": ["Rr"]}, dice=(1, 2, 1))
    swap = next(m for m in state.moves("body") if state.board.ids[m[3]] == "c2" and state.board.ids[m[1]] == "b2")
    assert move_marks(state, swap) == ["completes Rr", "completes Bb for Ben"]
    cave = next(m for m in state.moves("head") if m[3] == state.board.cave)
    assert move_marks(state, cave) == ["Rr enters the cave"]
    text = view.describe_choice(state, move("body", "b2", "Br", "c2"))
    assert text.endswith("[completes Rr; completes Bb for Ben]")
    lines = view.coach(state)
    assert "legal ways to use head 1, body 2, eye 1" in lines[0]
    assert any("enters the cave" in line for line in lines)
    # the eye die: the black owl lands on Ben's Bb and hands him the black head
    state.left = ["eye"]
    black = next(m for m in state.moves("eye") if state.board.ids[m[3]] == "d3")
    assert "hands the black head to Ben" in move_marks(state, black)


def test_coach_enumerates_every_way_to_use_the_dice():
    state = position({}, dice=(1, 1, 1))
    found, cut = plans(state)
    assert not cut
    # head: 2 ways out of Ben's nest, body: 2 out of Ann's, in either order; eye: 4 ways out of the cave
    assert len(found) == 2 * 2 * 2 * 4
    assert all(p.final.is_chance_node() for p in found)
    few, cut = plans(state, limit=5)
    assert cut and len(few) == 5
    assert TEXT_VIEW().coach(state)[0].startswith("32 legal ways to use")


def test_roll_hints_name_the_numbers_that_reach_the_cave():
    state = position({"c2": ["Rr"]})
    assert TEXT_VIEW().coach(state) == ["Rr on c2 enters the cave with a 2 or 6 on the head or body die."]


def test_terminal_session_refuses_bad_input_with_the_rule_and_undoes(tmp_path):
    module = load_game("verzauberte-eulen")
    journal = tmp_path / "ve.jsonl"
    session = Session.start(new_game(), journal)
    out = io.StringIO()
    script = "7 1 1\n3 5 1\n99\n1\nundo\nquit\n"
    referee = TerminalReferee(module, session, stdin=io.StringIO(script), stdout=out)
    assert run_terminal(referee) == 0
    text = out.getvalue()
    assert "Refused: The head die shows 1-6; 7 is not a face" in text and "[VE-COMP-DICE]" in text
    assert "Refused: type a number from 1 to" in text
    assert "Undid 1 action(s)." in text
    session.close()
    resumed = Session.resume(journal)
    assert resumed.history == [{"type": "roll", "head": 3, "body": 5, "eye": 1}]
    assert resumed.state.dice == {"head": 3, "body": 5, "eye": 1}
    resumed.close()


def test_cli_plays_a_whole_seeded_game(capsys):
    code = cli.main(["play", "verzauberte-eulen", "--players", "Ann,Ben,Cy", "--auto", "--seed", "3", "--no-coach"])
    out = capsys.readouterr().out
    assert code == 0
    assert "Game over." in out and "Winner: " in out and "has won" in out


def test_cli_refuses_the_advanced_variant_for_three(capsys):
    code = cli.main(["simulate", "verzauberte-eulen", "--players", "3", "--variant", "advanced", "--games", "1"])
    assert code == 2 and "two players" in capsys.readouterr().err
