"""The home screen: choose a game, its players and options, resume a journal, the demo, set-up and the scoring
tools.

A game's rules options (``Game.options_spec``: Verzauberte Eulen's colours and corners, Falconry's colours and
who starts, the house rules...) are offered as plain choices -- a switch, a list, one list per player -- under
"Options", folded away until asked for; a choice left on "as the rules say" is not sent, so the game's own
default holds. The core checks every value (a refused one is said, and the game does not start).
"""

from __future__ import annotations

from typing import Any

from kivy.factory import Factory
from kivy.metrics import dp
from kivy.properties import BooleanProperty, ListProperty, StringProperty
from kivy.uix.spinner import Spinner
from kivy.uix.stacklayout import StackLayout
from kivy.uix.togglebutton import ToggleButton

from companion.app import theme
from companion.app.i18n import spoken_list, tr
from companion.app.screens.base import AppScreen, big_button, esc, wrap_label
from companion.games.core import GameError
from companion.games.registry import load_game

DEFAULT = "-"  # an option left to the rules


def _word(kind: str, game: str, name: str) -> str:
    """A game's mode, variant, option or choice in the family's language (``kind:game:name``), else its name."""
    key = f"{kind}:{game}:{name}"
    return tr(key) if tr(key) != key else name


class HomeScreen(AppScreen):
    message = StringProperty("")
    start_message = StringProperty("")
    game_title = StringProperty("")
    options_open = BooleanProperty(False)
    colours = ListProperty([0, 1, 2, 3, 0, 1])

    def on_pre_enter(self, *args):
        self.refresh()

    def refresh(self) -> None:
        games = self.controller.games()
        self._games = {tr(f"game:{g['name']}"): g for g in games}
        spinner = self.ids.game
        chosen = self.chosen_game()
        spinner.values = list(self._games)
        title = next((t for t, g in self._games.items() if g["name"] == chosen), None)
        spinner.text = title or (spinner.text if spinner.text in self._games else next(iter(self._games), ""))
        self.on_game_chosen(spinner.text)
        box = self.ids.resume
        box.clear_widgets()
        infos = self.controller.unfinished()
        if not infos:
            box.add_widget(wrap_label(esc(tr("home:resume_none")), color=theme.MUTED))
        for info in infos[:6]:
            if info.error:
                box.add_widget(wrap_label(esc(tr("home:broken", name=info.path.name, reason=info.error)), color=theme.WARN))
                if info.damaged_line:  # the family's choice: go on from the last good line (the rest set aside)
                    box.add_widget(big_button(tr("home:continue_damaged", name=info.path.name, line=info.damaged_line - 1),
                                              lambda p=info.path: self.shell.resume(p, continue_from_last_good=True)))
                continue
            text = tr("home:resume", game=tr(f"game:{info.game}"), players=spoken_list(info.players), count=info.actions, when=info.modified)
            box.add_widget(big_button(text, lambda p=info.path: self.shell.resume(p)))

    def chosen_game(self) -> str | None:
        """The game chosen in the list (its registry name), if any."""
        game = getattr(self, "_games", {}).get(self.ids.game.text)
        return game["name"] if game else None

    def choose(self, name: str) -> None:
        """Choose the game ``name`` (a registry name) in the list."""
        title = next((t for t, g in getattr(self, "_games", {}).items() if g["name"] == name), None)
        if title:
            self.ids.game.text = title

    def on_game_chosen(self, title: str) -> None:
        game = getattr(self, "_games", {}).get(title)
        if not game:
            return
        self.game_title = title
        options = [tr("home:mode_named", mode=_word("mode", game["name"], m)) for m in game["modes"]] or [tr("home:standard")]
        options += [tr("home:variant_named", variant=_word("variant", game["name"], v)) for v in game["variants"]]
        entries: list[tuple[str, str | None]] = [("mode", m) for m in game["modes"]] or [("", None)]
        entries += [("variant", v) for v in game["variants"]]
        self._modes = dict(zip(options, entries, strict=True))
        self.ids.mode.values = options
        self.ids.mode.text = options[0]
        self.show_colours()
        self.show_options()

    def mode_and_variant(self) -> tuple[str | None, str | None]:
        what, value = getattr(self, "_modes", {}).get(self.ids.mode.text, ("", None))
        return (value if what == "mode" else None), (value if what == "variant" else None)

    def players(self) -> list[str]:
        return [p.strip() for p in self.ids.players.text.split(",") if p.strip()]

    def on_players(self) -> None:
        self.show_colours()
        self.show_options()

    def show_colours(self) -> None:
        box = self.ids.colours
        box.clear_widgets()
        for i, name in enumerate(self.players()[:6]):
            colour = theme.player_colour(self.colours, i)
            button = Factory.ColourChip(text=f"{theme.colour_letter(colour)} {esc(name)}", background_color=colour["rgba"], markup=True,
                                        color=(0, 0, 0, 1) if colour["name"] == "yellow" else (1, 1, 1, 1))
            button.bind(on_release=lambda _b, i=i: self.cycle_colour(i))
            box.add_widget(button)

    def cycle_colour(self, i: int) -> None:
        self.colours[i] = (self.colours[i] + 1) % len(theme.PLAYER_COLOURS)
        self.show_colours()

    # --- the rules options ----------------------------------------------------------------------------------------
    def _spec(self) -> tuple[Any, ...]:
        name = self.chosen_game()
        return load_game(name).game_class.options_spec if name else ()

    def toggle_options(self) -> None:
        self.options_open = not self.options_open
        self.show_options()

    def show_options(self) -> None:
        """The game's options: a button that unfolds them, then one control per option."""
        box = self.ids.options
        box.clear_widgets()
        self._option_widgets: dict[str, list] = {}
        game = self.chosen_game()
        shown = [o for o in self._spec() if self._offered(o)]
        if not game or not shown:
            return
        arrow = "v" if self.options_open else ">"
        box.add_widget(big_button(f"{arrow} {tr('home:options', count=len(shown))}", self.toggle_options))
        if not self.options_open:
            return
        for option in shown:
            box.add_widget(wrap_label(esc(_word("option", game, option.name)), color=theme.MUTED))
            widgets = self._controls(game, option)
            self._option_widgets[option.name] = widgets
            if len(widgets) == 1:
                box.add_widget(widgets[0])
            else:
                row = StackLayout(size_hint_y=None, spacing=dp(4))
                row.bind(minimum_height=row.setter("height"))
                for widget in widgets:
                    row.add_widget(widget)
                box.add_widget(row)

    def _offered(self, option) -> bool:
        mode, _variant = self.mode_and_variant()
        if option.kind == "text":
            return False
        if self.chosen_game() == "falconry" and option.name == "lone":
            return mode == "allied"
        return True

    def _entries(self, game: str, option) -> list[str]:
        """One entry per player (per colour a player plays, in a variant with two each) for a list option."""
        _mode, variant = self.mode_and_variant()
        per_player = 2 if game == "verzauberte-eulen" and variant == "advanced" else 1
        players = self.players() or ["?"]
        return [name if per_player == 1 else f"{name} {k + 1}" for name in players for k in range(per_player)]

    def _controls(self, game: str, option) -> list:
        height = dp(theme.TOUCH_TARGET)
        rules = tr("home:option_default")
        if option.kind == "bool":
            button = ToggleButton(text=tr("home:option_on") if option.default else tr("home:option_off"),
                                  state="down" if option.default else "normal", size_hint_y=None, height=height,
                                  font_size=f"{theme.FONT_SIZE}sp")
            button.bind(state=lambda b, s: setattr(b, "text", tr("home:option_on") if s == "down" else tr("home:option_off")))
            return [button]
        if option.kind == "int":
            values = [str(v) for v in range(option.minimum, option.maximum + 1)]
            return [self._spinner(values, str(option.default), height)]
        if option.kind == "player":
            return [self._spinner([rules] + self.players(), rules, height)]
        words = [rules] + [_word("choice", game, c) for c in option.choices]
        if option.kind == "choice":
            return [self._spinner(words, rules, height)]
        controls = []
        for entry in self._entries(game, option):  # "choices": one list per player
            spinner = self._spinner(words, rules, height, f"{entry}: ")
            controls.append(spinner)
        return controls

    @staticmethod
    def _spinner(values: list[str], text: str, height: float, prefix: str = "") -> Spinner:
        spinner = Spinner(values=values, text=text, size_hint=(1, None) if not prefix else (None, None), height=height,
                          font_size=f"{theme.FONT_SIZE * 0.9}sp", halign="center")
        spinner.prefix = prefix
        if prefix:
            spinner.text = prefix + text
            spinner.values = [prefix + v for v in values]
            spinner.bind(texture_size=lambda s, ts: setattr(s, "width", max(dp(120), ts[0] + dp(24))))
        else:
            spinner.bind(width=lambda s, w: setattr(s, "text_size", (w - dp(8), None)))
        return spinner

    def options(self) -> dict[str, Any]:
        """The options chosen (those left to the rules are not sent)."""
        game = self.chosen_game()
        chosen: dict[str, Any] = {}
        rules = tr("home:option_default")
        for option in self._spec():
            widgets = getattr(self, "_option_widgets", {}).get(option.name)
            if not widgets:
                continue
            if option.kind == "bool":
                value = widgets[0].state == "down"
                if value != option.default:
                    chosen[option.name] = value
            elif option.kind == "int":
                if int(widgets[0].text) != option.default:
                    chosen[option.name] = int(widgets[0].text)
            elif option.kind == "player":
                if widgets[0].text != rules:
                    chosen[option.name] = widgets[0].text
            else:
                reverse = {_word("choice", game, c): c for c in option.choices}
                values = [reverse.get(w.text[len(getattr(w, "prefix", "")):]) for w in widgets]
                if any(values):
                    chosen[option.name] = values if option.kind == "choices" else values[0]
        return chosen

    def start_game(self) -> None:
        game = self._games.get(self.ids.game.text)
        if not game:
            return
        mode, variant = self.mode_and_variant()
        options = self.options()
        if any(isinstance(v, list) and None in v for v in options.values()):
            self.start_message = tr("home:options_incomplete")
            return
        self.start_message = ""
        try:
            self.shell.start_game(game["name"], self.players(), mode, variant, colours=list(self.colours), options=options)
        except GameError as exc:
            self.start_message = tr("home:bad_setup", reason=str(exc))
