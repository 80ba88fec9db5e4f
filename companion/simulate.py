"""Seeded full-game simulations shared by the four games (``companion simulate``)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from companion.games.core import Action, Game, State
from companion.games.playout import Policy, playout
from companion.games.registry import GameModule


@dataclass
class SimulationReport:
    game: str
    games: int = 0
    finished: int = 0
    turns: list[int] = field(default_factory=list)
    seconds: float = 0.0
    invariant_violations: int = 0
    first_violations: list[str] = field(default_factory=list)

    def as_json(self) -> dict:
        return {
            "game": self.game,
            "games": self.games,
            "finished": self.finished,
            "mean_turns": round(sum(self.turns) / len(self.turns), 2) if self.turns else 0.0,
            "max_turns": max(self.turns, default=0),
            "games_per_second": round(self.games / self.seconds, 1) if self.seconds > 0 else 0.0,
            "invariant_violations": self.invariant_violations,
        }


def play_one(
    game: Game,
    rng: random.Random,
    policy: Policy | None,
    check: bool,
    report: SimulationReport,
) -> State:
    state = game.new_initial_state()
    playout(state, rng, policy, game.max_actions, apply=_audited(state, report) if check else None)
    return state


def _audited(state: State, report: SimulationReport) -> Callable[[Action], None]:
    """``state.apply`` (full validation, as a typed action would get), then the invariants and, now and
    then, a JSON round trip; what breaks is counted in ``report``."""
    made = 0

    def apply(action: Action) -> None:
        nonlocal made
        state.apply(action)
        problems = state.check_invariants()
        if made % 16 == 0 or state.is_terminal():
            restored = type(state).from_json(state.game, state.to_json())
            if restored.to_json() != state.to_json():
                problems.append("state does not survive a JSON round trip")
        if problems:
            report.invariant_violations += len(problems)
            if len(report.first_violations) < 10:
                report.first_violations.extend(f"after action {made + 1}: {p}" for p in problems)
        made += 1

    return apply


def simulate(
    module: GameModule,
    make_game: Callable[[], Game],
    games: int,
    seed: int,
    check: bool = False,
    progress: Callable[[int], None] | None = None,
) -> SimulationReport:
    report = SimulationReport(module.name)
    policy = module.simulation_policy
    started = time.perf_counter()
    for index in range(games):
        rng = random.Random(f"{seed}:{index}")
        state = play_one(make_game(), rng, policy, check, report)
        report.games += 1
        report.finished += int(state.is_terminal())
        report.turns.append(state.turn_number)
        if progress:
            progress(index + 1)
    report.seconds = time.perf_counter() - started
    return report
