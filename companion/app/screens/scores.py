"""The game's record: the scores with the board as text, the history with undo, the rules, and the end."""

from __future__ import annotations

import re

from kivy.metrics import dp
from kivy.properties import StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.popup import Popup

from companion.app import theme
from companion.app.i18n import spoken_list, tr
from companion.app.screens.base import AppScreen, big_button, esc, wrap_label


def score_table(grid, controller) -> None:
    """Player | points | winner, one row each, in the player's colour and letter."""
    grid.clear_widgets()
    for text in (tr("scores:player"), tr("scores:points"), ""):
        grid.add_widget(_cell(f"[b]{esc(text)}[/b]"))
    for i, (name, score, won) in enumerate(controller.scores()):
        colour = theme.player_colour(controller.colours, i)
        grid.add_widget(_cell(f"[b]{theme.colour_letter(colour)}[/b] {esc(name)}", color=colour["rgba"]))
        grid.add_widget(_cell(f"{score:g}"))
        grid.add_widget(_cell(esc(tr("scores:winner")) if won else ""))


def _cell(text: str, **kw) -> Label:
    label = Label(text=text, markup=True, font_size=f"{theme.FONT_SIZE}sp", halign="left", valign="middle", **kw)
    label.bind(size=lambda lb, s: setattr(lb, "text_size", (s[0] - 4, None)))
    return label


COLUMNS = re.compile(r"\s{2,}")


def table_as_lines(table: str) -> str:
    """An aligned text table (the games' final tables) as one wrapped line per row, "Ann: Face 91, Total 91, ...":
    readable on an upright phone, where a wide table would be cut off. Lines that are not table rows stay."""
    lines = [line for line in table.splitlines() if line.strip()]
    if not lines:
        return ""
    header = COLUMNS.split(lines[0].strip())
    if len(header) < 3:  # not a table: sentences
        return "\n".join(esc(line.strip()) for line in lines)
    out = []
    for line in lines[1:]:
        fields = COLUMNS.split(line.strip())
        if len(fields) < len(header):
            out.append(esc(line.strip()))
            continue
        pairs = [f"{esc(h)} {esc(v)}" for h, v in zip(header[1:], fields[1:len(header)], strict=True)]
        extra = " ".join(fields[len(header):])
        out.append(f"[b]{esc(fields[0])}[/b]: " + ", ".join(pairs) + (f" {esc(extra)}" if extra else ""))
    return "\n".join(out)


class ScoresScreen(AppScreen):
    def on_pre_enter(self, *args):
        score_table(self.ids.table, self.controller)


def rules_markup(markdown: str) -> str:
    out = []
    for line in markdown.splitlines():
        line = esc(line)
        line = re.sub(r"\*\*(.+?)\*\*", r"[b]\1[/b]", line)
        line = re.sub(r"`(.+?)`", r"\1", line)
        if line.startswith("#"):
            line = "[size=24sp][b]" + line.lstrip("# ") + "[/b][/size]"
        out.append(line)
    return "\n".join(out)


class RulesScreen(AppScreen):
    title = StringProperty("")
    rules_text = StringProperty("")

    def on_pre_enter(self, *args):
        self.refresh()

    def refresh(self) -> None:
        self.title = tr("rules:title", game=self.controller.title())
        self.rules_text = rules_markup(self.controller.rules_markdown())
        self.ids.lines.data = [{"text": line} for line in self.rules_text.split("\n") if line.strip()]


class HistoryScreen(AppScreen):
    def on_controller(self, _screen, controller) -> None:
        if controller is not None:
            controller.listeners.append(self.on_game_event)

    def on_game_event(self, event: str, _payload) -> None:
        if event == "changed" and self.shown:
            self.refresh()

    def on_pre_enter(self, *args):
        self.refresh()

    def refresh(self) -> None:
        entries = self.controller.history_entries()
        first = max(0, len(entries) - 80)  # the latest moves; older ones stay in the journal
        lines = [{"text": f"{n}. {esc(text)}"} for n, text in enumerate(entries[first:], start=first + 1)]
        self.ids.lines.data = lines or [{"text": esc(tr("history:empty")), "color": theme.MUTED}]
        self.ids.lines.scroll_y = 0  # the latest moves

    def undo(self, count: int) -> None:
        self.controller.undo(count)
        self.refresh()

    def ask_undo(self, count: int) -> None:
        """Take back ``count`` actions, after the family said yes (several at once are easily regretted)."""
        box = BoxLayout(orientation="vertical", spacing=dp(6), padding=dp(6))
        box.add_widget(wrap_label(esc(tr("history:undo_ask", count=count))))
        row = BoxLayout(size_hint_y=None, height=dp(theme.TOUCH_TARGET), spacing=dp(6))
        popup = Popup(title=tr("history:title"), content=box, size_hint=(0.92, None), height=dp(theme.TOUCH_TARGET * 4.2))

        def yes() -> None:
            popup.dismiss(animation=False)
            self.undo(count)

        row.add_widget(big_button(tr("history:undo_yes", count=count), yes, colour=theme.DANGER))
        row.add_widget(big_button(tr("common:no"), lambda: popup.dismiss(animation=False)))
        box.add_widget(row)
        self.undo_popup = popup
        popup.open()


class EndScreen(AppScreen):
    winner_text = StringProperty("")
    final_text = StringProperty("")

    def on_pre_enter(self, *args):
        self.refresh()

    def refresh(self) -> None:
        ctl = self.controller
        winners = [name for name, _score, won in ctl.scores() if won]
        self.winner_text = esc(tr("end:winner", names=spoken_list(winners)) if winners else tr("end:nobody"))
        score_table(self.ids.table, ctl)
        self.final_text = table_as_lines(ctl.final_table())
