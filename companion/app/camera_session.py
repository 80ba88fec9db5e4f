"""The camera side of the app, without any UI (no Kivy import; tested headless).

One :class:`CameraSession` holds everything between the camera and the screens:

- the frame source (a camera, a video, a folder of pictures, or the demo recording drawn on the fly) and
  its grabber thread; a source that cannot be opened is explained in plain words and falls back (the
  demo when there is no camera, else manual entry);
- the recognition worker thread and the per-frame recognition it runs, ``recognize(image, meta) ->
  observation``: the demo's scripted reader, or for a real camera the one pluggable object that
  :func:`camera_recognizer` builds (the table pipeline: board pose, board, dice, matched against the
  game: :mod:`companion.app.table_camera`) -- the one line to change for another pipeline;
- the latest frame (``frame``) and the latest observation (``observation``);
- the board as the camera sees it (:class:`BoardSeen`: found or why not, its pose, the view angle);
- the camera profile chosen (lens undistortion for the pose stage);
- the overlay over the picture: what a screen asks to show (:class:`Overlay`) drawn by
  :mod:`companion.app.overlay` through the board's pose, redrawn only when its content changes;
- the demo recording played along (:class:`DemoPlayback`).

Threads: the grabber calls ``on_frame()`` and the worker ``deliver(generation, observation, captured_at)``
from their own threads; the app hands both over to its UI thread. Everything else runs on the UI thread.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from companion.app import overlay, theme
from companion.app.calibration import camera_profiles, load_camera_profile
from companion.app.demo import DemoScript, board_geometry, board_size_mm, demo_view
from companion.app.demo_render import renderer_for
from companion.app.i18n import camera_words, tr
from companion.app.table_camera import TableRecognizer
from companion.app.worker import RecognitionWorker
from companion.games.core import GameError
from companion.vision.sources import FrameGrabber, RenderedSource, SourceError, open_source

Deliver = Callable[[int, dict[str, Any], float], None]
Geometry = dict[str, tuple[float, float]]
USABLE = ("board found", "markers partly hidden")  # the pose stage's words for a board whose spaces can be marked


def is_usable(status: str) -> bool:
    return status in USABLE


def camera_recognizer(user_dir: Path, camera: Any) -> TableRecognizer:
    """The per-frame recognition of a real camera (``recognize(image, meta) -> observation``): the table
    pipeline (board pose, board reading, dice, matched against the game). The one place to plug in another
    pipeline; the session also asks it to ``set_game``, ``set_position``, ``set_camera``, ``tap_corners`` and
    ``read_dice_again``, and reads its board ``info``."""
    return TableRecognizer(user_dir, camera=camera)


@dataclass
class BoardSeen:
    """The board as the camera sees it, from the latest observation that said."""

    status: str = ""  # the pose stage's words ("board found", "board not in view", ...); "" before any
    found: bool = False  # usable: its spaces can be marked
    source: str = ""  # where the pose came from: markers | tracked | tapped | none
    homography: np.ndarray | None = None  # board mm -> frame px (a real camera, while the pose is usable)
    view_angle: float = 0.0  # degrees between the table's normal and the camera's view of the board
    leaning: bool = False  # so oblique that dice are read poorly
    lean_limit: float = 45.0  # the pose config's view.lean_warn_deg, as the camera path reports it


@dataclass
class Overlay:
    """What a screen asks to show over its picture; the session adds the board's pose and the lens."""

    dice: list[dict[str, Any]] | None = None  # boxes with value and uncertain; None: the latest reading's dice
    marks: dict[str, str] = field(default_factory=dict)  # space id -> legal | proposed | illegal
    status: str = ""  # one line over the picture
    points: list[tuple[tuple[float, float], str]] = field(default_factory=list)  # tapped points (no board marks then)
    focus: tuple[np.ndarray, Geometry] | None = None  # (homography, geometry) to mark instead of the board's
    outline: bool = False  # the board's outline where a real camera found it


class DemoPlayback:
    """The bundled demo recording played along: its script, the drawing of its frames, the step the picture
    shows, and whether the game at the table still follows the recording (``following``)."""

    def __init__(self) -> None:
        self.script: DemoScript | None = None
        self.renderer: Callable[[DemoScript, int], np.ndarray] | None = None
        self.step = 0
        self.following = False
        self._loaded: dict[str, tuple[DemoScript, Callable[[DemoScript, int], np.ndarray]]] = {}

    def load(self, game: str | None = None) -> DemoScript:
        """The recording of ``game`` (each game has its own, kept with its drawn frames once loaded; None: the one
        loaded, else Eagle Kingdoms)."""
        if self.script is None or (game is not None and game != self.script.module.name):
            if game not in self._loaded:
                script = DemoScript.load(game=game)
                self._loaded[script.module.name] = (script, renderer_for(script))
                game = script.module.name
            self.script, self.renderer = self._loaded[game]
            self.step, self.following = 0, False
        return self.script

    def frame(self) -> tuple[np.ndarray, dict[str, Any]]:
        """The picture of the present step (drawn by the recording's renderer) and its meta."""
        script, renderer, step = self.load(), self.renderer, self.step
        return renderer(script, step), {"step": step, "game": script.module.name}

    def recognize(self, _image: np.ndarray, meta: dict[str, Any]) -> dict[str, Any]:
        """What the camera reader reports in a demo frame: the recording's scripted reading of its step (nothing
        for a frame of another recording, drawn before the game changed)."""
        script = self.script
        if script is None or meta.get("game", script.module.name) != script.module.name:
            return {}
        return script.observation(int(meta.get("step", 0)))

    def start(self) -> None:
        self.following, self.step = True, 0

    def stop(self) -> None:
        self.following = False

    def follow(self, history: list) -> bool:
        """The game went on: does it still follow the recording? (Then the picture shows its next step.)"""
        if self.script is not None and history == self.script.actions[:len(history)]:
            self.step = len(history)
            return True
        self.following = False
        return False

    def resume(self, game: str, history: list) -> None:
        """A resumed game follows the recording when it is the recording's game and its history so far."""
        try:
            script = self.load(game)
        except GameError:  # no recording of this game: the picture stays
            self.following = False
            return
        self.following = game == script.module.name and history == script.actions[:len(history)]
        if self.following:
            self.step = len(history)

    def truth(self, step: int):
        return self.script.truth(step) if self.script is not None else None

    def shows(self, game: str | None) -> bool:
        return self.script is not None and game == self.script.module.name


class CameraSession:
    """The frame source, the recognition worker, the latest frame and observation, the board seen, the camera
    profile and the overlay, for the screens to show. ``user_dir``: the family's data folder (fitted maps,
    registered dice, camera profiles)."""

    make_recognizer: Callable[[Path, Any], Any] = staticmethod(camera_recognizer)

    def __init__(self, user_dir: str | Path, deliver: Deliver, on_frame: Callable[[], None] | None = None,
                 fps: float = theme.PREVIEW_FPS):
        self.user_dir = Path(user_dir)
        self.deliver = deliver
        self.on_frame = on_frame
        self.fps = fps
        self.spec = ""
        self.is_demo = False
        self.live = False  # a real picture source (not the demo): its board pose is tracked
        self.name = ""  # the source as the family reads it
        self.notice = ""  # why the source asked for could not be used ("" when it could)
        self.grabber: FrameGrabber | None = None
        self.worker: RecognitionWorker | None = None
        self.recognizer: Any = None  # a real camera's recognition (board pose, then dice); None on the demo
        self.frame = None  # the latest frame taken from the grabber (a companion.vision.sources.Frame)
        self.observation: dict[str, Any] = {}
        self.board = BoardSeen()
        self.game: str | None = None  # the game whose board the camera looks for
        self.profile: Any = None  # a CameraProfile, or None: the camera is treated as distortion-free
        self.profile_path = ""
        self.profile_name = ""
        self.profile_notice = ""
        self.demo = DemoPlayback()
        self.position: tuple[Any, Any, list] | None = None  # (game, state, history) the camera matches against
        self.lost_reported = False
        self.overlay_dirty = True  # something the overlay shows may have changed
        self._demo_view: tuple[str, np.ndarray, Geometry] | None = None
        self.dice_profile: Any = None  # the family's dice profile the camera reads with (a snapshot), or None
        self.teaching_kinds: tuple[str, ...] | None = None  # teaching the dice: the box's kinds

    # --- the source ------------------------------------------------------------------------------------------
    def open(self, spec: str) -> str:
        """Open the frame source (``auto``: the camera, else the demo; ``demo``; ``camera:N``; ``video:PATH``;
        ``images:DIR``). Returns what to tell the family ("" when all is well)."""
        self.close()
        self.lost_reported = False
        source, notice = None, ""
        if spec == "auto":
            try:
                source = open_source("camera:0")
            except SourceError:
                spec, notice = "demo", tr("table:no_camera")
        if source is None:
            try:
                source = open_source(spec, factories={"demo": self._demo_source})
            except SourceError as exc:
                notice = tr("table:bad_video", source=spec, reason=str(exc))
        self.spec, self.is_demo = spec, spec == "demo"
        self.live = source is not None and not self.is_demo
        self.name = source.name if source else tr("table:manual")
        self.notice = " ".join(n for n in (notice, self.profile_notice) if n)
        if source is not None:
            self._start(source)
        return self.notice

    def _demo_source(self, _arg: str = "") -> RenderedSource:
        self.demo.load()
        return RenderedSource(self.demo.frame, fps=self.fps)

    def _start(self, source) -> None:
        self.recognizer = None
        self.board.homography = None
        if self.is_demo:
            self.demo.load()
            recognize = self.demo.recognize
        else:
            recognize = self.recognizer = self.make_recognizer(self.user_dir, self.profile)
            self.recognizer.set_game(self.game)
            if self.position is not None and hasattr(self.recognizer, "set_position"):
                self.recognizer.set_position(*self.position)
            self._tell_dice()
        self.worker = RecognitionWorker(recognize, self.deliver).start()
        self.grabber = FrameGrabber(source, on_frame=lambda _frame: self.on_frame and self.on_frame()).start()

    def close(self) -> None:
        if self.grabber:
            self.grabber.stop()
        if self.worker:
            self.worker.stop()
        self.grabber = self.worker = None

    def next_frame(self, generation: int):
        """The newest frame not yet taken, else None. It goes to the worker too, replacing a frame still
        waiting there (the worker reads the present), tagged with the game's ``generation``."""
        frame = self.grabber.latest() if self.grabber else None
        if frame is None or frame is self.frame:
            return None
        self.frame = frame
        if self.worker is not None:
            self.worker.submit(generation, frame.image, frame.meta, frame.time)
        return frame

    def newly_stopped(self) -> str:
        """Once, when the source stopped sending pictures: "lost" (unplugged, taken by another app) or "ended" (a
        video or a folder of pictures played to its end: its last picture stays); else ""."""
        if self.grabber is None or self.grabber.status not in ("lost", "ended") or self.lost_reported:
            return ""
        self.lost_reported = True
        if self.grabber.status == "lost":
            self.name = tr("table:manual")
        return self.grabber.status

    # --- what the recognition said ------------------------------------------------------------------------------
    def take(self, observation: dict[str, Any]) -> str:
        """A recognition result (on the UI thread): the board seen follows it. Returns the camera warning, if
        any: a profile that does not fit this camera, which is then set aside."""
        self.observation = observation
        warning = observation.get("camera_warning", "")
        if warning:
            self.profile, self.profile_name, self.profile_notice = None, "", warning
        if "board" in observation:  # a camera: the board tracker's word
            status = observation["board"]
        elif self.is_demo and "status" in observation:  # the demo's scripted reading
            status = observation["status"]
        else:
            status = None
        board = self.board
        if status is not None:
            board.status, board.found = status, is_usable(status)
            board.source = str(observation.get("board_source", ""))
        if not self.is_demo and "board" in observation:
            H = observation.get("homography")
            board.homography = np.asarray(H, np.float64) if H is not None else None
            board.view_angle = float(observation.get("view_angle", 0.0))
            board.leaning = bool(observation.get("view_leaning", False))
            board.lean_limit = float(observation.get("view_lean_limit", board.lean_limit))
        self.overlay_dirty = True
        return warning

    def resume_game(self, game: str, history: list) -> None:
        """A game was resumed: on the demo, its picture follows the game when the game is the recording's."""
        if self.is_demo:
            self.demo.resume(game, history)
        else:
            self.demo.stop()

    def feeds_the_game(self) -> bool:
        """Whether readings go to the game: a real camera's always, the demo's while the game follows it."""
        return self.demo.following or not self.is_demo

    # --- the board and the camera profile ------------------------------------------------------------------------
    def set_game(self, game: str | None, reload: bool = False) -> None:
        """The board to look for (``reload``: its map was taught, or its dice registered, again)."""
        self.game = game
        if self.recognizer is not None:
            self.recognizer.set_game(game, reload=reload)

    def set_position(self, game: Any, state: Any, history: list) -> None:
        """Where the game stands (after every change): the camera's readings are matched against it."""
        self.position = (game, state, history)
        if self.recognizer is not None and hasattr(self.recognizer, "set_position"):
            self.recognizer.set_position(game, state, history)

    def tap_corners(self, corners: list[tuple[float, float]] | None) -> None:
        """Four checked board corners go to the pose stage, which uses them while no marker is in view, until
        the picture changes. The demo finds its board by its markers."""
        if self.recognizer is not None:
            self.recognizer.tap_corners(corners)
        self.overlay_dirty = True

    def set_dice_profile(self, profile: Any) -> None:
        """The camera reads the dice with this dice profile (a snapshot; None: the generic reader)."""
        self.dice_profile = profile
        self._tell_dice()

    def teach_dice(self, kinds: tuple[str, ...] | None) -> None:
        """While the family teaches their dice, the camera reports every die in view (``teach_dice``)."""
        self.teaching_kinds = kinds
        self._tell_dice()

    def _tell_dice(self) -> None:
        if self.recognizer is not None and hasattr(self.recognizer, "set_dice_profile"):
            self.recognizer.set_dice_profile(self.dice_profile)
            self.recognizer.teach_dice(self.teaching_kinds)

    def read_dice_again(self) -> None:
        if self.recognizer is not None:
            self.recognizer.read_dice_again()

    def profiles(self) -> list[Path]:
        return camera_profiles(self.user_dir)

    def set_profile(self, path: str | Path | None) -> str:
        """Use the camera profile at ``path`` ("" / None: none). A missing or damaged one is explained (the
        returned message) and the camera goes on without undistortion."""
        profile, notice = load_camera_profile(path)
        self.profile = profile
        self.profile_path = str(path) if profile is not None else ""
        self.profile_name = (profile.name or Path(path).stem) if profile is not None else ""
        self.profile_notice = notice
        if self.recognizer is not None:
            self.recognizer.set_camera(profile)
        self.overlay_dirty = True
        return notice

    @property
    def lens(self):
        """The profile the board's pose was found with (a real camera's; the demo's picture has no lens)."""
        return self.profile if not self.is_demo else None

    def board_view(self) -> tuple[np.ndarray | None, Geometry]:
        """(homography board mm -> frame px, region centres in board mm) of what the picture shows: the
        tracked pose with a real camera, the fixed demo homography only for the demo."""
        if self.is_demo:
            if self.demo.script is None:
                return None, {}
            name = self.demo.script.module.name
            if self._demo_view is None or self._demo_view[0] != name:  # once per game, not per frame (board.json)
                self._demo_view = (name, demo_view(name), board_geometry(name))
            return self._demo_view[1], self._demo_view[2]
        info = self.recognizer.info if self.recognizer is not None else None
        if self.board.homography is None or info is None:
            return None, {}
        return self.board.homography, info.geometry()

    def board_size(self) -> tuple[float, float] | None:
        """The size in mm of the board that :meth:`board_view` maps (None: no board known)."""
        if self.is_demo:
            return board_size_mm(self.demo.script.module.name) if self.demo.script is not None else None
        info = self.recognizer.info if self.recognizer is not None else None
        return tuple(info.map.size_mm) if info is not None else None

    def shows_board_of(self, game: str | None) -> bool:
        """Whether the picture shows the board of ``game`` (a real camera: the board looked for; the demo:
        its recording's)."""
        return not self.is_demo or self.demo.shows(game)

    # --- the overlay ----------------------------------------------------------------------------------------
    def picture_status(self, status: str) -> str:
        """The table's line over the picture: the reader's status, with why no space is marked (the board is
        not found) or why dice may be misread (the camera sees the table too obliquely)."""
        board = self.board
        status = camera_words(status)
        if self.is_demo:
            return status
        if board.status and not board.found:
            seen = camera_words(board.status)
            return f"{seen} - {status}" if status else seen
        if board.leaning:
            lean = tr("camera:lean_short", angle=round(board.view_angle))
            return f"{status} - {lean}" if status else lean
        return status

    def overlay(self, size: tuple[int, int], want: Overlay, where: str = "", scale: float = 1.0, unit: float = 1.0
                ) -> tuple[tuple, Callable[[], np.ndarray | None]]:
        """(key, draw) of the overlay of a ``size`` (width, height) frame shown at ``scale`` (screen px per frame
        px; ``unit``: screen px per dp): the key changes exactly when the picture would; ``draw()`` makes the
        transparent layer (:func:`companion.app.overlay.layer`)."""
        w, h = size
        if want.dice is not None:
            dice = want.dice
        else:
            dice = self.observation.get("dice") or self.observation.get("live") or []
        homography, geometry = want.focus or self.board_view()
        outline = None
        camera = self.lens
        if want.points:
            homography = None
        elif want.outline and want.focus is None and homography is not None and not self.is_demo:
            info = self.recognizer.info if self.recognizer is not None else None
            if info is not None:
                bw, bh = info.map.size_mm
                outline = overlay.project(homography, [(0, 0), (bw, 0), (bw, bh), (0, bh)], camera)
        marks, status, points = want.marks, want.status, want.points
        key = (w, h, where, status, tuple(sorted(marks.items())),
               tuple((tuple(d.get("box") or ()), d.get("value"), bool(d.get("uncertain"))) for d in dice),
               None if homography is None else homography.round(3).tobytes(),
               None if outline is None else outline.round(1).tobytes(), tuple(points), id(camera), round(scale, 3), unit)
        return key, lambda: overlay.layer((w, h), dice, marks, geometry, homography, status, outline, points, camera,
                                          scale=scale, unit=unit)

    def die_at(self, dice: list[dict[str, Any]], x: float, y: float) -> int | None:
        """The index of the die whose box holds the tap at frame pixel (x, y)."""
        return overlay.hit_die(dice, x, y)

    def space_at(self, marks: dict[str, str] | None, x: float, y: float) -> str | None:
        """The marked space (any space when ``marks`` is None) nearest the tap at frame pixel (x, y), if near enough."""
        homography, geometry = self.board_view()
        return overlay.hit_space(marks, geometry, homography, x, y, camera=self.lens)
