"""Modes: player counts, set-up geometry, card counts, turn order, actions per turn, path lengths, alliances."""

import pytest
from fa_support import NAMES, make_game, place, position, row

from companion.games.core import ConfigError
from companion.games.falconry import GAME
from companion.games.falconry.rules import DATA, FALCONER


def falconers(state):
    return {cell: stack[-1] >> 2 for cell, stack in state.stacks.items() if stack[-1] & 3 == FALCONER}


def adjacent(a, b):
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


def diagonal(a, b):
    return abs(a[0] - b[0]) == 1 and abs(a[1] - b[1]) == 1


def play_turn(state, count):
    """Place ``count`` markers for the player to act at open cells; returns who acted."""
    seat = state.current_player
    for _ in range(count):
        assert state.current_player == seat
        state.apply(next(a for a in state.legal_actions() if a["type"] == "place" and a["kind"] == "marker"))
    return seat


def turn_order(state, rounds=2):
    seats = []
    for _ in range(rounds * state.game.num_players):
        seat = state.current_player
        seats.append((seat, state.actions_left))
        play_turn(state, state.actions_left)
    return seats


@pytest.mark.rules("FA-R-SEATS")
@pytest.mark.parametrize(
    "mode, wrong", [("duel", 3), ("fast-duel", 4), ("allied", 2), ("truel", 4), ("quarrel", 3), ("joint", 2)]
)
def test_each_mode_checks_its_player_count(mode, wrong):
    with pytest.raises(ConfigError, match=f"exactly {DATA['modes'][mode]['players']} players, got {wrong}"):
        GAME(players=NAMES[:wrong], mode=mode)


@pytest.mark.rules("FA-R-SEATS")
def test_colours_go_by_seat_unless_chosen_and_options_are_checked():
    game = make_game("duel")
    assert [c["name"] for c in game.colours] == ["Dusky Hawk", "Golden Eagle"]
    game = make_game("duel", colours=["gyrfalcon", "Peregrine Falcon"])
    assert [c["name"] for c in game.colours] == ["Gyrfalcon", "Peregrine Falcon"]
    for bad in [
        {"colours": ["gyrfalcon", "gyrfalcon"]},
        {"colours": ["raven", "gyrfalcon"]},
        {"diagonals": "yes"},
        {"first": 5},
        {"lone": 0},
        {"nonsense": 1},
        {"path_adjust": -9},
    ]:
        with pytest.raises(ConfigError):
            make_game("duel", **bad)
    with pytest.raises(ConfigError, match="Unknown mode"):
        GAME(players=["A", "B"], mode="melee")
    assert GAME(players=["A", "B"]).mode == "duel"
    game = GAME.from_config(make_game("joint", first="Ben").config())
    assert game.order == [1, 2, 3, 0]


@pytest.mark.rules("FA-CARDS")
def test_every_colour_has_a_falconer_a_bird_and_eighteen_markers():
    assert [c["name"] for c in DATA["colours"]] == ["Dusky Hawk", "Golden Eagle", "Gyrfalcon", "Peregrine Falcon"]
    assert DATA["cards"] == {"falconer": 1, "bird": 1, "marker": 18}
    state = make_game("quarrel").new_initial_state()
    for seat in range(4):
        on_table = sum(len([c for c in s if c >> 2 == seat]) for s in state.stacks.values())
        assert sum(state.hands[seat]) + on_table == 20
    assert state.check_invariants() == []
    state.hands[2][0] -= 1  # a marker that vanished is caught
    assert any("Gyrfalcon" in p for p in state.check_invariants())


# --- Duel ---------------------------------------------------------------------------------------------
@pytest.mark.rules("FA-DUEL-SETUP")
@pytest.mark.parametrize("mode", ["duel", "fast-duel"])
def test_duel_setup_is_a_square_with_like_types_diagonal(mode):
    state = make_game(mode).new_initial_state()
    cells = {cell: (stack[-1] >> 2, stack[-1] & 3) for cell, stack in state.stacks.items()}
    assert set(cells) == {(0, 0), (1, 0), (0, 1), (1, 1)}
    (f0, f1) = [c for c, (_, k) in cells.items() if k == 2]
    (b0, b1) = [c for c, (_, k) in cells.items() if k == 1]
    assert diagonal(f0, f1) and diagonal(b0, b1)
    assert {cells[f0][0], cells[f1][0]} == {0, 1} and {cells[b0][0], cells[b1][0]} == {0, 1}
    assert state.hands == [[18, 0, 0], [18, 0, 0]]


@pytest.mark.rules("FA-DUEL-TURN")
def test_duel_alternates_one_card_per_turn_and_either_noble_may_start():
    state = make_game("duel").new_initial_state()
    assert turn_order(state) == [(0, 1), (1, 1), (0, 1), (1, 1)]
    assert state.turn_number == 5
    state = make_game("duel", first=1).new_initial_state()
    assert state.current_player == 1
    assert turn_order(state, 1) == [(1, 1), (0, 1)]


@pytest.mark.rules("FA-FAST")
def test_fast_duel_two_cards_per_turn_and_six_in_a_row():
    game = make_game("fast-duel")
    assert game.path == [6, 6]
    assert turn_order(game.new_initial_state()) == [(0, 2), (1, 2), (0, 2), (1, 2)]
    table = {**row("HM", [(x, 0) for x in range(4)]), **row("EM", [(x, 1) for x in range(4)])}
    state = position(game, table)
    state.apply(place("marker", 4, 0))
    assert not state.is_terminal()  # five are not enough
    state.apply(place("marker", 5, 0))
    assert state.winners() == [0]


# --- Allied Nobility -------------------------------------------------------------------------------------------
@pytest.mark.rules("FA-ALLY-SETUP")
@pytest.mark.parametrize("lone", [0, 1, 2])
def test_allied_setup_and_card_counts(lone):
    game = make_game("allied", lone=lone)
    state = game.new_initial_state()
    allies = [s for s in range(3) if s != lone]
    assert game.cards[lone] == [18, 1, 1] and all(game.cards[a] == [13, 1, 1] for a in allies)
    assert sum(state.hands[lone]) == 19 and all(sum(state.hands[a]) == 14 for a in allies)
    where = {seat: cell for cell, seat in falconers(state).items()}
    assert diagonal(where[allies[0]], where[allies[1]])
    assert all(adjacent(where[a], where[lone]) for a in allies)
    assert state.check_invariants() == []


@pytest.mark.rules("FA-ALLY-TURN")
def test_allied_turn_order_left_of_the_lone_noble_first_lone_last():
    state = make_game("allied").new_initial_state()  # the last player is the lone noble by default
    assert turn_order(state) == [(0, 1), (1, 1), (2, 2), (0, 1), (1, 1), (2, 2)]
    state = make_game("allied", lone="Ann").new_initial_state()
    assert turn_order(state, 1) == [(1, 1), (2, 1), (0, 2)]


@pytest.mark.rules("FA-ALLY-PATH")
def test_allies_need_five_of_one_colour_and_share_the_victory_lone_needs_six():
    game = make_game("allied")
    assert game.path == [5, 5, 6] and game.team[0] == game.team[1] != game.team[2]
    table = {**row("EM", [(x, 0) for x in range(4)]), **row("GM", [(x, 1) for x in range(5)])}
    state = position(game, table, to_act=1)
    state.apply(place("marker", 4, 0))
    assert state.winners() == [0, 1]
    mixed = {**row("HM", [(0, 0), (1, 0)]), **row("EM", [(2, 0), (3, 0)]), (0, 1): "GM"}
    state = position(game, mixed, to_act=1)
    state.apply(place("marker", 4, 0))
    assert not state.is_terminal()  # two colours do not make an allied path
    table = {**row("EM", [(x, 0) for x in range(3)]), **row("GM", [(x, 1) for x in range(4)])}
    state = position(game, table, to_act=2)
    state.apply(place("marker", 4, 1))
    assert not state.is_terminal()  # the lone noble's five are not enough
    state.apply(place("marker", -1, 1))
    assert state.winners() == [2]


@pytest.mark.rules("FA-ALLY-PATH", "FA-EXPOSE")
def test_uncovering_an_ally_is_allowed_and_wins_for_both():
    game = make_game("allied")
    table = {**row("EM", [(0, 0), (1, 0), (3, 0), (4, 0)]), (2, 0): "EM HF", (0, 1): "GF"}
    state = position(game, table, to_act=0)
    state.apply({"type": "move", "from": [2, 0], "to": [2, 1]})
    assert state.winners() == [0, 1]


# --- Truel ------------------------------------------------------------------------------------------
@pytest.mark.rules("FA-TRUEL-SETUP", "FA-TRUEL-TURN")
@pytest.mark.parametrize("first", [0, 2])
def test_truel_setup_and_the_middle_falconer_starts(first):
    state = make_game("truel", first=first).new_initial_state()
    where = falconers(state)
    middle = [c for c in where if sum(adjacent(c, o) for o in where if o != c) == 2]
    assert len(middle) == 1 and where[middle[0]] == first == state.current_player
    assert turn_order(state, 1) == [(first, 2), ((first + 1) % 3, 2), ((first + 2) % 3, 2)]


@pytest.mark.rules("FA-TRUEL-PATH")
def test_truel_path_is_six():
    game = make_game("truel")
    assert game.path == [6, 6, 6] and len(set(game.team)) == 3
    table = {**row("GM", [(x, 0) for x in range(5)]), (0, 1): "HF", (1, 1): "EF"}
    state = position(game, table, to_act=2)
    state.apply(place("marker", 5, 0))
    assert state.winners() == [2]


# --- Quarrel ------------------------------------------------------------------------------------------
@pytest.mark.rules("FA-QUARREL-SETUP", "FA-QUARREL-TURN", "FA-QUARREL-PATH")
def test_quarrel_square_clockwise_two_actions_six():
    game = make_game("quarrel", first=3)
    state = game.new_initial_state()
    where = falconers(state)
    assert sorted(where) == [(0, 0), (0, 1), (1, 0), (1, 1)] and sorted(where.values()) == [0, 1, 2, 3]
    assert game.path == [6] * 4 and len(set(game.team)) == 4
    assert turn_order(state, 1) == [(3, 2), (0, 2), (1, 2), (2, 2)]
    table = {**row("PM", [(x, 3) for x in range(5)]), (0, 2): "HF"}
    state = position(game, table, to_act=3)
    state.apply(place("marker", 5, 3))
    assert state.winners() == [3]


# --- Joint ---------------------------------------------------------------------------------------
@pytest.mark.rules("FA-JOINT-SETUP", "FA-JOINT-TURN")
def test_joint_square_allies_diagonal_turns_alternate_sides():
    game = make_game("joint")
    state = game.new_initial_state()
    where = {seat: cell for cell, seat in falconers(state).items()}
    for a in range(4):
        for b in range(a + 1, 4):
            assert diagonal(where[a], where[b]) == (game.team[a] == game.team[b])
    order = [seat for seat, _ in turn_order(state)]
    assert all(game.team[x] != game.team[y] for x, y in zip(order, order[1:], strict=False))
    assert order[:4] == [0, 1, 2, 3]


@pytest.mark.rules("FA-JOINT-PATH")
def test_joint_path_is_six_of_one_colour_and_allies_share():
    game = make_game("joint")
    table = {**row("GM", [(x, 0) for x in range(5)]), (0, 1): "HF"}
    state = position(game, table, to_act=2)
    state.apply(place("marker", 5, 0))
    assert state.winners() == [0, 2]
    mixed = {**row("HM", [(0, 0), (1, 0), (2, 0)]), **row("GM", [(3, 0), (4, 0)]), (0, 1): "EF"}
    state = position(game, mixed, to_act=2)
    state.apply(place("marker", 5, 0))
    assert not state.is_terminal()


@pytest.mark.rules("FA-R-SHORT")
def test_the_house_rule_only_shortens_paths_and_a_longer_path_is_refused_naming_the_ruling():
    assert make_game("duel").path == [5, 5]
    assert make_game("fast-duel", path_adjust=-3).path == [3, 3]
    assert make_game("allied", path_adjust="-1").path == [4, 4, 5]
    for too_long in (1, 5, 10, "3"):
        with pytest.raises(ConfigError, match=r"from -3 to 0; got .*\[FA-R-SHORT\]"):
            make_game("duel", path_adjust=too_long)
    with pytest.raises(ConfigError, match=r"\[FA-R-SHORT\]"):
        make_game("quarrel", path_adjust=-4)
