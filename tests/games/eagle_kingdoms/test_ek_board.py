"""The board data: pieces, locks, dice, and the rulebook's lock examples."""

import pytest
from ek_helpers import MISS, capture, new_state, roll, to_enchanted

from companion.games.core import IllegalAction, InvalidAction
from companion.games.eagle_kingdoms.rules import (
    BOARD,
    BOARD_PIECES,
    COUNTS,
    ENCHANTED_SIDES,
    LOCK_MASK,
    LOCKED_BY,
    N_PIECES,
    PIECE_DICE,
    PIECE_IDS,
    PIECE_INDEX,
    SHIELD,
    TOTAL_CHARACTERS,
)


@pytest.mark.rules("EK-CONTENT-1")
def test_contents():
    assert N_PIECES == 46
    assert TOTAL_CHARACTERS == sum(COUNTS) == 45
    assert ENCHANTED_SIDES == 8
    state = new_state()
    assert state.chance_request().dice == ("d6", "d6")
    to_enchanted(state, 8)  # the d8 accepted every face 1-8 on the way
    state = new_state()
    roll(state, *MISS)
    state.apply({"type": "roll-enchanted"})
    assert state.chance_request().dice == ("d8",)
    assert [a["face"] for a in state.legal_actions()] == list(range(1, 9))


@pytest.mark.rules("EK-CONTENT-1", "EK-PLAY-ROLL")
def test_dice_values_become_the_roll_action():
    state = new_state()
    assert state.chance_request().faces == ((1, 2, 3, 4, 5, 6),) * 2
    assert state.chance_action([5, 3]) == {"type": "roll", "dice": [3, 5]}  # the regular dice are alike
    with pytest.raises(InvalidAction, match="die 2 shows 1-6; 7"):
        state.chance_action([5, 7])
    roll(state, *MISS)
    state.apply({"type": "roll-enchanted"})
    assert state.chance_request().faces == (tuple(range(1, 9)),)
    assert state.chance_action(["8"]) == {"type": "enchanted", "face": 8}
    with pytest.raises(InvalidAction, match="enchanted shows 1-8; 9"):
        state.chance_action([9])


@pytest.mark.rules("EK-SETUP-BOARD")
def test_board_data_is_consistent():
    ids = [p["id"] for p in BOARD["pieces"]]
    assert len(ids) == len(set(ids)) == 46
    assert PIECE_IDS[SHIELD] == "shield" and PIECE_DICE[SHIELD] is None
    for p in BOARD_PIECES:
        a, b = PIECE_DICE[p]
        assert 1 <= a <= b <= 6
    pairs = {PIECE_DICE[p] for p in BOARD_PIECES}
    assert pairs == {(a, b) for a in range(1, 7) for b in range(a, 7)}, "every pair on at least one piece"
    for piece in BOARD["pieces"]:
        x, y = piece["centre_mm"]
        assert 0 <= x <= 500 and 0 <= y <= 500
        assert all(q in PIECE_INDEX and q != piece["id"] for q in piece["locked_by"])
    for pid in ("crown-left", "plume-left-1", "tail-feather-4", "neck", "wing-right", "orb", "sceptre", "leg-left"):
        assert pid in PIECE_INDEX


@pytest.mark.rules("EK-SETUP-BOARD", "EK-FINAL-1")
def test_locks_are_acyclic_and_the_shield_is_the_last_piece():
    # peel the board layer by layer: every piece becomes available, the shield last
    present = (1 << N_PIECES) - 1
    order = []
    while present:
        layer = [p for p in range(N_PIECES) if present >> p & 1 and not LOCK_MASK[p] & present]
        assert layer, "a cycle of locks"
        if SHIELD in layer:
            assert present == 1 << SHIELD, "the shield is available only when every other piece is gone"
        order.extend(layer)
        for p in layer:
            present &= ~(1 << p)
    assert order[-1] == SHIELD


@pytest.mark.rules("EK-CAP-OUTER")
def test_only_outermost_pieces_are_available_at_start():
    state = new_state()
    expected = {PIECE_IDS[p] for p in BOARD_PIECES if not LOCKED_BY[p]}
    assert {PIECE_IDS[p] for p in state.available_pieces()} == expected
    assert "covert-left-1" not in expected
    to_enchanted(state, 7)  # take any *available* piece
    with pytest.raises(IllegalAction) as info:
        state.apply({"type": "take", "piece": "covert-left-1"})
    assert info.value.rule_id == "EK-CAP-OUTER" and "feather-left-1" in info.value.message


def _take_refused(state, piece):
    before = state.to_json()
    with pytest.raises(IllegalAction) as info:
        state.apply({"type": "take", "piece": piece})
    assert state.to_json() == before
    return info.value.rule_id


@pytest.mark.rules("EK-CAP-CROWN")
def test_crown_locked_by_its_plume():
    assert [PIECE_IDS[q] for q in LOCKED_BY[PIECE_INDEX["crown-left"]]] == ["plume-left-1"]
    state = new_state()
    to_enchanted(state, 7)
    assert _take_refused(state, "crown-left") == "EK-CAP-CROWN"
    state = new_state()
    roll(state, 1, 3)
    capture(state, "plume-left-1")
    to_enchanted(state, 7)
    state.apply({"type": "take", "piece": "crown-left"})
    assert not state.present >> PIECE_INDEX["crown-left"] & 1


@pytest.mark.rules("EK-CAP-NECK")
def test_neck_locked_by_four_pieces_of_both_heads():
    lockers = {PIECE_IDS[q] for q in LOCKED_BY[PIECE_INDEX["neck"]]}
    assert lockers == {"head-left", "beak-left", "head-right", "beak-right"}
    state = new_state()
    to_enchanted(state, 7)
    assert _take_refused(state, "neck") == "EK-CAP-NECK"
    # all of both heads gone except the right beak: still locked
    from ek_helpers import remove_pieces

    state = new_state()
    remove_pieces(state, ["plume-left-1", "plume-left-2", "crown-left", "beak-left", "head-left",
                          "plume-right-1", "plume-right-2", "crown-right", "head-right"])
    assert not state.is_available(PIECE_INDEX["neck"])
    remove_pieces(state, ["beak-right"])
    assert state.is_available(PIECE_INDEX["neck"])


@pytest.mark.rules("EK-CAP-WING")
def test_wing_locked_by_the_feathers_touching_it():
    assert {PIECE_IDS[q] for q in LOCKED_BY[PIECE_INDEX["wing-left"]]} == {"covert-left-1", "covert-left-2", "covert-left-3"}
    state = new_state()
    to_enchanted(state, 7)
    assert _take_refused(state, "wing-right") == "EK-CAP-WING"


@pytest.mark.rules("EK-CAP-TAIL")
def test_upper_tail_locked_by_tail_leg_sceptre_and_orb():
    lockers = {PIECE_IDS[q] for q in LOCKED_BY[PIECE_INDEX["tail-upper"]]}
    assert lockers == {"tail-feather-5", "tail-feather-6", "tail-feather-7", "leg-left", "leg-right", "orb", "sceptre"}
    state = new_state()
    to_enchanted(state, 7)
    assert _take_refused(state, "tail-upper") == "EK-CAP-TAIL"
