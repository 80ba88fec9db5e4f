"""The random set-up as a chance step: whole placements, the factorised outcomes, refusals."""

import random
from fractions import Fraction

import pytest
from ek_helpers import PLAYERS, new_state, placement

from companion.games.core import CHANCE, IllegalAction, InvalidAction
from companion.games.eagle_kingdoms.rules import (
    COUNTS,
    JESTER_PIECES,
    KIND_INDEX,
    KIND_NAMES,
    KINDS,
    NK,
    PIECE_IDS,
    ROLL,
    SETUP,
    SHIELD,
    VALUES,
    EagleKingdoms,
)


def fresh(players=PLAYERS):
    return EagleKingdoms(players=list(players)).new_initial_state()


def check_placement(pl):
    assert "shield" not in pl and len(pl) == 45
    tally = [0] * NK
    for kind in pl.values():
        tally[KIND_INDEX[kind]] += 1
    assert tally == list(COUNTS)
    jesters = [pid for pid, kind in pl.items() if kind == "jester"]
    assert len(jesters) == 3 and set(jesters) <= {PIECE_IDS[p] for p in JESTER_PIECES}


@pytest.mark.rules("EK-SETUP-VALUES", "EK-SCORE-3", "EK-R-NAMES")
def test_character_values_and_counts():
    table = {KIND_NAMES[k]: (VALUES[k], COUNTS[k]) for k in range(NK)}
    assert table == {
        "King": (10, 4), "Queen": (9, 4), "Duchess": (8, 4), "Duke": (7, 4), "Knight": (6, 4),
        "Minstrel": (5, 4), "Merchant": (4, 4), "Vendor": (3, 4), "Squire": (2, 5), "Peasant": (1, 5),
        "Jester": (0, 3),
    }


@pytest.mark.rules("EK-SETUP-RANDOM", "EK-SETUP-JESTERS")
def test_sampled_setups_are_legal_and_random():
    free = {PIECE_IDS[p]: 0 for p in JESTER_PIECES}
    kings_on_crown = 0
    for seed in range(400):
        state = fresh()
        action = state.sample_chance(random.Random(seed))
        assert action["type"] == "setup"
        check_placement(action["placement"])
        for pid in free:
            free[pid] += action["placement"][pid] != "jester"
        kings_on_crown += action["placement"]["crown-left"] == "king"
        state.apply(action)
        assert state.current_player == CHANCE and state.phase == ROLL
    assert all(60 < n < 140 for n in free.values()), free  # each feather free ~1/4 of the time
    assert 10 < kings_on_crown < 80  # 4/42 of 400 ~ 38


@pytest.mark.rules("EK-SETUP-SHIELD")
def test_shield_empty_at_start_and_not_part_of_a_placement():
    state = new_state()
    assert state.shield_count() == 0 and state.kind_on[SHIELD] == -1
    bad = placement()
    bad["shield"] = bad.pop("feather-left-1")
    state = fresh()
    with pytest.raises(IllegalAction) as info:
        state.apply({"type": "setup", "placement": bad})
    assert info.value.rule_id == "EK-SETUP-SHIELD"
    assert state.phase == SETUP


@pytest.mark.rules("EK-SETUP-JESTERS")
def test_jesters_must_stand_on_lowermost_tail_feathers():
    bad = placement()
    bad["tail-feather-1"], bad["crown-left"] = bad["crown-left"], bad["tail-feather-1"]
    state = fresh()
    before = state.to_json()
    with pytest.raises(IllegalAction) as info:
        state.apply({"type": "setup", "placement": bad})
    assert info.value.rule_id == "EK-SETUP-JESTERS" and "tail feathers" in info.value.message
    assert state.to_json() == before


@pytest.mark.rules("EK-SETUP-RANDOM")
@pytest.mark.parametrize(
    "change, error",
    [
        (lambda pl: pl.pop("neck"), IllegalAction),
        (lambda pl: pl.update({"neck": "king"}), IllegalAction),
        (lambda pl: pl.update({"neck": "emperor"}), InvalidAction),
        (lambda pl: pl.update({"tail-nowhere": "king"}), InvalidAction),
    ],
)
def test_bad_placements_refused(change, error):
    pl = placement()
    change(pl)
    state = fresh()
    with pytest.raises(error) as info:
        state.apply({"type": "setup", "placement": pl})
    assert "EK-SETUP" in str(info.value)
    assert state.phase == SETUP


@pytest.mark.rules("EK-SETUP-RANDOM", "EK-SETUP-JESTERS")
def test_factorised_setup_steps_are_an_honest_distribution():
    state = fresh()
    outcomes = state.chance_outcomes()
    # first piece: a lowermost tail feather, a Jester with probability 3/4
    assert {a["piece"] for a, _ in outcomes} == {PIECE_IDS[JESTER_PIECES[0]]}
    probs = {a["kind"]: p for a, p in outcomes}
    assert probs["jester"] == pytest.approx(0.75)
    assert probs["king"] == pytest.approx(0.25 * 4 / 42)
    rng = random.Random(3)
    steps = 0
    while state.phase == SETUP:
        outcomes = state.chance_outcomes()
        assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
        assert all(state.is_legal(a) for a, _ in outcomes)
        if state.setup_step:
            with pytest.raises(IllegalAction):
                state.apply({"type": "setup", "placement": placement()})  # no whole placement mid-way
        actions, weights = zip(*outcomes, strict=True)
        state.apply(rng.choices(actions, weights)[0])
        steps += 1
    assert steps == 45 and state.phase == ROLL
    check_placement(state.to_json()["board"])


@pytest.mark.rules("EK-SETUP-JESTERS")
def test_three_jesters_on_first_feathers_force_the_fourth():
    state = fresh()
    for p in JESTER_PIECES[:3]:
        state.apply({"type": "place", "piece": PIECE_IDS[p], "kind": "jester"})
    outcomes = state.chance_outcomes()
    assert "jester" not in {a["kind"] for a, _ in outcomes}
    assert sum(p for _, p in outcomes) == pytest.approx(1)
    assert dict((a["kind"], Fraction(p).limit_denominator(100)) for a, p in outcomes)["peasant"] == Fraction(5, 42)
    with pytest.raises(IllegalAction):
        state.apply({"type": "place", "piece": PIECE_IDS[JESTER_PIECES[3]], "kind": "jester"})


@pytest.mark.rules("EK-PLAY-FIRST")
def test_first_listed_player_starts_and_turns_rotate():
    state = new_state()
    assert state.player == 0 and state.turn == 1
    names = []
    for _ in range(4):
        names.append(state.player_name(state.player))
        state.apply({"type": "roll", "dice": [1, 4]})  # a miss: the second roll misses too
        state.apply({"type": "roll-again"})
        state.apply({"type": "roll", "dice": [1, 4]})
    assert names == ["Ann", "Ben", "Cy", "Ann"]
    assert KINDS[0] == "jester"
