"""Does every text fit, in the family's words? Checks of a shown screen's widgets (Kivy; the UI tests, the tours).

For every visible label and button: its rendered text (the texture) fits inside the widget, and the widget
lies inside the window -- or, inside a scrolling list, inside the list's width (a list scrolls up and down,
never sideways). A text input's hint or text fits its box too. Each problem is one line naming the widget
and its text, so a failing test says what to shorten or where to make room. :func:`in_view`: a widget shown
whole without scrolling; :func:`english_in`: English left on a German screen; :func:`ids_in`: a raw space id.
"""

from __future__ import annotations

import re
from functools import cache

from kivy.core.text import Label as CoreLabel
from kivy.uix.label import Label
from kivy.uix.scrollview import ScrollView
from kivy.uix.textinput import TextInput

SLACK = 1.5  # px: rounding of texture and widget sizes


def _hidden(widget) -> bool:
    while widget is not None:
        if widget.opacity == 0 or widget.width <= 1 or widget.height <= 1:
            return True
        widget = widget.parent
        if widget is not None and widget.parent is widget:  # the window
            break
    return False


def _scroller(widget):
    parent = widget.parent
    while parent is not None and parent is not parent.parent:
        if isinstance(parent, ScrollView):
            return parent
        parent = parent.parent
    return None


def _name(widget) -> str:
    text = getattr(widget, "text", "") or getattr(widget, "hint_text", "")
    return f"{type(widget).__name__} {text[:60]!r}"


def _box(widget) -> tuple[float, float, float, float]:
    x, y = widget.to_window(*widget.pos)
    return x, y, x + widget.width, y + widget.height


def text_width(text: str, font_size: float, font_name: str = "Roboto") -> float:
    label = CoreLabel(text=text, font_size=font_size, font_name=font_name)
    label.refresh()
    return float(label.texture.width) if label.texture is not None else 0.0


def problems(root, window_size: tuple[float, float]) -> list[str]:
    """Every text of ``root`` (a screen) that does not fit, in words (empty: all fit)."""
    found = []
    width, height = window_size
    for widget in root.walk(restrict=True):
        if _hidden(widget):
            continue
        x0, y0, x1, y1 = _box(widget)
        scroller = _scroller(widget)
        if scroller is not None:
            sx0, sy0, sx1, sy1 = _box(scroller)
            if x0 < sx0 - SLACK or x1 > sx1 + SLACK:
                found.append(f"{_name(widget)} overflows its list sideways ({x0:.0f}-{x1:.0f} of {sx0:.0f}-{sx1:.0f})")
        elif isinstance(widget, Label | TextInput) and (x0 < -SLACK or y0 < -SLACK or x1 > width + SLACK or y1 > height + SLACK):
            found.append(f"{_name(widget)} is outside the window ({x0:.0f},{y0:.0f})-({x1:.0f},{y1:.0f})")
        if isinstance(widget, Label) and widget.text:
            tw, th = widget.texture_size
            if tw > widget.width + SLACK or th > widget.height + SLACK:
                found.append(f"{_name(widget)} does not fit: text {tw:.0f}x{th:.0f} in {widget.width:.0f}x{widget.height:.0f}")
            if getattr(widget, "shorten", False) and widget.text_size[0] and text_width(widget.text, widget.font_size,
                                                                                       widget.font_name) > widget.text_size[0] + SLACK:
                found.append(f"{_name(widget)} is cut short")
        elif isinstance(widget, TextInput):
            shown = widget.text or widget.hint_text
            room = widget.width - widget.padding[0] - widget.padding[2]
            if shown and not widget.multiline and text_width(shown, widget.font_size, widget.font_name) > room + SLACK:
                found.append(f"{_name(widget)} does not fit its box ({room:.0f} px)")
    return found


def in_view(widget, window_size: tuple[float, float]) -> bool:
    """``widget`` is shown whole without scrolling: inside the window and inside the visible part of its list."""
    if _hidden(widget):
        return False
    x0, y0, x1, y1 = _box(widget)
    width, height = window_size
    if x0 < -SLACK or y0 < -SLACK or x1 > width + SLACK or y1 > height + SLACK:
        return False
    scroller = _scroller(widget)
    if scroller is None:
        return True
    sx0, sy0, sx1, sy1 = _box(scroller)
    return x0 >= sx0 - SLACK and y0 >= sy0 - SLACK and x1 <= sx1 + SLACK and y1 <= sy1 + SLACK


ENGLISH_WORDS = re.compile(r"\b(the|your|roll|rolls|move|moves|with|from|tap|board found|piece|pieces|dice|turn)\b")


@cache
def _english_texts() -> re.Pattern:
    """The app's English texts that German says otherwise, as one pattern (placeholders match anything)."""
    from companion.app import i18n

    english, german = i18n.catalogue("en"), i18n.catalogue("de")
    parts = []
    for key, text in english.items():
        if german.get(key) == text:
            continue
        literal = [re.escape(p) for p in re.split(r"\{[^}]*\}", text)]
        if sum(len(p.split()) for p in re.split(r"\{[^}]*\}", text)) >= 3:
            parts.append("(?:" + ".*?".join(literal) + ")")
    return re.compile("|".join(parts))


MARKUP = re.compile(r"\[/?[a-z]+[^\]]*\]")


def shown_texts(root):
    """The text of each label and button of ``root``, without its markup."""
    for widget in root.walk(restrict=True):
        text = getattr(widget, "text", "") if isinstance(widget, Label) else ""
        if text:
            yield MARKUP.sub("", text)


def english_in(root) -> list[str]:
    """Every text of ``root`` shown in German mode that is (or holds) one of the app's English texts or an English
    word (a text that was never translated, an engine's English)."""
    found = []
    for text in shown_texts(root):
        match = _english_texts().search(text) or ENGLISH_WORDS.search(text)
        if match:
            found.append(f"English in German mode: {text[:70]!r} ({match.group(0)[:30]!r})")
    return found


def ids_in(root) -> list[str]:
    """Every text of ``root`` that shows a space id, a cell's coordinates or an owl's code."""
    from companion.app.words import raw_id

    return [f"A raw id shown: {text[:70]!r} ({seen!r})" for text in shown_texts(root) if (seen := raw_id(text))]
