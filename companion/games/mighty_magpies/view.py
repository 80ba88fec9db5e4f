"""Terminal view of Mighty Magpies: nests with their tiles and magpies, typed rolls and set-ups, coach."""

from __future__ import annotations

import re

from companion.games.core import Action, InvalidAction, State, plural
from companion.games.mighty_magpies.board import BOARD, MAGPIE_FACE, TILE_KINDS, TILE_LETTERS
from companion.games.mighty_magpies.coach import chance_of_points, rank_turns
from companion.games.mighty_magpies.rules import (
    FACE_INDEX,
    FACES,
    ROUTE_ENDS,
    ROUTE_INDEX,
    TILE_NEST_IDS,
    MagpiesState,
    nest_string,
    ring_points,
)
from companion.games.text import TextView

B = BOARD


def parse_faces(text: str) -> list[str]:
    """Two typed faces ('red magpie', 'r m', 'yellow,blue') in canonical order; InvalidAction otherwise."""
    words = [w for w in re.split(r"[\s,+/&]+", text.strip().lower()) if w and w != "and"]
    if len(words) != 2:
        raise InvalidAction(f"Type the two faces shown, e.g. 'red magpie'; got {text.strip()!r}.", "MM-PLAY-2")
    faces = []
    for word in words:
        matches = [f for f in FACES if f == word] or [f for f in FACES if f.startswith(word)]
        if len(matches) != 1:
            raise InvalidAction(
                f"The colour dice have no face {word!r}; the faces are {', '.join(FACES)}.", "MM-CONTENTS-3"
            )
        faces.append(matches[0])
    faces.sort(key=FACE_INDEX.__getitem__)
    return faces


def parse_setup(text: str) -> dict[str, str]:
    """Typed nest contents: 'A bbbs B bbbg ...' (any order, ':' allowed) or the seven groups in nest order."""
    words = [w for w in re.split(r"[\s,;:=]+", text.strip()) if w]
    ids = {n.lower(): n for n in TILE_NEST_IDS}
    nests: dict[str, str] = {}
    if len(words) == len(TILE_NEST_IDS) and all(w.lower() not in ids for w in words):
        pairs = list(zip(TILE_NEST_IDS, words, strict=True))
    elif len(words) % 2 == 0:
        pairs = []
        for name, tiles in zip(words[::2], words[1::2], strict=True):
            if name.lower() not in ids:
                raise InvalidAction(
                    f"No nest {name!r} takes tiles; type e.g. 'A bbbs B bbbg ...' for nests {', '.join(TILE_NEST_IDS)}.",
                    "MM-SETUP-1",
                )
            pairs.append((ids[name.lower()], tiles))
    else:
        raise InvalidAction(
            "Type each nest and its tiles, e.g. 'A bbbs B bbbg ...' (b berry, s silver ring, g gold ring).",
            "MM-SETUP-1",
        )
    for nest_id, tiles in pairs:
        letters = tiles.lower()
        bad = sorted(set(letters) - set(TILE_LETTERS))
        if bad:
            raise InvalidAction(
                f"Nest {nest_id}: {bad[0]!r} is not a tile letter (b berry, s silver ring, g gold ring).", "MM-SETUP-1"
            )
        if nest_id in nests:
            raise InvalidAction(f"Nest {nest_id} is typed twice.", "MM-SETUP-1")
        nests[nest_id] = nest_string([letters.count(letter) for letter in TILE_LETTERS])
    return nests


def tie_break(state: MagpiesState) -> str | None:
    """How the top score's tie was settled (MM-WIN-2, MM-WIN-3): None (no tie), "rings" (more rings), "gold"
    (rings equal too, more gold rings) or "shared" (a shared win)."""
    top = max(state.scores())
    tied = [p for p in range(state.game.num_players) if state.scores()[p] == top]
    if len(tied) < 2:
        return None
    if len(state.winners()) > 1:
        return "shared"
    rings = {state.rank_key(p)[1] for p in tied}
    return "rings" if len(rings) > 1 else "gold"


class MagpiesTextView(TextView):
    def render(self, state: State) -> str:
        assert isinstance(state, MagpiesState)
        lines = ["Mighty Magpies" + (" (young variant: every tile 1 point)" if state.game.variant == "young" else "")]
        lines.append("Nests (b berry, s silver ring, g gold ring, . taken; routes: id colour -> nest):")
        for nest, nest_id in enumerate(B.nest_ids):
            cap = B.capacity[nest]
            tiles = nest_string(state.nest_tiles(nest))
            shown = " ".join(tiles + "." * (cap - len(tiles))) if cap else "(start)"
            birds = [state.player_name(p) for p in range(state.game.num_players) if state.position(p) == nest]
            routes = []
            for colour, hops in enumerate(B.exits[nest]):
                for route, other in hops:
                    routes.append(f"{B.route_ids[route]} {B.colours[colour]}->{B.nest_ids[other]}")
            lines.append(f"  {nest_id} {shown:<9} magpies: {', '.join(birds) or '-':<14} routes: {', '.join(routes)}")
        lines.append("Players:")
        width = max(len(p) for p in state.game.players)
        for p, name in enumerate(state.game.players):
            berries, silver, gold = state.holdings(p)
            lines.append(
                f"  {name:<{width}}  in nest {B.nest_ids[state.position(p)]}  berries {berries}  silver {silver}  "
                f"gold {gold}  = {plural(state.scores()[p], 'point')}"
            )
        if state.is_terminal():
            lines.append("All tiles are taken: the game is over.")
        elif state.phase == "setup":
            lines.append("Set-up: fill the nests.")
        elif state.phase == "roll":
            lines.append(f"{state.player_name(state.player)} to roll ({plural(state.tiles_left(), 'tile')} left in the nests).")
        else:
            lines.append(f"{state.player_name(state.player)} rolled {' + '.join(state.dice or ())}.")
        return "\n".join(lines)

    def parse_chance(self, state: State, text: str) -> Action:
        assert isinstance(state, MagpiesState)
        if state.phase == "setup":
            return {"type": "setup", "nests": parse_setup(text)}
        if state.phase == "roll":
            return state.chance_action(parse_faces(text))
        raise InvalidAction("No roll is expected now: choose a move by its number.", "MM-PLAY-2")

    def choice_group(self, state: State, action: Action) -> tuple[str, ...]:
        """Turns by their first flight."""
        assert isinstance(state, MagpiesState)
        steps = action.get("steps") or []
        if action.get("type") != "turn" or not steps:
            return ()
        route = ROUTE_INDEX[steps[0]["route"]]
        a, b = ROUTE_ENDS[route]
        here = state.position(state.player)
        there = b if here == a else a
        return (f"First fly {B.colours[B.route_colour[route]]} {steps[0]['route']} "
                f"{B.nest_ids[here]}->{B.nest_ids[there]}",)

    def typing_help(self, state: State) -> list[str]:
        return [
            "At the set-up prompt: each nest and its tiles, e.g. 'A bbbs B bbbg ...' (b berry, s silver ring,",
            "  g gold ring).",
            f"At a roll prompt: the two faces of the colour dice, e.g. 'red magpie' or 'r m' ({', '.join(FACES)}).",
            "At a choice: the number of a turn: where the magpie flies, what it takes, and after a magpie",
            "  face whose berries it steals (stealing is optional).",
        ]

    def coach(self, state: State) -> list[str]:
        assert isinstance(state, MagpiesState)
        if state.phase == "roll":
            chance = chance_of_points(state)
            return [f"{state.player_name(state.player)} has a {chance:.0%} chance to roll a scoring turn."]
        if state.phase != "move":
            return []
        ranked = rank_turns(state)
        gain, loss, best = ranked[0]
        if gain == 0:
            return ["No choice brings points this turn."]
        extra = f", opponents -{loss}" if loss else ""
        equal = sum(1 for g, lo, _ in ranked if (g, lo) == (gain, loss))
        tail = f" ({equal} choices are as good)" if equal > 1 else ""
        unit = "point" if gain == 1 else "points"
        return [f"Best now: {state.action_to_string(best)} (+{gain} {unit}{extra}){tail}."]

    def final_table(self, state: State) -> str:
        assert isinstance(state, MagpiesState)
        young = state.game.variant == "young"
        width = max(len(p) for p in state.game.players)
        lines = [f"  {'Player':<{width}}  berries  silver  gold  rings  points"]
        for p, name in enumerate(state.game.players):
            berries, silver, gold = state.holdings(p)
            if young:
                sets = "each tile 1"
            else:
                sets = f"silver {ring_points(silver)} + gold {ring_points(gold)}"
            lines.append(
                f"  {name:<{width}}  {berries:>7}  {silver:>6}  {gold:>4}  {silver + gold:>5}  "
                f"{state.scores()[p]:>6g}   (ring sets: {sets})"
            )
        winners = state.winners()
        names = ", ".join(state.game.players[w] for w in winners) or "nobody yet"
        reason = {
            None: "",
            "rings": " (tie on points broken by more rings)",
            "gold": " (tie on points and rings broken by more gold rings)",
            "shared": " (tied on points, rings and gold rings: a shared win)",
        }[tie_break(state)]
        return "\n".join(lines) + f"\nWinner: {names}{reason}"


# --- other languages (companion.games.i18n): the words come from i18n/<lang>.json -------------------
def action_words(state: State, action: Action, t) -> str:
    """A move described from its fields with the templates of ``t`` (a :class:`companion.games.i18n.Texts`)."""
    assert isinstance(state, MagpiesState)
    kind = action.get("type")
    if kind == "roll":
        return t.text("roll", faces=" + ".join(t.term(f"face.{f}") for f in action["faces"]))
    if kind == "setup":
        return t.text("setup", nests=", ".join(f"{n} {tiles}" for n, tiles in action["nests"].items()))
    if kind != "turn":
        raise KeyError(kind)
    me = state.player
    pos = state.position(me)
    parts: list[str] = []
    for step in action.get("steps", ()):
        r = ROUTE_INDEX[step["route"]]
        a, b = ROUTE_ENDS[r]
        dest = b if pos == a else a
        words = dict(colour=t.term(f"route.{B.colours[B.route_colour[r]]}"), route=step["route"],
                     frm=B.nest_ids[pos], to=B.nest_ids[dest])
        take = step.get("take")
        if take is not None:
            parts.append(t.text("flight", tile=t.term(f"take.{take}"), **words))
        else:
            parts.append(t.text("flight_empty", **words))
        pos = dest
    if not parts:
        parts.append(t.text("stay", nest=B.nest_ids[pos]))
    for victim in action.get("steal", ()):
        if isinstance(victim, dict):
            victim = victim.get("player")
        parts.append(t.text("steal", player=state.player_name(victim)))
    if not action.get("steal") and state.could_steal():
        parts.append(t.text("steal_none"))
    return t.text("turn", name=state.player_name(me), parts="; ".join(parts))


def prompt_words(state: State, t) -> str:
    """What the chance node waits for (as ``MagpiesState.chance_request().prompt``)."""
    assert isinstance(state, MagpiesState)
    if state.phase == "setup":
        sizes = ", ".join(f"{n} {B.capacity[B.nest_index(n)]}" for n in TILE_NEST_IDS)
        return t.text("prompt_setup", sizes=sizes)
    if state.phase == "roll":
        return t.text("prompt_roll", name=state.player_name(state.player))
    raise KeyError(state.phase)


def final_words(state: State, t) -> str:
    """The final table with the ring sets and how a tie was broken (as ``MagpiesTextView.final_table``)."""
    assert isinstance(state, MagpiesState)
    young = state.game.variant == "young"
    label = t.text("final_player")
    width = max(len(p) for p in state.game.players + [label])
    lines = [t.text("final_header", player=f"{label:<{width}}")]
    for p, name in enumerate(state.game.players):
        berries, silver, gold = state.holdings(p)
        sets = t.text("final_young") if young else t.text("final_sets", silver=ring_points(silver), gold=ring_points(gold))
        lines.append(t.text("final_row", player=f"{name:<{width}}", berries=berries, silver=silver, gold=gold,
                            rings=silver + gold, points=f"{state.scores()[p]:g}", sets=sets))
    winners = state.winners()
    names = ", ".join(state.game.players[w] for w in winners) or t.text("final_nobody")
    tie = tie_break(state)
    reason = t.text(f"tie_{tie}") if tie else ""
    return "\n".join(lines) + "\n" + t.text("final_winner", names=names, reason=reason)


def coach_words(state: State, t) -> list[str]:
    """The coach's advice (as ``MagpiesTextView.coach``)."""
    assert isinstance(state, MagpiesState)
    if state.phase == "roll":
        chance = f"{chance_of_points(state):.0%}".replace("%", " %")
        return [t.text("coach_chance", name=state.player_name(state.player), chance=chance)]
    if state.phase != "move":
        return []
    ranked = rank_turns(state)
    gain, loss, best = ranked[0]
    if gain == 0:
        return [t.text("coach_nothing")]
    extra = t.text("coach_loss", loss=loss) if loss else ""
    equal = sum(1 for g, lo, _ in ranked if (g, lo) == (gain, loss))
    tail = t.text("coach_equal", count=equal) if equal > 1 else ""
    unit = t.text("coach_point" if gain == 1 else "coach_points")
    return [t.text("coach_best", move=action_words(state, best, t), gain=gain, unit=unit, extra=extra, tail=tail)]


__all__ = ["MagpiesTextView", "parse_faces", "parse_setup", "MAGPIE_FACE", "TILE_KINDS"]


def board_words(state: State, t) -> str:
    """The nests, magpies and players as text (as ``MagpiesTextView.render``), every word from ``t``."""
    assert isinstance(state, MagpiesState)
    lines = [t.text("board_title_young" if state.game.variant == "young" else "board_title")]
    lines.append(t.text("board_nests"))
    for nest, nest_id in enumerate(B.nest_ids):
        cap = B.capacity[nest]
        tiles = nest_string(state.nest_tiles(nest))
        shown = " ".join(tiles + "." * (cap - len(tiles))) if cap else t.text("board_start")
        birds = [state.player_name(p) for p in range(state.game.num_players) if state.position(p) == nest]
        routes = []
        for colour, hops in enumerate(B.exits[nest]):
            for route, other in hops:
                routes.append(f"{B.route_ids[route]} {t.term(f'face.{B.colours[colour]}')}->{B.nest_ids[other]}")
        lines.append(t.text("board_nest", nest=nest_id, tiles=f"{shown:<9}", magpies=f"{', '.join(birds) or '-':<14}",
                            routes=", ".join(routes)))
    lines.append(t.text("board_players"))
    width = max(len(p) for p in state.game.players)
    for p, name in enumerate(state.game.players):
        berries, silver, gold = state.holdings(p)
        lines.append(t.text("board_player", name=f"{name:<{width}}", nest=B.nest_ids[state.position(p)],
                            berries=berries, silver=silver, gold=gold, points=t.count(state.scores()[p], "n.point")))
    if state.is_terminal():
        lines.append(t.text("board_over"))
    elif state.phase == "setup":
        lines.append(t.text("board_setup"))
    elif state.phase == "roll":
        lines.append(t.text("board_roll", name=state.player_name(state.player), tiles=t.count(state.tiles_left(), "n.tile_left")))
    else:
        faces = " + ".join(t.term(f"face.{f}") for f in state.dice or ())
        lines.append(t.text("board_rolled", name=state.player_name(state.player), faces=faces))
    return "\n".join(lines)
