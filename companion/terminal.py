"""The terminal referee: one generic loop over any game's state, text view and journal."""

from __future__ import annotations

import random
import sys
import time
from typing import TextIO

from companion.games.core import GameError, State
from companion.games.registry import GameModule
from companion.inputs import InputError, ascii_int, typed_problem
from companion.journal import JournalError, Session

HELP = (
    "Type the number of a choice; at a roll prompt type the dice (or 'roll' to let the computer roll).\n"
    "Other commands: 'undo' (or 'undo 3'), 'board' (the board and the choices again), 'help',\n"
    "'quit' (the journal keeps the game)."
)


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
        self._menu_for: State | None = None  # the position whose choices were listed last
        """Lines a game's parser failed on with something other than a plain refusal (a bug to fix; the
        family only sees 'Refused'). The fuzz tests require it to stay 0."""

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
        if state.is_chance_node():
            return state.sample_chance(self.rng)
        policy = self.module.simulation_policy
        return policy(state, self.rng) if policy else self.rng.choice(state.legal_actions())

    def run(self) -> int:
        """Play until the game ends; returns the process exit code."""
        for warning in self.session.warnings:
            self.say(f"Warning: {warning}")
        last_drawn = None
        while True:
            state = self.session.state
            if state.is_terminal():
                self.say(self.view.render(state))
                self.say()
                self.say("Game over.")
                self.say(self.view.final_table(state))
                return 0
            if last_drawn != len(self.session.history):
                self.say()
                self.say(self.view.render(state))
                last_drawn = len(self.session.history)
                if self.coach:  # once per position: some coaches enumerate many plans
                    for line in self.view.coach(state):
                        self.say(f"  Coach: {line}")
            action = self.next_action(state)
            if action is None:
                if self.session.journal:
                    self.say(f"Stopped. The game so far is saved in {self.session.journal.path}; continue it with --resume.")
                else:
                    self.say("Stopped before the end of the game (no journal was kept).")
                return 3
            if action == "redraw":
                last_drawn = self._menu_for = None
                continue
            if action == "again":
                continue
            if isinstance(action, JournalError):
                return self.stop_unsaved(action)
            try:
                text = self.session.apply(action)
            except GameError as exc:
                self.say(f"Refused: {exc}")
                continue
            except JournalError as exc:  # the disk is full or gone: nothing was applied
                return self.stop_unsaved(exc)
            self.say(f"> {text}")
            if self.auto and self.delay:
                time.sleep(self.delay)

    def stop_unsaved(self, error: JournalError) -> int:
        self.say(f"Not saved: {error}")
        self.say("Stopped: the game so far is in the journal; free some space (or fix the file) and continue it "
                 "with --resume.")
        return 1

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

    def next_action(self, state: State):
        """The next action, or 'again'/'redraw' after a command, or None to stop."""
        if self.auto:
            return self.choose_auto(state)
        if state.is_chance_node():
            request = state.chance_request()
            hint = f" (e.g. {request.example})" if request and request.example else ""
            prompt = (request.prompt if request else "Chance") + hint + " ['roll' to roll for you]: "
            reply = self.ask(prompt)
            if reply is None:
                return None
            if self.refused(reply):
                return "again"
            command = self.command(reply)
            if command is not None:
                return command
            if reply.lower() in {"roll", "r", ""}:
                return state.sample_chance(self.rng)
            return self.parse(self.view.parse_chance, state, reply)
        actions = state.legal_actions()
        if self._menu_for is not state:  # once per position (a menu can be hundreds of lines); 'board' shows it again
            self._menu_for = state
            self.say(f"{state.player_name(state.current_player)}, choose:")
            for number, action in enumerate(actions, start=1):
                self.say(f"  {number:>2}. {self.view.describe_choice(state, action)}")
        only = len(actions) == 1
        reply = self.ask("Press Enter to confirm: " if only else "Your choice: ")
        if reply is None:
            return None
        if self.refused(reply):
            return "again"
        command = self.command(reply)
        if command is not None:
            return command
        if only and reply == "":
            return actions[0]
        if reply.isascii() and reply.isdigit():
            if not 1 <= int(reply) <= len(actions):
                self.say(f"Refused: type a number from 1 to {len(actions)} (or 'help'); got {reply!r}.")
                return "again"
            return actions[int(reply) - 1]
        return self.parse(self.view.parse_action, state, reply)  # a move typed in the game's own notation

    def command(self, reply: str):
        words = reply.lower().split()
        if not words:
            return None
        if words[0] in {"quit", "exit", "q"}:
            raise _Quit
        if words[0] == "help":
            self.say(HELP)
            self._menu_for = None
            return "again"
        if words[0] == "board":
            return "redraw"
        if words[0] == "undo":
            return self.undo(words[1:])
        return None


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


class _Quit(Exception):
    pass


def run_terminal(referee: TerminalReferee) -> int:
    try:
        return referee.run()
    except _Quit:
        if referee.session.journal:
            referee.say(f"Saved in {referee.session.journal.path}; continue with --resume.")
        return 0
