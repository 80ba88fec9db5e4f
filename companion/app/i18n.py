"""Translations: one flat JSON file per locale in ``i18n/``, namespaced keys ("home:title").

Placeholders use ``str.format`` names (``{player}``); ``check()`` reports missing keys and
mismatched placeholders between locales (the test suite runs it). No Kivy import; the app
re-reads texts when ``set_language`` fires its listeners.
"""

from __future__ import annotations

import json
import string
from collections.abc import Callable
from functools import cache
from pathlib import Path

FOLDER = Path(__file__).resolve().parent / "i18n"
DEFAULT = "en"
LANGUAGES = {"en": "English", "de": "Deutsch"}

_current = DEFAULT
_listeners: list[Callable[[str], None]] = []


@cache
def catalogue(lang: str) -> dict[str, str]:
    path = FOLDER / f"{lang}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if not k.startswith("_")}


def language() -> str:
    return _current


def set_language(lang: str) -> None:
    global _current
    if lang not in LANGUAGES:
        raise ValueError(f"Unknown language {lang!r}; choose one of: {', '.join(LANGUAGES)}.")
    _current = lang
    for listener in list(_listeners):
        listener(lang)


def on_change(listener: Callable[[str], None]) -> None:
    _listeners.append(listener)


ONE = "|one"  # "key|one": the text of ``key`` when its ``count`` is 1 ("1 move" / "3 moves", "1 Zug" / "3 Züge")


def spoken_list(items, lang: str | None = None) -> str:
    """Items as said: "a, b and c" ("a, b und c"); one item alone, none empty."""
    items = [str(i) for i in items]
    if len(items) < 2:
        return "".join(items)
    return tr("list:and", lang, rest=", ".join(items[:-1]), last=items[-1])


def tr(key: str, lang: str | None = None, **params) -> str:
    """The text of ``key`` in the current language (English, then the key itself, as fallbacks); with
    ``count=1`` the key's singular (``key|one``) when the catalogue has one."""
    if params.get("count") == 1 and (ONE_KEY := key + ONE) in catalogue(DEFAULT):
        key = ONE_KEY
    text = catalogue(lang or _current).get(key)
    if text is None:
        text = catalogue(DEFAULT).get(key, key)
    if params:
        try:
            return text.format(**params)
        except (KeyError, IndexError, ValueError):
            return text
    return text


def camera_words(status: str, lang: str | None = None) -> str:
    """A status of the camera's readers (English words from vision: "board found", "too dark: mean brightness
    ...") in ``lang``: the catalogue's ``status:<words>``, else the words before a colon, a dash or a bracket
    (their English detail left out), else a status after the colon ("board pose: too dark"), else the status as
    it is."""
    text = str(status or "")
    words_of = catalogue(lang or _current)
    for words in (text, *(text.partition(mark)[0].strip() for mark in (":", " - ", " ("))):
        found = words_of.get(f"status:{words}")
        if found is not None:
            return found + text[len(words):] if words != text and (lang or _current) == DEFAULT else found
    return words_of.get(f"status:{text.partition(': ')[2]}", text)


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def check() -> list[str]:
    """Every problem between the locales: missing keys, mismatched placeholders."""
    problems = []
    base = catalogue(DEFAULT)
    for lang in LANGUAGES:
        other = catalogue(lang)
        for key in sorted(set(base) - set(other)):
            problems.append(f"{lang}: missing key {key}")
        for key in sorted(set(other) - set(base)):
            problems.append(f"{lang}: extra key {key} (not in {DEFAULT})")
        for key in sorted(set(base) & set(other)):
            if placeholders(base[key]) != placeholders(other[key]):
                problems.append(f"{lang}: placeholders of {key} differ: {sorted(placeholders(other[key]))} vs {sorted(placeholders(base[key]))}")
    return problems
