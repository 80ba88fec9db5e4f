"""The set-up screen: the live "board found" indicator, "teach the board", "tap the 4 corners", "show each
die once" and the camera profile. The flows are :mod:`companion.app.setup_flow` (UI-free); this screen
only forwards taps to them and shows what they say."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from kivy.properties import BooleanProperty, StringProperty

from companion.app.calibration import board_map_for
from companion.app.camera_session import Overlay
from companion.app.i18n import tr
from companion.app.screens.base import PreviewScreen
from companion.app.setup_flow import (
    BoardTeaching,
    CornerTapping,
    DiceRegistration,
    learn_empty_board,
    learns_empty_board,
)


class SetupScreen(PreviewScreen):
    title = StringProperty("")  # names the game whose board the camera is set up for
    flow = StringProperty("")  # "" | "teach" | "dice" | "corners"
    flow_text = StringProperty("")
    profile_text = StringProperty("")
    has_nests = BooleanProperty(False)  # the game's set-up covers nests whose print a photo of the empty board shows
    teaching = None
    registration = None
    corners = None  # setup_flow.CornerTapping while the corners are tapped

    def on_pre_enter(self, *args):
        self.refresh()
        self.show_profiles()

    def refresh(self) -> None:
        game = self.shell.board_game() if self.shell is not None else None
        self.title = tr("setup:title_game", game=tr(f"game:{game}")) if game else tr("setup:title")
        self.has_nests = bool(game) and learns_empty_board(game)
        if not self.flow:
            self.flow_text = tr("setup:teach_start")

    def overlay(self) -> Overlay:
        """The corners tapped so far (numbered), the space to tap where the map expects it, else the board's
        outline where the camera found it."""
        want = Overlay(dice=self.proposal_dice())
        teaching = self.teaching if self.flow == "teach" else None
        if self.flow == "corners" and self.corners is not None:
            want.points = self.corners.marks()
        elif teaching is not None and teaching.current is not None:
            want.focus = (np.asarray(teaching.pose.homography, np.float64),
                          {teaching.current: teaching.reference.region(teaching.current).center_mm})
            want.marks = {teaching.current: "proposed"}
        else:
            want.outline = True
        return want

    # --- the camera profile ------------------------------------------------------------------------------------
    def show_profiles(self) -> None:
        session = self.session
        self._profiles = {tr("setup:profile_none"): ""}
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
        path = getattr(self, "_profiles", {}).get(label)
        if path is None or path == self.session.profile_path:
            return
        self.shell.set_camera_profile(path)
        self.show_profiles()

    # --- tap the four corners (no marker found) ----------------------------------------------------------------
    def start_corners(self) -> bool:
        """Tap the board's four corners on the picture: the fallback when the markers cannot be found."""
        game = self._game()
        if game is None:
            return False
        if self.session.frame is None:
            self.flow, self.flow_text = "", tr("setup:corners_no_picture")
            return False
        info, why = board_map_for(game, self.controller.root)
        if info is None:
            self.flow, self.flow_text = "", why
            return False
        self.corners = CornerTapping(info.map, self.session.lens)
        self.flow, self.flow_text = "corners", self.corners.prompt()
        self.session.overlay_dirty = True
        return True

    def undo_corner(self) -> None:
        if self.flow == "corners" and self.corners is not None:
            self.flow_text = self.corners.undo()
            self.session.overlay_dirty = True

    def flow_button(self) -> None:
        """The flow's second button: this die / skip this space / take back the last corner."""
        {"dice": self.capture_die, "teach": self.skip_space, "corners": self.undo_corner}.get(self.flow, lambda: None)()

    def _game(self) -> str | None:
        game = self.shell.board_game()
        if game is None:
            self.flow, self.flow_text = "", tr("setup:no_camera_flow")
        return game

    # --- teach the board ---------------------------------------------------------------------------------------
    def start_teaching(self) -> bool:
        game = self._game()
        if game is None:
            return False
        frame = self.session.frame
        try:
            self.teaching = BoardTeaching(game, self.controller.root, camera=self.session.lens)
        except Exception as exc:  # no board map for this game, or a damaged one: said in plain words
            self.flow, self.flow_text = "", str(exc)
            return False
        if frame is None:
            self.flow, self.flow_text = "", tr("setup:teach_no_board", status=tr("table:manual"))
            return False
        ok, self.flow_text = self.teaching.start(frame.image)
        self.flow = "teach" if ok else ""
        self.session.overlay_dirty = True
        return ok

    def tap(self, x: float, y: float) -> bool:
        """A tap on the preview while teaching (the centre of the space asked for) or tapping the corners."""
        if self.flow == "corners" and self.corners is not None:
            ok, self.flow_text = self.corners.tap(x, y)
            if ok:
                self.session.tap_corners(self.corners.corners)
                self.flow = ""
                self.flow_text = tr("setup:corners_done")
            self.session.overlay_dirty = True
            return True
        if self.flow != "teach" or self.teaching is None:
            return False
        self.flow_text = self.teaching.tap(x, y)
        self.session.overlay_dirty = True
        return True

    def skip_space(self) -> None:
        if self.flow == "teach" and self.teaching is not None:
            self.flow_text = self.teaching.skip()
            self.session.overlay_dirty = True

    def save_board(self) -> bool:
        """Fit and save the family's map; the camera's tracker loads it (the demo keeps its own)."""
        if self.flow != "teach" or self.teaching is None:
            return False
        ok, self.flow_text = self.teaching.finish()
        if ok:
            self.flow = ""
            self.session.set_game(self.shell.board_game(), reload=True)
            self.session.overlay_dirty = True
        return ok

    # --- the empty board (the print under the nests) ---------------------------------------------------------
    def teach_empty_board(self) -> bool:
        """The frame in view shows the board with nothing on it: the print under the nests is learnt and kept."""
        game = self._game()
        if game is None:
            return False
        frame = self.session.frame
        ok, self.flow_text = learn_empty_board(game, self.controller.root, frame.image if frame else None, self.session.lens)
        self.flow = ""
        if ok:
            self.session.set_game(game, reload=True)  # the camera's pipeline takes the empty board's look
        return ok

    # --- show each die once ------------------------------------------------------------------------------------
    def start_dice(self) -> None:
        game = self._game()
        if game is None:
            return
        self.registration = DiceRegistration(game, self.controller.root)
        self.flow = "dice" if self.registration.needed and not self.registration.done else ""
        self.flow_text = self.registration.prompt()

    def capture_die(self) -> bool:
        if self.flow != "dice" or self.registration is None:
            return False
        frame, obs = self.session.frame, self.session.observation
        ok, self.flow_text = self.registration.capture(frame.image if frame else None, obs.get("dice") or obs.get("live") or [])
        if self.registration.done:
            self.flow = ""
            self.session.set_game(self.shell.board_game(), reload=True)  # the dice reader loads the registered dice
        return ok
