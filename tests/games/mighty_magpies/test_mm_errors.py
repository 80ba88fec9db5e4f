"""Bad input: each refusal names the rule in plain words, and the state does not change."""

import random

import pytest
from mm_helpers import SETUP, decision_states, position, roll, turn

from companion.games.core import GameError, IllegalAction, InvalidAction
from companion.games.mighty_magpies.board import BOARD, TILE_KINDS

THREE = ("Ann", "Ben", "Cy")


def base():
    # Ann (to move) in R, dice red + magpie; Ben has 2 berries and a ring, Cy has only rings; nest G is empty
    return position(
        THREE,
        nests={"G": ""},
        holdings={1: {"berry": 2, "silver": 1}, 2: {"gold": 1}},
        dice=("red", "magpie"),
    )


@pytest.mark.rules("MM-MOVE-1", "MM-TAKE-2", "MM-STEAL-1", "MM-STEAL-2", "MM-CONTENTS-3", "MM-PLAY-2")
@pytest.mark.parametrize(
    "action, kind, rule, words",
    [
        (roll("red", "purple"), IllegalAction, "MM-PLAY-2", "already rolled"),
        (turn(("y1", "berry"), steal=[1]), IllegalAction, "MM-MOVE-1", "y1 is yellow, but the dice show red"),
        (turn(("r1", None), steal=[{"player": 1, "tile": "silver"}]), IllegalAction, "MM-STEAL-2", "Rings are never"),
        (turn(("r1", None), steal=[2]), IllegalAction, "MM-STEAL-1", "Cy has no berries"),
        (turn(("r1", "berry"), steal=[1]), IllegalAction, "MM-TAKE-2", "Nest G is empty"),
        (turn(("r1", "ruby"), steal=[1]), InvalidAction, "MM-TAKE-1", "take 'berry', 'silver' or 'gold'"),
        ({"type": "turn", "steps": "r1"}, InvalidAction, "MM-PLAY-2", "as lists"),
        ({"type": "turn", "steps": [{"route": 3}]}, InvalidAction, "MM-MOVE-1", "must name a route"),
        ({"type": "turn", "steps": [], "steal": [1], "bonus": 1}, InvalidAction, "MM-PLAY-2", "unknown key 'bonus'"),
        ({"type": "fly"}, InvalidAction, "MM-PLAY-2", "no action 'fly'"),
        (SETUP, IllegalAction, "MM-SETUP-1", "already set up"),
    ],
)
def test_bad_input_is_refused_with_the_rule_and_the_state_is_unchanged(action, kind, rule, words):
    state = base()
    before = state.to_json()
    explained = state.explain_illegal(action)
    assert isinstance(explained, kind) and explained.rule_id == rule and words in explained.message
    with pytest.raises(kind, match=words.replace("(", r"\(")):
        state.apply(action)
    assert state.to_json() == before


@pytest.mark.rules("MM-CONTENTS-3")
def test_a_roll_with_a_face_that_does_not_exist():
    state = position()
    for faces in (["red", "purple"], ["red"], "red magpie", ["red", "red", "red"]):
        with pytest.raises(InvalidAction) as info:
            state.apply({"type": "roll", "faces": faces})
        assert info.value.message
    assert state.chance_request().faces == (("yellow", "red", "blue", "green", "magpie"),) * 2
    assert state.chance_action(["magpie", "Red"]) == {"type": "roll", "faces": ["red", "magpie"]}
    with pytest.raises(InvalidAction, match="die 2 shows yellow, red, blue, green, magpie; 'purple'"):
        state.chance_action(["red", "purple"])
    assert state.phase == "roll"


def _candidates(state, rng, count=60):
    legal = state.legal_actions()
    n = state.game.num_players
    for _ in range(count):
        if rng.random() < 0.5:
            action = {"type": "turn", "steps": [dict(s) for s in rng.choice(legal)["steps"]], "steal": []}
            action["steal"] = list(rng.choice(legal)["steal"])
        else:
            steps = [
                {"route": rng.choice(BOARD.route_ids), "take": rng.choice((None,) + TILE_KINDS)}
                for _ in range(rng.choice((0, 1, 1, 2, 2, 3)))
            ]
            action = {
                "type": "turn",
                "steps": steps,
                "steal": sorted(rng.randrange(n) for _ in range(rng.choice((0, 1, 2)))),
            }
        if action["steps"] and rng.random() < 0.5:
            step = rng.choice(action["steps"])
            step["take"] = rng.choice((None,) + TILE_KINDS)
        yield action


@pytest.mark.rules("MM-MOVE-1", "MM-MOVE-2", "MM-TAKE-1", "MM-STEAL-1", "MM-STEAL-6")
def test_diagnosis_agrees_with_the_enumerated_legal_turns():
    """is_legal (a rule-by-rule diagnosis) accepts exactly the enumerated turns, and names a rule otherwise."""
    rng = random.Random(3)
    checked = refused = 0
    for state in decision_states(THREE, seeds=range(6)):
        legal = state.legal_actions()
        assert len({repr(a) for a in legal}) == len(legal), "duplicate turns in the menu"
        for action in legal:
            assert state.is_legal(action), action
        for action in _candidates(state, rng):
            checked += 1
            assert state.is_legal(action) == (action in legal), action
            if action not in legal:
                refused += 1
                error = state.explain_illegal(action)
                assert isinstance(error, GameError) and error.rule_id and error.rule_id.startswith("MM-")
    assert checked > 1000 and refused > 300
