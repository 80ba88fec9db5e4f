"""The scoring screens without a game: "score a kingdom" (Eagle Kingdoms) and "score my tiles" (Mighty
Magpies). Each shows its :class:`companion.app.scoring.Tally`, which keeps the counts, reads them from
the camera picture and says the rules' total."""

from __future__ import annotations

from kivy.metrics import dp
from kivy.properties import StringProperty
from kivy.uix.button import Button
from kivy.uix.label import Label

from companion.app import theme
from companion.app.camera_session import Overlay
from companion.app.scoring import KingdomTally, Tally, TileTally
from companion.app.screens.base import PreviewScreen, esc


class CounterScreen(PreviewScreen):
    """A - / count / + row per kind of its tally, the total, and a reading from the camera picture."""

    total_text = StringProperty("")
    read_message = StringProperty("")
    tally_class: type[Tally] = Tally
    tally: Tally | None = None

    def overlay(self) -> Overlay:
        """What the last reading found, where: each stand's or tile's value on the picture (no dice, no board)."""
        return Overlay(dice=[], points=list(self.tally.points) if self.tally is not None else [])

    def on_pre_enter(self, *args):
        self.refresh()

    def refresh(self) -> None:
        if self.tally is None:
            self.tally = self.tally_class()
        grid = self.ids.rows
        grid.clear_widgets()
        self.count_labels = []
        for k, (label, _limit) in enumerate(self.tally.kinds()):
            name = Label(text=esc(label), markup=True, font_size=f"{theme.FONT_SIZE * 0.9}sp", halign="left", valign="middle")
            name.bind(size=lambda lb, sz: setattr(lb, "text_size", (sz[0], None)))
            grid.add_widget(name)
            minus = Button(text="-", font_size=f"{theme.TITLE_SIZE}sp", size_hint_x=None, width=dp(theme.TOUCH_TARGET))
            minus.bind(on_release=lambda _b, k=k: self.bump(k, -1))
            count = Label(text=str(self.tally.counts[k]), font_size=f"{theme.FONT_SIZE}sp", size_hint_x=None, width=dp(40))
            plus = Button(text="+", font_size=f"{theme.TITLE_SIZE}sp", size_hint_x=None, width=dp(theme.TOUCH_TARGET))
            plus.bind(on_release=lambda _b, k=k: self.bump(k, 1))
            self.count_labels.append(count)
            for w in (minus, count, plus):
                grid.add_widget(w)
        self.update()

    def bump(self, k: int, delta: int) -> None:
        self.tally.bump(k, delta)
        self.update()

    def clear(self) -> None:
        self.tally.clear()
        self.session.overlay_dirty = True
        self.update()

    def read(self) -> bool:
        """Read the counts from the camera picture (what was read is marked on it)."""
        frame = self.session.frame
        ok = self.tally.read(frame.image if frame is not None else None)
        self.session.overlay_dirty = True
        self.update()
        return ok

    def update(self) -> None:
        if self.tally is None or not hasattr(self, "count_labels"):
            return
        for label, n in zip(self.count_labels, self.tally.counts, strict=True):
            label.text = str(n)
        self.total_text = self.tally.total_text()
        self.read_message = self.tally.message


class TallyScreen(CounterScreen):
    """Score a kingdom without a game: count the characters by hand, or read them."""

    tally_class = KingdomTally


class TilesScreen(CounterScreen):
    """Score my tiles (Mighty Magpies): read from the camera picture, or counted by hand."""

    tally_class = TileTally

    def update(self) -> None:
        if self.tally is not None:
            self.tally.young = self.ids.young.state == "down"
        super().update()
