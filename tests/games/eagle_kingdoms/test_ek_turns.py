"""Scripted turns with chosen dice: capturing, the two roll rule, double sixes, Jesters."""

import pytest
from ek_helpers import MISS, capture, hand, miss_pair, new_state, remove_pieces, roll, set_hand

from companion.games.core import CHANCE, ConfigError, IllegalAction
from companion.games.eagle_kingdoms.rules import CAPTURE, KIND_INDEX, PIECE_INDEX, ROLL, SECOND, START

PLACE = {"plume-left-1": "king", "feather-left-5": "peasant", "feather-right-2": "queen", "crown-left": "duke"}


def turn_of(state):
    return state.player_name(state.player)


@pytest.mark.rules("EK-PLAY-ROLL")
def test_turn_starts_with_a_roll_of_two_dice():
    state = new_state(place=PLACE)
    assert state.current_player == CHANCE and state.phase == ROLL
    assert state.chance_request().dice == ("d6", "d6")
    assert len(state.legal_actions()) == 21
    before = state.to_json()
    with pytest.raises(IllegalAction) as info:
        capture(state, "plume-left-1")
    assert info.value.rule_id == "EK-PLAY-ROLL" and state.to_json() == before


@pytest.mark.rules("EK-CAP-MATCH", "EK-CAP-CHOOSE")
def test_capture_a_matching_available_piece_of_your_choice():
    state = new_state(place=PLACE)
    roll(state, 3, 1)
    assert state.phase == CAPTURE
    assert state.legal_actions() == [
        {"type": "capture", "piece": "plume-left-1"},
        {"type": "capture", "piece": "feather-left-5"},
        {"type": "pass"},
    ]
    before = state.to_json()
    with pytest.raises(IllegalAction) as info:
        capture(state, "plume-left-2")  # available, shows 3:3
    assert info.value.rule_id == "EK-CAP-MATCH" and "3:3" in info.value.message
    assert state.to_json() == before
    assert state.action_to_string({"type": "capture", "piece": "plume-left-1"}) == "Ann captures the King (10) from plume-left-1"
    capture(state, "plume-left-1")
    assert hand(state, 0) == {"king": 1}
    assert not state.present >> PIECE_INDEX["plume-left-1"] & 1
    assert state.scores() == [10, 0, 0]
    # Ben rolls 1:3 too: only the other piece is left to capture
    roll(state, 1, 3)
    with pytest.raises(IllegalAction) as info:
        capture(state, "plume-left-1")
    assert info.value.rule_id == "EK-CAP-CHOOSE" and "already been captured" in info.value.message
    capture(state, "feather-left-5")
    assert hand(state, 1) == {"peasant": 1}


@pytest.mark.rules("EK-CAP-ONE", "EK-TWO-1")
def test_a_capture_on_the_first_roll_ends_the_turn():
    state = new_state(place=PLACE)
    roll(state, 1, 3)
    capture(state, "plume-left-1")
    assert turn_of(state) == "Ben" and state.phase == ROLL and state.roll_no == 1
    with pytest.raises(IllegalAction):
        capture(state, "feather-left-5")  # no second capture for Ann on that roll
    with pytest.raises(IllegalAction):
        state.apply({"type": "roll-again"})


@pytest.mark.rules("EK-TWO-2")
def test_a_miss_offers_a_second_roll_or_the_enchanted_die_then_the_turn_ends():
    state = new_state(place=PLACE)
    roll(state, *MISS)
    assert state.phase == SECOND and turn_of(state) == "Ann"
    assert state.legal_actions() == [{"type": "roll-again"}, {"type": "roll-enchanted"}]
    state.apply({"type": "roll-again"})
    assert state.phase == ROLL and state.roll_no == 2
    roll(state, *MISS)
    assert turn_of(state) == "Ben" and state.roll_no == 1  # missed twice: turn over
    roll(state, *MISS)
    state.apply({"type": "roll-enchanted"})
    state.apply({"type": "enchanted", "face": 8})
    assert turn_of(state) == "Cy"


@pytest.mark.rules("EK-TWO-3")
def test_the_second_roll_can_capture():
    state = new_state(place=PLACE)
    roll(state, *MISS)
    state.apply({"type": "roll-again"})
    roll(state, 1, 3)
    assert state.phase == CAPTURE
    capture(state, "plume-left-1")
    assert hand(state, 0) == {"king": 1} and turn_of(state) == "Ben"


@pytest.mark.rules("EK-R-DECLINE", "EK-CAP-MATCH")
def test_declining_a_possible_capture_ends_the_turn():
    state = new_state(place=PLACE)
    roll(state, 1, 3)
    before = state.to_json()
    with pytest.raises(IllegalAction) as info:
        state.apply({"type": "roll-again"})
    assert info.value.rule_id == "EK-R-DECLINE" and state.to_json() == before
    state.apply({"type": "pass"})
    assert turn_of(state) == "Ben" and state.phase == ROLL and hand(state, 0) == {}


@pytest.mark.rules("EK-TWO-2", "EK-R-SECOND-SKIP")
def test_after_a_miss_ending_the_turn_without_rolling_is_refused():
    """'You either may roll the two regular dice again, or roll the Enchanted Die': exactly two options, so a
    cautious player cannot dodge double sixes or the Enchanted Die's give and forfeit."""
    state = new_state(place=PLACE)
    roll(state, *MISS)
    before = state.to_json()
    with pytest.raises(IllegalAction) as info:
        state.apply({"type": "pass"})
    assert info.value.rule_id == "EK-TWO-2" and "not one of the two options" in info.value.message
    assert state.to_json() == before and turn_of(state) == "Ann" and state.phase == SECOND


@pytest.mark.rules("EK-R-SECOND-SKIP")
def test_the_house_rule_skip_second_try_brings_the_pass_back():
    state = new_state(place=PLACE, skip_second_try=True)
    roll(state, *MISS)
    assert state.legal_actions() == [{"type": "roll-again"}, {"type": "roll-enchanted"}, {"type": "pass"}]
    assert state.action_to_string({"type": "pass"}) == "Ann ends the turn without rolling again"
    state.apply({"type": "pass"})
    assert turn_of(state) == "Ben" and state.phase == ROLL
    with pytest.raises(ConfigError, match="Party Favor"):
        new_state(variant="party", skip_second_try=True)
    with pytest.raises(ConfigError, match="true or false"):
        new_state(skip_second_try="sometimes")


@pytest.mark.rules("EK-SIX-1")
def test_double_sixes_forfeit_the_highest_character():
    state = new_state(place=PLACE)
    remove_pieces(state, ["feather-right-2"])  # no 6:6 piece to capture
    set_hand(state, 0, {"king": 1, "peasant": 2, "jester": 1})
    text = state.action_to_string({"type": "roll", "dice": [6, 6]})
    assert "forfeits the King (10)" in text
    roll(state, 6, 6)
    assert hand(state, 0) == {"peasant": 2, "jester": 1}
    assert state.shield_count() == 1 and state.shield[KIND_INDEX["king"]] == 1
    # a player without characters is off the hook
    assert hand(state, 1) == {}
    roll(state, 6, 6)
    assert state.shield_count() == 1
    # on a second roll too
    roll(state, *miss_pair(state))
    state.apply({"type": "roll-again"})
    set_hand(state, 2, {"squire": 1, "jester": 1})
    roll(state, 6, 6)
    assert hand(state, 2) == {"jester": 1} and state.shield_count() == 2


@pytest.mark.rules("EK-SIX-2")
def test_double_sixes_on_the_first_roll_end_the_turn():
    state = new_state(place=PLACE)
    remove_pieces(state, ["feather-right-2"])
    roll(state, 6, 6)
    assert turn_of(state) == "Ben" and state.phase == ROLL
    with pytest.raises(IllegalAction):
        state.apply({"type": "roll-enchanted"})


@pytest.mark.rules("EK-R-SIX-CAPTURE", "EK-SIX-1")
def test_double_sixes_forfeit_first_then_may_capture_a_6_6_piece():
    state = new_state(place=PLACE)
    set_hand(state, 0, {"duchess": 1})
    roll(state, 6, 6)
    assert hand(state, 0) == {}  # the Duchess went to the shield before the capture
    assert state.legal_actions() == [{"type": "capture", "piece": "feather-right-2"}, {"type": "pass"}]
    capture(state, "feather-right-2")
    assert hand(state, 0) == {"queen": 1} and state.shield_count() == 1 and turn_of(state) == "Ben"


@pytest.mark.rules("EK-JESTER-1", "EK-R-JESTER")
def test_a_jester_holder_may_trade_it_instead_of_rolling():
    state = new_state(place=PLACE)
    set_hand(state, 1, {"jester": 1})
    state.shield[KIND_INDEX["queen"]] = 1
    roll(state, *MISS)
    state.apply({"type": "roll-again"})
    roll(state, *MISS)
    assert turn_of(state) == "Ben" and state.phase == START
    actions = state.legal_actions()
    assert actions[0] == {"type": "roll-dice"}
    assert {"type": "jester", "piece": "shield", "kind": "queen"} in actions
    assert {"type": "jester", "piece": "crown-left"} in actions  # locked pieces too
    assert {"type": "jester", "piece": "tail-feather-1"} not in actions  # a Jester for a Jester: no trade
    before = state.to_json()
    with pytest.raises(IllegalAction) as info:
        state.apply({"type": "jester", "piece": "tail-feather-1"})
    assert info.value.rule_id == "EK-R-JESTER" and state.to_json() == before
    with pytest.raises(IllegalAction) as info:
        capture(state, "plume-left-1")
    assert info.value.rule_id == "EK-JESTER-1"
    assert state.action_to_string({"type": "jester", "piece": "crown-left"}) == "Ben trades a Jester for the Duke (7) on crown-left"
    state.apply({"type": "jester", "piece": "crown-left"})
    assert hand(state, 1) == {"duke": 1}
    assert state.kind_on[PIECE_INDEX["crown-left"]] == KIND_INDEX["jester"]  # the Jester stands there now


@pytest.mark.rules("EK-JESTER-1", "EK-JESTER-2")
def test_jester_trade_from_the_shield_ends_the_turn():
    state = new_state(place=PLACE)
    set_hand(state, 0, {"jester": 1})
    state.shield[KIND_INDEX["king"]] = 2
    state._begin_turn(0)  # Ann's turn begins again, now holding a Jester
    state.turn = 1
    assert state.phase == START
    state.apply({"type": "jester", "piece": "shield", "kind": "king"})
    assert hand(state, 0) == {"king": 1}
    assert state.shield_count() == 2 and state.shield[KIND_INDEX["jester"]] == 1
    assert turn_of(state) == "Ben" and state.phase == ROLL  # no dice for Ann


@pytest.mark.rules("EK-JESTER-1")
def test_jester_holder_may_roll_as_usual():
    state = new_state(place=PLACE)
    set_hand(state, 0, {"jester": 1})
    state._begin_turn(0)
    state.apply({"type": "roll-dice"})
    assert state.phase == ROLL and state.roll_no == 1
    roll(state, 1, 3)
    capture(state, "plume-left-1")
    assert hand(state, 0) == {"jester": 1, "king": 1}
