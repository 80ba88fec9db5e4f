"""The screens: thin Kivy shells over :class:`~companion.app.controller.Controller` (layout in kv/)."""

from __future__ import annotations

import re
from pathlib import Path

from kivy.app import App
from kivy.metrics import dp
from kivy.properties import BooleanProperty, ListProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.popup import Popup
from kivy.uix.screenmanager import Screen
from kivy.uix.togglebutton import ToggleButton

from companion.app import theme
from companion.app.i18n import tr
from companion.app.scoring import KingdomTally, Tally, TileTally
from companion.games.core import GameError


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


class HomeScreen(Screen):
    message = StringProperty("")
    colours = ListProperty([0, 1, 2, 3, 0, 1])

    def on_pre_enter(self, *args):
        self.refresh()

    def refresh(self) -> None:
        app = App.get_running_app()
        games = app.controller.games()
        self._games = {tr(f"game:{g['name']}"): g for g in games}
        spinner = self.ids.game
        spinner.values = list(self._games)
        if spinner.text not in self._games and self._games:
            spinner.text = next(iter(self._games))
        self.on_game_chosen(spinner.text)
        self.show_colours()
        box = self.ids.resume
        box.clear_widgets()
        infos = app.controller.unfinished()
        if not infos:
            box.add_widget(wrap_label(tr("home:resume_none"), color=theme.MUTED))
        for info in infos[:6]:
            if info.error:
                box.add_widget(wrap_label(esc(tr("home:broken", name=info.path.name, reason=info.error)), color=theme.WARN))
                if info.damaged_line:  # the family's choice: go on from the last good line (the rest set aside)
                    box.add_widget(big_button(tr("home:continue_damaged", name=info.path.name, line=info.damaged_line - 1),
                                              lambda p=info.path: app.resume(p, continue_from_last_good=True)))
                continue
            text = tr("home:resume", game=tr(f"game:{info.game}"), players=", ".join(info.players), count=info.actions, when=info.modified)
            box.add_widget(big_button(text, lambda p=info.path: app.resume(p)))

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
            colour = theme.PLAYER_COLOURS[self.colours[i] % len(theme.PLAYER_COLOURS)]
            button = Button(text=f"{colour['letter']} {name}", background_normal="", background_color=colour["rgba"],
                            color=(0, 0, 0, 1) if colour["name"] == "yellow" else (1, 1, 1, 1), font_size=f"{theme.FONT_SIZE}sp")
            button.bind(on_release=lambda _b, i=i: self.cycle_colour(i))
            box.add_widget(button)

    def cycle_colour(self, i: int) -> None:
        self.colours[i] = (self.colours[i] + 1) % len(theme.PLAYER_COLOURS)
        self.show_colours()

    def start_game(self) -> None:
        app = App.get_running_app()
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
            app.start_game(game["name"], self.players(), mode, variant, colours=list(self.colours))
        except GameError as exc:
            self.message = tr("home:bad_setup", reason=str(exc))


class SetupScreen(Screen):
    """Set up the camera: the live "board found" indicator, "teach the board" and "show each die once".
    The flows are :mod:`companion.app.setup_flow` (UI-free); this screen only forwards taps."""

    flow = StringProperty("")  # "" | "teach" | "dice" | "corners"
    flow_text = StringProperty("")
    profile_text = StringProperty("")
    teaching = None
    registration = None
    corners = None  # setup_flow.CornerTapping while the corners are tapped

    def on_pre_enter(self, *args):
        if not self.flow:
            self.flow_text = tr("setup:teach_start")
        self.show_profiles()

    # --- the camera profile ------------------------------------------------------------------------------------
    def show_profiles(self) -> None:
        app = App.get_running_app()
        self._profiles = {tr("setup:profile_none"): ""}
        session = app.session
        for path in session.profiles():
            self._profiles[path.stem] = str(path)
        spinner = self.ids.profile
        spinner.values = list(self._profiles)
        current = next((k for k, v in self._profiles.items() if v and v == session.profile_path), None)
        if current is None and session.profile_path:  # given on the command line, from elsewhere
            current = Path(session.profile_path).stem
            self._profiles[current] = session.profile_path
        spinner.text = current or tr("setup:profile_none")
        self.profile_text = session.profile_notice or (tr("setup:profile_used", name=session.profile_name)
                                                       if session.profile is not None else tr("setup:profile_off"))

    def choose_profile(self, label: str) -> None:
        app = App.get_running_app()
        path = getattr(self, "_profiles", {}).get(label)
        if path is None or path == app.session.profile_path:
            return
        app.set_camera_profile(path)
        self.show_profiles()

    # --- tap the four corners (no marker found) ----------------------------------------------------------------
    def start_corners(self) -> bool:
        """Tap the board's four corners on the picture: the fallback when the markers cannot be found."""
        from companion.app.calibration import board_map_for
        from companion.app.setup_flow import CornerTapping

        app = App.get_running_app()
        game = self._game()
        if game is None:
            return False
        if app.session.frame is None:
            self.flow, self.flow_text = "", tr("setup:corners_no_picture")
            return False
        info, why = board_map_for(game, app.controller.root)
        if info is None:
            self.flow, self.flow_text = "", why
            return False
        self.corners = CornerTapping(info.map, app.session.lens)
        self.flow, self.flow_text = "corners", self.corners.prompt()
        app.redraw_overlay()
        return True

    def undo_corner(self) -> None:
        if self.flow == "corners" and self.corners is not None:
            self.flow_text = self.corners.undo()
            App.get_running_app().redraw_overlay()

    def flow_button(self) -> None:
        """The flow's second button: this die / skip this space / take back the last corner."""
        {"dice": self.capture_die, "teach": self.skip_space, "corners": self.undo_corner}.get(self.flow, lambda: None)()

    def _game(self) -> str | None:
        game = App.get_running_app().board_game()
        if game is None:
            self.flow, self.flow_text = "", tr("setup:no_camera_flow")
        return game

    def start_teaching(self) -> bool:
        from companion.app.setup_flow import BoardTeaching

        app = App.get_running_app()
        game = self._game()
        if game is None:
            return False
        frame = app.session.frame
        try:
            self.teaching = BoardTeaching(game, app.controller.root, camera=app.session.lens)
        except Exception as exc:  # no board map for this game, or a damaged one: said in plain words
            self.flow, self.flow_text = "", str(exc)
            return False
        if frame is None:
            self.flow, self.flow_text = "", tr("setup:teach_no_board", status=tr("table:manual"))
            return False
        ok, self.flow_text = self.teaching.start(frame.image)
        self.flow = "teach" if ok else ""
        app.redraw_overlay()
        return ok

    def tap(self, x: float, y: float) -> bool:
        """A tap on the preview while teaching (the centre of the space asked for) or tapping the corners."""
        app = App.get_running_app()
        if self.flow == "corners" and self.corners is not None:
            ok, self.flow_text = self.corners.tap(x, y)
            if ok:
                app.corners_tapped(self.corners.corners)
                self.flow = ""
                self.flow_text = tr("setup:corners_done")
            app.redraw_overlay()
            return True
        if self.flow != "teach" or self.teaching is None:
            return False
        self.flow_text = self.teaching.tap(x, y)
        App.get_running_app().redraw_overlay()
        return True

    def skip_space(self) -> None:
        if self.flow == "teach" and self.teaching is not None:
            self.flow_text = self.teaching.skip()
            App.get_running_app().redraw_overlay()

    def save_board(self) -> bool:
        if self.flow != "teach" or self.teaching is None:
            return False
        ok, self.flow_text = self.teaching.finish()
        if ok:
            self.flow = ""
            App.get_running_app().board_taught()
        return ok

    def start_dice(self) -> None:
        from companion.app.setup_flow import DiceRegistration

        app = App.get_running_app()
        game = self._game()
        if game is None:
            return
        self.registration = DiceRegistration(game, app.controller.root)
        self.flow = "dice" if self.registration.needed and not self.registration.done else ""
        self.flow_text = self.registration.prompt()

    def capture_die(self) -> bool:
        app = App.get_running_app()
        if self.flow != "dice" or self.registration is None:
            return False
        frame = app.session.frame
        obs = app.session.observation
        ok, self.flow_text = self.registration.capture(frame.image if frame else None, obs.get("dice") or obs.get("live") or [])
        if self.registration.done:
            self.flow = ""
            app.dice_registered()
        return ok


class TableScreen(Screen):
    title = StringProperty("")
    prompt = StringProperty("")
    proposal_text = StringProperty("")
    confirm_text = StringProperty("")
    messages_text = StringProperty("")
    coach_text = StringProperty("")
    scoreline = StringProperty("")
    has_proposal = BooleanProperty(False)
    _entry_key = None

    def on_pre_enter(self, *args):
        self.refresh(full=True)

    def refresh(self, full: bool = False) -> None:
        app = App.get_running_app()
        ctl = app.controller
        if ctl.session is None:
            return
        self.title = tr("table:title", game=ctl.title(), player=ctl.current_player_name() or "-")
        self.prompt = esc(ctl.prompt())
        parts = []
        for i, (name, score, won) in enumerate(ctl.scores()):
            colour = theme.PLAYER_COLOURS[app.player_colour(i)]
            parts.append(f"[b]{colour['letter']}[/b] {esc(name)} {score:g}" + (" *" if won else ""))
        self.scoreline = "   ".join(parts)
        self.refresh_proposal()
        self.refresh_messages()
        key = (ctl.generation, ctl.phase, app.lang)
        if full or key != self._entry_key:
            self._entry_key = key
            self.build_entry()
            self.coach_text = esc("\n".join(ctl.coach_lines()[:2]))

    def refresh_proposal(self) -> None:
        ctl = App.get_running_app().controller
        proposal = ctl.proposal
        self.has_proposal = proposal is not None
        box = self.ids.proposal_dice
        box.clear_widgets()
        if proposal is None:
            self.proposal_text = tr("table:proposal_none")
            self.confirm_text = tr("table:confirm")
            return
        self.proposal_text = "[b]" + esc(tr("table:proposal", text=proposal.text)) + "[/b]"
        self.confirm_text = tr("table:confirm_checked") if proposal.uncertain else tr("table:confirm")
        for i, die in enumerate(proposal.dice):
            mark = theme.MARKS["die-uncertain" if die.uncertain else "die"]
            label = f"{ctl.die_label(die.role, i)}: {ctl.face_label(die.value)}" + (" ?" if die.uncertain else "")
            button = Button(text=label, background_normal="", background_color=mark["colour"], font_size=f"{theme.FONT_SIZE}sp",
                            color=(0, 0, 0, 1) if die.uncertain else (1, 1, 1, 1))
            button.die_index = i
            button.bind(on_release=lambda _b, i=i: self.open_correction(i))
            box.add_widget(button)

    def refresh_messages(self) -> None:
        ctl = App.get_running_app().controller
        lines = []
        for m in ctl.messages[-3:]:
            colour = {"illegal": "ff6655", "warn": "ffcc44", "ok": "66dd88", "error": "ff6655"}.get(m.level, "cccccc")
            mark = {"illegal": "X", "warn": "!", "ok": "OK", "error": "X"}.get(m.level, "i")
            text = f"[color={colour}][b]{mark}[/b] {esc(m.text)}[/color]"
            if m.rule_id:
                text += "\n   " + esc(tr("table:rule", rule=m.rule_id, text=m.rule_text or ""))
            lines.append(text)
        if ctl.vision_status:
            lines.append(f"[color=aaaaaa]{esc(ctl.vision_status)}[/color]")
        self.messages_text = "\n".join(lines)

    def build_entry(self) -> None:
        """Manual entry for the current node: face buttons per die, the legal choices, or chance helpers."""
        ctl = App.get_running_app().controller
        box = self.ids.entry
        specs = ctl.dice_specs() if ctl.phase == "chance" else []
        camera = App.get_running_app().camera_live  # a real camera: its reading can be retaken
        signature = (tuple((s.kind, s.role, tuple(s.faces)) for s in specs), App.get_running_app().lang, camera)
        box.clear_widgets()
        cache = self.__dict__.setdefault("_dice_cache", {})
        if specs and signature in cache:
            self._dice_rows, self._face_buttons = cache[signature]
            entered = ctl.entry()
            for button in self._face_buttons:  # the same dice again: reuse the rows (widgets are slow to build)
                i = button.die_index
                button.state = "down" if i < len(entered) and entered[i].value == button.face else "normal"
            for row in self._dice_rows:
                box.add_widget(row)
            return
        if ctl.phase == "chance":
            if specs:
                self._face_buttons = []
                box.add_widget(wrap_label(f"[b]{tr('table:enter_dice')}[/b]"))
                entered = ctl.entry()
                for i, spec in enumerate(specs):
                    row = BoxLayout(size_hint_y=None, height=dp(theme.TOUCH_TARGET), spacing=dp(3))
                    row.add_widget(Label(text=esc(ctl.die_label(spec.role, i)), size_hint_x=None, width=dp(90),
                                         font_size=f"{theme.FONT_SIZE * 0.8}sp"))
                    for face in spec.faces:
                        button = ToggleButton(text=ctl.face_label(face), group=f"die{i}", size_hint=(None, None),
                                              size=(dp(theme.TOUCH_TARGET), dp(theme.TOUCH_TARGET)), font_size=f"{theme.FONT_SIZE}sp")
                        if i < len(entered) and entered[i].value == face:
                            button.state = "down"
                        button.face = face
                        button.die_index = i
                        button.bind(on_release=lambda _b, i=i, f=face: ctl.tap_face(i, f))
                        row.add_widget(button)
                        self._face_buttons.append(button)
                    box.add_widget(row)
                if camera:
                    box.add_widget(big_button(tr("table:read_again"), ctl.read_again))
                box.add_widget(big_button(tr("table:roll_for_me"), ctl.random_outcome))
                self._dice_rows = list(reversed(box.children))
                cache[signature] = (self._dice_rows, self._face_buttons)
            else:
                box.add_widget(big_button(tr("table:random_setup"), ctl.random_outcome, colour=theme.ACCENT))
        elif ctl.phase == "decision":
            for choice in ctl.choices():
                button = big_button(f"{choice.index + 1}. {choice.text}", lambda i=choice.index: ctl.choose(i))
                button.choice_index = choice.index
                box.add_widget(button)
        elif ctl.phase == "over":
            box.add_widget(big_button(tr("end:title"), lambda: App.get_running_app().go("end"), colour=theme.ACCENT))

    def confirm(self) -> None:
        App.get_running_app().controller.confirm()

    def submit_typed(self) -> None:
        text = self.ids.typed.text
        if App.get_running_app().controller.typed(text) is not None:
            self.ids.typed.text = ""

    def open_correction(self, index: int) -> None:
        ctl = App.get_running_app().controller
        if not ctl.proposal or index >= len(ctl.proposal.dice):
            return
        die = ctl.proposal.dice[index]
        spec_faces = next((s.faces for i, s in enumerate(ctl.dice_specs()) if i == index), [])
        content = BoxLayout(spacing=dp(4), padding=dp(6))
        popup = Popup(title=tr("table:die", number=index + 1) + f" ({ctl.face_label(die.value)}?)", content=content,
                      size_hint=(0.9, None), height=dp(theme.TOUCH_TARGET * 2.6))
        for face in spec_faces:
            button = Button(text=ctl.face_label(face), font_size=f"{theme.FONT_SIZE}sp")
            button.face = face

            def pick(_b, f=face):
                popup.dismiss()
                ctl.correct_die(index, f)

            button.bind(on_release=pick)
            content.add_widget(button)
        self.correction_popup = popup
        popup.open()


class ScoresScreen(Screen):
    board_text = StringProperty("")

    def on_pre_enter(self, *args):
        app = App.get_running_app()
        grid = self.ids.table
        grid.clear_widgets()
        for text in (tr("scores:player"), tr("scores:points"), ""):
            grid.add_widget(Label(text=f"[b]{text}[/b]", markup=True, font_size=f"{theme.FONT_SIZE}sp"))
        for i, (name, score, won) in enumerate(app.controller.scores()):
            colour = theme.PLAYER_COLOURS[app.player_colour(i)]
            grid.add_widget(Label(text=f"[b]{colour['letter']}[/b] {esc(name)}", markup=True, font_size=f"{theme.FONT_SIZE}sp",
                                  color=colour["rgba"]))
            grid.add_widget(Label(text=f"{score:g}", font_size=f"{theme.FONT_SIZE}sp"))
            grid.add_widget(Label(text=tr("scores:winner") if won else "", font_size=f"{theme.FONT_SIZE}sp"))
        self.board_text = app.controller.board_text()


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


class RulesScreen(Screen):
    title = StringProperty("")
    rules_text = StringProperty("")

    def on_pre_enter(self, *args):
        ctl = App.get_running_app().controller
        self.title = tr("rules:title", game=ctl.title())
        self.rules_text = rules_markup(ctl.rules_markdown())


class HistoryScreen(Screen):
    def on_pre_enter(self, *args):
        self.refresh()

    def refresh(self) -> None:
        ctl = App.get_running_app().controller
        box = self.ids.entries
        box.clear_widgets()
        entries = ctl.history_entries()
        if not entries:
            box.add_widget(wrap_label(tr("history:empty"), color=theme.MUTED))
        first = max(0, len(entries) - 80)  # the latest moves; older ones stay in the journal
        for n, text in enumerate(entries[first:], start=first + 1):
            box.add_widget(wrap_label(f"{n:>3}. {esc(text)}"))
        self.ids.scroll.scroll_y = 0

    def undo(self, count: int) -> None:
        App.get_running_app().controller.undo(count)
        self.refresh()


class EndScreen(Screen):
    winner_text = StringProperty("")
    final_text = StringProperty("")

    def on_pre_enter(self, *args):
        ctl = App.get_running_app().controller
        winners = [name for name, _score, won in ctl.scores() if won]
        self.winner_text = tr("end:winner", names=", ".join(winners)) if winners else tr("end:nobody")
        self.final_text = ctl.final_table()


class CounterScreen(Screen):
    """A scoring screen of counts by kind: a - / count / + row per kind, the rules' total, and a reading
    from the camera picture. It shows its :class:`companion.app.scoring.Tally` (``tally``), which keeps
    the counts, reads them and says the total."""

    total_text = StringProperty("")
    read_message = StringProperty("")
    tally_class: type = Tally
    tally = None

    def on_pre_enter(self, *args):
        if self.tally is None:
            self.tally = self.tally_class()
        grid = self.ids.rows
        grid.clear_widgets()
        self.count_labels = []
        for k, (label, _limit) in enumerate(self.tally.kinds()):
            grid.add_widget(Label(text=label, font_size=f"{theme.FONT_SIZE}sp"))
            minus = Button(text="-", font_size=f"{theme.TITLE_SIZE}sp")
            minus.bind(on_release=lambda _b, k=k: self.bump(k, -1))
            count = Label(text=str(self.tally.counts[k]), font_size=f"{theme.FONT_SIZE}sp")
            plus = Button(text="+", font_size=f"{theme.TITLE_SIZE}sp")
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
        self.update()

    def read(self) -> bool:
        """Read the counts from the camera picture."""
        frame = App.get_running_app().session.frame
        ok = self.tally.read(frame.image if frame is not None else None)
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
