"""Verzauberte Eulen on camera: rules state <-> board scene, observation -> move.

- :func:`scene_from_state`: the owls the board shows in a state (owls in the box are not shown);
- :func:`implied_actions`: the move a change means even if illegal -- one owl left a space and
  another space shows it arrived (heads swapped with an owl there, or into the cave), made with the
  die the rules would pick, so the engine can name the rule it breaks;
- :func:`match_observation`: :func:`companion.referee.match.match` with this adapter.

Reader accuracy and speed on rendered scenes of seeded simulated games: :mod:`companion.workshop.boards.bench`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from companion.games.core import Action
from companion.games.verzauberte_eulen.rules import DICE, EulenState
from companion.referee.match import MatchResult, match
from companion.vision.readers import Observation, SceneDescription, canonical

GAME = "verzauberte-eulen"


def owl(head: str, body: str) -> dict[str, Any]:
    return {"owl": {"head": head, "body": body}}


def scene_from_state(state: EulenState) -> SceneDescription:
    """Space id -> the owls standing there (head and body colour names)."""
    lay, names = state.lay, state.lay.letter_to_name
    scene: SceneDescription = {}
    for i, at in enumerate(state.space):
        if at < 0:
            continue
        scene.setdefault(state.board.ids[at], []).append(owl(names[state.head[i]], names[lay.body_colour[i]]))
    for pieces in scene.values():
        pieces.sort(key=lambda p: (p["owl"]["body"], p["owl"]["head"]))
    return scene


def _owls(pieces: Sequence[Any] | None) -> list[tuple[str, str]]:
    return [(p["owl"]["head"], p["owl"]["body"]) for p in pieces or [] if isinstance(p, Mapping) and "owl" in p]


def _key(owls: Sequence[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(owls))


def _after_move(
    frm: list[tuple[str, str]], to: list[tuple[str, str]], mover: tuple[str, str], into_cave: bool
) -> list[tuple[list[tuple[str, str]], list[tuple[str, str]]]]:
    """The possible (from, to) contents after ``mover`` leaves ``frm`` for ``to`` (VE-MOVE-SWAP)."""
    left = list(frm)
    left.remove(mover)
    if into_cave or not to:
        return [(left, to + [mover])]
    outs = []
    for k, (h2, c2) in enumerate(to):  # landing beside an owl swaps heads with it
        rest = to[:k] + to[k + 1 :]
        outs.append((left, rest + [(h2, mover[1]), (mover[0], c2)]))
    return outs


def implied_actions(state: EulenState, before: Mapping[str, list[Any]], after: Observation) -> list[Action]:
    """Moves the change before -> after would mean, legal or not (confident regions only), best die first."""
    if state.is_terminal():
        return []
    changed = [
        r
        for r in sorted(set(before) | set(after.regions))
        if canonical(before.get(r)) != canonical(after.regions.get(r)) and not after.is_uncertain(r)
    ]
    if len(changed) != 2:
        return []
    b = state.board
    if any(r not in b.index for r in changed):
        return []
    actions: list[Action] = []
    for frm, to in (changed, changed[::-1]):
        was_from, was_to = _owls(before.get(frm)), _owls(before.get(to))
        now_from, now_to = _key(_owls(after.regions.get(frm))), _key(_owls(after.regions.get(to)))
        for mover in sorted(set(was_from)):
            outs = _after_move(was_from, was_to, mover, b.index[to] == b.cave)
            if any(_key(f) == now_from and _key(t) == now_to for f, t in outs):
                actions.extend(_with_dice(state, frm, mover, to))
    return actions


def _with_dice(state: EulenState, frm: str, mover: tuple[str, str], to: str) -> list[Action]:
    """The move with each die, the one the rules most likely meant first: a die whose owl rule the
    owl meets, that reaches ``to`` by its count, that may be used now."""
    lay, b = state.lay, state.board
    head, body = lay.name_to_letter[mover[0]], lay.name_to_letter[mover[1]]
    code = head + body.lower()
    mine = lay.player_colours[state.to_move]
    dice = state.dice or {}
    usable = state.usable_dice()
    ranked = []
    for die in DICE:
        fits = {"head": head in mine, "body": body in mine, "eye": "K" in (head, body)}[die]
        reach = die in dice and b.index[to] in b.routes[b.index[frm]][dice[die]]
        ranked.append(((fits, reach, die in usable, die in state.left), die))
    ranked.sort(key=lambda t: t[0], reverse=True)
    return [{"type": "move", "die": die, "from": frm, "owl": code, "to": to} for _, die in ranked]


def describe(region: str, expected: list[Any], seen: list[Any]) -> str:
    def words(pieces: list[Any]) -> str:
        owls = _owls(pieces)
        return ", ".join(f"{h} head on {c} body" for h, c in sorted(owls)) if owls else "no owl"

    return f"{region}: expected {words(expected)}, saw {words(seen)}"


class Adapter:
    """The game adapter for :func:`companion.referee.match.match`."""

    scene_from_state = staticmethod(scene_from_state)
    implied_actions = staticmethod(implied_actions)
    describe = staticmethod(describe)


ADAPTER = Adapter()


def match_observation(state: EulenState, before: Any, after: Any) -> MatchResult:
    return match(state, before, after, ADAPTER)
