"""Small widgets the screens build from Python."""

from __future__ import annotations

from kivy.metrics import dp
from kivy.uix.button import Button
from kivy.uix.label import Label

from companion.app import theme


def big_button(text: str, on_release, colour=None, **kw) -> Button:
    button = Button(text=text, size_hint_y=None, height=dp(theme.TOUCH_TARGET), font_size=f"{theme.FONT_SIZE}sp",
                    background_normal="", background_color=colour or theme.PANEL, **kw)
    button.halign = "left"
    button.valign = "middle"
    button.bind(width=lambda b, w: setattr(b, "text_size", (w - dp(12), None)))
    button.bind(texture_size=lambda b, ts: setattr(b, "height", max(dp(theme.TOUCH_TARGET), ts[1] + dp(12))))
    button.bind(on_release=lambda *_: on_release())
    return button


def wrap_label(text: str, **kw) -> Label:
    label = Label(text=text, size_hint_y=None, markup=True, font_size=f"{theme.FONT_SIZE}sp", **kw)
    label.bind(width=lambda lb, w: setattr(lb, "text_size", (w, None)))
    label.bind(texture_size=lambda lb, s: setattr(lb, "height", s[1] + dp(6)))
    return label


def esc(text: str) -> str:
    return str(text).replace("&", "&amp;").replace("[", "&bl;").replace("]", "&br;")
