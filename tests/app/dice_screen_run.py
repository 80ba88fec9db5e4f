"""The "teach your dice" screen driven in its own process (Kivy has one window per process), at phone size:
run by tests/app/test_app_dice_screen.py as ``python dice_screen_run.py DATA PICTURES SHOTS``; prints one JSON
line per check ("NO-WINDOW" when no GL window can be made)."""

from __future__ import annotations

import sys
from pathlib import Path

from ui_process import phone_window, pump, say, shoot

Window = phone_window()

from companion.app.i18n import tr  # noqa: E402
from companion.app.main import CompanionApp  # noqa: E402


def tap_cell(grid, cell):
    """A real touch on the middle of a face of the grid."""
    x, y, cw, ch = cell.rect
    pos = grid.picture_to_window(x + cw / 2, y + ch / 2)
    touch = type("T", (), {"pos": pos})()
    return grid.on_touch_down(touch)


def main(data: str, pictures: str, shots: str) -> None:
    shots_dir = Path(shots)
    shots_dir.mkdir(parents=True, exist_ok=True)
    app = CompanionApp(source=f"images:{pictures}", data_dir=data, tour=False, language="en")
    app._run_prepare()
    Window.size = (420, 820)
    pump(lambda: app.ui.portrait, what="the portrait layout")
    home = app.sm.get_screen("home")
    say(game=home.chosen_game())
    app.go("dice")
    screen = app.sm.get_screen("dice")
    say(flow_start=screen.flow_text, profile=app.dice_profiles.active_name("eagle-kingdoms"),
        files=sorted(p.name for p in (Path(data) / "dice_profiles").glob("*.json")))
    pump(lambda: screen.teaching is not None and screen.teaching.dice, what="the die in view")
    die = screen.teaching.dice[0]
    say(seen=[(d["kind"], d["value"]) for d in screen.teaching.dice], flow=screen.flow_text,
        overlay=app.session.overlay((640, 480), screen.overlay())[0][5])
    shoot(shots_dir, "dice-teach-start")
    grid = screen.grids["d6"]
    cells = {c.face: c for c in grid.cells}
    for face in (die["value"], 5 if die["value"] != 5 else 2):  # the face read, then another shown
        assert tap_cell(grid, cells[face])
        grid = screen.grids["d6"]  # rebuilt with the new picture
    say(after_taps=screen.flow_text, missing=screen.teaching.missing(), progress=screen.progress_text,
        on_disk=app.dice_profiles.store.load("Eagle Kingdoms").counts())
    screen.ids.all_right.dispatch("on_release")
    say(all_right=screen.flow_text, dice=len(app.dice_profiles.store.load("Eagle Kingdoms").examples))
    shoot(shots_dir, "dice-teach-en")
    app.set_language("de")  # the screen shows itself again in German
    pump(lambda: screen.teaching.dice, what="the die in view (de)")
    say(de_flow=screen.flow_text, de_progress=screen.progress_text)
    shoot(shots_dir, "dice-teach-de")
    app.set_language("en")
    # rename, then choose none (the generic reader), then the profile again, then delete it
    screen.rename_profile()
    screen.rename_popup.content.children[-1].text = "Kitchen table"
    screen.rename_popup.ok_button.dispatch("on_release")
    say(renamed=screen.flow_text, active=app.dice_profiles.active_name("eagle-kingdoms"),
        spinner=screen.ids.profile.text, values=list(screen.ids.profile.values))
    screen.ids.profile.text = tr("dice:profile_none")
    say(generic=app.dice_profiles.active_name("eagle-kingdoms"), teaching=screen.teaching is not None,
        generic_session_profile=app.session.dice_profile is not None)
    screen.ids.profile.text = "Kitchen table"
    say(chosen=app.dice_profiles.active_name("eagle-kingdoms"), session_profile=app.session.dice_profile is not None,
        learning=app.controller.dice_learning.name if app.controller.dice_learning else None)
    screen.delete_profile()
    screen.delete_popup.ok_button.dispatch("on_release")
    say(deleted=screen.flow_text, left=app.dice_profiles.names())
    screen.done()
    pump(lambda: app.session.teaching_kinds is None, what="teaching ended on leaving the screen")
    say(back=app.sm.current, teaching_kinds=app.session.teaching_kinds)
    app.open_source("demo")  # the demo's picture: nothing of the family's to teach from
    app.go("dice")
    say(demo_flow=screen.flow_text)
    app.stop()


if __name__ == "__main__":
    main(*sys.argv[1:4])
