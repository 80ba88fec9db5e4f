"""Checks every registered game must pass, in the manner of OpenSpiel's games_sim_test."""

import copy
import importlib.util
import json
import random

import pytest

from companion.games.core import CHANCE, TERMINAL, GameError, InvalidAction, State
from companion.games.playout import playout
from companion.games.registry import GAMES, load_game
from companion.games.text import TextView

PRESENT = [name for name, module in GAMES.items() if importlib.util.find_spec(module) is not None]


def _random_game(name, seed, max_actions=3000):
    module = load_game(name)
    game_class = module.game_class
    game = game_class(players=[f"P{i + 1}" for i in range(game_class.default_players)])
    rng = random.Random(seed)
    state = game.new_initial_state()
    trail = []
    playout(state, rng, module.simulation_policy, max_actions, lambda s, _: trail.append(s.clone()), state.apply)
    return game, state, trail + [state.clone()]


@pytest.mark.parametrize("name", PRESENT)
def test_random_games_keep_core_contract(name):
    for seed in range(3):
        game, final, trail = _random_game(name, seed)
        state_class = type(final)
        for state in trail[:: max(1, len(trail) // 40)] + [final]:
            data = state.to_json()
            text = json.dumps(data)  # JSON types only
            restored = state_class.from_json(game, json.loads(text))
            assert restored.to_json() == data
            assert restored.current_player == state.current_player
            if state.is_terminal():
                assert state.current_player == TERMINAL
                assert state.winners() or state.scores() is not None
            else:
                assert state.legal_actions(), "a non-terminal state must offer at least one action"
                if state.current_player == CHANCE:
                    assert state.chance_request() is not None
                    outcomes = state.chance_outcomes()
                    assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9


def _dice_requests(name, seeds=range(3)):
    """(game, state, request) at every dice request met in seeded random games."""
    for seed in seeds:
        game, _, trail = _random_game(name, seed)
        for state in trail:
            request = state.chance_request() if state.current_player == CHANCE else None
            if request is not None and request.dice:
                yield game, state, request


@pytest.mark.parametrize("name", PRESENT)
def test_dice_requests_are_the_declared_rolls(name):
    """``Game.rolls`` states every roll's dice (kind, faces, role) without playing: each dice request met
    in play is one of them, and ``Game.dice_kinds`` (what the camera looks for) names every kind."""
    game_class = load_game(name).game_class
    kinds = {die.kind for dice in game_class.rolls.values() for die in dice}
    assert set(game_class.dice_kinds) == kinds
    seen = set()
    for _, _, request in _dice_requests(name):
        assert len(request.roles) == len(request.faces) == len(request.dice)
        assert any(
            [(d.kind, d.faces) for d in dice] == list(zip(request.dice, request.faces, strict=True))
            and all(role.startswith(d.role) for d, role in zip(dice, request.roles, strict=True))
            for dice in game_class.rolls.values()
        ), request
        seen |= set(request.dice)
    assert seen == kinds


@pytest.mark.parametrize("name", PRESENT)
def test_chance_action_builds_a_legal_outcome_from_dice_values(name):
    """``chance_action`` takes one value per die, in the request's order: any faces give a legal outcome
    (numbers also as text); a wrong count or a face the die lacks is refused in plain words, state unchanged."""
    rng = random.Random(4)
    for _, state, request in list(_dice_requests(name, seeds=range(2)))[:40]:
        before = state.to_json()
        values = [rng.choice(faces) for faces in request.faces]
        action = state.chance_action(values)
        assert state.is_legal(action), (values, action)
        assert state.chance_action([str(v).upper() for v in values]) == action
        for bad in (values[:-1], values + values[:1], values[:-1] + [99], values[:-1] + ["purple"], values[:-1] + [None]):
            with pytest.raises(InvalidAction) as info:
                state.chance_action(bad)
            assert str(info.value)
        assert state.to_json() == before


@pytest.mark.parametrize("name", PRESENT)
def test_clone_is_independent(name):
    _, final, trail = _random_game(name, 11, max_actions=60)
    state = [s for s in trail[:31] if not s.is_terminal()][-1]
    before = copy.deepcopy(state.to_json())
    twin = state.clone()
    twin.apply(twin.sample_chance(random.Random(1)) if twin.is_chance_node() else twin.legal_actions()[0])
    assert state.to_json() == before


@pytest.mark.parametrize("name", PRESENT)
def test_refused_action_leaves_state_unchanged(name):
    _, _, trail = _random_game(name, 5, max_actions=80)
    junk = [{"type": "no-such-action"}, {"type": "roll", "dice": [0, 9]}, {"type": "capture", "piece": "nowhere"}]
    for state in trail[:: max(1, len(trail) // 10)]:
        if state.is_terminal():
            continue
        before = copy.deepcopy(state.to_json())
        for action in junk:
            with pytest.raises(GameError) as info:
                state.apply(action)
            assert str(info.value), "a refusal must say why"
            assert state.to_json() == before


@pytest.mark.parametrize("name", PRESENT)
def test_legality_has_one_hook(name):
    """``problem`` is the one legality hook: ``is_legal`` and ``explain_illegal`` come from the core, and
    ``problem`` accepts every listed action and refuses (with a reason) a mutated one."""
    game, _, trail = _random_game(name, 3, max_actions=200)
    state_class = type(game.new_initial_state())
    assert state_class.is_legal is State.is_legal and state_class.explain_illegal is State.explain_illegal
    for state in trail[:: max(1, len(trail) // 20)]:
        actions = state.legal_actions()[:30]
        assert all(state.problem(a) is None for a in actions)
        wrong = dict(actions[0], type="no-such-action") if actions else {"type": "no-such-action"}
        error = state.problem(wrong)
        assert isinstance(error, GameError) and str(error)
        assert not state.is_legal(wrong) and state.explain_illegal(wrong) is not None


@pytest.mark.parametrize("name", PRESENT)
def test_typed_words_at_a_decision_are_refused_not_a_crash(name):
    """Every game's view has the whole TextView interface, so the terminal and the app can hand it
    anything typed: a word that is no move is refused with a plain message."""
    view = load_game(name).text_view()
    assert isinstance(view, TextView)
    _, _, trail = _random_game(name, seed=5, max_actions=200)
    decision = next(s for s in trail if not s.is_chance_node() and not s.is_terminal())
    with pytest.raises(GameError):
        view.parse_action(decision, "fly to the moon")
