"""Falconry as text: the table as a grid with coordinates, menu texts, typed moves and threat warnings.

Each cell shows three characters: the noble's letter (H, E, G, P), the kind of the top card
(M marker, B bird, F falconer) and the stack depth, e.g. ``GF2`` = Gyrfalcon's falconer on one
other card. ``.`` marks an open cell where a card may be placed. Colour (ANSI) is added only on a
terminal and never carries information the letters do not.
"""

from __future__ import annotations

import os
import sys

from companion.games.core import Action, InvalidAction, State, plural
from companion.games.falconry.rules import KIND_INDEX, KIND_LETTER, KINDS, FalconryState, fmt
from companion.games.falconry.threats import threats
from companion.games.text import TextView


def _cells_text(cells) -> str:
    return " + ".join(fmt(c) for c in sorted(cells, key=lambda c: (c[1], c[0])))


class FalconryView(TextView):
    def __init__(self, colour: bool | None = None):
        if colour is None:
            colour = sys.stdout.isatty() and "NO_COLOR" not in os.environ
        self.colour = colour

    def _paint(self, state: FalconryState, seat: int, text: str) -> str:
        if not self.colour:
            return text
        return f"\x1b[{state.game.colours[seat]['ansi']}m{text}\x1b[0m"

    def render(self, state: State) -> str:
        assert isinstance(state, FalconryState)
        game = state.game
        xs = [x for x, _ in state.stacks] or [0]
        ys = [y for _, y in state.stacks] or [0]
        x0, x1, y0, y1 = min(xs) - 1, max(xs) + 1, min(ys) - 1, max(ys) + 1
        lines = [f"Falconry - {game.mode_title}   (x grows to the right, y grows downwards)"]
        lines.append("      " + "".join(f"{x:>4}" for x in range(x0, x1 + 1)))
        for y in range(y0, y1 + 1):
            row = [f"{y:>5} "]
            for x in range(x0, x1 + 1):
                stack = state.stacks.get((x, y))
                if stack:
                    top = stack[-1]
                    text = f"{game.colours[top >> 2]['letter']}{KIND_LETTER[top & 3]}{len(stack)}"
                    row.append(" " + self._paint(state, top >> 2, text))
                elif (x, y) in state.nbr:
                    row.append("   .")
                else:
                    row.append("    ")
            lines.append("".join(row).rstrip())
        covered = [
            (cell, stack)
            for cell, stack in sorted(state.stacks.items(), key=lambda i: (i[0][1], i[0][0]))
            if len(stack) > 1
        ]
        if covered:
            lines.append("Stacks: " + "; ".join(f"{fmt(cell)} {state._stack_text(stack)}" for cell, stack in covered))
        lines.append(
            "Legend: M marker, B bird, F falconer; the digit is the number of cards in the stack; . = open cell."
        )
        for seat in range(game.num_players):
            m, b, f = state.hands[seat]
            team = [s for s in game.teammates(seat) if s != seat]
            ally = f", allied with {', '.join(game.players[s] for s in team)}" if team else ""
            marker = "*" if not state.over and seat == state.current_player else " "
            lines.append(
                f" {marker}{game.colours[seat]['letter']} = {game.noble(seat)}: in hand {plural(m, 'marker')}, {plural(b, 'bird')}, "
                f"{plural(f, 'falconer')}; "
                f"path {game.path[seat]}, {plural(game.actions[seat], 'action')} a turn{ally}"
            )
        if state.over:
            winners = ", ".join(game.noble(s) for s in state.winners())
            paths = state.completed_paths()
            shown = "; ".join(_cells_text(p) for s, p in paths.items() if s in state.winners())
            lines.append(f"Winner: {winners} - path {shown}")
        else:
            seat = state.current_player
            total = game.actions[seat]
            step = f" (action {total - state.actions_left + 1} of {total})" if total > 1 else ""
            lines.append(f"Turn {state.turn_number}: {game.noble(seat)} to act{step}.")
        return "\n".join(lines)

    def describe_choice(self, state: State, action: Action) -> str:
        assert isinstance(state, FalconryState)
        game = state.game
        seat = state.current_player
        move = state._parse(action)
        if move[0] == "pass":
            return "Pass (no card can be placed or moved)"
        target = state.stacks.get(move[2])
        if move[0] == "place":
            kind = move[1]
            text = f"Place {KINDS[kind]} at {fmt(move[2])}"
        else:
            stack = state.stacks[move[1]]
            kind = stack[-1] & 3
            text = f"Move {KINDS[kind]} {fmt(move[1])}->{fmt(move[2])}"
        notes = []
        if target:
            top = target[-1]
            whose = "your own" if top >> 2 == seat else f"{game.colours[top >> 2]['name']}'s"
            verb = "claims" if top & 3 == 0 else "ambushes"
            notes.append(f"{verb} {whose} {KINDS[top & 3]}")
        if move[0] == "move" and len(state.stacks[move[1]]) > 1:
            below = state.stacks[move[1]][-2]
            whose = "your" if below >> 2 == seat else f"{game.colours[below >> 2]['name']}'s"
            notes.append(f"uncovers {whose} {KINDS[below & 3]}")
        if state._winners_after(seat, move):
            notes.append("WINS")
        return text + (", " + ", ".join(notes) if notes else "")

    def choice_group(self, state: State, action: Action) -> tuple[str, ...]:
        """Placements by card and target row; moves by card (a marker: by the cell it leaves) and target row."""
        assert isinstance(state, FalconryState)
        move = state._parse(action)
        if move[0] == "pass":
            return ()
        row = f"to row y={move[2][1]}"
        if move[0] == "place":
            return ("Place a marker" if move[1] == 0 else f"Place your {KINDS[move[1]]}", row)
        kind = state.stacks[move[1]][-1] & 3
        if kind == 0:
            return ("Move a marker", f"the marker at {fmt(move[1])}", row)
        return (f"Move your {KINDS[kind]} at {fmt(move[1])}", row)

    def menu_hint(self, state: State) -> str:
        return "Or type the move: 'place marker 2 0', 'move 0 0 1 1' (x, y as on the grid's edges)."

    def typing_help(self, state: State) -> list[str]:
        return [
            "Falconry has no dice: every prompt is a choice of a card to place or to move.",
            "At a choice: the number of a choice, or the move typed out:",
            "  'place marker 2 0' places a marker (or 'place bird ...', 'place falconer ...') on the cell x=2, y=0;",
            "  'move 0 0 1 1' moves your card on top at (0, 0) to (1, 1);",
            "  'pass' only when no card can be placed or moved.",
            "  x grows to the right and y downwards, as numbered on the grid's edges.",
        ]

    def parse_action(self, state: State, text: str) -> Action:
        """Typed moves: ``place marker 2 0``, ``move 0 0 1 1``, ``pass``."""
        words = text.replace(",", " ").replace("(", " ").replace(")", " ").replace("->", " ").lower().split()
        try:
            if words and words[0] == "pass" and len(words) == 1:
                return {"type": "pass"}
            if len(words) == 4 and words[0] == "place" and words[1] in KIND_INDEX:
                return {"type": "place", "kind": words[1], "to": [int(words[2]), int(words[3])]}
            if len(words) == 5 and words[0] == "move":
                return {"type": "move", "from": [int(words[1]), int(words[2])], "to": [int(words[3]), int(words[4])]}
        except ValueError:
            pass
        raise InvalidAction(f"Type e.g. 'place marker 2 0', 'move 0 0 1 1' or 'pass'; got {text!r}.")

    def coach(self, state: State) -> list[str]:
        assert isinstance(state, FalconryState)
        game = state.game
        lines = []
        for seat, finishes in threats(state):
            shown = finishes[:6]
            more = f" (and {plural(len(finishes) - len(shown), 'more way')})" if len(finishes) > len(shown) else ""
            if all(len(g) == 1 for g in finishes):
                where = "at " + " or ".join(_cells_text(g) for g in shown)
            else:
                where = "by taking " + ", or ".join(_cells_text(g) for g in shown)
            if seat == state.current_player:
                lines.append(f"{game.noble(seat)} can win this turn {where}{more}.")
            else:
                lines.append(f"{game.noble(seat)} wins next turn {where}{more} unless blocked.")
        return lines

    def final_table(self, state: State) -> str:
        assert isinstance(state, FalconryState)
        winners = ", ".join(state.game.noble(s) for s in state.winners()) or "nobody"
        return f"Winner: {winners} after {plural(state.turn_number, 'turn')} ({plural(state.actions_done, 'action')})."


# --- other languages (companion.games.i18n): the words come from i18n/<lang>.json -------------------
def _noble(state: FalconryState, seat: int, t) -> str:
    colour = state.game.colours[seat]
    return t.text("noble", player=state.game.players[seat], colour=t.term(f"colour.{colour['id']}", colour["name"]))


def _colour(state: FalconryState, card: int, t) -> str:
    colour = state.game.colours[card >> 2]
    return t.term(f"colour.{colour['id']}", colour["name"])


def action_words(state: State, action: Action, t) -> str:
    """A move described from its fields with the templates of ``t`` (a :class:`companion.games.i18n.Texts`)."""
    assert isinstance(state, FalconryState)
    move = state._parse(action)
    who = _noble(state, state.current_player, t) if not state.over else t.term("nobody")
    if move[0] == "pass":
        return t.text("pass", who=who)
    target = state.stacks.get(move[2])
    note = ""
    if target:
        top = target[-1]
        key = "note_claim" if top & 3 == 0 else "note_ambush"
        note = t.text(key, card=t.term(f"def.{KINDS[top & 3]}"), colour=_colour(state, top, t))
    if move[0] == "place":
        return t.text("place", who=who, card=t.term(f"indef.{KINDS[move[1]]}"), to=fmt(move[2]), note=note)
    card = t.term(f"def.{KINDS[state.stacks[move[1]][-1] & 3]}")
    return t.text("move", who=who, card=card, frm=fmt(move[1]), to=fmt(move[2]), note=note)


def choice_words(state: State, action: Action, t) -> str:
    """The menu text (as ``FalconryView.describe_choice``): the move, what it covers or uncovers, a win."""
    assert isinstance(state, FalconryState)
    seat = state.current_player
    move = state._parse(action)
    if move[0] == "pass":
        return t.text("choice_pass")
    target = state.stacks.get(move[2])
    if move[0] == "place":
        text = t.text("choice_place", kind=t.term(f"kind.{KINDS[move[1]]}"), to=fmt(move[2]))
    else:
        kind = state.stacks[move[1]][-1] & 3
        text = t.text("choice_move", kind=t.term(f"kind.{KINDS[kind]}"), frm=fmt(move[1]), to=fmt(move[2]))

    def whose(card: int, mine: str) -> str:
        if card >> 2 == seat:
            return t.term(f"{mine}.{KINDS[card & 3]}")
        return t.text("choice_other", card=t.term(f"def.{KINDS[card & 3]}"), colour=_colour(state, card, t))

    notes = []
    if target:
        top = target[-1]
        notes.append(t.text("choice_claims" if top & 3 == 0 else "choice_ambushes", card=whose(top, "own")))
    if move[0] == "move" and len(state.stacks[move[1]]) > 1:
        notes.append(t.text("choice_uncovers", card=whose(state.stacks[move[1]][-2], "your")))
    if state._winners_after(seat, move):
        notes.append(t.text("choice_wins"))
    return text + (", " + ", ".join(notes) if notes else "")


def final_words(state: State, t) -> str:
    """The end of the game (as ``FalconryView.final_table``)."""
    assert isinstance(state, FalconryState)
    names = ", ".join(_noble(state, s, t) for s in state.winners()) or t.text("final_nobody")
    return t.text("final", names=names, turns=t.count(state.turn_number, "n.turn"), actions=t.count(state.actions_done, "n.action"))


def coach_words(state: State, t) -> list[str]:
    """Threat warnings (as ``FalconryView.coach``)."""
    assert isinstance(state, FalconryState)
    lines = []
    for seat, finishes in threats(state):
        shown = finishes[:6]
        more = t.text("coach_more", ways=t.count(len(finishes) - len(shown), "n.more_way")) if len(finishes) > len(shown) else ""
        if all(len(g) == 1 for g in finishes):
            where = t.text("coach_at", cells=t.text("coach_or").join(_cells_text(g) for g in shown))
        else:
            where = t.text("coach_taking", cells=t.text("coach_or_taking").join(_cells_text(g) for g in shown))
        key = "coach_now" if seat == state.current_player else "coach_next"
        lines.append(t.text(key, noble=_noble(state, seat, t), where=where, more=more))
    return lines


def board_words(state: State, t) -> str:
    """The table as text (as ``FalconryView.render``, without colour; the grid of letters is kept),
    every word from ``t``."""
    assert isinstance(state, FalconryState)
    game = state.game
    ys = [y for _, y in state.stacks] or [0]
    rows = max(ys) - min(ys) + 3
    grid = FalconryView(colour=False).render(state).splitlines()[1:2 + rows]
    lines = [t.text("board_title", mode=t.term(f"mode.{game.mode_title}", game.mode_title))] + grid

    def card(c: int) -> str:
        return t.text("board_card", kind=t.term(f"kind.{KINDS[c & 3]}"), colour=_colour(state, c, t))

    covered = [
        (cell, stack)
        for cell, stack in sorted(state.stacks.items(), key=lambda i: (i[0][1], i[0][0]))
        if len(stack) > 1
    ]
    if covered:
        stacks = "; ".join(f"{fmt(cell)} {t.text('board_on').join(card(c) for c in reversed(stack))}" for cell, stack in covered)
        lines.append(t.text("board_stacks", stacks=stacks))
    lines.append(t.text("board_legend"))
    for seat in range(game.num_players):
        m, b, f = state.hands[seat]
        team = [s for s in game.teammates(seat) if s != seat]
        ally = t.text("board_ally", names=", ".join(game.players[s] for s in team)) if team else ""
        marker = "*" if not state.over and seat == state.current_player else " "
        lines.append(t.text("board_player", marker=marker, letter=game.colours[seat]["letter"], noble=_noble(state, seat, t),
                            markers=t.count(m, "n.marker"), birds=t.count(b, "n.bird"), falconers=t.count(f, "n.falconer"),
                            path=game.path[seat], actions=t.count(game.actions[seat], "n.action"), ally=ally))
    if state.over:
        winners = ", ".join(_noble(state, s, t) for s in state.winners())
        paths = state.completed_paths()
        shown = "; ".join(_cells_text(p) for s, p in paths.items() if s in state.winners())
        lines.append(t.text("board_winner", names=winners, path=shown))
    else:
        seat = state.current_player
        total = game.actions[seat]
        step = t.text("board_step", step=total - state.actions_left + 1, total=total) if total > 1 else ""
        lines.append(t.text("board_turn", turn=state.turn_number, noble=_noble(state, seat, t), step=step))
    return "\n".join(lines)
