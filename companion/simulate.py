"""Seeded full-game simulations shared by the four games (``companion simulate``)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from companion.games.core import Game, State
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


def next_action(state: State, rng: random.Random, policy: Callable[[State, random.Random], dict] | None) -> dict:
    """The next action of a simulated game: a sampled chance outcome, else the policy's choice, else
    a uniformly random legal action."""
    if state.is_chance_node():
        return state.sample_chance(rng)
    if policy is not None:
        return policy(state, rng)
    return rng.choice(state.legal_actions())


def play_one(
    game: Game,
    rng: random.Random,
    policy: Callable[[State, random.Random], dict] | None,
    check: bool,
    report: SimulationReport,
) -> State:
    state = game.new_initial_state()
    actions = 0
    while not state.is_terminal() and actions < game.max_actions:
        action = next_action(state, rng, policy)
        if check:
            state.apply(action)  # full validation, as a typed action would get
            problems = state.check_invariants()
            if actions % 16 == 0 or state.is_terminal():
                restored = type(state).from_json(game, state.to_json())
                if restored.to_json() != state.to_json():
                    problems.append("state does not survive a JSON round trip")
            if problems:
                report.invariant_violations += len(problems)
                if len(report.first_violations) < 10:
                    report.first_violations.extend(f"after action {actions + 1}: {p}" for p in problems)
        else:
            state.apply_unchecked(action)
        actions += 1
    return state


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
