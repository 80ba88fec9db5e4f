"""The Kivy app: screens over the controller, the frame source, the recognition worker.

Import only after the environment is set (``companion.app.cli.prepare_environment``): Kivy reads its
configuration from the environment at import time.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from kivy.app import App
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.lang import Builder
from kivy.properties import BooleanProperty, NumericProperty, StringProperty
from kivy.uix.screenmanager import NoTransition, ScreenManager

from companion.app import i18n, paths, theme
from companion.app.camera_session import CameraSession, Overlay
from companion.app.controller import Controller
from companion.app.datacheck import data_folder_notices
from companion.app.i18n import tr
from companion.app.screens import (
    EndScreen,
    HistoryScreen,
    HomeScreen,
    RulesScreen,
    ScoresScreen,
    SetupScreen,
    TableScreen,
    TallyScreen,
    TilesScreen,
)
from companion.app.speech import Speaker, announcement
from companion.app.tour import Autopilot, ScreenshotTour
from companion.app.widgets import Preview  # noqa: F401  (registers the class for the kv files)
from companion.storage import plain_os_error

KV = Path(__file__).resolve().parent / "kv"
KV_FILES = ["widgets.kv", "home.kv", "setup.kv", "table.kv", "scores.kv", "rules.kv", "history.kv", "end.kv", "tally.kv",
            "tiles.kv"]
PHONE_RATIO = 1.1  # taller than wide by this much: the portrait (phone) layout


class CompanionApp(App):
    lang = StringProperty(i18n.DEFAULT)
    portrait = BooleanProperty(False)
    board_found = BooleanProperty(False)
    board_status = StringProperty("")
    board_source = StringProperty("")  # markers | tracked | tapped (the family's four corners) | none
    camera_profile_name = StringProperty("")
    camera_live = BooleanProperty(False)  # a real picture source (not the demo): its board pose is tracked
    view_angle = NumericProperty(0)  # degrees between the table's normal and the camera's view of the board
    view_leaning = BooleanProperty(False)  # so oblique that dice are read poorly: the app advises
    view_lean_limit = NumericProperty(45)  # the pose config's view.lean_warn_deg, as the camera path reports it
    source_name = StringProperty("")
    speech_label = StringProperty("")

    def __init__(self, source: str = "auto", data_dir: str | None = None, screenshot_dir: str | None = None,
                 exit_after_game: bool = False, autoplay: float | None = None, language: str | None = None,
                 tour: bool | None = None, camera_profile: str | None = None, **kw):
        super().__init__(**kw)
        self.title = "companion"
        self.source_spec = source
        self.data_dir = data_dir
        self.exit_after_game = exit_after_game
        self.language_override = language
        self.camera_profile_override = camera_profile  # --camera-profile PATH (else the one chosen in set-up)
        self.tour = ScreenshotTour(self, screenshot_dir, bool(screenshot_dir) if tour is None else tour)
        self.autopilot = Autopilot(self, autoplay, self.tour)
        self.controller: Controller | None = None
        self.session: CameraSession | None = None
        self._marks: dict[str, str] = {}
        self._overlay_for: tuple | None = None  # (preview, screen, frame size) the overlay was last built for
        self.preview_frames = 0
        self.events: list[str] = []
        self.colours = [0, 1, 2, 3, 0, 1]
        self.home_shown_at: float | None = None
        self.game_over = False

    # --- building ------------------------------------------------------------------------------------
    def build(self):
        for name in KV_FILES:
            Builder.load_file(str(KV / name))
        self.controller = Controller(self.data_dir, listener=self._on_event)
        notices: list[str] = []  # a damaged file in the data folder is named on the home screen, never fatal
        theme.load_overrides(self.controller.root / "theme.json", notices)
        self.settings = paths.load_settings(self.controller.root, notices)
        notices += data_folder_notices(self.controller.root)
        i18n.set_language(self.language_override or self.settings.get("language") or i18n.DEFAULT)
        self.lang = i18n.language()
        self.speaker = Speaker(bool(self.settings.get("speech")))
        self._frame_trigger = Clock.create_trigger(self._on_frame, 0)
        self.session = CameraSession(self.controller.root, self._deliver, on_frame=lambda: self._frame_trigger())
        if self.set_camera_profile(self.camera_profile_override or self.settings.get("camera_profile") or "", save=False):
            notices.append(self.session.profile_notice)
        self._update_speech_label()
        self.sm = ScreenManager(transition=NoTransition())
        for cls in (HomeScreen, SetupScreen, TableScreen, ScoresScreen, RulesScreen, HistoryScreen, EndScreen, TallyScreen,
                    TilesScreen):
            self.sm.add_widget(cls())
        if notices:
            self.sm.get_screen("home").message = "\n".join(notices)
        self.open_source(self.source_spec)
        Window.bind(on_resize=self._on_resize)
        self._on_resize(Window, *Window.size)
        Clock.schedule_interval(self._tick, 1.0 / theme.PREVIEW_FPS)
        return self.sm

    def on_start(self):
        self.home_shown_at = time.perf_counter()
        self.sm.get_screen("home").refresh()
        self.tour.start()
        if self.exit_after_game or self.autopilot.delay is not None:
            self.tour.when_done(self.start_demo)  # the screenshots of the home screens come first

    def on_stop(self):
        if self.session:
            self.session.close()
        if self.controller:
            self.controller.close()

    def tr(self, key: str, _lang: str | None = None, **params) -> str:
        return tr(key, **params)

    def player_colour(self, index: int) -> int:
        colours = self.controller.colours if self.controller is not None else self.colours
        return colours[index % len(colours)] % len(theme.PLAYER_COLOURS)

    def go(self, screen: str) -> None:
        if screen == "table" and self.controller.session is None:
            screen = "home"
        self.sm.current = screen
        self.session.overlay_dirty = True
        self.session.set_game(self.board_game())

    def board_game(self) -> str | None:
        """The game whose board the camera looks for: the game played, else the one chosen on the home screen."""
        if self.controller.module is not None:
            return self.controller.module.name
        home = self.sm.get_screen("home")
        game = getattr(home, "_games", {}).get(home.ids.game.text)
        return game["name"] if game else None

    def _on_resize(self, window, width, height):
        self.portrait = height > width * PHONE_RATIO

    # --- settings ----------------------------------------------------------------------------------------
    def toggle_language(self) -> None:
        langs = list(i18n.LANGUAGES)
        self.set_language(langs[(langs.index(self.lang) + 1) % len(langs)])

    def set_language(self, lang: str) -> None:
        i18n.set_language(lang)
        self.lang = lang
        self.settings["language"] = lang
        self._save_settings()
        self._update_speech_label()
        current = self.sm.current_screen
        if hasattr(current, "refresh"):
            current.refresh()
        self.sm.get_screen("table").refresh(full=True)

    def _save_settings(self) -> None:
        try:
            paths.save_settings(self.controller.root, self.settings)
        except OSError as exc:  # the setting holds for this session; the family is told it was not kept
            self.sm.get_screen("home").message = tr("home:settings_not_saved", reason=plain_os_error(exc))

    def toggle_speech(self) -> None:
        if not self.speaker.available:
            return
        self.speaker.enabled = not self.speaker.enabled
        self.settings["speech"] = self.speaker.enabled
        self._save_settings()
        self._update_speech_label()

    def _update_speech_label(self) -> None:
        if not self.speaker.available:
            self.speech_label = tr("home:speech_missing")
        else:
            self.speech_label = tr("home:speech_on" if self.speaker.enabled else "home:speech_off")

    # --- the camera profile (lens undistortion for the pose stage) --------------------------------------------
    def set_camera_profile(self, path: str | Path | None, save: bool = True) -> str:
        """Use the camera profile at ``path`` ("" / None: none). A missing or damaged one is explained
        (the returned message, also shown on the home screen) and the app goes on without undistortion."""
        notice = self.session.set_profile(path)
        self.camera_profile_name = self.session.profile_name
        if notice and hasattr(self, "sm"):
            self.sm.get_screen("home").message = notice
        if save and hasattr(self, "settings"):
            self.settings["camera_profile"] = self.session.profile_path
            self._save_settings()
        return notice

    # --- sources and recognition -----------------------------------------------------------------------------
    def open_source(self, spec: str) -> None:
        """Open the frame source; a failure is explained and falls back (demo when no camera, else manual)."""
        session = self.session
        notice = session.open(spec)
        self.camera_live = session.live
        self.source_name = session.name
        if notice:
            self.sm.get_screen("home").message = notice

    def _deliver(self, generation: int, observation: dict, captured_at: float) -> None:
        """Called on the worker thread: hand the result to the UI thread."""
        Clock.schedule_once(lambda dt: self.on_observation(generation, observation, captured_at), 0)

    def on_observation(self, generation: int, observation: dict, captured_at: float | None = None) -> None:
        session = self.session
        warning = session.take(observation)
        if warning:  # the profile does not fit this camera: said, and set aside
            self.camera_profile_name = ""
            self.sm.get_screen("home").message = warning
            if self.sm.current == "setup":
                self.sm.get_screen("setup").show_profiles()
        board = session.board
        self.board_status, self.board_found, self.board_source = board.status, board.found, board.source
        self.view_angle, self.view_leaning, self.view_lean_limit = board.view_angle, board.leaning, board.lean_limit
        if self.controller.session is not None and session.feeds_the_game():
            self.controller.observe(generation, observation, captured_at)
            if self.sm.current == "table":
                self.sm.get_screen("table").refresh_messages()
        session.overlay_dirty = True

    def _current_preview(self):
        screen = self.sm.current_screen
        return screen.ids.get("preview") if hasattr(screen, "ids") else None

    def _on_frame(self, dt) -> None:
        """A new camera frame arrived (the grabber thread pulls this trigger): show it at once."""
        if not self.tour.busy:
            self.show_latest()

    def _tick(self, dt) -> None:
        if self.tour.busy:
            self.tour.step()
            return
        self.show_latest()

    def show_latest(self) -> None:
        session = self.session
        if session.newly_lost():
            self.controller.say("error", tr("table:camera_lost"))
            self.source_name = session.name
        frame = session.next_frame(self.controller.generation)
        if frame is not None:
            self._draw(frame)
        elif session.overlay_dirty and session.frame is not None:
            self._draw(session.frame)

    def _draw(self, frame) -> None:
        """Per frame: one texture upload. The overlay layer is rebuilt only when something it shows may have
        changed (the session's ``overlay_dirty``: a reading, proposal, highlight, pose, flow or screen) and
        redrawn only when its content did."""
        preview = self._current_preview()
        if preview is None:
            return
        h_px, w_px = frame.image.shape[:2]
        target = (id(preview), self.sm.current, w_px, h_px)
        if self.session.overlay_dirty or preview.overlay_key is None or target != self._overlay_for:
            self._overlay_for = target
            self.session.overlay_dirty = False
            key, draw = self.session.overlay((w_px, h_px), self._overlay_wanted(), self.sm.current)
            if key != preview.overlay_key:
                preview.set_overlay(draw(), key)
        if getattr(preview, "shown_frame", None) is not frame:
            preview.show(frame.image)
            preview.shown_frame = frame
            self.preview_frames += 1

    def _overlay_wanted(self) -> Overlay:
        ctl, session = self.controller, self.session
        proposal = ctl.proposal
        want = Overlay()
        if proposal is not None and any(d.box for d in proposal.dice):
            want.dice = [{"box": d.box, "value": d.value, "uncertain": d.uncertain} for d in proposal.dice]
        if self.sm.current == "table":
            if ctl.module is not None and session.shows_board_of(ctl.module.name):
                want.marks = self._marks
            want.status = session.picture_status(ctl.vision_status)
        elif self.sm.current == "setup":
            setup = self.sm.get_screen("setup")
            teaching = setup.teaching if setup.flow == "teach" else None
            if setup.flow == "corners" and setup.corners is not None:  # the corners tapped so far, numbered
                want.points = setup.corners.marks()
            elif teaching is not None and teaching.current is not None:  # the space to tap, where the map expects it
                want.focus = (np.asarray(teaching.pose.homography, np.float64),
                              {teaching.current: teaching.reference.region(teaching.current).center_mm})
                want.marks = {teaching.current: "proposed"}
            else:
                want.outline = True
        return want

    def redraw_overlay(self) -> None:
        self.session.overlay_dirty = True

    def board_taught(self) -> None:
        """The family's fitted map was saved: the tracker loads it (a real camera; the demo keeps its own)."""
        self.session.set_game(self.board_game(), reload=True)
        self.session.overlay_dirty = True

    def tap_corners(self) -> bool:
        """The table's shortcut while the board is not found: to set-up, tapping the four corners."""
        self.go("setup")
        return self.sm.get_screen("setup").start_corners()

    def corners_tapped(self, corners: list[tuple[float, float]] | None) -> None:
        self.session.tap_corners(corners)

    def dice_registered(self) -> None:
        self.session.set_game(self.board_game(), reload=True)

    def preview_tapped(self, x: float, y: float) -> None:
        ctl = self.controller
        if self.sm.current == "setup":
            self.sm.get_screen("setup").tap(x, y)
            return
        if ctl.session is None or self.sm.current != "table":
            return
        table = self.sm.get_screen("table")
        if ctl.proposal is not None and ctl.proposal.dice:
            index = self.session.die_at([{"box": d.box} for d in ctl.proposal.dice], x, y)
            if index is not None:
                table.open_correction(index)
                return
        piece = self.session.space_at(self._marks, x, y)
        if piece:
            ctl.choose_piece(piece)

    # --- games -----------------------------------------------------------------------------------------------
    def start_game(self, name: str, players: list[str], mode=None, variant=None, colours=None) -> None:
        self.session.demo.stop()
        self.controller.new_game(name, players, mode, variant, colours=colours)
        if self.session.is_demo:
            self.controller.say("info", tr("table:demo_diverged"))
        self.go("table")

    def start_demo(self) -> None:
        if not self.session.is_demo:
            self.open_source("demo")
        script = self.session.demo.load()
        for warning in script.warnings:
            self.sm.get_screen("home").message = warning
        game = script.game
        self.session.demo.start()
        self.controller.new_game(script.module.name, list(game.players), game.mode, game.variant)
        self.go("table")

    def resume(self, path, continue_from_last_good: bool = False) -> None:
        from companion.journal import JournalError

        try:
            self.controller.resume(path, continue_from_last_good=continue_from_last_good)
        except (JournalError, Exception) as exc:
            self.sm.get_screen("home").message = tr("home:broken", name=Path(path).name, reason=str(exc))
            return
        self.session.resume_game(self.controller.module.name, self.controller.session.history)
        self.go("table")

    # --- controller events (UI thread) -----------------------------------------------------------------------
    def _on_event(self, event: str, payload) -> None:
        ctl = self.controller
        table = self.sm.get_screen("table")
        demo = self.session.demo
        self.session.overlay_dirty = True
        if event in ("changed", "proposal"):
            self._marks = ctl.highlights()
        if event == "changed":
            if demo.following and demo.script is not None and ctl.session is not None:
                if not demo.follow(ctl.session.history):
                    ctl.say("warn", tr("table:demo_diverged"))
            table.refresh()
            if self.sm.current == "history":
                self.sm.get_screen("history").refresh()
            name = ctl.current_player_name()
            if name and ctl.phase == "decision":
                self.speaker.say(tr("speech:turn", player=name))
        elif event == "proposal":
            table.refresh_proposal()
            self.tour.on_proposal(payload)
            self.autopilot.on_proposal(payload)
        elif event == "message":
            table.refresh_messages()
            if payload.level == "illegal":
                self.speaker.say(announcement(payload, i18n.language()))
        elif event == "confirmed":
            self.events.append("confirmation shown")
            table.refresh_messages()
            self.speaker.say(payload)
            self.tour.on_confirm()
        elif event == "read_again":
            self.session.read_dice_again()
            table.refresh_messages()
        elif event == "entry":
            pass
        elif event == "over":
            self.game_over = True
            self.sm.get_screen("end")  # built lazily by on_pre_enter
            if not self.tour.on_over():
                self.go("end")
            if self.exit_after_game:
                self.tour.when_done(self.stop)
