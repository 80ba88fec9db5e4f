"""Choosing a move at the table (no Kivy import): by tapping the board in the picture, or from a short
list grouped by piece.

Every legal action is placed on the board (:func:`regions`): the space it starts from (an owl's space,
a card moved, a magpie's nest; none for a placement or a capture) and the space it goes to or acts on.
The picture marks them; a tap on a space narrows the choice (:meth:`MovePicker.tap`): a piece with
moves is picked up (its targets are marked), a target with one move proposes it, a target with several
shows just those in the list. The list (:meth:`MovePicker.groups`) gathers the moves by piece -- the
card, owl or nest they start from, or the kind of move -- so no family scrolls through 50 buttons.
The words are the plain words of :mod:`companion.app.words`: no id, no coordinate.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from companion.app.i18n import tr
from companion.app.words import owl_name, space_name
from companion.games.core import Action, State

FLAT_UP_TO = 8  # this many moves or fewer: one plain list, no groups


@dataclass
class Move:
    index: int  # in the state's legal_actions()
    action: Action
    text: str  # plain words
    source: str | None = None  # board region the move starts from (a piece that moves)
    target: str | None = None  # board region it goes to or acts on
    group: str = ""  # what the list gathers it under ("" = on its own)
    title: str = ""  # the group's title
    sub: str = ""  # within a long group, what its moves are gathered under again
    subtitle: str = ""


@dataclass
class Group:
    key: str
    title: str
    moves: list[Move] = field(default_factory=list)


def falconry_region(cell: Any) -> str:
    return f"x{int(cell[0])}y{int(cell[1])}"


@cache
def _mm_routes() -> dict[str, tuple[str, str]]:
    import json

    from companion.games.i18n import package_dir

    board = json.loads((package_dir("mighty-magpies") / "board.json").read_text(encoding="utf-8"))
    return {r["id"]: (r["ends"][0], r["ends"][1]) for r in board["routes"]}


def mm_flight_end(start: str, steps: list[dict[str, Any]]) -> str:
    """The nest a magpie lands in after flying ``steps`` from ``start``."""
    nest = start
    for step in steps:
        a, b = _mm_routes()[step["route"]]
        nest = b if nest == a else a
    return nest


def regions(game: str, state: State, action: Action) -> tuple[str | None, str | None]:
    """(the region the move starts from, the region it goes to or acts on) on the game's board map."""
    if game == "falconry":
        to = falconry_region(action["to"]) if "to" in action else None
        return (falconry_region(action["from"]) if action.get("type") == "move" else None), to
    if game == "verzauberte-eulen":
        return action.get("from"), action.get("to")
    if game == "mighty-magpies" and action.get("type") == "turn":  # the magpie flies: a tap on where it lands
        start = state.to_json()["magpies"][state.current_player]
        return None, mm_flight_end(start, action.get("steps") or [])
    piece = action.get("piece")
    return None, piece if isinstance(piece, str) else None


def group_of(game: str, state: State, action: Action, source: str | None, target: str | None, lang: str
             ) -> tuple[str, str, str, str]:
    """(key, title, sub-key, sub-title) of the group a move is listed under, and of its place within a long group."""
    kind = str(action.get("type", ""))
    if game == "falconry":
        row = ("", "")
        if target is not None:
            cell = [int(v) for v in action["to"]]
            row_word = tr("moves:fa_row", row=space_name(game, cell, lang).split(",")[0])
            row = (f"row{cell[1]}", row_word)
        if kind == "place":
            return (f"place-{action['kind']}", tr(f"moves:fa_place_{action['kind']}"), *row)
        if source is not None:
            return (f"move-{source}", tr("moves:fa_move", place=space_name(game, source, lang)), *row)
    elif game == "verzauberte-eulen" and kind == "move":
        die = str(action.get("die"))
        key = f"{action['owl']}@{source}:{die}"  # no "/" in a key: it parts a group from its sub-group
        return (key, tr("moves:ve_owl", owl=owl_name(str(action["owl"]), lang), place=space_name(game, source, lang),
                        die=tr(f"moves:ve_die_{die}")), "", "")
    elif game == "mighty-magpies" and target is not None:
        return f"to-{target}", tr("moves:mm_to", place=space_name(game, target, lang)), "", ""
    elif game == "eagle-kingdoms" and kind in ("capture", "take", "jester", "trade", "give", "challenge", "forfeit"):
        if kind in ("trade", "give"):  # with whom, then which of your characters
            other = action.get("with", action.get("to"))
            who = state.player_name(int(other)) if isinstance(other, int) else ""
            mine = action.get("give", action.get("kind"))
            sub = (str(mine), tr("moves:ek_yours", kind=kind_word(str(mine)))) if kind == "trade" else ("", "")
            return (f"{kind}-{other}", tr(f"moves:ek_{kind}", player=who), *sub)
        return kind, tr(f"moves:ek_{kind}"), "", ""
    return "", "", "", ""


def kind_word(kind: str) -> str:
    """An Eagle Kingdoms character in the family's words, with its value: "Duke (7)"."""
    from companion.games.eagle_kingdoms.rules import KINDS, VALUES

    value = VALUES[KINDS.index(kind)] if kind in KINDS else ""
    return tr("tally:kind", name=tr(f"kind:{kind}"), value=value)


class MovePicker:
    """The legal moves of a decision, placed on the board and gathered by piece; what a tap means.

    ``moves``: the state's legal actions with their plain words (from the controller).
    ``selected``: the region of the piece picked up by a tap (its targets are then the marked ones).
    ``narrowed``: the moves a tap left to choose from (the list shows only those), or None.
    """

    def __init__(self, game: str, state: State, moves: list[tuple[int, Action, str]], lang: str):
        self.game = game
        self.moves: list[Move] = []
        for index, action, text in moves:
            source, target = regions(game, state, action)
            key, title, sub, subtitle = group_of(game, state, action, source, target, lang)
            self.moves.append(Move(index, action, text, source, target, key, title, sub, subtitle))
        self.selected: str | None = None
        self.narrowed: list[Move] | None = None

    # --- the list ----------------------------------------------------------------------------------------
    def groups(self, within: str | None = None) -> list[Group]:
        """The list: the moves gathered by piece (in the order they come), or one group ("") when few.
        ``within`` a group's key: that group's moves, gathered again when many (keys ``group/sub``)."""
        shown = self.narrowed if self.narrowed is not None else self.moves
        if within is not None:
            shown = [m for m in shown if m.group == within]
        if len(shown) <= FLAT_UP_TO:
            return [Group("", "", list(shown))]
        groups: dict[str, Group] = {}
        for move in shown:
            if within is not None:
                key, title = (f"{within}/{move.sub}", move.subtitle) if move.sub else (f"#{move.index}", "")
            else:
                key, title = (move.group, move.title) if move.group else (f"#{move.index}", "")
            if key not in groups:
                groups[key] = Group("" if key.startswith("#") else key, title)
            groups[key].moves.append(move)
        if within is not None and len(groups) == 1:
            return [Group("", "", list(shown))]
        return list(groups.values())

    def group(self, key: str) -> list[Move]:
        """The moves of group ``key`` (``group`` or ``group/sub``)."""
        top, _, sub = key.partition("/")
        return [m for m in self.moves if m.group == top and (not sub or m.sub == sub)]

    # --- the picture ---------------------------------------------------------------------------------------
    def marks(self) -> dict[str, str]:
        """Region -> how to mark it: ``piece`` (can move: tap to pick it up), ``target`` (a move goes there),
        ``selected`` (the piece picked up)."""
        marks: dict[str, str] = {}
        if self.selected is not None:
            marks[self.selected] = "selected"
            for move in self.moves:
                if move.source == self.selected and move.target and move.target != self.selected:
                    marks.setdefault(move.target, "target")
            return marks
        for move in self.narrowed if self.narrowed is not None else self.moves:
            if move.source is not None:
                marks.setdefault(move.source, "piece")
            elif move.target is not None:
                marks[move.target] = "target"
        return marks

    def tap(self, region: str | None) -> list[Move]:
        """A tap on ``region``: the moves it leaves (one: propose it; several: choose in the list; none: nothing
        there). A piece with moves is picked up; a tap on it again puts it down."""
        if region is None:
            return []
        if self.selected is not None:
            if region == self.selected:
                self.selected, self.narrowed = None, None
                return []
            chosen = [m for m in self.moves if m.source == self.selected and m.target == region]
            if chosen:
                self.narrowed = chosen if len(chosen) > 1 else None
                return chosen
        placed = [m for m in self.moves if m.source is None and m.target == region]
        from_here = [m for m in self.moves if m.source == region]
        if from_here and not placed:
            targets = {m.target for m in from_here}
            if len(targets) == 1 and len(from_here) == 1:
                return from_here
            self.selected, self.narrowed = region, from_here
            return from_here
        self.selected = None
        self.narrowed = placed if len(placed) > 1 else None
        return placed

    def reset(self) -> None:
        self.selected, self.narrowed = None, None
