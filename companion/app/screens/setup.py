"""The set-up screen: the live "board found" indicator, "teach the board", "tap the 4 corners", "show each
die once" and the camera profile."""

from __future__ import annotations

from pathlib import Path

from kivy.app import App
from kivy.properties import StringProperty
from kivy.uix.screenmanager import Screen

from companion.app.i18n import tr


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
