"""Base class of a game's terminal view: drawing, parsing typed chance outcomes, coaching.

The generic terminal loop (``companion.terminal``) numbers the legal actions,
handles undo/quit/help and the journal; a game only says how its state looks as
text, how a typed roll becomes a chance action, and what the coach says.
"""

from __future__ import annotations

from companion.games.core import Action, InvalidAction, State


class TextView:
    """Override what the game needs; the defaults work for any state."""

    def render(self, state: State) -> str:
        """The board/table as text plus whose turn it is and the running scores."""
        return self.scores_line(state)

    def scores_line(self, state: State) -> str:
        parts = [f"{name} {score:g}" for name, score in zip(state.game.players, state.scores(), strict=True)]
        return "Scores: " + ", ".join(parts)

    def parse_chance(self, state: State, text: str) -> Action:
        """Turn typed input (e.g. ``"3 5"``) into the chance action the state waits for.

        Raise :class:`InvalidAction` with a one-line reason for input that is not an outcome.
        """
        raise InvalidAction("This game cannot read typed outcomes here; type 'roll' to let the computer roll.")

    def parse_action(self, state: State, text: str) -> Action:
        """A decision typed in the game's notation instead of a menu number (optional)."""
        raise InvalidAction(f"Type the number of a choice (or 'help'); got {text!r}.")

    def coach(self, state: State) -> list[str]:
        """Advice lines shown with the prompt (chances, threats, best choice)."""
        return []

    def describe_choice(self, state: State, action: Action) -> str:
        """Menu text for one legal action; defaults to the state's description."""
        return state.action_to_string(action)

    def choice_group(self, state: State, action: Action) -> tuple[str, ...]:
        """Where a choice goes in a long menu (asked only when a position has many): group labels from
        the outermost, e.g. ``("Trade with Ben", "for Ben's King (10)")``; ``()`` lists it at the top."""
        return ()

    def menu_hint(self, state: State) -> str:
        """One line under a long menu: the game's quicker way than leafing through it, or ``""``."""
        return ""

    def typing_help(self, state: State) -> list[str]:
        """What can be typed at each kind of prompt of this game, a line or two each ('help')."""
        return ["At a choice: the number of a choice."]

    def final_table(self, state: State) -> str:
        """Final scores with the game's breakdown; default: scores and winners."""
        winners = ", ".join(state.game.players[i] for i in state.winners()) or "nobody"
        return self.scores_line(state) + f"\nWinner: {winners}"
