"""Falconry: lay a straight path of cards on an unbounded grid before the other nobles do.

The table is a dict of stacks keyed by integer cells ``(x, y)``; a stack lists its
cards bottom to top and belongs to the owner of its top card. Every noble plays
one colour (falconer, bird, markers). A turn is one or two *actions*, each
``{"type": "place", "kind": "marker", "to": [x, y]}``,
``{"type": "move", "from": [x, y], "to": [x, y]}`` or, only when nothing else is
legal, ``{"type": "pass"}``. There is no chance: the set-up is laid out by the
engine from ``board.json`` (modes, geometry, card counts, colours).

Rule IDs refer to ``RULES.md`` beside this file; rulings (gaps in the rulebook)
are explained in ``docs/rulings.md``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.games.core import (
    TERMINAL,
    Action,
    ConfigError,
    Game,
    GameError,
    IllegalAction,
    InvalidAction,
    Option,
    State,
)

DATA: dict[str, Any] = json.loads(Path(__file__).with_name("board.json").read_text(encoding="utf-8"))

KINDS = ("marker", "bird", "falconer")
MARKER, BIRD, FALCONER = 0, 1, 2
KIND_INDEX = {kind: i for i, kind in enumerate(KINDS)}
KIND_LETTER = "MBF"
ORTHO = ((1, 0), (-1, 0), (0, 1), (0, -1))

Cell = tuple[int, int]


def fmt(cell: Cell) -> str:
    return f"({cell[0]}, {cell[1]})"


@dataclass
class FalconryGame(Game):
    """Falconry for 2-4 nobles. Options (``Game.options``):

    - ``diagonals`` (bool, default True): diagonal lines count as straight paths;
    - ``colours`` (list of colour ids or names, one per player; default: seat order);
    - ``first`` (player index or name; default 0): who starts (duel, fast-duel, truel:
      the middle falconer, quarrel, joint);
    - ``lone`` (player index or name; default the last player): the lone noble of ``allied``;
    - ``path_adjust`` (int, -3 to 0, default 0): added to every path length (a house rule for short
      practice games, FA-R-SHORT; the engine's tests use it for brute-force checks on small tables).
    """

    name = "falconry"
    title = "Falconry"
    version = 1
    rule_prefix = "FA"
    min_players = 2
    max_players = 4
    default_players = 2
    modes = ("duel", "fast-duel", "allied", "truel", "quarrel", "joint")
    variants = ()
    max_actions = 3000
    options_spec = (
        Option("diagonals", "bool", True, "diagonal lines count as straight paths (FA-WIN-DIAG)"),
        Option(
            "colours", "choices", None, "one colour per player, in seat order (FA-R-SEATS)",
            choices=tuple(c["id"] for c in DATA["colours"]),
            aliases={alias: c["id"] for c in DATA["colours"] for alias in (c["letter"].lower(), c["name"].lower().replace(" ", "-"))},
        ),
        Option("first", "player", 0, "who starts (duel, fast-duel, truel: the middle falconer, quarrel, joint)"),
        Option("lone", "player", None, "the lone noble of the allied mode (default: the last player)"),
        Option("path_adjust", "int", 0, "house rule: shortens every path by 1 to 3 cards for practice games "
               "(FA-R-SHORT)", minimum=-3, maximum=0, rule="FA-R-SHORT"),
    )

    @classmethod
    def default_player_count(cls, mode: str | None = None) -> int:
        spec = DATA["modes"].get(mode or cls.modes[0])
        return spec["players"] if spec else cls.default_players

    def validate_config(self) -> None:
        super().validate_config()
        spec = DATA["modes"][self.mode]
        n = self.num_players
        if n != spec["players"]:
            fitting = [m for m, s in DATA["modes"].items() if s["players"] == n]
            hint = f" For {n} players choose: {', '.join(fitting)}." if fitting else ""
            raise ConfigError(
                f"Falconry mode {self.mode!r} ({spec['title']}) is for exactly {spec['players']} players, got {n}.{hint}"
            )
        diagonals = self.option("diagonals")
        adjust = self.option("path_adjust")
        self.diagonals: bool = diagonals
        self.dirs: tuple[Cell, ...] = ((1, 0), (0, 1), (1, 1), (1, -1)) if diagonals else ((1, 0), (0, 1))
        self.colours: list[dict[str, str]] = self._resolve_colours(n)
        roles = spec["roles"]
        if self.mode == "allied":
            if "first" in self.options:
                raise ConfigError(
                    "In Allied Nobility the noble left of the lone noble starts; set 'lone', not 'first'."
                )
            lone = self.option("lone")
            start = ((n - 1 if lone is None else lone) + 1) % n
        else:
            if "lone" in self.options:
                raise ConfigError(f"Option 'lone' only applies to the allied mode, not {self.mode!r}.")
            start = self.option("first")
        self.order: list[int] = [(start + r) % n for r in range(n)]
        role_of = {seat: r for r, seat in enumerate(self.order)}
        self.team: list[int] = [roles[role_of[s]]["team"] for s in range(n)]
        self.actions: list[int] = [roles[role_of[s]]["actions"] for s in range(n)]
        self.path: list[int] = [roles[role_of[s]]["path"] + adjust for s in range(n)]
        if min(self.path) < 2:
            raise ConfigError(f"Option 'path_adjust' {adjust} makes a path shorter than 2 cards.")
        cards = DATA["cards"]
        self.cards: list[list[int]] = [
            [cards["marker"] - roles[role_of[s]]["discard_markers"], cards["bird"], cards["falconer"]] for s in range(n)
        ]
        self.setup: list[tuple[int, int, Cell]] = [
            (seat, KIND_INDEX[kind], (x, y)) for seat in self.order for kind, x, y in roles[role_of[seat]]["setup"]
        ]
        self.mode_title: str = spec["title"]

    def _resolve_colours(self, n: int) -> list[dict[str, str]]:
        known = DATA["colours"]
        wanted = self.option("colours")  # canonical colour ids (Option "colours")
        if wanted is None:
            return [dict(c) for c in known[:n]]
        if len(wanted) != n:
            raise ConfigError(f"Option 'colours' must list one colour per player ({n}), got {', '.join(wanted)}.")
        if len(set(wanted)) != n:
            raise ConfigError(f"Each noble needs a different colour, got {', '.join(wanted)}.")
        by_id = {c["id"]: c for c in known}
        return [dict(by_id[c]) for c in wanted]

    def noble(self, seat: int) -> str:
        """'Ann (Dusky Hawk)'."""
        return f"{self.players[seat]} ({self.colours[seat]['name']})"

    def teammates(self, seat: int) -> list[int]:
        return [s for s in range(self.num_players) if self.team[s] == self.team[seat]]

    def new_initial_state(self) -> FalconryState:
        return FalconryState(self)


# The stacks of card kinds a cell may hold, bottom first (a falconer on a bird of the same seat is refused apart).
_LEGAL_STACKS = (
    [MARKER],
    [BIRD],
    [FALCONER],
    [MARKER, BIRD],
    [MARKER, FALCONER],
    [BIRD, FALCONER],
    [MARKER, BIRD, FALCONER],
)

class FalconryState(State):
    """A position. Caches beside the stacks (rebuilt by ``from_json``, checked by ``check_invariants``):
    ``owner`` (cell -> seat of the top card), ``cells_of`` (seat -> cells it tops) and ``nbr``
    (cell -> number of occupied orthogonal neighbours, only when > 0)."""

    game: FalconryGame

    def __init__(self, game: FalconryGame, _blank: bool = False):
        super().__init__(game)
        n = game.num_players
        self.stacks: dict[Cell, list[int]] = {}
        self.owner: dict[Cell, int] = {}
        self.cells_of: list[set[Cell]] = [set() for _ in range(n)]
        self.nbr: dict[Cell, int] = {}
        self.hands: list[list[int]] = [list(c) for c in game.cards]
        self.turn_index = 0
        self.actions_left = game.actions[game.order[0]]
        self.locked: tuple[Cell, bool] | None = None  # (cell, placed?) of the card touched this turn
        self.turns = 1
        self.actions_done = 0
        self.winner_list: list[int] = []
        self.over = False
        if not _blank:
            for seat, kind, cell in game.setup:
                self._put(cell, seat * 4 + kind)
                self.hands[seat][kind] -= 1

    # --- low-level table edits (keep the caches in step) ---------------------------------
    def _put(self, cell: Cell, card: int) -> None:
        stack = self.stacks.get(cell)
        if stack is None:
            self.stacks[cell] = [card]
            x, y = cell
            nbr = self.nbr
            for dx, dy in ORTHO:
                key = (x + dx, y + dy)
                nbr[key] = nbr.get(key, 0) + 1
        else:
            self.cells_of[stack[-1] >> 2].discard(cell)
            stack.append(card)
        self.owner[cell] = card >> 2
        self.cells_of[card >> 2].add(cell)

    def _take(self, cell: Cell) -> int:
        stack = self.stacks[cell]
        card = stack.pop()
        self.cells_of[card >> 2].discard(cell)
        if stack:
            below = stack[-1] >> 2
            self.owner[cell] = below
            self.cells_of[below].add(cell)
        else:
            del self.stacks[cell]
            del self.owner[cell]
            x, y = cell
            nbr = self.nbr
            for dx, dy in ORTHO:
                key = (x + dx, y + dy)
                left = nbr[key] - 1
                if left:
                    nbr[key] = left
                else:
                    del nbr[key]
        return card

    def _do(self, seat: int, move: tuple) -> list[Cell]:
        """Carry out a parsed action for ``seat`` (no turn bookkeeping); returns the changed cells."""
        if move[0] == "place":
            _, kind, to = move
            self.hands[seat][kind] -= 1
            self._put(to, seat * 4 + kind)
            return [to]
        if move[0] == "move":
            _, src, to = move
            self._put(to, self._take(src))
            return [to, src]
        return []

    def _undo(self, seat: int, move: tuple) -> None:
        """Take back ``_do(seat, move)`` exactly (searches)."""
        if move[0] == "place":
            self._take(move[2])
            self.hands[seat][move[1]] += 1
        elif move[0] == "move":
            self._put(move[1], self._take(move[2]))

    def _override(self, changes: dict[Cell, int | None]) -> dict[Cell, int | None]:
        """Set the owner of some cells for a look-ahead; returns what ``_restore`` needs."""
        owner = self.owner
        saved = {cell: owner.get(cell) for cell in changes}
        for cell, who in changes.items():
            if who is None:
                owner.pop(cell, None)
            else:
                owner[cell] = who
        return saved

    def _restore(self, saved: dict[Cell, int | None]) -> None:
        self._override(saved)

    # --- who moves ---------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        return TERMINAL if self.over else self.game.order[self.turn_index]

    def is_terminal(self) -> bool:
        return self.over

    @property
    def turn_number(self) -> int:
        return self.turns

    # --- paths -------------------------------------------------------------------------------
    def _count(self, x: int, y: int, dx: int, dy: int, seat: int) -> int:
        owner = self.owner
        n = 0
        x += dx
        y += dy
        while owner.get((x, y)) == seat:
            n += 1
            x += dx
            y += dy
        return n

    def _completes(self, cell: Cell, seat: int) -> bool:
        """Whether a straight path of ``seat``'s length runs through ``cell``, counting ``cell`` as ``seat``'s."""
        need = self.game.path[seat] - 1
        x, y = cell
        count = self._count
        for dx, dy in self.game.dirs:
            if count(x, y, dx, dy, seat) + count(x, y, -dx, -dy, seat) >= need:
                return True
        return False

    def _path_through(self, cell: Cell, seat: int) -> list[Cell]:
        """The cells of the first complete path of ``seat`` through ``cell`` (empty if none)."""
        need = self.game.path[seat]
        x, y = cell
        for dx, dy in self.game.dirs:
            back = self._count(x, y, -dx, -dy, seat)
            fwd = self._count(x, y, dx, dy, seat)
            if back + fwd + 1 >= need:
                return [(x + k * dx, y + k * dy) for k in range(-back, fwd + 1)]
        return []

    def completed_paths(self) -> dict[int, list[Cell]]:
        """Every noble with a complete path on the table (full scan; used by checks and the view)."""
        found: dict[int, list[Cell]] = {}
        for seat, cells in enumerate(self.cells_of):
            for cell in sorted(cells):
                path = self._path_through(cell, seat)
                if path:
                    found[seat] = path
                    break
        return found

    def _exposes(self, seat: int, src: Cell) -> int | None:
        """The opponent whose completed path would lie open if ``seat`` lifted the top card at ``src``."""
        stack = self.stacks[src]
        if len(stack) < 2:
            return None
        below = stack[-2] >> 2
        team = self.game.team
        if team[below] == team[seat]:
            return None
        self.owner[src] = below
        try:
            return below if self._completes(src, below) else None
        finally:
            self.owner[src] = seat

    def _changes(self, seat: int, move: tuple) -> dict[Cell, int | None]:
        """New owner of every cell the parsed action changes."""
        if move[0] == "place":
            return {move[2]: seat}
        if move[0] == "move":
            stack = self.stacks[move[1]]
            return {move[1]: stack[-2] >> 2 if len(stack) > 1 else None, move[2]: seat}
        return {}

    def _winners_after(self, seat: int, move: tuple) -> set[int]:
        """The nobles (not yet their teams) whose path a legal action would complete."""
        changes = self._changes(seat, move)
        saved = self._override(changes)
        try:
            return {who for cell, who in changes.items() if who is not None and self._completes(cell, who)}
        finally:
            self._restore(saved)

    # --- legality ------------------------------------------------------------------------------
    def _target_error(self, seat: int, kind: int, to: Cell, src: Cell | None = None) -> GameError | None:
        """Can a card of ``kind`` land on ``to`` (placed, or moved from ``src``)?"""
        stack = self.stacks.get(to)
        what = KINDS[kind]
        if stack is None:
            adjacent = self.nbr.get(to, 0)
            if src is not None and len(self.stacks[src]) == 1 and abs(src[0] - to[0]) + abs(src[1] - to[1]) == 1:
                adjacent -= 1
            if adjacent > 0:
                return None
            if src is None:
                return IllegalAction("FA-MARK-1", f"{fmt(to)} does not share a flat side with any card on the table.")
            return IllegalAction(
                "FA-R-MOVE-ADJ",
                f"{fmt(to)} would not share a flat side with any card other than the moved {what} itself.",
            )
        top = stack[-1]
        top_kind, top_owner = top & 3, top >> 2
        top_name = f"{self.game.colours[top_owner]['name']}'s {KINDS[top_kind]}"
        if kind == MARKER:
            return IllegalAction("FA-MARK-1", f"A marker goes only on an open space; {fmt(to)} holds {top_name}.")
        if top_kind == MARKER:
            return None
        if top_kind == BIRD:
            if kind != FALCONER:
                return IllegalAction(
                    "FA-BIRD-CLAIM",
                    f"A {what} cannot go on {top_name} at {fmt(to)}: birds claim only markers; only a falconer ambushes a bird.",
                )
            if top_owner == seat:
                return IllegalAction(
                    "FA-FALC-AMBUSH", f"A falconer ambushes only another noble's bird; {fmt(to)} holds your own bird."
                )
            return None
        return IllegalAction("FA-R-STACK", f"Nothing may be put on a falconer; {fmt(to)} holds {top_name}.")

    def _place_error(self, seat: int, kind: int, to: Cell) -> GameError | None:
        if self.hands[seat][kind] <= 0:
            return IllegalAction("FA-HAND", f"{self.game.noble(seat)} has no {KINDS[kind]} left in hand.")
        return self._target_error(seat, kind, to)

    def _move_error(self, seat: int, src: Cell, to: Cell, locked: tuple[Cell, bool] | None) -> GameError | None:
        stack = self.stacks.get(src)
        if stack is None:
            return IllegalAction("FA-R-TOP", f"There is no card at {fmt(src)} to move.")
        top = stack[-1]
        if top >> 2 != seat:
            mine = [card for card in stack[:-1] if card >> 2 == seat]
            owner = self.game.colours[top >> 2]["name"]
            if mine:
                return IllegalAction(
                    "FA-R-TOP",
                    f"Your {KINDS[mine[-1] & 3]} at {fmt(src)} is covered by {owner}'s {KINDS[top & 3]}; only the top card of a stack moves.",
                )
            return IllegalAction(
                "FA-OWN", f"The card at {fmt(src)} is {owner}'s {KINDS[top & 3]}; no noble moves another noble's card."
            )
        if locked is not None and locked[0] == src:
            if locked[1]:
                return IllegalAction(
                    "FA-MARK-2",
                    f"The {KINDS[top & 3]} at {fmt(src)} was placed this turn; it may move on a later turn.",
                )
            return IllegalAction(
                "FA-R-TWO-CARDS",
                f"The {KINDS[top & 3]} at {fmt(src)} already moved this turn; move or place another card.",
            )
        if to == src:
            return IllegalAction("FA-R-MOVE-ADJ", f"A move must take the card to another cell than {fmt(src)}.")
        error = self._target_error(seat, top & 3, to, src)
        if error is not None:
            return error
        victim = self._exposes(seat, src)
        if victim is not None:
            return IllegalAction(
                "FA-EXPOSE",
                f"Lifting the {KINDS[top & 3]} at {fmt(src)} would expose {self.game.colours[victim]['name']}'s completed path beneath.",
            )
        return None

    def _has_action(self, seat: int, locked: tuple[Cell, bool] | None) -> bool:
        if any(self.hands[seat]):
            return True  # the table is never empty, so it always has an open cell beside a card
        for _ in self._moves(seat, locked, first_only=True):
            return True
        return False

    def _parse(self, action: Mapping[str, Any]) -> tuple:
        """``("place", kind, to)``, ``("move", src, to)`` or ``("pass",)``; InvalidAction for bad input."""
        kind_of = action.get("type")

        def cell(key: str) -> Cell:
            value = action.get(key)
            if (
                not isinstance(value, list | tuple)
                or len(value) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
            ):
                raise InvalidAction(f"{key!r} must be a cell [x, y] of whole numbers, got {value!r}.")
            return (value[0], value[1])

        if kind_of == "place":
            if set(action) != {"type", "kind", "to"} or action["kind"] not in KINDS:
                raise InvalidAction(
                    f"A placement is {{'type': 'place', 'kind': 'marker'|'bird'|'falconer', 'to': [x, y]}}; got {dict(action)!r}."
                )
            return ("place", KIND_INDEX[action["kind"]], cell("to"))
        if kind_of == "move":
            if set(action) != {"type", "from", "to"}:
                raise InvalidAction(
                    f"A move is {{'type': 'move', 'from': [x, y], 'to': [x, y]}}; got {dict(action)!r}."
                )
            return ("move", cell("from"), cell("to"))
        if kind_of == "pass":
            if set(action) != {"type"}:
                raise InvalidAction(f"A pass is {{'type': 'pass'}}; got {dict(action)!r}.")
            return ("pass",)
        raise InvalidAction(f"Falconry actions are 'place', 'move' or 'pass'; got type {kind_of!r}.")

    def _error(self, seat: int, move: tuple, locked: tuple[Cell, bool] | None) -> GameError | None:
        if move[0] == "place":
            return self._place_error(seat, move[1], move[2])
        if move[0] == "move":
            return self._move_error(seat, move[1], move[2], locked)
        if self._has_action(seat, locked):
            return IllegalAction(
                "FA-R-PASS", f"{self.game.noble(seat)} can still place or move a card, so may not pass."
            )
        return None

    def problem(self, action: Action) -> GameError | None:
        try:
            move = self._parse(action)
        except GameError as exc:
            return exc
        if self.over:
            return IllegalAction("FA-WIN-1", "The game is over: a path has been completed.", dict(action))
        error = self._error(self.current_player, move, self.locked)
        if isinstance(error, IllegalAction):
            error.action = dict(action)
        return error

    # --- enumeration ---------------------------------------------------------------------------
    def _open_cells(self) -> list[Cell]:
        stacks = self.stacks
        return [cell for cell in self.nbr if cell not in stacks]

    def _places(self, seat: int):
        hand = self.hands[seat]
        open_cells = self._open_cells()
        for kind in (MARKER, BIRD, FALCONER):
            if hand[kind] <= 0:
                continue
            for cell in open_cells:
                yield ("place", kind, cell)
            if kind != MARKER:
                for cell, stack in self.stacks.items():
                    top = stack[-1]
                    if (top & 3) == MARKER or (kind == FALCONER and (top & 3) == BIRD and top >> 2 != seat):
                        yield ("place", kind, cell)

    def _moves(self, seat: int, locked: tuple[Cell, bool] | None, sources=None, first_only: bool = False):
        open_cells = self._open_cells()
        stacks = self.stacks
        nbr = self.nbr
        for src in sorted(self.cells_of[seat]) if sources is None else sources:
            if locked is not None and locked[0] == src:
                continue
            stack = stacks[src]
            if len(stack) > 1 and self._exposes(seat, src) is not None:
                continue
            kind = stack[-1] & 3
            alone = len(stack) == 1
            sx, sy = src
            for cell in open_cells:
                if alone and nbr[cell] == 1 and abs(cell[0] - sx) + abs(cell[1] - sy) == 1:
                    continue  # its only neighbour was the moved card itself
                yield ("move", src, cell)
                if first_only:
                    return
            if kind != MARKER:
                for cell, other in stacks.items():
                    if cell == src:
                        continue
                    top = other[-1]
                    if (top & 3) == MARKER or (kind == FALCONER and (top & 3) == BIRD and top >> 2 != seat):
                        yield ("move", src, cell)
                        if first_only:
                            return

    def _legal_moves(self, seat: int, locked: tuple[Cell, bool] | None) -> list[tuple]:
        moves = list(self._places(seat))
        moves.extend(self._moves(seat, locked))
        return moves or [("pass",)]

    @staticmethod
    def to_action(move: tuple) -> Action:
        if move[0] == "place":
            return {"type": "place", "kind": KINDS[move[1]], "to": [move[2][0], move[2][1]]}
        if move[0] == "move":
            return {"type": "move", "from": [move[1][0], move[1][1]], "to": [move[2][0], move[2][1]]}
        return {"type": "pass"}

    @staticmethod
    def _order_key(move: tuple):
        if move[0] == "place":
            return (0, move[1], move[2][1], move[2][0])
        if move[0] == "move":
            return (1, move[1][1], move[1][0], move[2][1], move[2][0])
        return (2,)

    def legal_actions(self) -> list[Action]:
        if self.over:
            return []
        moves = self._legal_moves(self.current_player, self.locked)
        moves.sort(key=self._order_key)
        return [self.to_action(m) for m in moves]

    def winning_actions(self, seat: int | None = None, locked: tuple[Cell, bool] | None = None) -> list[Action]:
        """Every legal action that ends the game in a win for ``seat``'s side (exact, fast).

        Default: the player to act, with this turn's lock. Before any action no noble has a path, and an
        action changes only its destination (to the mover) and its source (to the card beneath), so a win
        either fills a *gap cell* of the mover or exposes an ally's card that completes the ally's path.
        """
        if self.over:
            return []
        if seat is None:
            seat, locked = self.current_player, self.locked
        return [self.to_action(m) for m in self._winning_moves(seat, locked)]

    def _winning_moves(self, seat: int, locked: tuple[Cell, bool] | None) -> list[tuple]:
        found: dict[tuple, None] = {}
        for gap in sorted(self.gap_cells(seat)):
            for move in self._moves_into(seat, gap, locked):
                if self._winners_after(seat, move):
                    found[move] = None
        for ally in self.game.teammates(seat):
            if ally == seat:
                continue
            for src in sorted(self.cells_of[seat]):
                stack = self.stacks[src]
                if len(stack) > 1 and stack[-2] >> 2 == ally and self._completes(src, ally):
                    for move in self._moves(seat, locked, sources=[src]):
                        if self._winners_after(seat, move):
                            found[move] = None
        return sorted(found, key=self._order_key)

    def _moves_into(self, seat: int, to: Cell, locked: tuple[Cell, bool] | None):
        for kind in (MARKER, BIRD, FALCONER):
            if self.hands[seat][kind] > 0 and self._target_error(seat, kind, to) is None:
                yield ("place", kind, to)
        for src in sorted(self.cells_of[seat]):
            if src != to and self._move_error(seat, src, to, locked) is None:
                yield ("move", src, to)

    def gap_cells(self, seat: int, need: int | None = None) -> set[Cell]:
        """Cells not topped by ``seat`` whose capture would complete ``seat``'s path (or a line of ``need``).

        Each run of ``seat``'s cells is visited once from its first cell: the cell past its end counts
        with the run that may follow it; the cell before its start counts alone when no run precedes
        it (otherwise the preceding run finds it as its end cell).
        """
        get = self.owner.get
        need = self.game.path[seat] if need is None else need
        gaps: set[Cell] = set()
        for x, y in self.cells_of[seat]:
            for dx, dy in self.game.dirs:
                bx, by = x - dx, y - dy
                if get((bx, by)) == seat:
                    continue  # not the start of a run
                ex, ey = x + dx, y + dy
                run = 1
                while get((ex, ey)) == seat:
                    run += 1
                    ex += dx
                    ey += dy
                total = run + 1
                fx, fy = ex + dx, ey + dy
                while get((fx, fy)) == seat:
                    total += 1
                    fx += dx
                    fy += dy
                if total >= need:
                    gaps.add((ex, ey))
                if run + 1 >= need and get((bx - dx, by - dy)) != seat:
                    gaps.add((bx, by))
        return gaps

    # --- applying ------------------------------------------------------------------------------
    def _apply(self, action: Action) -> None:
        seat = self.current_player
        move = self._parse(action)
        changed = self._do(seat, move)
        self.actions_done += 1
        completed = {self.owner[c] for c in changed if c in self.owner and self._completes(c, self.owner[c])}
        if completed:
            teams = {self.game.team[s] for s in completed}
            self.winner_list = [s for s in range(self.game.num_players) if self.game.team[s] in teams]
            self.over = True
            self.locked = None
            return
        if move[0] == "pass":
            self.actions_left = 0
        else:
            self.actions_left -= 1
            self.locked = (move[2], move[0] == "place")
        if self.actions_left <= 0:
            self.turn_index = (self.turn_index + 1) % self.game.num_players
            self.actions_left = self.game.actions[self.game.order[self.turn_index]]
            self.locked = None
            self.turns += 1

    def action_to_string(self, action: Action) -> str:
        try:
            move = self._parse(action)
        except GameError:
            return f"unreadable action {dict(action)!r}"
        who = self.game.noble(self.current_player) if not self.over else "Nobody"
        if move[0] == "pass":
            return f"{who} passes (no legal action)"
        target = self.stacks.get(move[2])
        note = ""
        if target:
            top = target[-1]
            verb = "claiming" if top & 3 == MARKER else "ambushing"
            note = f", {verb} {self.game.colours[top >> 2]['name']}'s {KINDS[top & 3]}"
        if move[0] == "place":
            return f"{who} places a {KINDS[move[1]]} at {fmt(move[2])}{note}"
        stack = self.stacks.get(move[1])
        what = KINDS[stack[-1] & 3] if stack else "card"
        return f"{who} moves the {what} {fmt(move[1])} -> {fmt(move[2])}{note}"

    # --- results -------------------------------------------------------------------------------
    def scores(self) -> list[float]:
        return [1.0 if s in self.winner_list else 0.0 for s in range(self.game.num_players)]

    def winners(self) -> list[int]:
        return list(self.winner_list)

    def clone(self) -> FalconryState:
        twin = FalconryState.__new__(FalconryState)
        twin.__dict__.update(self.__dict__)
        twin.stacks = {cell: list(stack) for cell, stack in self.stacks.items()}
        twin.owner = dict(self.owner)
        twin.cells_of = [set(cells) for cells in self.cells_of]
        twin.nbr = dict(self.nbr)
        twin.hands = [list(hand) for hand in self.hands]
        twin.winner_list = list(self.winner_list)
        return twin

    def check_invariants(self) -> list[str]:
        counts = [list(hand) for hand in self.hands]  # each seat's cards in hand + on the table, by kind
        problems = self._stack_problems(counts)
        problems += self._seat_problems(counts)
        if set(self.owner) != set(self.stacks):
            problems.append("owner cache lists cells without cards")
        nbr: dict[Cell, int] = {}
        for x, y in self.stacks:
            for dx, dy in ORTHO:
                nbr[(x + dx, y + dy)] = nbr.get((x + dx, y + dy), 0) + 1
        if nbr != self.nbr:
            problems.append("neighbour-count cache is out of step with the table")
        return problems + self._progress_problems()

    def _stack_problems(self, counts: list[list[int]]) -> list[str]:
        """Every stack is one the rules allow and its top card owns the cell; its cards are added to ``counts``."""
        problems = []
        for cell, stack in self.stacks.items():
            for card in stack:
                counts[card >> 2][card & 3] += 1
            kinds = [card & 3 for card in stack]
            ok = kinds in _LEGAL_STACKS
            if ok and kinds[-2:] == [BIRD, FALCONER] and stack[-1] >> 2 == stack[-2] >> 2:
                ok = False
            if not ok:
                problems.append(f"illegal stack at {fmt(cell)}: {self._stack_text(stack)}")
            if self.owner.get(cell) != stack[-1] >> 2:
                problems.append(
                    f"owner of {fmt(cell)} is {self.owner.get(cell)}, but its top card is seat {stack[-1] >> 2}'s"
                )
        return problems

    def _seat_problems(self, counts: list[list[int]]) -> list[str]:
        """Each seat has all its cards (``counts``: in hand + on the table), none negative, and its cells cached."""
        game = self.game
        problems = []
        for seat in range(game.num_players):
            if counts[seat] != game.cards[seat]:
                problems.append(
                    f"{game.noble(seat)} has {counts[seat]} (markers, birds, falconers) in hand + table, expected {game.cards[seat]}"
                )
            if any(c < 0 for c in self.hands[seat]):
                problems.append(f"{game.noble(seat)} has a negative hand {self.hands[seat]}")
            expected = {cell for cell, stack in self.stacks.items() if stack[-1] >> 2 == seat}
            if self.cells_of[seat] != expected:
                problems.append(f"cells_of cache of {game.noble(seat)} is out of step with the table")
        return problems

    def _progress_problems(self) -> list[str]:
        """The game ends exactly when a winner completes a path; a turn has actions left."""
        game = self.game
        paths = self.completed_paths()
        if self.over:
            if not self.winner_list or not any(s in self.winner_list for s in paths):
                return [f"the game ended but no winner has a completed path (winners {self.winner_list})"]
            return []
        problems = [f"{game.noble(seat)} has a completed path {path} but the game goes on" for seat, path in paths.items()]
        if not 1 <= self.actions_left <= game.actions[self.current_player]:
            problems.append(f"{self.actions_left} actions left in a turn of {game.actions[self.current_player]}")
        return problems

    def _stack_text(self, stack: list[int]) -> str:
        return " on ".join(f"{self.game.colours[c >> 2]['name']}'s {KINDS[c & 3]}" for c in reversed(stack))

    # --- persistence ---------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "table": [
                [x, y, [[card >> 2, KINDS[card & 3]] for card in self.stacks[(x, y)]]]
                for x, y in sorted(self.stacks, key=lambda c: (c[1], c[0]))
            ],
            "hands": [{"marker": h[0], "bird": h[1], "falconer": h[2]} for h in self.hands],
            "turn_index": self.turn_index,
            "actions_left": self.actions_left,
            "locked": None if self.locked is None else {"cell": list(self.locked[0]), "placed": self.locked[1]},
            "turns": self.turns,
            "actions_done": self.actions_done,
            "winners": list(self.winner_list),
            "over": self.over,
        }

    @classmethod
    def from_json(cls, game: Game, data: Mapping[str, Any]) -> FalconryState:
        if not isinstance(game, FalconryGame):
            raise ConfigError(f"A Falconry state needs a Falconry game, got {type(game).__name__}.")
        n = game.num_players
        state = cls(game, _blank=True)
        try:
            hands = data["hands"]
            if len(hands) != n:
                raise ValueError(f"expected {n} hands, got {len(hands)}")
            state.hands = [[int(h["marker"]), int(h["bird"]), int(h["falconer"])] for h in hands]
            for x, y, cards in data["table"]:
                if not cards:
                    raise ValueError(f"empty stack at ({x}, {y})")
                for seat, kind in cards:
                    if not 0 <= int(seat) < n:
                        raise ValueError(f"card of seat {seat} in a game of {n}")
                    state._put((int(x), int(y)), int(seat) * 4 + KIND_INDEX[kind])
            state.turn_index = int(data["turn_index"])
            if not 0 <= state.turn_index < n:
                raise ValueError(f"turn_index {state.turn_index} outside 0-{n - 1}")
            state.actions_left = int(data["actions_left"])
            locked = data.get("locked")
            state.locked = (
                None if locked is None else ((int(locked["cell"][0]), int(locked["cell"][1])), bool(locked["placed"]))
            )
            state.turns = int(data["turns"])
            state.actions_done = int(data.get("actions_done", 0))
            state.winner_list = [int(s) for s in data.get("winners", [])]
            state.over = bool(data.get("over", False))
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidAction(f"Malformed Falconry state: {exc}") from None
        return state
