"""The coach ranks the legal turns by the points they bring now; checked against playing each one out."""


import pytest
from mm_helpers import decision_states, position, turn

from companion.games.mighty_magpies import TEXT_VIEW
from companion.games.mighty_magpies.coach import chance_of_points, rank_turns, turn_gain


def brute_force(state, action):
    after = state.clone()
    after.apply(action)
    me = state.player
    before, now = state.scores(), after.scores()
    opponents = [p for p in range(len(now)) if p != me]
    return now[me] - before[me], sum(before[p] - now[p] for p in opponents)


@pytest.mark.rules("MM-SCORE-2", "MM-STEAL-1", "MM-YOUNG-1")
@pytest.mark.parametrize(
    "players, variant", [(("Ann", "Ben"), None), (("Ann", "Ben", "Cy", "Di"), None), (("A", "B", "C"), "young")]
)
def test_ranking_matches_brute_force(players, variant):
    states = 0
    for state in decision_states(players, variant):
        ranked = rank_turns(state)
        assert len(ranked) == len(state.legal_actions())
        for gain, loss, action in ranked:
            assert (gain, loss) == brute_force(state, action), action
        keys = [(gain, loss) for gain, loss, _ in ranked]
        assert keys == sorted(keys, reverse=True)
        best = max(brute_force(state, a) for a in state.legal_actions())
        assert keys[0] == best
        states += 1
    assert states > 100


@pytest.mark.rules("MM-SCORE-2")
def test_coach_prefers_completing_a_ring_set_and_says_so():
    # nest G holds a berry and a silver ring; Ann already has a silver ring: +2 for the ring beats +1 for the berry
    state = position(nests={"G": "bs"}, holdings={0: {"silver": 1}}, dice=("red", "magpie"))
    gain, loss, best = rank_turns(state)[0]
    assert best == turn(("r1", "silver")) and (gain, loss) == (2, 0)
    assert turn_gain(state, turn(("r1", "berry"))) == (1, 0)
    lines = TEXT_VIEW().coach(state)
    assert lines == ["Best now: Ann flies red r1 R->G, takes a silver ring (+2 points)."]


def test_coach_before_the_roll_gives_the_chance_of_a_scoring_turn():
    state = position(magpies=["A", "R"], nests={n: "" for n in "ABCDEFG"} | {"B": "b"})
    # only a blue die (b2 A->B) scores: 1 - (5/6 * 5/6)
    assert chance_of_points(state) == pytest.approx(1 - 25 / 36)
    assert "31% chance" in TEXT_VIEW().coach(state)[0]
