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
                    button = next(b for b in popup.content.children if getattr(b, "face", None) == values[i])
                    button.dispatch("on_release")
                    break
            return True  # the corrected proposal arrives as a new proposal event
        table.ids.confirm.dispatch("on_release")
        return True
