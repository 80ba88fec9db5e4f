"""companion.referee.match on the toy dice race: every kind of result, with hand-written observations."""

from __future__ import annotations

from toy_game import ToyGame

from companion.referee.match import MatchKind, match
from companion.vision.readers import Observation


class ToyAdapter:
    """Each player's token shows its position on a track: region "p<i>" holds {"token": position}."""

    @staticmethod
    def scene_from_state(state):
        return {f"p{i}": [{"token": pos}] for i, pos in enumerate(state.positions)}

    @staticmethod
    def implied_actions(state, before, after):
        me = f"p{state.player}"
        old = before.get(me, [{}])[0].get("token")
        new = (after.regions.get(me) or [{}])[0].get("token")
        if old is not None and new is not None and new > old:
            return [{"type": "advance"}]
        return []


def rolled(value, positions=(0, 0)):
    state = ToyGame(players=["Ann", "Ben"]).new_initial_state()
    state.positions = list(positions)
    if value is not None:
        state.apply({"type": "roll", "dice": [value]})
    return state


def test_unchanged_when_the_board_shows_the_expected_scene():
    state = rolled(3)
    result = match(state, None, {"p0": [{"token": 0}], "p1": [{"token": 0}]}, ToyAdapter)
    assert result.kind is MatchKind.UNCHANGED


def test_one_legal_action_explains_the_change_and_is_proposed():
    state = rolled(3)
    result = match(state, None, {"p0": [{"token": 3}], "p1": [{"token": 0}]}, ToyAdapter)
    assert result.kind is MatchKind.PROPOSED
    assert result.action == {"type": "advance"} and "Ann advances" in result.message
    assert result.changed == ("p0",)


def test_two_legal_actions_with_the_same_look_are_ambiguous():
    state = rolled(1)  # advancing by the 1 rolled and banking one point both move the token by one
    result = match(state, None, {"p0": [{"token": 1}], "p1": [{"token": 0}]}, ToyAdapter)
    assert result.kind is MatchKind.AMBIGUOUS
    assert sorted(o[-1]["type"] for o in result.options) == ["advance", "bank"]


def test_a_change_the_rules_forbid_names_the_rule():
    state = rolled(None)  # nobody rolled yet: moving the token now is refused
    result = match(state, None, {"p0": [{"token": 4}], "p1": [{"token": 0}]}, ToyAdapter)
    assert result.kind is MatchKind.ILLEGAL
    assert result.rule_id == "TOY-ROLL" and "Roll the die first" in result.message


def test_nothing_legal_or_implied_explains_a_misread():
    state = rolled(3)
    result = match(state, None, {"p0": [{"token": 0}], "p1": [{"token": 7}]}, ToyAdapter)
    assert result.kind is MatchKind.MISREAD
    assert "p1" in result.message and result.changed == ("p1",)


def test_uncertain_regions_are_fixed_by_the_rules():
    state = rolled(3)
    seen = Observation({"p0": [{"token": 3}], "p1": [{"token": 8}]}, {"p0": 0.99, "p1": 0.3})
    result = match(state, None, seen, ToyAdapter)
    assert result.kind is MatchKind.PROPOSED and result.action == {"type": "advance"}
    assert result.corrected == ("p1",)


def test_one_move_for_three_hands_leaving_spaces_unsure_is_asked_not_sure():
    """Three hands reached in and one move explains the board, the rules filling a space read unsure: the other
    moves may hide there, with a throw between them that no search of moves in a row follows (box 71:15, Eagle
    Kingdoms seed 105 r2: a take on a space read unsure, a throw, a capture -- the capture confirmed, sure, as the
    take). The move is proposed for a tap; with fewer hands, or nothing read unsure, it stays sure."""
    state = rolled(3)
    seen = Observation({"p0": [{"token": 3}], "p1": [{"token": 8}]}, {"p0": 0.99, "p1": 0.3})
    asked = match(state, None, seen, ToyAdapter, two_moves=True, three_moves=True)
    assert asked.kind is MatchKind.PROPOSED and asked.action == {"type": "advance"} and not asked.sure
    assert "more hands reached in" in asked.message
    assert match(state, None, seen, ToyAdapter, two_moves=True).sure
    clear = Observation({"p0": [{"token": 3}], "p1": [{"token": 0}]}, {"p0": 0.99, "p1": 0.99})
    assert match(state, None, clear, ToyAdapter, two_moves=True, three_moves=True).sure


def test_only_uncertain_differences_count_as_unchanged():
    state = rolled(3)
    seen = Observation({"p0": [{"token": 5}], "p1": [{"token": 0}]}, {"p0": 0.2})
    result = match(state, None, seen, ToyAdapter)
    assert result.kind is MatchKind.UNCHANGED and result.corrected == ("p0",)


def test_an_unusable_observation_applies_nothing():
    result = match(rolled(3), None, Observation.unusable("too dark: mean brightness 12 of 255"), ToyAdapter)
    assert result.kind is MatchKind.UNREADABLE and "too dark" in result.message
    assert result.actions == () and result.as_json()["kind"] == "unreadable"


def test_a_hidden_region_is_unknown_not_a_change_nor_a_confirmation():
    """A region under a hand is neither read nor compared: it can neither make a change (the token
    under the hand is not 'gone') nor pick a successor (an empty hidden region must not confirm a
    move that empties it); the visible change alone decides."""
    state = rolled(3)
    hidden_p1 = Observation({"p0": [{"token": 0}]}, {"p1": 0.0}, hidden=frozenset({"p1"}))
    result = match(state, None, hidden_p1, ToyAdapter)
    assert result.kind is MatchKind.UNCHANGED and "not seen: p1" in result.message
    assert result.corrected == ()
    moved = Observation({"p0": [{"token": 3}]}, {"p1": 0.0}, hidden=frozenset({"p1"}))
    result = match(state, None, moved, ToyAdapter)
    assert result.kind is MatchKind.PROPOSED and result.action == {"type": "advance"}
    assert result.changed == ("p0",) and "p1" not in result.corrected
    assert hidden_p1.is_uncertain("p1") and "p1" in hidden_p1.as_json()["hidden"]


class _Hidden:
    """A state where the player first chooses, unseen, whom to give a card ("ann" or "ben"), then moves a
    piece the camera sees."""

    def __init__(self, given=None, moved=False):
        self.given, self.moved = given, moved

    def is_terminal(self):
        return self.moved

    def is_chance_node(self):
        return False

    def legal_actions(self):
        return [{"type": "give", "to": p} for p in ("ann", "ben")] if self.given is None else [{"type": "move"}]

    def clone(self):
        return _Hidden(self.given, self.moved)

    def apply_unchecked(self, action):
        if action["type"] == "give":
            self.given = action["to"]
        else:
            self.moved = True

    def action_to_string(self, action):
        return str(action)


class _HiddenAdapter:
    def scene_from_state(self, state):
        return {"x": [{"piece": 1}]} if state.moved else {}

    def implied_actions(self, state, before, after):
        return []


def test_a_move_seen_after_a_choice_that_shows_nowhere_is_proposed_but_never_sure():
    result = match(_Hidden(), None, Observation({"x": [{"piece": 1}]}), _HiddenAdapter())
    assert result.kind is MatchKind.PROPOSED and result.actions[-1] == {"type": "move"}
    assert not result.sure  # whom the card went to was not seen: two histories explain the board
