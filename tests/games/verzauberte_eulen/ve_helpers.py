"""Scripted Verzauberte Eulen positions for the tests (owls written as in the game: 'Rb' = red head, blue body)."""

from __future__ import annotations

import copy
from collections import Counter

import pytest

from companion.games.core import GameError
from companion.games.verzauberte_eulen.rules import DICE, EulenState, VerzauberteEulen

NAMES = ["Ann", "Ben", "Cy", "Dee"]


def new_game(players: int = 2, variant: str | None = None) -> VerzauberteEulen:
    return VerzauberteEulen(players=NAMES[:players], variant=variant)


def position(
    owls: dict[str, list[str]],
    players: int = 2,
    variant: str | None = None,
    to_move: int = 0,
    dice: tuple[int, int, int] | None = None,
    left: tuple[str, ...] = DICE,
) -> EulenState:
    """A state with the listed owls on the listed spaces; every other body of a colour in play waits in its nest.

    Heads not placed are handed out to the waiting bodies, so the 17 heads stay complete. The black body, if
    not listed, stays in the cave and must keep the black head there.
    """
    state = new_game(players, variant).new_initial_state()
    lay, board = state.lay, state.board
    used: set[int] = set()
    heads = Counter(lay.start_head)
    space = list(lay.start_space)
    head = list(lay.start_head)
    for sid, codes in owls.items():
        for code in codes:
            body_colour = code[1].upper()
            body = next(
                i
                for i in range(len(space))
                if i not in used and lay.body_colour[i] == body_colour and lay.start_space[i] >= 0
            )
            used.add(body)
            space[body] = board.index[sid]
            head[body] = code[0]
            heads[code[0]] -= 1
    rest = [i for i in range(len(space)) if i not in used]
    for i in rest:  # the box keeps its owls whole; the black body, if not placed, keeps the black head in the cave
        if lay.start_space[i] < 0 or lay.body_colour[i] == "K":
            own = lay.body_colour[i]
            assert heads[own] > 0, f"place the {lay.body_ids[i]} body: its head is used elsewhere"
            head[i] = own
            heads[own] -= 1
    spare = sorted(heads.elements())
    for i in rest:
        if lay.start_space[i] >= 0 and lay.body_colour[i] != "K":
            head[i] = spare.pop(0)
    state.space, state.head = space, head
    state.to_move = to_move
    if dice is not None:
        state.dice = dict(zip(DICE, dice, strict=True))
        state.left = list(left)
    assert state.check_invariants() == [], state.check_invariants()
    return state


def owls_on(state: EulenState, sid: str) -> list[str]:
    return sorted(state.owl(i) for i in state.occupants(state.board.index[sid]))


def move(die: str, frm: str, owl: str, to: str, path: list[str] | None = None) -> dict:
    action = {"type": "move", "die": die, "from": frm, "owl": owl, "to": to}
    if path is not None:
        action["path"] = path
    return action


def refused(state: EulenState, action: dict, rule: str | None) -> GameError:
    """Apply ``action``, expect a refusal naming ``rule``, and check the state is unchanged."""
    before = copy.deepcopy(state.to_json())
    with pytest.raises(GameError) as info:
        state.apply(action)
    assert state.to_json() == before
    assert getattr(info.value, "rule_id", None) == rule, str(info.value)
    assert str(info.value)
    return info.value


def destinations(state: EulenState, die: str, frm: str | None = None, owl: str | None = None) -> set[str]:
    return {
        a["to"]
        for a in state.legal_actions()
        if a["type"] == "move"
        and a["die"] == die
        and (frm is None or a["from"] == frm)
        and (owl is None or a["owl"] == owl)
    }
