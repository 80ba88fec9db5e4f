"""The Enchanted Die, face by face, with chosen dice."""

import pytest
from ek_helpers import final_step, hand, new_state, set_hand, to_enchanted

from companion.games.core import CHANCE, IllegalAction
from companion.games.eagle_kingdoms.rules import (
    CHALLENGE,
    DUEL,
    ENCHANTED_FACES,
    GIVE,
    KIND_INDEX,
    ROLL,
    TAKE,
    TRADE,
)


def ready(holdings):
    state = new_state()
    for player, holding in holdings.items():
        set_hand(state, player, holding)
    return state


def refused(state, action, rule):
    before = state.to_json()
    with pytest.raises(IllegalAction) as info:
        state.apply(action)
    assert info.value.rule_id == rule, info.value
    assert state.to_json() == before


def test_faces_come_from_the_data_file():
    assert [ENCHANTED_FACES[f]["effect"] for f in range(1, 9)] == [
        "give", "forfeit", "trade", "trade", "challenge", "challenge", "take", "blank",
    ]


@pytest.mark.rules("EK-ED-GIVE")
def test_face_1_give_is_not_optional():
    state = ready({0: {"king": 1, "peasant": 1}})
    to_enchanted(state, 1)
    assert state.phase == GIVE
    actions = state.legal_actions()
    assert {"type": "give", "kind": "peasant", "to": 2} in actions and len(actions) == 4  # 2 kinds x 2 players
    refused(state, {"type": "pass"}, "EK-ED-GIVE")
    refused(state, {"type": "give", "kind": "king", "to": 0}, "EK-ED-GIVE")
    refused(state, {"type": "give", "kind": "queen", "to": 1}, "EK-ED-GIVE")
    assert state.action_to_string({"type": "give", "kind": "peasant", "to": 2}) == "Ann gives a Peasant (1) to Cy"
    state.apply({"type": "give", "kind": "peasant", "to": 2})
    assert hand(state, 0) == {"king": 1} and hand(state, 2) == {"peasant": 1}
    assert state.player == 1 and state.phase == ROLL
    # nothing to give: the turn just ends
    to_enchanted(state, 1)
    assert state.player == 2 and state.phase == ROLL


@pytest.mark.rules("EK-ED-FORFEIT")
def test_face_2_forfeit_to_the_shield_is_not_optional():
    state = ready({0: {"knight": 1, "jester": 1}})
    to_enchanted(state, 2)
    assert state.legal_actions() == [{"type": "forfeit", "kind": "knight"}, {"type": "forfeit", "kind": "jester"}]
    refused(state, {"type": "pass"}, "EK-ED-FORFEIT")
    state.apply({"type": "forfeit", "kind": "jester"})
    assert hand(state, 0) == {"knight": 1} and state.shield[KIND_INDEX["jester"]] == 1
    to_enchanted(state, 2)  # Ben has nothing
    assert state.player == 2


@pytest.mark.rules("EK-ED-TRADE", "EK-R-TRADE")
@pytest.mark.parametrize("face", [3, 4])
@pytest.mark.parametrize("needed", ["vendor", "merchant"])
def test_faces_3_and_4_trade_with_a_vendor_or_a_merchant(face, needed):
    state = ready({0: {needed: 1, "peasant": 1}, 1: {"king": 1}})
    to_enchanted(state, face)
    assert state.phase == TRADE
    actions = state.legal_actions()
    assert actions[-1] == {"type": "pass"}
    assert {"type": "trade", "give": "peasant", "with": 1, "take": "king"} in actions
    assert {"type": "trade", "give": needed, "with": 1, "take": "king"} in actions  # the Vendor/Merchant may go too
    refused(state, {"type": "trade", "give": "peasant", "with": 2, "take": "king"}, "EK-ED-TRADE")
    state.apply({"type": "trade", "give": "peasant", "with": 1, "take": "king"})
    assert hand(state, 0) == {needed: 1, "king": 1} and hand(state, 1) == {"peasant": 1}
    assert state.player == 1


@pytest.mark.rules("EK-ED-TRADE", "EK-R-TRADE")
def test_trade_needs_a_vendor_or_merchant_is_optional_and_not_same_kind():
    state = ready({0: {"king": 1}, 1: {"king": 1, "queen": 1}})
    to_enchanted(state, 3)
    assert state.player == 1 and state.phase == ROLL  # no Vendor or Merchant: nothing happens
    state = ready({0: {"vendor": 1, "king": 1}, 1: {"king": 1}})
    to_enchanted(state, 4)
    refused(state, {"type": "trade", "give": "king", "with": 1, "take": "king"}, "EK-R-TRADE")
    state.apply({"type": "pass"})
    assert hand(state, 0) == {"vendor": 1, "king": 1} and state.player == 1


@pytest.mark.rules("EK-ED-CHALLENGE")
def test_faces_5_and_6_challenge_needs_a_knight_and_is_optional():
    state = ready({0: {"queen": 1}, 1: {"king": 1}})
    to_enchanted(state, 5)
    assert state.player == 1  # no Knight: no challenge
    state = ready({0: {"knight": 1}, 1: {"king": 1, "peasant": 1}, 2: {"jester": 1}})
    to_enchanted(state, 6)
    assert state.phase == CHALLENGE
    assert state.legal_actions() == [
        {"type": "challenge", "with": 1, "kind": "king"},
        {"type": "challenge", "with": 1, "kind": "peasant"},
        {"type": "challenge", "with": 2, "kind": "jester"},
        {"type": "pass"},
    ]
    refused(state, {"type": "challenge", "with": 2, "kind": "king"}, "EK-ED-CHALLENGE")
    state.apply({"type": "pass"})
    assert state.player == 1 and hand(state, 1) == {"king": 1, "peasant": 1}


@pytest.mark.rules("EK-ED-DUEL", "EK-ED-CHALLENGE")
@pytest.mark.parametrize("dice, won", [([4, 2], True), ([3, 3], True), ([2, 5], False)])
def test_challenge_dice_ties_go_to_the_challenger(dice, won):
    state = ready({0: {"knight": 1}, 1: {"king": 1}})
    to_enchanted(state, 5)
    state.apply({"type": "challenge", "with": 1, "kind": "king"})
    assert state.phase == DUEL and state.current_player == CHANCE
    assert state.chance_request().roles == ("challenger Ann", "defender Ben")
    assert state.chance_action(dice) == {"type": "duel", "dice": dice}  # ordered: challenger, defender
    assert len(state.chance_outcomes()) == 36
    state.apply({"type": "duel", "dice": dice})
    if won:
        assert hand(state, 0) == {"knight": 1, "king": 1} and hand(state, 1) == {}
    else:
        assert hand(state, 0) == {"knight": 1} and hand(state, 1) == {"king": 1}  # the Knight stays
    assert state.player == 1 and state.phase == ROLL


@pytest.mark.rules("EK-ED-TAKE")
def test_face_7_takes_any_available_piece_whatever_its_dice():
    state = new_state()
    to_enchanted(state, 7)
    assert state.phase == TAKE
    assert {a["piece"] for a in state.legal_actions()} == {"plume-left-1", "plume-left-2", "beak-left", "plume-right-1",
                                                            "plume-right-2", "beak-right", "orb-cross", "sceptre-head",
                                                            *(f"feather-left-{i}" for i in range(1, 7)),
                                                            *(f"feather-right-{i}" for i in range(1, 7)),
                                                            *(f"tail-feather-{i}" for i in range(1, 5))}
    refused(state, {"type": "pass"}, "EK-ED-TAKE")
    kind = state.kind_on[0]
    state.apply({"type": "take", "piece": "plume-left-1"})
    assert state.hands[0][kind] == 1 and state.player == 1


@pytest.mark.rules("EK-R-D8-BLANK")
def test_face_8_is_blank():
    state = ready({0: {"king": 1}})
    before = state.to_json()
    to_enchanted(state, 8)
    after = state.to_json()
    assert state.player == 1 and state.phase == ROLL
    assert after["hands"] == before["hands"] and after["board"] == before["board"] and after["shield"] == before["shield"]


@pytest.mark.rules("EK-R-TAKE-SHIELD")
def test_face_7_never_takes_the_shield():
    state = final_step({"king": 2})
    to_enchanted(state, 7)
    assert state.player == 1 and state.phase == ROLL and state.present  # nothing happened
    state = final_step({"king": 2})
    state.phase = TAKE  # even if asked directly
    refused(state, {"type": "take", "piece": "shield"}, "EK-R-TAKE-SHIELD")
