"""Eagle Kingdoms in the terminal: the board as text, typed rolls, coaching, the final table."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from companion.games.core import Action, InvalidAction, State, parse_int_list, plural
from companion.games.eagle_kingdoms.rules import (
    BY_VALUE_DESC,
    CAPTURE,
    CHALLENGE_NEEDS,
    DUEL,
    ENCHANTED,
    ENCHANTED_FACES,
    ENCHANTED_SIDES,
    KIND_INDEX,
    KIND_NAMES,
    KIND_PLURALS,
    KINDS,
    KINGDOM_BONUS,
    PIECE_DICE,
    PIECE_IDS,
    PIECE_INDEX,
    ROLL,
    SECOND,
    SETUP,
    SETUP_ORDER,
    SHIELD,
    SHIELD_ID,
    START,
    TRADE_NEEDS,
    VALUES,
    EagleState,
    capture_chance,
    kind_label,
    kingdoms_of,
    score_of,
)
from companion.games.text import TextView


def holding_text(counts: list[int], party: bool = False) -> str:
    """'2 Kings, Queen, Jester' (highest first); 'nothing' when empty; in the Party Favor game '3 favours'."""
    if party:
        return plural(sum(counts), "favour") if any(counts) else "nothing"
    parts = []
    for k in BY_VALUE_DESC:
        n = counts[k]
        if n == 1:
            parts.append(KIND_NAMES[k])
        elif n > 1:
            parts.append(f"{n} {KIND_PLURALS[k]}")
    return ", ".join(parts) or "nothing"


PIECE_VERBS = {"capture": "Capture", "take": "Take from the eagle", "jester": "Trade your Jester"}
"""Choices on a piece of the eagle, by kind: the first label of their group in a long menu."""


def chance_text(p: Fraction, dice: int = 2) -> str:
    outcomes = 6**dice
    hits = p * outcomes
    return f"{int(hits)}/{outcomes} ({float(p):.1%})" if hits.denominator == 1 else f"{float(p):.1%}"


def challenge_stakes(state: EagleState, action: Action) -> tuple[float, float]:
    """Points the challenger wins and the defender loses if a Knight challenge succeeds."""
    target, k = action["with"], KIND_INDEX[action["kind"]]
    won = list(state.hands[state.player])
    won[k] += 1
    lost = list(state.hands[target])
    lost[k] -= 1
    scores = state.scores()
    return score_of(won, state.party) - scores[state.player], score_of(lost, state.party) - scores[target]


class EagleTextView(TextView):
    """The terminal referee's view of an Eagle Kingdoms state (``TEXT_VIEW``)."""

    # --- drawing -------------------------------------------------------------------------------
    def render(self, state: State) -> str:
        assert isinstance(state, EagleState)
        lines = [f"Eagle Kingdoms{' (Party Favor game)' if state.party else ''} - {self._whose(state)}"]
        if state.phase == SETUP:
            lines.append(f"Set-up: {state.setup_step} of {len(SETUP_ORDER)} pieces placed.")
            lines.append(self.scores_line(state))
            return "\n".join(lines)
        if state.dice:
            lines.append(f"Last roll: {'+'.join(str(d) for d in state.dice)}")
        if state.face:
            lines.append(f"Enchanted Die: {state.face} - {ENCHANTED_FACES[state.face]['text']}")
        available = state.available_pieces()
        if available:
            lines.append("Available pieces (dice, piece):" if state.party else "Available pieces (dice, piece, character):")
            for p in sorted(available, key=lambda q: (PIECE_DICE[q], PIECE_IDS[q])):
                a, b = PIECE_DICE[p]  # type: ignore[misc]
                what = "a favour" if state.party else kind_label(state.kind_on[p])
                lines.append(f"  {a}:{b}  {PIECE_IDS[p]:<15} {what}")
        # the shield counts as present but is neither available (until last) nor a locked eagle piece
        locked = max(0, state.present.bit_count() - 1 - len(available))
        shield = plural(state.shield_count(), "character") + (f" ({holding_text(state.shield)})" if any(state.shield) else "")
        if state.is_terminal():
            lines.append("The eagle is taken apart: every " + ("favour" if state.party else "character") + " has been captured.")
        elif state.final_step() and state.party:
            lines.append(f"Final step: only the centre shield remains; to win the grand prize: {state.shield_needs()}.")
        elif state.final_step():
            lines.append(f"Final step: only the centre shield remains, with {shield}; to win it: {state.shield_needs()}.")
        elif state.party:
            lines.append(f"Locked pieces: {locked}. Centre shield: the grand prize.")
        else:
            lines.append(f"Locked pieces: {locked}. Centre shield: {shield}.")
        for i, hand in enumerate(state.hands):
            extra = "" if state.party else f"; kingdoms {kingdoms_of(hand)}"
            lines.append(f"  {state.player_name(i)}: {holding_text(hand, state.party)}{extra}")
        lines.append(self.scores_line(state))
        return "\n".join(lines)

    def scores_line(self, state: State) -> str:
        parts = [f"{name} {score:g}" for name, score in zip(state.game.players, state.scores(), strict=True)]
        return ("Favours: " if getattr(state, "party", False) else "Scores: ") + ", ".join(parts)

    def _whose(self, state: EagleState) -> str:
        if state.phase == SETUP:
            return "set-up"
        if state.is_terminal():
            return "game over"
        name = state.player_name(state.player)
        roll = {1: "first roll", 2: "second roll"}.get(state.roll_no, "")
        return f"turn {state.turn}: {name} to play" + (f" ({roll})" if state.phase in (ROLL, CAPTURE) and not state.party else "")

    # --- typed chance outcomes -------------------------------------------------------------------------
    def parse_chance(self, state: State, text: str) -> Action:
        assert isinstance(state, EagleState)
        text = text.strip()
        phase = state.phase
        if phase == SETUP:
            if text.lower() == "random":
                return state.sample_chance(random.Random())
            if text.startswith("{"):
                if state.setup_step:
                    raise InvalidAction("The set-up has begun piece by piece: type the kind for the next piece, or 'random'.")
                try:
                    data = json.loads(text)
                except json.JSONDecodeError as exc:
                    raise InvalidAction(f"That placement is not valid JSON ({exc.msg} at column {exc.colno}).") from None
                if not isinstance(data, dict):
                    raise InvalidAction("A placement is a JSON object {piece id: character kind}.")
                placement = data.get("placement", data) if data.get("type", "setup") == "setup" else data
                return {"type": "setup", "placement": placement}
            if state.setup_step and text.lower() in KIND_INDEX:
                return {"type": "place", "piece": PIECE_IDS[SETUP_ORDER[state.setup_step]], "kind": text.lower()}
            raise InvalidAction("Type 'random' for a random set-up, or paste a JSON placement {piece: kind}.")
        if phase == ROLL:
            return state.chance_action(parse_int_list(text, count=state.dice_count(), low=1, high=6, what="die"))
        if phase == ENCHANTED:
            return state.chance_action(parse_int_list(text, count=1, low=1, high=ENCHANTED_SIDES, what="Enchanted Die"))
        if phase == DUEL:
            return state.chance_action(parse_int_list(text, count=2, low=1, high=6, what="die"))  # challenger first
        raise InvalidAction("No dice are expected now: choose one of the numbered options.")

    # --- coaching ------------------------------------------------------------------------------------
    def coach(self, state: State) -> list[str]:
        assert isinstance(state, EagleState)
        phase = state.phase
        lines: list[str] = []
        name = state.player_name(state.player)
        hand = state.hands[state.player] if state.hands else []
        if phase == ROLL:
            n = state.dice_count()
            p = capture_chance(state)
            lines.append(f"Chance that this roll captures something: {chance_text(p, n)}.")
            if state.final_step() and state.party:
                lines.append(f"Final step: the grand prize on the centre shield needs {state.shield_needs()}.")
            elif state.final_step():
                lines.append(f"Final step: {plural(state.shield_count(), 'character')} on the shield; you need {state.shield_needs()}.")
            if not state.party and any(hand):
                top = next(k for k in BY_VALUE_DESC if hand[k])
                lines.append(f"Double sixes (1/36) would cost {name} the {kind_label(top)}.")
            if not state.party and state.roll_no == 1:
                lines.append("If it misses, you may roll the dice again or roll the Enchanted Die.")
        elif phase == SECOND:
            again = state.clone()
            again.apply_unchecked({"type": "roll-again"})
            lines.append(f"Rolling again captures with {chance_text(capture_chance(again))}.")
            lines.append("The Enchanted Die for you: " + "; ".join(self._faces(state)) + ".")
        elif phase == ENCHANTED:
            lines.append("Each face 1 in 8: " + "; ".join(self._faces(state)) + ".")
        elif phase == DUEL:
            lines.append(f"Ties go to the challenger: {name} wins with 21/36 (58.3%).")
        elif phase == START:
            targets = [(VALUES[k], k, p) for p, k in state.jester_targets()]
            best = max(targets)
            where = "the centre shield" if best[2] == SHIELD else PIECE_IDS[best[2]]
            lines.append(f"Your Jester (0) can replace any character on the board or the shield; the best is the {kind_label(best[1])} on {where}.")
            lines.append("Trading the Jester ends your turn without rolling.")
        elif phase == CAPTURE and state.roll_no == 1 and not state.party:
            lines.append("Passing ends your turn: a second roll is only for a player unable to capture (ruling).")
        return lines

    def _faces(self, state: EagleState) -> list[str]:
        hand = state.hands[state.player]
        holds = any(hand)
        others = any(sum(h) for i, h in enumerate(state.hands) if i != state.player)
        parts = []
        for face in range(1, ENCHANTED_SIDES + 1):
            effect = ENCHANTED_FACES[face]["effect"]
            active = {
                "give": holds,
                "forfeit": holds,
                "trade": others and any(hand[k] for k in TRADE_NEEDS),
                "challenge": others and any(hand[k] for k in CHALLENGE_NEEDS),
                "take": not state.final_step(),
                "blank": False,
            }[effect]
            parts.append(f"{face} {effect}" + ("" if active else " (no effect)"))
        return parts

    def describe_choice(self, state: State, action: Action) -> str:
        assert isinstance(state, EagleState)
        text = state.action_to_string(action)
        effect = self.effect(state, action)
        return f"{text} - {effect}" if effect else text

    def choice_group(self, state: State, action: Action) -> tuple[str, ...]:
        """Pieces on the eagle by the character on them (the Party Favor game: by part of the eagle);
        trades by partner, then what you get; challenges and gifts by player."""
        assert isinstance(state, EagleState)
        kind = action.get("type")
        if kind in PIECE_VERBS and action.get("piece") != SHIELD_ID:
            piece = PIECE_INDEX[action["piece"]]
            where = PIECE_IDS[piece].rstrip("0123456789").rstrip("-")
            what = f"on the {where}" if state.party else kind_label(state.kind_on[piece])
            return (PIECE_VERBS[kind], what)
        if kind == "trade":
            partner = state.player_name(action["with"])
            return (f"Trade with {partner}", f"for {partner}'s {kind_label(KIND_INDEX[action['take']])}")
        if kind == "challenge":
            return (f"Challenge {state.player_name(action['with'])}",)
        if kind == "give":
            return (f"Give to {state.player_name(action['to'])}",)
        return ()

    def typing_help(self, state: State) -> list[str]:
        assert isinstance(state, EagleState)
        what = "favours" if state.party else "characters"
        lines = [
            f"At the set-up prompt: 'random' lays the {what} out at random, as they go face down onto the",
            "  eagle; or paste the placement as JSON {piece: character}.",
            "At a roll prompt: the two dice as they lie, e.g. '3 5' or '35'"
            + (" (once the third die is in: three, e.g. '3 5 6')." if state.third_die else "."),
        ]
        if not state.party:
            lines += [
                "At the Enchanted Die prompt: its face, 1-8, e.g. '7'.",
                "At the challenge dice prompt: the challenger's die, then the defender's, e.g. '4 2'.",
                "At a choice: the number of a choice (a capture, a second roll, a trade, a challenge, passing ...).",
            ]
        else:
            lines.append("At a choice: the number of a choice (a capture, or passing).")
        return lines

    def effect(self, state: EagleState, action: Action) -> str:
        """What a choice changes, in words ('+10 points, completes a kingdom; unlocks head-left')."""
        kind = action.get("type")
        if kind == "roll-again":
            after = state.clone()
            after.apply_unchecked(action)
            return f"captures with {chance_text(capture_chance(after))}"
        if kind == "roll-enchanted":
            return "; ".join(f for f in self._faces(state) if "no effect" not in f) or "nothing can happen"
        if kind == "roll-dice":
            after = state.clone()
            after.apply_unchecked(action)
            return f"captures with {chance_text(capture_chance(after), after.dice_count())}"
        if kind == "pass":
            if state.phase == CAPTURE and state.roll_no == 1 and not state.party:
                return "ends your turn (no second roll)"
            return "ends your turn"
        if kind == "challenge":
            target = action["with"]
            gain, loss = challenge_stakes(state, action)
            return (
                f"win chance 21/36 (58.3%): {gain:+g} {'point' if abs(gain) == 1 else 'points'} for you, {loss:+g} for "
                f"{state.player_name(target)}; a lost challenge costs nothing"
            )
        after = state.clone()
        after.apply_unchecked(action)
        return self._diff(state, after)

    def _diff(self, before: EagleState, after: EagleState) -> str:
        parts = []
        me = before.player
        old, new = before.scores(), after.scores()
        unit = ("favour", "favours") if before.party else ("point", "points")
        for i in [me] + [j for j in range(len(old)) if j != me]:
            delta = new[i] - old[i]
            if delta:
                who = "you" if i == me else before.player_name(i)
                parts.append(f"{delta:+g} {unit[abs(delta) != 1]} for {who}")
        if not before.party:
            k_old, k_new = kingdoms_of(before.hands[me]), kingdoms_of(after.hands[me])
            if k_new > k_old:
                parts.append("completes a kingdom")
            elif k_new < k_old:
                parts.append("breaks a kingdom")
        if after.shield_count() != before.shield_count() and not after.is_terminal():
            parts.append(f"shield {before.shield_count()} -> {after.shield_count()}")
        opened = [PIECE_IDS[p] for p in after.available_pieces() if not before.is_available(p)]
        text = ", ".join(parts) or f"no change in {unit[1]}"
        if opened:
            text += "; unlocks " + ", ".join(opened)
        if after.final_step() and not before.final_step():
            text += "; only the centre shield remains"
        return text

    # --- the end ----------------------------------------------------------------------------------
    def final_table(self, state: State) -> str:
        assert isinstance(state, EagleState)
        names = state.game.players
        width = max(len(n) for n in names + ["Player"])
        lines = []
        if state.party:
            lines.append(f"{'Player':<{width}}  Favours")
            for i, name in enumerate(names):
                lines.append(f"{name:<{width}}  {sum(state.hands[i]):>7}")
            bird_king = ", ".join(names[i] for i in state.winners()) or "nobody"
            lines.append(f"Bird King (captured the centre shield): {bird_king}")
            return "\n".join(lines)
        lines.append(f"{'Player':<{width}}  {'Face':>4}  {'Kingdoms':>8}  {'Bonus':>5}  {'Total':>5}  Characters")
        for i, name in enumerate(names):
            hand = state.hands[i]
            face = sum(c * VALUES[k] for k, c in enumerate(hand))
            kingdoms = kingdoms_of(hand)
            bonus = kingdoms * KINGDOM_BONUS
            lines.append(f"{name:<{width}}  {face:>4}  {kingdoms:>8}  {bonus:>5}  {face + bonus:>5}  {holding_text(hand)}")
        winners = state.winners()
        if len(winners) > 1:
            lines.append("Shared win: " + ", ".join(names[i] for i in winners))
        else:
            lines.append("Winner: " + (", ".join(names[i] for i in winners) or "nobody"))
        return "\n".join(lines)


# --- other languages (companion.games.i18n): the words come from i18n/<lang>.json -------------------
def _char(t, kind: int, case: str = "def") -> str:
    return f"{t.term(f'{case}.{KINDS[kind]}')} ({VALUES[kind]})"


def action_words(state: State, action: Action, t) -> str:
    """A move described from its fields with the templates of ``t`` (a :class:`companion.games.i18n.Texts`)."""
    assert isinstance(state, EagleState)
    kind = action.get("type")
    words = _WORDS_BY_TYPE.get(kind) if isinstance(kind, str) else None
    if words is None:
        raise KeyError(kind)
    return words(state, action, t)


def _roll_words(state: EagleState, action: Action, t) -> str:
    dice = action["dice"]
    shown = "+".join(str(d) for d in dice)
    if not state.party and len(dice) == 2 and dice == [6, 6] and state.phase == ROLL:
        hand = state.hands[state.player]
        top = next((k for k in BY_VALUE_DESC if hand[k]), None)
        if top is None:
            return t.text("roll_sixes_none", dice=shown)
        return t.text("roll_sixes", dice=shown, name=state.player_name(state.player), char=_char(t, top))
    return t.text("roll", dice=shown)


def _enchanted_words(state: EagleState, action: Action, t) -> str:
    face = action["face"]
    return t.text("enchanted", face=face, text=t.term(f"face.{face}"))


def _duel_words(state: EagleState, action: Action, t) -> str:
    name = state.player_name(state.player)
    a, b = action["dice"]
    target, k = state.duel if state.duel else (None, None)
    foe = state.player_name(target) if target is not None else t.term("defender")
    if a >= b and k is not None:
        return t.text("duel_won", name=name, foe=foe, a=a, b=b, char=_char(t, k))
    return t.text("duel_lost", name=name, foe=foe, a=a, b=b)


def _capture_words(state: EagleState, action: Action, t) -> str:
    """A capture, or the Enchanted Die's take."""
    kind = action["type"]
    name = state.player_name(state.player)
    piece = PIECE_INDEX[action["piece"]]
    if piece == SHIELD and state.party:
        return t.text(f"{kind}_shield_party", name=name)
    if piece == SHIELD:
        return t.text(f"{kind}_shield", name=name, figures=t.count(state.shield_count(), "n.character"))
    if state.party:
        return t.text(f"{kind}_party", name=name, piece=PIECE_IDS[piece])
    return t.text(kind, name=name, char=_char(t, state.kind_on[piece]), piece=PIECE_IDS[piece])


def _decision_words(state: EagleState, action: Action, t) -> str:
    """Passing, and the choices between the dice."""
    kind = action["type"]
    if kind == "pass":
        kind = {CAPTURE: "pass_capture", SECOND: "pass_second"}.get(state.phase, "pass")
    return t.text(kind, name=state.player_name(state.player))


def _jester_words(state: EagleState, action: Action, t) -> str:
    name = state.player_name(state.player)
    piece = PIECE_INDEX[action["piece"]]
    k = KIND_INDEX[action["kind"]] if piece == SHIELD else state.kind_on[piece]
    if piece == SHIELD:
        return t.text("jester_shield", name=name, char=_char(t, k))
    return t.text("jester", name=name, char=_char(t, k), piece=PIECE_IDS[piece])


def _exchange_words(state: EagleState, action: Action, t) -> str:
    """The Enchanted Die's give, forfeit, trade and challenge."""
    kind = action["type"]
    name = state.player_name(state.player)
    if kind == "give":
        return t.text("give", name=name, char=_char(t, KIND_INDEX[action["kind"]], "indef"), to=state.player_name(action["to"]))
    if kind == "forfeit":
        return t.text("forfeit", name=name, char=_char(t, KIND_INDEX[action["kind"]], "indef"))
    if kind == "trade":
        give, take = KIND_INDEX[action["give"]], KIND_INDEX[action["take"]]
        return t.text("trade", name=name, give=_char(t, give, "indef"), take=_char(t, take),
                      other=state.player_name(action["with"]))
    return t.text("challenge", name=name, other=state.player_name(action["with"]),
                  char=_char(t, KIND_INDEX[action["kind"]], "indef"))


def _setup_words(state: EagleState, action: Action, t) -> str:
    """The whole random set-up, or one piece placed."""
    if action["type"] == "setup":
        return t.text("setup_party" if state.party else "setup")
    if state.party:
        return t.text("place_party", piece=action["piece"])
    return t.text("place", char=_char(t, KIND_INDEX[action["kind"]], "nom"), piece=action["piece"])


# A move in words, by type (as EagleState.action_to_string's, from the templates of another language).
_WORDS_BY_TYPE: dict[str, Callable[[EagleState, Action, Any], str]] = {
    "roll": _roll_words,
    "enchanted": _enchanted_words,
    "duel": _duel_words,
    **dict.fromkeys(("capture", "take"), _capture_words),
    **dict.fromkeys(("pass", "roll-dice", "roll-again", "roll-enchanted"), _decision_words),
    "jester": _jester_words,
    **dict.fromkeys(("give", "forfeit", "trade", "challenge"), _exchange_words),
    **dict.fromkeys(("setup", "place"), _setup_words),
}


def _chance_words(p: Fraction, dice: int = 2) -> str:
    """chance_text with a decimal comma: '11/36 (30,6 %)'."""
    text = chance_text(p, dice)
    return text.replace(".", ",").replace("%", " %")


def choice_words(state: State, action: Action, t) -> str:
    """The menu text: the move and what it changes (as ``EagleTextView.describe_choice``)."""
    assert isinstance(state, EagleState)
    text = action_words(state, action, t)
    effect = _effect_words(state, action, t)
    return t.text("choice", text=text, effect=effect) if effect else text


def _effect_words(state: EagleState, action: Action, t) -> str:
    kind = action.get("type")
    if kind in ("roll-again", "roll-dice"):
        after = state.clone()
        after.apply_unchecked(action)
        dice = 2 if kind == "roll-again" else after.dice_count()
        return t.text("effect_chance", chance=_chance_words(capture_chance(after), dice))
    if kind == "roll-enchanted":
        return "; ".join(_faces_words(state, t, only_active=True)) or t.text("effect_nothing")
    if kind == "pass":
        first = state.phase == CAPTURE and state.roll_no == 1 and not state.party
        return t.text("effect_pass_first" if first else "effect_pass")
    if kind == "challenge":
        target = action["with"]
        gain, loss = challenge_stakes(state, action)
        return t.text("effect_challenge", gain=f"{gain:+g}", loss=f"{loss:+g}", foe=state.player_name(target),
                      unit=t.count(gain, "n.point").split(" ", 1)[1])
    after = state.clone()
    after.apply_unchecked(action)
    parts = []
    me = state.player
    old, new = state.scores(), after.scores()
    unit = "effect_favour" if state.party else "effect_point"
    for i in [me] + [j for j in range(len(old)) if j != me]:
        delta = new[i] - old[i]
        if delta:
            key = unit if abs(delta) == 1 else unit + "s"
            if i == me:
                parts.append(t.text(key + "_me", delta=f"{delta:+g}"))
            else:
                parts.append(t.text(key, delta=f"{delta:+g}", who=state.player_name(i)))
    if not state.party:
        k_old, k_new = kingdoms_of(state.hands[me]), kingdoms_of(after.hands[me])
        if k_new > k_old:
            parts.append(t.text("effect_kingdom_done"))
        elif k_new < k_old:
            parts.append(t.text("effect_kingdom_broken"))
    if after.shield_count() != state.shield_count() and not after.is_terminal():
        parts.append(t.text("effect_shield", before=state.shield_count(), after=after.shield_count()))
    opened = [PIECE_IDS[p] for p in after.available_pieces() if not state.is_available(p)]
    text = ", ".join(parts) or t.text("effect_none_party" if state.party else "effect_none")
    if opened:
        text += t.text("effect_unlocks", pieces=", ".join(opened))
    if after.final_step() and not state.final_step():
        text += t.text("effect_final")
    return text


def prompt_words(state: State, t) -> str:
    """What the chance node waits for (as ``EagleState.chance_request().prompt``)."""
    assert isinstance(state, EagleState)
    name = state.player_name(state.player)
    if state.phase == ROLL:
        key = "prompt_second" if state.roll_no == 2 else "prompt_roll"
        return t.text(key, name=name, count=state.dice_count())
    if state.phase == ENCHANTED:
        return t.text("prompt_enchanted", name=name, sides=ENCHANTED_SIDES)
    if state.phase == DUEL:
        target = state.player_name(state.duel[0]) if state.duel else t.term("defender")
        return t.text("prompt_duel", name=name, target=target)
    if state.phase == SETUP:
        if state.setup_step:
            return t.text("prompt_place", piece=PIECE_IDS[SETUP_ORDER[state.setup_step]])
        return t.text("prompt_setup")
    raise KeyError(state.phase)


def _holding_words(counts: list[int], t, party: bool = False) -> str:
    if party:
        return t.count(sum(counts), "n.favour") if any(counts) else t.term("nothing")
    parts = []
    for k in BY_VALUE_DESC:
        if counts[k] == 1:
            parts.append(t.term(f"name.{KINDS[k]}"))
        elif counts[k] > 1:
            parts.append(f"{counts[k]} {t.term(f'plural.{KINDS[k]}')}")
    return ", ".join(parts) or t.term("nothing")


def final_words(state: State, t) -> str:
    """The final table (as ``EagleTextView.final_table``)."""
    assert isinstance(state, EagleState)
    names = state.game.players
    label = t.text("final_player")
    width = max(len(n) for n in names + [label])
    winners = ", ".join(names[i] for i in state.winners()) or t.term("nobody")
    if state.party:
        lines = [t.text("party_header", player=f"{label:<{width}}")]
        for i, name in enumerate(names):
            lines.append(t.text("party_row", player=f"{name:<{width}}", favours=sum(state.hands[i])))
        lines.append(t.text("party_winner", names=winners))
        return "\n".join(lines)
    lines = [t.text("final_header", player=f"{label:<{width}}", face=t.text("final_face"),
                    kingdoms=t.text("final_kingdoms"), bonus=t.text("final_bonus"), total=t.text("final_total"))]
    for i, name in enumerate(names):
        hand = state.hands[i]
        face = sum(c * VALUES[k] for k, c in enumerate(hand))
        kingdoms = kingdoms_of(hand)
        bonus = kingdoms * KINGDOM_BONUS
        lines.append(t.text("final_row", player=f"{name:<{width}}", face=face, kingdoms=kingdoms, bonus=bonus,
                            total=face + bonus, holding=_holding_words(hand, t)))
    key = "final_shared" if len(state.winners()) > 1 else "final_winner"
    lines.append(t.text(key, names=winners))
    return "\n".join(lines)


def _needs_words(state: EagleState, t) -> str:
    """``EagleState.shield_needs`` in words of ``t``."""
    if state.party:
        return t.text("needs_party")
    n = state.shield_count()
    return t.text("needs_double") if n <= 1 or n >= 12 else t.text("needs_sum", count=n)


def _faces_words(state: EagleState, t, only_active: bool = False) -> list[str]:
    parts = []
    for part in EagleTextView()._faces(state):
        face = int(part.split()[0])
        effect = t.term("effect." + ENCHANTED_FACES[face]["effect"])
        if "no effect" in part:
            if not only_active:
                parts.append(t.text("coach_face_idle", face=face, effect=effect))
        else:
            parts.append(t.text("coach_face", face=face, effect=effect))
    return parts


def coach_words(state: State, t) -> list[str]:
    """The coach's advice (as ``EagleTextView.coach``)."""
    assert isinstance(state, EagleState)
    phase = state.phase
    lines: list[str] = []
    name = state.player_name(state.player)
    hand = state.hands[state.player] if state.hands else []
    if phase == ROLL:
        n = state.dice_count()
        lines.append(t.text("coach_chance", chance=_chance_words(capture_chance(state), n)))
        if state.final_step() and state.party:
            lines.append(t.text("coach_final_party", needs=_needs_words(state, t)))
        elif state.final_step():
            lines.append(t.text("coach_final", figures=t.count(state.shield_count(), "n.character"),
                                needs=_needs_words(state, t)))
        if not state.party and any(hand):
            top = next(k for k in BY_VALUE_DESC if hand[k])
            lines.append(t.text("coach_sixes", name=name, char=_char(t, top)))
        if not state.party and state.roll_no == 1:
            lines.append(t.text("coach_miss"))
    elif phase == SECOND:
        again = state.clone()
        again.apply_unchecked({"type": "roll-again"})
        lines.append(t.text("coach_again", chance=_chance_words(capture_chance(again))))
        lines.append(t.text("coach_enchanted", faces="; ".join(_faces_words(state, t))))
    elif phase == ENCHANTED:
        lines.append(t.text("coach_faces", faces="; ".join(_faces_words(state, t))))
    elif phase == DUEL:
        lines.append(t.text("coach_duel", name=name))
    elif phase == START:
        targets = [(VALUES[k], k, p) for p, k in state.jester_targets()]
        best = max(targets)
        where = t.text("coach_jester_shield") if best[2] == SHIELD else PIECE_IDS[best[2]]
        lines.append(t.text("coach_jester", char=_char(t, best[1], "nom_def"), where=where))
        lines.append(t.text("coach_jester_ends"))
    elif phase == CAPTURE and state.roll_no == 1 and not state.party:
        lines.append(t.text("coach_pass"))
    return lines


def _whose_words(state: EagleState, t) -> str:
    if state.phase == SETUP:
        return t.text("board_setup_whose")
    if state.is_terminal():
        return t.text("board_over_whose")
    name = state.player_name(state.player)
    roll = {1: t.text("board_first_roll"), 2: t.text("board_second_roll")}.get(state.roll_no, "")
    shown = state.phase in (ROLL, CAPTURE) and not state.party and roll
    return t.text("board_turn_roll" if shown else "board_turn", turn=state.turn, name=name, roll=roll)


def _scores_words(state: EagleState, t) -> str:
    parts = ", ".join(f"{name} {score:g}" for name, score in zip(state.game.players, state.scores(), strict=True))
    return t.text("board_favours" if state.party else "board_scores", scores=parts)


def board_words(state: State, t) -> str:
    """The board as text (as ``EagleTextView.render``), every word from ``t``."""
    assert isinstance(state, EagleState)
    title = t.text("board_title_party" if state.party else "board_title", whose=_whose_words(state, t))
    lines = [title]
    if state.phase == SETUP:
        lines.append(t.text("board_setup", placed=state.setup_step, total=len(SETUP_ORDER)))
        lines.append(_scores_words(state, t))
        return "\n".join(lines)
    if state.dice:
        lines.append(t.text("board_last_roll", dice="+".join(str(d) for d in state.dice)))
    if state.face:
        lines.append(t.text("board_enchanted", face=state.face, text=t.term(f"face.{state.face}")))
    party = "_party" if state.party else ""
    available = state.available_pieces()
    if available:
        lines.append(t.text("board_available" + party))
        for p in sorted(available, key=lambda q: (PIECE_DICE[q], PIECE_IDS[q])):
            a, b = PIECE_DICE[p]  # type: ignore[misc]
            kind = state.kind_on[p]
            what = t.term("a_favour") if state.party else f"{t.term(f'name.{KINDS[kind]}')} ({VALUES[kind]})"
            lines.append(f"  {a}:{b}  {PIECE_IDS[p]:<15} {what}")
    locked = max(0, state.present.bit_count() - 1 - len(available))
    shield = t.count(state.shield_count(), "n.character")
    if any(state.shield):
        shield += f" ({_holding_words(state.shield, t)})"
    if state.is_terminal():
        lines.append(t.text("board_taken_apart" + party))
    elif state.final_step():
        lines.append(t.text("board_final_step" + party, shield=shield, needs=_needs_words(state, t)))
    else:
        lines.append(t.text("board_locked" + party, locked=locked, shield=shield))
    for i, hand in enumerate(state.hands):
        extra = "" if state.party else t.text("board_kingdoms", count=kingdoms_of(hand))
        lines.append(f"  {state.player_name(i)}: {_holding_words(hand, t, state.party)}{extra}")
    lines.append(_scores_words(state, t))
    return "\n".join(lines)
