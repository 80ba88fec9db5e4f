"""The table screen: the picture with its marks, the proposal to confirm, the messages, and entry by hand.
It observes the controller: every change of the game is shown as it happens."""

from __future__ import annotations

from kivy.metrics import dp
from kivy.properties import BooleanProperty, DictProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.popup import Popup
from kivy.uix.togglebutton import ToggleButton

from companion.app import theme
from companion.app.camera_session import Overlay
from companion.app.i18n import tr
from companion.app.screens.base import PreviewScreen, big_button, esc, wrap_label


class TableScreen(PreviewScreen):
    title = StringProperty("")
    prompt = StringProperty("")
    proposal_text = StringProperty("")
    confirm_text = StringProperty("")
    messages_text = StringProperty("")
    coach_text = StringProperty("")
    scoreline = StringProperty("")
    has_proposal = BooleanProperty(False)
    marks = DictProperty({})  # board spaces marked on the picture: piece id -> legal | proposed
    _entry_key = None

    def on_controller(self, _screen, controller) -> None:
        if controller is not None:
            controller.listeners.append(self.on_game_event)

    def on_game_event(self, event: str, payload) -> None:
        if event in ("changed", "proposal"):
            self.marks = self.controller.highlights()
        if event == "changed":
            self.refresh()
        elif event == "proposal":
            self.refresh_proposal()
        elif event in ("message", "confirmed", "read_again"):
            self.refresh_messages()

    def on_pre_enter(self, *args):
        self.refresh(full=True)

    def overlay(self) -> Overlay:
        """The dice of the proposal (else of the latest reading), the legal and proposed spaces when the picture
        shows this game's board, and the reader's status."""
        ctl = self.controller
        want = Overlay(dice=self.proposal_dice(), status=self.session.picture_status(ctl.vision_status))
        if ctl.module is not None and self.session.shows_board_of(ctl.module.name):
            want.marks = dict(self.marks)
        return want

    def tap(self, x: float, y: float) -> bool:
        """A tap on the picture: on a die of the proposal, correct it; on a marked space, choose its move."""
        ctl = self.controller
        if ctl.session is None:
            return False
        if ctl.proposal is not None and ctl.proposal.dice:
            index = self.session.die_at([{"box": d.box} for d in ctl.proposal.dice], x, y)
            if index is not None:
                self.open_correction(index)
                return True
        piece = self.session.space_at(dict(self.marks), x, y)
        if piece:
            ctl.choose_piece(piece)
        return True

    def refresh(self, full: bool = False) -> None:
        ctl = self.controller
        if ctl.session is None:
            return
        self.title = tr("table:title", game=ctl.title(), player=ctl.current_player_name() or "-")
        self.prompt = esc(ctl.prompt())
        parts = []
        for i, (name, score, won) in enumerate(ctl.scores()):
            colour = theme.player_colour(ctl.colours, i)
            parts.append(f"[b]{colour['letter']}[/b] {esc(name)} {score:g}" + (" *" if won else ""))
        self.scoreline = "   ".join(parts)
        self.refresh_proposal()
        self.refresh_messages()
        key = (ctl.generation, ctl.phase, self.ui.lang)
        if full or key != self._entry_key:
            self._entry_key = key
            self.build_entry()
            self.coach_text = esc("\n".join(ctl.coach_lines()[:2]))

    def refresh_proposal(self) -> None:
        ctl = self.controller
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
        ctl = self.controller
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
        ctl = self.controller
        box = self.ids.entry
        specs = ctl.dice_specs() if ctl.phase == "chance" else []
        camera = self.ui.camera_live  # a real camera: its reading can be retaken
        signature = (tuple((s.kind, s.role, tuple(s.faces)) for s in specs), self.ui.lang, camera)
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
                self._build_dice_rows(box, specs, camera)
                cache[signature] = (self._dice_rows, self._face_buttons)
            else:
                if ctl.setup_read:  # the camera read the set-up in part: finish it on the picture
                    box.add_widget(big_button(tr("fix:button"), lambda: self.shell.go("setup_fix"), colour=theme.CONFIRM))
                box.add_widget(big_button(tr("table:random_setup"), ctl.random_outcome, colour=theme.ACCENT))
        elif ctl.phase == "decision":
            for choice in ctl.choices():
                button = big_button(f"{choice.index + 1}. {choice.text}", lambda i=choice.index: ctl.choose(i))
                button.choice_index = choice.index
                box.add_widget(button)
        elif ctl.phase == "over":
            box.add_widget(big_button(tr("end:title"), lambda: self.shell.go("end"), colour=theme.ACCENT))

    def _build_dice_rows(self, box, specs, camera: bool) -> None:
        ctl = self.controller
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

    def confirm(self) -> None:
        self.controller.confirm()

    def submit_typed(self) -> None:
        text = self.ids.typed.text
        if self.controller.typed(text) is not None:
            self.ids.typed.text = ""

    def open_correction(self, index: int) -> None:
        ctl = self.controller
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
