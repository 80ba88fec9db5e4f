"""Simulation policy: win when possible, otherwise a random legal action biased to extend own lines.

It never enumerates every legal action except as a last resort: it proposes cheap random
candidates and keeps the first one the rules accept (the same check ``apply`` uses).
"""

from __future__ import annotations

import random

from companion.games.core import Action
from companion.games.falconry.rules import BIRD, FALCONER, MARKER, ORTHO, FalconryState

BLOCK_RATE = 0.8
EIGHT = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1))


def _kind_for(state: FalconryState, seat: int, target) -> int | None:
    """A card kind from ``seat``'s hand that could go on ``target`` (markers first on open cells)."""
    hand = state.hands[seat]
    stack = state.stacks.get(target)
    if stack is None:
        for kind in (MARKER, BIRD, FALCONER):
            if hand[kind]:
                return kind
        return None
    top = stack[-1]
    if top & 3 == MARKER and top >> 2 != seat:
        for kind in (BIRD, FALCONER):
            if hand[kind]:
                return kind
    if top & 3 == BIRD and top >> 2 != seat and hand[FALCONER]:
        return FALCONER
    return None


def _extend_target(state: FalconryState, seat: int, rng: random.Random, mine: tuple):
    """The first cell past a random run of ``seat``'s cells in a random direction."""
    x, y = rng.choice(mine)
    dx, dy = rng.choice(EIGHT if state.game.diagonals else ORTHO)
    owner = state.owner
    while owner.get((x, y)) == seat:
        x += dx
        y += dy
    return (x, y)


def propose(state: FalconryState, seat: int, rng: random.Random, tries: int = 24) -> tuple:
    locked = state.locked
    mine = tuple(sorted(state.cells_of[seat]))  # sorted: the same choices after a JSON round trip
    cells = sorted(state.stacks)
    has_hand = any(state.hands[seat])
    move: tuple
    for _ in range(tries):
        if mine and rng.random() < 0.5:
            target = _extend_target(state, seat, rng, mine)
        else:
            cx, cy = rng.choice(cells)
            dx, dy = rng.choice(ORTHO)
            target = (cx + dx, cy + dy)
        if has_hand and rng.random() < 0.9:
            kind = _kind_for(state, seat, target)
            if kind is None:
                continue
            move = ("place", kind, target)
        else:
            if not mine:
                continue
            move = ("move", rng.choice(mine), target)
        if state._error(seat, move, locked) is None:
            return move
    return rng.choice(sorted(state._legal_moves(seat, locked), key=state._order_key))


def block(state: FalconryState, seat: int, rng: random.Random) -> tuple | None:
    """An action taking a cell that would complete an opponent's path, if one is at hand."""
    game = state.game
    opponents = [other for other in range(game.num_players) if game.team[other] != game.team[seat]]
    gaps = sorted({gap for other in opponents for gap in state.gap_cells(other)})
    if not gaps:  # no finishing cell: spoil a line one card short instead
        other = rng.choice(opponents)
        gaps = sorted(state.gap_cells(other, game.path[other] - 1))
    rng.shuffle(gaps)
    for gap in gaps[:4]:
        kind = _kind_for(state, seat, gap)
        moves: list[tuple] = [("place", kind, gap)] if kind is not None else []
        moves += [
            ("move", src, gap) for src in rng.sample(sorted(state.cells_of[seat]), min(3, len(state.cells_of[seat])))
        ]
        for move in moves:
            if state._error(seat, move, state.locked) is None:
                return move
    return None


def simulation_policy(state: FalconryState, rng: random.Random) -> Action:
    """Take a win if there is one; else often block an opponent's finishing cell; else extend a line."""
    seat = state.current_player
    wins = state._winning_moves(seat, state.locked)
    if wins:
        return state.to_action(rng.choice(wins))
    if rng.random() < BLOCK_RATE:
        move = block(state, seat, rng)
        if move is not None:
            return state.to_action(move)
    return state.to_action(propose(state, seat, rng))
