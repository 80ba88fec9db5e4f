"""Simulation policy for seeded games (``companion simulate``, ``play --auto``, the demo recording)."""

from __future__ import annotations

import random

from companion.games.core import Action
from companion.games.eagle_kingdoms.rules import (
    CAPTURE,
    KINDS,
    NK,
    PIECE_IDS,
    SECOND,
    SHIELD,
    SHIELD_ID,
    START,
    TAKE,
    TRADE,
    VALUES,
    EagleState,
)


def simulation_policy(state: EagleState, rng: random.Random) -> Action:
    """A quick table-like player: captures the best character, trades a Jester only for a King or a
    Queen, under the house rule seldom ends a turn early; every other choice is random."""
    phase = state.phase
    if phase == SECOND:  # the pass only under the house rule skip_second_try (EK-R-SECOND-SKIP)
        r = rng.random()
        return {"type": "pass" if r < 0.05 and state.skippable else "roll-again" if r < 0.6 else "roll-enchanted"}
    if phase == START:
        value, piece, kind = max((VALUES[k], p, k) for p, k in state.jester_targets())
        if value < 9:
            return {"type": "roll-dice"}
        if piece == SHIELD:
            return {"type": "jester", "piece": SHIELD_ID, "kind": KINDS[kind]}
        return {"type": "jester", "piece": PIECE_IDS[piece]}
    if phase == TRADE and rng.random() < 0.9:  # a random trade, without listing them all
        me, hands = state.player, state.hands
        partner = rng.choice([j for j in range(len(hands)) if j != me and any(hands[j])])
        take = rng.choice([k for k in range(NK) if hands[partner][k]])
        give = [k for k in range(NK) if hands[me][k] and k != take]
        if give:
            return {"type": "trade", "give": KINDS[rng.choice(give)], "with": partner, "take": KINDS[take]}
        return {"type": "pass"}
    if phase == CAPTURE or phase == TAKE:
        pieces = state.matching_pieces(state.dice) if phase == CAPTURE else state.available_pieces()  # type: ignore[arg-type]
        kind_on = state.kind_on
        best = max(pieces, key=lambda p: 99 if p == SHIELD else VALUES[kind_on[p]])
        return {"type": "capture" if phase == CAPTURE else "take", "piece": PIECE_IDS[best]}
    actions = state.legal_actions()
    return actions[int(rng.random() * len(actions))]
