"""The terminal referee: one generic loop over any game's state, text view and journal."""

from __future__ import annotations

import random
import sys
import time
from typing import TextIO

from companion.games.core import GameError, State
from companion.games.registry import GameModule
from companion.journal import Session

HELP = (
    "Type the number of a choice; at a roll prompt type the dice (or 'roll' to let the computer roll).\n"
    "Other commands: 'undo' (or 'undo 3'), 'board', 'help', 'quit' (the journal keeps the game)."
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

    def say(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def ask(self, prompt: str) -> str | None:
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
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
                last_drawn = None
                continue
            if action == "again":
                continue
            try:
                text = self.session.apply(action)
            except GameError as exc:
                self.say(f"Refused: {exc}")
                continue
            self.say(f"> {text}")
            if self.auto and self.delay:
                time.sleep(self.delay)

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
            command = self.command(reply)
            if command is not None:
                return command
            if reply.lower() in {"roll", "r", ""}:
                return state.sample_chance(self.rng)
            try:
                return self.view.parse_chance(state, reply)
            except GameError as exc:
                self.say(f"Refused: {exc}")
                return "again"
        actions = state.legal_actions()
        self.say(f"{state.player_name(state.current_player)}, choose:")
        for number, action in enumerate(actions, start=1):
            self.say(f"  {number:>2}. {self.view.describe_choice(state, action)}")
        only = len(actions) == 1
        reply = self.ask("Press Enter to confirm: " if only else "Your choice: ")
        if reply is None:
            return None
        command = self.command(reply)
        if command is not None:
            return command
        if only and reply == "":
            return actions[0]
        if reply.isdigit():
            if not 1 <= int(reply) <= len(actions):
                self.say(f"Refused: type a number from 1 to {len(actions)} (or 'help'); got {reply!r}.")
                return "again"
            return actions[int(reply) - 1]
        try:  # a move typed in the game's own notation
            return self.view.parse_action(state, reply)
        except GameError as exc:
            self.say(f"Refused: {exc}")
            return "again"

    def command(self, reply: str):
        words = reply.lower().split()
        if not words:
            return None
        if words[0] in {"quit", "exit", "q"}:
            raise _Quit
        if words[0] == "help":
            self.say(HELP)
            return "again"
        if words[0] == "board":
            return "redraw"
        if words[0] == "undo":
            count = 1
            if len(words) > 1:
                if not words[1].isdigit():
                    self.say("Refused: 'undo' takes a number of actions, e.g. 'undo 2'.")
                    return "again"
                count = int(words[1])
            undone = self.session.undo(count)
            self.say(f"Undid {undone} action(s)." if undone else "Nothing to undo.")
            return "redraw"
        return None


class _Quit(Exception):
    pass


def run_terminal(referee: TerminalReferee) -> int:
    try:
        return referee.run()
    except _Quit:
        if referee.session.journal:
            referee.say(f"Saved in {referee.session.journal.path}; continue with --resume.")
        return 0
