"""Mighty Magpies: magpies fly between nests by two colour dice and steal berries and rings.

The game demonstrates a whole turn as one action. A turn is a chance step (the
roll of both colour dice) followed by one decision that lists the flights in
the order the player makes them, the tile taken in each nest stopped in, and
the opponents robbed for each magpie face::

    {"type": "roll", "faces": ["red", "magpie"]}
    {"type": "turn", "steps": [{"route": "r1", "take": "silver"}], "steal": [1]}

``take`` is ``"berry"``, ``"silver"``, ``"gold"`` or ``None`` (only for an
empty nest); ``steal`` lists player indices, sorted. The set-up is one chance
step too, naming the tiles of every nest by letters (b berry, s silver ring,
g gold ring)::

    {"type": "setup", "nests": {"A": "bbbs", "B": "bbbb", ..., "G": "bgg"}}

Only ``MightyMagpies.new_initial_state`` and ``MagpiesState.from_json`` build a
state. The state is a handful of int lists (nest contents, holdings,
positions) so that clones and random play stay cheap.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from companion.games.core import (
    CHANCE,
    TERMINAL,
    Action,
    ChanceRequest,
    Die,
    Face,
    Game,
    GameError,
    IllegalAction,
    InvalidAction,
    State,
    plural,
)
from companion.games.mighty_magpies.board import BERRY, BOARD, TILE_KINDS, TILE_LETTERS, Board

SETUP, ROLL, MOVE, OVER = 0, 1, 2, 3
PHASES = ("setup", "roll", "move", "over")

B: Board = BOARD
NESTS = len(B.nest_ids)
MAGPIE = B.magpie
FACES = B.faces
FACE_INDEX = {name: i for i, name in enumerate(FACES)}
ROUTE_INDEX = {rid: r for r, rid in enumerate(B.route_ids)}
ROUTE_IDS = B.route_ids
KIND_INDEX = {kind: k for k, kind in enumerate(TILE_KINDS)}
LETTER_INDEX = {letter: k for k, letter in enumerate(TILE_LETTERS)}
TILE_NESTS = tuple(B.tile_nests())
TILE_NEST_IDS = tuple(B.nest_ids[n] for n in TILE_NESTS)
EXITS = B.exits
ROUTE_ENDS = B.route_ends
KIND_WORDS = ("a berry", "a silver ring", "a gold ring")
DIE1, DIE2 = B.dice
SIDES1, SIDES2 = len(DIE1), len(DIE2)


def ring_points(count: int) -> int:
    """Points of ``count`` rings of one colour: 1 -> 1, 2 -> 3, 3 -> 5 (MM-SCORE-2)."""
    return 2 * count - 1 if count > 0 else 0


def points_of(berries: int, silver: int, gold: int, young: bool = False) -> int:
    """A player's points from holdings (MM-SCORE-1/2, or MM-YOUNG-1 when ``young``)."""
    if young:
        return berries + silver + gold
    return berries + ring_points(silver) + ring_points(gold)


def nest_string(counts: list[int] | tuple[int, ...]) -> str:
    """Canonical letters of a nest's tiles: berries, then silver, then gold rings."""
    return "".join(letter * n for letter, n in zip(TILE_LETTERS, counts, strict=True))


@lru_cache(maxsize=1)
def _setup_outcomes() -> tuple[tuple[tuple[str, ...], float], ...]:
    """Every distinct set-up (nest contents by kind) with its probability under a fair shuffle."""
    berries, silver, gold = B.tiles
    caps = [B.capacity[n] for n in TILE_NESTS]
    total = math.factorial(sum(B.tiles)) // (math.factorial(berries) * math.factorial(silver) * math.factorial(gold))
    found: list[tuple[tuple[str, ...], float]] = []

    def walk(i: int, s_left: int, g_left: int, strings: list[str], weight: int) -> None:
        if i == len(caps):
            if s_left == 0 and g_left == 0:
                found.append((tuple(strings), weight / total))
            return
        cap = caps[i]
        for s in range(min(cap, s_left) + 1):
            for g in range(min(cap - s, g_left) + 1):
                b = cap - s - g
                ways = math.factorial(cap) // (math.factorial(b) * math.factorial(s) * math.factorial(g))
                strings.append(nest_string((b, s, g)))
                walk(i + 1, s_left - s, g_left - g, strings, weight * ways)
                strings.pop()

    walk(0, silver, gold, [], 1)
    return tuple(found)


def _setup_action(strings: tuple[str, ...] | list[str]) -> Action:
    return {"type": "setup", "nests": dict(zip(TILE_NEST_IDS, strings, strict=True))}


COLOUR_DICE = tuple(
    Die("colour", tuple(f for i, f in enumerate(FACES) if i in die), name) for die, name in zip(B.dice, B.die_names, strict=True)
)
"""The two colour dice: each face it shows once, in ``FACES`` order (the data lists every physical face)."""
ROLL_OUTCOMES = tuple(((FACES[a], FACES[b]), p) for (a, b), p in B.roll_outcomes)
POSSIBLE_PAIRS = frozenset(pair for pair, _ in B.roll_outcomes)


@dataclass
class MightyMagpies(Game):
    """Rules configuration: 2-4 players (four magpies), standard or the 'young' variant."""

    name = "mighty-magpies"
    rolls = {"roll": COLOUR_DICE}
    title = "Mighty Magpies"
    version = 1
    rule_prefix = "MM"
    min_players = 2
    max_players = 4
    default_players = 2
    variants = ("young",)
    max_actions = 4000

    def new_initial_state(self) -> MagpiesState:
        return MagpiesState(self)


def _flight_shape_problem(number: int, step: Any) -> GameError | None:
    """Flight ``number`` of a turn is ``{'route': id, 'take': kind}`` with a route of the board."""
    if not isinstance(step, Mapping) or not isinstance(step.get("route"), str):
        return InvalidAction(f"Flight {number} must name a route, e.g. {{'route': 'y1', 'take': 'berry'}}.", "MM-MOVE-1")
    if any(k not in ("route", "take") for k in step):
        return InvalidAction(f"Flight {number} has 'route' and 'take'; got {sorted(step)}.", "MM-MOVE-1")
    rid = step["route"]
    if rid not in ROUTE_INDEX:
        return InvalidAction(f"There is no route {rid!r}; the routes are {', '.join(ROUTE_IDS)}.", "MM-MOVE-1")
    return None


def _route_problem(route: int, pos: int, left: list[int], colours: list[int], rolled: str) -> GameError | None:
    """Why the magpie in nest ``pos`` cannot fly ``route`` with the colour dice still ``left`` of those rolled."""
    rid = ROUTE_IDS[route]
    colour = B.route_colour[route]
    a, b = ROUTE_ENDS[route]
    if pos not in (a, b):
        return IllegalAction(
            "MM-MOVE-1",
            f"Route {rid} joins nests {B.nest_ids[a]} and {B.nest_ids[b]}; the magpie is in nest {B.nest_ids[pos]}, "
            "so it can only fly to a neighbouring nest.",
        )
    if colour in left:
        return None
    cname = B.colours[colour]
    if colour in colours:
        return IllegalAction(
            "MM-MOVE-3",
            f"Only one die shows {cname}: flying two {cname} routes needs both dice to show {cname}.",
        )
    return IllegalAction(
        "MM-MOVE-1",
        f"Route {rid} is {cname}, but the dice show {rolled}: a flight needs a die of its colour.",
    )


class MagpiesState(State):
    """A Mighty Magpies position; only ``MightyMagpies.new_initial_state`` and ``from_json`` build one."""

    def __init__(self, game: Game):
        super().__init__(game)
        n = game.num_players
        self._phase = SETUP
        self._player = 0
        self._dice: tuple[int, int] | None = None
        self._nests = [0] * (3 * NESTS)
        self._left = 0
        self._pos = [B.start] * n
        self._hold = [0] * (3 * n)
        self._points = [0] * n
        self._turns = 0
        self._young = game.variant == "young"

    # --- who moves -------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        phase = self._phase
        if phase == MOVE:
            return self._player
        if phase == OVER:
            return TERMINAL
        return CHANCE

    def is_chance_node(self) -> bool:
        return self._phase < MOVE

    def is_terminal(self) -> bool:
        return self._phase == OVER

    @property
    def turn_number(self) -> int:
        return self._turns

    @property
    def phase(self) -> str:
        return PHASES[self._phase]

    @property
    def player(self) -> int:
        """The player whose turn it is (also while the dice are waited for)."""
        return self._player

    @property
    def dice(self) -> tuple[str, str] | None:
        return None if self._dice is None else (FACES[self._dice[0]], FACES[self._dice[1]])

    def nest_tiles(self, nest: int) -> tuple[int, int, int]:
        i = 3 * nest
        return self._nests[i], self._nests[i + 1], self._nests[i + 2]

    def holdings(self, player: int) -> tuple[int, int, int]:
        i = 3 * player
        return self._hold[i], self._hold[i + 1], self._hold[i + 2]

    def position(self, player: int) -> int:
        return self._pos[player]

    def tiles_left(self) -> int:
        return self._left

    # --- legal actions -------------------------------------------------------------
    def legal_actions(self) -> list[Action]:
        phase = self._phase
        if phase == MOVE:
            return self._legal_turns()
        if phase == ROLL:
            return [{"type": "roll", "faces": list(pair)} for pair, _ in ROLL_OUTCOMES]
        if phase == SETUP:
            return [_setup_action(strings) for strings, _ in _setup_outcomes()]
        return []

    def paths(self) -> list[tuple[tuple[int, int], ...]]:
        """Flight sequences the dice allow: ``((route, nest), ...)``, the empty one first (MM-MOVE-1..5)."""
        pos = self._pos[self._player]
        f1, f2 = self._dice  # type: ignore[misc]
        found: list[tuple[tuple[int, int], ...]] = [()]
        if f2 == MAGPIE:  # faces are sorted, so a single colour sits in f1
            if f1 != MAGPIE:
                found.extend((hop,) for hop in EXITS[pos][f1])
            return found
        orders = ((f1, f2),) if f1 == f2 else ((f1, f2), (f2, f1))
        for first, second in orders:
            for hop in EXITS[pos][first]:
                found.append((hop,))
                for hop2 in EXITS[hop[1]][second]:
                    found.append((hop, hop2))
        return found

    def steal_options(self) -> list[tuple[int, ...]]:
        """Victim lists the magpie faces allow, sorted: the most berries first, then fewer, and stealing
        nothing last (stealing is optional, MM-STEAL-6); ``[()]`` when nobody can be robbed (MM-STEAL-*)."""
        f1, f2 = self._dice  # type: ignore[misc]
        magpies = (f1 == MAGPIE) + (f2 == MAGPIE)
        if not magpies:
            return [()]
        me = self._player
        hold = self._hold
        victims = [o for o in range(len(self._pos)) if o != me and hold[3 * o]]
        if not victims:
            return [()]
        singles: list[tuple[int, ...]] = [(v,) for v in victims]
        if magpies == 1:
            return singles + [()]
        pairs: list[tuple[int, ...]] = []
        for i, v in enumerate(victims):
            if hold[3 * v] >= 2:
                pairs.append((v, v))
            pairs.extend((v, w) for w in victims[i + 1 :])
        return pairs + singles + [()]

    def most_steals(self) -> list[tuple[int, ...]]:
        """The victim lists that steal as many berries as the magpie faces allow (a table-like player's choice)."""
        options = self.steal_options()
        most = len(options[0])
        return [o for o in options if len(o) == most]

    def _kinds_in(self, nest: int) -> list[int | None]:
        i = 3 * nest
        nests = self._nests
        kinds: list[int | None] = [k for k in range(3) if nests[i + k]]
        return kinds or [None]

    def _legal_turns(self) -> list[Action]:
        steals = self.steal_options()
        actions: list[Action] = []
        for path in self.paths():
            for choice in self.take_choices(path):
                for steal in steals:
                    steps = [{"route": ROUTE_IDS[r], "take": take} for r, take in choice]
                    actions.append({"type": "turn", "steps": steps, "steal": list(steal)})
        return actions

    def take_choices(self, path: tuple[tuple[int, int], ...]) -> list[tuple[tuple[int, str | None], ...]]:
        """For a flight sequence, every ``((route, take), ...)`` the player may choose (MM-TAKE-1/4)."""
        if not path:
            return [()]
        (r1, d1), *rest = path
        first = [(r1, None if k is None else TILE_KINDS[k]) for k in self._kinds_in(d1)]
        if not rest:
            return [(step,) for step in first]
        r2, d2 = rest[0]  # d2 != d1: a route joins two different nests
        second = [(r2, None if k is None else TILE_KINDS[k]) for k in self._kinds_in(d2)]
        return [(a, b) for a in first for b in second]

    # --- diagnosis of arbitrary submitted actions -----------------------------------
    def problem(self, action: Action) -> GameError | None:
        kind = action.get("type")
        if kind == "turn":
            return self._diagnose_turn(action)
        if kind == "roll":
            return self._diagnose_roll(action)
        if kind == "setup":
            return self._diagnose_setup(action)
        return InvalidAction(
            f"Mighty Magpies has no action {kind!r}; its actions are 'setup', 'roll' and 'turn'.", "MM-PLAY-2"
        )

    def _phase_error(self, wanted: int) -> GameError | None:
        phase = self._phase
        if phase == wanted:
            return None
        if phase == OVER:
            return IllegalAction("MM-END-1", "The game is over: all 25 tiles have been taken from the nests.")
        if phase == SETUP:
            return IllegalAction("MM-SETUP-1", "Set up the nests first: every nest gets the tiles marked on it.")
        if phase == ROLL:
            who = self.player_name(self._player)
            if wanted == SETUP:
                return IllegalAction("MM-SETUP-1", "The nests are already set up; the game is under way.")
            return IllegalAction("MM-PLAY-2", f"{who} must roll both dice before moving.")
        if wanted == SETUP:
            return IllegalAction("MM-SETUP-1", "The nests are already set up; the game is under way.")
        return IllegalAction(
            "MM-PLAY-2",
            f"The dice are already rolled ({' + '.join(self.dice or ())}); {self.player_name(self._player)} moves now.",
        )

    def _diagnose_setup(self, action: Mapping[str, Any]) -> GameError | None:
        error = self._phase_error(SETUP)
        if error:
            return error
        nests = action.get("nests")
        if not isinstance(nests, Mapping):
            return InvalidAction("A set-up names each nest's tiles, e.g. {'A': 'bbbs', ...}.", "MM-SETUP-1")
        unknown = [str(n) for n in nests if n not in TILE_NEST_IDS]
        if unknown:
            start = B.nest_ids[B.start]
            if start in unknown:
                return IllegalAction(
                    "MM-SETUP-1", f"The red nest {start} holds no tiles; it is where the magpies start."
                )
            return InvalidAction(
                f"There is no nest {unknown[0]!r} to fill; the nests are {', '.join(TILE_NEST_IDS)}.", "MM-SETUP-1"
            )
        missing = [n for n in TILE_NEST_IDS if n not in nests]
        if missing:
            return IllegalAction("MM-SETUP-1", f"Every nest gets its tiles; nest {missing[0]} is missing.")
        totals = [0, 0, 0]
        for nest_id in TILE_NEST_IDS:
            text = nests[nest_id]
            if not isinstance(text, str) or any(ch not in LETTER_INDEX for ch in text):
                return InvalidAction(
                    f"Nest {nest_id}: write its tiles as letters b (berry), s (silver ring), g (gold ring); got {text!r}.",
                    "MM-SETUP-1",
                )
            cap = B.capacity[B.nest_index(nest_id)]
            if len(text) != cap:
                return IllegalAction(
                    "MM-SETUP-1", f"Nest {nest_id} is marked for {cap} tiles; {len(text)} were given ({text!r})."
                )
            for ch in text:
                totals[LETTER_INDEX[ch]] += 1
        if tuple(totals) != B.tiles:

            def words(counts: list[int] | tuple[int, ...]) -> str:
                return ", ".join(f"{n} {kind}" for n, kind in zip(counts, TILE_KINDS, strict=True))

            return IllegalAction(
                "MM-CONTENTS-1", f"The game has {words(B.tiles)} tiles; the set-up places {words(totals)}."
            )
        return None

    def _diagnose_roll(self, action: Mapping[str, Any]) -> GameError | None:
        error = self._phase_error(ROLL)
        if error:
            return error
        faces = action.get("faces")
        if not isinstance(faces, list | tuple) or len(faces) != 2:
            return InvalidAction(
                f"A roll names the faces of both dice, e.g. ['red', 'magpie']; got {faces!r}.", "MM-PLAY-2"
            )
        for face in faces:
            if face not in FACE_INDEX:
                return InvalidAction(
                    f"The colour dice have no face {face!r}; their faces are {', '.join(FACES)}.", "MM-CONTENTS-3"
                )
        a, b = sorted(FACE_INDEX[f] for f in faces)
        if (a, b) not in POSSIBLE_PAIRS:
            return IllegalAction("MM-CONTENTS-3", f"The two dice cannot show {faces[0]} and {faces[1]} together.")
        return None

    def _diagnose_turn(self, action: Mapping[str, Any]) -> GameError | None:
        error = self._phase_error(MOVE)
        if error:
            return error
        extra = [k for k in action if k not in ("type", "steps", "steal")]
        if extra:
            return InvalidAction(f"A turn has 'steps' and 'steal'; unknown key {extra[0]!r}.", "MM-PLAY-2")
        steps = action.get("steps", [])
        steal = action.get("steal", [])
        if not isinstance(steps, list | tuple) or not isinstance(steal, list | tuple):
            return InvalidAction("A turn lists its 'steps' and its 'steal' victims as lists.", "MM-PLAY-2")
        f1, f2 = self._dice  # type: ignore[misc]
        rolled = " + ".join(FACES[f] for f in (f1, f2))
        colours = [f for f in (f1, f2) if f != MAGPIE]
        magpies = (f1 == MAGPIE) + (f2 == MAGPIE)
        return self._flights_problem(steps, colours, rolled) or self._steal_problem(steal, magpies, rolled)

    def _flights_problem(self, steps: Sequence[Any], colours: list[int], rolled: str) -> GameError | None:
        """Why the flights of a turn are refused: one per colour die, along routes from where the magpie is."""
        if len(steps) > len(colours):
            if not colours:
                return IllegalAction("MM-MOVE-1", f"The dice show {rolled}: no colour, so the magpie cannot fly.")
            return IllegalAction(
                "MM-MOVE-2",
                f"The dice show {rolled}: one flight per colour die, so at most {plural(len(colours), 'flight')}.",
            )
        left = list(colours)
        pos = self._pos[self._player]
        taken: dict[int, int] = {}
        for number, step in enumerate(steps, start=1):
            error = _flight_shape_problem(number, step)
            if error:
                return error
            route = ROUTE_INDEX[step["route"]]
            error = _route_problem(route, pos, left, colours, rolled)
            if error:
                return error
            left.remove(B.route_colour[route])
            a, b = ROUTE_ENDS[route]
            pos = b if pos == a else a
            error = self._take_problem(number, step.get("take"), pos, taken)
            if error:
                return error
        return None

    def _take_problem(self, number: int, take: Any, pos: int, taken: dict[int, int]) -> GameError | None:
        """Why taking ``take`` from nest ``pos`` is refused, given the tiles ``taken`` earlier this turn (by nest
        slot); a take that is allowed is added to ``taken``."""
        there = B.nest_ids[pos]
        base = 3 * pos
        present = [k for k in range(3) if self._nests[base + k] - (taken.get(base + k, 0))]
        if take is None:
            if present:
                what = ", ".join(TILE_KINDS[k] for k in present)
                return IllegalAction(
                    "MM-TAKE-4",
                    f"Nest {there} still has tiles ({what}): the magpie takes one tile from each nest it stops in.",
                )
            return None
        if take not in KIND_INDEX:
            return InvalidAction(
                f"Flight {number}: take 'berry', 'silver' or 'gold' (or nothing from an empty nest); got {take!r}.",
                "MM-TAKE-1",
            )
        k = KIND_INDEX[take]
        if not present:
            return IllegalAction("MM-TAKE-2", f"Nest {there} is empty: there is nothing to take there.")
        if k not in present:
            has = ", ".join(TILE_KINDS[j] for j in present)
            return IllegalAction(
                "MM-TAKE-1", f"Nest {there} has no {take} {'tile' if k == BERRY else 'ring'}; it holds: {has}."
            )
        taken[base + k] = taken.get(base + k, 0) + 1
        return None

    def _steal_problem(self, steal: Sequence[Any], magpies: int, rolled: str) -> GameError | None:
        """Why the berries a turn steals are refused: one per magpie face, from opponents who have them."""
        if len(steal) > magpies:
            if not magpies:
                return IllegalAction(
                    "MM-STEAL-1", f"The dice show {rolled}: without a magpie face nobody can be robbed."
                )
            most = "one berry" if magpies == 1 else f"{magpies} berries"
            return IllegalAction(
                "MM-STEAL-4", f"The dice show {magpies} magpie{'s' if magpies > 1 else ''}: that is {most} at most from other players."
            )
        robbed: dict[int, int] = {}
        for entry in steal:
            error = self._victim_problem(entry, robbed)
            if error:
                return error
        return None  # stealing fewer berries than the magpies allow, or none, is the player's choice (MM-STEAL-6)

    def _victim_problem(self, entry: Any, robbed: dict[int, int]) -> GameError | None:
        """Why one steal (a player number, or {'player', 'tile'}) is refused, given the berries already
        ``robbed`` this turn (by player); a steal that is allowed is added to ``robbed``."""
        tile = "berry"
        victim = entry
        if isinstance(entry, Mapping):
            victim = entry.get("player")
            tile = entry.get("tile", "berry")
        n = len(self._pos)
        if isinstance(victim, bool) or not isinstance(victim, int) or not 0 <= victim < n:
            return InvalidAction(
                f"Steal from a player number 0-{n - 1} ({', '.join(self.game.players)}); got {victim!r}.",
                "MM-STEAL-1",
            )
        if tile != "berry":
            if tile in ("silver", "gold", "ring"):
                return IllegalAction(
                    "MM-STEAL-2", "Rings are never stolen from players; a magpie face steals a berry."
                )
            return InvalidAction(f"A magpie face steals a berry; {tile!r} is not a tile.", "MM-STEAL-1")
        name = self.player_name(victim)
        if victim == self._player:
            return IllegalAction("MM-STEAL-1", f"{name} cannot rob him/herself: steal from an opposing player.")
        have = self._hold[3 * victim] - robbed.get(victim, 0)
        if have <= 0:
            if robbed.get(victim):
                return IllegalAction("MM-STEAL-4", f"{name} has only {self._hold[3 * victim]} berry to steal.")
            return IllegalAction("MM-STEAL-1", f"{name} has no berries: steal only from a player who has berries.")
        robbed[victim] = robbed.get(victim, 0) + 1
        return None

    # --- applying ------------------------------------------------------------------------
    def _apply(self, action: Action) -> None:
        kind = action["type"]
        if kind == "turn":
            me = self._player
            pos = self._pos[me]
            nests = self._nests
            hold = self._hold
            points = self._points
            for step in action.get("steps", ()):
                a, b = ROUTE_ENDS[ROUTE_INDEX[step["route"]]]
                pos = b if pos == a else a
                take = step.get("take")
                if take is not None:
                    k = KIND_INDEX[take]
                    nests[3 * pos + k] -= 1
                    self._left -= 1
                    i = 3 * me + k
                    before = hold[i]
                    hold[i] = before + 1
                    # a berry, or any tile in the young variant, is 1 point; the n-th ring of a colour
                    # raises that colour's set from 2n-3 to 2n-1 points (MM-SCORE-2)
                    points[me] += 1 if (k == BERRY or before == 0 or self._young) else 2
            self._pos[me] = pos
            for victim in action.get("steal", ()):
                if not isinstance(victim, int):
                    victim = victim["player"]
                hold[3 * victim] -= 1
                points[victim] -= 1
                hold[3 * me] += 1
                points[me] += 1
            self._dice = None
            if self._left == 0:
                self._phase = OVER
            else:
                self._player = (me + 1) % len(self._pos)
                self._phase = ROLL
        elif kind == "roll":
            faces = action["faces"]
            a = FACE_INDEX[faces[0]]
            b = FACE_INDEX[faces[1]]
            self._dice = (a, b) if a <= b else (b, a)
            self._phase = MOVE
            self._turns += 1
        else:  # setup
            nests = self._nests
            nest_map = action["nests"]
            for n, nest_id in zip(TILE_NESTS, TILE_NEST_IDS, strict=True):
                for ch in nest_map[nest_id]:
                    nests[3 * n + LETTER_INDEX[ch]] += 1
            self._left = sum(B.capacity)
            self._phase = ROLL

    # --- chance ----------------------------------------------------------------------------
    def chance_request(self) -> ChanceRequest | None:
        if self._phase == SETUP:
            sizes = ", ".join(f"{n} {B.capacity[B.nest_index(n)]}" for n in TILE_NEST_IDS)
            return ChanceRequest(
                kind="setup",
                prompt=(
                    "Mix the 25 tiles face down, fill each nest with the number marked on it "
                    f"({sizes}), turn them up and type each nest's tiles (b berry, s silver, g gold)"
                ),
                example="A bbbs B bbbg C bbbb D bbsg E bbb F bsg G bbb",
            )
        if self._phase == ROLL:
            return ChanceRequest.for_dice(
                self.game.rolls["roll"],
                prompt=f"{self.player_name(self._player)}, roll both colour dice and type the two faces",
                example="red magpie",
            )
        return None

    def _chance_action(self, faces: list[Face]) -> Action:
        return {"type": "roll", "faces": sorted(faces, key=FACE_INDEX.__getitem__)}

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        if self._phase == ROLL:
            return [({"type": "roll", "faces": list(pair)}, p) for pair, p in ROLL_OUTCOMES]
        if self._phase == SETUP:
            return [(_setup_action(strings), p) for strings, p in _setup_outcomes()]
        return []

    def sample_chance(self, rng: random.Random) -> Action:
        if self._phase == ROLL:
            random_ = rng.random
            a = DIE1[int(random_() * SIDES1)]
            b = DIE2[int(random_() * SIDES2)]
            return {"type": "roll", "faces": [FACES[a], FACES[b]] if a <= b else [FACES[b], FACES[a]]}
        if self._phase == SETUP:
            tiles = [k for k, count in enumerate(B.tiles) for _ in range(count)]
            rng.shuffle(tiles)
            strings = []
            start = 0
            for n in TILE_NESTS:
                cap = B.capacity[n]
                strings.append("".join(TILE_LETTERS[k] for k in sorted(tiles[start : start + cap])))
                start += cap
            return _setup_action(strings)
        raise IllegalAction("MM-PLAY-2", "Nothing to roll now: it is a player's decision.")

    # --- results -------------------------------------------------------------------------------
    def scores(self) -> list[float]:
        return list(self._points)

    def rank_key(self, player: int) -> tuple[int, int, int]:
        """Points, then rings, then gold rings (MM-WIN-1..3, MM-YOUNG-1)."""
        _, silver, gold = self.holdings(player)
        return (self._points[player], silver + gold, gold)

    def winners(self) -> list[int]:
        if self._phase != OVER:
            return []
        keys = [self.rank_key(p) for p in range(len(self._pos))]
        best = max(keys)
        return [p for p, key in enumerate(keys) if key == best]

    def check_invariants(self) -> list[str]:
        problems: list[str] = []
        n = len(self._pos)
        for k, kind in enumerate(TILE_KINDS):
            in_nests = sum(self._nests[3 * nest + k] for nest in range(NESTS))
            held = sum(self._hold[3 * p + k] for p in range(n))
            want = B.tiles[k] if self._phase != SETUP else 0
            if in_nests + held != want:
                problems.append(f"{kind}: {in_nests} in nests + {held} held = {in_nests + held}, expected {want}")
        if any(v < 0 for v in self._nests) or any(v < 0 for v in self._hold):
            problems.append(f"negative tile count: nests {self._nests}, holdings {self._hold}")
        for nest in range(NESTS):
            if sum(self.nest_tiles(nest)) > B.capacity[nest]:
                problems.append(f"nest {B.nest_ids[nest]} holds more than its {B.capacity[nest]} tiles")
        if self._left != sum(self._nests):
            problems.append(f"tiles-left counter {self._left} but the nests hold {sum(self._nests)}")
        for p in range(n):
            want = points_of(*self.holdings(p), young=self._young)
            if self._points[p] != want:
                problems.append(f"{self.player_name(p)} has {self._points[p]} points, holdings give {want}")
            if not 0 <= self._pos[p] < NESTS:
                problems.append(f"{self.player_name(p)}'s magpie is off the board ({self._pos[p]})")
        if (self._phase == OVER) != (self._left == 0 and self._phase != SETUP):
            problems.append(f"phase {PHASES[self._phase]} with {self._left} tiles in the nests")
        if (self._phase == MOVE) != (self._dice is not None):
            problems.append(f"phase {PHASES[self._phase]} with dice {self._dice}")
        return problems

    # --- persistence ----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "phase": PHASES[self._phase],
            "player": self._player,
            "dice": None if self._dice is None else [FACES[f] for f in self._dice],
            "nests": {B.nest_ids[n]: nest_string(self.nest_tiles(n)) for n in range(NESTS)},
            "magpies": [B.nest_ids[p] for p in self._pos],
            "holdings": [dict(zip(TILE_KINDS, self.holdings(p), strict=True)) for p in range(len(self._pos))],
            "turns": self._turns,
        }

    @classmethod
    def from_json(cls, game: Game, data: Mapping[str, Any]) -> MagpiesState:
        state = cls(game)
        n = game.num_players
        try:
            state._phase = PHASES.index(data["phase"])
            state._player = int(data["player"])
            dice = data["dice"]
            state._dice = None if dice is None else tuple(sorted(FACE_INDEX[f] for f in dice))  # type: ignore[assignment]
            for nest_id, text in data["nests"].items():
                nest = B.nest_index(nest_id)
                for ch in text:
                    state._nests[3 * nest + LETTER_INDEX[ch]] += 1
            magpies = data["magpies"]
            holdings = data["holdings"]
            if len(magpies) != n or len(holdings) != n:
                raise ValueError(f"expected {n} magpies and holdings, got {len(magpies)} and {len(holdings)}")
            state._pos = [B.nest_index(m) for m in magpies]
            for p, held in enumerate(holdings):
                for k, kind in enumerate(TILE_KINDS):
                    state._hold[3 * p + k] = int(held[kind])
            state._turns = int(data["turns"])
        except (KeyError, ValueError, TypeError) as exc:
            raise InvalidAction(f"Not a Mighty Magpies state: {exc}") from None
        if not 0 <= state._player < n:
            raise InvalidAction(f"Not a Mighty Magpies state: player {state._player} of {n} players.")
        state._left = sum(state._nests)
        state._points = [points_of(*state.holdings(p), young=state._young) for p in range(n)]
        return state

    def clone(self) -> MagpiesState:
        twin = MagpiesState.__new__(MagpiesState)
        twin.__dict__.update(self.__dict__)
        twin._nests = self._nests[:]
        twin._pos = self._pos[:]
        twin._hold = self._hold[:]
        twin._points = self._points[:]
        return twin

    # --- descriptions ------------------------------------------------------------------------------
    def action_to_string(self, action: Action) -> str:
        try:
            return self._describe(action)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            return f"unreadable action {action!r}"

    def _describe(self, action: Action) -> str:
        kind = action.get("type")
        if kind == "roll":
            return "Roll: " + " + ".join(str(f) for f in action["faces"])
        if kind == "setup":
            return "Set-up: " + ", ".join(f"{n} {t}" for n, t in action["nests"].items())
        if kind != "turn":
            return f"unknown action {action!r}"
        me = self._player
        pos = self._pos[me]
        parts: list[str] = []
        for step in action.get("steps", ()):
            r = ROUTE_INDEX[step["route"]]
            a, b = ROUTE_ENDS[r]
            dest = b if pos == a else a
            take = step.get("take")
            got = f"takes {KIND_WORDS[KIND_INDEX[take]]}" if take is not None else "the nest is empty"
            parts.append(
                f"flies {B.colours[B.route_colour[r]]} {step['route']} {B.nest_ids[pos]}->{B.nest_ids[dest]}, {got}"
            )
            pos = dest
        if not parts:
            parts.append(f"stays in nest {B.nest_ids[pos]}")
        for victim in action.get("steal", ()):
            if isinstance(victim, Mapping):
                victim = victim.get("player")
            parts.append(f"steals a berry from {self.player_name(victim)}")
        if not action.get("steal") and self.could_steal():
            parts.append("steals no berry")
        return f"{self.player_name(me)} " + "; ".join(parts)

    def could_steal(self) -> bool:
        """Whether the rolled dice let the player rob someone now (a magpie face and an opponent with berries)."""
        return self._phase == MOVE and self._dice is not None and bool(self.steal_options()[0])

