"""Verzauberte Eulen in the terminal: the board as letters, typed rolls, and the coach.

An owl is drawn as its head letter (upper case) and body letter (lower case):
``Rb`` is a red head on a blue body, ``Kk`` the black owl. Letters only, so the
board reads the same without colour.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from companion.games.core import Action, InvalidAction, State, plural
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


def move_facts(state: EulenState, move: Move) -> list[tuple[str, str | None, str | None]]:
    """What one move achieves, seen before it, as ``(kind, owl, player)``: ``("cave", owl, None)``,
    ``("complete", owl, player or None when the mover's own)``, ``("black", None, player)``."""
    _, _, body, to, other = move
    lay = state.lay
    if to == state.board.cave:
        return [("cave", state.owl(body), None)]
    if other < 0:
        return []
    facts: list[tuple[str, str | None, str | None]] = []
    cb, co = lay.body_colour[body], lay.body_colour[other]
    hb, ho = state.head[body], state.head[other]
    for new_head, body_colour, old_head in ((ho, cb, hb), (hb, co, ho)):
        if new_head == body_colour != BLACK and old_head != body_colour:
            owner = lay.owner(body_colour)
            whose = state.player_name(owner) if owner >= 0 and owner != state.to_move else None
            facts.append(("complete", owl_code(new_head, body_colour), whose))
    for new_head, body_colour in ((ho, cb), (hb, co)):
        owner = lay.owner(body_colour)
        if new_head == BLACK and owner >= 0 and owner != state.to_move:
            facts.append(("black", None, state.player_name(owner)))
    return facts


def move_marks(state: EulenState, move: Move) -> list[str]:
    """'enters the cave', 'completes Rr', 'hands the black head to Ben' for one move, seen before it."""
    english = {
        "cave": lambda owl, player: f"{owl} enters the cave",
        "complete": lambda owl, player: f"completes {owl}" + (f" for {player}" if player else ""),
        "black": lambda owl, player: f"hands the black head to {player}",
    }
    return [english[kind](owl, player) for kind, owl, player in move_facts(state, move)]


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
                if not here.forfeitable(die):
                    continue  # another die moves first and lets this one move (VE-RUL-FORFEIT)
                options = [({"type": "forfeit", "die": die}, f"{die} die {here.dice[die]} forfeited", [])]  # type: ignore[index]
            for action, text, marks in options:
                nxt = here.clone()
                nxt.apply_unchecked(action)
                if not walk(nxt, steps + [Step(action, text, marks)]):
                    return False
        return True

    complete = walk(state, [])
    return found, not complete


def ranked_plans(state: EulenState, found: list[Plan]) -> list[Plan]:
    """The plans worth showing (a win, a cave entry, a completed owl, a black head handed on), best first."""
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

    return sorted((p for p in found if p.marks or p.final.winner == mover), key=merit, reverse=True)


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
                space = at_cell.get((col, row))
                text += self._cell(state, space, owls.get(space, []) if space is not None else [], col, row).center(CELL)
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
        return state.chance_action([head, body, eye])

    def describe_choice(self, state: State, action: Action) -> str:
        text = state.action_to_string(action)
        if isinstance(state, EulenState) and action.get("type") == "move":
            move = self._as_move(state, action)
            if move is not None:
                marks = move_marks(state, move)
                if marks:
                    text += "  [" + "; ".join(marks) + "]"
        return text

    def choice_group(self, state: State, action: Action) -> tuple[str, ...]:
        """Moves by die, then by owl."""
        assert isinstance(state, EulenState)
        if action.get("type") != "move" or not state.dice:
            return ()
        die = str(action["die"])
        return (f"With the {die} die ({state.dice.get(die, '?')})", f"move {action['owl']} from {action['from']}")

    def typing_help(self, state: State) -> list[str]:
        return [
            "At the roll prompt: the head, body and black eye dice in that order, e.g. '3 5 1' or '351'.",
            "At a choice: the number of a move (which die moves which owl where), or of giving up a die that",
            "  no order of the turn's remaining dice lets move.",
        ]

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
        ways = plural(len(found), "legal way")
        count = f"at least {ways}" if cut else ways
        ends = plural(len(finals), "different end position")
        lines = [f"{count} to use {state.dice_left_text()} ({ends})."]
        mover = state.to_move
        marked = ranked_plans(state, found)
        for plan in marked[:SHOWN_PLANS]:
            tag = "WINS: " if plan.final.winner == mover else ""
            steps = "; ".join(s.text + (f" [{', '.join(s.marks)}]" if s.marks else "") for s in plan.steps)
            lines.append(tag + steps)
        if len(marked) > SHOWN_PLANS:
            lines.append(
                f"... and {plural(len(marked) - SHOWN_PLANS, 'more way')} with a cave entry, a completed owl or a black head handed on."
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


# --- other languages (companion.games.i18n): the words come from i18n/<lang>.json -------------------
def _to_words(state: EulenState, space: int, t) -> str:
    b = state.board
    if b.kind[space] == "cave":
        return t.text("to_cave", space=b.ids[space])
    if b.kind[space] == "nest":
        return t.text("to_nest", nest=t.term(f"nest.{b.label[space]}"), space=b.ids[space])
    return t.text("to_space", space=b.ids[space])


def _swap_words(state: EulenState, body: int, other: int, t) -> str:
    """The swap clause when the owl on ``body`` lands on ``other`` (heads change bodies); "" without one."""
    if other < 0:
        return ""
    return t.text("swap", other=state.owl(other), mover=owl_code(state.head[other], state.lay.body_colour[body]),
                  partner=owl_code(state.head[body], state.lay.body_colour[other]))


def action_words(state: State, action: Action, t) -> str:
    """A move described from its fields with the templates of ``t`` (a :class:`companion.games.i18n.Texts`)."""
    assert isinstance(state, EulenState)
    kind = action.get("type")
    if kind == "roll":
        return t.text("roll", head=action["head"], body=action["body"], eye=action["eye"])
    name = state.player_name(state.to_move)
    die = str(action.get("die"))
    if kind == "forfeit":
        value = state.dice.get(die, "?") if state.dice else "?"
        return t.text("forfeit", name=name, die=t.term(f"def.{die}"), value=value)
    if kind == "move":
        b = state.board
        frm, to = b.index.get(str(action.get("from"))), b.index.get(str(action.get("to")))
        body = state._find(frm, str(action.get("owl"))) if frm is not None else -1
        if frm is None or body < 0 or to is None:
            return t.text("move_plain", name=name, owl=action["owl"], frm=action["from"], to=action["to"],
                          die=t.term(f"die.{die}"))
        other = next((i for i in state.occupants(to) if i != body), -1) if to != b.cave else -1
        swap = _swap_words(state, body, other, t)
        value = state.dice[die] if state.dice else "?"
        return t.text("move", name=name, die=t.term(f"dat.{die}"), value=value, owl=state.owl(body), frm=b.ids[frm],
                      to=_to_words(state, to, t), swap=swap)
    raise KeyError(kind)


def _marks_words(state: EulenState, move: Move, t) -> list[str]:
    """``move_marks`` in words of ``t``: a cave entry, a completed owl, the black head handed on."""
    marks = []
    for kind, owl, player in move_facts(state, move):
        if kind == "cave":
            marks.append(t.text("mark_cave", owl=owl))
        elif kind == "complete":
            marks.append(t.text("mark_complete_for", owl=owl, player=player) if player else t.text("mark_complete", owl=owl))
        else:
            marks.append(t.text("mark_black", player=player))
    return marks


def choice_words(state: State, action: Action, t) -> str:
    """The menu text (as ``EulenTextView.describe_choice``): the move and what it achieves."""
    assert isinstance(state, EulenState)
    text = action_words(state, action, t)
    if action.get("type") != "move":
        return text
    move = EulenTextView._as_move(state, action)
    marks = _marks_words(state, move, t) if move is not None else []
    return t.text("marks", text=text, marks="; ".join(marks)) if marks else text


def _step_words(state: EulenState, action: Action, t) -> str:
    """One die of a plan, without the player's name (as ``describe_move`` in the coach), with its marks."""
    die = action["die"]
    value = state.dice[die] if state.dice else "?"
    if action["type"] == "forfeit":
        return t.text("step_forfeit", die=t.term(f"die.{die}"), value=value)
    move = EulenTextView._as_move(state, action)
    if move is None:
        raise KeyError(action["owl"])
    _, frm, body, to, other = move
    swap = _swap_words(state, body, other, t)
    text = t.text("step", die=t.term(f"die.{die}"), value=value, owl=state.owl(body), frm=state.board.ids[frm],
                  to=_to_words(state, to, t), swap=swap)
    marks = _marks_words(state, move, t)
    return t.text("step_marks", text=text, marks=", ".join(marks)) if marks else text


def coach_words(state: State, t) -> list[str]:
    """The coach's advice (as ``EulenTextView.coach``): the ways to use the dice that achieve something."""
    assert isinstance(state, EulenState)
    if state.is_terminal():
        return []
    b, lay = state.board, state.lay
    if state.is_chance_node():
        mine = lay.player_colours[state.to_move]
        hints = []
        for i, s in enumerate(state.space):
            h = state.head[i]
            if s >= 0 and s != b.cave and h == lay.body_colour[i] and h in mine and b.cave_steps[s]:
                values = t.text("coach_values_or").join(map(str, sorted(b.cave_steps[s])))
                hints.append(t.text("coach_cave", owl=state.owl(i), space=b.ids[s], values=values))
        return sorted(set(hints))
    found, cut = plans(state)
    finals = {repr(p.final.to_json()) for p in found}
    ways = t.count(len(found), "n.legal_way")
    count = t.text("coach_at_least", count=ways) if cut else ways
    rolled = state.dice or {}  # a decision: the dice are rolled
    dice = ", ".join(t.text("dice_left", die=t.term(f"die.{d}"), value=rolled[d]) for d in state.left)
    lines = [t.text("coach_ways", count=count, dice=dice or t.text("no_dice"), ends=t.count(len(finals), "n.end_position"))]
    mover = state.to_move
    marked = ranked_plans(state, found)
    for plan in marked[:SHOWN_PLANS]:
        here = state.clone()
        steps = []
        for step in plan.steps:
            steps.append(_step_words(here, step.action, t))
            here.apply_unchecked(step.action)
        tag = t.text("coach_wins") if plan.final.winner == mover else ""
        lines.append(tag + "; ".join(steps))
    if len(marked) > SHOWN_PLANS:
        lines.append(t.text("coach_more", ways=t.count(len(marked) - SHOWN_PLANS, "n.more_way")))
    if not marked:
        lines.append(t.text("coach_none"))
    return lines

def prompt_words(state: State, t) -> str:
    assert isinstance(state, EulenState)
    if not state.is_chance_node():
        raise KeyError("no chance node")
    return t.text("prompt_roll", name=state.player_name(state.to_move))


def final_words(state: State, t) -> str:
    """The players and the winner (as ``EulenTextView.final_table``)."""
    assert isinstance(state, EulenState)
    names = ", ".join(state.player_name(i) for i in state.winners()) or t.term("nobody")
    return t.text("final", players=_players_words(state, t), names=names)


def _players_words(state: EulenState, t) -> str:
    """Each player's colours, owls in the cave and black head (as ``EulenTextView.players_line``)."""
    lay = state.lay
    parts = []
    for player in range(state.game.num_players):
        colours = t.term("and").join(
            t.term(f"colour.{lay.letter_to_name[c]}") for c in lay.colours_in_play if c in lay.player_colours[player]
        )
        text = t.text("player_line", name=state.player_name(player), colours=colours, count=state.cave_count(player),
                      target=lay.target)
        if state.black_on(player):
            text += t.text("player_black")
        parts.append(text)
    return t.text("players", parts="; ".join(parts))


def board_words(state: State, t) -> str:
    """The board as letters (as ``EulenTextView.render``; the grid is language-free), every word from ``t``."""
    assert isinstance(state, EulenState)
    b, lay = state.board, state.lay
    grid = EulenTextView().render(state).splitlines()
    height = 1 + max(r for _, r in b.cell)
    owls: dict[int, list[str]] = {}
    for i, s in enumerate(state.space):
        if s >= 0:
            owls.setdefault(s, []).append(state.owl(i))
    empty = t.text("board_empty")
    lines = [t.text("board_title", turn=state.turn)] + grid[1:2 + height]  # the header row and the grid rows
    for player in range(state.game.num_players):
        nests = " / ".join(
            f"{t.term(f'nest.{b.label[n]}')} ({b.ids[n]}): {' '.join(sorted(owls.get(n, []))) or empty}"
            for n in lay.player_nests[player]
        )
        lines.append(t.text("board_nests", name=state.player_name(player), nests=nests))
    lines.append(t.text("board_cave", owls=" ".join(sorted(owls.get(b.cave, []))) or empty))
    key = ", ".join(f"{k} {t.term(f'colour.{lay.letter_to_name[k]}')}" for k in (*lay.colours_in_play, BLACK))
    lines.append(t.text("board_key", letters=key))
    lines.append(_players_words(state, t))
    if state.is_terminal():
        lines.append(t.text("board_won", name=state.player_name(state.winner)))  # type: ignore[arg-type]
    elif state.dice is None:
        lines.append(t.text("board_to_roll", name=state.player_name(state.to_move)))
    else:
        rolled = ", ".join(t.text("dice_left", die=t.term(f"die.{d}"), value=state.dice[d]) for d in DICE)
        left = ", ".join(t.text("dice_left", die=t.term(f"die.{d}"), value=state.dice[d]) for d in state.left)
        lines.append(t.text("board_rolled", name=state.player_name(state.to_move), rolled=rolled,
                            left=left or t.text("no_dice")))
    return "\n".join(lines)
