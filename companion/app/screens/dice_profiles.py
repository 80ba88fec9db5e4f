"""The "teach your dice" screen: the camera's picture with the dice in view, the grid of each kind's faces (the
family's own pictures where taught, a dashed gap where missing) and the box's dice profiles (choose, new,
rename, delete). The flow is :mod:`companion.app.dice_teaching` (UI-free); this screen forwards taps to it
and shows what it says."""

from __future__ import annotations

from typing import Any

import numpy as np
from kivy.metrics import dp
from kivy.properties import ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.popup import Popup
from kivy.uix.textinput import TextInput

from companion.app import theme
from companion.app.camera_session import Overlay
from companion.app.dice_teaching import DiceTeaching, box_kinds, cell_at, faces_picture, snapshot
from companion.app.i18n import tr
from companion.app.screens.base import PreviewScreen, wrap_label
from companion.app.screens.picture import TapPicture
from companion.vision.profile import ProfileError


class FaceGrid(TapPicture):
    """One kind's faces as a picture (:func:`companion.app.dice_teaching.faces_picture`); a tap on a face
    calls ``on_face(cell)``."""

    def __init__(self, on_face, **kw):
        super().__init__(self._tapped, **kw)
        self.on_face = on_face
        self.cells: list = []

    def show_faces(self, picture: np.ndarray, cells: list) -> None:
        self.cells = cells
        self.show(picture)

    def _tapped(self, x: float, y: float) -> bool:
        cell = cell_at(self.cells, x, y)
        if cell is not None:
            self.on_face(cell)
        return cell is not None


class DiceScreen(PreviewScreen):
    flow_text = StringProperty("")
    progress_text = StringProperty("")
    profile_text = StringProperty("")
    teaching = ObjectProperty(None, allownone=True)  # a DiceTeaching while a profile is taught
    back_to = "setup"

    def on_pre_enter(self, *args):
        game = self.shell.board_game()
        profiles = self.shell.dice_profiles
        self.teaching = None
        self.kinds = box_kinds(game)
        if game is None or not self.kinds:
            self.flow_text = tr("dice:no_game" if game is None else "dice:no_dice")
            self.show_profiles()
            self.build_grids()
            return
        said = ""
        if profiles.active_name(game) is None:  # teaching builds this box's profile: a new one, in use at once
            said = self._new_profile(game)
        self._start(game)
        self.flow_text = " ".join(t for t in (said, self._prompt()) if t)
        self.session.teach_dice(self.kinds)

    def _prompt(self) -> str:
        if self.session.recognizer is None:  # the demo's picture, or no camera at all
            return tr("dice:no_camera")
        return self.teaching.prompt() if self.teaching is not None else tr("dice:generic")

    def refresh(self) -> None:
        """In the language just chosen."""
        self.build_grids()
        self.show_profiles()
        self.flow_text = self._prompt()

    def on_leave(self, *args):
        self.session.teach_dice(None)
        self.shell.use_dice_profile()

    def _start(self, game: str) -> None:
        learning = self.shell.dice_profiles.learning(game)
        self.teaching = DiceTeaching(game, learning, self.kinds) if learning is not None else None
        self.shell.use_dice_profile()
        self.show_profiles()
        self.build_grids()

    # --- the camera -----------------------------------------------------------------------------------------
    def on_camera(self, observation: dict[str, Any]) -> None:
        """A reading of the camera while this screen is shown: the dice in view (with their crops)."""
        if "teach_error" in observation:
            self.flow_text = tr("dice:reader_missing", reason=observation["teach_error"])
        if self.teaching is None or "teach_dice" not in observation:
            return
        before = (len(self.teaching.dice), self.teaching.selected)
        self.teaching.see(observation["teach_dice"])
        if (len(self.teaching.dice), self.teaching.selected) != before:
            self.flow_text = self._prompt()
        self.session.overlay_dirty = True

    def overlay(self) -> Overlay:
        """The dice in view; the one chosen to teach with a solid frame and an arrow, the others as read."""
        if self.teaching is None:
            return Overlay(dice=[])
        dice = []
        for i, d in enumerate(self.teaching.dice):
            chosen = i == self.teaching.selected
            dice.append({"box": d["box"], "value": f"> {d['value']}" if chosen else d["value"],
                         "uncertain": not chosen})
        return Overlay(dice=dice)

    def tap(self, x: float, y: float) -> bool:
        if self.teaching is None or not self.teaching.select_at(x, y):
            return False
        self.flow_text = self._prompt()
        self.session.overlay_dirty = True
        return True

    # --- teaching -------------------------------------------------------------------------------------------
    def teach_face(self, cell) -> None:
        if self.teaching is None:
            return
        ok, self.flow_text = self.teaching.teach_face(cell.kind, cell.face)
        if ok:
            self._grown()

    def confirm_all(self) -> None:
        if self.teaching is None:
            return
        ok, self.flow_text = self.teaching.confirm_all()
        if ok:
            self._grown()

    def _grown(self) -> None:
        self.build_grids()
        self.show_profiles()
        self.session.set_dice_profile(snapshot(self.teaching.profile))  # read with it at once

    def build_grids(self) -> None:
        box = self.ids.grids
        box.clear_widgets()
        self.grids = {}
        if self.teaching is None:
            self.progress_text = ""
            return
        width = 480
        for kind in self.kinds:
            box.add_widget(wrap_label(f"[b]{tr(f'dice:kind_{kind}')}[/b]"))
            grid = FaceGrid(self.teach_face)
            grid.show_faces(*faces_picture(self.teaching.profile, kind, width))
            box.add_widget(grid)
            self.grids[kind] = grid
        self.progress_text = self.teaching.progress()

    # --- the box's profiles -----------------------------------------------------------------------------------
    def show_profiles(self) -> None:
        profiles, game = self.shell.dice_profiles, self.shell.board_game()
        entries = profiles.entries()
        self._labels = {tr("dice:profile_none"): None}
        damaged = []
        for e in entries:
            if "error" in e:
                damaged.append(tr("dice:damaged", file=e["file"], reason=e["error"]))
            else:
                self._labels[e["name"]] = e["name"]
        spinner = self.ids.profile
        spinner.values = list(self._labels)
        active = profiles.active_name(game)
        self._showing = True
        spinner.text = active if active is not None else tr("dice:profile_none")
        self._showing = False
        summary = next((e for e in entries if e.get("name") == active), None)
        words = tr("dice:using", name=active, dice=summary["dice"]) if summary else tr("dice:generic")
        self.profile_text = "\n".join([words, *damaged])

    def choose_profile(self, label: str) -> None:
        game = self.shell.board_game()
        if getattr(self, "_showing", False) or game is None or label not in getattr(self, "_labels", {}):
            return
        name = self._labels[label]
        if name == self.shell.dice_profiles.active_name(game):
            return
        try:
            self.shell.dice_profiles.choose(game, name)
        except (ProfileError, OSError) as exc:
            self.flow_text = tr("dice:problem", reason=getattr(exc, "reason", None) or str(exc))
            return
        self._start(game)
        self.flow_text = self._prompt()

    def _new_profile(self, game: str) -> str:
        profiles = self.shell.dice_profiles
        try:
            profile = profiles.create(profiles.free_name(tr(f"game:{game}")))
            profiles.choose(game, profile.name)
        except (ProfileError, OSError) as exc:
            return tr("dice:problem", reason=getattr(exc, "reason", None) or str(exc))
        return tr("dice:created", name=profile.name)

    def new_profile(self) -> None:
        game = self.shell.board_game()
        if game is None or not self.kinds:
            return
        said = self._new_profile(game)
        self._start(game)
        self.flow_text = said

    def rename_profile(self) -> None:
        game = self.shell.board_game()
        name = self.shell.dice_profiles.active_name(game)
        if name is None:
            return
        field = TextInput(text=name, multiline=False, font_size=f"{theme.FONT_SIZE}sp", size_hint_y=None,
                          height=dp(theme.TOUCH_TARGET))

        def rename(*_):
            popup.dismiss()
            try:
                profile = self.shell.dice_profiles.rename(name, field.text)
            except (ProfileError, OSError) as exc:
                self.flow_text = tr("dice:problem", reason=getattr(exc, "reason", None) or str(exc))
                return
            self._start(game)
            self.flow_text = tr("dice:renamed", name=profile.name)

        popup = self._ask(tr("dice:rename_title", name=name), rename, field)
        field.bind(on_text_validate=rename)
        self.rename_popup = popup

    def delete_profile(self) -> None:
        game = self.shell.board_game()
        name = self.shell.dice_profiles.active_name(game)
        if name is None:
            return

        def delete(*_):
            popup.dismiss()
            try:
                self.shell.dice_profiles.delete(name)
            except (ProfileError, OSError) as exc:
                self.flow_text = tr("dice:problem", reason=getattr(exc, "reason", None) or str(exc))
                return
            self._start(game)
            self.flow_text = tr("dice:deleted", name=name)

        self.delete_popup = popup = self._ask(tr("dice:delete_title", name=name), delete)

    def _ask(self, title: str, on_ok, field=None) -> Popup:
        content = BoxLayout(orientation="vertical", spacing=dp(6), padding=dp(6))
        if field is not None:
            content.add_widget(field)
        row = BoxLayout(size_hint_y=None, height=dp(theme.TOUCH_TARGET), spacing=dp(6))
        ok = Button(text=tr("dice:ok"), background_normal="", background_color=theme.CONFIRM)
        cancel = Button(text=tr("dice:cancel"))
        ok.bind(on_release=on_ok)
        row.add_widget(ok)
        row.add_widget(cancel)
        content.add_widget(row)
        popup = Popup(title=title, content=content, size_hint=(0.92, None), height=dp(theme.TOUCH_TARGET * 3.4))
        cancel.bind(on_release=lambda *_: popup.dismiss())
        popup.ok_button = ok
        popup.open()
        return popup

    def done(self) -> None:
        self.shell.go(self.back_to if self.back_to != "table" or self.controller.session is not None else "setup")
