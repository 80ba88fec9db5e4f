"""Falconry on camera: the adapter for :func:`companion.referee.match.match`.

The reader reports *table cells* ``x{tx}y{ty}`` of the map (:mod:`companion.referee.falconry_map`);
the engine plays on its own unbounded integer cells. :class:`FalconryAdapter` holds the translation
``offset`` (engine cell + offset = table cell), fixed when the set-up is seen (:func:`align`) and
found again the same way if the players shift the strips. Cells outside the map are not in the
scene: the camera cannot see them, so the referee keeps the engine's word there (the app should ask
the players to re-frame when :meth:`FalconryAdapter.off_map` is not empty). The benchmark on rendered
tables is the workshop's (:mod:`companion.workshop.boards.bench.falconry`).

Vocabulary (shared with :mod:`companion.vision.readers.falconry`): region -> ``[{"noble": letter,
"kind": "marker"|"bird"|"falconer", "covers": bool}]``, the visible top card of each stack.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

from companion.games.core import Action, State
from companion.games.falconry.rules import FalconryGame
from companion.referee.falconry_map import build_map, cell_id, parse_cell_id, table_range
from companion.vision.boardmap import BoardMap
from companion.vision.readers import Observation, canonical


def board_map() -> BoardMap:
    return BoardMap.from_dict(build_map(), "companion.referee.falconry_map.build_map()")


def engine_stacks(state: State) -> dict[tuple[int, int], list[tuple[str, str]]]:
    """Engine cell -> [(noble letter, kind)] bottom to top, from the state's public JSON."""
    game = cast(FalconryGame, state.game)  # a Falconry adapter only ever sees Falconry states
    letters = [c["letter"] for c in game.colours]
    return {(x, y): [(letters[seat], kind) for seat, kind in cards] for x, y, cards in state.to_json()["table"]}


@dataclass
class FalconryAdapter:
    """Scenes and implied actions for one table; ``offset`` = table cell - engine cell."""

    offset: tuple[int, int] = (0, 0)

    def to_table(self, cell: Sequence[int]) -> tuple[int, int]:
        return int(cell[0]) + self.offset[0], int(cell[1]) + self.offset[1]

    def to_engine(self, region: str) -> tuple[int, int] | None:
        cell = parse_cell_id(region)
        return None if cell is None else (cell[0] - self.offset[0], cell[1] - self.offset[1])

    def off_map(self, state: State) -> list[tuple[int, int]]:
        xs, ys = table_range()
        return sorted(c for c in engine_stacks(state) if not (self.to_table(c)[0] in xs and self.to_table(c)[1] in ys))

    def paint_scene(self, state: State) -> dict[str, dict[str, Any]]:
        """For the painter: region -> top card with its stack ``depth`` and the cards ``under`` it."""
        xs, ys = table_range()
        out = {}
        for cell, cards in engine_stacks(state).items():
            tx, ty = self.to_table(cell)
            if tx in xs and ty in ys:
                noble, kind = cards[-1]
                under = [{"noble": n, "kind": k} for n, k in cards[:-1]]
                out[cell_id(tx, ty)] = {"noble": noble, "kind": kind, "depth": len(cards), "under": under}
        return out

    def scene_from_state(self, state: State) -> dict[str, list[dict[str, Any]]]:
        """What the camera should read in ``state`` (cells inside the map only)."""
        return {
            rid: [{"noble": c["noble"], "kind": c["kind"], "covers": c["depth"] > 1}]
            for rid, c in self.paint_scene(state).items()
        }

    def implied_actions(self, state: State, before: Mapping[str, Any], after: Any) -> list[Action]:
        """The action the change ``before`` -> ``after`` would mean, legal or not.

        A card that appeared where it was not (and vanished from nowhere) is a placement of its kind; a
        card that vanished from one cell (its cell now empty or showing the card it covered) and
        appeared on another is a move. Several candidates are returned most likely first.
        """
        seen = after.regions if isinstance(after, Observation) else after
        tops_before = {r: top for r, v in before.items() if (top := _top(v))}
        tops_after = {r: top for r, v in seen.items() if (top := _top(v))}
        left = [r for r, c in tops_before.items() if tops_after.get(r) != c]
        # a covered card showing where its cover left is revealed, not placed
        revealed = {r for r in left if tops_before[r]["covers"] and r in tops_after and not _same_card(tops_before[r], tops_after[r])}
        arrived = [r for r, c in tops_after.items() if tops_before.get(r) != c and r not in revealed]
        actions: list[Action] = []
        for to in sorted(arrived):
            card = tops_after[to]
            dest = self.to_engine(to)
            if dest is None:
                continue
            sources = [s for s in sorted(left) if s != to and _same_card(tops_before[s], card)]
            for src in sources:
                origin = self.to_engine(src)
                if origin is not None:
                    actions.append({"type": "move", "from": list(origin), "to": list(dest)})
            if not sources:
                actions.append({"type": "place", "kind": card["kind"], "to": list(dest)})
        return sorted(actions, key=lambda a: a["type"] != "move")  # a move explains two changes: first

    def settle_by_rules(self, state: State, seen: Observation) -> Observation:
        """``seen``, where a card read surely but for whether it covers another (``covers_doubt``: its noble and kind
        sure) is the engine's top card on that space, with the engine's stack there: a marker never covers
        (FA-MARK-1: placed in open spaces only), and a noble's one bird or falconer (FA-CARDS) still on its space
        lies on what it lay on. At 0.6-0.8 px/mm a border read a millimetre short left one marker
        unsure for a whole film (Falconry seed 3), and every later move that could have taken it away asked.
        So is such a card read surely with the other answer: no one action changes only whether the top card on a
        space covers another (Falconry s15 r1, from action 28: a bird on a claimed marker read surely as lying on
        an open space, "has no bird left in hand" called 17 times)."""
        doubt = {r for r in seen.extra.get("covers_doubt") or () if seen.is_uncertain(r) and r not in seen.hidden}
        scene = self.scene_from_state(state)
        fixed = {}
        for region in sorted(set(scene) & set(seen.regions) - set(seen.hidden)):
            want, read = _top(scene.get(region)), _top(seen.regions.get(region))
            if want is None or read is None or not _same_card(want, read):
                continue
            if region in doubt or (want["covers"] != read["covers"] and not seen.is_uncertain(region)):
                fixed[region] = [want]
        if not fixed:
            return seen
        return replace(seen, regions={**seen.regions, **fixed}, confidence={**seen.confidence, **dict.fromkeys(fixed, 1.0)})

    def rules_out(self, state: State, path: Sequence[Action], seen: Observation) -> bool:
        """A history in which a card is laid or moved onto a cell beyond the map that the camera shows clear (the
        reader's ``clear_beyond``): a two-card turn's first card seen is otherwise as well explained by "a card
        laid out of view first, then this one" (FA-MARK-1 lets a card go beside any edge card), and asked."""
        clear = set(seen.extra.get("clear_beyond") or ())
        return any(isinstance(a, Mapping) and "to" in a and cell_id(*self.to_table(a["to"])) in clear for a in path)

    def describe(self, region: str, expected: list[Any], seen: list[Any]) -> str:
        def words(cards: list[Any]) -> str:
            if not cards:
                return "nothing"
            c = cards[-1]
            return f"{c['noble']} {c['kind']}" + (" on a stack" if c.get("covers") else "")

        cell = self.to_engine(region)
        where = f"({cell[0]}, {cell[1]})" if cell else region
        return f"{where}: expected {words(expected)}, saw {words(seen)}"


def _top(pieces: Any) -> dict[str, Any] | None:
    if not pieces:
        return None
    card = pieces[-1] if isinstance(pieces, list) else pieces
    return {"noble": card["noble"], "kind": card["kind"], "covers": bool(card.get("covers"))}


def _same_card(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return a["noble"] == b["noble"] and a["kind"] == b["kind"]


def align(state: State, seen: Observation | Mapping[str, Any], search: int = 6) -> tuple[int, int]:
    """The offset (table - engine) under which ``seen`` agrees best with ``state`` (set-up, re-framing).

    Scores +1 for each engine top card read on its table cell, -1 for each read card the state does not
    explain; ties go to the smallest shift from centring the engine's cards on the map.
    """
    regions = seen.regions if isinstance(seen, Observation) else seen
    read = {parse_cell_id(r): canonical(v) for r, v in regions.items() if v and parse_cell_id(r)}
    stacks = engine_stacks(state)
    xs = [c[0] for c in stacks]
    ys = [c[1] for c in stacks]
    cx, cy = -round((min(xs) + max(xs)) / 2), -round((min(ys) + max(ys)) / 2)
    best, best_key = (cx, cy), None
    for ox in range(cx - search, cx + search + 1):
        for oy in range(cy - search, cy + search + 1):
            adapter = FalconryAdapter((ox, oy))
            scene = {parse_cell_id(r): canonical(v) for r, v in adapter.scene_from_state(state).items()}
            score = sum(1 for c, v in scene.items() if read.get(c) == v) - sum(1 for c in read if c not in scene)
            key = (score, -abs(ox - cx) - abs(oy - cy))
            if best_key is None or key > best_key:
                best, best_key = (ox, oy), key
    return best


def align_cells(state: State, regions: Mapping[str, Any]) -> tuple[int, int] | None:
    """The offset (table - engine) that puts the state's top cards on exactly the table cells where a card
    was found (``regions``: cell -> what was read there, whatever it was read as), or None: the set-up placed
    by where its cards lie, before the deck's look is known."""
    found = {cell for r, v in regions.items() if v and (cell := parse_cell_id(r)) is not None}
    stacks = list(engine_stacks(state))
    if not found or not stacks:
        return None
    offset = (min(x for x, _ in found) - min(x for x, _ in stacks), min(y for _, y in found) - min(y for _, y in stacks))
    return offset if {(x + offset[0], y + offset[1]) for x, y in stacks} == found else None


_DEFAULT = FalconryAdapter()
scene_from_state = _DEFAULT.scene_from_state
implied_actions = _DEFAULT.implied_actions
describe = _DEFAULT.describe
