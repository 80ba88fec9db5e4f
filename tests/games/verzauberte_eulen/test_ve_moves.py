"""Dice and movement, on scripted positions (Ann plays red, Ben blue; 'Br' = blue head on a red body)."""

import pytest
from ve_helpers import destinations, move, owls_on, position, refused


@pytest.mark.rules("VE-DIE-HEAD")
def test_head_die_moves_only_owls_wearing_the_players_head_colour():
    state = position({"b2": ["Rb"], "d2": ["Br"]}, dice=(2, 2, 1))
    movers = {(a["from"], a["owl"]) for a in state.legal_actions() if a.get("die") == "head"}
    assert movers == {("b2", "Rb"), ("e5", "Rb")}
    error = refused(state, move("head", "d2", "Br", "c2"), "VE-DIE-HEAD")
    assert "blue head" in str(error)
    state.apply(move("head", "b2", "Rb", "c2"))
    assert owls_on(state, "c2") == ["Rb"]


@pytest.mark.rules("VE-DIE-BODY")
def test_body_die_moves_only_owls_on_the_players_body_colour():
    state = position({"b2": ["Rb"], "d2": ["Br"]}, dice=(2, 2, 1))
    movers = {(a["from"], a["owl"]) for a in state.legal_actions() if a.get("die") == "body"}
    assert movers == {("d2", "Br"), ("a1", "Br")}
    error = refused(state, move("body", "b2", "Rb", "c2"), "VE-DIE-BODY")
    assert "blue body" in str(error)
    state.apply(move("body", "d2", "Br", "c2"))
    assert owls_on(state, "c2") == ["Br"]


@pytest.mark.rules("VE-DIE-EYE")
def test_eye_die_moves_only_owls_with_a_black_head_or_body():
    state = position({"b2": ["Kr"], "d4": ["Bk"], "d2": ["Br"]}, dice=(1, 1, 2), left=("eye",))
    movers = {(a["from"], a["owl"]) for a in state.legal_actions()}
    assert movers == {("b2", "Kr"), ("d4", "Bk")}
    error = refused(state, move("eye", "d2", "Br", "c2"), "VE-DIE-EYE")
    assert "no black part" in str(error)
    state.apply(move("eye", "d4", "Bk", "d3"))
    assert owls_on(state, "d3") == ["Bk"]


@pytest.mark.rules("VE-DIE-EYE-LAST")
def test_eye_die_is_always_moved_last():
    state = position({}, dice=(1, 1, 1))
    assert all(a["die"] != "eye" for a in state.legal_actions())
    refused(state, move("eye", "c3", "Kk", "c2-c3"), "VE-DIE-EYE-LAST")
    state.apply(move("head", "e5", "Rb", "d5-e5"))
    refused(state, move("eye", "c3", "Kk", "c2-c3"), "VE-DIE-EYE-LAST")
    state.apply(move("body", "a1", "Br", "a1-b1"))
    assert {a["die"] for a in state.legal_actions()} == {"eye"}
    state.apply(move("eye", "c3", "Kk", "c2-c3"))
    assert state.is_chance_node() and state.to_move == 1


@pytest.mark.rules("VE-RUL-ORDER")
def test_head_and_body_dice_may_be_used_in_either_order():
    state = position({}, dice=(2, 3, 1))
    assert {a["die"] for a in state.legal_actions()} == {"head", "body"}
    state.apply(move("body", "a1", "Br", "b1-b2"))
    assert {a["die"] for a in state.legal_actions()} == {"head"}
    state.apply(move("head", "e5", "Rb", "d5"))
    assert {a["die"] for a in state.legal_actions()} == {"eye"}


@pytest.mark.rules("VE-TURN-DICE")
def test_each_die_moves_one_owl_once():
    state = position({"b2": ["Br"]}, dice=(2, 2, 1))
    state.apply(move("body", "b2", "Br", "c2"))
    error = refused(state, move("body", "c2", "Br", "b2"), "VE-TURN-DICE")
    assert "already been used" in str(error)
    error = refused(state, move("head", "d4", "Rb", "d5"), "VE-TURN-DICE")
    assert "no owl Rb" in str(error)


@pytest.mark.rules("VE-MOVE-EXACT")
def test_owls_move_exactly_the_number_along_the_paths_without_turning_back():
    state = position({"b2": ["Br"]}, dice=(1, 2, 1))
    assert destinations(state, "body", "b2") == {"a2", "b1", "b3", "c2"}
    state.dice["body"] = 3
    assert destinations(state, "body", "b2") == {
        "a1-a2",
        "a2-a3",
        "a1-b1",
        "b1-c1",
        "a3-b3",
        "b3-b4",
        "b3-c3",
        "c1-c2",
        "c2-c3",
        "c2-d2",
    }
    refused(state, move("body", "b2", "Br", "c2"), "VE-MOVE-EXACT")
    refused(state, move("body", "b2", "Br", "a2-b2", path=["b2-c2", "b2", "a2-b2"]), "VE-MOVE-EXACT")  # turns back
    refused(state, move("body", "b2", "Br", "c1-c2", path=["b2-c2", "c1-c2"]), "VE-MOVE-EXACT")  # too short
    refused(state, move("body", "b2", "Br", "c1-c2", path=["b2-c2", "c1", "c1-c2"]), "VE-MOVE-EXACT")  # not a path


@pytest.mark.rules("VE-MOVE-FREE")
def test_owls_turn_at_crossings_and_go_any_way_from_move_to_move():
    state = position({"b2": ["Br"]}, dice=(1, 3, 1))
    state.apply(move("body", "b2", "Br", "c1-c2", path=["b2-c2", "c2", "c1-c2"]))  # a turn at c2
    assert owls_on(state, "c1-c2") == ["Br"]
    state = position({"c1-c2": ["Br"]}, dice=(1, 3, 1))
    assert "b2" in destinations(state, "body", "c1-c2")  # back the way it came, in a new move


@pytest.mark.rules("VE-MOVE-SWAP", "VE-GOAL")
def test_landing_exactly_swaps_heads_and_completes_owls():
    state = position({"b2": ["Br"], "c2": ["Rb"]}, dice=(2, 2, 1))
    state.apply(move("body", "b2", "Br", "c2"))
    assert owls_on(state, "c2") == ["Bb", "Rr"]
    assert owls_on(state, "b2") == []
    state.apply(move("head", "c2", "Rr", "c3"))  # the completed owl goes to safety
    assert owls_on(state, "c3") == ["Kk", "Rr"] and state.cave_count(0) == 1


@pytest.mark.rules("VE-MOVE-SWAP")
def test_jumping_over_an_owl_swaps_nothing():
    state = position({"b2": ["Br"], "c2": ["Rb"]}, dice=(2, 3, 1))
    state.apply(move("body", "b2", "Br", "c2-d2", path=["b2-c2", "c2", "c2-d2"]))
    assert owls_on(state, "c2") == ["Rb"] and owls_on(state, "c2-d2") == ["Br"]


@pytest.mark.rules("VE-MOVE-TWO")
def test_no_third_owl_on_a_space_but_it_may_be_jumped():
    state = position({"b2": ["Br"], "c2": ["Rb", "Rb"]}, dice=(1, 2, 1))
    assert "c2" not in destinations(state, "body", "b2")
    error = refused(state, move("body", "b2", "Br", "c2"), "VE-MOVE-TWO")
    assert "two owls" in str(error)
    state.dice["body"] = 3
    assert "c2-d2" in destinations(state, "body", "b2")


@pytest.mark.rules("VE-MOVE-BLACK-BLOCK")
def test_black_owl_blocks_the_path():
    state = position({"b2": ["Br"], "c2": ["Kk"]}, dice=(1, 3, 1))
    dests = destinations(state, "body", "b2")
    assert "c2-d2" not in dests and "c1-c2" not in dests and "c2-c3" not in dests
    assert "b1-c1" in dests  # another way round is free
    error = refused(state, move("body", "b2", "Br", "c2-d2"), "VE-MOVE-BLACK-BLOCK")
    assert "c2" in str(error)
    refused(state, move("body", "b2", "Br", "c2-d2", path=["b2-c2", "c2", "c2-d2"]), "VE-MOVE-BLACK-BLOCK")


@pytest.mark.rules("VE-MOVE-BLACK-BLOCK")
def test_a_black_head_alone_or_a_black_body_alone_blocks_too():
    state = position({"b2": ["Br"], "c2": ["Kb"], "b3": ["Rk"]}, dice=(1, 3, 1))
    dests = destinations(state, "body", "b2")
    assert "c2-d2" not in dests  # over the black head on c2
    assert "b3-b4" not in dests and "a3-b3" not in dests  # over the black body on b3
    assert dests == {"a1-a2", "a2-a3", "a1-b1", "b1-c1"}


@pytest.mark.rules("VE-MOVE-BLACK-LAND")
def test_an_owl_may_land_exactly_on_the_black_owl_and_the_heads_swap():
    state = position({"b2": ["Br"], "c2": ["Kk"]}, dice=(1, 2, 1))
    assert "c2" in destinations(state, "body", "b2")
    state.apply(move("body", "b2", "Br", "c2"))
    assert owls_on(state, "c2") == ["Bk", "Kr"]


@pytest.mark.rules("VE-MOVE-BLACK-LEAVE")
def test_owls_on_the_space_a_black_owl_lands_on_may_move_on():
    state = position({"b2": ["Rk"], "c2": ["Bb"]}, dice=(1, 1, 2), left=("eye",))
    state.apply(move("eye", "b2", "Rk", "c2"))  # Ann's eye die moves the black body onto Ben's Bb
    assert owls_on(state, "c2") == ["Bk", "Rb"]
    state.apply({"type": "roll", "head": 5, "body": 2, "eye": 1})
    assert state.current_player == 1
    assert destinations(state, "body", "c2", "Rb") == {"b2", "c1", "d2"}  # leaves the black owl's space
    state.apply(move("body", "c2", "Rb", "d2"))
    assert owls_on(state, "c2") == ["Bk"]


@pytest.mark.rules("VE-MOVE-NO-NEST")
def test_no_owl_moves_into_or_through_a_nest():
    state = position({"b1": ["Br"], "a1-b1": ["Rb"]}, dice=(2, 2, 1))
    assert "a1" not in destinations(state, "body", "b1")
    refused(state, move("body", "b1", "Br", "a1"), "VE-MOVE-NO-NEST")
    assert destinations(state, "head", "a1-b1") == {"b1-b2", "b1-c1"}  # the way through the nest is shut
    refused(state, move("head", "a1-b1", "Rb", "a1-a2", path=["a1", "a1-a2"]), "VE-MOVE-NO-NEST")
    assert all(state.board.kind[state.board.index[a["to"]]] != "nest" for a in state.legal_actions())


@pytest.mark.rules("VE-MOVE-NO-CENTRE")
def test_black_owl_never_re_enters_the_cave_and_nobody_passes_through_it():
    state = position({"c2-c3": ["Kk"], "c3-c4": ["Br"]}, dice=(1, 2, 1), left=("eye",))
    assert destinations(state, "eye") == {"c2"}
    refused(state, move("eye", "c2-c3", "Kk", "c3"), "VE-MOVE-NO-CENTRE")
    state.left = ["body", "eye"]
    assert "c2-c3" not in destinations(state, "body", "c3-c4")  # would pass through the cave
    refused(state, move("body", "c3-c4", "Br", "b3-c3", path=["c3", "b3-c3"]), "VE-MOVE-NO-CENTRE")


@pytest.mark.rules("VE-CAVE-ENTER")
def test_only_a_single_colour_owl_enters_the_cave_with_the_exact_count():
    state = position({"c2-c3": ["Rr"], "c3-d3": ["Br"], "c2": ["Rr"]}, dice=(1, 1, 1))
    assert "c3" in destinations(state, "head", "c2-c3")
    assert "c3" not in destinations(state, "body", "c3-d3")
    error = refused(state, move("body", "c3-d3", "Br", "c3"), "VE-CAVE-ENTER")
    assert "single colour" in str(error)
    state.dice["head"] = 3
    error = refused(state, move("head", "c2", "Rr", "c3"), "VE-CAVE-ENTER")  # overshoots: c2 needs 2 or 6
    assert "exact" in str(error) and "2 or 6" in str(error)
    state.dice["head"] = 6
    state.apply(move("head", "c2", "Rr", "c3"))  # the long way round, exactly
    assert "Rr" in owls_on(state, "c3")


@pytest.mark.rules("VE-RUL-CAVE")
def test_owls_in_the_cave_are_safe_never_move_and_never_swap():
    state = position({"c3": ["Bb", "Kk"], "c2-c3": ["Rr"]}, players=2, dice=(1, 1, 1), to_move=0)
    state.apply(move("head", "c2-c3", "Rr", "c3"))
    assert owls_on(state, "c3") == ["Bb", "Kk", "Rr"]  # three on the space, nobody swapped
    state = position({"c3": ["Rr"], "b2": ["Br"]}, dice=(2, 2, 1))
    assert all(a["from"] != "c3" for a in state.legal_actions())
    refused(state, move("head", "c3", "Rr", "c2"), "VE-RUL-CAVE")


@pytest.mark.rules("VE-RUL-FORFEIT", "VE-MOVE-BLACK-BLOCK")
def test_a_die_is_forfeited_only_when_it_cannot_move_any_owl():
    state = position({"a1-b1": ["Rb"], "a1-a2": ["Rb"], "b1": ["Kb"], "a2": ["Bk"], "c3": ["Rr", "Rr"]}, dice=(3, 2, 1))
    actions = state.legal_actions()
    assert {"type": "forfeit", "die": "head"} in actions
    assert {"type": "forfeit", "die": "body"} not in actions
    error = refused(state, {"type": "forfeit", "die": "body"}, "VE-RUL-FORFEIT")
    assert "can still move" in str(error)
    state.apply({"type": "forfeit", "die": "head"})
    assert state.left == ["body", "eye"]
    state.dice["body"] = 3
    assert state.legal_actions() == [{"type": "forfeit", "die": "body"}]  # both ways out of the nest are blocked



@pytest.mark.rules("VE-RUL-FORFEIT", "VE-DIE-HEAD")
def test_a_die_that_can_move_after_the_other_die_must_not_be_given_up():
    """"Must be moved": the head die is stuck now (a2 holds two owls, d5 too), but once the body die takes Br off
    a2 the head die can move Rb onto the black owl, so giving the head die up is refused."""
    owls = {"a1-a2": ["Rb"], "a2": ["Kk", "Br"], "d5-e5": ["Rb"], "d5": ["Bb", "Bb"], "c3": ["Rr", "Rr"]}
    state = position(owls, dice=(1, 2, 1))
    assert state.moves("head") == []
    assert {"type": "forfeit", "die": "head"} not in state.legal_actions()
    error = refused(state, {"type": "forfeit", "die": "head"}, "VE-RUL-FORFEIT")
    assert "use the body die first" in str(error)
    state.apply(move("body", "a2", "Br", "a3"))
    assert destinations(state, "head") == {"a2"}  # onto the black owl, swapping heads
    # the same dice, but the body die flies the nest's Br away instead: now no order is left that moves the head die
    other = position(owls, dice=(1, 2, 1))
    other.apply(move("body", "a1", "Br", "b1"))
    assert other.legal_actions() == [{"type": "forfeit", "die": "head"}]
    other.apply({"type": "forfeit", "die": "head"})
    assert other.left == ["eye"]

def test_malformed_moves_are_invalid_not_illegal():
    state = position({}, dice=(1, 1, 1))
    for bad in (
        {"type": "move", "die": "head", "from": "z9", "owl": "Rb", "to": "d5-e5"},
        {"type": "move", "die": "nose", "from": "e5", "owl": "Rb", "to": "d5-e5"},
        {"type": "move", "die": "head", "from": "e5", "owl": "rb", "to": "d5-e5"},
        {"type": "move", "die": "head", "from": "e5", "owl": "Rb"},
        {"type": "move", "die": "head", "from": "e5", "owl": "Rb", "to": "d5-e5", "path": "d5-e5"},
        {"type": "forfeit"},
        {"type": "dance"},
    ):
        refused(state, bad, None)
