"""Scripted positions for the card rules: placing, moving, claiming, ambushing, exposing, winning."""

import pytest
from fa_support import make_game, move, place, position, refused, row

from companion.games.core import TERMINAL, IllegalAction


def hawk_row(*xs, y=-1, kind="HM"):
    return row(kind, [(x, y) for x in xs])


# --- winning ------------------------------------------------------------------------------------
@pytest.mark.rules("FA-WIN-1", "FA-DUEL-PATH")
def test_five_in_a_row_wins_at_once_and_four_do_not():
    game = make_game("duel")
    table = {**hawk_row(0, 1, 2, 3), (0, 0): "HF", (1, 0): "EF", (2, 0): "EM"}
    state = position(game, table)
    assert game.path == [5, 5]
    assert not state.is_terminal()
    for x in (4, -1):
        after = state.clone()
        after.apply(place("marker", x, -1))
        assert after.is_terminal() and after.current_player == TERMINAL
        assert after.winners() == [0] and after.scores() == [1.0, 0.0]
        assert refused(after, place("marker", 0, -2)) == "FA-WIN-1"
    # a cell whose top card is another noble's breaks the path
    table[(2, -1)] = "HM EB"
    state = position(game, table)
    state.apply(place("marker", 4, -1))
    assert not state.is_terminal()


@pytest.mark.rules("FA-DUEL-PATH", "FA-FALC-1")
def test_a_path_completed_by_a_move_wins():
    game = make_game("duel")
    table = {**hawk_row(0, 1, 3, 4), (2, 0): "HF", (0, 0): "EM", (1, 0): "EF"}
    state = position(game, table, hands=[[0, 1, 0], [17, 1, 0]])
    state.apply(move(2, 0, 2, -1))
    assert state.winners() == [0]


@pytest.mark.rules("FA-WIN-DIAG")
def test_diagonals_count_unless_the_option_turns_them_off():
    table = {
        (0, 0): "HM",
        (1, 1): "HM",
        (2, 2): "HM",
        (3, 3): "HM",
        (1, 0): "EM",
        (2, 1): "EM",
        (3, 2): "EM",
        (4, 3): "EM",
    }
    state = position(make_game("duel"), table)
    state.apply(place("marker", 4, 4))
    assert state.winners() == [0]
    anti = {(x, -x): "HM" for x in range(4)} | {(x, -x - 1): "EM" for x in range(5)}
    state = position(make_game("duel"), anti)
    state.apply(place("marker", 4, -4))
    assert state.winners() == [0]
    state = position(make_game("duel", diagonals=False), table)
    state.apply(place("marker", 4, 4))
    assert not state.is_terminal()


@pytest.mark.rules("FA-WIN-NOW")
def test_a_win_with_the_first_of_two_actions_ends_the_game():
    game = make_game("fast-duel")
    table = {**row("HM", [(x, 0) for x in range(5)]), **row("EM", [(x, 1) for x in range(4)])}
    state = position(game, table)
    assert state.actions_left == 2
    state.apply(place("marker", 5, 0))
    assert state.is_terminal() and state.winners() == [0]
    assert state.legal_actions() == []


# --- markers --------------------------------------------------------------------------------------
@pytest.mark.rules("FA-MARK-1")
def test_markers_go_on_open_cells_sharing_a_flat_side_with_any_card():
    state = make_game("duel").new_initial_state()
    assert refused(state, place("marker", 3, 3)) == "FA-MARK-1"  # touches nothing
    assert refused(state, place("marker", 2, 2)) == "FA-MARK-1"  # corner to corner only
    assert refused(state, place("marker", 0, 0)) == "FA-MARK-1"  # occupied
    assert refused(state, place("marker", 1, 1)) == "FA-MARK-1"  # occupied by the other noble
    assert state.is_legal(place("marker", 2, 1))  # beside Golden Eagle's falconer: any colour
    assert state.is_legal(place("marker", 0, -1))


@pytest.mark.rules("FA-MARK-2")
def test_a_marker_moves_only_on_a_later_turn():
    state = make_game("fast-duel").new_initial_state()
    state.apply(place("marker", 2, 0))
    assert refused(state, move(2, 0, 2, -1)) == "FA-MARK-2"
    state.apply(place("marker", 0, -1))
    state.apply(place("marker", 2, 1))  # Ben
    state.apply(place("marker", -1, 1))
    assert state.current_player == 0
    state.apply(move(2, 0, 1, -1))
    assert state.stacks[(1, -1)] == [0]


# --- birds -----------------------------------------------------------------------------------------
@pytest.mark.rules("FA-BIRD-1")
def test_birds_are_placed_and_moved_like_markers():
    game = make_game("duel")
    table = {(0, 0): "HF", (1, 0): "EF", (1, 1): "EB"}
    state = position(game, table)
    assert state.is_legal(place("bird", 0, -1))
    assert refused(state, place("bird", 5, 5)) == "FA-MARK-1"
    state.apply(place("bird", 0, -1))
    state.apply(place("marker", 2, 0))
    assert state.is_legal(move(0, -1, -1, 0))
    assert refused(state, move(0, -1, 0, -2)) == "FA-R-MOVE-ADJ"


@pytest.mark.rules("FA-BIRD-CLAIM")
def test_a_bird_claims_a_marker_until_it_moves():
    game = make_game("duel")
    table = {(0, 0): "HF", (1, 0): "EM", (2, 0): "EB", (0, 1): "HM", (1, 1): "EF"}
    state = position(game, table)
    assert refused(state, place("bird", 2, 0)) == "FA-BIRD-CLAIM"  # birds claim only markers
    assert refused(state, place("bird", 1, 1)) == "FA-R-STACK"
    own = state.clone()
    own.apply(place("bird", 0, 1))  # any marker, also one's own
    assert own.owner[(0, 1)] == 0
    state.apply(place("bird", 1, 0))
    assert state.owner[(1, 0)] == 0 and state.stacks[(1, 0)] == [4 + 0, 0 * 4 + 1]
    state.apply(place("marker", 3, 0))
    state.apply(move(1, 0, 0, -1))
    assert state.owner[(1, 0)] == 1 and state.owner[(0, -1)] == 0


# --- falconers ------------------------------------------------------------------------------------------
@pytest.mark.rules("FA-FALC-1")
def test_a_falconer_claims_markers_like_a_bird():
    table = {(0, 0): "HB", (1, 0): "EM", (1, 1): "EF"}
    state = position(make_game("duel"), table)
    assert state.is_legal(place("falconer", 2, 0))
    state.apply(place("falconer", 1, 0))
    assert state.owner[(1, 0)] == 0


@pytest.mark.rules("FA-FALC-AMBUSH")
def test_a_falconer_ambushes_another_nobles_bird_until_it_moves():
    table = {(0, 0): "HB", (1, 0): "EB", (1, 1): "EF", (0, 1): "HM"}
    state = position(make_game("duel"), table)
    assert refused(state, place("falconer", 0, 0)) == "FA-FALC-AMBUSH"  # own bird
    state.apply(place("falconer", 1, 0))
    assert state.owner[(1, 0)] == 0
    state.apply(place("marker", 2, 1))
    state.apply(move(1, 0, -1, 0))
    assert state.owner[(1, 0)] == 1


# --- exposing --------------------------------------------------------------------------------------
@pytest.mark.rules("FA-EXPOSE")
def test_lifting_a_card_off_an_opponents_finished_path_is_refused():
    table = {**row("EM", [(0, -1), (1, -1), (3, -1), (4, -1)]), (2, -1): "EM HF", (2, 0): "HM", (0, 0): "EF"}
    state = position(make_game("duel"), table, hands=[[10, 1, 0], [10, 1, 0]])
    # the adjacent cell too (the rulebook's example), and even re-covering another cell of the line
    for target in [(2, -2), (5, -1), (3, 0), (1, 0), (1, -1)]:
        assert refused(state, move(2, -1, *target)) == "FA-EXPOSE"
    table[(4, -1)] = "HM"  # with the path beneath broken elsewhere, the falconer may leave
    state = position(make_game("duel"), table, hands=[[9, 1, 0], [11, 1, 0]])
    assert state.is_legal(move(2, -1, 2, -2))


@pytest.mark.rules("FA-EXPOSE", "FA-COVER-WIN")
def test_exposing_is_refused_even_when_the_move_would_win():
    table = {
        **row("EM", [(0, -1), (1, -1), (3, -1), (4, -1)]),
        (2, -1): "EM HF",
        **row("HM", [(0, 1), (1, 1), (3, 1), (4, 1)]),
    }
    table[(2, 1)] = "EM"
    state = position(make_game("duel"), table)
    assert refused(state, move(2, -1, 2, 1)) == "FA-EXPOSE"
    state.apply(place("bird", 2, 1))  # but the bird may claim it and win
    assert state.winners() == [0]


@pytest.mark.rules("FA-COVER-WIN", "FA-FALC-AMBUSH")
def test_an_ambush_can_complete_a_path():
    table = {**hawk_row(0, 1, 3, 4), (2, -1): "EB", (2, 0): "EF"}
    state = position(make_game("duel"), table)
    state.apply(place("falconer", 2, -1))
    assert state.winners() == [0]


@pytest.mark.rules("FA-OWN")
def test_no_noble_moves_another_nobles_card():
    state = make_game("duel").new_initial_state()
    assert refused(state, move(1, 1, 2, 1)) == "FA-OWN"
    assert refused(state, move(0, 1, -1, 0)) == "FA-OWN"
    assert all(state.stacks[tuple(a["from"])][-1] >> 2 == 0 for a in state.legal_actions() if a["type"] == "move")


# --- rulings ----------------------------------------------------------------------------------------
@pytest.mark.rules("FA-R-TOP")
def test_only_the_top_card_moves():
    table = {(0, 0): "HM EB", (1, 0): "HM HB", (0, 1): "EF", (1, 1): "HF"}
    state = position(make_game("duel"), table)
    error = state.explain_illegal(move(0, 0, -1, 0))
    assert isinstance(error, IllegalAction) and error.rule_id == "FA-R-TOP" and "covered" in error.message
    state.apply(move(1, 0, 2, 0))  # the bird leaves, the marker stays
    assert state.stacks[(1, 0)] == [0] and state.stacks[(2, 0)] == [1]
    assert refused(state, move(5, 5, 5, 6)) == "FA-R-TOP"


@pytest.mark.rules("FA-R-STACK")
def test_nothing_goes_on_a_falconer():
    table = {(0, 0): "HF", (1, 0): "EM EF", (0, 1): "HM"}
    state = position(make_game("duel"), table)
    assert refused(state, place("bird", 1, 0)) == "FA-R-STACK"
    assert refused(state, place("marker", 1, 0)) == "FA-MARK-1"
    assert refused(state, move(0, 0, 1, 0)) == "FA-R-STACK"


@pytest.mark.rules("FA-R-MOVE-ADJ")
def test_a_moved_card_must_touch_a_card_other_than_itself():
    table = {(0, 0): "EF", (1, 0): "EM", (2, 0): "HM", (0, 1): "HF"}
    state = position(make_game("duel"), table)
    assert refused(state, move(2, 0, 3, 0)) == "FA-R-MOVE-ADJ"  # its only neighbour would be itself
    assert refused(state, move(2, 0, 2, 0)) == "FA-R-MOVE-ADJ"
    assert state.is_legal(move(2, 0, 1, -1))
    table[(2, 0)] = "EM HB"  # lifted off a stack, the card left below still counts as a neighbour
    state = position(make_game("duel"), table)
    assert state.is_legal(move(2, 0, 3, 0))


@pytest.mark.rules("FA-R-TWO-CARDS")
def test_two_actions_move_two_different_cards():
    state = make_game("fast-duel").new_initial_state()
    state.apply(move(0, 0, 0, 2))  # the falconer
    assert refused(state, move(0, 2, -1, 1)) == "FA-R-TWO-CARDS"
    assert state.is_legal(move(1, 0, 2, 1))


@pytest.mark.rules("FA-R-SPLIT")
def test_a_move_may_split_the_table():
    table = {(0, 0): "HM", (1, 0): "HM", (2, 0): "EM", (0, 1): "EF"}
    state = position(make_game("duel"), table)
    state.apply(move(1, 0, -1, 1))
    assert (2, 0) in state.stacks and not any(
        (2 + dx, dy) in state.stacks for dx, dy in [(1, 0), (-1, 0), (0, 1), (0, -1)]
    )


@pytest.mark.rules("FA-HAND")
def test_only_cards_in_hand_are_placed_and_an_empty_hand_moves():
    state = make_game("duel").new_initial_state()
    assert refused(state, place("bird", 2, 0)) == "FA-HAND"
    table = {(0, 0): "HF", (1, 0): "EF", (1, 1): "EB"}
    state = position(make_game("duel"), table, hands=[[0, 0, 0], [18, 0, 0]])
    actions = state.legal_actions()
    assert actions and all(a["type"] == "move" for a in actions)
    assert refused(state, place("marker", 0, -1)) == "FA-HAND"


@pytest.mark.rules("FA-R-PASS")
def test_a_noble_without_any_legal_action_passes():
    table = {**row("EM", [(0, -1), (1, -1), (3, -1), (4, -1)]), (2, -1): "EM HF"}
    state = position(make_game("duel"), table, hands=[[0, 0, 0], [14, 1, 1]])
    assert state.legal_actions() == [{"type": "pass"}]
    state.apply({"type": "pass"})
    assert state.current_player == 1
    assert refused(state, {"type": "pass"}) == "FA-R-PASS"
