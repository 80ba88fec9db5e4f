"""The "check the set-up" screen: the board straight from above, cut out of the camera's picture, with every
piece marked (read, to check, chosen by the family); a tap on a piece (or on its button) chooses its character,
one tap confirms the set-up. The flow is :mod:`companion.app.setup_fix` (UI-free); the rules judge the set-up
through the controller."""

from __future__ import annotations

from kivy.properties import BooleanProperty, ObjectProperty, StringProperty

from companion.app import theme
from companion.app.i18n import tr
from companion.app.screens.base import AppScreen, big_button, choice_popup
from companion.app.screens.picture import TapPicture
from companion.app.setup_fix import BoardPicture, SetupFix, board_picture, draw_marks
from companion.app.words import capitalised


class SetupFixScreen(AppScreen):
    fix = ObjectProperty(None, allownone=True)  # a SetupFix while a set-up is checked
    flow_text = StringProperty("")
    messages_text = StringProperty("")
    has_picture = BooleanProperty(False)  # the board's picture is shown (its pane takes room only then)
    picture: BoardPicture | None = None
    focus: str | None = None

    def on_pre_enter(self, *args):
        read = self.controller.setup_read
        if read is None:
            self.fix = None
        elif self.fix is None or read is not getattr(self, "_read", None):
            before = self.fix
            self.fix = SetupFix(read)
            if before is not None and before.game == self.fix.game:  # a new reading keeps the family's answers
                for space, value in before.chosen.items():
                    self.fix.choose(space, value)
        self._read = read
        self.picture = self._board_picture()
        self.refresh()

    def _board_picture(self) -> BoardPicture | None:
        """The board from above, from the latest picture and the board's pose (None without them)."""
        session = self.session
        homography, geometry = session.board_view()
        size_mm = session.board_size()
        if session.frame is None or homography is None or size_mm is None:
            return None
        return board_picture(session.frame.image, homography, size_mm, geometry, session.lens)

    def refresh(self) -> None:
        fix = self.fix
        self.flow_text = fix.prompt() if fix is not None else tr("fix:none")
        self.messages_text = "\n".join(m.text for m in self.controller.messages[-2:] if m.level in ("illegal", "warn"))
        box = self.ids.board
        box.clear_widgets()
        self.has_picture = fix is not None and self.picture is not None
        if self.has_picture:
            board = TapPicture(self.tap, fill=True)
            board.show(draw_marks(self.picture, fix.marks(), self.focus))
            box.add_widget(board)
            self.board = board
        spaces = self.ids.spaces
        spaces.clear_widgets()
        if fix is not None:  # the pieces to check and those chosen, as buttons too
            for space in fix.unsure + [s for s in fix.suspect if s not in fix.unsure]:
                value = fix.value(space)
                doubt = space in fix.suspect and space not in fix.chosen
                label = f"{capitalised(fix.space_words(space))}: {fix.option_label(value) if value is not None else '?'}" + (" ?" if doubt else "")
                colour = theme.DANGER if value is None else theme.WARN if doubt else theme.PANEL
                spaces.add_widget(big_button(label, lambda s=space: self.open_choice(s), colour=colour))

    def tap(self, x: float, y: float) -> bool:
        """A tap on the board's picture (picture pixels): choose what stands on the piece there."""
        if self.fix is None or self.picture is None:
            return False
        space = self.picture.space_at(x, y, self.fix.read)
        if space is None:
            return False
        self.open_choice(space)
        return True

    def open_choice(self, space: str) -> None:
        fix = self.fix
        self.focus = space
        self.refresh()
        options = fix.options_for(space)
        labels = [fix.option_label(v) for v in options]
        cols = 3 if max(len(t) for t in labels) <= 12 else 2  # a nest's tiles take more words than a character
        self.choice_popup = choice_popup(tr("fix:choose", space=fix.space_words(space)), list(zip(labels, options, strict=True)),
                                         lambda v: self.choose(space, v), cols, chosen=fix.value(space),
                                         pos_hint={"center_x": 0.5, "y": 0.01})  # below the board: the piece stays in view

    def choose(self, space: str, value) -> None:
        self.focus = None
        if self.fix is not None:
            self.fix.choose(space, value)
        self.refresh()

    def confirm(self) -> None:
        """One tap: the whole set-up to the rules and, when they take it, into the journal."""
        if self.fix is None:
            return
        action = self.fix.action()
        if action is not None and self.controller.confirm_setup(action) is not None:
            self.fix = None
            self.shell.go("table")
            return
        self.refresh()  # some piece still to check, or called by the rules: said, the answers stay
