"""The table screen: the picture with its marks, the proposal to confirm, the messages, and entry by hand.
It observes the controller: every change of the game is shown as it happens.

Entry by hand, for what the camera cannot see: a row of face buttons per die (a colour die's faces in their
colour, with the word), or the moves as a short list gathered by piece (:class:`companion.app.moves.MovePicker`:
a group opens on a tap); a tap on the picture picks a piece up or chooses where it goes.
"""

from __future__ import annotations

from kivy.metrics import dp
from kivy.properties import BooleanProperty, DictProperty, NumericProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.togglebutton import ToggleButton

from companion.app import theme
from companion.app.camera_session import Overlay
from companion.app.i18n import tr
from companion.app.moves import Group
from companion.app.screens.base import PreviewScreen, big_button, choice_popup, esc, wrap_label

PICTURE_SHARE = 0.6  # of a wide window's width
PICTURE_MAX_HEIGHT = 0.46  # of an upright phone's height
FACE_COLOURS = {"yellow": ((0.95, 0.80, 0.15, 1), (0, 0, 0, 1)), "red": ((0.80, 0.18, 0.16, 1), (1, 1, 1, 1)),
                "blue": ((0.20, 0.40, 0.85, 1), (1, 1, 1, 1)), "green": ((0.16, 0.55, 0.25, 1), (1, 1, 1, 1)),
                "magpie": ((0.12, 0.12, 0.14, 1), (1, 1, 1, 1))}


class TableScreen(PreviewScreen):
    title = StringProperty("")
    prompt = StringProperty("")
    proposal_text = StringProperty("")
    confirm_text = StringProperty("")
    messages_text = StringProperty("")
    coach_text = StringProperty("")
    scoreline = StringProperty("")
    has_proposal = BooleanProperty(False)
    marks = DictProperty({})  # board spaces marked on the picture: region id -> piece | target | selected | proposed | illegal
    picture_share = NumericProperty(PICTURE_SHARE)
    picture_height = NumericProperty(dp(240))
    _entry_key = None
    open_group: str | None = None  # the group of moves opened in the list

    def on_controller(self, _screen, controller) -> None:
        if controller is not None:
            controller.listeners.append(self.on_game_event)

    def on_ui(self, _screen, ui) -> None:
        if ui is not None:
            ui.bind(portrait=lambda *_: self.place_nav())
            self.place_nav()

    def on_size(self, *_args) -> None:
        self.fit_picture()

    def on_game_event(self, event: str, payload) -> None:
        if event in ("changed", "proposal", "picked", "refused"):
            self.marks = self.controller.highlights()
        if event == "changed":
            self.open_group = None
            self.refresh()
        elif event == "proposal":
            self.refresh_proposal()
        elif event == "picked":
            self.build_entry()
        elif event in ("message", "confirmed", "read_again", "refused"):
            self.refresh_messages()

    def on_pre_enter(self, *args):
        self.place_nav()
        self.refresh(full=True)

    # --- layout ----------------------------------------------------------------------------------------------
    def place_nav(self) -> None:
        """The navigation at the bottom of an upright phone, in the title bar of a wide window."""
        if "nav" not in self.ids:  # not built yet
            return
        nav, top, root_box = self.ids.nav, self.ids.top, self.ids.root_box
        if nav.parent is not None:
            nav.parent.remove_widget(nav)
        if self.ui is not None and self.ui.portrait:
            nav.size_hint_x, nav.width = 1, 100
            root_box.add_widget(nav, index=0)
        else:
            nav.size_hint_x, nav.width = None, dp(104) * 4
            top.add_widget(nav)
        self.fit_picture()

    def fit_picture(self) -> None:
        """The picture as large as it can be: an upright phone's full width (up to a share of its height), else the
        height of a wide window's left part."""
        if "preview" not in self.ids:
            return
        w, h = self.ids.preview.frame_size if self.ids.preview.frame_size[0] else (4, 3)
        if self.ui is not None and self.ui.portrait:
            self.picture_height = min(self.width * h / w, self.height * PICTURE_MAX_HEIGHT)
        else:
            self.picture_height = 0

    def show_frame(self, frame) -> bool:
        size = tuple(self.ids.preview.frame_size)
        shown = super().show_frame(frame)
        if tuple(self.ids.preview.frame_size) != size:
            self.fit_picture()
        return shown

    # --- the picture -----------------------------------------------------------------------------------------
    def overlay(self) -> Overlay:
        """The dice of the proposal (else of the latest reading), the spaces marked when the picture shows this
        game's board, and the reader's status."""
        ctl = self.controller
        want = Overlay(dice=self.proposal_dice(), status=self.session.picture_status(ctl.vision_status))
        if ctl.module is not None and self.session.shows_board_of(ctl.module.name):
            want.marks = dict(self.marks)
        return want

    def tap(self, x: float, y: float) -> bool:
        """A tap on the picture: on a die of the proposal, correct it; on a marked space, pick up or place."""
        ctl = self.controller
        if ctl.session is None:
            return False
        if ctl.proposal is not None and ctl.proposal.dice:
            index = self.session.die_at([{"box": d.box} for d in ctl.proposal.dice], x, y)
            if index is not None:
                self.open_correction(index)
                return True
        region = self.session.space_at(dict(self.marks), x, y)
        if region:
            ctl.tap_region(region)
        return True

    # --- what the game says ----------------------------------------------------------------------------------
    def refresh(self, full: bool = False) -> None:
        ctl = self.controller
        if ctl.session is None:
            return
        player = ctl.current_player_name()
        self.title = esc(tr("table:title", game=ctl.title(), player=player) if player else ctl.title())
        self.prompt = esc(ctl.prompt())
        parts = []
        for i, (name, score, won) in enumerate(ctl.scores()):
            colour = theme.player_colour(ctl.colours, i)
            parts.append(f"[b]{theme.colour_letter(colour)}[/b] {esc(name)} {score:g}" + (" *" if won else ""))
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
            self.proposal_text = esc(tr("table:proposal_none"))
            self.confirm_text = tr("table:confirm")
            return
        self.proposal_text = "[b]" + esc(tr("table:proposal", text=proposal.text)) + "[/b]"
        self.confirm_text = tr("table:confirm_checked") if proposal.uncertain else tr("table:confirm")
        for i, die in enumerate(proposal.dice):
            mark = theme.MARKS["die-uncertain" if die.uncertain else "die"]
            label = f"{ctl.die_label(die.role, i)}: {ctl.face_label(die.value)}" + (" ?" if die.uncertain else "")
            button = Button(text=esc(label), markup=True, background_normal="", background_color=mark["colour"],
                            font_size=f"{theme.FONT_SIZE * 0.8}sp", color=(0, 0, 0, 1) if die.uncertain else (1, 1, 1, 1),
                            halign="center", valign="middle")
            button.bind(size=lambda b, s: setattr(b, "text_size", (s[0] - dp(4), None)))
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
            lines.append(f"[color=aaaaaa]{esc(self.ui.camera_words(ctl.vision_status))}[/color]")
        self.messages_text = "\n".join(lines)

    # --- entry by hand ---------------------------------------------------------------------------------------
    def build_entry(self) -> None:
        """Manual entry for the current node: face buttons per die, the moves (grouped), or chance helpers."""
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
            self._build_moves(box)
        elif ctl.phase == "over":
            box.add_widget(big_button(tr("end:title"), lambda: self.shell.go("end"), colour=theme.ACCENT))

    def _build_moves(self, box) -> None:
        """The moves: all of them when few; else one button per piece (its group), opened on a tap, and a long group
        gathered again (keys ``group/sub``); a tap on the picture that leaves several moves shows just those."""
        ctl = self.controller
        picker = ctl.picker()
        if picker is None:
            return
        opened = self.open_group
        if picker.narrowed is not None:
            groups = picker.groups()
        elif opened is None:
            groups = picker.groups()
        elif "/" in opened:
            moves = picker.group(opened)
            groups = [Group("", moves[0].subtitle if moves else "", moves)]
        else:
            groups = picker.groups(within=opened)
        if picker.narrowed is not None or opened is not None:
            box.add_widget(big_button("< " + tr("moves:back"), self._close_group, colour=theme.PANEL))
            title = next((m.title for m in picker.moves if m.group == opened.partition("/")[0]), "") if opened else ""
            if title:
                box.add_widget(wrap_label(f"[b]{esc(title)}[/b]"))
        for group in groups:
            if group.key:
                count = tr("moves:more", count=len(group.moves))
                button = big_button(f"{esc(group.title)}  ({count})", lambda k=group.key: self._open(k), colour=theme.ACCENT)
                button.group_key = group.key
                box.add_widget(button)
                continue
            if group.title and opened is not None and "/" in opened:
                box.add_widget(wrap_label(esc(group.title), color=theme.MUTED))
            for move in group.moves:
                button = big_button(esc(move.text), lambda i=move.index: ctl.choose(i))
                button.choice_index = move.index
                box.add_widget(button)

    def _open(self, key: str) -> None:
        self.open_group = key
        self.build_entry()

    def _close_group(self) -> None:
        """Back one level: from a group's part to the group, from a group (or a tap's choice) to all moves."""
        picker = self.controller.picker()
        if self.open_group and "/" in self.open_group and (picker is None or picker.narrowed is None):
            self.open_group = self.open_group.partition("/")[0]
        else:
            self.open_group = None
            if picker is not None:
                picker.reset()
            self.marks = self.controller.highlights()
        self.build_entry()

    def _build_dice_rows(self, box, specs, camera: bool) -> None:
        ctl = self.controller
        self._face_buttons = []
        box.add_widget(wrap_label(f"[b]{esc(tr('table:enter_dice'))}[/b]"))
        entered = ctl.entry()
        for i, spec in enumerate(specs):
            box.add_widget(wrap_label(esc(ctl.die_label(spec.role, i)), color=theme.MUTED))
            row = BoxLayout(size_hint_y=None, height=dp(theme.TOUCH_TARGET), spacing=dp(3))
            for face in dict.fromkeys(spec.faces):  # a face printed twice is one button
                colours = FACE_COLOURS.get(face) if isinstance(face, str) else None
                button = ToggleButton(text=ctl.face_label(face), group=f"die{i}", font_size=f"{theme.FONT_SIZE * 0.85}sp",
                                      halign="center", valign="middle")
                button.bind(size=lambda b, s: setattr(b, "text_size", (s[0] - dp(2), None)))
                if colours is not None:  # a colour die: its colour and its word (never the colour alone)
                    button.background_normal, button.background_color, button.color = "", colours[0], colours[1]
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

    def open_correction(self, index: int) -> None:
        ctl = self.controller
        if not ctl.proposal or index >= len(ctl.proposal.dice):
            return
        die = ctl.proposal.dice[index]
        spec_faces = next((s.faces for i, s in enumerate(ctl.proposal_dice_specs()) if i == index), [])
        faces = list(dict.fromkeys(spec_faces))
        self.correction_popup = choice_popup(tr("table:die", number=index + 1) + f" ({ctl.face_label(die.value)}?)",
                                             [(ctl.face_label(f), f) for f in faces], lambda f: ctl.correct_die(index, f),
                                             cols=max(1, len(faces)))
