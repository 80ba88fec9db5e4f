"""Eagle Kingdoms on camera: rules state <-> board scene, observation -> move.

- :func:`scene_from_state`: what the board shows in a state (pieces on the felt, the character on
  each, the characters on the centre shield), in the readers' vocabulary;
- :func:`implied_actions`: what a change would mean even if illegal (a piece gone: the current
  player captured it -- or took it, after the Enchanted Die's 7; a stand turned into a Jester: a
  Jester trade), so the engine can name the rule it breaks;
- :func:`setup_from_observation`: the *set-up picture* -> the ``setup`` action (who stands where);
- :func:`match_observation`: :func:`companion.referee.match.match` with this adapter.

Reader accuracy and speed on rendered scenes of seeded simulated games: :mod:`companion.workshop.boards.bench`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from companion.games.core import Action
from companion.games.eagle_kingdoms.rules import (
    COUNTS,
    JESTER,
    KINDS,
    N_PIECES,
    NK,
    PIECE_IDS,
    SHIELD,
    SHIELD_ID,
    TAKE,
    VALUES,
    EagleState,
)
from companion.referee.match import MatchResult, match
from companion.vision.readers import Observation, SceneDescription

GAME = "eagle-kingdoms"
LABEL_OF_KIND: tuple[int | str, ...] = tuple("jester" if k == JESTER else VALUES[k] for k in range(NK))
KIND_OF_LABEL: dict[Any, int] = {label: k for k, label in enumerate(LABEL_OF_KIND)}


def stand(kind: int) -> dict[str, Any]:
    return {"stand": LABEL_OF_KIND[kind]}


def scene_from_state(state: EagleState) -> SceneDescription:
    scene: SceneDescription = {}
    for p in range(N_PIECES):
        if not state.present >> p & 1:
            continue
        items: list[Any] = [{"piece": True}]
        if p == SHIELD:
            for k in range(NK):
                items.extend(stand(k) for _ in range(state.shield[k]))
        elif state.kind_on[p] >= 0:
            items.append(stand(state.kind_on[p]))
        scene[PIECE_IDS[p]] = items
    return scene


def _stands(pieces: Sequence[Any]) -> list[Any]:
    return [p["stand"] for p in pieces or [] if isinstance(p, dict) and "stand" in p]


def _has_piece(pieces: Sequence[Any]) -> bool:
    return any(isinstance(p, dict) and p.get("piece") for p in pieces or [])


def implied_actions(state: EagleState, before: Mapping[str, list[Any]], after: Observation) -> list[Action]:
    """Actions the change before -> after would mean, legal or not (confident regions only)."""
    actions: list[Action] = []
    verb = "take" if state.phase == TAKE else "capture"
    for pid in PIECE_IDS:
        if after.is_uncertain(pid):
            continue
        was, now = before.get(pid, []), after.regions.get(pid, [])
        if _has_piece(was) and not _has_piece(now):
            actions.append({"type": verb, "piece": pid})
        elif pid != SHIELD_ID and _has_piece(now):
            old, new = _stands(was), _stands(now)
            if old and new and old != new and new == ["jester"]:
                actions.append({"type": "jester", "piece": pid})
    if not after.is_uncertain(SHIELD_ID) and _has_piece(after.regions.get(SHIELD_ID, [])):
        old, new = _stands(before.get(SHIELD_ID, [])), _stands(after.regions.get(SHIELD_ID, []))
        if new.count("jester") == old.count("jester") + 1 and len(new) == len(old):
            gone = [v for v in set(old) if v != "jester" and old.count(v) > new.count(v)]
            if len(gone) == 1 and gone[0] in KIND_OF_LABEL:
                actions.append({"type": "jester", "piece": SHIELD_ID, "kind": KINDS[KIND_OF_LABEL[gone[0]]]})
    return actions


def describe(region: str, expected: list[Any], seen: list[Any]) -> str:
    def words(pieces: list[Any]) -> str:
        if not _has_piece(pieces) and not _stands(pieces):
            return "no piece"
        values = ", ".join(str(v) for v in _stands(pieces))
        base = "the piece" if _has_piece(pieces) else "no piece"
        return f"{base} with {values}" if values else f"{base}, no character"

    return f"{region}: expected {words(expected)}, saw {words(seen)}"


def settle_by_rules(_state: EagleState, seen: Observation) -> Observation:
    """``seen`` with every space read surely as a character and no piece made unsure: a character never stands on the
    felt without its piece (EK-SETUP-RANDOM, EK-CAP-CHOOSE: a piece leaves the board with its character). Bench table,
    Eagle Kingdoms seed 9 r2: the empty feather-left-4 read as "no piece with 2" for the rest of the film (the second
    rendition's art), a difference no move explains -- asked 84 times, and each time the roll due asked too."""
    odd = [region for region, items in seen.regions.items()
           if not seen.is_uncertain(region) and _stands(items) and not _has_piece(items)]
    if not odd:
        return seen
    return replace(seen, confidence={**seen.confidence, **dict.fromkeys(odd, 0.0)})


class Adapter:
    """The game adapter for :func:`companion.referee.match.match`."""

    scene_from_state = staticmethod(scene_from_state)
    implied_actions = staticmethod(implied_actions)
    describe = staticmethod(describe)
    settle_by_rules = staticmethod(settle_by_rules)


ADAPTER = Adapter()


def match_observation(state: EagleState, before: Any, after: Any) -> MatchResult:
    return match(state, before, after, ADAPTER)


def _left_over(placement: Mapping[str, str]) -> str | None:
    """The one character of the box (EK-SETUP-RANDOM: every one stands on a piece at set-up) that ``placement`` has not
    placed, or None when that is not exactly one."""
    placed = Counter(placement.values())
    left = [k for k in range(NK) for _ in range(COUNTS[k] - placed[KINDS[k]])]
    return KINDS[left[0]] if len(left) == 1 else None


def _read_kind(obs: Observation, pid: str) -> str | None:
    """The character the camera reads on piece ``pid``, sure or not, or None when it reads none or several."""
    labels = _stands(obs.regions.get(pid, []))
    return KINDS[KIND_OF_LABEL[labels[0]]] if len(labels) == 1 and labels[0] in KIND_OF_LABEL else None


def setup_from_observation(state: EagleState, obs: Observation) -> tuple[Action | None, str]:
    """The set-up picture: (``setup`` action, "") when every board piece is confidently read (or all but one, read as
    the one character the others leave) and the placement is legal; else (None, what to fix). The engine still
    validates it as a chance step."""
    if not obs.usable:
        return None, f"board not read: {obs.status}"
    placement: dict[str, str] = {}
    problems: list[str] = []
    for pid in PIECE_IDS:
        if pid == SHIELD_ID:
            continue
        labels = _stands(obs.regions.get(pid, []))
        if obs.is_uncertain(pid):
            problems.append(f"{pid} (unsure)")
        elif len(labels) != 1 or labels[0] not in KIND_OF_LABEL:
            problems.append(f"{pid} ({'no character' if not labels else 'several characters'})")
        else:
            placement[pid] = KINDS[KIND_OF_LABEL[labels[0]]]
    if len(problems) == 1 and problems[0].endswith(" (unsure)"):
        pid, left = problems[0].split(" ")[0], _left_over(placement)
        if left is not None and _read_kind(obs, pid) == left:
            placement[pid], problems = left, []  # every character stands on a piece
    if problems:
        return None, "cannot read the set-up at: " + ", ".join(problems)
    action = {"type": "setup", "placement": placement}
    if not state.is_legal(action):
        return None, str(state.explain_illegal(action))
    return action, ""
