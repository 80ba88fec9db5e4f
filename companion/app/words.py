"""Plain words for the family (no Kivy import): every space named as families say it at the table.

The rules, the journal and the board maps speak in ids (``feather-left-3``, ``a3-a4``, ``(0, -1)``,
``b1 R->C``, the owl ``Rb``); a family should never have to read one. Each game's
``i18n/spaces.json`` names its spaces in every language, side by side (the nests and the cave by
name, grid spaces by row and column as printed, owls by head and body colour). :func:`plain` swaps
the ids in a move's words (the engines' English, or a game's German) for those names;
:func:`space_name` names one space (the lists and the messages).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from typing import Any

from companion.games.i18n import package_dir

FILE = "spaces.json"
EK_ID = r"(?<![\w-])({ids})(?![\w-])"
VE_SPACE = re.compile(r"(?<![\w-])([a-e][1-5](?:-[a-e][1-5])?)(?![\w-])")
VE_NOTE = re.compile(r" \(([a-e][1-5])\)")  # "into the cave (c3)": the id after a name says nothing more
VE_OWL = re.compile(r"(?<![\w-])([RBGYK])([rbgyk])(?![\w-])")
MM_FLIGHT = re.compile(r"\b[yrbg]\d+ ([RA-G])->([RA-G])\b")
MM_NEST = re.compile(r"\b[Nn]est ([RA-G])\b")
FA_MOVE = re.compile(r"\((-?\d+), ?(-?\d+)\) ?-> ?\((-?\d+), ?(-?\d+)\)")
FA_CELL = re.compile(r"\((-?\d+), ?(-?\d+)\)")
FA_REGION = re.compile(r"^x(-?\d+)y(-?\d+)$")


@cache
def spaces(game: str) -> dict[str, Any]:
    """The game's ``i18n/spaces.json`` (empty when it has none)."""
    try:
        path = package_dir(game) / "i18n" / FILE
    except Exception:  # not a registered game (a test's toy game)
        return {}
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def _lang(game: str, lang: str) -> dict[str, Any]:
    data = spaces(game)
    return data.get(lang) or data.get("en") or {}


@cache
def _ve_cells() -> dict[str, tuple[int, int]]:
    board = json.loads((package_dir("verzauberte-eulen") / "board.json").read_text(encoding="utf-8"))
    return {s["id"]: (int(s["cell"][0]), int(s["cell"][1])) for s in board["spaces"]}


def falconry_cell(x: int, y: int, lang: str) -> str:
    data = spaces("falconry")
    origin = data.get("origin", {"column": 5, "row": 4})
    return _lang("falconry", lang)["space"].format(column=x + origin["column"], row=y + origin["row"])


def space_name(game: str, space: Any, lang: str) -> str:
    """The plain name of ``space`` (a region or piece id; Falconry also takes ``[x, y]``); the id itself
    for a space the data does not name."""
    words = _lang(game, lang)
    if game == "falconry":
        if isinstance(space, list | tuple) and len(space) == 2:
            return falconry_cell(int(space[0]), int(space[1]), lang)
        match = FA_REGION.match(str(space))
        return falconry_cell(int(match.group(1)), int(match.group(2)), lang) if match else str(space)
    name = words.get("names", {}).get(str(space))
    if name is not None:
        return name
    if game == "verzauberte-eulen" and str(space) in _ve_cells():
        column, row = _ve_cells()[str(space)]
        return words["space"].format(column=column + 1, row=row + 1)
    return str(space)


def owl_name(code: str, lang: str) -> str:
    """A Verzauberte Eulen owl (``Rb``: red head on a blue body) in words."""
    words = _lang("verzauberte-eulen", lang)
    colours = words["colours"]
    return words["owl"].format(head=colours[code[0].upper()], body=colours[code[1].upper()])


def _ek(text: str, lang: str) -> str:
    names = _lang("eagle-kingdoms", lang).get("names", {})
    return _ek_pattern(tuple(names)).sub(lambda m: names[m.group(1)], text)


@cache
def _ek_pattern(ids: tuple[str, ...]) -> re.Pattern:
    return re.compile(EK_ID.format(ids="|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))))


def _ve(text: str, lang: str) -> str:
    text = VE_NOTE.sub("", text)
    text = VE_OWL.sub(lambda m: owl_name(m.group(0), lang), text)
    return VE_SPACE.sub(lambda m: space_name("verzauberte-eulen", m.group(1), lang), text)


def _mm(text: str, lang: str) -> str:
    words = _lang("mighty-magpies", lang)
    names = words["names"]
    text = MM_FLIGHT.sub(lambda m: words["flight"].format(frm=names[m.group(1)], to=names[m.group(2)]), text)
    return MM_NEST.sub(lambda m: names[m.group(1)], text)


def _fa(text: str, lang: str) -> str:
    words = _lang("falconry", lang)
    text = FA_MOVE.sub(lambda m: words["move"].format(frm=falconry_cell(int(m.group(1)), int(m.group(2)), lang),
                                                     to=falconry_cell(int(m.group(3)), int(m.group(4)), lang)), text)
    return FA_CELL.sub(lambda m: falconry_cell(int(m.group(1)), int(m.group(2)), lang), text)


PLAIN: dict[str, Callable[[str, str], str]] = {"eagle-kingdoms": _ek, "verzauberte-eulen": _ve,
                                               "mighty-magpies": _mm, "falconry": _fa}


SENTENCE_START = re.compile(r"(^|[.!?] )(\w)")


def sentence_case(text: str) -> str:
    """Each sentence of ``text`` begins with a capital (a refusal that begins with a space's name: "unterste
    Schwanzfeder 4 ist ..." -> "Unterste ...")."""
    return SENTENCE_START.sub(lambda m: m.group(1) + m.group(2).upper(), text)


def capitalised(name: str) -> str:
    """A name that begins a label ("left beak: ?" -> "Left beak: ?"); the rest as it is."""
    return name[:1].upper() + name[1:]


def plain(game: str, text: str, lang: str) -> str:
    """``text`` (a move, a refusal, a prompt) with every space id, cell and owl code in plain words."""
    swap = PLAIN.get(game)
    return swap(text, lang) if swap and text else text


RAW_IDS = re.compile("|".join((
    r"\b(?:plume|crown|beak|head|feather|covert|wing|leg|tail|sceptre|orb|neck)-[a-z0-9-]+",  # Eagle Kingdoms' pieces
    r"\(-?\d+, ?-?\d+\)|\bx-?\d+y-?\d+\b",  # Falconry's cells
    r"(?<![\w-])[a-e][1-5](?:-[a-e][1-5])?(?![\w-])|(?<![\w-])[RBGYK][rbgyk](?![\w-])",  # Verzauberte Eulen's spaces, owls
    r"\b[yrbg]\d\b|\b[Nn]est [RA-G]\b",  # Mighty Magpies' routes and nests
)))


def raw_id(text: str) -> str:
    """The first space id, cell or owl code in ``text`` (what a family should never have to read), or ""."""
    match = RAW_IDS.search(text)
    return match.group(0) if match else ""
