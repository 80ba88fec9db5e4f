"""Seeded random play: the one loop behind simulations, benchmarks, recordings and tests.

Chance steps are drawn with their physical probabilities (``state.sample_chance``); decisions come from a
policy (a game's ``simulation_policy``), else uniformly from ``legal_actions()``. The same seed and policy
always give the same game.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from companion.games.core import Action, State

Policy = Callable[[State, random.Random], Action]
"""``policy(state, rng) -> action``: a decision for the player to act (never asked at a chance node)."""


def next_action(state: State, rng: random.Random, policy: Policy | None = None) -> Action:
    """The next action of a simulated game: a sampled chance outcome, else the policy's choice, else a
    uniformly random legal action."""
    if state.is_chance_node():
        return state.sample_chance(rng)
    if policy is not None:
        return policy(state, rng)
    return rng.choice(state.legal_actions())


def playout(
    state: State,
    rng: random.Random,
    policy: Policy | None = None,
    max_actions: int | None = None,
    on_action: Callable[[State, Action], object] | None = None,
    apply: Callable[[Action], object] | None = None,
) -> int:
    """Play ``state`` on until it ends or ``max_actions`` actions (default: the game's ``max_actions``) are
    made; returns how many were made.

    ``on_action(state, action)`` sees each action before it is made, with the state it is made in (record
    it, keep a clone of the state). ``apply(action)`` makes it: by default ``state.apply_unchecked`` (the
    actions come from ``legal_actions`` or the game's own sampler and policy); pass ``state.apply`` to
    validate each one as a typed action would be.
    """
    limit = state.game.max_actions if max_actions is None else max_actions
    make = state.apply_unchecked if apply is None else apply
    made = 0
    while made < limit and not state.is_terminal():
        action = next_action(state, rng, policy)
        if on_action is not None:
            on_action(state, action)
        make(action)
        made += 1
    return made
