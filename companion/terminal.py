"""The terminal referee: one generic loop over any game's state, text view and journal.

Only what the family types moves the game: at a dice prompt an empty line rolls nothing ('roll' lets
the computer roll); the end of a game asks before closing, so a winning move typed wrong can be undone
(also later: ``--resume`` reopens a finished journal); long menus are grouped and shown a part at a
time (:mod:`companion.menu`); ``help`` is the game's own (its view's ``typing_help`` and its options).
"""

from __future__ import annotations

import random
import sys
import time
from typing import Any, TextIO

from companion.games import playout
from companion.games.core import Game, GameError, Option, State
from companion.games.registry import GameModule
from companion.inputs import InputError, ascii_int, typed_problem
from companion.journal import JournalError, Session
from companion.menu import Menu

COMMANDS = [
    "At any prompt: 'undo' takes back the last action ('undo 3': the last three), 'board' shows the",
    "  table and the choices again, 'help' this text, 'quit' stops (the journal keeps the game; go on",
    "  with --resume).",
    "When the game is over: 'undo' takes back the last move (one typed wrong) and play goes on; 'done'",
    "  (or Enter) finishes.",
]
LONG_MENUS = [
    "In a long list of choices: a group's letter opens the group, 'more' (or Enter) shows the next part,",
    "  'back' the list above; every number can be typed at any time.",
]
ROLL_WORDS = [
    "At a dice or set-up prompt, 'roll' lets the computer roll (or lay out a random set-up): only when",
    "  the real dice are not at hand, as what it rolls is recorded as the game's. An empty line rolls nothing.",
]
FINISH_WORDS = {"done", "finish", "end", "quit", "exit", "q"}


class TerminalReferee:
    def __init__(
        self,
        module: GameModule,
        session: Session,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        auto: bool = False,
        seed: int | None = None,
        delay: float = 0.0,
        coach: bool = True,
    ):
        self.module = module
        self.session = session
        self.view = module.text_view()
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.auto = auto
        self.rng = random.Random(seed)
        self.delay = delay
        self.coach = coach
        self.unreadable = 0
        """Lines a game's parser failed on with something other than a plain refusal (a bug to fix; the
        family only sees 'Refused'). The fuzz tests require it to stay 0."""
        self._menu_for: State | None = None  # the position whose choices were listed last
        self._menu: Menu | None = None
        self._reshow = False  # list the choices again ('board')

    def say(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def ask(self, prompt: str) -> str | None:
        """The next typed line (stripped), "" after a refused one, or None at the end of input."""
        self.stdout.write(prompt)
        self.stdout.flush()
        try:
            line = self.stdin.readline()
        except UnicodeDecodeError:  # a stream that cannot stand in for bad bytes (see cli._tolerate_bad_text)
            self.say("Refused: that line is not valid text (UTF-8); type it again.")
            return ""
        if not line:
            return None
        return line.strip()

    def choose_auto(self, state: State):
        """The computer's next action under --auto: the same draw as a simulated game's."""
        return playout.next_action(state, self.rng, self.module.simulation_policy)

    def run(self) -> int:
        """Play until the game ends and the family is done with it; returns the process exit code."""
        for warning in self.session.warnings:
            self.say(f"Warning: {warning}")
        last_drawn = None
        while True:
            state = self.session.state
            if state.is_terminal():
                finished = self.finish(state)
                if finished is not None:
                    return finished
                last_drawn = self._menu_for = None  # undone: play goes on
                continue
            if last_drawn != len(self.session.history):
                self._draw_position(state)
                last_drawn = len(self.session.history)
            action = self.next_action(state)
            if action is None:
                return self._stop_unfinished()
            if action == "redraw":  # the board again, and the choices from the top
                last_drawn = None
                self._menu_from_top()
                continue
            if action == "again":
                continue
            code = self._make(action)
            if code is not None:
                return code

    def _draw_position(self, state: State) -> None:
        self.say()
        self.say(self.view.render(state))
        if self.coach:  # once per position: some coaches enumerate many plans
            for line in self.view.coach(state):
                self.say(f"  Coach: {line}")

    def _stop_unfinished(self) -> int:
        if self.session.journal:
            self.say(f"Stopped. The game so far is saved in {self.session.journal.path}; continue it with --resume.")
        else:
            self.say("Stopped before the end of the game (no journal was kept).")
        return 3

    def _menu_from_top(self) -> None:
        if self._menu is not None and self._menu_for is self.session.state:
            self._menu.top()
            self._reshow = True

    def _make(self, action: Any) -> int | None:
        """Apply and journal ``action`` (or say why not); the exit code when play cannot go on."""
        if isinstance(action, JournalError):
            return self.stop_unsaved(action)
        try:
            text = self.session.apply(action)
        except GameError as exc:
            self.say(f"Refused: {exc}")
            return None
        except JournalError as exc:  # the disk is full or gone: nothing was applied
            return self.stop_unsaved(exc)
        self.say(f"> {text}")
        if self.auto and self.delay:
            time.sleep(self.delay)
        return None

    def stop_unsaved(self, error: JournalError) -> int:
        self.say(f"Not saved: {error}")
        self.say("Stopped: the game so far is in the journal; free some space (or fix the file) and continue it "
                 "with --resume.")
        return 1

    # --- the end ----------------------------------------------------------------------------------------
    def finish(self, state: State) -> int | None:
        """Show the result, then (unless --auto) ask whether to undo or finish: the exit code when finished,
        None when actions were undone and play goes on."""
        self.say(self.view.render(state))
        self.say()
        self.say("Game over.")
        self.say(self.view.final_table(state))
        if self.auto:
            return 0
        self.say("If the last move was typed wrong, 'undo' takes it back and play goes on; 'done' (or Enter) "
                 "finishes.")
        while True:
            reply = self.ask("Undo or done? ")
            if reply is None:
                return self.finished()
            if self.refused(reply):
                continue
            words = reply.lower().split()
            if not words or words[0] in FINISH_WORDS:
                return self.finished()
            if words[0] == "undo":
                result = self.undo(words[1:])
                if isinstance(result, JournalError):
                    return self.stop_unsaved(result)
                if result == "redraw":
                    return None
            elif words[0] == "board":
                self.say(self.view.render(state))
                self.say(self.view.final_table(state))
            elif words[0] == "help":
                self.say(self.help_text(state))
            else:
                self.say(f"Refused: the game is over; type 'undo' to take back the last move, or 'done'; got {reply!r}.")

    def finished(self) -> int:
        if self.session.journal:
            self.say(f"Finished. The game is saved in {self.session.journal.path}; --resume opens it again "
                     "(to undo the end).")
        else:
            self.say("Finished.")
        return 0

    # --- reading a line ---------------------------------------------------------------------------------
    def refused(self, reply: str) -> bool:
        """Say why a typed line cannot be read at all (True), before any parser sees it."""
        problem = typed_problem(reply)
        if problem:
            self.say(f"Refused: {problem}")
        return problem is not None

    def parse(self, parser, state: State, reply: str):
        """A game's parser on a typed line; a refusal is said and 'again' returned."""
        try:
            return parser(state, reply)
        except GameError as exc:
            self.say(f"Refused: {exc}")
        except Exception:  # a parser bug must not end the game; counted so the tests catch it
            self.unreadable += 1
            self.say(f"Refused: {reply!r} cannot be read here; type 'help' for what to type.")
        return "again"

    def typed(self, prompt: str, state: State) -> tuple[str | None, Any]:
        """The next typed line to read as a move, or (None, what to return instead): None at the end of
        input, 'again' after a line refused as it stands, a command's result ('redraw', ...)."""
        reply = self.ask(prompt)
        if reply is None:
            return None, None
        if self.refused(reply):
            return None, "again"
        command = self.command(reply, state)
        if command is not None:
            return None, command
        return reply, None

    def next_action(self, state: State):
        """The next action, or 'again'/'redraw' after a command, or None to stop."""
        if self.auto:
            return self.choose_auto(state)
        if state.is_chance_node():
            return self.next_outcome(state)
        return self.next_choice(state)

    def next_outcome(self, state: State):
        """What the dice (or the set-up) on the table show, typed; 'roll' lets the computer roll."""
        request = state.chance_request()
        example = request.example if request and request.example else ""
        hint = f" (e.g. {example})" if example else ""
        setup = request is not None and request.kind == "setup"
        prompt = (request.prompt if request else "Chance") + hint
        reply, instead = self.typed(prompt + (" ['roll' for a random set-up]: " if setup else " ['roll' to roll for you]: "), state)
        if reply is None:
            return instead
        if reply == "":
            what = "the set-up" if setup else "the dice as they lie on the table"
            shown = f", e.g. '{example}'" if example else ""
            roll = "'roll' lays out a random set-up" if setup else "'roll' lets the computer roll"
            self.say(f"Nothing typed: type {what}{shown}; {roll}, 'help' says more.")
            return "again"
        if reply.lower() == "roll":
            return state.sample_chance(self.rng)
        return self.parse(self.view.parse_chance, state, reply)

    def next_choice(self, state: State):
        """A numbered choice, a group of a long menu opened, or a move typed in the game's notation."""
        if self._menu_for is not state or self._menu is None:  # once per position; 'board' shows it again
            self._menu_for = state
            self._menu = Menu.build(state.legal_actions(), lambda a: self.view.describe_choice(state, a),
                                    lambda a: self.view.choice_group(state, a))
            self.show_menu(state)
        elif self._reshow:
            self.show_menu(state)
        self._reshow = False
        menu = self._menu
        only = len(menu.actions) == 1
        reply, instead = self.typed("Press Enter to confirm: " if only else "Your choice: ", state)
        if reply is None:
            return instead
        if only and reply == "":
            return menu.actions[0]
        word = reply.lower()
        if word == "more" or reply == "" and menu.has_more():
            if not menu.in_parts():
                self.say("That is the whole list" + (" ('back' for the list above)." if menu.path else "."))
                return "again"
            menu.more()
            return self.show_menu(state)
        if word == "back":
            if not menu.back():
                self.say("This is the top of the list" + ("; a group's letter opens a group." if menu.is_long() else "."))
                return "again"
            return self.show_menu(state)
        if menu.open(word):
            return self.show_menu(state)
        if reply == "":
            self.say("Nothing typed: type the number of a choice ('help' says what else you can type).")
            return "again"
        if reply.isascii() and reply.isdigit():
            if not 1 <= int(reply) <= len(menu.actions):
                self.say(f"Refused: type a number from 1 to {len(menu.actions)} (or 'help'); got {reply!r}.")
                return "again"
            return menu.actions[int(reply) - 1]
        return self.parse(self.view.parse_action, state, reply)  # a move typed in the game's own notation

    def show_menu(self, state: State) -> str:
        assert self._menu is not None
        for line in self._menu.screen(state.player_name(state.current_player), self.view.menu_hint(state)):
            self.say(line)
        return "again"

    # --- commands ---------------------------------------------------------------------------------------
    def command(self, reply: str, state: State):
        words = reply.lower().split()
        if not words:
            return None
        if words[0] in {"quit", "exit", "q"}:
            raise _Quit
        if words[0] == "help":
            self.say(self.help_text(state))
            if self._menu is not None and self._menu_for is state:
                self.show_menu(state)
            return "again"
        if words[0] == "board":
            return "redraw"
        if words[0] == "undo":
            return self.undo(words[1:])
        return None

    def help_text(self, state: State) -> str:
        """This game's help: what to type at each of its prompts, the commands, and its options."""
        game = self.session.game
        lines = [f"Help - {game.title or game.name}: what you can type"]
        lines += self.view.typing_help(state)
        if type(game).rolls:
            lines += ROLL_WORDS
        lines += LONG_MENUS + COMMANDS
        lines += options_help(game)
        return "\n".join(lines)

    def undo(self, words: list[str]):
        done = len(self.session.history)
        if not done:
            self.say("Nothing to undo.")
            return "again"
        count = 1
        if len(words) > 1:
            self.say("Refused: 'undo' takes one number of actions, e.g. 'undo 2'.")
            return "again"
        if words:
            try:
                count = ascii_int(words[0], "'undo' takes a number of actions", 1, done)
            except InputError as exc:
                self.say(f"Refused: {exc}")
                return "again"
        try:
            undone = self.session.undo(count)
        except JournalError as exc:
            return exc
        self.say(f"Undid {undone} action(s).")
        return "redraw"


def options_help(game: Game) -> list[str]:
    """The game's modes, variants and options, each with its value in this game and what it accepts."""
    lines = []
    if game.modes:
        lines.append(f"Mode (--mode): {game.mode} in this game; the modes are {', '.join(game.modes)}.")
    if game.variants:
        lines.append(f"Variant (--variant): {game.variant or 'none (the standard rules)'} in this game; the variants "
                     f"are {', '.join(game.variants)}.")
    if not game.options_spec:
        return lines + ["This game has no options."]
    lines.append("Options (chosen when a game starts, e.g. --option name=value; this game's value first):")
    for option in game.options_spec:
        lines.append(f"  {option.name} = {option_value(option, game.option(option.name), game)}: {option.help}; "
                     f"{option.accepted()}.")
    return lines


def option_value(option: Option, value: Any, game: Game) -> str:
    if value is None:
        return "(not set)"
    if option.kind == "bool":
        return "true" if value else "false"
    if option.kind == "player" and isinstance(value, int) and 0 <= value < len(game.players):
        return game.players[value]
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    return str(value)


class _Quit(Exception):
    pass


def run_terminal(referee: TerminalReferee) -> int:
    try:
        return referee.run()
    except _Quit:
        if referee.session.journal:
            referee.say(f"Saved in {referee.session.journal.path}; continue with --resume.")
        return 0
