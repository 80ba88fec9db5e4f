"""German refusals give the same reason as English (issue 22, item 4).

A seeded sweep plays each game and, at every decision, tries actions that are wrong now: moves seen
earlier in the game, and legal moves with one field swapped for another value the game used. Every
refusal that names a rule must have a German reason (the game's ``reasons`` in de.json) in which, once
the app has named the spaces, no English word and no raw id is left.
"""

from __future__ import annotations

import random
import re

import pytest

from companion.app.words import plain, raw_id
from companion.games import i18n
from companion.games.core import IllegalAction
from companion.games.playout import next_action
from companion.games.registry import load_game

PLAYERS = {"falconry": ["Ann", "Ben"]}
# words both languages share (names, numbers aside)
SHARED = {"ann", "ben", "cy", "nest", "route", "marker", "falkner", "in", "an", "so", "was", "will", "die", "hand", "name"}
ENGLISH = re.compile(
    r"\b(the|is|has|have|no|not|and|or|can|cannot|only|must|may|with|from|already|any|piece|roll|player|"
    r"shows|does|holds|card|bird|falconer|owl|head|body|dice|nests|berry|ring|tile|tiles|move|moves|"
    r"this|that|turn|first|your|their|red|blue|green|yellow|black|magpie|gold|silver)\b"
)


def sweep(game: str, seed: int, steps: int, tries: int, variant: str | None = None) -> dict[str, str]:
    """English refusal message -> rule ID, met along one seeded game (``tries`` wrong actions per decision;
    while dice are awaited, a few moves of earlier turns)."""
    module = load_game(game)
    players = PLAYERS.get(game, ["Ann", "Ben", "Cy"])
    game_class = module.game_class
    state = (game_class(players=players, variant=variant) if variant else game_class(players=players)).new_initial_state()
    rng = random.Random(seed)
    seen: list[dict] = []
    values: dict[str, list] = {}
    found: dict[str, str] = {}
    for _ in range(steps):
        if state.is_terminal():
            break
        if not state.is_chance_node():
            legal = state.legal_actions()
            for action in legal[:60]:
                if action not in seen:
                    seen.append(action)
                for key, value in action.items():
                    if key != "type" and value not in values.setdefault(key, []):
                        values[key].append(value)
            wrong = [rng.choice(seen) for _ in range(tries)]
            for _ in range(tries):
                action = dict(rng.choice(legal))
                keys = [k for k in action if k != "type"]
                if keys:
                    key = rng.choice(keys)
                    action[key] = rng.choice(values[key])
                    wrong.append(action)
            for action in wrong:
                error = state.problem(action)
                if isinstance(error, IllegalAction):
                    found.setdefault(error.message, error.rule_id)
        elif seen:
            for action in [rng.choice(seen) for _ in range(3)]:
                error = state.problem(action)
                if isinstance(error, IllegalAction):
                    found.setdefault(error.message, error.rule_id)
        state.apply(next_action(state, rng))
    return found


def untranslated(game: str, found: dict[str, str]) -> list[str]:
    t = i18n.texts(game, "de")
    problems = []
    for english, rule_id in sorted(found.items()):
        german = t.reason(english)
        if not german:
            problems.append(f"no German reason [{rule_id}]: {english}")
            continue
        shown = plain(game, german, "de")
        english_words = {w.lower() for w in re.findall(r"[^\W\d_]{2,}", english)} - SHARED
        left = [w for w in re.findall(r"[^\W\d_]+", shown) if w.lower() in english_words and w.lower() not in SHARED]
        left += ENGLISH.findall(shown)
        if raw_id(shown) or left:
            problems.append(f"English or an id left ({raw_id(shown) or left}): {english} -> {shown}")
    return problems


CASES = [
    pytest.param("eagle-kingdoms", 40, 400, 1, marks=pytest.mark.rules(
        "EK-CAP-CHOOSE", "EK-CAP-MATCH", "EK-CAP-OUTER", "EK-CAP-NECK", "EK-CAP-TAIL", "EK-CAP-WING", "EK-CAP-CROWN",
        "EK-ED-GIVE", "EK-ED-FORFEIT", "EK-ED-TRADE", "EK-ED-CHALLENGE", "EK-ED-TAKE", "EK-JESTER-1", "EK-TWO-2",
        "EK-R-JESTER", "EK-R-TRADE", "EK-FINAL-1", "EK-ED-DUEL", "EK-PLAY-ROLL")),
    pytest.param("falconry", 12, 200, 3, marks=pytest.mark.rules(
        "FA-MARK-1", "FA-OWN", "FA-R-TOP", "FA-R-STACK", "FA-R-MOVE-ADJ", "FA-BIRD-CLAIM", "FA-FALC-AMBUSH", "FA-EXPOSE")),
    pytest.param("verzauberte-eulen", 20, 300, 1, marks=pytest.mark.rules(
        "VE-TURN-DICE", "VE-DIE-HEAD", "VE-DIE-BODY", "VE-DIE-EYE", "VE-DIE-EYE-LAST", "VE-MOVE-EXACT",
        "VE-MOVE-NO-CENTRE", "VE-CAVE-ENTER", "VE-MOVE-TWO", "VE-MOVE-BLACK-BLOCK", "VE-TURN-ROLL")),
    pytest.param("mighty-magpies", 30, 400, 6, marks=pytest.mark.rules(
        "MM-MOVE-1", "MM-MOVE-2", "MM-MOVE-3", "MM-TAKE-1", "MM-TAKE-2", "MM-TAKE-4", "MM-STEAL-1", "MM-STEAL-4", "MM-PLAY-2")),
]


@pytest.mark.parametrize(("game", "tries", "steps", "seeds"), CASES)
def test_every_refusal_met_in_seeded_games_has_its_reason_in_german(game, tries, steps, seeds, request):
    found: dict[str, str] = {}
    for seed in range(seeds):
        found.update(sweep(game, seed=seed, steps=steps, tries=tries))
    # the sweep meets every rule it is marked with, or it proves less than it says
    assert set(request.node.get_closest_marker("rules").args) <= set(found.values()), sorted(set(found.values()))
    assert untranslated(game, found) == []
