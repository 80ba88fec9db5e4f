"""The "check the set-up" screen driven in its own process (Kivy has one window per process), at phone size:
run by tests/app/test_app_setup_fix.py as ``python setup_fix_run.py DATA PICTURES SHOTS TRUTH.json PROFILE``;
prints one JSON line per check ("NO-WINDOW" when no GL window can be made)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ui_process import phone_window, pump, say, shoot

Window = phone_window()

from companion.app.main import CompanionApp  # noqa: E402
from companion.journal import Journal  # noqa: E402


def tap_space(screen, space: str) -> bool:
    """A real touch on the board's picture where ``space`` is."""
    pos = screen.board.picture_to_window(*screen.picture.centres[space])
    return screen.board.on_touch_down(type("T", (), {"pos": pos})())


def main(data: str, pictures: str, shots: str, truth_file: str, profile: str) -> None:
    shots_dir = Path(shots)
    shots_dir.mkdir(parents=True, exist_ok=True)
    truth = json.loads(Path(truth_file).read_text())
    app = CompanionApp(source=f"images:{pictures}", data_dir=data, tour=False, language="en", camera_profile=profile)
    app._run_prepare()
    Window.size = (420, 820)
    pump(lambda: app.ui.portrait, what="the portrait layout")
    app.start_game("eagle-kingdoms", truth["players"])
    say(prompt=app.sm.get_screen("table").prompt)
    pump(lambda: app.sm.current == "setup_fix", timeout=200.0, what="the set-up question")  # the camera reads first: slow on a loaded machine
    screen = app.sm.get_screen("setup_fix")
    pump(lambda: screen.picture is not None, what="the board's picture with its marks")
    left = screen.fix.left()
    wrong_sure = [p for p, v in screen.fix.read.items() if v is not None and v != truth["placement"][p]]
    say(left=left, wrong_sure=wrong_sure, flow=screen.flow_text, marks=sorted(set(screen.fix.marks().values())))
    shoot(shots_dir, "setup-fix-en")
    for space in left[:-1]:
        assert tap_space(screen, space), space
        popup = screen.choice_popup
        button = next(b for b in popup.content.children if b.value == truth["placement"][space])
        button.dispatch("on_release")
    say(after=screen.fix.left(), flow_after=screen.flow_text)
    screen.confirm()  # one still to check: nothing happens but the words
    say(still=app.sm.current, history=len(app.controller.session.history))
    app.set_language("de")
    screen.refresh()
    assert tap_space(screen, left[-1])
    popup = screen.choice_popup
    say(de_title=popup.title, de_options=[b.text for b in reversed(popup.content.children)])
    shoot(shots_dir, "setup-fix-de")
    next(b for b in popup.content.children if b.value == truth["placement"][left[-1]]).dispatch("on_release")
    say(de_flow=screen.flow_text)
    shoot(shots_dir, "setup-fix-de-ready")
    app.set_language("en")
    screen.ids.confirm.dispatch("on_release")
    pump(lambda: app.sm.current == "table", what="back to the table")
    say(back=app.sm.current, journal=Journal.read(app.controller.session.journal.path).actions(),
        phase=app.controller.phase, dice=len(app.controller.dice_specs()))
    app.stop()


if __name__ == "__main__":
    main(*sys.argv[1:6])
