"""What every screen is given, and the small widgets they build from Python.

A screen never looks the app up: it is built with what it shows and whom it asks (as in Kivy MVC apps):

- ``controller`` -- the game flow (:class:`companion.app.controller.Controller`); screens that show the
  game observe its events themselves;
- ``session`` -- the camera (:class:`companion.app.camera_session.CameraSession`): the latest picture,
  the board seen, the camera profile;
- ``ui`` -- what every screen shows of the app (:class:`ViewState`): the language and its translator
  (``ui.tr``), the window's shape (``ui.portrait``: lay out for a phone), the camera's state, as Kivy
  properties the kv rules bind to;
- ``shell`` -- the app's navigation and app-wide actions: ``go(screen)``, ``start_game``, ``start_demo``,
  ``resume``, ``toggle_language``, ``toggle_speech``, ``tap_corners``, ``set_camera_profile``, ``board_game``.

Colours and sizes come from the plain-data :mod:`companion.app.theme`.
"""

from __future__ import annotations

from typing import Any

from kivy.event import EventDispatcher
from kivy.metrics import dp
from kivy.properties import BooleanProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label
from kivy.uix.popup import Popup
from kivy.uix.screenmanager import Screen

from companion.app import i18n, theme
from companion.app.camera_session import Overlay


class ViewState(EventDispatcher):
    """What every screen shows of the app, as Kivy properties (the kv rules bind to them), and the translator."""

    lang = StringProperty(i18n.DEFAULT)
    portrait = BooleanProperty(False)  # taller than wide: the phone layout
    speech_label = StringProperty("")
    source_name = StringProperty("")
    camera_live = BooleanProperty(False)  # a real picture source (not the demo): its board pose is tracked
    board_found = BooleanProperty(False)
    board_status = StringProperty("")
    board_source = StringProperty("")  # markers | tracked | tapped (the family's four corners) | none
    view_angle = NumericProperty(0)  # degrees between the table's normal and the camera's view of the board
    view_leaning = BooleanProperty(False)  # so oblique that dice are read poorly: set-up advises
    view_lean_limit = NumericProperty(45)

    def tr(self, key: str, _lang: str | None = None, **params) -> str:
        """The text of ``key``; kv rules pass ``ui.lang`` as ``_lang`` so they are re-read when it changes."""
        return i18n.tr(key, **params)

    def camera_words(self, status: str, _lang: str | None = None) -> str:
        """What the camera and its readers say ("board found", "too dark: ..."), in the family's language."""
        return i18n.camera_words(status)

    def show_camera(self, session) -> None:
        """Take over the camera session's state (after a reading, a new source or profile)."""
        board = session.board
        self.camera_live, self.source_name = session.live, session.name
        self.board_status, self.board_found, self.board_source = board.status, board.found, board.source
        self.view_angle, self.view_leaning, self.view_lean_limit = board.view_angle, board.leaning, board.lean_limit

    def show_speech(self, speaker) -> None:
        """The speech button's words: missing (no voice on this device), on or off."""
        key = "home:speech_missing" if not speaker.available else "home:speech_on" if speaker.enabled else "home:speech_off"
        self.speech_label = i18n.tr(key)


class AppScreen(Screen):
    """A screen built with what it shows and whom it asks (see the module's doc)."""

    controller = ObjectProperty(None)
    session = ObjectProperty(None)
    ui = ObjectProperty(None)
    shell = ObjectProperty(None)

    @property
    def shown(self) -> bool:
        return self.manager is not None and self.manager.current == self.name


class PreviewScreen(AppScreen):
    """A screen with the camera picture (``ids.preview``, when its layout shows one): it says what to draw over it (:meth:`overlay`) and
    takes taps on it (:meth:`tap`, in frame pixels)."""

    _overlay_size: tuple | None = None

    def overlay(self) -> Overlay:
        """What to draw over the picture: by default the dice of the proposal (else of the latest reading)."""
        return Overlay(dice=self.proposal_dice())

    def proposal_dice(self) -> list[dict[str, Any]] | None:
        """The dice to mark: the proposal's, else the latest reading's; each with its value in the family's words."""
        ctl = self.controller
        proposal = ctl.proposal if ctl is not None else None
        if proposal is not None and any(d.box for d in proposal.dice):
            dice = [{"box": d.box, "value": d.value, "uncertain": d.uncertain} for d in proposal.dice]
        else:
            observation = self.session.observation if self.session is not None else {}
            dice = [dict(d) for d in observation.get("dice") or observation.get("live") or []]
        for d in dice:
            d["label"] = ctl.face_label(d.get("value")) if ctl is not None and ctl.module is not None else str(d.get("value"))
        return dice

    def tap(self, x: float, y: float) -> bool:
        return False

    def show_frame(self, frame) -> bool:
        """Per frame: one texture upload (True when this frame was not shown yet). The overlay is rebuilt
        only when something it shows may have changed (the session's ``overlay_dirty``: a reading, proposal,
        highlight, pose, flow or screen) or the picture is shown at another size, and uploaded only when its
        content did; it is drawn at the size the picture is shown, so its marks keep their size on the screen."""
        preview, session = self.ids.get("preview"), self.session
        if preview is None:  # a layout without the picture
            return False
        h, w = frame.image.shape[:2]
        fresh = preview.shown_frame is not frame
        if fresh:
            preview.show(frame.image)
            preview.shown_frame = frame
        scale = shown_scale((w, h), preview.size)
        if session.overlay_dirty or preview.overlay_key is None or ((w, h), scale) != self._overlay_size:
            self._overlay_size = ((w, h), scale)
            session.overlay_dirty = False
            key, draw = session.overlay((w, h), self.overlay(), self.name, scale=scale, unit=dp(1))
            if key != preview.overlay_key:
                preview.set_overlay(draw(), key)
        return fresh


def shown_scale(frame_size: tuple[int, int], widget_size) -> float:
    """Screen px per frame px of a picture fitted whole into a widget (the preview's ``contain``)."""
    w, h = frame_size
    ww, wh = widget_size
    if not (w and h and ww > 1 and wh > 1):
        return 1.0
    return min(ww / w, wh / h)


def big_button(text: str, on_release, colour=None, **kw) -> Button:
    button = Button(text=text, size_hint_y=None, height=dp(theme.TOUCH_TARGET), font_size=f"{theme.FONT_SIZE}sp",
                    background_normal="", background_color=colour or theme.PANEL, **kw)
    button.halign = "left"
    button.valign = "middle"
    button.bind(width=lambda b, w: setattr(b, "text_size", (w - dp(12), None)))
    button.bind(texture_size=lambda b, ts: setattr(b, "height", max(dp(theme.TOUCH_TARGET), ts[1] + dp(12))))
    button.bind(on_release=lambda *_: on_release())
    return button


def choice_popup(title: str, options: list[tuple[str, Any]], on_pick, cols: int, chosen: Any = None, **kw) -> Popup:
    """A popup of one button per ``(label, value)`` in ``cols`` columns (``chosen`` highlighted); a tap closes it
    and calls ``on_pick(value)``. Each button carries its ``value`` (the tours and tests tap by it)."""
    grid = GridLayout(cols=cols, spacing=dp(4), padding=dp(4))
    rows = -(-len(options) // cols)
    popup = Popup(title=title, content=grid, size_hint=(0.95, None), height=dp(theme.TOUCH_TARGET * (rows + 1.3)), **kw)
    for label, value in options:
        button = Button(text=label, font_size=f"{theme.FONT_SIZE * 0.85}sp", halign="center", background_normal="",
                        background_color=theme.CONFIRM if chosen is not None and value == chosen else theme.PANEL)
        button.bind(size=lambda b, size: setattr(b, "text_size", (size[0] - dp(2), None)))
        button.value = value

        def pick(_button, v=value):
            popup.dismiss()
            on_pick(v)

        button.bind(on_release=pick)
        grid.add_widget(button)
    popup.open()
    return popup


def wrap_label(text: str, **kw) -> Label:
    label = Label(text=text, size_hint_y=None, markup=True, font_size=f"{theme.FONT_SIZE}sp", **kw)
    label.bind(width=lambda lb, w: setattr(lb, "text_size", (w, None)))
    label.bind(texture_size=lambda lb, s: setattr(lb, "height", s[1] + dp(6)))
    return label


def esc(text: str) -> str:
    return str(text).replace("&", "&amp;").replace("[", "&bl;").replace("]", "&br;")
