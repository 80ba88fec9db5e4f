"""Turn order, rolling and flying from nest to nest, taking from nests (MM-PLAY-*, MM-MOVE-*, MM-TAKE-*)."""

import pytest
from mm_helpers import SETUP, game, position, roll, turn

from companion.games.core import CHANCE, IllegalAction, InvalidAction
from companion.games.mighty_magpies.board import BOARD


def nest(state, nest_id):
    return "".join(letter * n for letter, n in zip("bsg", state.nest_tiles(BOARD.nest_ids.index(nest_id)), strict=True))


def where(state, player):
    return BOARD.nest_ids[state.position(player)]


def refused(state, action, rule, words=None):
    before = state.to_json()
    with pytest.raises(IllegalAction, match=words) as info:
        state.apply(action)
    assert info.value.rule_id == rule, str(info.value)
    assert state.to_json() == before
    return info.value


@pytest.mark.rules("MM-PLAY-1")
def test_first_listed_player_begins_and_play_goes_clockwise():
    state = game(("Youngest", "Next", "Third")).new_initial_state()
    state.apply(SETUP)
    order = []
    for _ in range(4):
        state.apply(roll("magpie", "magpie"))
        order.append(state.current_player)
        state.apply(state.legal_actions()[0])
    assert order == [0, 1, 2, 0]


@pytest.mark.rules("MM-PLAY-2")
def test_roll_comes_first_then_one_turn():
    state = position()
    assert state.current_player == CHANCE
    refused(state, turn(), "MM-PLAY-2", "must roll")
    state.apply(roll("red", "green"))
    assert state.current_player == 0 and state.dice == ("red", "green")
    refused(state, roll("red", "red"), "MM-PLAY-2", "already rolled")
    state.apply(turn())
    assert state.current_player == CHANCE and state.player == 1


@pytest.mark.rules("MM-OBJECT-1")
def test_tiles_move_from_nests_and_players_to_the_magpie():
    state = position(players=("Ann", "Ben"), holdings={1: {"berry": 2}}, dice=("red", "magpie"))
    state.apply(turn(("r1", "berry"), steal=[1]))
    assert nest(state, "G") == "bb"
    assert state.holdings(0) == (2, 0, 0) and state.holdings(1) == (1, 0, 0)


@pytest.mark.rules("MM-MOVE-1")
def test_fly_only_along_a_route_of_a_rolled_colour_from_the_current_nest():
    state = position(dice=("red", "magpie"))
    firsts = {a["steps"][0]["route"] for a in state.legal_actions() if a["steps"]}
    assert firsts == {"r1"}
    refused(state, turn(("y1", "berry")), "MM-MOVE-1", "y1 is yellow, but the dice show red")
    refused(state, turn(("r2", "berry")), "MM-MOVE-1", "joins nests C and D; the magpie is in nest R")
    with pytest.raises(InvalidAction, match="no route 'x9'"):
        state.apply(turn(("x9", "berry")))
    state.apply(turn(("r1", "berry")))
    assert where(state, 0) == "G"


@pytest.mark.rules("MM-MOVE-2")
def test_two_flights_in_the_order_the_player_chooses():
    state = position(dice=("red", "green"))
    # red then green: R -r1-> G -g2-> A ; green then red: R -g1-> E -r3-> G
    red_first = turn(("r1", "berry"), ("g2", "berry"))
    green_first = turn(("g1", "berry"), ("r3", "berry"))
    assert state.is_legal(red_first) and state.is_legal(green_first)
    refused(state, turn(("r1", "berry"), ("g2", "berry"), ("y1", "berry")), "MM-MOVE-2", "at most 2")
    one_colour = position(dice=("red", "magpie"))
    refused(one_colour, turn(("r1", "berry"), ("g2", "berry")), "MM-MOVE-2", "at most 1")
    state.apply(green_first)
    assert where(state, 0) == "G"


@pytest.mark.rules("MM-MOVE-3")
def test_same_colour_twice_only_with_two_dice_of_that_colour():
    double = position(magpies=["C", "R"], dice=("blue", "blue"))
    forth_and_back = turn(("b1", None), ("b1", "berry"))
    assert forth_and_back in double.legal_actions()
    single = position(magpies=["C", "R"], dice=("yellow", "blue"))
    refused(single, forth_and_back, "MM-MOVE-3", "Only one die shows blue")
    double.apply(forth_and_back)
    assert where(double, 0) == "C"


@pytest.mark.rules("MM-MOVE-4")
def test_staying_put_or_stopping_after_one_flight_is_allowed():
    state = position(dice=("red", "green"))
    legal = state.legal_actions()
    assert turn() in legal
    assert turn(("r1", "berry")) in legal
    state.apply(turn(("r1", "berry")))
    assert where(state, 0) == "G"
    stay = position(dice=("red", "green"))
    stay.apply(turn())
    assert where(stay, 0) == "R" and stay.holdings(0) == (0, 0, 0)


@pytest.mark.rules("MM-MOVE-5")
def test_no_route_of_the_rolled_colour_means_staying_put():
    # example 3: red and red, but no red route leads from nest A
    state = position(magpies=["A", "R"], dice=("red", "red"))
    assert state.legal_actions() == [turn()]
    refused(state, turn(("r1", "berry")), "MM-MOVE-1")
    # one usable die: from F only yellow/blue routes, so red + yellow gives yellow flights only
    mixed = position(magpies=["F", "R"], dice=("yellow", "red"))
    assert {a["steps"][0]["route"] for a in mixed.legal_actions() if a["steps"]} == {"y3", "y4"}


@pytest.mark.rules("MM-MOVE-6")
def test_magpies_may_share_a_nest():
    state = position(magpies=["R", "G"], dice=("red", "magpie"))
    state.apply(turn(("r1", "berry")))
    assert where(state, 0) == where(state, 1) == "G"


@pytest.mark.rules("MM-TAKE-1")
def test_take_one_tile_of_a_kind_the_nest_holds():
    state = position(nests={"G": "bsg"}, dice=("red", "magpie"))
    takes = {a["steps"][0]["take"] for a in state.legal_actions() if a["steps"]}
    assert takes == {"berry", "silver", "gold"}
    plain = position(nests={"G": "bbb"}, dice=("red", "magpie"))
    refused(plain, turn(("r1", "gold")), "MM-TAKE-1", "Nest G has no gold ring; it holds: berry")
    state.apply(turn(("r1", "gold")))
    assert nest(state, "G") == "bs" and state.holdings(0) == (0, 0, 1)


@pytest.mark.rules("MM-TAKE-2")
def test_an_empty_nest_gives_nothing_and_a_turn_takes_at_most_two():
    state = position(nests={"G": "", "A": "bbbb"}, dice=("red", "green"))
    refused(state, turn(("r1", "berry")), "MM-TAKE-2", "Nest G is empty")
    assert turn(("r1", None), ("g2", "berry")) in state.legal_actions()
    full = position(dice=("red", "green"))
    assert max(sum(s["take"] is not None for s in a["steps"]) for a in full.legal_actions()) == 2
    state.apply(turn(("r1", None), ("g2", "berry")))
    assert state.holdings(0) == (1, 0, 0)


@pytest.mark.rules("MM-TAKE-3")
def test_every_flight_end_is_a_stop_including_the_start_nest_after_forth_and_back():
    # example 1: red then green; a ring from the first nest, a berry from the second (no rings there)
    example1 = position(nests={"G": "bbs", "A": "bbbb"}, dice=("red", "green"))
    example1.apply(turn(("r1", "silver"), ("g2", "berry")))
    assert example1.holdings(0) == (1, 1, 0) and nest(example1, "G") == "bb" and nest(example1, "A") == "bbb"
    # example 2: blue twice from D: to E and back; one tile in E, one in D (where the turn began)
    example2 = position(nests={"D": "bbsg", "E": "bbb"}, magpies=["R", "D"], player=1, dice=("blue", "blue"))
    example2.apply(turn(("b3", "berry"), ("b3", "gold")))
    assert nest(example2, "E") == "bb" and nest(example2, "D") == "bbs"
    assert example2.holdings(1) == (1, 0, 1)
    # the nest a turn starts in is not a stop unless the magpie flies back into it
    stay = position(nests={"D": "bbsg"}, magpies=["D", "R"], dice=("red", "red"))
    assert all(a["steps"] or a == turn() for a in stay.legal_actions())
    stay.apply(turn())
    assert nest(stay, "D") == "bbsg"


@pytest.mark.rules("MM-TAKE-4")
def test_stopping_in_a_nest_with_tiles_means_taking_one():
    state = position(nests={"G": "bbs"}, dice=("red", "magpie"))
    refused(state, turn(("r1", None)), "MM-TAKE-4", "still has tiles")
    assert turn(("r1", None)) not in state.legal_actions()
