"""The home screen: choose a game and its players, resume a journal, the demo, set-up and the scoring tools."""

from __future__ import annotations

from kivy.properties import ListProperty, StringProperty
from kivy.uix.button import Button

from companion.app import theme
from companion.app.i18n import tr
from companion.app.screens.base import AppScreen, big_button, esc, wrap_label
from companion.games.core import GameError


class HomeScreen(AppScreen):
    message = StringProperty("")
    colours = ListProperty([0, 1, 2, 3, 0, 1])

    def on_pre_enter(self, *args):
        self.refresh()

    def refresh(self) -> None:
        games = self.controller.games()
        self._games = {tr(f"game:{g['name']}"): g for g in games}
        spinner = self.ids.game
        spinner.values = list(self._games)
        if spinner.text not in self._games and self._games:
            spinner.text = next(iter(self._games))
        self.on_game_chosen(spinner.text)
        self.show_colours()
        box = self.ids.resume
        box.clear_widgets()
        infos = self.controller.unfinished()
        if not infos:
            box.add_widget(wrap_label(tr("home:resume_none"), color=theme.MUTED))
        for info in infos[:6]:
            if info.error:
                box.add_widget(wrap_label(esc(tr("home:broken", name=info.path.name, reason=info.error)), color=theme.WARN))
                if info.damaged_line:  # the family's choice: go on from the last good line (the rest set aside)
                    box.add_widget(big_button(tr("home:continue_damaged", name=info.path.name, line=info.damaged_line - 1),
                                              lambda p=info.path: self.shell.resume(p, continue_from_last_good=True)))
                continue
            text = tr("home:resume", game=tr(f"game:{info.game}"), players=", ".join(info.players), count=info.actions, when=info.modified)
            box.add_widget(big_button(text, lambda p=info.path: self.shell.resume(p)))

    def chosen_game(self) -> str | None:
        """The game chosen in the list (its registry name), if any."""
        game = getattr(self, "_games", {}).get(self.ids.game.text)
        return game["name"] if game else None

    def on_game_chosen(self, title: str) -> None:
        game = getattr(self, "_games", {}).get(title)
        if not game:
            return
        options = [f"{tr('home:mode')}: {m}" for m in game["modes"]] or [tr("home:standard")]
        options += [f"{tr('home:variant')}: {v}" for v in game["variants"]]
        self.ids.mode.values = options
        self.ids.mode.text = options[0]

    def players(self) -> list[str]:
        return [p.strip() for p in self.ids.players.text.split(",") if p.strip()]

    def show_colours(self) -> None:
        box = self.ids.colours
        box.clear_widgets()
        for i, name in enumerate(self.players()[:6]):
            colour = theme.player_colour(self.colours, i)
            button = Button(text=f"{colour['letter']} {name}", background_normal="", background_color=colour["rgba"],
                            color=(0, 0, 0, 1) if colour["name"] == "yellow" else (1, 1, 1, 1), font_size=f"{theme.FONT_SIZE}sp")
            button.bind(on_release=lambda _b, i=i: self.cycle_colour(i))
            box.add_widget(button)

    def cycle_colour(self, i: int) -> None:
        self.colours[i] = (self.colours[i] + 1) % len(theme.PLAYER_COLOURS)
        self.show_colours()

    def start_game(self) -> None:
        game = self._games.get(self.ids.game.text)
        if not game:
            return
        choice = self.ids.mode.text
        mode = variant = None
        if ": " in choice:
            what, _, value = choice.partition(": ")
            if what == tr("home:mode"):
                mode = value
            else:
                variant = value
        try:
            self.shell.start_game(game["name"], self.players(), mode, variant, colours=list(self.colours))
        except GameError as exc:
            self.message = tr("home:bad_setup", reason=str(exc))
