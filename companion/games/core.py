"""Engine core shared by the four games, shaped after OpenSpiel's python games.

A *game* is a rules configuration (players, mode, variant); a *state* is one
position of that game. Physical randomness (dice, the random set-up) is an
explicit chance step: while ``state.is_chance_node()`` the state says what it
waits for (``chance_request()``), and the outcome arrives from outside (camera,
typed, or a seeded RNG in simulations) as an ordinary action that is validated
like any other.

Actions are small JSON-compatible dicts with a ``"type"`` key, e.g.
``{"type": "roll", "dice": [3, 5]}`` or ``{"type": "capture", "piece": "crown-l"}``.
Legality has one hook, ``state.problem(a)``: ``None`` when ``a`` is legal now, else the
error naming the broken rule ID (by default: membership in ``state.legal_actions()``).
``state.apply(a)`` raises that error and leaves the state unchanged; ``is_legal`` and
``explain_illegal`` are derived from it.
"""

from __future__ import annotations

import copy
import difflib
import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, cast, final

Action = dict[str, Any]

CHANCE = -1
"""``current_player`` while the state waits for dice or another physical outcome."""
TERMINAL = -4
"""``current_player`` once the game is over."""


class GameError(Exception):
    """Base class of every error a game raises for bad input."""


class InvalidAction(GameError):
    """The input does not describe an action of this game at all (bad notation, unknown face)."""

    def __init__(self, message: str, rule_id: str | None = None):
        super().__init__(message)
        self.message = message
        self.rule_id = rule_id

    def __str__(self) -> str:
        return f"{self.message} [{self.rule_id}]" if self.rule_id else self.message


class IllegalAction(GameError):
    """A well-formed action that the rules forbid now; names the rule it breaks."""

    def __init__(self, rule_id: str, message: str, action: Action | None = None):
        super().__init__(message)
        self.rule_id = rule_id
        self.message = message
        self.action = action

    def __str__(self) -> str:
        return f"{self.message} [{self.rule_id}]"


class ConfigError(GameError):
    """A rules configuration that cannot be played (unknown mode, wrong player count)."""


Face = int | str
"""What a die shows: a number (``3``) or a named face (``"magpie"``)."""

D6_FACES: tuple[int, ...] = (1, 2, 3, 4, 5, 6)


@dataclass(frozen=True)
class Die:
    """One physical die of a roll, as a static fact of the game.

    ``kind`` is what a camera looks for (``"d6"``, ``"d8"``, ``"colour"``); ``faces`` are the faces it can
    show, in the game's canonical order; ``role`` tells the dice of one roll apart where that matters
    (``"head"``, ``"body"``, ``"eye"``), and is ``""`` for dice that are alike.
    """

    kind: str
    faces: tuple[Face, ...]
    role: str = ""


@dataclass(frozen=True)
class ChanceRequest:
    """What a chance node waits for, so a camera, a keyboard or an RNG can supply it.

    ``kind`` is a short word (``"dice"``, ``"setup"``, ``"duel"``). For dice, ``dice`` lists each die's kind,
    ``roles`` its role (``""`` for alike dice; the duel's are personalised: ``"challenger Ann"``) and
    ``faces`` the faces it can show, one entry per die in the order :meth:`State.chance_action` takes the
    values; all three are empty for a set-up. ``prompt`` is the plain-words request, ``example`` a typed answer.
    Games build dice requests with :meth:`for_dice` from their declared ``Game.rolls``.
    """

    kind: str
    dice: tuple[str, ...] = ()
    roles: tuple[str, ...] = ()
    prompt: str = ""
    example: str = ""
    faces: tuple[tuple[Face, ...], ...] = ()

    def __post_init__(self) -> None:
        n = len(self.dice)
        if n and not self.roles:
            object.__setattr__(self, "roles", ("",) * n)
        if len(self.roles) != n or len(self.faces) != n:
            raise ValueError(f"A chance request needs one role and one face list per die: {n} dice, "
                             f"{len(self.roles)} roles, {len(self.faces)} face lists.")

    @classmethod
    def for_dice(
        cls, dice: Sequence[Die], prompt: str, example: str = "", kind: str = "dice", roles: Sequence[str] = ()
    ) -> ChanceRequest:
        """A request for a roll of ``dice`` (one of the game's ``rolls``); ``roles`` replaces the declared
        roles with this roll's words where they name someone (``"challenger Ann"`` for ``"challenger"``)."""
        return cls(
            kind,
            tuple(d.kind for d in dice),
            tuple(roles) or tuple(d.role for d in dice),
            prompt,
            example,
            tuple(d.faces for d in dice),
        )

    def die_name(self, index: int) -> str:
        """The die's role, or "die 2" for one of alike dice (plain words in messages)."""
        return self.roles[index] or f"die {index + 1}"


OPTION_KINDS = ("bool", "int", "text", "choice", "choices", "player")


@dataclass(frozen=True)
class Option:
    """One rules option a game accepts (``--option name=value``), declared as data in ``Game.options_spec``.

    ``kind`` says what a value is: ``"bool"`` (true or false), ``"int"`` (a whole number in
    ``minimum``..``maximum``), ``"text"``, ``"choice"`` (one of ``choices``), ``"choices"`` (a list of
    them, typed as ``a,b``) or ``"player"`` (a player's name or seat number, kept as the seat number).
    ``aliases`` maps other spellings to a choice (``"south-west"`` -> ``"sw"``). ``default`` is what the
    game uses when the option is not given; ``help`` one line for the family; ``rule`` the rule ID (in
    the game's RULES.md) that bounds the values, cited when a value is refused.
    """

    name: str
    kind: str
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    aliases: Mapping[str, str] = field(default_factory=dict)
    minimum: int | None = None
    maximum: int | None = None
    rule: str = ""

    def __post_init__(self) -> None:
        if self.kind not in OPTION_KINDS:
            raise ValueError(f"Option {self.name!r}: unknown kind {self.kind!r}; kinds are {', '.join(OPTION_KINDS)}.")

    def accepted(self) -> str:
        """The accepted values in words, for messages and help."""
        if self.kind == "bool":
            return "true or false"
        if self.kind == "int":
            low = "" if self.minimum is None else f" from {self.minimum}"
            high = "" if self.maximum is None else f" to {self.maximum}"
            return f"a whole number{low}{high}"
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices)
        if self.kind == "choices":
            return "a list of " + ", ".join(self.choices) + " (separated by commas)"
        if self.kind == "player":
            return "a player's name or seat number"
        return "a text"

    def normalise(self, value: Any, game: Game) -> Any:
        """The canonical value for ``value``; :class:`ConfigError` naming the accepted values otherwise."""
        where = f"Option {self.name!r} of {game.title or game.name}"
        by_kind = {"bool": self._bool_value, "int": self._int_value, "text": self._text_value,
                   "choice": self._choice_value, "choices": self._choices_value}
        return by_kind.get(self.kind, self._player_value)(value, where, game)

    def _refused(self, value: Any, where: str) -> ConfigError:
        cited = f" [{self.rule}]" if self.rule else ""
        return ConfigError(f"{where} takes {self.accepted()}; got {value!r}.{cited}")

    def _bool_value(self, value: Any, where: str, game: Game) -> bool:
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        if isinstance(value, bool):
            return value
        raise self._refused(value, where)

    def _int_value(self, value: Any, where: str, game: Game) -> int:
        if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
            value = int(value.strip())
        if isinstance(value, int) and not isinstance(value, bool):
            if (self.minimum is None or value >= self.minimum) and (self.maximum is None or value <= self.maximum):
                return value
        raise self._refused(value, where)

    def _text_value(self, value: Any, where: str, game: Game) -> str:
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            return str(value)
        raise self._refused(value, where)

    def _choice_value(self, value: Any, where: str, game: Game) -> str:
        choice = self._choice(value)
        if choice is None:
            raise self._refused(value, where)
        return choice

    def _choices_value(self, value: Any, where: str, game: Game) -> list[str]:
        items = value.split(",") if isinstance(value, str) else value
        if not isinstance(items, list | tuple) or not items:
            raise self._refused(value, where)
        chosen = [self._choice(item) for item in items]
        if all(c is not None for c in chosen):
            return cast(list[str], chosen)
        bad = next(item for item, c in zip(items, chosen, strict=True) if c is None)
        raise ConfigError(f"{where} takes {self.accepted()}; {str(bad).strip()!r} is not one of them.")

    def _player_value(self, value: Any, where: str, game: Game) -> int:
        names = [p.lower() for p in game.players]
        if isinstance(value, str) and value.strip().lower() in names:
            return names.index(value.strip().lower())
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value.strip())
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(names):
            return value
        raise ConfigError(
            f"{where} takes a player's name ({', '.join(game.players)}) or seat number 0-{len(names) - 1}; got {value!r}."
        )

    def _choice(self, value: Any) -> str | None:
        if not isinstance(value, str):
            return None
        key = value.strip().lower().replace(" ", "-").replace("_", "-")
        for choice in self.choices:
            if key == choice.lower():
                return choice
        return self.aliases.get(key)


@dataclass
class Game(ABC):
    """A rules configuration; a factory for states (``new_initial_state``).

    Subclasses set ``name`` (the registry name), ``version`` (bumped whenever a
    journal written by an older version could no longer be replayed), the
    rule-ID ``rule_prefix`` and the player-count bounds.
    """

    players: list[str]
    mode: str | None = None
    variant: str | None = None
    options: dict[str, Any] = field(default_factory=dict)

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    version: ClassVar[int] = 1
    rule_prefix: ClassVar[str] = ""
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    default_players: ClassVar[int] = 2
    modes: ClassVar[tuple[str, ...]] = ()
    """Names accepted by ``--mode`` (first = default); empty when the game has no modes."""
    variants: ClassVar[tuple[str, ...]] = ()
    """Names accepted by ``--variant`` besides the standard rules (``None``)."""
    max_actions: ClassVar[int] = 10_000
    """Cap on actions in one simulated game; a game that hits it counts as unfinished."""
    options_spec: ClassVar[tuple[Option, ...]] = ()
    """The rules options the game accepts (``--option name=value``), as data; the core validates every
    given value against them (:meth:`validate_options`) and keeps the canonical value in ``options``."""
    rolls: ClassVar[Mapping[str, tuple[Die, ...]]] = {}
    """Every roll the game's chance requests ask for, by name, with its dice (kind, faces, role): static
    facts, so a camera or a set-up screen knows the dice without playing. The first is the usual roll."""
    dice_kinds: ClassVar[tuple[str, ...]] = ()
    """Every kind of die in ``rolls`` (set from it): what a camera should look for on the table."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.dice_kinds = tuple(dict.fromkeys(die.kind for dice in cls.rolls.values() for die in dice))

    def __post_init__(self) -> None:
        self.players = [str(p).strip() for p in self.players]
        if any(not p for p in self.players):
            raise ConfigError("Player names must not be empty.")
        if len(set(p.lower() for p in self.players)) != len(self.players):
            raise ConfigError(f"Player names must differ: {', '.join(self.players)}.")
        self.validate_config()

    def validate_config(self) -> None:
        """Raise :class:`ConfigError` for a configuration the rules do not allow."""
        if self.modes:
            if self.mode is None:
                self.mode = self.modes[0]
            if self.mode not in self.modes:
                raise ConfigError(f"Unknown mode {self.mode!r} for {self.title or self.name}; choose one of: {', '.join(self.modes)}.")
        elif self.mode is not None:
            raise ConfigError(f"{self.title or self.name} has no modes (got {self.mode!r}).")
        if self.variant is not None and self.variant not in self.variants:
            known = ", ".join(self.variants) or "none"
            raise ConfigError(f"Unknown variant {self.variant!r} for {self.title or self.name}; known variants: {known}.")
        n = len(self.players)
        if not self.min_players <= n <= self.max_players:
            raise ConfigError(
                f"{self.title or self.name} is for {self.min_players}-{self.max_players} players, got {n}."
            )
        self.validate_options()

    def validate_options(self) -> None:
        """Check every given option against ``options_spec`` and keep its canonical value; an unknown
        option or a value of the wrong kind raises :class:`ConfigError` naming what is accepted."""
        title = self.title or self.name
        if not isinstance(self.options, Mapping):
            raise ConfigError(f"Options are name=value pairs; got {self.options!r}.")
        spec = {o.name: o for o in self.options_spec}
        unknown = [str(k) for k in self.options if k not in spec]
        if unknown:
            if not spec:
                raise ConfigError(f"{title} has no options (got {', '.join(unknown)}).")
            close = difflib.get_close_matches(unknown[0], list(spec), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(
                f"{title} has no option {unknown[0]!r}{hint}; its options are: {', '.join(spec)}."
            )
        self.options = {name: spec[name].normalise(value, self) for name, value in self.options.items()}

    def option(self, name: str) -> Any:
        """The value of option ``name``: the given one (canonical), else its declared default."""
        if name in self.options:
            return self.options[name]
        for spec in self.options_spec:
            if spec.name == name:
                return spec.default
        raise KeyError(name)

    @classmethod
    def default_player_count(cls, mode: str | None = None) -> int:
        """How many players to seat when none are named (modes may fix the count)."""
        return cls.default_players

    @property
    def num_players(self) -> int:
        return len(self.players)

    def config(self) -> dict[str, Any]:
        """The JSON form of this configuration (journal header, state files)."""
        return {
            "players": list(self.players),
            "mode": self.mode,
            "variant": self.variant,
            "options": dict(self.options),
        }

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Game:
        try:
            return cls(
                players=list(config["players"]),
                mode=config.get("mode"),
                variant=config.get("variant"),
                options=dict(config.get("options") or {}),
            )
        except (KeyError, TypeError) as exc:
            raise ConfigError(f"Malformed game configuration: {exc}") from exc

    @abstractmethod
    def new_initial_state(self) -> State:
        """The state before the first action (often a chance node for the set-up)."""


class State(ABC):
    """One position of a game. Only ``Game.new_initial_state`` and ``from_json`` build one."""

    def __init__(self, game: Game):
        self.game = game

    # --- who moves -----------------------------------------------------------------
    @property
    @abstractmethod
    def current_player(self) -> int:
        """Index of the player to act, ``CHANCE`` or ``TERMINAL``."""

    def is_chance_node(self) -> bool:
        return self.current_player == CHANCE

    @abstractmethod
    def is_terminal(self) -> bool: ...

    @property
    def turn_number(self) -> int:
        """Player turns begun so far (simulation statistics)."""
        return 0

    # --- actions ---------------------------------------------------------------------
    @abstractmethod
    def legal_actions(self) -> list[Action]:
        """Legal actions now; at a chance node, the possible outcomes when enumerable."""

    def problem(self, action: Action) -> GameError | None:
        """The one legality hook: ``None`` when ``action`` is legal now, else the error ``apply`` raises for it
        (:class:`IllegalAction` naming the broken rule, or :class:`InvalidAction` for input that is no action
        of this game). ``action`` is a mapping; the state must not change.

        The default compares with ``legal_actions()`` and refuses generically. A game overrides it to name
        the exact rule, and where membership in ``legal_actions()`` is too slow or the outcomes cannot be
        enumerated (then with its own fast path).
        """
        if action in self.legal_actions():
            return None
        return self._not_legal_now(action)

    def _not_legal_now(self, action: Action) -> IllegalAction:
        prefix = self.game.rule_prefix or "RULE"
        return IllegalAction(f"{prefix}-ACTION", f"That is not a legal action now: {self.action_to_string(action)}.", action)

    def _diagnose(self, action: Any) -> GameError | None:
        if not isinstance(action, Mapping):
            return InvalidAction(f"An action must be a mapping with a 'type', got {action!r}.")
        try:
            return self.problem(cast(Action, action))
        except GameError as exc:  # a diagnosis that raises instead of returning still means "not legal"
            return exc

    @final
    def is_legal(self, action: Action) -> bool:
        """Whether ``apply`` would accept ``action`` now (from ``problem``; not overridden)."""
        return self._diagnose(action) is None

    @final
    def explain_illegal(self, action: Action) -> GameError:
        """Why ``action`` is not legal now (from ``problem``; not overridden); a generic refusal for a legal one."""
        return self._diagnose(action) or self._not_legal_now(action)

    def apply(self, action: Action) -> None:
        """Validate and apply; an illegal action raises and leaves the state unchanged."""
        if not isinstance(action, Mapping) or "type" not in action:
            raise InvalidAction(f"An action must be a mapping with a 'type', got {action!r}.")
        action = dict(action)
        error = self._diagnose(action)
        if error is not None:
            raise error
        self._apply(action)

    def apply_unchecked(self, action: Action) -> None:
        """Apply an action known to be legal (drawn from ``legal_actions``); for simulations."""
        self._apply(action)

    @abstractmethod
    def _apply(self, action: Action) -> None:
        """Mutate the state; ``action`` has been validated."""

    @abstractmethod
    def action_to_string(self, action: Action) -> str:
        """A short human description, e.g. 'Roll: 3+5' or 'Ann captures the King on crown-l'."""

    # --- chance --------------------------------------------------------------------------
    def chance_request(self) -> ChanceRequest | None:
        """What the chance node waits for; ``None`` when it is not a chance node."""
        return None

    def chance_action(self, values: Sequence[Face | None]) -> Action:
        """The chance action for dice showing ``values``, one per die in the order of ``chance_request().dice``
        (a camera's reading, taps, typed numbers). A value matches a face equal to it or spelled like it
        (``"3"`` for 3, ``"Red"`` for ``"red"``). A wrong count or a face the die does not have (``None``: a
        die not read) raises :class:`InvalidAction` with a plain message; the state never changes."""
        request = self.chance_request()
        if request is None or not request.dice:
            raise InvalidAction("No dice are wanted now.")
        if isinstance(values, str | bytes):
            raise InvalidAction(f"Give one value per die, not the text {values!r}.")
        values = list(values)
        if len(values) != len(request.dice):
            names = ", ".join(request.die_name(i) for i in range(len(request.dice)))
            raise InvalidAction(f"The roll is {plural(len(request.dice), 'die', 'dice')} ({names}); got {plural(len(values), 'value')}.")
        return self._chance_action([_face(request, i, v) for i, v in enumerate(values)])

    def _chance_action(self, faces: list[Face]) -> Action:
        """Build the chance action from checked faces (one per die of ``chance_request()``); games with dice
        override it."""
        raise NotImplementedError(f"{type(self).__name__} builds no chance action from dice")

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        """(outcome, probability) pairs at a chance node, when they can be enumerated."""
        outcomes = self.legal_actions()
        return [(a, 1.0 / len(outcomes)) for a in outcomes]

    def sample_chance(self, rng: random.Random) -> Action:
        """Draw a chance outcome with its physical probability (seeded simulations)."""
        outcomes = self.chance_outcomes()
        actions = [a for a, _ in outcomes]
        weights = [p for _, p in outcomes]
        return rng.choices(actions, weights=weights, k=1)[0]

    # --- results -------------------------------------------------------------------------
    @abstractmethod
    def scores(self) -> list[float]:
        """Current points of each player (final once terminal)."""

    @abstractmethod
    def winners(self) -> list[int]:
        """Indices of the winners (several on a tie or an alliance); empty while playing."""

    def check_invariants(self) -> list[str]:
        """Every broken invariant, in plain words (``simulate --check``)."""
        return []

    # --- persistence ---------------------------------------------------------------------
    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """A JSON-compatible dict from which ``from_json`` rebuilds an equal state."""

    @classmethod
    @abstractmethod
    def from_json(cls, game: Game, data: Mapping[str, Any]) -> State: ...

    def clone(self) -> State:
        twin = copy.copy(self)
        twin.__dict__.update({k: copy.deepcopy(v) for k, v in self.__dict__.items() if k != "game"})
        return twin

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and type(self) is type(other) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]

    def player_name(self, player: int) -> str:
        if player == CHANCE:
            return "Chance"
        if player == TERMINAL:
            return "Nobody"
        return self.game.players[player]


def _face(request: ChanceRequest, index: int, value: Any) -> Face:
    """The face of die ``index`` that ``value`` names; InvalidAction when the die has no such face."""
    faces = request.faces[index]
    if not isinstance(value, bool):
        for face in faces:
            if value == face or str(value).strip().lower() == str(face).lower():
                return face
    numbers = [f for f in faces if isinstance(f, int)]
    counted = len(numbers) == len(faces) > 1 and numbers == list(range(numbers[0], numbers[0] + len(numbers)))
    shown = f"{faces[0]}-{faces[-1]}" if counted else ", ".join(map(str, faces))
    raise InvalidAction(f"The {request.die_name(index)} shows {shown}; {value!r} is not one of its faces.")


def plural(count: int | float, singular: str, plural_form: str | None = None) -> str:
    """A count with its noun in the right number: ``"1 point"``, ``"2 points"``, ``"0 berries"`` (give
    ``plural_form`` where adding an s is wrong)."""
    word = singular if count == 1 else (plural_form or singular + "s")
    return f"{count:g} {word}" if isinstance(count, float) else f"{count} {word}"


def article(noun: str) -> str:
    """The noun with "a" or "an" as it is spoken: ``"a die"``, ``"an Enchanted Die"``."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def parse_int_list(
    text: str, count: int | None = None, low: int = 1, high: int = 6, what: str = "die", example: str | None = None
) -> list[int]:
    """Parse typed dice such as ``"3 5"``, ``"3,5"`` or ``"35"`` into ints in [low, high]."""
    if example is None:
        example = " ".join(str(min(high, low + 2 * i + 2)) for i in range(count or 2))
    cleaned = text.replace(",", " ").replace("+", " ").replace(":", " ").split()
    if len(cleaned) == 1 and count and count > 1 and len(cleaned[0]) == count and cleaned[0].isdigit() and high < 10:
        cleaned = list(cleaned[0])
    try:
        values = [int(v) for v in cleaned]
    except ValueError:
        raise InvalidAction(f"Type the {what} values as numbers, e.g. '{example}'; got {text!r}.") from None
    if count is not None and len(values) != count:
        raise InvalidAction(f"Expected {plural(count, what + ' value')}, got {len(values)} in {text!r}.")
    bad = [v for v in values if not low <= v <= high]
    if bad:
        named = article(what)
        raise InvalidAction(f"{named[0].upper()}{named[1:]} shows {low}-{high}; {bad[0]} is not a face.")
    return values

