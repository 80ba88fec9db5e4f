"""A cheap greedy player for seeded simulations (``companion simulate``) and ``play --auto``.

Purely random play seldom completes an owl and enters the cave with the exact
count, so games could run on for ever. This policy takes, in this order: a move
into the cave; a swap that completes one of its own owls or removes a black
part from its colours; a move that parks a complete owl within one roll of the
cave; anything else at random (the random part keeps the games varied).
"""

from __future__ import annotations

import random

from companion.games.core import Action
from companion.games.verzauberte_eulen.rules import BLACK, EulenState, Move


def _own(head: str, body: str, mine: frozenset[str]) -> int:
    return int(head == body and body in mine)


def _black_on_mine(head: str, body: str, mine: frozenset[str]) -> int:
    return int((head == BLACK and body in mine) or (body == BLACK and head in mine))


def score(state: EulenState, move: Move) -> int:
    """How much the player to move likes ``move`` (higher is better)."""
    _, _, body, to, other = move
    board = state.board
    if to == board.cave:
        return 1000
    mine = state.lay.player_colours[state.to_move]
    colour, head = state.lay.body_colour, state.head
    hb, cb = head[body], colour[body]
    if other >= 0:
        ho, co = head[other], colour[other]
        if hb != BLACK and ho != BLACK and cb != BLACK and co != BLACK:
            return 100 * (_own(ho, cb, mine) + _own(hb, co, mine) - _own(hb, cb, mine) - _own(ho, co, mine))
        return 100 * (_own(ho, cb, mine) + _own(hb, co, mine) - _own(hb, cb, mine) - _own(ho, co, mine)) - 60 * (
            _black_on_mine(ho, cb, mine)
            + _black_on_mine(hb, co, mine)
            - _black_on_mine(hb, cb, mine)
            - _black_on_mine(ho, co, mine)
        )
    if hb == cb and cb in mine and board.cave_steps[to]:
        return 20
    return 0


def simulation_policy(state: EulenState, rng: random.Random) -> Action:
    if state.is_chance_node():
        return state.sample_chance(rng)
    moves = state.all_moves()
    if not moves:
        return {"type": "forfeit", "die": state.usable_dice()[0]}
    cave, mine = state.board.cave, state.lay.player_colours[state.to_move]
    head, colour = state.head, state.lay.body_colour
    best_value, best = -(10**9), []
    for move in moves:
        if move[3] == cave:
            return state.move_action(move)
        body = move[2]
        if move[4] < 0 and not (head[body] == colour[body] and head[body] in mine):
            value = 0  # a plain move: score() would say 0 as well, without the call
        else:
            value = score(state, move)
        if value > best_value:
            best_value, best = value, [move]
        elif value == best_value:
            best.append(move)
    return state.move_action(best[0] if len(best) == 1 else rng.choice(best))
