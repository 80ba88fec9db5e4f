"""``companion`` command line: play, simulate, and the commands other packages register."""

from __future__ import annotations

import argparse
import importlib
import json
import sys

from companion.games.core import ConfigError, Game, GameError
from companion.games.registry import GAMES, load_game

# Subcommands that live beside their code; each module has register(subparsers).
EXTRA_COMMANDS = ["companion.vision.cli", "companion.app.cli"]
# Commands whose module parses its own arguments: name -> (module with main(argv), help).
PASSTHROUGH = {
    "scan-kingdom": ("companion.referee.kingdom_scan", "score a row of Eagle Kingdoms character stands from photos"),
    "scan-tiles": ("companion.referee.tile_scan", "score a player's Mighty Magpies tiles from photos"),
}
# ``companion bench NAME``: name -> "module:function(argv) -> exit code".
BENCHES = {
    "dice": "companion.workshop.dice.bench:main",
    "board": "companion.workshop.boards.bench:main",
}


def _players(text: str | None, game_class: type[Game], mode: str | None = None) -> list[str]:
    if text is None:
        return [f"P{i + 1}" for i in range(game_class.default_player_count(mode))]
    text = text.strip()
    if text.isdigit():
        return [f"P{i + 1}" for i in range(int(text))]
    return [name.strip() for name in text.split(",")]


def _options(pairs: list[str] | None) -> dict:
    """``--option key=value`` pairs; values are read as JSON when they can be (true, 3, "x")."""
    options = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--option takes key=value, got {pair!r}.")
        try:
            options[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            options[key.strip()] = value
    return options


def make_game(args: argparse.Namespace) -> tuple:
    module = load_game(args.game)
    game_class = module.game_class
    game = game_class(
        players=_players(args.players, game_class, args.mode), mode=args.mode, variant=args.variant, options=_options(args.option)
    )
    return module, game


def add_game_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help=f"one of: {', '.join(GAMES)}")
    parser.add_argument("--players", help="comma-separated names in seating order, the starting player (the youngest) first, e.g. Ann,Ben,Cy; or a number of players")
    parser.add_argument("--mode", help="game mode (Falconry: duel, fast-duel, allied, truel, quarrel, joint)")
    parser.add_argument("--variant", help="rules variant (e.g. party, advanced, young)")
    parser.add_argument(
        "--option", action="append", metavar="KEY=VALUE", help="a rules option, e.g. diagonals=false (repeatable)"
    )


def cmd_play(args: argparse.Namespace) -> int:
    from companion.journal import JournalError, Session
    from companion.terminal import TerminalReferee, run_terminal

    try:
        if args.resume:
            module = load_game(args.game)
            session = Session.resume(args.resume, expected_game=module.name)
        else:
            module, game = make_game(args)
            session = Session.start(game, args.journal)
    except (GameError, JournalError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    referee = TerminalReferee(
        module, session, auto=args.auto, seed=args.seed, delay=args.delay, coach=not args.no_coach
    )
    try:
        return run_terminal(referee)
    except KeyboardInterrupt:
        print("\nInterrupted; every acknowledged action is in the journal.", file=sys.stderr)
        return 130
    finally:
        session.close()


def cmd_simulate(args: argparse.Namespace) -> int:
    from companion.simulate import simulate

    try:
        module, game = make_game(args)
    except GameError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.games < 1:
        print("error: --games must be at least 1", file=sys.stderr)
        return 2
    config = game.config()

    def factory() -> Game:
        return module.game_class.from_config(config)

    progress = None
    bar = None
    if not args.json and sys.stderr.isatty():
        from rich.progress import Progress

        bar = Progress(transient=True)
        bar.start()
        task = bar.add_task(f"simulating {module.name}", total=args.games)

        def progress(done: int) -> None:
            bar.update(task, completed=done)

    try:
        report = simulate(module, factory, args.games, args.seed, check=args.check, progress=progress)
    finally:
        if bar:
            bar.stop()
    result = report.as_json()
    for line in report.first_violations:
        print(f"violation: {line}", file=sys.stderr)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>22}: {value}")
    return 1 if report.invariant_violations else 0


def cmd_bench(args: argparse.Namespace) -> int:
    target = BENCHES.get(args.what)
    if target is None:
        print(f"error: unknown benchmark {args.what!r}; choose one of: {', '.join(BENCHES)}", file=sys.stderr)
        return 2
    module_name, function = target.split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        print(f"error: benchmark {args.what!r} is not available in this installation ({exc})", file=sys.stderr)
        return 2
    return getattr(module, function)(args.rest)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="companion", description="Table-side referee for four family board games.")
    sub = parser.add_subparsers(dest="command", required=True)

    play = sub.add_parser("play", help="referee a game in the terminal")
    add_game_options(play)
    play.add_argument("--auto", action="store_true", help="roll and choose automatically (a watchable demo)")
    play.add_argument("--seed", type=int, default=None, help="seed for --auto and for 'roll'")
    play.add_argument("--delay", type=float, default=0.0, help="seconds to wait between automatic actions")
    play.add_argument("--journal", help="write every action to this JSON Lines file")
    play.add_argument("--resume", help="continue the game in this journal")
    play.add_argument("--no-coach", action="store_true", help="hide the coach's advice")
    play.set_defaults(func=cmd_play)

    simulate = sub.add_parser("simulate", help="play seeded random games and report statistics")
    add_game_options(simulate)
    simulate.add_argument("--games", type=int, default=100)
    simulate.add_argument("--seed", type=int, default=0)
    simulate.add_argument("--check", action="store_true", help="validate every action and check invariants")
    simulate.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    simulate.set_defaults(func=cmd_simulate)

    bench = sub.add_parser("bench", help="speed and accuracy benchmarks (dice, board)")
    bench.add_argument("what", help=f"one of: {', '.join(BENCHES)}")
    bench.add_argument("rest", nargs=argparse.REMAINDER, help="options of that benchmark")
    bench.set_defaults(func=cmd_bench)

    for name, (_, text) in PASSTHROUGH.items():
        sub.add_parser(name, help=text, add_help=False)

    for name in EXTRA_COMMANDS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and name.startswith(exc.name):
                continue  # that part is not in this installation
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in PASSTHROUGH:
        return importlib.import_module(PASSTHROUGH[argv[0]][0]).main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
