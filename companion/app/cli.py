"""``companion app``: the table app (Kivy). Registered by companion.cli (EXTRA_COMMANDS).

Nothing here imports Kivy at import time, so ``companion --help`` works without it; the
environment Kivy reads at import (headless, no argv parsing, no log file) is set first.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

from companion.inputs import decimal_argument

GAME_NAMES = ("eagle-kingdoms", "falconry", "verzauberte-eulen", "mighty-magpies")


def prepare_environment(headless: bool = False, kivy_home: str | None = None) -> None:
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    os.environ.setdefault("KIVY_NO_FILELOG", "1")
    if headless:
        os.environ["SDL_VIDEODRIVER"] = "offscreen"
        os.environ.setdefault("KIVY_CLIPBOARD", "sdl2")
    if kivy_home or headless:
        os.environ.setdefault("KIVY_HOME", kivy_home or tempfile.mkdtemp(prefix="companion-kivy-"))


def drop_cut_buffer_probe(record) -> bool:
    """Logging filter: Kivy probes for xclip/xsel (an X11 "cut buffer") on every Linux start and logs
    a CRITICAL traceback when neither is installed. The app never uses the cut buffer (its clipboard
    is SDL2's), so that record would only alarm a family; every other record passes."""
    return not str(record.msg).startswith("Cutbuffer: Unable to find any valuable")


def quiet_kivy_probes() -> None:
    """Install :func:`drop_cut_buffer_probe` on Kivy's logger (call after Kivy can be imported)."""
    from kivy.logger import Logger

    if drop_cut_buffer_probe not in Logger.filters:
        Logger.addFilter(drop_cut_buffer_probe)


def layouts_report(tour) -> int:
    """What the layout tour found (``--layouts``), on stderr; the exit status (1: a screen has a problem)."""
    if tour is None or tour.busy:
        print("error: the layout tour did not finish", file=sys.stderr)
        return 1
    for key, found in tour.problems.items():
        for problem in found:
            print(f"{key}: {problem}", file=sys.stderr)
    print(f"{tour.checked} screens checked at {len(tour.sizes)} sizes in {len(tour.langs)} languages; "
          f"{sum(map(len, tour.problems.values()))} problems")
    return 1 if tour.problems else 0


def cmd_app(args: argparse.Namespace) -> int:
    from companion.app.paths import data_dir
    from companion.storage import plain_os_error

    try:
        data_dir(args.data)
    except OSError as exc:
        print(f"error: cannot use {args.data or 'the data folder'} for the app's data: {plain_os_error(exc)}",
              file=sys.stderr)
        return 2
    headless = args.headless or bool(args.screenshot and (args.exit_after_game or args.layouts))
    prepare_environment(headless=headless)
    try:
        from kivy.config import Config
    except ImportError:
        print("error: the app needs Kivy: pip install -e '.[app]'", file=sys.stderr)
        return 2
    quiet_kivy_probes()
    Config.set("kivy", "log_level", "debug" if args.verbose else "warning")
    sizes = None
    if args.layouts:  # the window starts as large as the largest size: an offscreen window does not grow
        Config.set("graphics", "width", "1280")
        Config.set("graphics", "height", "820")
    if args.size:
        w, _, h = args.size.partition("x")
        if not (w.isascii() and w.isdigit() and h.isascii() and h.isdigit() and 100 <= int(w) <= 10000
                and 100 <= int(h) <= 10000):
            print(f"error: --size takes WIDTHxHEIGHT in pixels, each 100-10000, e.g. 420x820; got {args.size!r}",
                  file=sys.stderr)
            return 2
        Config.set("graphics", "width", w)
        Config.set("graphics", "height", h)
        sizes = ((int(w), int(h)),)
    from companion.app.main import CompanionApp
    from companion.app.tour import SIZES

    autoplay = args.autoplay
    if args.exit_after_game and autoplay is None:
        autoplay = 0.0
    if args.camera_profile:
        from companion.app.calibration import load_camera_profile

        _profile, why = load_camera_profile(args.camera_profile)
        if why:  # said here too (the app shows it on its home screen and goes on without lens correction)
            print(f"warning: {why}", file=sys.stderr)
    app = CompanionApp(source=args.source, data_dir=args.data, screenshot_dir=args.screenshot,
                       exit_after_game=args.exit_after_game, autoplay=autoplay, language=args.lang,
                       camera_profile=args.camera_profile, game=args.game,
                       layouts=(sizes or SIZES) if args.layouts else None, tour=False if args.layouts else None)
    app.run()
    if args.screenshot:
        for path in app.tour.taken + (app.layout_tour.taken if app.layout_tour else []):
            print(path)
    if args.layouts:
        return layouts_report(app.layout_tour)
    if args.exit_after_game and not app.game_over:
        print("error: the game did not reach its end", file=sys.stderr)
        return 1
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("app", help="the table app (camera, touch, scores); opens on the demo without a camera")
    p.add_argument("--source", default="auto",
                   help="auto (camera, else the demo), demo, camera[:N], video:PATH, images:DIR, or a video/folder path")
    p.add_argument("--data", default=None, help="folder for journals and settings (default: $COMPANION_DATA or ~/.local/share/companion)")
    p.add_argument("--camera-profile", metavar="PATH", default=None,
                   help="camera intrinsics profile (JSON from companion.vision.intrinsics calibrate, e.g. "
                        "calibration/cameras/NAME.json): lens correction for the board pose; default: the one chosen in set-up")
    p.add_argument("--lang", choices=["en", "de"], default=None, help="language (default: the saved setting)")
    p.add_argument("--game", choices=GAME_NAMES, default=None,
                   help="the game chosen on the home screen; with --source demo its demo game starts at once")
    p.add_argument("--autoplay", type=decimal_argument(0.0, 60.0), default=None, metavar="SECONDS",
                   help="start the demo game and confirm each reading after SECONDS (watch the referee work)")
    p.add_argument("--screenshot", metavar="DIR", default=None, help="save a screenshot of every screen in DIR")
    p.add_argument("--exit-after-game", action="store_true", help="play the demo to its end and quit (with --screenshot: headless)")
    p.add_argument("--layouts", action="store_true",
                   help="show every screen of every game at 360x780, 420x820, 800x600 and 1280x800 (only --size when given) "
                        "in both languages, check that every text fits, save each as DIR/WxH/LANG/GAME-SCREEN.png "
                        "with --screenshot DIR (headless), and quit (exit status 1 when a text does not fit)")
    p.add_argument("--headless", action="store_true", help="render offscreen (no window; for CI)")
    p.add_argument("--verbose", action="store_true", help="Kivy's debug log")
    p.add_argument("--size", default=None, help="window size WxH, e.g. 420x820 for a phone shape")
    p.set_defaults(func=cmd_app)
