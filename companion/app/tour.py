"""Driving the app without a family: the screenshot tour and the demo's autopilot (Kivy).

- :class:`ScreenshotTour` -- a queue of screenshots (``<folder>/<name>.png``), each taken a few frames after
  its screen is shown (and, on the demo, once the picture shows the present step). With ``enabled`` it
  takes the user guide's pictures by itself: the home screens at the start, the table at its first
  readings, the scores, history and rules half-way through the demo game, the scores and the end at its end.
- :class:`Autopilot` -- plays the family's taps on the demo game: corrects a misread die through the
  correction popup, then presses Confirm, ``delay`` seconds after each camera proposal.

Both drive the app through what it exposes (its screens, controller and camera session), as a family would.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from kivy.clock import Clock
from kivy.core.window import Window

from companion.app import theme
from companion.referee.dice import dice_values
from companion.referee.table import OFF_MAP, PUT_OFF, WAITING_FOR_MOVE

FIRST_SHOTS = (("home", "home", None), ("tally", "score-a-kingdom", None), ("tiles", "score-tiles", None),
               ("setup", "setup", None), ("home", "home-de", "de"))


class ScreenshotTour:
    """Screenshots queued by :meth:`shoot` and taken by :meth:`step` (called on every preview tick while
    :attr:`busy`). ``app``: the :class:`companion.app.main.CompanionApp` shown."""

    def __init__(self, app: Any, folder: str | Path | None, enabled: bool = False):
        self.app = app
        self.folder = Path(folder) if folder else None
        self.enabled = enabled
        self.taken: list[Path] = []
        self._queue: list[tuple[str, str, str | None, tuple | None, bool]] = []
        self._asked: set[str] = set()
        self._phase = 0
        self._waits = 0
        self._back_to = "home"
        self._lang = ""
        self._size: tuple | None = None

    @property
    def busy(self) -> bool:
        return bool(self._queue)

    def shoot(self, screen: str, name: str, lang: str | None = None, size: tuple | None = None, keep: bool = False) -> None:
        """Queue a screenshot of ``screen`` as ``<folder>/<name>.png`` (taken on the next frames), in ``lang``
        and at window ``size`` when given; ``keep``: stay on that screen afterwards."""
        if not self.folder or name in self._asked:
            return
        self._asked.add(name)
        self._queue.append((screen, name, lang, size, keep))

    def when_done(self, then: Callable[[], Any]) -> None:
        """Call ``then`` once every queued screenshot is taken."""
        def check(_dt) -> None:
            if self.busy:
                Clock.schedule_once(check, 0.05)
            else:
                then()

        Clock.schedule_once(check, 0)

    # --- the tour's own pictures ----------------------------------------------------------------------------
    def start(self) -> None:
        if self.enabled:
            for screen, name, lang in FIRST_SHOTS:
                self.shoot(screen, name, lang=lang)

    def on_proposal(self, proposal) -> None:
        app = self.app
        if not self.enabled or proposal is None or not app.session.demo.following:
            return
        if proposal.dice and not proposal.uncertain:
            self.shoot("table", "table-dice")
        elif proposal.uncertain:
            self.shoot("table", "table-uncertain")
        elif app.controller.phase == "decision":
            self.shoot("table", "table-choice")

    def on_confirm(self) -> None:
        demo = self.app.session.demo
        if not self.enabled or not demo.following or demo.script is None:
            return
        if len(self.app.controller.session.history) >= len(demo.script) // 2:
            self.shoot("scores", "scores")
            self.shoot("history", "history")
            self.shoot("rules", "rules")

    def on_over(self) -> bool:
        """The game ended: the final scores and the end screen (True when the tour shows them)."""
        if not self.enabled:
            return False
        self.shoot("scores", "scores-final")
        self.shoot("end", "end", keep=True)
        return True

    # --- taking them -----------------------------------------------------------------------------------------
    def step(self) -> None:
        """One preview tick: show the screen (first tick), let it draw (a few ticks more, on the demo until its
        picture shows the present step, at most ~5 s), then take the picture and go back."""
        app = self.app
        screen, name, lang, size, keep = self._queue[0]
        if self._phase == 0:
            self._back_to, self._lang, self._size = app.sm.current, app.ui.lang, tuple(Window.size)
            if lang:
                app.set_language(lang)
            if size:
                Window.size = size
            app.go(screen)
            self._waits = 0
            self._redraw()
            self._phase = 1
        elif self._phase < 3 or (self._waits < 5 * theme.PREVIEW_FPS and not self._picture_current()):
            self._phase += 1
            self._waits += 1
            self._redraw()  # a resized window needs the preview drawn again
        else:
            self._take(name)
            if lang:
                app.set_language(self._lang)
            if size:
                Window.size = self._size
            if not keep:
                app.go(self._back_to)
            self._queue.pop(0)
            self._phase = 0

    def _redraw(self) -> None:
        self.app.session.overlay_dirty = True
        self.app.show_latest()

    def _take(self, name: str) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        target = self.folder / f"{name}.png"
        written = Window.screenshot(name=str(self.folder / f"{name}_.png"))
        if written:
            Path(written).replace(target)
            self.taken.append(target)

    def _picture_current(self) -> bool:
        """The demo's picture shows the present step (a screenshot waits for its scene to be drawn)."""
        session, current = self.app.session, self.app.sm.current
        if current in ("table", "setup", "tiles") and session.grabber is not None and session.frame is None:
            return False  # no picture yet (the first scene is still being drawn)
        if not (session.is_demo and session.demo.following) or current not in ("table", "setup"):
            return True
        return session.frame is not None and session.frame.meta.get("step") == session.demo.step


class Autopilot:
    """Confirms each camera proposal of the demo game ``delay`` seconds after it came (None: off), correcting
    a misread die first through the table's correction popup, as the family would."""

    def __init__(self, app: Any, delay: float | None, tour: ScreenshotTour):
        self.app = app
        self.delay = delay
        self.tour = tour

    def on_proposal(self, proposal) -> None:
        if (proposal is not None and proposal.source in ("camera", "corrected") and self.delay is not None
                and self.app.session.demo.following):
            Clock.schedule_once(lambda dt: self._when_ready(proposal), self.delay)

    def _when_ready(self, proposal) -> None:
        ctl = self.app.controller
        if ctl.proposal is not proposal or not self.app.session.demo.following or self.tour.busy:
            if ctl.proposal is proposal and self.tour.busy:  # the proposal's screenshot first
                Clock.schedule_once(lambda dt: self._when_ready(proposal), 0.05)
            return
        self.step()

    def step(self) -> bool:
        """Correct what the camera misread (through the correction popup) or press Confirm."""
        app = self.app
        ctl = app.controller
        table = app.sm.get_screen("table")
        proposal = ctl.proposal
        if proposal is None or app.session.demo.script is None:
            return False
        truth = app.session.demo.truth(len(ctl.session.history))
        if truth is not None and proposal.action != truth and proposal.dice:
            values = dice_values(truth)
            for i, die in enumerate(proposal.dice):
                if i < len(values) and die.value != values[i]:
                    table.open_correction(i)
                    popup = table.correction_popup
                    button = next(b for b in popup.content.children if getattr(b, "value", None) == values[i])
                    button.dispatch("on_release")
                    break
            return True  # the corrected proposal arrives as a new proposal event
        table.ids.confirm.dispatch("on_release")
        return True


# --- every screen of every game, at each window size, in each language -------------------------------------------
def capture(path: Path) -> bool:
    """The window as drawn now, saved as a PNG (read back as RGBA and written by OpenCV: several times faster
    than Kivy's own screenshot on a software renderer)."""
    import cv2
    import numpy as np
    from kivy.graphics.opengl import GL_RGBA, GL_UNSIGNED_BYTE, glReadPixels

    Window.dispatch("on_draw")  # the back buffer holds the window as it is now, not the frame before last
    width, height = Window.size
    data = glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE)
    image = np.frombuffer(data, np.uint8).reshape(height, width, 4)[::-1]
    return bool(cv2.imwrite(str(path), cv2.cvtColor(image, cv2.COLOR_RGBA2BGR), [cv2.IMWRITE_PNG_COMPRESSION, 1]))


SIZES = ((360, 780), (420, 820), (800, 600), (1280, 800))  # phones upright, a phone sideways, a tablet or desktop
GAMES = ("eagle-kingdoms", "falconry", "verzauberte-eulen", "mighty-magpies")


def moments(script) -> list[tuple[str, int]]:
    """The moments of a recorded game the tour shows: its set-up (when it has one), the first roll of dice, the
    decision with the most moves in its first half, and its end."""
    from companion.referee.dice import wanted_dice

    found: list[tuple[str, int]] = []
    first = script.state_at(0)
    if first.is_chance_node() and not wanted_dice(first):
        found.append(("setup", 0))
    dice = next((i for i in range(len(script)) if script.state_at(i).is_chance_node() and wanted_dice(script.state_at(i))), None)
    if dice is not None:
        found.append(("dice", dice))
    decisions = [i for i in range(max(1, len(script) // 2)) if not script.state_at(i).is_chance_node()]
    if decisions:
        found.append(("move", max(decisions, key=lambda i: len(script.state_at(i).legal_actions()))))
    found.append(("over", len(script)))
    return found


class LayoutTour:
    """Every screen of every game, at every window size and in every language: each shown, its texts checked
    (:func:`companion.app.layout_check.problems`) and, with a ``folder``, its picture saved as
    ``<folder>/<W>x<H>/<lang>/<game>-<screen>.png``. The app calls :meth:`step` on every preview tick while
    :attr:`busy`; the games are shown on their demo recordings (each game's own board in the picture), at the
    positions of :func:`moments`, without a journal. Each position is set once and then shown at every size and in
    every language; the picture is taken from the camera only while a new position waits for it (no frame
    uploaded per tick otherwise: the tour is quick on a software renderer too)."""

    SETTLE = 2  # frames for a screen to lay itself out

    def __init__(self, app: Any, folder: str | Path | None, sizes=SIZES, langs=("en", "de"), games=GAMES):
        self.app = app
        self.folder = Path(folder) if folder else None
        self.sizes, self.langs, self.games = tuple(sizes), tuple(langs), tuple(games)
        self.problems: dict[str, list[str]] = {}
        self.pictures: dict[str, tuple[float, float]] = {}  # shot -> the picture's shown size
        self.taken: list[Path] = []
        self.checked = 0
        self._run = self._steps()
        self._live = False  # take the camera's frames now (a new position waits for its picture)
        self.busy = True
        self.on_done: Callable[[], Any] | None = None
        self._event = Clock.schedule_interval(lambda dt: self.step(), 0)  # one step a frame, as fast as frames come

    def step(self) -> None:
        if not self.busy:
            return
        if self._live:  # the newest camera frame to the recognition worker (shown only when a screen is shot)
            self.app.session.next_frame(self.app.controller.generation)
        try:
            next(self._run)
        except StopIteration:
            self.busy = False
            self._event.cancel()
            if self.on_done is not None:
                self.on_done()

    def _steps(self):
        app = self.app
        for size in self.sizes:  # each size and language once (what costs most: every text laid out again)
            yield from self._resize(size)
            for lang in self.langs:
                app.set_language(lang)
                for game in self.games:  # the screens before a game: home with the game's options, set-up, the counters
                    yield from self._general(game, size, lang)
                for game in self.games:
                    script = app.session.demo.load(game)  # its frames stay drawn for the next size and language
                    app.session.demo.following = False
                    for moment, step in moments(script):
                        yield from self._position(script, moment, step)
                        yield from self._moment(script, moment, size, lang)

    def _resize(self, size):
        if tuple(Window.size) == tuple(size):
            return
        Window.size = size
        for _ in range(60):
            yield
            if tuple(Window.size) == tuple(size):
                break
        yield from self._settle()

    def _settle(self, frames: int | None = None):
        for _ in range(frames or self.SETTLE):
            yield

    def _general(self, game, size, lang):
        app = self.app
        home = app.sm.get_screen("home")
        app.go("home")
        home.choose(game)
        home.options_open = True
        home.show_options()
        yield from self._shoot("home", game, size, lang)
        home.options_open = False
        home.show_options()
        yield from self._settle()
        self._in_view(f"{size[0]}x{size[1]}/{lang}/{game}-home-closed", home, [home.ids.start])
        yield from self._shoot("setup", game, size, lang)
        if game == self.games[0]:
            for screen in ("tally", "tiles", "dice"):
                yield from self._shoot(screen, "", size, lang)

    def _position(self, script, moment, step):
        """The game at ``step`` of its recording (no journal), its picture, and what the camera proposes there."""
        app = self.app
        ctl = app.controller
        ctl.replay(script.module.name, list(script.game.players), script.actions[:step], script.game.mode, script.game.variant)
        app.session.demo.step = step
        self._live = True
        for _ in range(3000):  # the picture of this step (drawn on the demo's helper thread) and its reading
            frame = app.session.frame
            if (frame is not None and frame.meta.get("step") == step and frame.meta.get("game") == script.module.name
                    and app.session.observation.get("history_len") == step):
                break
            yield
        self._live = False
        if moment in ("setup", "dice"):
            ctl.observe(ctl.generation, script.observation(step))
        elif moment == "move":
            ctl.propose(script.actions[step], "camera")

    def _moment(self, script, moment, size, lang):
        app = self.app
        game = script.module.name
        if moment == "over":
            for screen in ("end", "scores", "history", "rules"):
                yield from self._shoot(screen, game, size, lang)
            history = app.sm.get_screen("history")
            history.ask_undo(3)
            yield from self._settle()
            self._check(f"{size[0]}x{size[1]}/{lang}/{game}-undo-popup", history.undo_popup.content)
            history.undo_popup.dismiss(animation=False)
            return
        table = app.sm.get_screen("table")
        table.open_group = None
        table.build_entry()
        yield from self._shoot("table", f"{game}-table-{moment}", size, lang, name_screen=False)
        if moment == "dice" and game == "mighty-magpies":  # a roll read unsure, waiting for the flight that tells it
            yield from self._camera_says(WAITING_FOR_MOVE, f"{game}-table-waiting", size, lang)
        if moment == "move" and game == "verzauberte-eulen":  # a head or body die's move put off for the next move
            yield from self._camera_says(PUT_OFF, f"{game}-table-put-off", size, lang)
        if moment == "move" and game == "falconry":  # a card the game holds beyond the camera's play area
            words = f"{OFF_MAP}: slide both marker strips so that every card lies between them"
            yield from self._camera_says(words, f"{game}-table-off-map", size, lang)
        if moment == "setup" and self._ask_setup_check(script):
            yield from self._shoot("setup_fix", game, size, lang)
        picker = app.controller.picker()
        if moment == "move" and picker is not None:
            key = next((g.key for g in picker.groups() if g.key), None)
            if key:
                table._open(key)
                yield from self._shoot("table", f"{game}-table-list", size, lang, name_screen=False)
                table.open_group = None
                table.build_entry()
        if moment == "move" and game == self.games[0]:  # teaching the board, on this game's own picture
            setup = app.sm.get_screen("setup")
            app.go("setup")
            if setup.start_teaching():
                yield from self._shoot("setup", f"{game}-setup-teach", size, lang, name_screen=False)
            else:
                self.problems.setdefault(f"{size[0]}x{size[1]}/{lang}/{game}-setup-teach", []).append(
                    f"teaching the board did not start: {setup.flow_text}")
            setup.flow, setup.teaching = "", None

    def _camera_says(self, words, name, size, lang):
        """The table screen with the camera's ``words`` under the messages and nothing proposed (the position is set
        afresh for the next moment)."""
        table, controller = self.app.sm.get_screen("table"), self.app.controller
        controller.discard()
        controller.vision_status = words
        table.build_entry()
        table.refresh_messages()
        yield from self._shoot("table", name, size, lang, name_screen=False)
        controller.vision_status = ""
        table.refresh_messages()

    def _ask_setup_check(self, script) -> bool:
        """The camera's question about a set-up read in part (a game whose set-up is fixed by taps): the true
        set-up with its first two spaces unsure, so the check screen shows pieces read and pieces to choose."""
        from importlib import import_module

        from companion.referee.setup_taps import SPACES, setup_spaces
        from companion.vision.readers import Observation

        game = script.module.name
        if game not in SPACES:
            return False
        scene = dict(import_module(f"companion.referee.{game.replace('-', '_')}").scene_from_state(script.state_at(1)))
        unsure = {space: 0.3 for space in list(scene)[:2]}
        spaces = setup_spaces(game, Observation(scene, unsure))
        ctl = self.app.controller
        return spaces is not None and ctl.observe(ctl.generation, {"setup_read": spaces.as_json()})

    def _shoot(self, screen, game, size, lang, name_screen=True):
        app = self.app
        app.go(screen)
        current = app.sm.current_screen
        if app.session.frame is not None and hasattr(current, "show_frame"):
            app.session.overlay_dirty = True
            current.show_frame(app.session.frame)
        yield from self._settle()
        name = f"{game}-{screen}" if name_screen and game else (game or screen)
        key = f"{size[0]}x{size[1]}/{lang}/{name}"
        self._check(key, current)
        self._in_view(key, current, self._must_show(key, screen, current))
        preview = current.ids.get("preview") if hasattr(current, "ids") else None
        if preview is not None:
            self.pictures[key] = tuple(preview.norm_image_size) if preview.texture is not None else (0.0, 0.0)
        if self.folder is not None:
            target = self.folder / f"{size[0]}x{size[1]}" / lang / f"{name}.png"
            target.parent.mkdir(parents=True, exist_ok=True)
            if capture(target):
                self.taken.append(target)

    def _must_show(self, key, screen, current) -> list:
        """What a family must see without scrolling: Start/Done/Read/Home, whose turn it is (the title), Confirm
        beside a proposal, and the first die's face buttons."""
        ids = {"setup": ["done", "title"] + (["capture", "save"] if getattr(current, "flow", "") == "teach" else []), "tally": ["read"], "tiles": ["read"], "end": ["home", "winner"],
               "table": ["title", "to_home"],
               "setup_fix": ["confirm", "back"], "dice": ["done"]}.get(screen, [])
        wanted: list = [current.ids[i] for i in ids if i in current.ids]
        if screen == "table":
            ctl = self.app.controller
            if ctl.proposal is not None:
                wanted.append(current.ids["confirm"])
            faces = getattr(current, "_face_buttons", None) or []
            if ctl.dice_specs() and faces:
                wanted += faces[:len(ctl.dice_specs()[0].faces)]
            name = ctl.current_player_name()
            if name and name not in current.ids["title"].text:
                self.problems.setdefault(key, []).append(f"the title {current.ids['title'].text!r} does not say whose turn it is ({name})")
        return wanted

    def _in_view(self, key, root, widgets) -> None:
        """Each of ``widgets`` lies wholly in the window, and inside the visible part of its list when it scrolls."""
        from companion.app.layout_check import in_view

        for widget in widgets:
            if not in_view(widget, tuple(Window.size)):
                text = getattr(widget, "text", "")[:40]
                self.problems.setdefault(key, []).append(f"{type(widget).__name__} {text!r} is not in view without scrolling")

    def _check(self, key, widget) -> None:
        from companion.app.layout_check import english_in, ids_in, problems

        self.checked += 1
        found = problems(widget, tuple(Window.size))
        if "/de/" in key:
            found += english_in(widget)
        found += ids_in(widget)
        if found:
            self.problems[key] = found

