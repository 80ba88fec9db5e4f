"""What the game flow says (the controller's events, on the UI thread) and what the app does about it: the
camera told the new position, the demo followed, the turn and a refusal spoken, the tour and the autopilot
told of proposals, the set-up check opened. The screens showing the game observe the controller themselves."""

from __future__ import annotations

from typing import Any

from companion.app import i18n
from companion.app.i18n import tr
from companion.app.speech import announcement


class FlowEvents:
    """The controller's listener for one app (its ``shell``: navigation, camera session, speaker, tours)."""

    def __init__(self, shell: Any):
        self.shell = shell

    def __call__(self, event: str, payload: Any) -> None:
        shell = self.shell
        shell.session.overlay_dirty = True
        handler = getattr(self, "_" + event, None)
        if handler is not None:
            handler(payload)

    def _changed(self, _payload: Any) -> None:
        ctl, session = self.shell.controller, self.shell.session
        if ctl.session is not None:  # the camera matches what it sees against this position
            session.set_position(ctl.session.game, ctl.session.state, ctl.session.history)
        if session.demo.following and ctl.session is not None and not session.demo.follow(ctl.session.history):
            ctl.say("warn", tr("table:demo_diverged"))
        name = ctl.current_player_name()
        if name and ctl.phase == "decision":
            self.shell.speaker.say(tr("speech:turn", player=name))

    def _proposal(self, payload: Any) -> None:
        self.shell.tour.on_proposal(payload)
        self.shell.autopilot.on_proposal(payload)

    def _message(self, payload: Any) -> None:
        if payload.level == "illegal":
            self.shell.speaker.say(announcement(payload, i18n.language()))

    def _confirmed(self, payload: Any) -> None:
        self.shell.events.append("confirmation shown")
        self.shell.speaker.say(payload)
        self.shell.tour.on_confirm()

    def _read_again(self, _payload: Any) -> None:
        self.shell.session.read_dice_again()

    def _setup_read(self, _payload: Any) -> None:
        """Pieces not read surely: the board's picture, to fix them by taps."""
        sm = self.shell.sm
        sm.get_screen("table").build_entry()
        if sm.current == "table":
            self.shell.go("setup_fix")
        elif sm.current == "setup_fix":
            sm.current_screen.on_pre_enter()

    def _over(self, _payload: Any) -> None:
        shell = self.shell
        shell.game_over = True
        if not shell.tour.on_over():
            shell.go("end")
        if shell.exit_after_game:
            shell.tour.when_done(shell.stop)
