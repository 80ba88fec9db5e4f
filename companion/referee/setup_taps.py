"""A set-up the camera read only in part, for the family to finish by taps on the picture (issue 20, item 3).

When the table pipeline cannot read the whole set-up surely (a piece unsure, hidden or unreadable), it asks;
:func:`setup_spaces` says what it did read -- each space's value read surely, the spaces to check, the values
a space can take -- and :func:`setup_action` turns the family's answers into the game's set-up action (the
engine still judges it, as for any set-up). No UI here; the app shows the board's picture with the spaces to
check marked, a tap on one chooses its value, one more tap confirms.

Eagle Kingdoms: a space is a piece of the eagle (the shield holds no character at the set-up), its value the
character kind standing on it. Mighty Magpies: a space is a nest marked for tiles, its value the tiles in it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion.games.core import Action
from companion.vision.readers import Observation


@dataclass(frozen=True)
class SetupSpaces:
    """The set-up as far as it was read: ``read`` maps every space to its value read surely, or None (to be
    chosen); ``unsure`` names the spaces the camera could not read surely (hidden, unsure or unreadable);
    ``options`` are the values any space can take, in the game's order."""

    game: str
    read: dict[str, Any]
    unsure: tuple[str, ...]
    options: tuple[Any, ...]
    message: str = ""
    hidden: tuple[str, ...] = field(default=())
    space_options: dict[str, tuple[Any, ...]] = field(default_factory=dict)  # a space's own values, where they differ
    suspect: tuple[str, ...] = ()  # read surely, but the box cannot hold what was read there: one of them is wrong

    def as_json(self) -> dict[str, Any]:
        return {"game": self.game, "read": dict(self.read), "unsure": list(self.unsure),
                "options": list(self.options), "message": self.message, "hidden": list(self.hidden),
                "space_options": {k: list(v) for k, v in self.space_options.items()}, "suspect": list(self.suspect)}


def _eagle_spaces(obs: Observation, message: str) -> SetupSpaces:
    from companion.games.eagle_kingdoms.rules import COUNTS, JESTER, JESTER_PIECES, KINDS, PIECE_IDS, SHIELD_ID
    from companion.referee.eagle_kingdoms import KIND_OF_LABEL, _stands

    read: dict[str, Any] = {}
    unsure = []
    for pid in PIECE_IDS:
        if pid == SHIELD_ID:
            continue
        labels = _stands(obs.regions.get(pid, []))
        if obs.is_uncertain(pid) or len(labels) != 1 or labels[0] not in KIND_OF_LABEL:
            read[pid] = None
            unsure.append(pid)
        else:
            read[pid] = KINDS[KIND_OF_LABEL[labels[0]]]
    hidden = tuple(p for p in unsure if p in obs.hidden)
    # a misread while sure shows in the box's counts: more of a character than the box holds (rule EK-SETUP-RANDOM),
    # or a Jester off the tail feathers (EK-SETUP-JESTERS); those pieces are the ones to look at
    read_as = {k: [p for p, v in read.items() if v == k] for k in KINDS}
    feathers = {PIECE_IDS[p] for p in JESTER_PIECES}
    suspect = [p for k, c in zip(KINDS, COUNTS, strict=True) if len(read_as[k]) > c for p in read_as[k]]
    suspect += [p for p in read_as[KINDS[JESTER]] if p not in feathers and p not in suspect]
    return SetupSpaces("eagle-kingdoms", read, tuple(unsure), tuple(KINDS), message, hidden,
                       suspect=tuple(p for p in PIECE_IDS if p in suspect))


def _magpies_spaces(obs: Observation, message: str) -> SetupSpaces:
    """Mighty Magpies: a space is a nest marked for tiles, its value the nest's tiles ("bbbs": three berries and
    a silver ring, in the order of ``TILE_LETTERS``); a nest can hold any tiles of its marked number."""
    from itertools import combinations_with_replacement

    from companion.referee.mighty_magpies import BOARD, TILE_KINDS, TILE_LETTERS, _tiles

    read: dict[str, Any] = {}
    unsure, own = [], {}
    for i, nest in enumerate(BOARD.nest_ids):
        capacity = BOARD.capacity[i]
        if capacity == 0:
            continue
        own[nest] = tuple("".join(c) for c in combinations_with_replacement(TILE_LETTERS, capacity))
        tiles = _tiles(obs.regions.get(nest))
        text = "".join(letter * tiles[kind] for letter, kind in zip(TILE_LETTERS, TILE_KINDS, strict=True))
        if obs.is_uncertain(nest) or len(text) != capacity:
            read[nest] = None
            unsure.append(nest)
        else:
            read[nest] = text
    options = tuple(dict.fromkeys(o for values in own.values() for o in values))
    hidden = tuple(n for n in unsure if n in obs.hidden)
    return SetupSpaces("mighty-magpies", read, tuple(unsure), options, message, hidden, own)


SPACES = {"eagle-kingdoms": _eagle_spaces, "mighty-magpies": _magpies_spaces}


def setup_spaces(game: str, obs: Observation | None, message: str = "") -> SetupSpaces | None:
    """What the settled board shows of ``game``'s set-up (None: a game whose set-up is not chosen by taps). With
    no usable reading (a box the camera cannot read yet) every space is left to choose: the family sets the box
    up by taps on the board's picture, as for the spaces a reading left unsure."""
    if game not in SPACES:
        return None
    return SPACES[game](obs if obs is not None and obs.usable else Observation({}), message)


def setup_action(game: str, values: dict[str, Any]) -> Action:
    """The set-up action of the values of every space (read or chosen)."""
    if game == "eagle-kingdoms":
        return {"type": "setup", "placement": dict(values)}
    if game == "mighty-magpies":
        return {"type": "setup", "nests": dict(values)}
    raise ValueError(f"{game}'s set-up is not chosen by taps")
