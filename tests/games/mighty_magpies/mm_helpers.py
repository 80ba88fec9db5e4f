"""Shared builders for the Mighty Magpies tests: positions written as plain data."""

from __future__ import annotations

import random

from companion.games.mighty_magpies import simulation_policy
from companion.games.mighty_magpies.rules import MagpiesState, MightyMagpies
from companion.games.playout import playout

# 19 berries, 3 silver (A, D, F), 3 gold (B, D, F)
STANDARD_NESTS = {"R": "", "A": "bbbs", "B": "bbbg", "C": "bbbb", "D": "bbsg", "E": "bbb", "F": "bsg", "G": "bbb"}
SETUP = {"type": "setup", "nests": {k: v for k, v in STANDARD_NESTS.items() if k != "R"}}


def game(players=("Ann", "Ben"), variant=None) -> MightyMagpies:
    return MightyMagpies(players=list(players), variant=variant)


def position(
    players=("Ann", "Ben"),
    nests=None,
    magpies=None,
    holdings=None,
    player=0,
    dice=None,
    phase=None,
    variant=None,
    turns=1,
) -> MagpiesState:
    """A state from plain data; missing holdings are zero, missing nests are empty."""
    g = game(players, variant)
    n = len(players)
    full = {nest: "" for nest in STANDARD_NESTS}
    full.update(STANDARD_NESTS if nests is None else nests)
    held = [{"berry": 0, "silver": 0, "gold": 0} for _ in range(n)]
    for p, value in (holdings or {}).items():
        held[p].update(value)
    data = {
        "phase": phase or ("move" if dice else "roll"),
        "player": player,
        "dice": list(dice) if dice else None,
        "nests": full,
        "magpies": list(magpies or ["R"] * n),
        "holdings": held,
        "turns": turns,
    }
    return MagpiesState.from_json(g, data)


def turn(*steps, steal=()) -> dict:
    """turn(("r1", "berry"), ("g1", None), steal=[1])"""
    return {"type": "turn", "steps": [{"route": r, "take": t} for r, t in steps], "steal": list(steal)}


def roll(*faces) -> dict:
    return {"type": "roll", "faces": list(faces)}


def decision_states(players=("Ann", "Ben"), variant=None, seeds=range(8)) -> list[MagpiesState]:
    """Copies of every decision state met in seeded games of the simulation policy."""
    found: list[MagpiesState] = []
    for seed in seeds:
        state = game(players, variant).new_initial_state()
        playout(state, random.Random(seed), simulation_policy, on_action=lambda s, _: s.is_chance_node() or found.append(s.clone()))
    return found
