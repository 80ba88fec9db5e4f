"""Verzauberte Eulen in the terminal: the board as letters, typed rolls, and the coach.

An owl is drawn as its head letter (upper case) and body letter (lower case):
``Rb`` is a red head on a blue body, ``Kk`` the black owl. Letters only, so the
board reads the same without colour.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from companion.games.core import Action, InvalidAction, State
from companion.games.text import TextView
from companion.games.verzauberte_eulen.rules import BLACK, DICE, EulenState, Move, owl_code

CELL = 6
PLAN_LIMIT = 20_000
"""The coach stops enumerating a turn's plans after this many (it says so)."""
SHOWN_PLANS = 6


@dataclass
class Step:
    """One use of a die inside a plan, with what it achieves."""

    action: Action
    text: str
    marks: list[str] = field(default_factory=list)


@dataclass
class Plan:
    steps: list[Step]
    final: EulenState

    @property
    def marks(self) -> list[str]:
        return [m for s in self.steps for m in s.marks]


def move_marks(state: EulenState, move: Move) -> list[str]:
    """'enters the cave', 'completes Rr', 'hands the black head to Ben' for one move, seen before it."""
    _, _, body, to, other = move
    lay = state.lay
    marks = []
    if to == state.board.cave:
        marks.append(f"{state.owl(body)} enters the cave")
        return marks
    if other < 0:
        return marks
    cb, co = lay.body_colour[body], lay.body_colour[other]
    hb, ho = state.head[body], state.head[other]
    for new_head, body_colour, old_head in ((ho, cb, hb), (hb, co, ho)):
        if new_head == body_colour != BLACK and old_head != body_colour:
            owner = lay.owner(body_colour)
            whose = f" for {state.player_name(owner)}" if owner >= 0 and owner != state.to_move else ""
            marks.append(f"completes {owl_code(new_head, body_colour)}{whose}")
    for new_head, body_colour in ((ho, cb), (hb, co)):
        owner = lay.owner(body_colour)
        if new_head == BLACK and owner >= 0 and owner != state.to_move:
            marks.append(f"hands the black head to {state.player_name(owner)}")
    return marks


def plans(state: EulenState, limit: int = PLAN_LIMIT) -> tuple[list[Plan], bool]:
    """Every legal way to use the dice still to be used this turn; True when ``limit`` cut it short."""
    found: list[Plan] = []

    def walk(here: EulenState, steps: list[Step]) -> bool:
        if len(found) >= limit:
            return False
        if here.is_terminal() or here.is_chance_node():
            found.append(Plan(steps, here))
            return True
        for die in here.usable_dice():
            moves = here.moves(die)
            options = [(here.move_action(m), here.describe_move(m), move_marks(here, m)) for m in moves]
            if not options:
                options = [({"type": "forfeit", "die": die}, f"{die} die {here.dice[die]} forfeited", [])]  # type: ignore[index]
            for action, text, marks in options:
                nxt = here.clone()
                nxt.apply_unchecked(action)
                if not walk(nxt, steps + [Step(action, text, marks)]):
                    return False
        return True

    complete = walk(state, [])
    return found, not complete


class EulenTextView(TextView):
    def render(self, state: State) -> str:
        assert isinstance(state, EulenState)
        b, lay = state.board, state.lay
        owls: dict[int, list[str]] = {}
        for i, s in enumerate(state.space):
            if s >= 0:
                owls.setdefault(s, []).append(state.owl(i))
        at_cell = {cell: s for s, cell in enumerate(b.cell)}
        width = 1 + max(c for c, _ in b.cell)
        height = 1 + max(r for _, r in b.cell)
        lines = [f"Verzauberte Eulen - turn {state.turn}"]
        header = "     "
        for col in range(width):
            header += (b.ids[at_cell[(col, 0)]][0] if col % 2 == 0 and (col, 0) in at_cell else "").center(CELL)
        lines.append(header.rstrip())
        for row in range(height):
            label = b.ids[at_cell[(0, row)]][1:] if row % 2 == 0 and (0, row) in at_cell else ""
            text = f"  {label:>2} "
            for col in range(width):
                s = at_cell.get((col, row))
                text += self._cell(state, s, owls.get(s, []), col, row).center(CELL)
            lines.append(text.rstrip())
        for player in range(state.game.num_players):
            nests = " / ".join(
                f"{b.describe(n)}: {' '.join(sorted(owls.get(n, []))) or 'empty'}" for n in lay.player_nests[player]
            )
            lines.append(f"Nest of {state.player_name(player)}: {nests}")
        lines.append(f"Cave: {' '.join(sorted(owls.get(b.cave, []))) or 'empty'}")
        key = ", ".join(f"{k} {lay.letter_to_name[k]}" for k in (*lay.colours_in_play, BLACK))
        lines.append(
            f"Key: owl = head letter + body letter ({key}); Rb = red head on a blue body; N4 = nest, C1 = cave, with their number of owls."
        )
        lines.append(self.players_line(state))
        lines.append(self.turn_line(state))
        return "\n".join(lines)

    @staticmethod
    def _cell(state: EulenState, space: int | None, here: list[str], col: int, row: int) -> str:
        if space is None:
            return ""
        kind = state.board.kind[space]
        if kind == "nest":
            return f"N{len(here)}"
        if kind == "cave":
            return f"C{len(here)}"
        if here:
            return "".join(sorted(here))
        if kind == "crossing":
            return "+"
        return "-" if row % 2 == 0 else "|"

    def players_line(self, state: EulenState) -> str:
        parts = []
        for player in range(state.game.num_players):
            colours = state._colours_text(player)
            text = f"{state.player_name(player)} ({colours}): {state.cave_count(player)}/{state.lay.target} in the cave"
            if state.black_on(player):
                text += ", black part on own colour"
            parts.append(text)
        return "Players: " + "; ".join(parts)

    def turn_line(self, state: EulenState) -> str:
        if state.is_terminal():
            return f"{state.player_name(state.winner)} has won."  # type: ignore[arg-type]
        name = state.player_name(state.to_move)
        if state.dice is None:
            return f"{name} to roll the head, body and eye dice."
        rolled = ", ".join(f"{d} {state.dice[d]}" for d in DICE)
        return f"{name} rolled {rolled}; still to use: {state.dice_left_text()} (head and body in any order, eye last)."

    def parse_chance(self, state: State, text: str) -> Action:
        if not state.is_chance_node():
            raise InvalidAction("No roll is expected now: choose a move from the list.", "VE-TURN-ROLL")
        hint = "type the head, body and black eye dice in that order, e.g. '3 5 1'"
        words = text.replace(",", " ").replace("+", " ").split()
        if len(words) == 1 and len(words[0]) == 3 and words[0].isdigit():
            words = list(words[0])
        if len(words) != 3 or not all(w.isdigit() for w in words):
            raise InvalidAction(f"Three dice are rolled: {hint}; got {text!r}.", "VE-COMP-DICE")
        head, body, eye = (int(w) for w in words)
        for die, value in zip(DICE, (head, body, eye), strict=True):
            if not 1 <= value <= 6:
                raise InvalidAction(f"The {die} die shows 1-6; {value} is not a face ({hint}).", "VE-COMP-DICE")
        return {"type": "roll", "head": head, "body": body, "eye": eye}

    def describe_choice(self, state: State, action: Action) -> str:
        text = state.action_to_string(action)
        if isinstance(state, EulenState) and action.get("type") == "move":
            move = self._as_move(state, action)
            if move is not None:
                marks = move_marks(state, move)
                if marks:
                    text += "  [" + "; ".join(marks) + "]"
        return text

    @staticmethod
    def _as_move(state: EulenState, action: Action) -> Move | None:
        for move in state.moves(action["die"]):
            if state.move_action(move) == action:
                return move
        return None

    def coach(self, state: State) -> list[str]:
        assert isinstance(state, EulenState)
        if state.is_terminal():
            return []
        if state.is_chance_node():
            return self._roll_hints(state)
        found, cut = plans(state)
        finals = {repr(p.final.to_json()) for p in found}
        count = f"at least {len(found)}" if cut else str(len(found))
        lines = [f"{count} legal way(s) to use {state.dice_left_text()} ({len(finals)} different end positions)."]
        mover = state.to_move

        def merit(plan: Plan) -> tuple:
            final = plan.final
            return (
                final.winner == mover,
                final.cave_count(mover) - state.cave_count(mover),
                sum(1 for m in plan.marks if m.startswith("completes") and " for " not in m),
                len(state.black_on(mover)) - len(final.black_on(mover)),
                sum(1 for m in plan.marks if m.startswith("hands")),
            )

        marked = sorted((p for p in found if p.marks or p.final.winner == mover), key=merit, reverse=True)
        for plan in marked[:SHOWN_PLANS]:
            tag = "WINS: " if plan.final.winner == mover else ""
            steps = "; ".join(s.text + (f" [{', '.join(s.marks)}]" if s.marks else "") for s in plan.steps)
            lines.append(tag + steps)
        if len(marked) > SHOWN_PLANS:
            lines.append(
                f"... and {len(marked) - SHOWN_PLANS} more way(s) with a cave entry, a completed owl or a black head handed on."
            )
        if not marked:
            lines.append("No way this turn enters the cave, completes an owl or hands the black head on.")
        return lines

    @staticmethod
    def _roll_hints(state: EulenState) -> list[str]:
        b, lay = state.board, state.lay
        mine = lay.player_colours[state.to_move]
        hints = []
        for i, s in enumerate(state.space):
            h = state.head[i]
            if s >= 0 and s != b.cave and h == lay.body_colour[i] and h in mine and b.cave_steps[s]:
                values = " or ".join(map(str, sorted(b.cave_steps[s])))
                hints.append(f"{state.owl(i)} on {b.ids[s]} enters the cave with a {values} on the head or body die.")
        return sorted(set(hints))

    def final_table(self, state: State) -> str:
        assert isinstance(state, EulenState)
        winner = ", ".join(state.player_name(i) for i in state.winners()) or "nobody"
        return self.players_line(state) + f"\nWinner: {winner}"
