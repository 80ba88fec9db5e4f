"""What every game prints for a family: examples that work, counts and articles that read right, options
that are checked. For every registered game, in every mode and variant, in English and German."""

import random
import re

import pytest

from companion import cli
from companion.games import i18n
from companion.games.core import CHANCE, ConfigError
from companion.games.playout import playout
from companion.games.registry import GAMES, load_game


def setups():
    """(game name, configuration) for every mode and variant of every game, with the default players."""
    for name in GAMES:
        game_class = load_game(name).game_class
        for mode in game_class.modes or (None,):
            for variant in (None, *game_class.variants):
                players = [f"P{i + 1}" for i in range(game_class.default_player_count(mode))]
                try:
                    game_class(players=players, mode=mode, variant=variant)
                except ConfigError:
                    continue
                yield name, {"players": players, "mode": mode, "variant": variant}


SETUPS = list(setups())


def trail(name, config, seed=0):
    """Every state of one seeded game (the policy's), the final one included."""
    module = load_game(name)
    state = module.game_class.from_config(config).new_initial_state()
    seen = []
    playout(state, random.Random(seed), module.simulation_policy, on_action=lambda s, _: seen.append(s.clone()))
    return seen + [state]


def view_of(name):
    view = load_game(name).text_view
    return view() if isinstance(view, type) else view


@pytest.mark.parametrize(("name", "config"), SETUPS, ids=[f"{n}-{c['mode'] or c['variant'] or 'standard'}" for n, c in SETUPS])
def test_every_printed_example_is_accepted(name, config):
    """The example a chance prompt prints (a roll, a set-up) is itself a legal answer, typed in English or,
    through the family's words, in German. (The Mighty Magpies set-up example once placed 18 berries.)"""
    view = view_of(name)
    checked = set()
    for state in trail(name, config):
        request = state.chance_request() if state.current_player == CHANCE else None
        if request is None or not request.example:
            continue
        key = (request.kind, len(request.dice), request.example)
        if key in checked:
            continue
        checked.add(key)
        action = view.parse_chance(state, request.example)
        assert state.is_legal(action), f"{name}: the example {request.example!r} is refused: {state.explain_illegal(action)}"
        german = i18n.typed_to_english(name, i18n.english_to_typed(name, request.example, "de"), "de")
        assert state.is_legal(view.parse_chance(state, german)), f"{name}: the German example of {request.example!r}"
    if load_game(name).game_class.rolls:
        assert checked, f"{name}: no chance prompt met"


EN_SLIPS = (
    r"\(s\)|\(ies\)",  # "character(s)": say the number in words that agree
    r"\b[aA] [aeiouAEIOU]\w",  # "A Enchanted Die"
    r"\b1 (?!die\b)[a-z]+s\b",  # "1 points", "1 tiles"
    r"(?<![-+\d.,/])(?:0|[2-9]) (?:point|berry|character|favour|way|space|action|piece|flight|tile|value|marker|bird|falconer|turn)\b",
    r"\b([a-z]{2,}) \1\b",  # "to the the cave"
)
DE_SLIPS = (
    r"\((?:en|n|e)\)",  # "Figur(en)"
    r"\b1 (?:Figuren|Punkte|Möglichkeiten|Aktionen|Vögel|Beeren|Züge|Zügen|Eulen|Teile|Gefallen liegen)\b",
    r"(?<![-+\d.,/])(?:0|[2-9]) (?:Figur|Punkt|Möglichkeit|Aktion|Vogel|Beere|Eule|Teil)\b",
    r"\b([a-zäöüß]{2,}) \1\b",
)


def texts_of(name, state):
    """Everything the terminal and the app show of ``state``, in English and in German."""
    view = view_of(name)
    english = [view.render(state), *view.coach(state)]
    german = [i18n.board_text(state, "de") or "", *(i18n.coach(state, "de") or [])]
    if state.is_terminal():
        english.append(view.final_table(state))
        german.append(i18n.final_table(state, "de") or "")
    elif state.current_player == CHANCE:
        english.append(state.chance_request().prompt)
        german.append(i18n.chance_prompt(state, "de") or "")
    else:
        for action in state.legal_actions()[:25]:
            english += [view.describe_choice(state, action), state.action_to_string(action)]
            german.append(i18n.describe_action(state, action, "de", choice=True))
    return english, german


@pytest.mark.parametrize(("name", "config"), SETUPS, ids=[f"{n}-{c['mode'] or c['variant'] or 'standard'}" for n, c in SETUPS])
def test_counts_and_articles_read_right(name, config):
    """No "1 points", "A Enchanted Die", "to the the cave" or "Figur(en)" in what a game shows."""
    states = trail(name, config, seed=1)
    slips = []
    for state in states[:: max(1, len(states) // 25)] + states[-1:]:
        english, german = texts_of(name, state)
        for lines, patterns in ((english, EN_SLIPS), (german, DE_SLIPS)):
            for line in "\n".join(lines).splitlines():
                slips += [f"{pattern}: {line}" for pattern in patterns if re.search(pattern, line)]
    assert not slips, "\n".join(sorted(set(slips))[:10])


@pytest.mark.parametrize("name", list(GAMES))
def test_options_are_declared_and_checked_in_one_place(name):
    """Each game declares its options as data (``options_spec``); the core refuses an unknown option or a value
    of the wrong kind with one plain message naming what is accepted, and keeps the canonical value."""
    game_class = load_game(name).game_class
    players = [f"P{i + 1}" for i in range(game_class.default_player_count())]
    with pytest.raises(ConfigError, match="no option|has no options"):
        game_class(players=players, options={"no_such_option": 1})
    for spec in game_class.options_spec:
        assert spec.help and spec.accepted()
        if spec.default is not None:
            assert spec.normalise(spec.default, game_class(players=players)) == spec.default
        wrong = {"bool": "maybe", "int": "many", "choice": "purple", "choices": "purple", "player": "Nobody"}.get(spec.kind)
        if wrong is not None:
            with pytest.raises(ConfigError, match=re.escape(spec.name)):
                game_class(players=players, options={spec.name: wrong})


@pytest.mark.rules("EK-PARTY-4")
def test_a_third_die_of_maybe_is_refused_naming_true_or_false(capsys):
    assert cli.main(["simulate", "eagle-kingdoms", "--variant", "party", "--option", "third_die=maybe", "--games", "1"]) == 2
    error = capsys.readouterr().err
    assert "third_die" in error and "true or false" in error and "'maybe'" in error
    assert cli.main(["simulate", "eagle-kingdoms", "--variant", "party", "--option", "third_die=true", "--games", "1"]) == 0
