"""Checking what a person types or passes: numbers, names, options and typed lines.

One rule everywhere: only the ASCII digits 0-9 count as numbers ("²", "٣" or "１" do not), every
number has a range, and a refusal is one plain line (:class:`InputError`, a ``ValueError``) that
names what was wrong, so the caller can show it and leave its state unchanged.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import unicodedata
from typing import Any

MAX_LINE = 2000
"""Longest typed line the referee reads (a move or a roll is a few words; a pasted Eagle Kingdoms set-up
is about 1,200 characters)."""
MAX_NESTING = 8
"""Deepest brackets in a typed line (a pasted set-up is one JSON object)."""
MAX_DIGITS = 6
"""Longest number in a typed line (menus and dice need one or two digits)."""
MAX_NAME = 40
_INT = re.compile(r"-?[0-9]+", re.ASCII)
_DECIMAL = re.compile(r"-?([0-9]+(\.[0-9]*)?|\.[0-9]+)", re.ASCII)
_OPTION_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,39}", re.ASCII)


class InputError(ValueError):
    """Input that is refused; ``str()`` is the one-line reason."""


def _shown(text: str, limit: int = 30) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


def foreign_digit(text: str) -> str | None:
    """The first character that Python would read as a digit but is not one of 0-9, or None."""
    return next((ch for ch in text if (ch.isdigit() or ch.isdecimal() or ch.isnumeric()) and not ch.isascii()), None)


def typed_problem(text: str) -> str | None:
    """Why a typed line cannot be read at all (None when it can be handed to a game's parser)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "that line is not valid text (UTF-8); type it again."
    if len(text) > MAX_LINE:
        return f"that line is {len(text)} characters long; a move or a roll takes a few words (at most {MAX_LINE})."
    if _nesting(text) > MAX_NESTING:
        return f"that line has brackets nested more than {MAX_NESTING} deep; nothing typed here needs that."
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") for ch in text):
        return "that line has control characters in it; type plain words and numbers."
    odd = foreign_digit(text)
    if odd is not None:
        return f"only the digits 0-9 count as numbers; {odd!r} is not one of them."
    longest = max((len(run) for run in re.findall(r"[0-9]+", text, re.ASCII)), default=0)
    if longest > MAX_DIGITS:
        return f"a number of {longest} digits is far too big here; menus and dice need one or two digits."
    return None


def argparse_type(convert):
    """An argparse ``type`` from a converter that raises InputError (argparse puts the option's name first)."""
    def parse(text: str):
        try:
            return convert(text)
        except InputError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    parse.__name__ = getattr(convert, "__name__", "value")
    return parse


def int_argument(low: int, high: int):
    """argparse ``type``: a whole number from ``low`` to ``high`` written with 0-9."""
    return argparse_type(lambda text: ascii_int(text, "the value", low, high))


def decimal_argument(low: float, high: float):
    """argparse ``type``: a number such as 0.5 from ``low`` to ``high`` written with 0-9 (no nan, inf or 1e3)."""
    return argparse_type(lambda text: ascii_decimal(text, "the value", low, high))


def _not_a_number(raw: str, what: str, wanted: str) -> str:
    odd = foreign_digit(raw)
    if odd is not None:
        return f"{what}: only the digits 0-9 count as numbers, and {odd!r} is not one of them."
    return f"{what} must be {wanted}; got {_shown(raw)}."


def _nesting(text: str) -> int:
    depth = deepest = 0
    for ch in text:
        if ch in "[{(":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]})":
            depth = max(0, depth - 1)
    return deepest


def ascii_int(text: Any, what: str, low: int, high: int) -> int:
    """A whole number written with 0-9 (an optional minus), in [low, high]. ``what`` names it at the
    start of the message ("--games", "the value")."""
    raw = str(text).strip()
    if not _INT.fullmatch(raw):
        raise InputError(_not_a_number(raw, what, f"a whole number from {low} to {high}"))
    if len(raw.lstrip("-")) > len(str(max(abs(low), abs(high)))) + 1:
        raise InputError(f"{what} must be from {low} to {high}; got a number of {len(raw.lstrip('-'))} digits.")
    value = int(raw)
    if not low <= value <= high:
        raise InputError(f"{what} must be from {low} to {high}; got {value}.")
    return value


def ascii_decimal(text: Any, what: str, low: float, high: float) -> float:
    """A number such as 0.5 or 2 written with 0-9 and a point, in [low, high] (no nan, inf or exponents)."""
    raw = str(text).strip()
    if not _DECIMAL.fullmatch(raw) or len(raw) > 20:
        raise InputError(_not_a_number(raw, what, f"a number from {low:g} to {high:g}, such as 0.5"))
    value = float(raw)
    if not (math.isfinite(value) and low <= value <= high):
        raise InputError(f"{what} must be from {low:g} to {high:g}; got {raw}.")
    return value


def check_name(name: str, what: str = "a player's name") -> str:
    """A name as shown on the screen: printable, not empty, at most MAX_NAME characters."""
    name = str(name).strip()
    if not name:
        raise InputError(f"{what} must not be empty.")
    if len(name) > MAX_NAME:
        raise InputError(f"{what} is {len(name)} characters long; at most {MAX_NAME}: {_shown(name)}.")
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") for ch in name):
        raise InputError(f"{what} has control characters in it: {_shown(name)}.")
    return name


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > 9:
        raise InputError(f"a number of {len(text.lstrip('-'))} digits is too big for an option")
    return int(text)


def _json_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise InputError(f"{text} is not a finite number")
    return value


def _reject_constant(name: str) -> Any:
    raise InputError(f"{name} is not a number an option can take")


def option_value(text: str, key: str) -> Any:
    """``--option key=VALUE``'s value: JSON when it reads as JSON (true, 3, ["red", "blue"]), else the
    text itself; refused: nan/inf, numbers of more than 9 digits, digits other than 0-9, deep nesting."""
    where = f"--option {key}"
    if len(text) > MAX_LINE or _nesting(text) > MAX_NESTING:
        raise InputError(f"{where}: the value is too long or nested too deeply.")
    odd = foreign_digit(text)
    if odd is not None:
        raise InputError(f"{where}: only the digits 0-9 count as numbers; {odd!r} is not one of them.")
    try:
        value = json.loads(text, parse_int=_json_int, parse_float=_json_float, parse_constant=_reject_constant)
    except InputError as exc:
        raise InputError(f"{where}: {exc}.") from None
    except (ValueError, RecursionError):
        return text
    return value


def option_pairs(pairs: list[str] | None) -> dict[str, Any]:
    """``--option key=value`` pairs (repeatable) as a dict; InputError for a malformed one."""
    options: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InputError(f"--option takes key=value, got {_shown(pair)}.")
        if not _OPTION_KEY.fullmatch(key):
            raise InputError(f"--option: {_shown(key)} is not an option name (letters, digits, - and _).")
        options[key] = option_value(value.strip(), key)
    return options
