"""The engines' texts in other languages, kept as data beside each game (German so far).

English is the engines' own language: ``action_to_string``, the refusals' messages and RULES.md
stay the reference and are never routed through here (``lang="en"`` returns them unchanged).
Another language lives in data files:

- ``companion/games/<game>/i18n/<lang>.json`` (one per game):
  ``"rules"`` rule ID -> one-line statement (every ID of the game's RULES.md);
  ``"sections"`` RULES.md heading -> heading, ``"intro"`` the rules page's first paragraph;
  ``"terms"`` words the game's describer looks up (pieces, colours, dice); a counted noun is
  ``"singular|plural"`` (``"n.point": "Punkt|Punkte"``), read with ``Texts.count``;
  ``"actions"`` ``str.format`` templates of move descriptions, chance prompts, advice and the final table;
  ``"typed"`` (optional) typed word -> the English word the game's parser knows ("rot" -> "red");
  ``"reasons"`` [English refusal pattern, its translation] pairs, read with ``Texts.reason``, and
  ``"reason_words"`` English words in the patterns' groups -> the translation (ids stay for the app).
- ``companion/games/i18n/<lang>.json``: what all games share (refusal sentences).

A game's text view module may define ``action_words(state, action, texts) -> str`` (and
``choice_words`` for menu texts with more detail): language-neutral code that picks a template
and fills it from the action's structured fields, taking every word from ``texts``; likewise
``prompt_words(state, texts)`` (what a chance node waits for), ``coach_words(state, texts)`` (the
advice lines), ``final_words(state, texts)`` (the end-of-game table) and ``board_words(state, texts)``
(the board as text, shown on the scores screen). Anything it cannot describe
falls back to the English text; a refusal without a rule ID keeps its English message. Pure Python:
no app, UI or vision import.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any, cast

from companion.games.core import Action, GameError, State
from companion.games.registry import GAMES, canonical_name

DEFAULT = "en"
LANGUAGES = ("en", "de")
FOLDER = Path(__file__).resolve().parent / "i18n"
RULE_LINE = re.compile(r"^\s*[-*]\s+\*\*([A-Z]{2,3}-[A-Z0-9]+(?:[-.][A-Z0-9]+)*)\*\*")


def package_dir(game: str) -> Path:
    """The folder of a game's package (by registry name or alias)."""
    module = importlib.import_module(GAMES[canonical_name(game)])
    return Path(cast(str, module.__file__)).resolve().parent


@cache
def _read(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if not k.startswith("_")}


def catalogue(game: str, lang: str) -> dict[str, Any]:
    """A game's data file for ``lang`` (empty for English or a missing file)."""
    if lang == DEFAULT:
        return {}
    try:
        folder = package_dir(game)
    except (GameError, ImportError):  # not a registered game (a test's toy game): no texts, English stands
        return {}
    return _read(folder / "i18n" / f"{lang}.json")


def common(lang: str) -> dict[str, str]:
    return {} if lang == DEFAULT else _read(FOLDER / f"{lang}.json")


class Texts:
    """One game's words in one language, for the game's describer."""

    def __init__(self, game: str, lang: str):
        self.game = game
        self.lang = lang
        self.data = catalogue(game, lang)
        self.shared = common(lang)

    def __bool__(self) -> bool:
        return bool(self.data)

    def rule(self, rule_id: str | None) -> str | None:
        return self.data.get("rules", {}).get(rule_id) if rule_id else None

    def term(self, key: str, default: str | None = None) -> str:
        """A word; KeyError without a default (the caller falls back to English)."""
        terms = self.data.get("terms", {})
        if key in terms:
            return terms[key]
        if default is not None:
            return default
        raise KeyError(key)

    def count(self, n: int | float, key: str) -> str:
        """A number with its noun in the right number: the term ``key`` is ``"singular|plural"``
        (``"Figur|Figuren"`` -> ``"1 Figur"``, ``"3 Figuren"``)."""
        one, _, many = self.term(key).partition("|")
        return f"{n:g} {one if n == 1 else (many or one)}"

    def reason(self, english: str) -> str:
        """The why of an English refusal in this language (the game's ``reasons``: an English pattern and its
        translation, the pattern's groups filled in), or "" when none matches. A group's English words
        (a character, a colour, a nest) become the game's ``reason_words``; ids stay for the app to name."""
        for pattern, template in self.data.get("reasons", []):
            match = re.fullmatch(pattern, english)
            if match:
                return template.format(**{k: self._reason_words(v or "") for k, v in match.groupdict().items()})
        return ""

    def _reason_words(self, value: str) -> str:
        words = self.data.get("reason_words", {})
        if value in words or not words:
            return words.get(value, value)
        phrases = sorted(words, key=len, reverse=True)
        swap = re.compile("|".join(rf"(?<![\w-]){re.escape(p)}(?![\w-])" for p in phrases))
        return swap.sub(lambda m: words[m.group(0)], value)

    def text(self, key: str, **params: Any) -> str:
        """A template of the game (``"actions"``), else a shared one, filled with ``params``."""
        template = self.data.get("actions", {}).get(key)
        if template is None:
            template = self.shared[key]
        return template.format(**params)


def texts(game: str, lang: str) -> Texts:
    return Texts(game, lang)


def rule_texts(game: str, lang: str) -> dict[str, str]:
    """Rule ID -> statement in ``lang`` (empty for English: RULES.md is the English text)."""
    return dict(catalogue(game, lang).get("rules", {}))


def rule_text(game: str, rule_id: str | None, lang: str) -> str | None:
    return rule_texts(game, lang).get(rule_id) if rule_id else None


def rule_ids(game: str) -> list[str]:
    """The IDs defined in the game's RULES.md, in order."""
    path = package_dir(game) / "RULES.md"
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    return [m.group(1) for line in text.splitlines() if (m := RULE_LINE.match(line))]


def _describer(state: State, name: str):
    package = importlib.import_module(GAMES[canonical_name(state.game.name)])
    view = getattr(package, "TEXT_VIEW", None)
    module = importlib.import_module(view.__module__) if view is not None else None
    return getattr(module, name, None)


def _localized(state: State, action: Mapping[str, Any], lang: str, choice: bool = False) -> str | None:
    """The game's own words for ``action`` in ``lang``; ``None`` where it has none (or a word is missing)."""
    if lang == DEFAULT or state is None:
        return None
    t = texts(state.game.name, lang)
    if not t:
        return None
    for name in (("choice_words", "action_words") if choice else ("action_words",)):
        words = _describer(state, name)
        if words is None:
            continue
        try:
            return words(state, dict(action), t)
        except Exception:  # a word or template missing, or an action the describer cannot read
            return None
    return None


def describe_action(state: State, action: Mapping[str, Any], lang: str, choice: bool = False) -> str:
    """A move in words in ``lang``. English: ``state.action_to_string`` unchanged. ``choice``: the menu
    text (with the game's extra detail, where it has one). Falls back to the English text."""
    return _localized(state, action, lang, choice) or state.action_to_string(dict(action))


def _game_words(state: State, name: str, lang: str) -> Any:
    """The game's ``name(state, texts)`` in ``lang``; ``None`` for English, a game without it, or a missing word."""
    if lang == DEFAULT or state is None:
        return None
    t = texts(state.game.name, lang)
    words = _describer(state, name) if t else None
    if words is None:
        return None
    try:
        return words(state, t)
    except Exception:  # a word or template missing: the caller shows the English text
        return None


def chance_prompt(state: State, lang: str) -> str | None:
    """What a chance node waits for, in ``lang`` (``ChanceRequest.prompt`` is the English one)."""
    return _game_words(state, "prompt_words", lang)


def final_table(state: State, lang: str) -> str | None:
    """The game's end-of-game table in ``lang`` (the text view's ``final_table`` is the English one)."""
    return _game_words(state, "final_words", lang)


def board_text(state: State, lang: str) -> str | None:
    """The board as text in ``lang`` (the text view's ``render`` is the English one): the game's
    ``board_words(state, texts)``; ``None`` for English, a game without it, or a missing word."""
    return _game_words(state, "board_words", lang)


def coach(state: State, lang: str) -> list[str] | None:
    """The coach's advice in ``lang`` (the text view's ``coach`` is the English one)."""
    lines = _game_words(state, "coach_words", lang)
    return list(lines) if lines is not None else None


def refusal(state: State, action: Action, error: Exception, lang: str, seen: bool = False) -> str | None:
    """The reason of a refused move in ``lang``, naming the broken rule; ``None`` where the English
    message must stand (English, or no rule ID, or no statement of that rule)."""
    rule_id = getattr(error, "rule_id", None)
    if lang == DEFAULT or not rule_id or state is None:
        return None
    t = texts(state.game.name, lang)
    if not t.rule(rule_id):
        return None
    detail = t.reason(getattr(error, "message", str(error)))
    if seen:
        said = t.text("refusal_seen", rule=rule_id)
    else:
        move = _localized(state, action, lang)
        # a malformed action: no words for it, only the rule
        said = t.text("refusal_unread", rule=rule_id) if move is None else t.text("refusal", rule=rule_id, move=move)
    return f"{said} {detail}" if detail else said


def rules_markdown(game: str, lang: str) -> str | None:
    """The game's RULES.md in ``lang``: its headings and one line per rule ID, in the file's order;
    ``None`` for English (the caller shows RULES.md itself) or a game without texts."""
    data = catalogue(game, lang)
    if not data.get("rules"):
        return None
    path = package_dir(game) / "RULES.md"
    out: list[str] = []
    intro_done = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            level, _, heading = line.partition(" ")
            if level == "#":
                out.append(f"# {data.get('title', heading)}")
                if data.get("intro"):
                    out += ["", data["intro"]]
                intro_done = True
            else:
                out += ["", f"{level} {data.get('sections', {}).get(heading.strip(), heading.strip())}", ""]
            continue
        match = RULE_LINE.match(line)
        if match:
            rule_id = match.group(1)
            out.append(f"- **{rule_id}** {data['rules'].get(rule_id, line.split('**', 2)[-1].strip())}")
    if not intro_done and data.get("intro"):
        out.insert(0, data["intro"])
    return "\n".join(out).strip() + "\n"


def missing_rules(game: str, lang: str) -> list[str]:
    """Rule IDs of RULES.md without a text in ``lang``, and texts naming an unknown ID."""
    ids = rule_ids(game)
    have = rule_texts(game, lang)
    problems = [f"{game}: no {lang} text for {i}" for i in ids if not str(have.get(i, "")).strip()]
    problems += [f"{game}: {lang} text for unknown rule {i}" for i in sorted(set(have) - set(ids))]
    return problems


# --- what the screens show of dice, and typed input that cannot be read ------------------------------
def die_label(game: str, role: str, lang: str) -> str:
    """A die's role as shown on screen. ``ChanceRequest.roles`` stay the identifiers (vision matches
    on them); only their display changes: the game's ``"terms"`` ``role.<role>`` (``"Kopf"``), else
    ``role.<first word>`` as a template for the rest (``"challenger Ann"`` -> ``"Herausforderer Ann"``);
    the role itself where there is none (and always in English)."""
    if lang == DEFAULT or not role:
        return role
    terms = catalogue(game, lang).get("terms", {})
    if f"role.{role}" in terms:
        return terms[f"role.{role}"]
    word, _, rest = role.partition(" ")
    template = terms.get(f"role.{word}")
    if template and rest:
        try:
            return template.format(name=rest)
        except (KeyError, IndexError, ValueError):
            return role
    return role


def face_label(game: str, face: Any, lang: str) -> str:
    """A die face as shown on screen: a named face (``"magpie"``) through the game's ``face.<name>``
    term; numbers, English and unknown names as they are. The value sent to the engine is unchanged."""
    if lang == DEFAULT or not isinstance(face, str):
        return str(face)
    return catalogue(game, lang).get("terms", {}).get(f"face.{face}", face)


_WORD = re.compile(r"[^\W\d_]+")


def typed_to_english(game: str, typed: str, lang: str) -> str:
    """Typed input with the family's words swapped for the English ones the game's parser reads
    (``"rot elster"`` -> ``"red magpie"``); numbers, separators and unknown words are kept, so
    English input still works in every language."""
    words = catalogue(game, lang).get("typed") or {}
    if not words:
        return typed
    return _WORD.sub(lambda m: words.get(m.group(0).lower(), m.group(0)), typed)


def english_to_typed(game: str, text: str, lang: str) -> str:
    """The reverse, for examples shown to the family: each English word becomes the first word of
    ``lang`` that types it (``"red magpie"`` -> ``"rot elster"``)."""
    reverse: dict[str, str] = {}
    for word, english in (catalogue(game, lang).get("typed") or {}).items():
        reverse.setdefault(english, word)
    if not reverse:
        return text
    return _WORD.sub(lambda m: reverse.get(m.group(0).lower(), m.group(0)), text)


def unreadable(state: State, typed: str, lang: str, dice: bool = False) -> str | None:
    """Why typed input (or a set of dice) is not a move, in ``lang``: that it could not be read and
    what to type instead (the game's prompt and example at a chance node, else the game's
    ``typed_hint`` or the shared one). The parser's English detail is left out: the message is the
    family's language only, and a rule ID the parser named still shows with its statement.
    ``None`` for English or a game without texts (the caller shows the parser's message)."""
    if lang == DEFAULT or state is None:
        return None
    t = texts(state.game.name, lang)
    if not t:
        return None
    try:
        if state.is_chance_node():
            request = state.chance_request()
            prompt = chance_prompt(state, lang) or t.text("unreadable_roll")
            example = english_to_typed(state.game.name, request.example, lang) if request is not None else ""
            hint = t.text("unreadable_example", prompt=prompt, example=example) if example else prompt
        else:
            hint = t.text("typed_hint")
        return t.text("unreadable_dice" if dice else "unreadable", text=typed.strip(), hint=hint)
    except (KeyError, IndexError, ValueError):  # a template missing: the parser's own message stands
        return None
