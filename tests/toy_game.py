"""A tiny dice race used to test the engine core, journal and terminal loop without a real game.

Each turn: a chance step rolls one d6, then the player either advances by the roll or
banks one point. First to reach 10 wins. Rule IDs use the prefix TOY.
"""

from __future__ import annotations

from companion.games.core import (
    CHANCE,
    D6_FACES,
    TERMINAL,
    ChanceRequest,
    Die,
    Game,
    IllegalAction,
    InvalidAction,
    Option,
    State,
    parse_int_list,
)
from companion.games.text import TextView

GOAL = 10


class ToyGame(Game):
    name = "toy-race"
    title = "Toy race"
    rule_prefix = "TOY"
    min_players = 1
    max_players = 3
    max_actions = 500
    rolls = {"roll": (Die("d6", D6_FACES),)}
    options_spec = (Option("goal", "int", GOAL, "points to win", minimum=1), Option("label", "text", "", "a free label"))

    def new_initial_state(self) -> ToyState:
        return ToyState(self)


class ToyState(State):
    def __init__(self, game: ToyGame):
        super().__init__(game)
        self.positions = [0] * game.num_players
        self.player = 0
        self.roll: int | None = None
        self.turns = 0

    @property
    def current_player(self) -> int:
        if self.is_terminal():
            return TERMINAL
        return CHANCE if self.roll is None else self.player

    def is_terminal(self) -> bool:
        return max(self.positions) >= GOAL

    @property
    def turn_number(self) -> int:
        return self.turns

    def legal_actions(self):
        if self.is_terminal():
            return []
        if self.roll is None:
            return [{"type": "roll", "dice": [v]} for v in range(1, 7)]
        return [{"type": "advance"}, {"type": "bank"}]

    def chance_request(self):
        return ChanceRequest.for_dice(self.game.rolls["roll"], "Roll the die", "4") if self.roll is None else None

    def _chance_action(self, faces):
        return {"type": "roll", "dice": list(faces)}

    def problem(self, action):
        if action in self.legal_actions():
            return None
        if action.get("type") == "roll":
            if self.roll is not None:
                return IllegalAction("TOY-ROLL", "The die was already rolled this turn.", action)
            return InvalidAction("A d6 shows 1-6.", "TOY-ROLL")
        if self.roll is None:
            return IllegalAction("TOY-ROLL", "Roll the die first.", action)
        return IllegalAction("TOY-CHOICE", "Choose 'advance' or 'bank'.", action)

    def _apply(self, action):
        if action["type"] == "roll":
            self.roll = action["dice"][0]
            self.turns += 1
            return
        self.positions[self.player] += self.roll if action["type"] == "advance" else 1
        self.roll = None
        self.player = (self.player + 1) % self.game.num_players

    def action_to_string(self, action):
        if action["type"] == "roll":
            return f"Roll: {action['dice'][0]}"
        return f"{self.game.players[self.player]} {action['type']}s"

    def scores(self):
        return [float(p) for p in self.positions]

    def winners(self):
        return [i for i, p in enumerate(self.positions) if p >= GOAL]

    def check_invariants(self):
        return [f"negative position {p}" for p in self.positions if p < 0]

    def to_json(self):
        return {"positions": list(self.positions), "player": self.player, "roll": self.roll, "turns": self.turns}

    @classmethod
    def from_json(cls, game, data):
        state = cls(game)
        state.positions = list(data["positions"])
        state.player = data["player"]
        state.roll = data["roll"]
        state.turns = data["turns"]
        return state


class ToyView(TextView):
    def render(self, state):
        return "Positions: " + ", ".join(f"{n}={p}" for n, p in zip(state.game.players, state.positions, strict=True))

    def parse_chance(self, state, text):
        return {"type": "roll", "dice": parse_int_list(text, 1)}


GAME = ToyGame
TEXT_VIEW = ToyView
