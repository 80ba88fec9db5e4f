"""The terminal at a family's table (issue 22, item 6), driven by typed lines: only 'roll' rolls, the end
of a game offers undo (also after --resume of a finished journal), help is each game's own, long menus
are grouped and shown a part at a time with numbers fixed for the position."""

from __future__ import annotations

import io
import random
import re

import pytest
import toy_game

from companion import cli
from companion.games.registry import GAMES, load_game
from companion.games.text import TextView
from companion.journal import Session
from companion.menu import PAGE, SHORT, Menu
from companion.terminal import TerminalReferee, run_terminal

MOST_LINES = SHORT + 1
"""A screen of choices: a title and at most SHORT choices, or a title, a part and two lines of footer."""
CHOICE = re.compile(r"^\s+(\d+)\. ")
GROUP = re.compile(r"^\s+([a-z]+)\) ")
WIN = "6\n1\n2\n2\n6\n1\n"  # Ann advances 6, Ben banks 1 (on a 2), Ann advances 6: 12, past the goal of 10


@pytest.fixture(autouse=True)
def toy_registered(monkeypatch):
    monkeypatch.setitem(GAMES, "toy-race", "toy_game")


def referee(script, game=None, journal=None, name="toy-race", **kwargs):
    module = load_game(name)
    game = game or toy_game.ToyGame(players=["Ann", "Ben"])
    session = Session.start(game, journal)
    out = io.StringIO()
    ref = TerminalReferee(module, session, stdin=io.StringIO(script), stdout=out, coach=False, **kwargs)
    return ref, session, out


def new_game(name, **kwargs):
    cls = load_game(name).game_class
    return cls(players=[f"P{i + 1}" for i in range(cls.default_player_count(kwargs.get("mode")))], **kwargs)


# --- only 'roll' rolls ---------------------------------------------------------------------------------
def test_an_empty_line_at_a_dice_prompt_rolls_nothing_and_only_roll_rolls():
    ref, session, out = referee("\n\nr\nroll\n", seed=5)
    assert run_terminal(ref) == 3  # the input ended mid-game
    text = out.getvalue()
    assert text.count("Nothing typed: type the dice as they lie on the table, e.g. '4'; 'roll' lets") == 2
    assert "Refused: Type the die values as numbers" in text  # 'r' is no longer short for roll
    assert len(session.history) == 1 and session.history[0]["type"] == "roll"


@pytest.mark.parametrize("name", ["eagle-kingdoms", "verzauberte-eulen", "mighty-magpies"])
def test_an_empty_line_at_a_games_first_dice_or_set_up_prompt_records_nothing(name, tmp_path):
    ref, session, out = referee("\n", new_game(name), tmp_path / "j.jsonl", name=name)
    assert session.state.is_chance_node()
    assert run_terminal(ref) == 3
    assert "Nothing typed: type " in out.getvalue()
    session.close()
    resumed = Session.resume(tmp_path / "j.jsonl")
    assert session.history == [] and resumed.history == []
    resumed.close()


def test_random_still_lays_out_an_eagle_kingdoms_set_up_when_typed():
    ref, session, out = referee("random\n", new_game("eagle-kingdoms"), name="eagle-kingdoms")
    run_terminal(ref)
    assert "['roll' for a random set-up]" in out.getvalue()
    assert session.history and session.history[0]["type"] == "setup"


# --- the end of a game -------------------------------------------------------------------------------
def test_the_end_asks_before_closing_and_undo_takes_back_the_winning_move():
    ref, session, out = referee(WIN + "undo\n2\n")
    assert run_terminal(ref) == 3  # play went on after the undo, then the input ended
    text = out.getvalue()
    assert text.index("Game over.") < text.index("Undo or done?") < text.index("Undid 1 action(s).")
    assert session.state.positions == [7, 1]  # the winning advance undone, a bank played instead
    assert not session.state.is_terminal()


@pytest.mark.parametrize("finish", ["done\n", "\n", "quit\n", ""])
def test_done_enter_quit_or_the_end_of_input_finish_a_won_game(finish):
    ref, session, out = referee(WIN + "what\n" + finish)
    assert run_terminal(ref) == 0
    assert "Refused: the game is over; type 'undo'" in out.getvalue()
    assert session.state.is_terminal() and out.getvalue().rstrip().endswith("Finished.")


def test_a_finished_journal_is_resumed_to_undo_the_winning_move(tmp_path, monkeypatch, capsys):
    journal = tmp_path / "won.jsonl"
    monkeypatch.setattr("sys.stdin", io.StringIO(WIN))
    assert cli.main(["play", "toy-race", "--players", "Ann,Ben", "--journal", str(journal)]) == 0
    assert "--resume opens it again" in capsys.readouterr().out
    finished = Session.resume(journal)
    assert finished.state.is_terminal()
    finished.close()
    monkeypatch.setattr("sys.stdin", io.StringIO("undo\nquit\n"))
    assert cli.main(["play", "toy-race", "--resume", str(journal)]) == 0
    out = capsys.readouterr().out
    assert "Game over." in out and "Undid 1 action(s)." in out
    resumed = Session.resume(journal)
    resumed.close()
    assert not resumed.state.is_terminal() and resumed.state.positions == [6, 1] and len(resumed.history) == 5


def test_auto_games_end_without_a_question():
    ref, session, out = referee("", auto=True, seed=3)
    assert run_terminal(ref) == 0
    assert "Game over." in out.getvalue() and "Undo or done?" not in out.getvalue()


def test_a_falconry_winning_move_typed_wrong_is_undone_at_the_end():
    """Paths of 3 (path_adjust -2): Ann's falconer and bird lie at (0, 0) and (1, 0), so a marker at
    (2, 0) wins; she meant (0, -1)."""
    game = new_game("falconry", options={"path_adjust": -2})
    ref, session, out = referee("place marker 2 0\nundo\nplace marker 0 -1\n", game, name="falconry")
    assert run_terminal(ref) == 3
    text = out.getvalue()
    assert "Winner: P1 (Dusky Hawk)" in text and "Undid 1 action(s)." in text
    assert [a["to"] for a in session.history] == [[0, -1]] and not session.state.is_terminal()


# --- help, per game ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(GAMES))
def test_help_is_the_games_own_with_its_prompts_and_options(name):
    game = new_game(name)
    ref, session, out = referee("help\n", game, name=name)
    run_terminal(ref)
    text = out.getvalue()
    for line in ref.view.typing_help(session.state):
        assert line in text
    assert ref.view.typing_help(session.state) != TextView().typing_help(session.state)
    for option in type(game).options_spec:
        assert f"  {option.name} = " in text and option.accepted() in text
    assert ("This game has no options." in text) == (not type(game).options_spec)
    for variant in type(game).variants:
        assert variant in text.split("Variant (--variant): none (the standard rules) in this game;")[1]
    assert ("'roll' lets the computer roll" in text) == bool(type(game).rolls)


def test_falconry_help_speaks_of_typed_moves_not_dice():
    game = new_game("falconry", mode="truel", options={"first": "P2"})
    ref, _, out = referee("help\n", game, name="falconry")
    run_terminal(ref)
    text = out.getvalue()
    assert "'place marker 2 0'" in text and "'move 0 0 1 1'" in text and "'pass'" in text
    assert "Falconry has no dice" in text and "dice prompt" not in text and "'roll'" not in text
    assert "Mode (--mode): truel in this game; the modes are duel, fast-duel, allied, truel" in text
    assert "first = P2:" in text and "path_adjust = 0:" in text and "diagonals = true:" in text


def test_eagle_kingdoms_help_names_its_prompts_and_the_option_values_of_this_game():
    game = new_game("eagle-kingdoms", variant="party", options={"third_die": "true"})
    ref, _, out = referee("help\n", game, name="eagle-kingdoms")
    run_terminal(ref)
    text = out.getvalue()
    assert "'random' lays the favours out" in text and "three, e.g. '3 5 6'" in text
    assert "Enchanted Die" not in text  # not in the Party Favor game (EK-PARTY-1)
    assert "third_die = true:" in text and "skip_second_try = false:" in text and "Variant (--variant): party in this game" in text


# --- long menus ------------------------------------------------------------------------------------------
def walk(menu: Menu) -> tuple[list[list[str]], dict[int, str]]:
    """Every screen a family can reach (each group opened, each part shown) and the text shown beside
    each number on them."""
    screens, shown = [], {}
    paths = [()] + list(menu.codes)
    for path in paths:
        menu.path, menu.page = path, 0
        for _ in range(menu._part_count()):
            screen = menu.screen("Ann", "hint")
            screens.append(screen)
            for line in screen:
                found = CHOICE.match(line)
                if found:
                    number = int(found.group(1))
                    assert shown.setdefault(number, line[found.end():]) == line[found.end():]
            menu.more()
    return screens, shown


def long_menu_positions(name, count, seed=0, mode=None, limit=400):
    module = load_game(name)
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = new_game(name, mode=mode).new_initial_state()
        for _ in range(rng.randrange(limit)):
            if state.is_terminal():
                break
            if state.is_chance_node():
                state.apply(state.sample_chance(rng))
            else:
                state.apply(module.simulation_policy(state, rng))
        if not state.is_terminal() and not state.is_chance_node() and len(state.legal_actions()) > 3 * SHORT:
            found.append(state)
    return found


@pytest.mark.parametrize("name, mode", [("falconry", "quarrel"), ("eagle-kingdoms", None), ("verzauberte-eulen", None)])
def test_every_choice_of_a_long_menu_is_reachable_with_its_number_on_screens_of_about_twelve_lines(name, mode):
    view = load_game(name).text_view()
    for state in long_menu_positions(name, 2, mode=mode):
        actions = state.legal_actions()
        menu = Menu.build(actions, lambda a, s=state: view.describe_choice(s, a), lambda a, s=state: view.choice_group(s, a))
        screens, shown = walk(menu)
        assert max(len(screen) for screen in screens) <= MOST_LINES
        assert sorted(shown) == list(range(1, len(actions) + 1))  # every number on some screen
        for number, text in shown.items():
            assert text == view.describe_choice(state, menu.actions[number - 1])
        assert sorted(map(str, menu.actions)) == sorted(map(str, actions))  # the same choices, regrouped
        top = menu.screen("Ann")
        assert len(top) <= MOST_LINES and len(menu.numbers_in(())) > 3 * SHORT


def test_a_short_menu_keeps_the_games_order_and_a_long_one_keeps_it_within_groups():
    actions = [{"n": i, "g": "ab"[i % 2]} for i in range(30)]
    short = Menu.build(actions[:SHORT], str, lambda a: (a["g"],))
    assert short.actions == actions[:SHORT] and short.screen("Ann")[0] == "Ann, choose:"
    long = Menu.build(actions, str, lambda a: (a["g"],))
    assert [a["n"] for a in long.actions] == list(range(0, 30, 2)) + list(range(1, 30, 2))
    assert long.codes == {("a",): "a", ("b",): "b"}


def test_numbers_and_letters_stay_put_while_the_family_leafs_through_the_menu():
    actions = [{"to": i, "row": i // 7, "kind": "marker" if i < 60 else "bird"} for i in range(90)]
    menu = Menu.build(actions, lambda a: f"to {a['to']}", lambda a: (a["kind"], f"row {a['row']}"))
    first = menu.screen("Ann")
    assert first[1].strip().startswith("a) marker  (60 choices: 1-60)")
    assert first[2].strip().startswith("b) bird  (30 choices: 61-90)")
    assert menu.open("b") and menu.screen("Ann")[0].startswith("Ann, choose - bird (61-90 of 90 choices")
    menu.open("ab")
    assert [line.strip() for line in menu.screen("Ann")[1:8]] == [f"{n}. to {n - 1}" for n in range(8, 15)]
    assert menu.back() and menu.path == ("marker",)
    assert menu.back() and menu.path == () and not menu.back()
    assert not menu.open("zz") and not menu.open("q") and "q" not in "".join(menu.codes.values())


def at(state, script):
    """A referee at ``state`` (no journal) reading ``script``."""
    session = Session(state.game)
    session.state = state.clone()
    out = io.StringIO()
    ref = TerminalReferee(load_game(state.game.name), session, stdin=io.StringIO(script), stdout=out, coach=False)
    return ref, session, out


def test_the_terminal_opens_groups_shows_more_and_goes_back_on_screens_of_about_twelve_lines():
    state = long_menu_positions("falconry", 1, seed=4, mode="quarrel")[0]
    ref, session, out = at(state, "b\nmore\n\nback\nback\nzz\n")
    assert ref.run() == 3 and session.history == []
    text = out.getvalue()
    screens = [block[block.index("choose"):] for block in text.split("Your choice: ") if "choose" in block]
    assert len(screens) == 3  # the top, group b ('Move a marker': one part, so no more), the top again
    assert screens[0] == screens[2] and "type a group's letter, e.g. 'a', to open it" in screens[0]
    assert "Move a marker (25-142 of 235 choices; type a group's letters, e.g. 'ba', to open it)" in screens[1]
    assert all(len(screen.splitlines()) <= MOST_LINES for screen in screens)
    assert "That is the whole list ('back'" in text and "Nothing typed" in text and "This is the top" in text
    assert "Refused: Type e.g. 'place marker 2 0'" in text  # 'zz' is no group: read as a move, refused


@pytest.mark.parametrize("opened", ["", "a\n", "b\nmore\n"])
def test_any_number_works_from_any_screen(opened):
    state = long_menu_positions("falconry", 1, seed=4, mode="quarrel")[0]
    menu = at(state, "")[0]
    menu.run()
    last = len(menu._menu.actions)  # never on the first screen
    ref, session, _ = at(state, f"{opened}{last}\n")
    ref.run()
    assert session.history == [menu._menu.actions[last - 1]]


def test_a_typed_falconry_move_works_while_a_group_is_open():
    state = long_menu_positions("falconry", 1, seed=4, mode="quarrel")[0]
    place = next(a for a in state.legal_actions() if a["type"] == "place")
    ref, session, _ = at(state, f"b\nmore\nplace {place['kind']} {place['to'][0]} {place['to'][1]}\n")
    ref.run()
    assert session.history == [place]


def test_a_place_with_more_groups_side_by_side_than_letters_is_listed_in_parts():
    actions = [{"n": i} for i in range(60)]
    menu = Menu.build(actions, lambda a: f"choice {a['n']}", lambda a: (f"group {a['n'] // 2}",))
    assert menu.codes == {}
    screens, shown = walk(menu)
    assert len(screens) == 7 and sorted(shown) == list(range(1, 61))
    assert all(len(screen) <= MOST_LINES for screen in screens)


def test_enter_shows_the_next_part_only_of_a_list_in_parts():
    actions = [{"n": i} for i in range(40)]
    menu = Menu.build(actions, lambda a: f"choice {a['n']}", lambda a: ())
    assert menu.has_more() and menu.in_parts()
    assert "part 1 of 5" in menu.screen("Ann")[-1]
    for _ in range(4):
        menu.more()
    assert not menu.has_more() and "Part 5 of 5" in menu.screen("Ann")[-1]
    menu.more()
    assert menu.page == 0 and len(menu.screen("Ann")) == PAGE + 2
