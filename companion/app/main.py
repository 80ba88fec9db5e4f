"""The Kivy app: a short composer of the game flow, the camera session, the screens and the tour.

- :class:`~companion.app.controller.Controller` -- the game flow (UI-free);
- :class:`~companion.app.camera_session.CameraSession` -- the camera (UI-free): source, worker, frames,
  the board seen, the overlay;
- :mod:`companion.app.screens` -- the screens, each given the controller, the session, the shared
  :class:`~companion.app.screens.ViewState` (language, window shape, camera state) and this app as
  their ``shell`` (navigation and app-wide actions);
- :mod:`companion.app.tour` -- the screenshot tour and the demo's autopilot.

Import only after the environment is set (``companion.app.cli.prepare_environment``): Kivy reads its
configuration from the environment at import time.
"""

from __future__ import annotations

from pathlib import Path

from kivy.app import App
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.lang import Builder
from kivy.uix.screenmanager import NoTransition, ScreenManager

from companion.app import i18n, paths, theme
from companion.app.camera_session import CameraSession
from companion.app.controller import Controller
from companion.app.datacheck import data_folder_notices
from companion.app.dice_teaching import DiceProfiles
from companion.app.flow_events import FlowEvents
from companion.app.i18n import tr
from companion.app.permission import CameraPermission, needs_camera
from companion.app.screens import SCREENS, PreviewScreen, ViewState
from companion.app.speech import Speaker
from companion.app.tour import SIZES, Autopilot, LayoutTour, ScreenshotTour
from companion.app.widgets import LineList, Preview  # noqa: F401  (registers the classes for the kv files)
from companion.storage import plain_os_error

KV = Path(__file__).resolve().parent / "kv"
KV_FILES = ["widgets.kv", "home.kv", "setup.kv", "table.kv", "scores.kv", "rules.kv", "history.kv", "end.kv", "tally.kv",
            "tiles.kv"]
KV_FILES += ["dice_profiles.kv", "setup_fix.kv"]
PHONE_RATIO = 1.1  # taller than wide by this much: the portrait (phone) layout


class CompanionApp(App):
    def __init__(self, source: str = "auto", data_dir: str | None = None, screenshot_dir: str | None = None,
                 exit_after_game: bool = False, autoplay: float | None = None, language: str | None = None,
                 tour: bool | None = None, camera_profile: str | None = None, game: str | None = None,
                 layouts: tuple | None = None, camera_permission: CameraPermission | None = None, **kw):
        super().__init__(**kw)
        self.title = "companion"
        self.source_spec = source
        self.data_dir = data_dir
        self.exit_after_game = exit_after_game
        self.language_override = language
        self.camera_profile_override = camera_profile  # --camera-profile PATH (else the one chosen in set-up)
        self.permission = camera_permission or CameraPermission()  # Android asks; elsewhere granted
        self.demo_game = game  # --game G: the game chosen at start (and, on the demo source, its demo played)
        self.ui = ViewState()
        self.tour = ScreenshotTour(self, screenshot_dir, bool(screenshot_dir) if tour is None else tour)
        self.autopilot = Autopilot(self, autoplay, self.tour)
        self.layouts_wanted = layouts  # (sizes,) of the layout tour (--layouts), run after the start and then quit
        self.layout_tour: LayoutTour | None = None
        self._camera_game: str | None = None  # the game chosen at home when the camera set-up was opened there
        self.controller: Controller | None = None
        self.session: CameraSession | None = None
        self.preview_frames = 0
        self.events: list[str] = []
        self.game_over = False

    # --- building ------------------------------------------------------------------------------------
    def build(self):
        for name in KV_FILES:
            if str(KV / name) not in Builder.files:  # a second app in the same process (tests) reuses the rules
                Builder.load_file(str(KV / name))
        self.controller = Controller(self.data_dir, listener=FlowEvents(self))
        self.dice_profiles = DiceProfiles(self.controller.root)
        notices: list[str] = []  # a damaged file in the data folder is named on the home screen, never fatal
        theme.load_overrides(self.controller.root / "theme.json", notices)
        self.settings = paths.load_settings(self.controller.root, notices)
        notices += data_folder_notices(self.controller.root)
        i18n.set_language(self.language_override or self.settings.get("language") or i18n.DEFAULT)
        self.ui.lang = i18n.language()
        self.speaker = Speaker(bool(self.settings.get("speech")))
        frame_trigger = Clock.create_trigger(self._on_frame, 0)
        self.session = CameraSession(self.controller.root, self._deliver, on_frame=lambda: frame_trigger())
        if self.set_camera_profile(self.camera_profile_override or self.settings.get("camera_profile") or "", save=False):
            notices.append(self.session.profile_notice)
        self.ui.show_speech(self.speaker)
        self.sm = ScreenManager(transition=NoTransition())
        for cls in SCREENS:
            self.sm.add_widget(cls(controller=self.controller, session=self.session, ui=self.ui, shell=self))
        if notices:
            self.sm.get_screen("home").message = "\n".join(notices)
        self.open_camera(self.source_spec)
        Window.bind(on_resize=self._on_resize)
        self._on_resize(Window, *Window.size)
        Clock.schedule_interval(self._tick, 1.0 / theme.PREVIEW_FPS)
        return self.sm

    def on_start(self):
        home = self.sm.get_screen("home")
        home.refresh()
        if self.demo_game:
            home.choose(self.demo_game)
        self.tour.start()
        if self.layouts_wanted is not None:
            self.tour.when_done(self.start_layout_tour)
        elif self.exit_after_game or self.autopilot.delay is not None or (self.demo_game and self.source_spec == "demo"):
            self.tour.when_done(self.start_demo)  # the screenshots of the home screens come first

    def start_layout_tour(self, sizes=None, folder=None) -> LayoutTour:
        """Every screen of every game at each size and language, checked and (with a folder) saved."""
        if not self.session.is_demo:
            self.open_source("demo")
        self.layout_tour = LayoutTour(self, folder if folder is not None else self.tour.folder,
                                      sizes=sizes or self.layouts_wanted or SIZES)
        if self.layouts_wanted is not None:
            self.layout_tour.on_done = self.stop
        return self.layout_tour

    def on_stop(self):
        if self.session:
            self.session.close()
        if self.controller:
            self.controller.close()

    def _on_resize(self, window, width, height):
        self.ui.portrait = height > width * PHONE_RATIO

    # --- navigation ------------------------------------------------------------------------------------
    def go(self, screen: str) -> None:
        if screen == "table" and self.controller.session is None:
            screen = "home"
        if screen in ("home", "table") or screen == "setup" and self.sm.current == "home":  # set-up from home: its game
            self._camera_game = self.sm.get_screen("home").chosen_game() if screen == "setup" else None
        self.sm.current = screen
        self.session.overlay_dirty = True
        self.session.set_game(self.board_game())
        self.use_dice_profile()

    def board_game(self) -> str | None:
        """The game whose board the camera looks for: the one chosen at home when the set-up was opened there, else
        the game played, else the one chosen at home."""
        if self._camera_game or self.controller.module is None:
            return self._camera_game or self.sm.get_screen("home").chosen_game()
        return self.controller.module.name

    def use_dice_profile(self) -> None:
        """The camera reads the game's dice with the profile chosen for it; confirmed rolls teach that profile."""
        self.dice_profiles.use_for(self.board_game(), self.controller, self.session)

    def tap_corners(self) -> bool:
        """The table's shortcut while the board is not found: to set-up, tapping the four corners."""
        self.go("setup")
        return self.sm.get_screen("setup").start_corners()

    # --- settings ----------------------------------------------------------------------------------------
    def toggle_language(self) -> None:
        langs = list(i18n.LANGUAGES)
        self.set_language(langs[(langs.index(self.ui.lang) + 1) % len(langs)])

    def set_language(self, lang: str) -> None:
        i18n.set_language(lang)
        self.ui.lang = lang
        self._save_setting("language", lang)
        self.ui.show_speech(self.speaker)
        current = self.sm.current_screen
        if hasattr(current, "refresh"):
            current.refresh()
        self.sm.get_screen("table").refresh(full=True)

    def toggle_speech(self) -> None:
        if not self.speaker.available:
            return
        self.speaker.enabled = not self.speaker.enabled
        self._save_setting("speech", self.speaker.enabled)
        self.ui.show_speech(self.speaker)

    def set_camera_profile(self, path: str | Path | None, save: bool = True) -> str:
        """Use the camera profile at ``path`` ("" / None: none). A missing or damaged one is explained
        (the returned message, also shown on the home screen) and the app goes on without undistortion."""
        notice = self.session.set_profile(path)
        self.ui.show_camera(self.session)
        if notice and hasattr(self, "sm"):
            self.sm.get_screen("home").message = notice
        if save:
            self._save_setting("camera_profile", self.session.profile_path)
        return notice

    def _save_setting(self, key: str, value) -> None:
        self.settings[key] = value
        try:
            paths.save_settings(self.controller.root, self.settings)
        except OSError as exc:  # the setting holds for this session; the family is told it was not kept
            self.sm.get_screen("home").message = tr("home:settings_not_saved", reason=plain_os_error(exc))

    # --- the camera ------------------------------------------------------------------------------------------
    def open_camera(self, spec: str | None = None) -> None:
        """Open ``spec`` (default: the source asked for at start); a camera waits for its permission, the demo
        showing meanwhile (:meth:`CameraPermission.open_when_granted`)."""
        spec = spec or (self.source_spec if needs_camera(self.source_spec) else "auto")
        self.permission.open_when_granted(spec, self.open_source, self._say_on_home,
                                          lambda then: Clock.schedule_once(lambda dt: then(), 0))

    def _say_on_home(self, key: str) -> None:
        self.sm.get_screen("home").message = tr(key)

    def open_source(self, spec: str) -> None:
        """Open the frame source; a failure is explained and falls back (demo when no camera, else manual)."""
        notice = self.session.open(spec)
        self.ui.show_camera(self.session)
        if notice:
            self.sm.get_screen("home").message = notice

    def _deliver(self, generation: int, observation: dict, captured_at: float) -> None:
        """Called on the worker thread: hand the result to the UI thread."""
        Clock.schedule_once(lambda dt: self.on_observation(generation, observation, captured_at), 0)

    def on_observation(self, generation: int, observation: dict, captured_at: float | None = None) -> None:
        session = self.session
        warning = session.take(observation)
        self.ui.show_camera(session)
        if warning:  # the profile does not fit this camera: said, and set aside
            self.sm.get_screen("home").message = warning
            if self.sm.current == "setup":
                self.sm.get_screen("setup").show_profiles()
        if hasattr(self.sm.current_screen, "on_camera"):  # teaching the dice: the dice in view
            self.sm.current_screen.on_camera(observation)
        if self.controller.session is not None and session.feeds_the_game():
            self.controller.observe(generation, observation, captured_at)
            if self.sm.current == "table":
                self.sm.get_screen("table").refresh_messages()
        session.overlay_dirty = True

    def _on_frame(self, dt) -> None:
        """A new camera frame arrived (the grabber thread pulls this trigger): show it at once."""
        if not self.tour.busy and not (self.layout_tour is not None and self.layout_tour.busy):
            self.show_latest()

    def _tick(self, dt) -> None:
        if self.tour.busy:
            self.tour.step()
            return
        if self.layout_tour is not None and self.layout_tour.busy:  # it steps itself, and shows what it shoots
            return
        self.show_latest()

    def show_latest(self) -> None:
        """The newest frame on the screen shown (and to the worker); the overlay again when it may have changed."""
        session = self.session
        stopped = session.newly_stopped()
        if stopped == "lost":
            self.controller.say("error", tr("table:camera_lost"))
        elif stopped == "ended":
            self.controller.say("warn", tr("table:source_ended", source=session.name))
        if stopped:
            self.ui.show_camera(session)
        frame = session.next_frame(self.controller.generation)
        if frame is None and session.overlay_dirty:
            frame = session.frame
        screen = self.sm.current_screen
        if frame is not None and isinstance(screen, PreviewScreen) and screen.show_frame(frame):
            self.preview_frames += 1

    # --- games -----------------------------------------------------------------------------------------------
    def start_game(self, name: str, players: list[str], mode=None, variant=None, colours=None, options=None) -> None:
        self.session.demo.stop()
        self.controller.new_game(name, players, mode, variant, colours=colours, options=options)
        if self.session.is_demo:
            self.controller.say("info", tr("table:demo_diverged"))
        self.go("table")

    def start_demo(self, game: str | None = None) -> None:
        """Play the demo recording of ``game`` (its own board in the picture; None: the game chosen at start)."""
        if not self.session.is_demo:
            self.open_source("demo")
        script = self.session.demo.load(game or self.demo_game)
        for warning in script.warnings:
            self.sm.get_screen("home").message = warning
        self.session.demo.start()
        self.controller.new_game(script.module.name, list(script.game.players), script.game.mode, script.game.variant)
        self.go("table")

    def resume(self, path, continue_from_last_good: bool = False) -> None:
        """Resume a journal; a damaged one only from its last good line, when the family chose so."""
        try:
            self.controller.resume(path, continue_from_last_good=continue_from_last_good)
        except Exception as exc:  # a damaged or outdated journal: said, and the app stays on the home screen
            self.sm.get_screen("home").message = tr("home:broken", name=Path(path).name, reason=str(exc))
            return
        self.session.resume_game(self.controller.module.name, self.controller.session.history)
        self.go("table")
