"""Dice readings meet the rules: which die is which, unclear extra finds, and the chance action.

The dice reader (:mod:`companion.vision.reader`) reports what it sees in its own words (kinds ``d6``,
``d8``, ``magpie``; a value; a box; a confidence; maybe the identity of a registered die). A game's
chance request names the dice it waits for (:class:`companion.games.core.ChanceRequest`: a kind, a role
and the faces of each die). This module joins the two, UI-free, for the app, ``companion follow`` and
the benchmarks alike:

- :func:`wanted_dice` -- the dice a state waits for, one :class:`DieSpec` each;
- :func:`read_roll` -- a settled roll's readings -> one :class:`DieValue` per wanted die (roles given,
  unclear extra finds set aside), or why the roll is not complete;
- :func:`is_new_roll` -- whether readings seen while no roll was wanted are a new throw (to read again
  when one is) or the dice just played, still lying there;
- :func:`entered_dice` / :func:`with_correction` -- dice the family entered by hand, or one die of a
  reading corrected by them (their word: sure, and no longer the camera's);
- :func:`roll_action` -- the dice of a roll -> the engine's chance action (``State.chance_action``);
- :func:`dice_values` -- the faces in a chance action, in its own order.

Roles are never given silently: dice that must be told apart (Verzauberte Eulen's head, body and eye)
and that the reader did not recognise are taken left to right and marked as guessed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.games.core import Action, Face, Game, State

READER_KIND = {"d6": "d6", "d8": "d8", "colour": "magpie"}
"""The games' names for kinds of dice (``Game.dice_kinds``, ``ChanceRequest.dice``) -> the dice reader's
(``vision.classes.KINDS``): the Mighty Magpies colour die is the reader's "magpie"."""
GAME_KIND = {reader: game for game, reader in READER_KIND.items()}


def reader_kinds(game_kinds: Iterable[str]) -> tuple[str, ...]:
    """The dice reader's kinds for these game kinds (all kinds when none is given)."""
    from companion.vision.classes import KINDS

    wanted = {READER_KIND.get(k, k) for k in game_kinds}
    return tuple(k for k in KINDS if k in wanted) or tuple(KINDS)


def in_game_terms(reading: Mapping[str, Any]) -> dict[str, Any]:
    """A reading's JSON (``Reading.as_json()``) with its kind in the games' words."""
    out = dict(reading)
    kind: Any = out.get("kind")
    out["kind"] = GAME_KIND.get(kind, kind)
    return out


@dataclass
class DieSpec:
    """One die the current chance node waits for: its kind, role (if dice differ) and faces."""

    kind: str
    role: str
    faces: list[Face]


@dataclass
class DieValue:
    """One die of a roll as read or entered: its value, how sure, where it lies, and who said so."""

    kind: str
    role: str
    value: Face | None
    confidence: float = 1.0
    uncertain: bool = False
    box: tuple[int, int, int, int] | None = None
    source: str = "camera"  # "camera" | "manual" | "corrected"


@dataclass
class RollReading:
    """A settled roll matched to the dice a state waits for.

    ``dice`` is ``None`` while the roll is not complete: ``seen`` dice of the wanted kinds were found for
    ``len(specs)`` wanted. ``set_aside`` counts unclear extra finds left out; ``guessed_roles`` says that
    dice which must be told apart were given roles by where they lie (each such die is uncertain).
    """

    specs: list[DieSpec]
    dice: list[DieValue] | None
    seen: int
    set_aside: int = 0
    guessed_roles: bool = False
    rejected: list[dict[str, Any]] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.dice is not None

    @property
    def uncertain(self) -> bool:
        return any(d.uncertain for d in self.dice or [])


def wanted_dice(state: State | None) -> list[DieSpec]:
    """The dice ``state`` waits for (empty when it waits for no dice: a decision, a set-up, the end)."""
    if state is None or not state.is_chance_node():
        return []
    request = state.chance_request()
    if request is None or not request.dice:
        return []
    return [DieSpec(kind, role, list(faces)) for kind, role, faces in zip(request.dice, request.roles, request.faces, strict=True)]


def usual_roll(game_class: type[Game]) -> list[tuple[str, str]]:
    """(role, kind) of each die of the game's usual roll (the first of its ``Game.rolls``); alike dice get
    "die 1", "die 2" as their role."""
    dice = next(iter(game_class.rolls.values()), ())
    return [(die.role or f"die {i + 1}", die.kind) for i, die in enumerate(dice)]


def dice_told_apart(roles: Sequence[str]) -> bool:
    """Whether the dice of a roll have roles that matter (head, body, eye), rather than being alike dice
    ("", or "die 1", "die 2")."""
    return len(roles) > 1 and any(role and not role.startswith("die ") for role in roles)


def read_roll(specs: Sequence[DieSpec], readings: Sequence[Mapping[str, Any]]) -> RollReading:
    """Match a settled roll's readings (in the games' kinds: :func:`in_game_terms`) to the wanted dice."""
    specs = list(specs)
    wanted = {s.kind for s in specs}
    found = [r for r in readings if r.get("kind") in wanted]
    found, set_aside = set_aside_unclear_extras(found, [s.kind for s in specs])
    if len(found) != len(specs):
        return RollReading(specs, None, len(found), set_aside)
    ordered, placed = assign_roles(specs, found)
    dice = [
        DieValue(s.kind, s.role, r.get("value"), float(r.get("confidence", 1.0)),
                 bool(r.get("uncertain", False)) or by_place, tuple(r["box"]) if r.get("box") else None, "camera")
        for s, r, by_place in zip(specs, ordered, placed, strict=True)
    ]
    return RollReading(specs, dice, len(found), set_aside, any(placed))


def assign_roles(specs: Sequence[DieSpec], found: Sequence[Mapping[str, Any]]
                 ) -> tuple[list[Mapping[str, Any]], list[bool]]:
    """The reading for each die of the roll, and whether its role was only guessed from where it lies.

    A reading with a registered identity takes that role, unless another reading has it too. The others are given
    the remaining roles left to right; that is a guess when two or more dice that must be told apart are left
    showing different faces (with one left, it is the only one remaining; with every one left showing the same
    face, each role gets that face whichever die is whose: a duel's tie). Alike dice are simply taken left to right."""
    def left(r: Mapping[str, Any]) -> int:
        return (r.get("box") or (0, 0, 0, 0))[0]

    apart = dice_told_apart([s.role for s in specs])
    # a role two dice are recognised as is neither's for sure: both are left over (bench table, Verzauberte Eulen
    # seed 7 r2, action 20: the body die recognised as the eye die beside the eye die, and confirmed, sure, swapped)
    claims = Counter(r.get("identity") for r in found)
    by_role: dict[str, Mapping[str, Any]] = {}
    for r in found:
        role = r.get("identity")
        if apart and role and claims[role] == 1 and any(s.role == role for s in specs):
            by_role[role] = r
    rest = sorted((r for r in found if all(r is not v for v in by_role.values())), key=left)
    open_roles = [s for s in specs if s.role not in by_role]
    guessed = apart and len(open_roles) > 1 and len({(r.get("kind"), r.get("value")) for r in rest}) > 1
    ordered: list[Mapping[str, Any]] = []
    placed: list[bool] = []
    for s in specs:
        if s.role in by_role:
            ordered.append(by_role[s.role])
            placed.append(False)
        else:
            ordered.append(rest.pop(0))
            placed.append(guessed)
    return ordered, placed


def set_aside_unclear_extras(found: Sequence[Mapping[str, Any]], kinds: Sequence[str]
                             ) -> tuple[list[Mapping[str, Any]], int]:
    """Readings to use when the camera sees more dice of a kind than the roll has.

    A carpet, a spotted cloth or a die's side face shows up as extra finds, often marked uncertain. When
    exactly as many dice of a kind as the roll needs are read confidently, the uncertain rest of that kind
    is set aside; otherwise nothing is (a confident extra die, or too few confident ones: the players must
    look). The proposal still waits for a confirm, with every die boxed. Returns (readings, number set aside).
    """
    kept: list[Mapping[str, Any]] = []
    set_aside = 0
    for kind in dict.fromkeys(kinds):
        of_kind = [r for r in found if r.get("kind") == kind]
        need = list(kinds).count(kind)
        sure = [r for r in of_kind if not r.get("uncertain", False)]
        if len(of_kind) > need and len(sure) == need:
            kept += sure
            set_aside += len(of_kind) - need
        else:
            kept += of_kind
    return kept, set_aside


def entered_dice(specs: Sequence[DieSpec], values: Sequence[Face | None], source: str = "manual") -> list[DieValue]:
    """The wanted dice with the faces the family entered (``None``: not entered yet)."""
    return [DieValue(s.kind, s.role, v, source=source) for s, v in zip(specs, values, strict=True)]


def with_correction(dice: Sequence[DieValue], index: int, value: Face) -> list[DieValue]:
    """A copy of a roll with die ``index`` given its true face by the family: sure, and marked corrected
    (later camera readings do not override it)."""
    out = [DieValue(**vars(d)) for d in dice]
    out[index].value = value
    out[index].uncertain = False
    out[index].confidence = 1.0
    out[index].source = "corrected"
    return out


def roll_action(state: State, dice: Sequence[DieValue]) -> Action:
    """The chance action of these dice, in the order of the chance request (``InvalidAction`` for a wrong
    count, or a face a die does not have)."""
    return state.chance_action([d.value for d in dice])


def played_dice(specs: Sequence[DieSpec], action: Action) -> list[tuple[str, str]]:
    """(kind, face) of each die of a chance action (none for a set-up: no dice wanted)."""
    return [(spec.kind, str(value)) for spec, value in zip(specs, dice_values(action), strict=False)]


def is_new_roll(readings: Sequence[Mapping[str, Any]], played: Sequence[tuple[str, str]]) -> bool:
    """Whether dice seen while no roll was wanted (or just before the last change) are a new throw.

    Yes when a die of the roll just played is gone or shows another face, or a die of another kind is read
    clearly (the Enchanted Die thrown before its roll was asked for). No when they still show the roll just
    played (a die nudged while moving a piece), so that the next player is not offered the last player's
    dice; an unclear extra find of another kind is more likely a pattern on the table than a die."""
    if not readings:
        return False
    seen: Counter[tuple[Any, str]] = Counter((r.get("kind"), str(r.get("value"))) for r in readings)
    played_kinds = {kind for kind, _ in played}
    rethrown = bool(Counter(played) - seen)
    another_die = any(r.get("kind") not in played_kinds and not r.get("uncertain") for r in readings)
    return rethrown or another_die


def dice_values(action: Action) -> list[Any]:
    """The faces in a chance action, in the action's own order (``dice``, ``face``, ``head``...)."""
    values: list[Any] = []
    for key, value in action.items():
        if key == "type":
            continue
        if isinstance(value, list) and all(isinstance(v, int | str) for v in value):
            values.extend(value)
        elif isinstance(value, int | str) and not isinstance(value, bool):
            values.append(value)
    return values


__all__ = [
    "GAME_KIND", "READER_KIND", "DieSpec", "DieValue", "RollReading", "assign_roles", "dice_told_apart",
    "dice_values", "entered_dice", "in_game_terms", "is_new_roll", "played_dice", "read_roll", "reader_kinds",
    "roll_action", "set_aside_unclear_extras", "usual_roll", "wanted_dice", "with_correction",
]
