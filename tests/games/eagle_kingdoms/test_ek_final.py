"""The final step (the centre shield), scoring, kingdoms and winners."""

import pytest
from ek_helpers import final_step, hand, roll, set_hand

from companion.games.core import TERMINAL, IllegalAction
from companion.games.eagle_kingdoms.rules import CAPTURE, KIND_INDEX, OVER, ROLL, SECOND, score_of


def counts(**kinds):
    c = [0] * 11
    for kind, n in kinds.items():
        c[KIND_INDEX[kind]] = n
    return c


@pytest.mark.rules("EK-FINAL-1")
@pytest.mark.parametrize("n", range(2, 12))
def test_the_shield_needs_a_sum_equal_to_its_characters(n):
    state = final_step({"peasant": min(n, 5), "squire": max(0, n - 5)})
    assert state.shield_count() == n
    hits = [(a, b) for a in range(1, 7) for b in range(a, 7) if state.matching_pieces([a, b])]
    assert hits and all(a + b == n for a, b in hits)
    assert len(hits) == len({(a, n - a) for a in range(1, 7) if a <= n - a and 1 <= n - a <= 6})


@pytest.mark.rules("EK-FINAL-1")
def test_capturing_the_shield_before_the_final_step_is_refused():
    from ek_helpers import new_state

    state = new_state()
    roll(state, 1, 3)
    with pytest.raises(IllegalAction) as info:
        state.apply({"type": "capture", "piece": "shield"})
    assert info.value.rule_id == "EK-FINAL-1"


@pytest.mark.rules("EK-FINAL-2")
@pytest.mark.parametrize("n", [1, 12, 14])
def test_one_or_twelve_plus_characters_need_any_double_but_6_6(n):
    shield = {"peasant": 1} if n == 1 else {"peasant": 5, "squire": 5, "vendor": n - 10}
    state = final_step(shield)
    assert state.shield_count() == n
    hits = [(a, b) for a in range(1, 7) for b in range(a, 7) if state.matching_pieces([a, b])]
    assert hits == [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5)]
    roll(state, 6, 6)
    assert state.phase == ROLL and state.player == 1  # 6:6 forfeits (Ann has nothing) and ends the turn


@pytest.mark.rules("EK-R-SHIELD-ZERO")
def test_an_empty_shield_is_won_with_any_double_but_6_6():
    state = final_step({})
    assert state.shield_count() == 0
    roll(state, 3, 3)
    assert state.phase == CAPTURE
    state.apply({"type": "capture", "piece": "shield"})
    assert state.is_terminal()


@pytest.mark.rules("EK-FINAL-3")
def test_two_roll_rule_in_the_final_step():
    state = final_step({"king": 1, "queen": 1, "knight": 1, "duke": 1, "peasant": 1})  # needs 5
    roll(state, 1, 1)
    assert state.phase == SECOND
    state.apply({"type": "roll-again"})
    roll(state, 2, 3)
    state.apply({"type": "capture", "piece": "shield"})
    assert state.is_terminal()


@pytest.mark.rules("EK-FINAL-4")
def test_the_required_roll_follows_the_shield():
    state = final_step({"peasant": 4}, holdings={0: {"king": 1}, 1: {"queen": 1}})
    assert state.shield_needs() == "a sum of 4"
    roll(state, 6, 6)  # Ann forfeits her King: 5 on the shield
    assert state.shield_count() == 5 and state.player == 1
    assert state.shield_needs() == "a sum of 5"
    roll(state, 1, 3)  # 4 no longer wins
    assert state.phase == SECOND
    state.apply({"type": "roll-enchanted"})
    state.apply({"type": "enchanted", "face": 2})
    state.apply({"type": "forfeit", "kind": "queen"})
    assert state.shield_count() == 6 and state.player == 2
    state.apply({"type": "roll-dice"})  # Cy holds the leftover Jesters: he rolls instead of trading one
    roll(state, 2, 4)
    assert state.phase == CAPTURE


@pytest.mark.rules("EK-FINAL-5")
def test_capturing_the_shield_takes_everything_and_ends_the_game():
    state = final_step({"king": 2, "queen": 1}, holdings={0: {"peasant": 1}})
    roll(state, 1, 2)
    assert state.action_to_string({"type": "capture", "piece": "shield"}) == "Ann captures the centre shield with 3 characters and ends the game"
    state.apply({"type": "capture", "piece": "shield"})
    assert state.phase == OVER and state.current_player == TERMINAL and state.is_terminal()
    assert hand(state, 0) == {"king": 2, "queen": 1, "peasant": 1}
    assert state.shield_count() == 0 and state.present == 0
    assert state.legal_actions() == []
    with pytest.raises(IllegalAction) as info:
        state.apply({"type": "roll", "dice": [1, 2]})
    assert info.value.rule_id == "EK-FINAL-5"
    assert state.check_invariants() == []


@pytest.mark.rules("EK-SCORE-1")
def test_score_is_the_sum_of_face_values():
    assert score_of(counts(king=2, queen=1, peasant=3, jester=2)) == 32
    state = final_step({"king": 1})
    set_hand(state, 1, {"duke": 1, "vendor": 2})
    assert state.scores()[1] == 13


@pytest.mark.rules("EK-SCORE-2")
def test_complete_kingdoms_earn_fifteen_each():
    one_of_each = counts(king=1, queen=1, duchess=1, duke=1, knight=1, minstrel=1, merchant=1, vendor=1, squire=1, peasant=1)
    assert score_of(one_of_each) == 70
    assert score_of([c * 2 for c in one_of_each]) == 140
    missing_peasant = list(one_of_each)
    missing_peasant[KIND_INDEX["peasant"]] = 0
    missing_peasant[KIND_INDEX["jester"]] = 3  # Jesters do not complete a kingdom
    assert score_of(missing_peasant) == 54


@pytest.mark.rules("EK-WIN-1", "EK-OBJECT-1")
def test_the_most_points_win():
    state = final_step({"peasant": 1}, holdings={0: {"king": 1}, 1: {"queen": 3}})
    assert state.winners() == []  # still playing
    roll(state, 2, 2)
    state.apply({"type": "capture", "piece": "shield"})
    scores = state.scores()
    assert scores[1] == 27 and state.winners() == [scores.index(max(scores))]


@pytest.mark.rules("EK-R-TIE")
def test_a_tie_is_a_shared_win():
    state = final_step({"peasant": 1}, players=("Ann", "Ben"), holdings={0: {"king": 2}, 1: {"king": 2, "peasant": 1}})
    # give the leftovers to nobody: a clean tie after Ann takes the shield's Peasant
    state.hands[1] = counts(king=2, peasant=1)
    roll(state, 4, 4)
    state.apply({"type": "capture", "piece": "shield"})
    assert state.scores() == [21, 21] and state.winners() == [0, 1]

