"""Scripted Eagle Kingdoms positions for the tests: a fixed set-up, chosen dice, hand-made holdings."""

from __future__ import annotations

from companion.games.eagle_kingdoms.rules import (
    BOARD_PIECES,
    COUNTS,
    JESTER,
    JESTER_PIECES,
    KIND_INDEX,
    KINDS,
    NK,
    PIECE_IDS,
    PIECE_INDEX,
    SHIELD,
    EagleKingdoms,
    EagleState,
)

PLAYERS = ("Ann", "Ben", "Cy")
# pairs that match no piece available at the start (crown-left and head-right show 1:4 but are locked)
MISS = [1, 4]


def placement(place: dict[str, str] | None = None) -> dict[str, str]:
    """A legal set-up: Jesters on tail-feather-1..3, ``place`` as asked, the rest highest kinds first."""
    place = dict(place or {})
    result: dict[str, str] = {}
    left = list(COUNTS)
    for p in JESTER_PIECES[:3]:
        result[PIECE_IDS[p]] = KINDS[JESTER]
    left[JESTER] = 0
    for pid, kind in place.items():
        assert pid not in result, f"{pid} holds a Jester in the test set-up"
        result[pid] = kind
        left[KIND_INDEX[kind]] -= 1
        assert left[KIND_INDEX[kind]] >= 0, f"too many {kind}"
    bag = [k for k in sorted(range(NK), key=lambda k: -k) for _ in range(left[k])]
    for p in BOARD_PIECES:
        if PIECE_IDS[p] not in result:
            result[PIECE_IDS[p]] = KINDS[bag.pop(0)]
    return result


def new_state(players=PLAYERS, variant=None, place=None, **options) -> EagleState:
    game = EagleKingdoms(players=list(players), variant=variant, options=options)
    state = game.new_initial_state()
    state.apply({"type": "setup", "placement": placement(place)})
    return state


def roll(state: EagleState, a: int, b: int, *more: int) -> None:
    state.apply({"type": "roll", "dice": sorted([a, b, *more])})


def capture(state: EagleState, piece: str) -> None:
    state.apply({"type": "capture", "piece": piece})


def miss_pair(state: EagleState) -> list[int]:
    """A roll of two dice that captures nothing now (never 6:6)."""
    for a in range(1, 6):
        for b in range(a, 7):
            if not state.matching_pieces([a, b]):
                return [a, b]
    raise AssertionError("every roll captures something here")


def to_enchanted(state: EagleState, face: int) -> None:
    """A missed first roll, then the Enchanted Die showing ``face``."""
    roll(state, *miss_pair(state))
    state.apply({"type": "roll-enchanted"})
    state.apply({"type": "enchanted", "face": face})


def set_hand(state: EagleState, player: int, holding: dict[str, int]) -> None:
    """Give a player a holding (test set-up; the characters are conjured, not moved)."""
    state.hands[player] = [0] * NK
    for kind, n in holding.items():
        state.hands[player][KIND_INDEX[kind]] = n


def hand(state: EagleState, player: int) -> dict[str, int]:
    return {KINDS[k]: n for k, n in enumerate(state.hands[player]) if n}


def remove_pieces(state: EagleState, pieces) -> None:
    """Take pieces off the board with their characters (to the box: a test shortcut)."""
    for pid in pieces:
        p = PIECE_INDEX[pid]
        state.present &= ~(1 << p)
        state.kind_on[p] = -1


def final_step(shield: dict[str, int], players=PLAYERS, holdings=None, variant=None) -> EagleState:
    """Only the centre shield left, with ``shield`` on it; Ann to roll. Leftovers go to the last player."""
    state = new_state(players, variant=variant)
    remove_pieces(state, [PIECE_IDS[p] for p in BOARD_PIECES])
    state.shield = [0] * NK
    for kind, n in shield.items():
        state.shield[KIND_INDEX[kind]] = n
    holdings = holdings or {}
    for i in range(len(players)):
        set_hand(state, i, holdings.get(i, {}))
    left = [COUNTS[k] - state.shield[k] - sum(h[k] for h in state.hands) for k in range(NK)]
    for k in range(NK):
        state.hands[len(players) - 1][k] += left[k]
    assert state.present == 1 << SHIELD
    return state
