"""The game's record: the scores with the board as text, the history with undo, the rules, and the end."""

from __future__ import annotations

import re

from kivy.properties import StringProperty
from kivy.uix.label import Label

from companion.app import theme
from companion.app.i18n import tr
from companion.app.screens.base import AppScreen, esc, wrap_label


class ScoresScreen(AppScreen):
    board_text = StringProperty("")

    def on_pre_enter(self, *args):
        ctl = self.controller
        grid = self.ids.table
        grid.clear_widgets()
        for text in (tr("scores:player"), tr("scores:points"), ""):
            grid.add_widget(Label(text=f"[b]{text}[/b]", markup=True, font_size=f"{theme.FONT_SIZE}sp"))
        for i, (name, score, won) in enumerate(ctl.scores()):
            colour = theme.player_colour(ctl.colours, i)
            grid.add_widget(Label(text=f"[b]{colour['letter']}[/b] {esc(name)}", markup=True, font_size=f"{theme.FONT_SIZE}sp",
                                  color=colour["rgba"]))
            grid.add_widget(Label(text=f"{score:g}", font_size=f"{theme.FONT_SIZE}sp"))
            grid.add_widget(Label(text=tr("scores:winner") if won else "", font_size=f"{theme.FONT_SIZE}sp"))
        self.board_text = ctl.board_text()


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
        self.title = tr("rules:title", game=self.controller.title())
        self.rules_text = rules_markup(self.controller.rules_markdown())


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
        box = self.ids.entries
        box.clear_widgets()
        entries = self.controller.history_entries()
        if not entries:
            box.add_widget(wrap_label(tr("history:empty"), color=theme.MUTED))
        first = max(0, len(entries) - 80)  # the latest moves; older ones stay in the journal
        for n, text in enumerate(entries[first:], start=first + 1):
            box.add_widget(wrap_label(f"{n:>3}. {esc(text)}"))
        self.ids.scroll.scroll_y = 0

    def undo(self, count: int) -> None:
        self.controller.undo(count)
        self.refresh()


class EndScreen(AppScreen):
    winner_text = StringProperty("")
    final_text = StringProperty("")

    def on_pre_enter(self, *args):
        ctl = self.controller
        winners = [name for name, _score, won in ctl.scores() if won]
        self.winner_text = tr("end:winner", names=", ".join(winners)) if winners else tr("end:nobody")
        self.final_text = ctl.final_table()
