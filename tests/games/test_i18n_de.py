"""German texts of the engines (companion.games.i18n): every rule ID has a statement, moves are described
from their fields with German templates, refusals name the broken rule, English stays unchanged."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from companion.games import i18n
from companion.games.core import IllegalAction, InvalidAction
from companion.games.playout import playout
from companion.games.registry import GAMES, load_game

ROOT = Path(__file__).resolve().parents[2]
# the same definition of a rule line as tests/test_rules_traceability.py
DEFINITION = re.compile(r"^\s*[-*]\s+\*\*([A-Z]{2,3}-[A-Z0-9]+(?:[-.][A-Z0-9]+)*)\*\*\s*(.*)$", re.MULTILINE)
PLAYERS = {"falconry": ["Ann", "Ben"]}
GERMAN_WORDS = re.compile(r"\b(der|die|das|den|dem|und|nicht|ein|eine|einen|mit|auf|von|nach|im|wer|zu)\b")


def rules_md(game: str) -> str:
    return (i18n.package_dir(game) / "RULES.md").read_text(encoding="utf-8")


def english_rules(game: str) -> dict[str, str]:
    return {m.group(1): m.group(2).strip() for m in DEFINITION.finditer(rules_md(game))}


def german_file(game: str) -> dict:
    return json.loads((i18n.package_dir(game) / "i18n" / "de.json").read_text(encoding="utf-8"))


def play(game: str, seed: int, steps: int):
    """Seeded random play: yields (state, legal decisions) at every decision node, then applies one."""
    module = load_game(game)
    state = module.game_class(players=PLAYERS.get(game, ["Ann", "Ben", "Cy"])).new_initial_state()
    met: list = []
    playout(state, random.Random(seed), max_actions=steps, apply=state.apply,
            on_action=lambda s, _: s.is_chance_node() or met.append((s.clone(), s.legal_actions())))
    yield from met


def first(game: str, wanted, seed: int = 1, steps: int = 400):
    """The first (state, action) of seeded play with ``wanted(state, action)``."""
    for state, actions in play(game, seed, steps):
        for action in actions:
            if wanted(state, action):
                return state.clone(), action
    pytest.fail(f"no such action in {steps} steps of {game}")


# --- rule statements ------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", list(GAMES))
def test_every_rule_id_has_a_german_statement(game):
    ids = list(english_rules(game))
    assert ids and ids == i18n.rule_ids(game)
    german = german_file(game)["rules"]
    missing = [i for i in ids if not str(german.get(i, "")).strip()]
    assert not missing, f"{game}: no German statement for {missing}"
    unknown = sorted(set(german) - set(ids))
    assert not unknown, f"{game}: German statements of unknown rule IDs {unknown}"
    assert i18n.missing_rules(game, "de") == []
    assert i18n.rule_texts(game, "de") == german


@pytest.mark.parametrize("game", list(GAMES))
def test_german_statements_are_german_not_copies(game):
    english = english_rules(game)
    german = i18n.rule_texts(game, "de")
    copied = [i for i in english if german[i] == english[i]]
    assert not copied, f"{game}: statements copied from RULES.md: {copied}"
    not_german = [i for i, text in german.items() if not GERMAN_WORDS.search(text)]
    assert len(not_german) <= len(german) // 10, f"{game}: these do not read as German: {not_german}"


def test_owls_use_the_box_terms():
    german = i18n.rule_texts("verzauberte-eulen", "de")
    assert "Kopfwürfel" in german["VE-DIE-HEAD"] and "Körperwürfel" in german["VE-DIE-BODY"]
    assert "Augenwürfel" in german["VE-DIE-EYE"]
    assert "Höhle" in german["VE-CAVE-ENTER"] and "Eule" in german["VE-CAVE-ENTER"]
    assert "Köpfe" in german["VE-MOVE-SWAP"] and "Nest" in german["VE-MOVE-NO-NEST"]


def test_english_has_no_catalogue_and_unknown_ids_have_no_text():
    assert i18n.rule_text("eagle-kingdoms", "EK-CAP-OUTER", "en") is None
    assert i18n.rule_text("eagle-kingdoms", "EK-NO-SUCH", "de") is None
    assert i18n.rule_text("eulen", "VE-CAVE-ENTER", "de").startswith("Eine bunte Eule")  # aliases work


@pytest.mark.parametrize("game", list(GAMES))
def test_german_rules_page_keeps_every_id_in_order_with_german_headings(game):
    page = i18n.rules_markdown(game, "de")
    assert page is not None and i18n.rules_markdown(game, "en") is None
    ids = [m.group(1) for m in DEFINITION.finditer(page)]
    assert ids == list(english_rules(game))
    sections = german_file(game)["sections"]
    headings = [line.partition(" ")[2].strip() for line in rules_md(game).splitlines() if line.startswith("## ")]
    assert headings and all(h in sections for h in headings), [h for h in headings if h not in sections]
    for heading in headings:
        assert f"## {sections[heading]}" in page
    german = i18n.rule_texts(game, "de")
    assert all(f"**{i}** {german[i]}" in page for i in ids)


# --- move descriptions ------------------------------------------------------------------------------------
def test_eagle_kingdoms_capture_in_german():
    state, action = first("eagle-kingdoms", lambda s, a: a["type"] == "capture")
    english = state.action_to_string(action)
    german = i18n.describe_action(state, action, "de")
    assert german != english and " erobert " in german
    value = re.search(r"\((\d+)\)", english).group(1)
    assert f"({value})" in german and action["piece"] in german and state.player_name(state.player) in german
    menu = i18n.describe_action(state, action, "de", choice=True)
    assert menu.startswith(german + " – ") and "Punkte für dich" in menu
    assert i18n.describe_action(state, action, "en") == english  # English: the engine's own text


def test_eagle_kingdoms_roll_and_enchanted_die_in_german():
    state, _ = first("eagle-kingdoms", lambda s, a: a["type"] == "roll-enchanted")
    german = i18n.describe_action(state, {"type": "roll-enchanted"}, "de", choice=True)
    assert "Zauberwürfel" in german
    state.apply({"type": "roll-enchanted"})
    words = i18n.describe_action(state, {"type": "enchanted", "face": 7}, "de")
    assert words.startswith("Zauberwürfel: 7 (") and "verfügbare Figur" in words


def test_falconry_move_in_german():
    state, action = first("falconry", lambda s, a: a["type"] == "move")
    english = state.action_to_string(action)
    german = i18n.describe_action(state, action, "de")
    assert german != english and " zieht " in german
    for cell in (action["from"], action["to"]):
        assert f"({cell[0]}, {cell[1]})" in german
    assert "Dunkler Habicht" in german or "Steinadler" in german
    state, action = first("falconry", lambda s, a: a["type"] == "place")
    assert i18n.describe_action(state, action, "de", choice=True).startswith("Marker auf (")


def test_owls_move_and_roll_in_german():
    state, action = first("verzauberte-eulen", lambda s, a: a["type"] == "move")
    english = state.action_to_string(action)
    german = i18n.describe_action(state, action, "de")
    assert german != english and "würfel" in german
    assert f" {state.dice[action['die']]}: {action['owl']} von {action['from']}" in german
    assert action["to"] in german
    roll = {"type": "roll", "head": 3, "body": 5, "eye": 1}
    assert i18n.describe_action(state, roll, "de") == "Wurf: Kopf 3, Körper 5, Auge 1"


def test_magpies_turn_in_german():
    state, action = first("mighty-magpies", lambda s, a: a["type"] == "turn" and a.get("steps"))
    english = state.action_to_string(action)
    german = i18n.describe_action(state, action, "de")
    assert german != english and "fliegt die " in german and " Route " in german
    for step in action["steps"]:
        assert step["route"] in german
    assert i18n.describe_action(state, {"type": "roll", "faces": ["yellow", "magpie"]}, "de") == "Wurf: Gelb + Elster"


@pytest.mark.parametrize("game", list(GAMES))
def test_every_decision_of_seeded_games_has_a_german_text(game):
    """Nothing falls back to English: each move of a few seeded games is described in German, menu and plain."""
    count = 0
    for seed in (1, 2):
        for state, actions in play(game, seed, 160):
            for action in actions[:8]:
                english = state.action_to_string(action)
                for choice in (False, True):
                    german = i18n.describe_action(state, action, "de", choice=choice)
                    assert german and german != english, (game, action, german)
                count += 1
    assert count > 20


def test_a_missing_word_falls_back_to_english(monkeypatch):
    state, action = first("eagle-kingdoms", lambda s, a: a["type"] == "capture")
    monkeypatch.setattr(i18n.Texts, "term", lambda self, key, default=None: (_ for _ in ()).throw(KeyError(key)))
    assert i18n.describe_action(state, action, "de") == state.action_to_string(action)


# --- refusals ------------------------------------------------------------------------------------------
def test_refusal_names_the_rule_in_german():
    state, action = first("eagle-kingdoms", lambda s, a: a["type"] == "capture")
    locked = next(a for a in ({"type": "capture", "piece": p} for p in ("neck", "tail-upper", "head-left"))
                  if not state.is_legal(a))
    error = state.explain_illegal(locked)
    assert isinstance(error, IllegalAction)
    german = i18n.refusal(state, locked, error, "de")
    assert error.rule_id in german and "verstößt gegen Regel" in german and "„" in german
    assert i18n.describe_action(state, locked, "de") in german
    seen = i18n.refusal(state, locked, error, "de", seen=True)
    # seen by the camera: the move is not described again (the app names it), but the reason is kept, as in English
    assert error.rule_id in seen and i18n.describe_action(state, locked, "de") not in seen
    assert "ist eingeschlossen von" in german and "ist eingeschlossen von" in seen
    assert i18n.refusal(state, locked, error, "en") is None  # English: the engine's message stands
    assert i18n.refusal(state, locked, InvalidAction("bad input"), "de") is None  # no rule: English stands
    assert i18n.refusal(state, locked, IllegalAction("EK-NO-SUCH", "x"), "de") is None


# --- chance prompts and the final table -------------------------------------------------------------------
@pytest.mark.parametrize("game", list(GAMES))
def test_prompts_and_final_table_in_german_keep_the_numbers(game):
    module = load_game(game)
    state = module.game_class(players=PLAYERS.get(game, ["Ann", "Ben", "Cy"])).new_initial_state()
    prompts = []

    def check(state, _):
        if state.is_chance_node():
            german = i18n.chance_prompt(state, "de")
            english = state.chance_request().prompt
            assert german and german != english, (game, english)
            assert re.findall(r"\d+", german) == re.findall(r"\d+", english)
            assert i18n.chance_prompt(state, "en") is None
            prompts.append(german)

    playout(state, random.Random(3), module.simulation_policy, on_action=check, apply=state.apply)
    assert state.is_terminal() and (prompts or game == "falconry")
    view = module.text_view(colour=False) if game == "falconry" else module.text_view()
    english, german = view.final_table(state), i18n.final_table(state, "de")
    assert german and german != english and i18n.final_table(state, "en") is None
    assert re.findall(r"\d+", german) == re.findall(r"\d+", english)  # the same scores, in the same order
    assert all(name in german for name in state.game.players if name in english)
    assert all(state.game.players[w] in german for w in state.winners())
    assert "Sieger" in german or "Vogelkönig" in german


def test_a_game_without_texts_stays_english():
    import importlib.util

    spec = importlib.util.spec_from_file_location("toy_game_i18n", ROOT / "tests" / "toy_game.py")
    toy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(toy)
    state = toy.ToyGame(players=["Ann", "Ben"]).new_initial_state()
    action = state.legal_actions()[0]
    assert i18n.describe_action(state, action, "de") == state.action_to_string(action)
    assert i18n.chance_prompt(state, "de") is None and i18n.final_table(state, "de") is None
    assert i18n.refusal(state, action, IllegalAction("TR-X", "no"), "de") is None
    assert i18n.rule_texts("toy-race", "de") == {}


def test_refusal_of_a_malformed_move_names_only_the_rule():
    state, _ = first("mighty-magpies", lambda s, a: a["type"] == "turn")
    bad = {"type": "turn", "steps": [{"route": "zz"}]}
    error = state.explain_illegal(bad)
    assert error.rule_id == "MM-MOVE-1"
    assert i18n.refusal(state, bad, error, "de") == "Dieser Zug verstößt gegen Regel MM-MOVE-1."


# --- the coach ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", list(GAMES))
def test_coach_in_german_says_the_same_numbers(game):
    module = load_game(game)
    view = module.text_view(colour=False) if game == "falconry" else module.text_view()
    state = module.game_class(players=PLAYERS.get(game, ["Ann", "Ben", "Cy"])).new_initial_state()
    compared = []

    def check(state, _):
        english, german = view.coach(state), i18n.coach(state, "de")
        assert german is not None and len(german) == len(english), (english, german)
        for en, de in zip(english, german, strict=True):
            assert de != en and re.findall(r"\d+", de) == re.findall(r"\d+", en), (en, de)
            compared.append(de)
        assert i18n.coach(state, "en") is None

    steps = 20 if game == "verzauberte-eulen" else 120  # the owls' coach walks every plan: slow
    playout(state, random.Random(4), module.simulation_policy, steps, on_action=check, apply=state.apply)
    assert compared
