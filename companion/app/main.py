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

from companion.app import i18n, overlay, paths, theme
from companion.app.board import CameraRecognizer, is_usable
from companion.app.calibration import camera_profiles, load_camera_profile
from companion.app.controller import Controller
from companion.app.datacheck import data_folder_notices
from companion.app.demo import DemoRecognizer, DemoScript, board_geometry, board_size_mm, demo_homography
from companion.app.demo_render import renderer_for
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
from companion.app.widgets import Preview  # noqa: F401  (registers the class for the kv files)
from companion.app.worker import DiceRecognizer, RecognitionWorker
from companion.storage import plain_os_error
from companion.vision.sources import FrameGrabber, RenderedSource, SourceError, open_source

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
        self.screenshot_dir = Path(screenshot_dir) if screenshot_dir else None
        self.exit_after_game = exit_after_game
        self.autoplay = autoplay  # seconds before the demo's autopilot confirms; None: the family taps
        self.language_override = language
        self.camera_profile_override = camera_profile  # --camera-profile PATH (else the one chosen in set-up)
        self.camera_profile = None  # a CameraProfile, or None: the camera is treated as distortion-free
        self.camera_profile_path = ""
        self.camera_notice = ""
        self.tour = bool(self.screenshot_dir) if tour is None else tour
        self.controller: Controller | None = None
        self.grabber: FrameGrabber | None = None
        self.worker: RecognitionWorker | None = None
        self.demo_script: DemoScript | None = None
        self.demo_game = False
        self._demo_step = 0
        self._renderer = None
        self._last_frame = None
        self._last_observation: dict = {}
        self._marks: dict[str, str] = {}
        self._overlay_dirty = True
        self._pose_H: np.ndarray | None = None
        self._demo_view: tuple[str, np.ndarray, dict] | None = None
        self._overlay_for: tuple | None = None  # (preview, screen, frame size) the overlay was last built for
        self.camera_recognizer: CameraRecognizer | None = None
        self._lost_reported = False
        self._shots: list[tuple[str, str, tuple | None]] = []
        self._shot_phase = 0
        self._shot_return = "home"
        self._shot_size = None
        self._toured: set[str] = set()
        self.shots_taken: list[Path] = []
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
        if self.set_camera_profile(self.camera_profile_override or self.settings.get("camera_profile") or "", save=False):
            notices.append(self.camera_notice)
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
        if self.tour:
            self.shoot("home", "home")
            self.shoot("tally", "score-a-kingdom")
            self.shoot("tiles", "score-tiles")
            self.shoot("setup", "setup")
            self.shoot("home", "home-de", lang="de")
        if self.exit_after_game or self.autoplay is not None:
            Clock.schedule_once(self._start_demo_when_idle, 0)

    def _start_demo_when_idle(self, dt) -> None:
        if self._shots:  # the screenshots of the home screens come first
            Clock.schedule_once(self._start_demo_when_idle, 0.05)
            return
        self.start_demo()

    def on_stop(self):
        self._close_source()
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
        self._overlay_dirty = True
        self._track_board()

    def board_game(self) -> str | None:
        """The game whose board the camera looks for: the game played, else the one chosen on the home screen."""
        if self.controller.module is not None:
            return self.controller.module.name
        home = self.sm.get_screen("home")
        game = getattr(home, "_games", {}).get(home.ids.game.text)
        return game["name"] if game else None

    def _track_board(self) -> None:
        if self.camera_recognizer is not None:
            self.camera_recognizer.set_game(self.board_game())

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
    def camera_profiles(self) -> list[Path]:
        return camera_profiles(self.controller.root)

    def set_camera_profile(self, path: str | Path | None, save: bool = True) -> str:
        """Use the camera profile at ``path`` ("" / None: none). A missing or damaged one is explained
        (the returned message, also shown on the home screen) and the app goes on without undistortion."""
        profile, notice = load_camera_profile(path)
        self.camera_profile = profile
        self.camera_profile_path = str(path) if profile is not None else ""
        self.camera_profile_name = profile.name or Path(path).stem if profile is not None else ""
        self.camera_notice = notice
        if notice and hasattr(self, "sm"):
            self.sm.get_screen("home").message = notice
        if save and hasattr(self, "settings"):
            self.settings["camera_profile"] = self.camera_profile_path
            self._save_settings()
        if self.camera_recognizer is not None:
            self.camera_recognizer.set_camera(profile)
        self._overlay_dirty = True
        return notice

    # --- sources and recognition -----------------------------------------------------------------------------
    def _close_source(self) -> None:
        if self.grabber:
            self.grabber.stop()
        if self.worker:
            self.worker.stop()
        self.grabber = self.worker = None

    def _load_demo(self) -> DemoScript:
        if self.demo_script is None:
            self.demo_script = DemoScript.load()
            self._renderer = renderer_for(self.demo_script)
        return self.demo_script

    def _demo_source(self, _arg: str = "") -> RenderedSource:
        script = self._load_demo()
        return RenderedSource(lambda: (self._renderer(script, self._demo_step), {"step": self._demo_step}), fps=theme.PREVIEW_FPS)

    def open_source(self, spec: str) -> None:
        """Open the frame source; a failure is explained and falls back (demo when no camera, else manual)."""
        self._close_source()
        self._lost_reported = False
        source = None
        notice = ""
        if spec == "auto":
            try:
                source = open_source("camera:0")
            except SourceError:
                spec = "demo"
                notice = tr("table:no_camera")
        if source is None:
            try:
                source = open_source(spec, factories={"demo": self._demo_source})
            except SourceError as exc:
                notice = tr("table:bad_video", source=spec, reason=str(exc))
                source = None
        self.source_is_demo = spec == "demo"
        self.camera_live = source is not None and not self.source_is_demo
        self.source_name = source.name if source else tr("table:manual")
        notice = " ".join(n for n in (notice, self.camera_notice) if n)
        if notice:
            self.sm.get_screen("home").message = notice
            self.source_notice = notice
        else:
            self.source_notice = ""
        if source is None:
            return
        self.camera_recognizer = None
        self._pose_H = None
        if self.source_is_demo:
            recognize = DemoRecognizer(self._load_demo())
        else:
            recognize = self.camera_recognizer = CameraRecognizer(self.controller.root, DiceRecognizer(),
                                                                  camera=self.camera_profile)
            self._track_board()
        self.worker = RecognitionWorker(recognize, self._deliver).start()
        self._frame_trigger = Clock.create_trigger(self._on_frame, 0)
        self.grabber = FrameGrabber(source, on_frame=lambda _f: self._frame_trigger()).start()

    def _deliver(self, generation: int, observation: dict, captured_at: float) -> None:
        """Called on the worker thread: hand the result to the UI thread."""
        Clock.schedule_once(lambda dt: self.on_observation(generation, observation, captured_at), 0)

    def on_observation(self, generation: int, observation: dict, captured_at: float | None = None) -> None:
        self._last_observation = observation
        if observation.get("camera_warning"):  # the profile does not fit this camera: said, and set aside
            self.camera_profile, self.camera_notice = None, observation["camera_warning"]
            self.camera_profile_name = ""
            self.sm.get_screen("home").message = self.camera_notice
            if self.sm.current == "setup":
                self.sm.get_screen("setup").show_profiles()
        if "board" in observation:  # a camera: the board tracker's word
            board = observation["board"]
        elif self.source_is_demo and "status" in observation:  # the demo's scripted reading
            board = observation["status"]
        else:
            board = None
        if board is not None:
            self.board_status = board
            self.board_found = is_usable(board)
            self.board_source = str(observation.get("board_source", ""))
        if not self.source_is_demo and "board" in observation:
            H = observation.get("homography")
            self._pose_H = np.asarray(H, np.float64) if H is not None else None
            self.view_angle = float(observation.get("view_angle", 0.0))
            self.view_leaning = bool(observation.get("view_leaning", False))
            self.view_lean_limit = float(observation.get("view_lean_limit", self.view_lean_limit))
        if self.controller.session is not None and (self.demo_game or not self.source_is_demo):
            self.controller.observe(generation, observation, captured_at)
            if self.sm.current == "table":
                self.sm.get_screen("table").refresh_messages()
        self._overlay_dirty = True

    def _current_preview(self):
        screen = self.sm.current_screen
        return screen.ids.get("preview") if hasattr(screen, "ids") else None

    def _on_frame(self, dt) -> None:
        """A new camera frame arrived (the grabber thread pulls this trigger): show it at once."""
        if not self._shots:
            self._show_latest()

    def _tick(self, dt) -> None:
        if self._shots:
            self._process_shot()
            return
        self._show_latest()

    def _show_latest(self) -> None:
        grabber = self.grabber
        if grabber is not None and grabber.status == "lost" and not self._lost_reported:
            self._lost_reported = True
            self.controller.say("error", tr("table:camera_lost"))
            self.source_name = tr("table:manual")
        frame = grabber.latest() if grabber else None
        if frame is not None and frame is not self._last_frame:
            self._last_frame = frame
            if self.worker is not None:  # replaces a frame still waiting: the worker reads the present
                self.worker.submit(self.controller.generation, frame.image, frame.meta, frame.time)
            self._draw(frame)
        elif self._overlay_dirty and self._last_frame is not None:
            self._draw(self._last_frame)

    def board_view(self) -> tuple[np.ndarray | None, dict[str, tuple[float, float]]]:
        """(homography board mm -> frame px, region centres in board mm) of what the preview shows:
        the tracked pose with a real camera, the fixed demo homography only for the demo."""
        if self.source_is_demo:
            if self.demo_script is None:
                return None, {}
            name = self.demo_script.module.name
            if self._demo_view is None or self._demo_view[0] != name:  # once per game, not per frame (board.json)
                self._demo_view = (name, demo_homography(board_size_mm(name)), board_geometry(name))
            return self._demo_view[1], self._demo_view[2]
        info = self.camera_recognizer.info if self.camera_recognizer is not None else None
        if self._pose_H is None or info is None:
            return None, {}
        return self._pose_H, info.geometry()

    def _draw(self, frame) -> None:
        """Per frame: one texture upload. The overlay layer is rebuilt only when something it shows may have
        changed (``_overlay_dirty``: a reading, proposal, highlight, pose, flow or screen) and redrawn only
        when its content did."""
        preview = self._current_preview()
        if preview is None:
            return
        h_px, w_px = frame.image.shape[:2]
        target = (id(preview), self.sm.current, w_px, h_px)
        if self._overlay_dirty or preview.overlay_key is None or target != self._overlay_for:
            self._overlay_for = target
            self._overlay_dirty = False
            self._update_overlay(preview, w_px, h_px)
        if getattr(preview, "shown_frame", None) is not frame:
            preview.show(frame.image)
            preview.shown_frame = frame
            self.preview_frames += 1

    def _update_overlay(self, preview, w_px: int, h_px: int) -> None:
        ctl = self.controller
        proposal = ctl.proposal
        if proposal is not None and any(d.box for d in proposal.dice):
            dice = [{"box": d.box, "value": d.value, "uncertain": d.uncertain} for d in proposal.dice]
        else:
            dice = self._last_observation.get("dice") or self._last_observation.get("live") or []
        homography, geometry = self.board_view()
        marks = {}
        on_table = self.sm.current == "table"
        if on_table and ctl.module is not None and (not self.source_is_demo or self.demo_script is not None
                                                    and ctl.module.name == self.demo_script.module.name):
            marks = self._marks
        outline = None
        points = []
        camera = self.camera_profile if not self.source_is_demo else None
        if self.sm.current == "setup":
            setup = self.sm.get_screen("setup")
            teaching = setup.teaching if setup.flow == "teach" else None
            if setup.flow == "corners" and setup.corners is not None:  # the corners tapped so far, numbered
                points = setup.corners.marks()
                homography = None
            elif teaching is not None and teaching.current is not None:  # the space to tap, where the map expects it
                homography = np.asarray(teaching.pose.homography, np.float64)
                geometry = {teaching.current: teaching.reference.region(teaching.current).center_mm}
                marks = {teaching.current: "proposed"}
            elif (homography is not None and not self.source_is_demo and self.camera_recognizer is not None
                  and self.camera_recognizer.info is not None):
                w, h = self.camera_recognizer.info.map.size_mm
                outline = overlay.project(homography, [(0, 0), (w, 0), (w, h), (0, h)], camera)
        status = ctl.vision_status if on_table else ""
        if on_table and not self.source_is_demo and self.board_status and not self.board_found:
            status = f"{self.board_status} - {status}" if status else self.board_status  # why no marks on the board
        elif on_table and not self.source_is_demo and self.view_leaning:  # often why the dice are misread or missed
            lean = self.tr("camera:lean_short", self.lang, angle=round(self.view_angle))
            status = f"{status} - {lean}" if status else lean
        key = (w_px, h_px, self.sm.current, status, tuple(sorted(marks.items())),
               tuple((tuple(d.get("box") or ()), d.get("value"), bool(d.get("uncertain"))) for d in dice),
               None if homography is None else homography.round(3).tobytes(),
               None if outline is None else outline.round(1).tobytes(), tuple(points), id(camera))
        if key != preview.overlay_key:
            preview.set_overlay(overlay.layer((w_px, h_px), dice, marks, geometry, homography, status, outline, points,
                                              camera), key)

    def redraw_overlay(self) -> None:
        self._overlay_dirty = True

    def board_taught(self) -> None:
        """The family's fitted map was saved: the tracker loads it (a real camera; the demo keeps its own)."""
        if self.camera_recognizer is not None:
            self.camera_recognizer.set_game(self.board_game(), reload=True)
        self._overlay_dirty = True

    def tap_corners(self) -> bool:
        """The table's shortcut while the board is not found: to set-up, tapping the four corners."""
        self.go("setup")
        return self.sm.get_screen("setup").start_corners()

    def corners_tapped(self, corners: list[tuple[float, float]] | None) -> None:
        """Four checked board corners (set-up's "tap the 4 corners") go to the pose stage, which uses them
        while no marker is in view, until the picture changes. The demo finds its board by its markers."""
        if self.camera_recognizer is not None:
            self.camera_recognizer.tap_corners(corners)
        self._overlay_dirty = True

    def dice_registered(self) -> None:
        if self.camera_recognizer is not None:
            self.camera_recognizer.set_game(self.board_game(), reload=True)

    def preview_tapped(self, x: float, y: float) -> None:
        ctl = self.controller
        if self.sm.current == "setup":
            self.sm.get_screen("setup").tap(x, y)
            return
        if ctl.session is None or self.sm.current != "table":
            return
        table = self.sm.get_screen("table")
        if ctl.proposal is not None and ctl.proposal.dice:
            dice = [{"box": d.box} for d in ctl.proposal.dice]
            index = overlay.hit_die(dice, x, y)
            if index is not None:
                table.open_correction(index)
                return
        homography, geometry = self.board_view()
        piece = overlay.hit_space(self._marks, geometry, homography, x, y,
                                  camera=self.camera_profile if not self.source_is_demo else None)
        if piece:
            ctl.choose_piece(piece)

    # --- games -----------------------------------------------------------------------------------------------
    def start_game(self, name: str, players: list[str], mode=None, variant=None, colours=None) -> None:
        self.demo_game = False
        self.controller.new_game(name, players, mode, variant, colours=colours)
        if self.source_is_demo:
            self.controller.say("info", tr("table:demo_diverged"))
        self.go("table")

    def start_demo(self) -> None:
        if not self.source_is_demo:
            self.open_source("demo")
        script = self._load_demo()
        for warning in script.warnings:
            self.sm.get_screen("home").message = warning
        game = script.game
        self.demo_game = True
        self._demo_step = 0
        self.controller.new_game(script.module.name, list(game.players), game.mode, game.variant)
        self.go("table")

    def resume(self, path, continue_from_last_good: bool = False) -> None:
        from companion.journal import JournalError

        try:
            self.controller.resume(path, continue_from_last_good=continue_from_last_good)
        except (JournalError, Exception) as exc:
            self.sm.get_screen("home").message = tr("home:broken", name=Path(path).name, reason=str(exc))
            return
        script = self._load_demo() if self.source_is_demo else None
        history = self.controller.session.history
        self.demo_game = bool(script and self.controller.module.name == script.module.name
                              and history == script.actions[:len(history)])
        self._demo_step = len(history) if self.demo_game else self._demo_step
        self.go("table")

    # --- controller events (UI thread) -----------------------------------------------------------------------
    def _on_event(self, event: str, payload) -> None:
        ctl = self.controller
        table = self.sm.get_screen("table")
        self._overlay_dirty = True
        if event in ("changed", "proposal"):
            self._marks = ctl.highlights()
        if event == "changed":
            if self.demo_game and self.demo_script is not None and ctl.session is not None:
                history = ctl.session.history
                if history == self.demo_script.actions[:len(history)]:
                    self._demo_step = len(history)
                else:
                    self.demo_game = False
                    ctl.say("warn", tr("table:demo_diverged"))
            table.refresh()
            if self.sm.current == "history":
                self.sm.get_screen("history").refresh()
            name = ctl.current_player_name()
            if name and ctl.phase == "decision":
                self.speaker.say(tr("speech:turn", player=name))
        elif event == "proposal":
            table.refresh_proposal()
            self._tour_on_proposal(payload)
            if payload is not None and payload.source in ("camera", "corrected") and self.autoplay is not None and self.demo_game:
                Clock.schedule_once(lambda dt: self._autopilot(payload), self.autoplay)
        elif event == "message":
            table.refresh_messages()
            if payload.level == "illegal":
                self.speaker.say(announcement(payload, i18n.language()))
        elif event == "confirmed":
            self.events.append("confirmation shown")
            table.refresh_messages()
            self.speaker.say(payload)
            self._tour_on_confirm()
        elif event == "read_again":
            if self.camera_recognizer is not None:
                self.camera_recognizer.read_dice_again()
            table.refresh_messages()
        elif event == "entry":
            pass
        elif event == "over":
            self.game_over = True
            self.sm.get_screen("end")  # built lazily by on_pre_enter
            if self.tour:
                self.shoot("scores", "scores-final")
                self.shoot("end", "end", keep=True)
            else:
                self.go("end")
            if self.exit_after_game:
                Clock.schedule_once(self._exit_when_done, 0)

    def _exit_when_done(self, dt) -> None:
        if self._shots:
            Clock.schedule_once(self._exit_when_done, 0.05)
            return
        self.stop()

    # --- the demo's autopilot (plays the family's taps) -----------------------------------------------------
    def _autopilot(self, proposal) -> None:
        ctl = self.controller
        if ctl.proposal is not proposal or not self.demo_game or self._shots:
            if ctl.proposal is proposal and self._shots:
                Clock.schedule_once(lambda dt: self._autopilot(proposal), 0.05)
            return
        self.autopilot_step()

    def autopilot_step(self) -> bool:
        """Correct what the camera misread (through the correction popup) and press Confirm."""
        from companion.referee.dice import dice_values

        ctl = self.controller
        table = self.sm.get_screen("table")
        proposal = ctl.proposal
        if proposal is None or self.demo_script is None:
            return False
        truth = self.demo_script.truth(len(ctl.session.history))
        if truth is not None and proposal.action != truth and proposal.dice:
            values = dice_values(truth)
            for i, die in enumerate(proposal.dice):
                if i < len(values) and die.value != values[i]:
                    table.open_correction(i)
                    popup = table.correction_popup
                    button = next(b for b in popup.content.children if getattr(b, "face", None) == values[i])
                    button.dispatch("on_release")
                    break
            return True  # the corrected proposal arrives as a new proposal event
        table.ids.confirm.dispatch("on_release")
        return True

    # --- screenshots ------------------------------------------------------------------------------------------
    def shoot(self, screen: str, name: str, lang: str | None = None, size: tuple | None = None, keep: bool = False) -> None:
        """Queue a screenshot of ``screen`` as ``<dir>/<name>.png`` (taken on the next frames)."""
        if not self.screenshot_dir or name in self._toured:
            return
        self._toured.add(name)
        self._shots.append((screen, name, (lang, size, keep)))

    def _process_shot(self) -> None:
        screen, name, (lang, size, keep) = self._shots[0]
        if self._shot_phase == 0:
            self._shot_return = self.sm.current
            self._shot_lang = self.lang
            self._shot_size = tuple(Window.size)
            if lang:
                self.set_language(lang)
            if size:
                Window.size = size
            self.go(screen)
            self._shot_waits = 0
            self._overlay_dirty = True
            self._show_latest()
            self._shot_phase = 1
        elif self._shot_phase < 3 or (self._shot_waits < 5 * theme.PREVIEW_FPS and not self._demo_frame_current()):
            self._shot_phase += 1
            self._shot_waits += 1
            self._overlay_dirty = True  # a resized window needs the preview drawn again
            self._show_latest()
        else:
            self.screenshot_dir.mkdir(parents=True, exist_ok=True)
            target = self.screenshot_dir / f"{name}.png"
            written = Window.screenshot(name=str(self.screenshot_dir / f"{name}_.png"))
            if written:
                Path(written).replace(target)
                self.shots_taken.append(target)
            if lang:
                self.set_language(self._shot_lang)
            if size:
                Window.size = self._shot_size
            if not keep:
                self.go(self._shot_return)
            self._shots.pop(0)
            self._shot_phase = 0

    def _demo_frame_current(self) -> bool:
        """The demo's picture shows the present step (a screenshot waits up to ~5 s for its scene to be drawn)."""
        if self.sm.current in ("table", "setup", "tiles") and self.grabber is not None and self._last_frame is None:
            return False  # no picture yet (the first scene is still being drawn)
        if not (self.source_is_demo and self.demo_game) or self.sm.current not in ("table", "setup"):
            return True
        return self._last_frame is not None and self._last_frame.meta.get("step") == self._demo_step

    def _tour_on_proposal(self, proposal) -> None:
        if not self.tour or proposal is None or not self.demo_game:
            return
        if proposal.dice and not proposal.uncertain:
            self.shoot("table", "table-dice")
        elif proposal.uncertain:
            self.shoot("table", "table-uncertain")
        elif self.controller.phase == "decision":
            self.shoot("table", "table-choice")

    def _tour_on_confirm(self) -> None:
        if not self.tour or not self.demo_game or self.demo_script is None:
            return
        if len(self.controller.session.history) >= len(self.demo_script) // 2:
            self.shoot("scores", "scores")
            self.shoot("history", "history")
            self.shoot("rules", "rules")
