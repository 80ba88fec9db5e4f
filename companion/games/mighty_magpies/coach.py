"""The coach's arithmetic: what each legal turn brings now, without playing it out."""

from __future__ import annotations

from companion.games.core import Action
from companion.games.mighty_magpies.board import BERRY
from companion.games.mighty_magpies.rules import KIND_INDEX, MagpiesState


def turn_gain(state: MagpiesState, action: Action) -> tuple[int, int]:
    """(points the mover gains, points the opponents lose) if the legal turn ``action`` is played now.

    Counts ring-set increments (a second ring of a colour adds 2, MM-SCORE-2) and stolen
    berries (+1 for the mover, -1 for the victim).
    """
    young = state.game.variant == "young"
    counts = list(state.holdings(state.player))
    gain = 0
    for step in action.get("steps", ()):
        take = step.get("take")
        if take is None:
            continue
        k = KIND_INDEX[take]
        if k == BERRY or young:
            gain += 1
        else:
            gain += 1 if counts[k] == 0 else 2
        counts[k] += 1
    stolen = len(action.get("steal", ()))
    return gain + stolen, stolen


def rank_turns(state: MagpiesState) -> list[tuple[int, int, Action]]:
    """Legal turns, best first: by points gained now, then by points taken from opponents.

    Equal turns keep the menu order. Each entry is ``(gain, opponents_loss, action)``.
    """
    ranked = [(*turn_gain(state, action), action) for action in state.legal_actions()]
    ranked.sort(key=lambda entry: (-entry[0], -entry[1]))
    return ranked


def chance_of_points(state: MagpiesState) -> float:
    """Before the roll: the probability that the roll allows a turn that scores at least one point."""
    total = 0.0
    for action, p in state.chance_outcomes():
        rolled = state.clone()
        rolled.apply_unchecked(action)
        if rank_turns(rolled)[0][0] > 0:
            total += p
    return total
