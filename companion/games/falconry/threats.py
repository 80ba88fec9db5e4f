"""Exact "who can win on their next turn" for the coach.

A *finish* is described by its gap set: the cells of a completed straight path that the winning
side did not hold before the turn (one cell for a one-action finish, up to two in a two-action
turn). :func:`next_turn_finishes` returns every gap set of every winning sequence of the noble's
next turn; :func:`brute_force_finishes` computes the same by enumerating all action sequences,
and the tests compare the two on many positions.

Why the search may skip most first actions (two-action turns): a path completed by the second
action has at most two gaps, each filled by one of the two actions (an action turns only its
destination into the mover's cell, and only its source into the card beneath it). If the first
action touches no gap cell, the path had a single gap ``g`` and the second action fills it; that
second action was already possible at the start of the turn unless the first action (a) put a
card beside ``g`` (so ``g`` shares a flat side with a card), or (b) broke an opponent's path
that made one of the mover's cards unmovable (it would have been exposed). So the first actions
worth trying are those whose destination is a gap cell, a neighbour of a single gap, or a cell
on a line through a guarded card, and those whose source is a gap cell (uncovering an ally).
"""

from __future__ import annotations

from companion.games.falconry.rules import ORTHO, Cell, FalconryState

Finish = frozenset[Cell]


def as_turn_of(state: FalconryState, seat: int, actions: int | None = None, locked=None) -> FalconryState:
    """A copy of ``state`` where ``seat`` is about to act with ``actions`` actions (default: a full turn)."""
    twin = state.clone()
    twin.turn_index = state.game.order.index(seat)
    twin.actions_left = state.game.actions[seat] if actions is None else actions
    twin.locked = locked
    return twin


def _record(state: FalconryState, before: dict[Cell, int], changed: list[Cell], seat: int, out: set[Finish]) -> None:
    """Add the gap sets of the complete lines through the newly won cells of the position ``state``."""
    game = state.game
    owner = state.owner
    get = owner.get
    for cell in set(changed):
        member = get(cell)
        if member is None or game.team[member] != game.team[seat] or before.get(cell) == member:
            continue
        need = game.path[member]
        fresh = [c for c in set(changed) if get(c) == member and before.get(c) != member]
        x, y = cell
        for dx, dy in game.dirs:
            back = state._count(x, y, -dx, -dy, member)
            fwd = state._count(x, y, dx, dy, member)
            if back + fwd + 1 < need:
                continue
            steps = {}
            for c in fresh:  # position of each new cell along this line, if it lies on it
                k = (c[0] - x) // dx if dx else (c[1] - y) // dy
                if (x + k * dx, y + k * dy) == c:
                    steps[c] = k
            for start in range(max(-back, 1 - need), min(0, fwd - need + 1) + 1):
                out.add(frozenset(c for c, k in steps.items() if start <= k < start + need))


def windows_with_gaps(state: FalconryState, member: int, max_gaps: int) -> set[Finish]:
    """Gap sets of the lines of ``member``'s length that lack at most ``max_gaps`` of ``member``'s cells."""
    owner = state.owner
    need = state.game.path[member]
    seen: set[tuple] = set()
    found: set[Finish] = set()
    for x, y in state.cells_of[member]:
        for dx, dy in state.game.dirs:
            for offset in range(need):
                start = (x - offset * dx, y - offset * dy)
                if (start, dx, dy) in seen:
                    continue
                seen.add((start, dx, dy))
                gaps = [
                    (start[0] + i * dx, start[1] + i * dy)
                    for i in range(need)
                    if owner.get((start[0] + i * dx, start[1] + i * dy)) != member
                ]
                if len(gaps) <= max_gaps:
                    found.add(frozenset(gaps))
    return found


def _first_action_candidates(state: FalconryState, seat: int, locked) -> list[tuple]:
    game = state.game
    to_zone: set[Cell] = set()
    from_zone: set[Cell] = set()
    for member in game.teammates(seat):
        for gaps in windows_with_gaps(state, member, 2):
            to_zone |= gaps
            from_zone |= gaps
            if len(gaps) == 1:
                ((gx, gy),) = gaps
                to_zone.update((gx + dx, gy + dy) for dx, dy in ORTHO)
    for src in state.cells_of[seat]:
        victim = state._exposes(seat, src)
        if victim is not None:
            reach = game.path[victim]
            for dx, dy in game.dirs:
                for k in range(-reach + 1, reach):
                    to_zone.add((src[0] + k * dx, src[1] + k * dy))
    return [
        move
        for move in state._legal_moves(seat, locked)
        if move[0] != "pass" and (move[2] in to_zone or (move[0] == "move" and move[1] in from_zone))
    ]


def next_turn_finishes(state: FalconryState, seat: int, actions: int | None = None, locked=None) -> set[Finish]:
    """Gap sets of every path ``seat``'s side can complete in ``seat``'s turn (exact).

    ``actions`` defaults to a full turn of ``seat``; pass the actions left (and the lock) to ask about
    the rest of the turn in progress.
    """
    base = as_turn_of(state, seat, actions, locked)
    before = dict(base.owner)
    found: set[Finish] = set()
    first_wins = base._winning_moves(seat, locked)
    for move in first_wins:
        _record_after(base, before, [], seat, move, found)
    if base.actions_left < 2:
        return found
    skip = set(first_wins)
    for first in _first_action_candidates(base, seat, locked):
        if first in skip:
            continue
        changed = base._do(seat, first)
        try:
            for second in base._winning_moves(seat, (first[2], first[0] == "place")):
                _record_after(base, before, changed, seat, second, found)
        finally:
            base._undo(seat, first)
    return found


def _record_after(state: FalconryState, before, changed: list[Cell], seat: int, move: tuple, out: set[Finish]) -> None:
    changes = state._changes(seat, move)
    saved = state._override(changes)
    try:
        _record(state, before, changed + list(changes), seat, out)
    finally:
        state._restore(saved)


def brute_force_finishes(state: FalconryState, seat: int, actions: int | None = None, locked=None) -> set[Finish]:
    """The same as :func:`next_turn_finishes` by trying every legal sequence (tests only: slow)."""
    base = as_turn_of(state, seat, actions, locked)
    before = dict(base.owner)
    found: set[Finish] = set()

    def explore(current: FalconryState, changed: list[Cell]) -> None:
        for action in current.legal_actions():
            after = current.clone()
            after.apply(action)
            move = after._parse(action)
            cells = changed + ([move[2], move[1]] if move[0] == "move" else [move[2]] if move[0] == "place" else [])
            if after.is_terminal():
                if seat in after.winners():
                    _record(after, before, cells, seat, found)
            elif after.current_player == seat:
                explore(after, cells)

    explore(base, [])
    return found


def threats(state: FalconryState) -> list[tuple[int, list[Finish]]]:
    """Every noble able to complete a path in their next turn (the player to act: in the rest of this
    turn), with the gap sets, smallest first; nobles in turn order starting with the player to act."""
    if state.is_terminal():
        return []
    game = state.game
    start = state.turn_index
    result = []
    for step in range(game.num_players):
        seat = game.order[(start + step) % game.num_players]
        if step == 0:
            finishes = next_turn_finishes(state, seat, state.actions_left, state.locked)
        else:
            finishes = next_turn_finishes(state, seat)
        if finishes:
            result.append((seat, sorted(finishes, key=lambda g: (len(g), sorted((c[1], c[0]) for c in g)))))
    return result
