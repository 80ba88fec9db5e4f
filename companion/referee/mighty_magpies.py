"""Mighty Magpies on camera: rules state <-> board scene, observation -> turn, set-up picture.

- :func:`scene_from_state`: each nest's tiles and the magpies in it; player ``i`` flies the magpie
  of colour ``MAGPIE_COLOURS[i]`` (red, blue, green, yellow: ``docs/vision-notes.md``);
- :func:`implied_actions`: the turn a change means even if illegal -- the current player's magpie
  now stands in another nest (or tiles vanished from nests next to it) -> the flights that lead
  there through the nests that lost a tile, taking what vanished; the berries stolen from other
  players are off the board, so the first choice the rules allow is filled in (the matcher asks
  when several fit);
- :func:`setup_from_observation`: the set-up picture -> the ``setup`` action;
- :func:`match_observation` as for the other games.

Reader accuracy and speed on rendered scenes of seeded simulated games: :mod:`companion.workshop.boards.bench`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from companion.games.core import Action
from companion.games.mighty_magpies.board import BOARD, TILE_KINDS, TILE_LETTERS
from companion.games.mighty_magpies.rules import MagpiesState
from companion.referee.match import MatchResult, match
from companion.vision.readers import Observation, SceneDescription

GAME = "mighty-magpies"
MAGPIE_COLOURS = ("red", "blue", "green", "yellow")
KIND_OF_LETTER = dict(zip(TILE_LETTERS, TILE_KINDS, strict=True))


def scene_from_state(state: MagpiesState) -> SceneDescription:
    """Nest id -> its tiles and the magpies in it."""
    data = state.to_json()
    scene: SceneDescription = {}
    for nest, letters in data["nests"].items():
        if letters:
            scene[nest] = [{"tile": KIND_OF_LETTER[ch]} for ch in letters]
    for player, nest in enumerate(data["magpies"]):
        scene.setdefault(nest, []).append({"magpie": MAGPIE_COLOURS[player]})
    for pieces in scene.values():
        pieces.sort(key=lambda p: json.dumps(p, sort_keys=True))
    return scene


def _tiles(pieces: Sequence[Any] | None) -> dict[str, int]:
    counts = dict.fromkeys(TILE_KINDS, 0)
    for p in pieces or []:
        if isinstance(p, Mapping) and p.get("tile") in counts:
            counts[p["tile"]] += 1
    return counts


def _magpie_nest(scene: Mapping[str, Sequence[Any]], colour: str) -> str | None:
    found = [n for n, pieces in scene.items() if any(isinstance(p, Mapping) and p.get("magpie") == colour for p in pieces or [])]
    return found[0] if len(found) == 1 else None


def _route(a: str, b: str) -> str | None:
    ia, ib = BOARD.nest_index(a), BOARD.nest_index(b)
    for r, ends in enumerate(BOARD.route_ends):
        if set(ends) == {ia, ib}:
            return BOARD.route_ids[r]
    return None


def _neighbours(nest: str) -> list[str]:
    i = BOARD.nest_index(nest)
    return sorted({BOARD.nest_ids[o] for per_colour in BOARD.exits[i] for _, o in per_colour})


def implied_actions(state: MagpiesState, before: Mapping[str, list[Any]], after: Observation) -> list[Action]:
    """The turn the change before -> after would mean, legal or not (confident nests only)."""
    if state.is_terminal() or state.phase == "setup":
        return []
    nests = BOARD.nest_ids
    if any(after.is_uncertain(n) for n in nests):
        return []
    colour = MAGPIE_COLOURS[state.player]
    start, end = _magpie_nest(before, colour), _magpie_nest(after.regions, colour)
    if start is None or end is None:
        return []
    lost: dict[str, list[str]] = {}
    for n in nests:
        was, now = _tiles(before.get(n)), _tiles(after.regions.get(n))
        gone = [k for k in TILE_KINDS for _ in range(max(0, was[k] - now[k]))]
        if gone:
            lost[n] = gone
    if start == end and not lost:
        return []

    def take(nest: str) -> str | None:
        return lost[nest][0] if lost.get(nest) else None

    paths: list[list[str]] = []
    if start != end and _route(start, end) and (not lost or set(lost) <= {end}):
        paths.append([end])
    for mid in _neighbours(start):
        if _route(mid, end) and mid != end and (mid in lost or start == end or not _route(start, end)):
            paths.append([mid, end])
    if not paths:  # not a flight the board allows: name a route into the nest it reached
        r = next((BOARD.route_ids[k] for k, ends in enumerate(BOARD.route_ends) if BOARD.nest_index(end) in ends), None)
        return [] if r is None else [{"type": "turn", "steps": [{"route": r, "take": take(end)}], "steal": _steal(state)}]
    actions = []
    for path in sorted(paths, key=lambda p: (-sum(1 for n in p if n in lost), len(p))):
        here, steps = start, []
        for nest in path:
            steps.append({"route": _route(here, nest), "take": take(nest)})
            here = nest
        actions.append({"type": "turn", "steps": steps, "steal": _steal(state)})
    return actions


def _steal(state: MagpiesState) -> list[int]:
    if state.phase != "move":
        return []
    options = state.steal_options()
    return list(options[0]) if options else []


def describe(region: str, expected: list[Any], seen: list[Any]) -> str:
    def words(pieces: list[Any]) -> str:
        t = _tiles(pieces)
        tiles = ", ".join(f"{n} {k}" for k, n in t.items() if n) or "no tiles"
        mags = sorted(p["magpie"] for p in pieces or [] if isinstance(p, Mapping) and "magpie" in p)
        return tiles + (f", magpie(s) {', '.join(mags)}" if mags else "")

    return f"nest {region}: expected {words(expected)}, saw {words(seen)}"


class Adapter:
    """The game adapter for :func:`companion.referee.match.match`."""

    scene_from_state = staticmethod(scene_from_state)
    implied_actions = staticmethod(implied_actions)
    describe = staticmethod(describe)


ADAPTER = Adapter()


def match_observation(state: MagpiesState, before: Any, after: Any) -> MatchResult:
    return match(state, before, after, ADAPTER)


def _left_for(nest: str, obs: Observation) -> dict[str, int]:
    """The tiles of the box (MM-CONTENTS-1) that the other nests, as read, leave for ``nest``."""
    left = dict(zip(TILE_KINDS, BOARD.tiles, strict=True))
    for other in BOARD.nest_ids:
        if other != nest:
            for kind, n in _tiles(obs.regions.get(other)).items():
                left[kind] -= n
    return left


def setup_from_observation(state: MagpiesState, obs: Observation) -> tuple[Action | None, str]:
    """The set-up picture: (``setup`` action, "") when every nest is confidently read (or all but one, read as holding
    just the tiles the others leave) and the tiles are a legal set-up; else (None, what to fix). The engine still
    validates it as a chance step."""
    if not obs.usable:
        return None, f"board not read: {obs.status}"
    unsure = [n for n in BOARD.nest_ids if obs.is_uncertain(n)]
    if len(unsure) == 1 and _left_for(unsure[0], obs) == _tiles(obs.regions.get(unsure[0])):
        unsure = []  # every tile is in a nest at set-up (MM-SETUP-1): the others leave it the tiles read there
    if unsure:
        return None, "cannot read the set-up at nest(s) " + ", ".join(unsure)
    nests = {}
    for i, n in enumerate(BOARD.nest_ids):
        if BOARD.capacity[i] == 0:
            continue
        t = _tiles(obs.regions.get(n))
        nests[n] = "".join(letter * t[kind] for letter, kind in zip(TILE_LETTERS, TILE_KINDS, strict=True))
    action = {"type": "setup", "nests": nests}
    if not state.is_legal(action):
        return None, str(state.explain_illegal(action))
    return action, ""
