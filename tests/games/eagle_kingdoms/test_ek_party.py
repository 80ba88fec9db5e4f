"""The Party Favor variant and its optional third die."""

import random

import pytest
from ek_helpers import final_step, hand, new_state, remove_pieces, roll, set_hand

from companion.games.core import ConfigError, GameError, IllegalAction
from companion.games.eagle_kingdoms.rules import BOARD_PIECES, CAPTURE, PIECE_DICE, PIECE_IDS, ROLL, EagleKingdoms


@pytest.mark.rules("EK-PARTY-1")
def test_one_roll_per_turn_and_no_enchanted_die():
    state = new_state(variant="party")
    roll(state, 1, 4)  # a miss
    assert state.player == 1 and state.phase == ROLL
    roll(state, 1, 3)
    state.apply({"type": "capture", "piece": "plume-left-1"})
    assert state.player == 2
    roll(state, 2, 6)
    assert state.player == 0
    with pytest.raises(IllegalAction) as info:
        state.apply({"type": "roll-enchanted"})
    assert info.value.rule_id == "EK-PARTY-1"


@pytest.mark.rules("EK-PARTY-2")
def test_double_sixes_add_nothing_to_the_shield():
    state = new_state(variant="party")
    remove_pieces(state, ["feather-right-2"])
    set_hand(state, 0, {"king": 1})
    assert "forfeits" not in state.action_to_string({"type": "roll", "dice": [6, 6]})
    roll(state, 6, 6)
    assert hand(state, 0) == {"king": 1} and state.shield_count() == 0


@pytest.mark.rules("EK-PARTY-3")
def test_the_shield_is_won_with_double_sixes():
    state = final_step({}, variant="party")
    roll(state, 1, 1)
    assert state.player == 1
    roll(state, 6, 6)
    assert state.phase == CAPTURE
    state.apply({"type": "capture", "piece": "shield"})
    assert state.is_terminal()


@pytest.mark.rules("EK-R-PARTY")
def test_party_scores_count_favours_and_the_shield_taker_wins():
    state = final_step({}, variant="party", holdings={0: {"king": 1}, 1: {"peasant": 5, "jester": 1}})
    assert state.phase == ROLL  # no Jester trade offered in the party game
    assert state.scores()[:2] == [1, 6]
    roll(state, 1, 2)
    state.apply({"type": "roll", "dice": [6, 6]})  # Ben wins the grand prize
    state.apply({"type": "capture", "piece": "shield"})
    assert state.winners() == [1]
    state = final_step({}, variant="party", holdings={0: {"king": 1}, 1: {"peasant": 5}})
    roll(state, 6, 6)
    state.apply({"type": "capture", "piece": "shield"})
    assert state.winners() == [0]  # the Bird King, though Cy and Ben hold more favours


@pytest.mark.rules("EK-PARTY-4", "EK-R-THIRD-DIE")
def test_third_die_after_half_the_pieces():
    state = new_state(variant="party", third_die=True)
    gone = [PIECE_IDS[p] for p in BOARD_PIECES if state.is_available(p)][:22]
    remove_pieces(state, gone)
    assert state.dice_count() == 2 and state.chance_request().dice == ("d6", "d6")
    remove_pieces(state, [PIECE_IDS[p] for p in BOARD_PIECES if state.is_available(p)][:1])  # 23 of 46 gone
    assert state.dice_count() == 3 and state.chance_request().dice == ("d6", "d6", "d6")
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 56 and sum(p for _, p in outcomes) == pytest.approx(1)
    assert state.sample_chance(random.Random(1))["dice"] == sorted(state.sample_chance(random.Random(1))["dice"])
    with pytest.raises(GameError):
        roll(state, 1, 3)  # three dice now
    # any two of the three dice capture
    pairs = {}
    for p in BOARD_PIECES:
        if state.is_available(p):
            pairs.setdefault(PIECE_DICE[p], []).append(PIECE_IDS[p])
    (a, b), pieces = next(iter(pairs.items()))
    c = 6 if (a, b) != (6, 6) else 1
    roll(state, a, b, c)
    assert state.phase == CAPTURE
    options = {x["piece"] for x in state.legal_actions() if x["type"] == "capture"}
    assert set(pieces) <= options


@pytest.mark.rules("EK-R-THIRD-DIE", "EK-PARTY-3")
def test_third_die_shield_needs_two_sixes():
    game = EagleKingdoms(players=["Ann", "Ben"], variant="party-third-die")
    assert game.third_die
    state = final_step({}, players=("Ann", "Ben"), variant="party-third-die")
    assert state.dice_count() == 3
    roll(state, 1, 6, 5)
    assert state.player == 1
    roll(state, 6, 2, 6)
    assert state.phase == CAPTURE


def test_third_die_is_a_party_option():
    with pytest.raises(ConfigError):
        EagleKingdoms(players=["Ann", "Ben"], options={"third_die": True})
    with pytest.raises(ConfigError):
        EagleKingdoms(players=["Ann", "Ben"], options={"fourth_die": True})
    with pytest.raises(ConfigError):
        EagleKingdoms(players=["Ann"])


@pytest.mark.rules("EK-R-PARTY")
def test_the_party_game_shows_favours_not_characters_in_both_languages():
    """One character stands for one favour: no "Queen (9)", no points, in the menu, the effect and the board."""
    from companion.games import i18n
    from companion.games.eagle_kingdoms.view import EagleTextView

    view = EagleTextView()
    state = new_state(variant="party", place={"plume-left-1": "queen"})
    roll(state, 1, 3)
    capture = {"type": "capture", "piece": "plume-left-1"}
    assert state.action_to_string(capture) == "Ann captures the favour on plume-left-1"
    assert view.describe_choice(state, capture).startswith("Ann captures the favour on plume-left-1 - +1 favour for you")
    assert view.describe_choice(state, {"type": "pass"}) == "Ann passes (no capture, turn over) - ends your turn"
    board = view.render(state)
    assert "Queen" not in board and "(9)" not in board and "a favour" in board and "points" not in board
    german = i18n.describe_action(state, capture, "de", choice=True)
    assert german.startswith("Ann erobert den Gefallen auf plume-left-1 – +1 Gefallen für dich"), german
    assert "Königin" not in (i18n.board_text(state, "de") or "Königin")
    state.apply(capture)
    assert "Ann: 1 favour" in view.render(state)
    won = final_step({}, variant="party", holdings={0: {"king": 2}})
    roll(won, 6, 6)
    assert won.action_to_string({"type": "capture", "piece": "shield"}) == (
        "Ann captures the grand prize on the centre shield and ends the game"
    )
