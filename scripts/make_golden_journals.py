"""Record one seeded, fully validated playthrough per game set-up as a golden journal.

    .venv/bin/python scripts/make_golden_journals.py

writes ``tests/golden/<case>.jsonl`` (an ordinary game journal, replayable with
``companion play ... --resume``) and ``tests/golden/expected.json`` (final scores,
winners, turns and a digest of the final state). ``tests/test_golden_playthroughs.py``
replays them through the validating ``apply``. Regenerate only on purpose, after a
rules change, and read the diff of ``expected.json``: every changed figure is a
changed outcome of a real game.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.games.playout import playout  # noqa: E402
from companion.games.registry import load_game  # noqa: E402
from companion.journal import Session  # noqa: E402

GOLDEN = ROOT / "tests" / "golden"

# case name -> (game, configuration, seed); one case per mode/variant that changes the rules.
# Seeds were picked so the scoring the rulebooks stress happens in the recorded game:
# eagle-kingdoms completes a kingdom (EK-SCORE-2), mighty-magpies collects ring sets (MM-SCORE-2).
CASES: dict[str, tuple[str, dict, int]] = {
    "eagle-kingdoms": ("eagle-kingdoms", {"players": ["Ann", "Ben", "Cy"]}, 5),
    "eagle-kingdoms-party": ("eagle-kingdoms", {"players": ["Ann", "Ben", "Cy", "Dee"], "variant": "party"}, 8),
    "falconry-duel": ("falconry", {"players": ["Ann", "Ben"], "mode": "duel"}, 7),
    "falconry-truel": ("falconry", {"players": ["Ann", "Ben", "Cy"], "mode": "truel"}, 7),
    "verzauberte-eulen": ("verzauberte-eulen", {"players": ["Ann", "Ben", "Cy"]}, 7),
    "verzauberte-eulen-advanced": ("verzauberte-eulen", {"players": ["Ann", "Ben"], "variant": "advanced"}, 7),
    "mighty-magpies": ("mighty-magpies", {"players": ["Ann", "Ben", "Cy"]}, 8),
    "mighty-magpies-young": ("mighty-magpies", {"players": ["Ann", "Ben"], "variant": "young"}, 7),
}


def state_digest(state) -> str:
    """SHA-256 of the canonical JSON of a state: any difference in the final position changes it."""
    canonical = json.dumps(state.to_json(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def summary(state) -> dict:
    return {
        "actions": None,
        "scores": [float(s) for s in state.scores()],
        "winners": list(state.winners()),
        "terminal": state.is_terminal(),
        "turns": state.turn_number,
        "state_sha256": state_digest(state),
    }


def record(case: str, game_name: str, config: dict, seed: int) -> dict:
    module = load_game(game_name)
    game = module.game_class.from_config(config)
    path = GOLDEN / f"{case}.jsonl"
    path.unlink(missing_ok=True)
    played: list[dict] = []
    state = game.new_initial_state()
    rng = random.Random(f"golden:{case}:{seed}")
    playout(state, rng, module.simulation_policy, on_action=lambda _, a: played.append(a), apply=state.apply)
    # The header's creation time would make every regeneration a diff; pin it (before the header's check is made).
    session = Session.start(game, path, created="2026-01-01T00:00:00+00:00")
    for action in played:
        session.apply(action)
    session.close()
    actions = len(played)
    result = summary(session.state)
    result["actions"] = actions
    return result


def main() -> int:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    expected = {case: record(case, *spec) for case, spec in CASES.items()}
    (GOLDEN / "expected.json").write_text(json.dumps(expected, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    for case, result in expected.items():
        print(f"{case:28} {result['actions']:5} actions  scores {result['scores']}  winners {result['winners']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
