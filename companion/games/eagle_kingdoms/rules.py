"""Eagle Kingdoms (Gamewright, 1994): capture characters from a crowned two-headed eagle puzzle.

The board (46 pieces, which pieces lock which, the dice pair printed on each) lives in
``board.json``; the characters and the Enchanted Die live in ``components.json``. Rule IDs
(``EK-...``) are those of ``RULES.md``; the gaps decided are in ``docs/rulings.md``.

A turn is a small state machine (phases below). Chance steps are ordinary actions:

- ``{"type": "setup", "placement": {piece_id: kind, ...}}`` the whole random set-up at once, or
  one piece at a time ``{"type": "place", "piece": "crown-left", "kind": "king"}`` (the factorised
  form that ``chance_outcomes`` enumerates);
- ``{"type": "roll", "dice": [3, 5]}`` two d6, sorted (three in the party game's third-die phase);
- ``{"type": "enchanted", "face": 7}`` the d8 Enchanted Die;
- ``{"type": "duel", "dice": [challenger, defender]}`` the Knight's challenge (ordered).

Player decisions: ``roll-dice`` / ``jester`` at the start of a turn, ``capture``/``pass`` after a
roll, ``roll-again``/``roll-enchanted``/``pass`` after a failed first roll, and ``give``,
``forfeit``, ``trade``, ``challenge``, ``take`` for the Enchanted Die. Holdings are counts per
kind: characters of one kind are interchangeable, so actions name the kind, not a token.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from operator import itemgetter, mul
from pathlib import Path
from typing import Any, ClassVar

from companion.games.core import (
    CHANCE,
    D6_FACES,
    TERMINAL,
    Action,
    ChanceRequest,
    ConfigError,
    Die,
    Face,
    Game,
    GameError,
    IllegalAction,
    InvalidAction,
    Option,
    State,
    article,
    plural,
)

_HERE = Path(__file__).resolve().parent
BOARD: dict[str, Any] = json.loads((_HERE / "board.json").read_text(encoding="utf-8"))
COMPONENTS: dict[str, Any] = json.loads((_HERE / "components.json").read_text(encoding="utf-8"))

# --- board ----------------------------------------------------------------------------------
PIECES: tuple[dict[str, Any], ...] = tuple(BOARD["pieces"])
PIECE_IDS: tuple[str, ...] = tuple(p["id"] for p in PIECES)
PIECE_INDEX: dict[str, int] = {pid: i for i, pid in enumerate(PIECE_IDS)}
N_PIECES = len(PIECE_IDS)
SHIELD = PIECE_INDEX[BOARD["shield"]]
SHIELD_ID = PIECE_IDS[SHIELD]
SHIELD_BIT = 1 << SHIELD
ALL_PIECES_BITS = (1 << N_PIECES) - 1
LOCKED_BY: tuple[tuple[int, ...], ...] = tuple(tuple(PIECE_INDEX[q] for q in p["locked_by"]) for p in PIECES)
LOCK_MASK: tuple[int, ...] = tuple(sum(1 << q for q in lockers) for lockers in LOCKED_BY)
LOCKS: tuple[tuple[int, ...], ...] = tuple(
    tuple(p for p in range(N_PIECES) if q in LOCKED_BY[p]) for q in range(N_PIECES)
)
PIECE_DICE: tuple[tuple[int, int] | None, ...] = tuple(
    tuple(sorted(p["dice"])) if p["dice"] is not None else None for p in PIECES
)
BOARD_PIECES: tuple[int, ...] = tuple(i for i in range(N_PIECES) if i != SHIELD)
JESTER_PIECES: tuple[int, ...] = tuple(PIECE_INDEX[p] for p in BOARD["jester_pieces"])
JESTERS_ON: int = BOARD["jesters_on"]
# Set-up order of the factorised chance steps: the Jester feathers first, then the rest.
SETUP_ORDER: tuple[int, ...] = JESTER_PIECES + tuple(p for p in BOARD_PIECES if p not in JESTER_PIECES)
HALF_PIECES = (N_PIECES + 1) // 2  # party third die: once this many pieces are gone (ruling EK-R-THIRD-DIE)


def _pair_key(a: int, b: int) -> int:
    return a * 7 + b if a <= b else b * 7 + a


# pieces printed with each pair, indexed by a*7+b (a <= b)
PAIR_PIECES: tuple[tuple[int, ...], ...] = tuple(
    tuple(i for i in BOARD_PIECES if (dice := PIECE_DICE[i]) is not None and _pair_key(*dice) == key) for key in range(49)
)

# --- characters ----------------------------------------------------------------------------
_CHARS = sorted(COMPONENTS["characters"], key=lambda c: c["value"])
KINDS: tuple[str, ...] = tuple(c["kind"] for c in _CHARS)
KIND_INDEX: dict[str, int] = {k: i for i, k in enumerate(KINDS)}
NK = len(KINDS)
KIND_NAMES: tuple[str, ...] = tuple(c["name"] for c in _CHARS)
KIND_PLURALS: tuple[str, ...] = tuple(c["plural"] for c in _CHARS)
VALUES: tuple[int, ...] = tuple(c["value"] for c in _CHARS)
COUNTS: tuple[int, ...] = tuple(c["count"] for c in _CHARS)
KINGDOM_KINDS: tuple[int, ...] = tuple(i for i, c in enumerate(_CHARS) if c["kingdom"])
KINGDOM_BONUS: int = COMPONENTS["kingdom_bonus"]
_kingdom_counts = itemgetter(*KINGDOM_KINDS)
JESTER = KIND_INDEX["jester"]
TRADE_NEEDS: tuple[int, ...] = tuple(KIND_INDEX[k] for k in COMPONENTS["trade_needs"])
CHALLENGE_NEEDS: tuple[int, ...] = tuple(KIND_INDEX[k] for k in COMPONENTS["challenge_needs"])
TOTAL_CHARACTERS = sum(COUNTS)
BY_VALUE_DESC: tuple[int, ...] = tuple(sorted(range(NK), key=lambda k: -VALUES[k]))

ENCHANTED_SIDES: int = COMPONENTS["enchanted_die"]["sides"]
ENCHANTED_FACES: dict[int, dict[str, str]] = {int(f): v for f, v in COMPONENTS["enchanted_die"]["faces"].items()}
D6 = Die("d6", D6_FACES)
ENCHANTED_DIE = Die("d8", tuple(range(1, ENCHANTED_SIDES + 1)), "enchanted")


def kind_label(kind: int) -> str:
    return f"{KIND_NAMES[kind]} ({VALUES[kind]})"


def _outcomes(count: int) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
    """Sorted dice tuples of ``count`` d6 with their exact probabilities."""
    tally: dict[tuple[int, ...], int] = {}

    def walk(prefix: tuple[int, ...]) -> None:
        if len(prefix) == count:
            key = tuple(sorted(prefix))
            tally[key] = tally.get(key, 0) + 1
            return
        for face in range(1, 7):
            walk(prefix + (face,))

    walk(())
    total = 6**count
    return tuple((dice, Fraction(n, total)) for dice, n in sorted(tally.items()))


ROLL_OUTCOMES = {2: _outcomes(2), 3: _outcomes(3)}

# --- phases ----------------------------------------------------------------------------------
SETUP = "setup"  # chance: the random placement
START = "start"  # decision: roll, or trade a Jester (only offered to a Jester holder)
ROLL = "roll"  # chance: the regular dice (roll_no 1 or 2)
CAPTURE = "capture"  # decision: capture a matching available piece, or pass
SECOND = "second"  # decision: after a failed first roll: roll again or the Enchanted Die (or, house rule, end the turn)
ENCHANTED = "enchanted"  # chance: the d8
GIVE = "give"
FORFEIT = "forfeit"
TRADE = "trade"
CHALLENGE = "challenge"
DUEL = "duel"  # chance: challenger's and defender's d6
TAKE = "take"
OVER = "over"
CHANCE_PHASES = frozenset({SETUP, ROLL, ENCHANTED, DUEL})
PHASES = (SETUP, START, ROLL, CAPTURE, SECOND, ENCHANTED, GIVE, FORFEIT, TRADE, CHALLENGE, DUEL, TAKE, OVER)

# action types accepted in each phase
PHASE_TYPES: dict[str, frozenset[str]] = {
    SETUP: frozenset({"setup", "place"}),
    START: frozenset({"roll-dice", "jester"}),
    ROLL: frozenset({"roll"}),
    CAPTURE: frozenset({"capture", "pass"}),
    SECOND: frozenset({"roll-again", "roll-enchanted", "pass"}),
    ENCHANTED: frozenset({"enchanted"}),
    GIVE: frozenset({"give"}),
    FORFEIT: frozenset({"forfeit"}),
    TRADE: frozenset({"trade", "pass"}),
    CHALLENGE: frozenset({"challenge", "pass"}),
    DUEL: frozenset({"duel"}),
    TAKE: frozenset({"take"}),
    OVER: frozenset(),
}
ACTION_TYPES = frozenset().union(*PHASE_TYPES.values())

# rule broken by an action of the wrong kind in each phase, and what the phase waits for
PHASE_RULES: dict[str, tuple[str, str]] = {
    SETUP: ("EK-SETUP-RANDOM", "the characters must be set up on the board first"),
    START: ("EK-JESTER-1", "{p} begins the turn: roll the dice or trade the Jester"),
    ROLL: ("EK-PLAY-ROLL", "waiting for {p}'s roll of the regular dice"),
    CAPTURE: ("EK-CAP-MATCH", "{p}'s roll matches an available piece: capture it or pass (passing ends the turn)"),
    SECOND: ("EK-TWO-2", "{p} could not capture on the first roll: roll the dice again or roll the Enchanted Die"),
    ENCHANTED: ("EK-TWO-2", "waiting for {p}'s roll of the Enchanted Die"),
    GIVE: ("EK-ED-GIVE", "{p} must give one of their characters to another player"),
    FORFEIT: ("EK-ED-FORFEIT", "{p} must forfeit one of their characters to the centre shield"),
    TRADE: ("EK-ED-TRADE", "{p} may trade a character with another player, or pass"),
    CHALLENGE: ("EK-ED-CHALLENGE", "{p} may challenge another player for a character, or pass"),
    DUEL: ("EK-ED-DUEL", "waiting for the challenge dice"),
    TAKE: ("EK-ED-TAKE", "{p} must take any available character"),
}

# the rulebook's lock examples, for precise refusals
_LOCK_EXAMPLE_RULES = {"crown-": "EK-CAP-CROWN", "neck": "EK-CAP-NECK", "wing-": "EK-CAP-WING", "tail-upper": "EK-CAP-TAIL"}


def lock_rule(piece: int) -> str:
    pid = PIECE_IDS[piece]
    for prefix, rule in _LOCK_EXAMPLE_RULES.items():
        if pid.startswith(prefix):
            return rule
    return "EK-CAP-OUTER"


def score_of(counts: list[int], party: bool = False) -> int:
    """Points of one holding: face values plus the kingdom bonus (party game: number of favours)."""
    if party:
        return sum(counts)
    return sum(map(mul, counts, VALUES)) + KINGDOM_BONUS * kingdoms_of(counts)


def kingdoms_of(counts: list[int]) -> int:
    """Complete kingdoms: one of each kind worth 1 to 10, Jesters excluded (EK-SCORE-2)."""
    return min(_kingdom_counts(counts))


@dataclass
class EagleKingdoms(Game):
    """Eagle Kingdoms; ``variant="party"`` is the Party Favor game, ``options={"third_die": True}``
    (or ``variant="party-third-die"``) adds its third die after half the pieces are gone."""

    name: ClassVar[str] = "eagle-kingdoms"
    rolls: ClassVar[dict[str, tuple[Die, ...]]] = {
        "roll": (D6, D6),
        "roll-third-die": (D6, D6, D6),  # the Party Favor game's third die, once half the pieces are gone
        "enchanted": (ENCHANTED_DIE,),
        "duel": (Die("d6", D6_FACES, "challenger"), Die("d6", D6_FACES, "defender")),  # the Knight's challenge
    }
    title: ClassVar[str] = "Eagle Kingdoms"
    version: ClassVar[int] = 2  # 2: no pass after a failed first roll (EK-TWO-2, EK-R-SECOND-SKIP)
    rule_prefix: ClassVar[str] = "EK"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 6
    default_players: ClassVar[int] = 3
    variants: ClassVar[tuple[str, ...]] = ("party", "party-third-die")
    max_actions: ClassVar[int] = 5_000
    options_spec: ClassVar[tuple[Option, ...]] = (
        Option("third_die", "bool", False, "Party Favor game: a third die once half the pieces are gone (EK-PARTY-4)"),
        Option(
            "skip_second_try", "bool", False,
            "house rule: after a failed first roll the player may also end the turn without rolling (EK-R-SECOND-SKIP)",
        ),
    )

    def validate_config(self) -> None:
        super().validate_config()
        if self.option("third_die") and self.variant is None:
            raise ConfigError("The third die belongs to the Party Favor game: use it with --variant party.")
        if self.option("skip_second_try") and self.variant is not None:
            raise ConfigError(
                "The house rule skip_second_try changes the two roll rule, which the Party Favor game leaves out."
            )

    @property
    def party(self) -> bool:
        return self.variant is not None

    @property
    def third_die(self) -> bool:
        return self.variant == "party-third-die" or bool(self.option("third_die"))

    @property
    def second_try_skippable(self) -> bool:
        """The house rule that lets a player end the turn after a failed first roll (EK-R-SECOND-SKIP)."""
        return bool(self.option("skip_second_try"))

    def new_initial_state(self) -> EagleState:
        return EagleState(self)


class EagleState(State):
    """A position of Eagle Kingdoms. Build it with ``EagleKingdoms.new_initial_state`` or ``from_json``."""

    def __init__(self, game: EagleKingdoms):
        super().__init__(game)
        self.party = game.party
        self.third_die = game.third_die
        self.skippable = game.second_try_skippable
        self.phase = SETUP
        self.player = 0
        self.turn = 0
        self.roll_no = 0
        self.dice: list[int] | None = None
        self.face: int | None = None
        self.duel: list[int] | None = None  # [defender, kind] during a challenge
        self.present = ALL_PIECES_BITS  # bit i set while piece i is on the board
        self.kind_on = [-1] * N_PIECES  # kind standing on each piece (-1: none)
        self.shield = [0] * NK
        self.hands = [[0] * NK for _ in range(game.num_players)]
        self.setup_step = 0
        self.shield_taker: int | None = None

    # --- who moves ---------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        phase = self.phase
        if phase in CHANCE_PHASES:
            return CHANCE
        if phase == OVER:
            return TERMINAL
        return self.player

    def is_chance_node(self) -> bool:
        return self.phase in CHANCE_PHASES

    def is_terminal(self) -> bool:
        return self.phase == OVER

    @property
    def turn_number(self) -> int:
        return self.turn

    # --- board queries -------------------------------------------------------------------------
    def is_available(self, piece: int) -> bool:
        present = self.present
        return bool(present >> piece & 1) and not LOCK_MASK[piece] & present

    def available_pieces(self) -> list[int]:
        present = self.present
        return [p for p in BOARD_PIECES if present >> p & 1 and not LOCK_MASK[p] & present]

    def final_step(self) -> bool:
        return self.present == SHIELD_BIT

    def dice_count(self) -> int:
        if self.third_die and N_PIECES - self.present.bit_count() >= HALF_PIECES:
            return 3
        return 2

    def shield_count(self) -> int:
        return sum(self.shield)

    def shield_needs(self, count: int | None = None) -> str:
        """The roll that wins the shield now, in words."""
        if self.party:
            return "double sixes (6:6)"
        n = self.shield_count() if count is None else count
        if n <= 1 or n >= 12:
            return "any double except 6:6"
        return f"a sum of {n}"

    def shield_wins(self, dice: list[int] | tuple[int, ...], count: int | None = None) -> bool:
        """Whether ``dice`` capture the shield with ``count`` characters on it (EK-FINAL-*, EK-PARTY-3)."""
        if self.party:
            return dice.count(6) >= 2
        n = self.shield_count() if count is None else count
        a, b = dice
        if n <= 1 or n >= 12:  # one or twelve+ characters; zero is a ruling (EK-R-SHIELD-ZERO)
            return a == b and a != 6
        return a + b == n

    def matching_pieces(self, dice: list[int] | tuple[int, ...]) -> list[int]:
        """Available pieces the roll can capture (the shield in the final step)."""
        present = self.present
        if present == SHIELD_BIT:
            return [SHIELD] if self.shield_wins(dice) else []
        if len(dice) == 2:
            candidates: tuple[int, ...] | list[int] = PAIR_PIECES[dice[0] * 7 + dice[1]]
        else:
            a, b, c = dice
            candidates = []
            for key in (_pair_key(a, b), _pair_key(a, c), _pair_key(b, c)):
                for p in PAIR_PIECES[key]:
                    if p not in candidates:
                        candidates.append(p)
        return [p for p in candidates if present >> p & 1 and not LOCK_MASK[p] & present]

    def _others_holding(self) -> bool:
        me = self.player
        return any(sum(h) for i, h in enumerate(self.hands) if i != me)

    def jester_targets(self) -> list[tuple[int, int]]:
        """(piece, kind) a Jester can be traded for: any non-Jester on the board or the shield."""
        targets = [(p, self.kind_on[p]) for p in BOARD_PIECES if self.present >> p & 1 and self.kind_on[p] != JESTER]
        targets.extend((SHIELD, k) for k in range(NK) if self.shield[k] and k != JESTER)
        return targets

    def _can_swap_jester(self) -> bool:
        if self.party or not self.hands[self.player][JESTER]:
            return False
        kind_on = self.kind_on
        present = self.present
        for p in BOARD_PIECES:
            if present >> p & 1 and kind_on[p] != JESTER:
                return True
        return any(self.shield[k] for k in range(NK) if k != JESTER)

    # --- actions -------------------------------------------------------------------------------
    def legal_actions(self) -> list[Action]:
        phase = self.phase
        me = self.player
        actions: list[Action]
        if phase == ROLL:
            return [{"type": "roll", "dice": list(d)} for d, _ in ROLL_OUTCOMES[self.dice_count()]]
        if phase == CAPTURE:
            actions = [{"type": "capture", "piece": PIECE_IDS[p]} for p in self.matching_pieces(self.dice or [])]
            return actions + [{"type": "pass"}]
        if phase == START:
            actions = [{"type": "roll-dice"}]
            for p, k in self.jester_targets():
                if p == SHIELD:
                    actions.append({"type": "jester", "piece": SHIELD_ID, "kind": KINDS[k]})
                else:
                    actions.append({"type": "jester", "piece": PIECE_IDS[p]})
            return actions
        if phase == SECOND:  # exactly the rulebook's two options, unless the house rule adds the pass
            actions = [{"type": "roll-again"}, {"type": "roll-enchanted"}]
            return actions + [{"type": "pass"}] if self.skippable else actions
        if phase == ENCHANTED:
            return [{"type": "enchanted", "face": f} for f in range(1, ENCHANTED_SIDES + 1)]
        if phase == DUEL:
            return [{"type": "duel", "dice": [a, b]} for a in range(1, 7) for b in range(1, 7)]
        if phase == SETUP:
            return [{"type": "place", "piece": PIECE_IDS[SETUP_ORDER[self.setup_step]], "kind": KINDS[k]} for k, _ in self._setup_step_outcomes()]
        hand = self.hands[me]
        mine = [k for k in BY_VALUE_DESC if hand[k]]
        others = [i for i in range(len(self.hands)) if i != me]
        if phase == GIVE:
            return [{"type": "give", "kind": KINDS[k], "to": j} for k in mine for j in others]
        if phase == FORFEIT:
            return [{"type": "forfeit", "kind": KINDS[k]} for k in mine]
        if phase == TRADE:
            actions = [
                {"type": "trade", "give": KINDS[k], "with": j, "take": KINDS[t]}
                for j in others
                for t in BY_VALUE_DESC
                if self.hands[j][t]
                for k in mine
                if k != t
            ]
            return actions + [{"type": "pass"}]
        if phase == CHALLENGE:
            actions = [{"type": "challenge", "with": j, "kind": KINDS[t]} for j in others for t in BY_VALUE_DESC if self.hands[j][t]]
            return actions + [{"type": "pass"}]
        if phase == TAKE:
            return [{"type": "take", "piece": PIECE_IDS[p]} for p in self.available_pieces()]
        return []

    def _apply(self, action: Action) -> None:
        _APPLY_BY_PHASE.get(self.phase, EagleState._apply_exchange)(self, action)

    def _apply_roll(self, action: Action) -> None:
        dice = action["dice"]
        self.dice = list(dice)
        six = not self.party and dice[0] == 6 and dice[1] == 6
        if six:
            self._forfeit_highest()
        if self.matching_pieces(dice):
            self.phase = CAPTURE
        elif not self.party and self.roll_no == 1 and not six:
            self.phase = SECOND
        else:
            self._end_turn()

    def _apply_capture(self, action: Action) -> None:
        if action["type"] == "capture":
            self._capture(PIECE_INDEX[action["piece"]])
        else:
            self._end_turn()

    def _apply_start(self, action: Action) -> None:
        if action["type"] == "roll-dice":
            self.phase = ROLL
            self.roll_no = 1
        else:
            self._swap_jester(action)

    def _apply_second(self, action: Action) -> None:
        kind = action["type"]
        if kind == "roll-again":
            self.phase = ROLL
            self.roll_no = 2
        elif kind == "roll-enchanted":
            self.phase = ENCHANTED
        else:
            self._end_turn()

    def _apply_enchanted(self, action: Action) -> None:
        self._enchanted(action["face"])

    def _apply_duel(self, action: Action) -> None:
        challenger, defender = action["dice"]
        if challenger >= defender:  # ties go to the challenger
            target, k = self.duel  # type: ignore[misc]
            self.hands[target][k] -= 1
            self.hands[self.player][k] += 1
        self._end_turn()

    def _apply_setup(self, action: Action) -> None:
        if action["type"] == "setup":
            for pid, k in action["placement"].items():
                self.kind_on[PIECE_INDEX[pid]] = KIND_INDEX[k]
            self.setup_step = len(SETUP_ORDER)
        else:
            self.kind_on[PIECE_INDEX[action["piece"]]] = KIND_INDEX[action["kind"]]
            self.setup_step += 1
        if self.setup_step == len(SETUP_ORDER):
            self._begin_turn(0)

    def _apply_exchange(self, action: Action) -> None:
        """The Enchanted Die's give, forfeit, trade, challenge and take."""
        kind = action["type"]
        hand = self.hands[self.player]
        if kind == "give":
            k = KIND_INDEX[action["kind"]]
            hand[k] -= 1
            self.hands[action["to"]][k] += 1
        elif kind == "forfeit":
            k = KIND_INDEX[action["kind"]]
            hand[k] -= 1
            self.shield[k] += 1
        elif kind == "trade":
            k, t = KIND_INDEX[action["give"]], KIND_INDEX[action["take"]]
            other = self.hands[action["with"]]
            hand[k] -= 1
            other[k] += 1
            other[t] -= 1
            hand[t] += 1
        elif kind == "challenge":
            self.duel = [action["with"], KIND_INDEX[action["kind"]]]
            self.phase = DUEL
            return
        elif kind == "take":
            self._capture(PIECE_INDEX[action["piece"]])
            return
        self._end_turn()

    # --- steps -------------------------------------------------------------------------------------
    def _begin_turn(self, player: int) -> None:
        self.player = player
        self.turn += 1
        self.dice = None
        self.face = None
        self.duel = None
        self.roll_no = 1
        self.phase = START if self._can_swap_jester() else ROLL

    def _end_turn(self) -> None:
        self._begin_turn((self.player + 1) % len(self.hands))

    def _capture(self, piece: int) -> None:
        hand = self.hands[self.player]
        self.present &= ~(1 << piece)
        if piece == SHIELD:
            for k in range(NK):
                hand[k] += self.shield[k]
                self.shield[k] = 0
            self.shield_taker = self.player
            self.phase = OVER
            return
        hand[self.kind_on[piece]] += 1
        self.kind_on[piece] = -1
        self._end_turn()

    def _forfeit_highest(self) -> None:
        hand = self.hands[self.player]
        for k in BY_VALUE_DESC:
            if hand[k]:
                hand[k] -= 1
                self.shield[k] += 1
                return

    def _swap_jester(self, action: Action) -> None:
        hand = self.hands[self.player]
        piece = PIECE_INDEX[action["piece"]]
        hand[JESTER] -= 1
        if piece == SHIELD:
            k = KIND_INDEX[action["kind"]]
            self.shield[k] -= 1
            self.shield[JESTER] += 1
        else:
            k = self.kind_on[piece]
            self.kind_on[piece] = JESTER
        hand[k] += 1
        self._end_turn()

    def _enchanted(self, face: int) -> None:
        self.face = face
        effect = ENCHANTED_FACES[face]["effect"]
        hand = self.hands[self.player]
        holds = any(hand)
        if effect == "give" and holds:
            self.phase = GIVE
        elif effect == "forfeit" and holds:
            self.phase = FORFEIT
        elif effect == "trade" and any(hand[k] for k in TRADE_NEEDS) and self._others_holding():
            self.phase = TRADE
        elif effect == "challenge" and any(hand[k] for k in CHALLENGE_NEEDS) and self._others_holding():
            self.phase = CHALLENGE
        elif effect == "take" and self.present != SHIELD_BIT:
            self.phase = TAKE
        else:
            self._end_turn()

    # --- set-up ----------------------------------------------------------------------------------
    def _setup_remaining(self) -> list[int]:
        left = list(COUNTS)
        for p in SETUP_ORDER[: self.setup_step]:
            left[self.kind_on[p]] -= 1
        return left

    def _setup_step_outcomes(self) -> list[tuple[int, Fraction]]:
        """(kind, probability) for the next piece of the factorised random set-up (EK-SETUP-*)."""
        left = self._setup_remaining()
        step = self.setup_step
        jesters = left[JESTER]
        others = sum(left) - jesters
        if step < len(JESTER_PIECES):
            p_jester = Fraction(jesters, len(JESTER_PIECES) - step)
        else:
            p_jester = Fraction(0)
        outcomes = []
        for k in range(NK):
            if k == JESTER:
                if p_jester:
                    outcomes.append((k, p_jester))
            elif left[k] and p_jester < 1:
                outcomes.append((k, (1 - p_jester) * Fraction(left[k], others)))
        return outcomes

    def random_placement(self, rng: random.Random) -> dict[str, str]:
        """A uniformly random legal set-up (EK-SETUP-RANDOM, EK-SETUP-JESTERS)."""
        bag = [k for k in range(NK) if k != JESTER for _ in range(COUNTS[k])]
        rng.shuffle(bag)
        jester_pieces = list(JESTER_PIECES)
        free = rng.randrange(len(jester_pieces))
        placement: dict[str, str] = {}
        it = iter(bag)
        for p in BOARD_PIECES:
            if p in jester_pieces and jester_pieces.index(p) != free:
                placement[PIECE_IDS[p]] = KINDS[JESTER]
            else:
                placement[PIECE_IDS[p]] = KINDS[next(it)]
        return placement

    def _setup_problem(self, action: Action) -> GameError | None:
        if self.setup_step:
            return IllegalAction("EK-SETUP-RANDOM", "The set-up has begun piece by piece; place the next piece instead of a whole placement.", action)
        placement = action.get("placement")
        if not isinstance(placement, Mapping):
            return InvalidAction("A set-up needs a 'placement' mapping each piece id to a character kind.", "EK-SETUP-RANDOM")
        if not all(isinstance(v, str) for v in [*placement, *placement.values()]):
            return InvalidAction("A placement maps piece ids to character kinds, both as text.", "EK-SETUP-RANDOM")
        unknown = sorted(str(p) for p in placement if p not in PIECE_INDEX)
        if unknown:
            return InvalidAction(f"No piece named {unknown[0]!r} on the eagle board.", "EK-SETUP-RANDOM")
        bad = sorted(str(k) for k in placement.values() if k not in KIND_INDEX)
        if bad:
            return InvalidAction(f"No character kind {bad[0]!r}; kinds are {', '.join(KINDS)}.", "EK-SETUP-RANDOM")
        if SHIELD_ID in placement:
            return IllegalAction("EK-SETUP-SHIELD", "The centre shield is left empty at the start of the game.", action)
        missing = [PIECE_IDS[p] for p in BOARD_PIECES if PIECE_IDS[p] not in placement]
        if missing:
            return IllegalAction("EK-SETUP-RANDOM", f"One character stands on each piece; {plural(len(missing), 'piece')} {'has' if len(missing) == 1 else 'have'} none (e.g. {missing[0]}).", action)
        tally = [0] * NK
        for k in placement.values():
            tally[KIND_INDEX[k]] += 1
        for k in range(NK):
            if tally[k] != COUNTS[k]:
                return IllegalAction("EK-SETUP-RANDOM", f"The set-up has {tally[k]} {KIND_PLURALS[k]}; the game has {COUNTS[k]}.", action)
        on_feathers = sum(1 for p in JESTER_PIECES if placement[PIECE_IDS[p]] == KINDS[JESTER])
        if on_feathers != JESTERS_ON:
            names = ", ".join(PIECE_IDS[p] for p in JESTER_PIECES)
            return IllegalAction("EK-SETUP-JESTERS", f"The Jesters stand on three of the four lowermost tail feathers ({names}).", action)
        return None

    # --- refusals ----------------------------------------------------------------------------------
    def problem(self, action: Action) -> GameError | None:
        # fast path: membership in the short list of legal actions; a whole set-up is checked on its own
        # (its placements are too many to list)
        if self.phase == SETUP and action.get("type") == "setup":
            return self._setup_problem(action)
        if action in self.legal_actions():
            return None
        try:
            return self._explain(action)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            return InvalidAction(f"Malformed action {action!r}.")

    def _explain(self, action: Action) -> GameError:
        kind = action.get("type")
        phase = self.phase
        name = self.player_name(self.player)
        if phase == OVER:
            return IllegalAction("EK-FINAL-5", "The game is over: the centre shield has been captured.", action)
        if kind not in ACTION_TYPES:
            return InvalidAction(f"Unknown action type {kind!r}; expected one of: {', '.join(sorted(PHASE_TYPES[phase]))}.")
        if kind not in PHASE_TYPES[phase]:
            return self._out_of_phase(kind, action)
        if phase == SECOND and kind == "pass":
            return IllegalAction(
                "EK-TWO-2",
                f"{name} could not capture on the first roll: roll the regular dice again or roll the Enchanted Die; "
                "ending the turn without rolling is not one of the two options (only the house rule skip_second_try allows it).",
                action,
            )
        explain = _EXPLAIN_BY_TYPE.get(kind)
        found = explain(self, action) if explain is not None else None
        return found or IllegalAction(PHASE_RULES[phase][0], f"Not a legal action now: {self.action_to_string(action)}.", action)

    def _out_of_phase(self, kind: str, action: Action) -> GameError:
        """Why an action of a known type is not one of this phase's."""
        phase = self.phase
        name = self.player_name(self.player)
        if phase == CAPTURE and kind in ("roll-again", "roll-enchanted"):
            return IllegalAction(
                "EK-R-DECLINE",
                f"{name}'s first roll can capture a piece: the second roll is only for a player unable to capture (passing ends the turn).",
                action,
            )
        if phase in (GIVE, FORFEIT, TAKE) and kind == "pass":
            return IllegalAction(PHASE_RULES[phase][0], f"This Enchanted Die action is not optional: {PHASE_RULES[phase][1].format(p=name)}.", action)
        if kind == "roll-enchanted" and self.party:
            return IllegalAction("EK-PARTY-1", "The Party Favor game does not use the Enchanted Die.", action)
        if kind == "jester" and phase != SETUP:
            return self._jester_out_of_turn(action)
        rule, waits = PHASE_RULES[phase]
        return IllegalAction(rule, f"Not now: {waits.format(p=name)}.", action)

    def _jester_out_of_turn(self, action: Action) -> GameError:
        if self.party:
            return IllegalAction("EK-R-PARTY", "The Party Favor game has no Jesters to trade.", action)
        if not self.hands[self.player][JESTER]:
            return IllegalAction("EK-JESTER-1", f"{self.player_name(self.player)} has no captured Jester to trade.", action)
        return IllegalAction("EK-JESTER-1", "A Jester is traded at the beginning of a turn, instead of rolling.", action)

    def _roll_problem(self, action: Action) -> GameError | None:
        dice = action.get("dice")
        count = self.dice_count()
        if not isinstance(dice, list) or len(dice) != count or not all(isinstance(d, int) and 1 <= d <= 6 for d in dice):
            return InvalidAction(f"A roll is {count} regular dice showing 1-6, e.g. {[3, 5, 6][:count]}; got {dice!r}.", "EK-PLAY-ROLL")
        if dice != sorted(dice):
            return InvalidAction(f"Write the dice in ascending order: {sorted(dice)}.", "EK-PLAY-ROLL")
        return None

    def _enchanted_problem(self, action: Action) -> GameError:
        return InvalidAction(f"The Enchanted Die shows 1-{ENCHANTED_SIDES}; got {action.get('face')!r}.", "EK-TWO-2")

    def _duel_problem(self, action: Action) -> GameError:
        return InvalidAction(f"A challenge is two dice (challenger, defender) showing 1-6; got {action.get('dice')!r}.", "EK-ED-DUEL")

    def _whole_setup_problem(self, action: Action) -> GameError:
        return self._setup_problem(action) or IllegalAction("EK-SETUP-RANDOM", "Not a legal set-up.", action)

    def _place_problem(self, action: Action) -> GameError:
        expected = PIECE_IDS[SETUP_ORDER[self.setup_step]]
        if action.get("piece") != expected:
            return IllegalAction("EK-SETUP-RANDOM", f"The next piece to set up is {expected}.", action)
        rule = "EK-SETUP-JESTERS" if action.get("kind") == "jester" or self.setup_step < len(JESTER_PIECES) else "EK-SETUP-RANDOM"
        return IllegalAction(rule, f"No {action.get('kind')!r} can stand on {expected} now (none left, or the Jesters' feathers decide it).", action)

    def _piece_problem(self, action: Action) -> GameError:
        """Why a capture, a take or a Jester trade cannot have that piece."""
        kind = action.get("type")
        pid = action.get("piece")
        if pid not in PIECE_INDEX:
            return InvalidAction(f"No piece named {pid!r} on the eagle board.", "EK-CAP-MATCH")
        piece = PIECE_INDEX[pid]
        if not self.present >> piece & 1:
            return IllegalAction("EK-CAP-CHOOSE", f"{pid} has already been captured.", action)
        if kind == "jester":
            if piece == SHIELD:
                return IllegalAction("EK-JESTER-1", f"The shield holds no {action.get('kind')!r} to trade for.", action)
            return IllegalAction("EK-R-JESTER", f"{pid} already holds a Jester: trading for it changes nothing.", action)
        if piece == SHIELD:
            return self._shield_problem(action)
        if not self.is_available(piece):
            lockers = ", ".join(PIECE_IDS[q] for q in LOCKED_BY[piece] if self.present >> q & 1)
            return IllegalAction(lock_rule(piece), f"{pid} is locked in by {lockers}: only outermost pieces can be captured.", action)
        return IllegalAction("EK-CAP-MATCH", f"{pid} shows {_dice_text(PIECE_DICE[piece])}; the roll {_dice_text(self.dice)} does not match it.", action)

    def _shield_problem(self, action: Action) -> GameError:
        if action.get("type") == "take":
            return IllegalAction("EK-R-TAKE-SHIELD", "The Enchanted Die's 7 takes an eagle piece, never the centre shield: the shield is won only by the final-step roll.", action)
        if not self.final_step():
            return IllegalAction("EK-FINAL-1", "The centre shield can be captured only when it is the last piece on the board.", action)
        rule = "EK-PARTY-3" if self.party else ("EK-FINAL-2" if self.shield_count() <= 1 or self.shield_count() >= 12 else "EK-FINAL-1")
        return IllegalAction(rule, f"To win the shield now you need {self.shield_needs()}; the roll was {_dice_text(self.dice)}.", action)

    def _exchange_problem(self, action: Action) -> GameError | None:
        """Why a give, forfeit, trade or challenge of the Enchanted Die is refused (None: no reason found)."""
        kind = action.get("type")
        rule = PHASE_RULES[self.phase][0]
        for key in ("kind", "give", "take"):
            if key in action and action[key] not in KIND_INDEX:
                return InvalidAction(f"No character kind {action[key]!r}; kinds are {', '.join(KINDS)}.", rule)
        others = self.hands
        target: Any = action.get("to", action.get("with"))
        if kind != "forfeit" and (not isinstance(target, int) or not 0 <= target < len(others)):
            return InvalidAction(f"No player number {target!r}; players are 0-{len(others) - 1}.", rule)
        if kind != "forfeit" and target == self.player:
            return IllegalAction(rule, "That must be another player, not yourself.", action)
        mine = action["give"] if kind == "trade" else action["kind"]  # a missing key: "Malformed action"
        if kind != "challenge" and not self.hands[self.player][KIND_INDEX[mine]]:
            return IllegalAction(rule, f"{self.player_name(self.player)} has no {KIND_NAMES[KIND_INDEX[mine]]}.", action)
        if kind not in ("trade", "challenge"):
            return None
        theirs = KIND_INDEX[action["take" if kind == "trade" else "kind"]]
        if not others[target][theirs]:
            return IllegalAction(rule, f"{self.player_name(target)} has no {KIND_NAMES[theirs]}.", action)
        if kind == "trade":
            return IllegalAction("EK-R-TRADE", "Trading a character for one of the same kind changes nothing.", action)
        return None

    # --- descriptions ------------------------------------------------------------------------------
    def action_to_string(self, action: Action) -> str:
        try:
            return self._describe(action)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            return f"{action!r}"

    def _describe(self, action: Action) -> str:
        kind = action.get("type")
        describe = _DESCRIBE_BY_TYPE.get(kind) if isinstance(kind, str) else None
        return describe(self, action) if describe is not None else f"{action!r}"

    def _describe_roll(self, action: Action) -> str:
        text = f"Roll: {'+'.join(str(d) for d in action['dice'])}"
        dice = action["dice"]
        if not self.party and len(dice) == 2 and dice == [6, 6] and self.phase == ROLL:
            hand = self.hands[self.player]
            top = next((k for k in BY_VALUE_DESC if hand[k]), None)
            name = self.player_name(self.player)
            text += f" - double sixes: {name} forfeits the {kind_label(top)} to the shield" if top is not None else " - double sixes, but nothing to forfeit"
        return text

    def _describe_enchanted(self, action: Action) -> str:
        face = action["face"]
        return f"Enchanted Die: {face} ({ENCHANTED_FACES[face]['text']})"

    def _describe_duel(self, action: Action) -> str:
        name = self.player_name(self.player)
        a, b = action["dice"]
        target, k = self.duel if self.duel else (None, None)
        foe = self.player_name(target) if target is not None else "defender"
        result = f"{name} wins the {kind_label(k)}" if a >= b and k is not None else f"{foe} keeps the character"
        return f"Challenge dice: {name} {a}, {foe} {b} - {result}"

    def _describe_capture(self, action: Action) -> str:
        """A capture, or the Enchanted Die's take."""
        name = self.player_name(self.player)
        piece = PIECE_INDEX[action["piece"]]
        verb = "captures" if action["type"] == "capture" else "takes"
        if piece == SHIELD:
            if self.party:
                return f"{name} {verb} the grand prize on the centre shield and ends the game"
            return f"{name} {verb} the centre shield with {plural(self.shield_count(), 'character')} and ends the game"
        if self.party:  # one character stands for one favour (EK-R-PARTY)
            return f"{name} {verb} the favour on {PIECE_IDS[piece]}"
        return f"{name} {verb} the {kind_label(self.kind_on[piece])} from {PIECE_IDS[piece]}"

    def _describe_decision(self, action: Action) -> str:
        """Passing, and the choices between the dice."""
        name = self.player_name(self.player)
        kind = action["type"]
        if kind == "pass":
            return {CAPTURE: f"{name} passes (no capture, turn over)", SECOND: f"{name} ends the turn without rolling again"}.get(
                self.phase, f"{name} passes"
            )
        what = {"roll-dice": "rolls the dice", "roll-again": "rolls the regular dice again", "roll-enchanted": "rolls the Enchanted Die"}
        return f"{name} {what[kind]}"

    def _describe_jester(self, action: Action) -> str:
        piece = PIECE_INDEX[action["piece"]]
        k = KIND_INDEX[action["kind"]] if piece == SHIELD else self.kind_on[piece]
        where = "the centre shield" if piece == SHIELD else PIECE_IDS[piece]
        return f"{self.player_name(self.player)} trades a Jester for the {kind_label(k)} on {where}"

    def _describe_exchange(self, action: Action) -> str:
        """The Enchanted Die's give, forfeit, trade and challenge."""
        name = self.player_name(self.player)
        kind = action["type"]
        if kind == "give":
            return f"{name} gives {article(kind_label(KIND_INDEX[action['kind']]))} to {self.player_name(action['to'])}"
        if kind == "forfeit":
            return f"{name} forfeits {article(kind_label(KIND_INDEX[action['kind']]))} to the centre shield"
        if kind == "trade":
            give, take = KIND_INDEX[action["give"]], KIND_INDEX[action["take"]]
            return f"{name} trades {article(kind_label(give))} for {self.player_name(action['with'])}'s {kind_label(take)}"
        return f"{name} challenges {self.player_name(action['with'])} for {article(kind_label(KIND_INDEX[action['kind']]))}"

    def _describe_setup(self, action: Action) -> str:
        """The whole random set-up, or one piece placed."""
        if action["type"] == "setup":
            return f"Set-up: {'favours' if self.party else 'characters'} placed on the eagle"
        if self.party:
            return f"Set-up: a favour on {action['piece']}"
        return f"Set-up: {article(kind_label(KIND_INDEX[action['kind']]))} on {action['piece']}"

    # --- chance ------------------------------------------------------------------------------------
    def chance_request(self) -> ChanceRequest | None:
        phase = self.phase
        name = self.player_name(self.player)
        rolls = self.game.rolls
        if phase == ROLL:
            n = self.dice_count()
            which = "second roll" if self.roll_no == 2 else "roll"
            dice = rolls["roll" if n == 2 else "roll-third-die"]
            return ChanceRequest.for_dice(dice, f"{name}'s {which}: the {n} regular dice", "3 5" if n == 2 else "3 5 6")
        if phase == ENCHANTED:
            return ChanceRequest.for_dice(rolls["enchanted"], f"{name}'s Enchanted Die (1-{ENCHANTED_SIDES})", "7")
        if phase == DUEL:
            target = self.player_name(self.duel[0]) if self.duel else "defender"
            return ChanceRequest.for_dice(
                rolls["duel"], f"Challenge dice: {name}'s die, then {target}'s", "4 2", kind="duel",
                roles=(f"challenger {name}", f"defender {target}"),
            )
        if phase == SETUP:
            if self.setup_step:
                pid = PIECE_IDS[SETUP_ORDER[self.setup_step]]
                likely = max(self._setup_step_outcomes(), key=itemgetter(1))[0]  # a kind that can stand there now
                return ChanceRequest("setup", (), (), f"Set-up: the character on {pid} (a kind, or 'random')", KINDS[likely])
            return ChanceRequest("setup", (), (), "Set-up: 'random' for a random placement, or a JSON placement {piece: kind}", "random")
        return None

    def _chance_action(self, faces: list[Face]) -> Action:
        if self.phase == ENCHANTED:
            return {"type": "enchanted", "face": faces[0]}
        if self.phase == DUEL:
            return {"type": "duel", "dice": list(faces)}  # ordered: challenger, defender
        return {"type": "roll", "dice": sorted(faces)}

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        phase = self.phase
        if phase == ROLL:
            return [({"type": "roll", "dice": list(d)}, float(p)) for d, p in ROLL_OUTCOMES[self.dice_count()]]
        if phase == SETUP:
            pid = PIECE_IDS[SETUP_ORDER[self.setup_step]]
            return [({"type": "place", "piece": pid, "kind": KINDS[k]}, float(p)) for k, p in self._setup_step_outcomes()]
        return super().chance_outcomes()  # d8 and the duel dice: uniform

    def sample_chance(self, rng: random.Random) -> Action:
        phase = self.phase
        if phase == ROLL:
            if self.third_die and self.dice_count() == 3:
                return {"type": "roll", "dice": sorted(int(rng.random() * 6) + 1 for _ in range(3))}
            a = int(rng.random() * 6) + 1
            b = int(rng.random() * 6) + 1
            return {"type": "roll", "dice": [a, b] if a <= b else [b, a]}
        if phase == ENCHANTED:
            return {"type": "enchanted", "face": int(rng.random() * ENCHANTED_SIDES) + 1}
        if phase == DUEL:
            return {"type": "duel", "dice": [int(rng.random() * 6) + 1, int(rng.random() * 6) + 1]}
        if phase == SETUP and not self.setup_step:
            # the whole placement at once: the same distribution as the factorised steps
            return {"type": "setup", "placement": self.random_placement(rng)}
        return super().sample_chance(rng)

    # --- results -----------------------------------------------------------------------------------
    def scores(self) -> list[float]:
        return [score_of(h, self.party) for h in self.hands]

    def winners(self) -> list[int]:
        if self.phase != OVER:
            return []
        if self.party:  # the Bird King: whoever captured the grand prize (EK-R-PARTY)
            return [self.shield_taker] if self.shield_taker is not None else []
        scores = self.scores()
        best = max(scores)
        return [i for i, s in enumerate(scores) if s == best]

    def check_invariants(self) -> list[str]:
        """45 characters exactly somewhere, pieces gone only once available, scores = holdings."""
        problems: list[str] = []
        if self.phase == SETUP:
            return problems
        where = list(self.shield)
        for hand in self.hands:
            for k, c in enumerate(hand):
                where[k] += c
        problems += self._board_problems(where)
        if not self.present & SHIELD_BIT and self.phase != OVER:
            problems.append("the shield is gone but the game goes on")
        if where != list(COUNTS):
            problems.append(f"characters per kind on board, shield and holdings are {where}; the game has {list(COUNTS)}")
        if min(self.shield) < 0 or any(min(h) < 0 for h in self.hands):
            problems.append("a negative count of characters")
        problems += self._score_problems()
        if self.party and any(self.shield):
            problems.append("characters on the shield in the Party Favor game")
        return problems

    def _board_problems(self, where: list[int]) -> list[str]:
        """Each piece on the board holds a character (counted into ``where``, by kind); each piece gone
        holds none and left only once available."""
        problems = []
        present = self.present
        kind_on = self.kind_on
        for p in BOARD_PIECES:
            k = kind_on[p]
            if present >> p & 1:
                if k < 0:
                    problems.append(f"{PIECE_IDS[p]} is on the board without a character")
                else:
                    where[k] += 1
                continue
            if k >= 0:
                problems.append(f"{PIECE_IDS[p]} was captured but still holds a character")
            if LOCK_MASK[p] & present:
                problems.append(f"{PIECE_IDS[p]} left the board while locked in")
        return problems

    def _score_problems(self) -> list[str]:
        problems = []
        for i, (hand, score) in enumerate(zip(self.hands, self.scores(), strict=True)):
            if self.party:
                expected = sum(hand)
            else:
                face = sum(c * v for c, v in zip(hand, VALUES, strict=True))
                expected = face + KINGDOM_BONUS * min(hand[k] for k in KINGDOM_KINDS)
            if score != expected:
                problems.append(f"{self.player_name(i)}'s score {score} is not the value of the holding ({expected})")
        return problems

    # --- persistence --------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "phase": self.phase,
            "player": self.player,
            "turn": self.turn,
            "roll_no": self.roll_no,
            "dice": list(self.dice) if self.dice is not None else None,
            "face": self.face,
            "duel": {"with": self.duel[0], "kind": KINDS[self.duel[1]]} if self.duel else None,
            "setup_step": self.setup_step,
            "board": {PIECE_IDS[p]: KINDS[self.kind_on[p]] for p in BOARD_PIECES if self.present >> p & 1 and self.kind_on[p] >= 0},
            "captured": [PIECE_IDS[p] for p in range(N_PIECES) if not self.present >> p & 1],
            "shield": _counts_json(self.shield),
            "hands": [_counts_json(h) for h in self.hands],
            "shield_taker": self.shield_taker,
        }

    @classmethod
    def from_json(cls, game: Game, data: Mapping[str, Any]) -> EagleState:
        if not isinstance(game, EagleKingdoms):
            raise ConfigError(f"An Eagle Kingdoms state needs an Eagle Kingdoms game, got {type(game).__name__}.")
        state = cls(game)
        try:
            phase = data["phase"]
            if phase not in PHASES:
                raise InvalidAction(f"Unknown phase {phase!r}; expected one of {', '.join(PHASES)}.")
            state.phase = phase
            state.player = int(data["player"])
            if not 0 <= state.player < game.num_players:
                raise InvalidAction(f"Player {state.player} does not exist; expected 0-{game.num_players - 1}.")
            state.turn = int(data["turn"])
            state.roll_no = int(data["roll_no"])
            state.dice = list(data["dice"]) if data.get("dice") is not None else None
            state.face = data.get("face")
            duel = data.get("duel")
            state.duel = [int(duel["with"]), KIND_INDEX[duel["kind"]]] if duel else None
            state.setup_step = int(data["setup_step"])
            for pid in data["captured"]:
                state.present &= ~(1 << PIECE_INDEX[pid])
            for pid, kind in data["board"].items():
                state.kind_on[PIECE_INDEX[pid]] = KIND_INDEX[kind]
            state.shield = _counts_from_json(data["shield"])
            hands = data["hands"]
            if len(hands) != game.num_players:
                raise InvalidAction(f"The state has {len(hands)} holdings; the game has {game.num_players} players.")
            state.hands = [_counts_from_json(h) for h in hands]
            taker = data.get("shield_taker")
            state.shield_taker = int(taker) if taker is not None else None
        except KeyError as exc:
            raise InvalidAction(f"Malformed Eagle Kingdoms state: unknown or missing {exc}.") from None
        except (TypeError, ValueError, AttributeError) as exc:
            raise InvalidAction(f"Malformed Eagle Kingdoms state: {exc}.") from None
        return state

    def clone(self) -> EagleState:
        twin = object.__new__(EagleState)
        twin.__dict__.update(self.__dict__)
        twin.kind_on = list(self.kind_on)
        twin.shield = list(self.shield)
        twin.hands = [list(h) for h in self.hands]
        if self.dice is not None:
            twin.dice = list(self.dice)
        if self.duel is not None:
            twin.duel = list(self.duel)
        return twin


# How an action changes the state, by phase (the Enchanted Die's exchanges: _apply_exchange).
_APPLY_BY_PHASE: dict[str, Callable[[EagleState, Action], None]] = {
    ROLL: EagleState._apply_roll,
    CAPTURE: EagleState._apply_capture,
    START: EagleState._apply_start,
    SECOND: EagleState._apply_second,
    ENCHANTED: EagleState._apply_enchanted,
    DUEL: EagleState._apply_duel,
    SETUP: EagleState._apply_setup,
}

# An action in words, by type (an unknown type: the action as it is).
_DESCRIBE_BY_TYPE: dict[str, Callable[[EagleState, Action], str]] = {
    "roll": EagleState._describe_roll,
    "enchanted": EagleState._describe_enchanted,
    "duel": EagleState._describe_duel,
    **dict.fromkeys(("capture", "take"), EagleState._describe_capture),
    **dict.fromkeys(("pass", "roll-dice", "roll-again", "roll-enchanted"), EagleState._describe_decision),
    "jester": EagleState._describe_jester,
    **dict.fromkeys(("give", "forfeit", "trade", "challenge"), EagleState._describe_exchange),
    **dict.fromkeys(("setup", "place"), EagleState._describe_setup),
}

# Why an action of a type the phase allows is still refused, by type (None, or no entry: "not a legal action now").
_EXPLAIN_BY_TYPE: dict[str, Callable[[EagleState, Action], GameError | None]] = {
    "roll": EagleState._roll_problem,
    "enchanted": EagleState._enchanted_problem,
    "duel": EagleState._duel_problem,
    "setup": EagleState._whole_setup_problem,
    "place": EagleState._place_problem,
    **dict.fromkeys(("capture", "take", "jester"), EagleState._piece_problem),
    **dict.fromkeys(("give", "forfeit", "trade", "challenge"), EagleState._exchange_problem),
}

def _counts_json(counts: list[int]) -> dict[str, int]:
    return {KINDS[k]: c for k, c in enumerate(counts) if c}


def _counts_from_json(data: Mapping[str, int]) -> list[int]:
    counts = [0] * NK
    for kind, n in data.items():
        counts[KIND_INDEX[kind]] = int(n)
    return counts


def _dice_text(dice: Any) -> str:
    if not dice:
        return "(none)"
    return ":".join(str(d) for d in dice)


def capture_chance(state: EagleState) -> Fraction:
    """Exact probability that the roll the state waits for captures something (coach).

    Counts every outcome after which a capture is possible: double sixes first forfeit the
    roller's best character to the shield (standard game), which changes the final-step target.
    """
    if state.phase != ROLL:
        raise ValueError("capture_chance needs a state waiting for a roll of the regular dice")
    total = Fraction(0)
    final = state.final_step()
    holds = any(state.hands[state.player])
    for dice, p in ROLL_OUTCOMES[state.dice_count()]:
        if final:
            count = state.shield_count()
            if not state.party and dice == (6, 6) and holds:
                count += 1
            hit = state.shield_wins(dice, count)
        else:
            hit = bool(state.matching_pieces(dice))
        if hit:
            total += p
    return total

