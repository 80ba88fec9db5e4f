"""``companion`` command line: play, simulate, and the commands other packages register."""

from __future__ import annotations

import argparse
import importlib
import json
import sys

from companion import storage
from companion.games.core import ConfigError, Game, GameError
from companion.games.registry import GAMES, load_game
from companion.inputs import InputError, ascii_int, check_name, decimal_argument, int_argument, option_pairs

# Subcommands that live beside their code; each module has register(subparsers).
EXTRA_COMMANDS = [
    "companion.vision.cli",
    "companion.vision.teach_dice",
    "companion.app.cli",
    "companion.referee.follow",
    "companion.referee.read_board",
]
# Commands whose module parses its own arguments: name -> (module with main(argv), help).
PASSTHROUGH = {
    "scan-kingdom": ("companion.referee.kingdom_scan", "score a row of Eagle Kingdoms character stands from photos"),
    "scan-tiles": ("companion.referee.tile_scan", "score a player's Mighty Magpies tiles from photos"),
}
# ``companion bench NAME``: name -> "module:function(argv) -> exit code".
BENCHES = {
    "dice": "companion.workshop.dice.bench:main",
    "dice-on-board": "companion.workshop.boards.bench.dice_on_board:main",
    "board": "companion.workshop.boards.bench:main",
    "robustness": "companion.workshop.robustness:main",
    "table": "companion.workshop.table.bench:main",
    "profile": "companion.workshop.table.profile:main",
}
MAX_DELAY = 60.0
MAX_GAMES = 1_000_000


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage block): ``companion play: error: ...``, exit 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message}\n")


delay_seconds = decimal_argument(0.0, MAX_DELAY)
game_count = int_argument(1, MAX_GAMES)
seed_number = int_argument(-(2**63), 2**63 - 1)


def _players(text: str | None, game_class: type[Game], mode: str | None = None) -> list[str]:
    """``--players``: names in seating order, or how many players (checked before any name is made)."""
    if text is None:
        return [f"P{i + 1}" for i in range(game_class.default_player_count(mode))]
    text = text.strip()
    if text.isdigit() or text.isdecimal() or text.isnumeric():
        try:
            count = ascii_int(text, f"--players (for {game_class.title or game_class.name})",
                              game_class.min_players, game_class.max_players)
        except InputError as exc:
            raise ConfigError(str(exc)) from None
        return [f"P{i + 1}" for i in range(count)]
    names = text.split(",")
    if len(names) > game_class.max_players:
        raise ConfigError(f"{game_class.title or game_class.name} is for {game_class.min_players}-"
                          f"{game_class.max_players} players, got {len(names)}.")
    try:
        return [check_name(name, f"--players: player {i + 1}'s name") for i, name in enumerate(names)]
    except InputError as exc:
        raise ConfigError(str(exc)) from None


def make_game(args: argparse.Namespace) -> tuple:
    module = load_game(args.game)
    game_class = module.game_class
    try:
        options = option_pairs(args.option)
    except InputError as exc:
        raise ConfigError(str(exc)) from None
    players = _players(args.players, game_class, args.mode)
    game = game_class(players=players, mode=args.mode, variant=args.variant, options=options)
    return module, game


def add_game_options(parser: argparse.ArgumentParser, game_as_option: bool = False) -> None:
    if game_as_option:
        parser.add_argument("--game", required=True, help=f"one of: {', '.join(GAMES)}")
    else:
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

    _tolerate_bad_text(sys.stdin)
    try:
        if args.resume is not None:
            module = load_game(args.game)
            session = _resume(args.resume, module.name, args.continue_from_last_good)
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


def _resume(path: str, game: str, continue_from_last_good: bool):
    """Resume a journal; a damaged one goes on from its last good line only when the family says so
    (``--continue-from-last-good``, or 'y' at the question when the terminal is interactive)."""
    from companion.journal import JournalDamaged, Session

    try:
        return Session.resume(path, expected_game=game, continue_from_last_good=continue_from_last_good)
    except JournalDamaged as exc:
        if not sys.stdin.isatty():
            raise JournalDamaged(f"{exc} To go on from there, run again with --continue-from-last-good.",
                                 exc.damage) from None
        print(exc, file=sys.stderr)
        print("Go on from the last good line? (y/N) ", end="", file=sys.stderr, flush=True)
        answer = sys.stdin.readline().strip().lower()
        if answer not in ("y", "yes", "j", "ja"):
            raise JournalDamaged("Not resumed; the journal was left untouched.", exc.damage) from None
        return Session.resume(path, expected_game=game, continue_from_last_good=True)


def _tolerate_bad_text(stream) -> None:
    """Read bytes that are not UTF-8 as stand-ins (so the referee can refuse the line instead of crashing)."""
    if hasattr(stream, "reconfigure"):
        try:
            stream.reconfigure(errors="surrogateescape")
        except (ValueError, OSError):  # already read from, or not a text stream of this kind
            pass


def cmd_simulate(args: argparse.Namespace) -> int:
    from companion.simulate import simulate

    try:
        module, game = make_game(args)
    except GameError as exc:
        print(f"error: {exc}", file=sys.stderr)
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
    parser = Parser(prog="companion", description="Table-side referee for four family board games.")
    sub = parser.add_subparsers(dest="command", required=True)

    play = sub.add_parser("play", help="referee a game in the terminal")
    add_game_options(play)
    play.add_argument("--auto", action="store_true", help="roll and choose automatically (a watchable demo)")
    play.add_argument("--seed", type=seed_number, default=None, help="seed for --auto and for 'roll'")
    play.add_argument("--delay", type=delay_seconds, default=0.0,
                      help=f"seconds to wait between automatic actions (0-{MAX_DELAY:g})")
    play.add_argument("--journal", help="write every action to this JSON Lines file")
    play.add_argument("--resume", help="continue the game in this journal (a finished one too: to undo its end)")
    play.add_argument("--continue-from-last-good", action="store_true",
                      help="with --resume: if a line of the journal is damaged, go on from the last good line "
                           "(the rest is set aside in JOURNAL.damaged); without it the terminal asks, a script stops")
    play.add_argument("--no-coach", action="store_true", help="hide the coach's advice")
    play.set_defaults(func=cmd_play)

    simulate = sub.add_parser("simulate", help="play seeded random games and report statistics")
    add_game_options(simulate)
    simulate.add_argument("--games", type=game_count, default=100, help=f"how many games (1-{MAX_GAMES})")
    simulate.add_argument("--seed", type=seed_number, default=0)
    simulate.add_argument("--check", action="store_true", help="validate every action and check invariants")
    simulate.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    simulate.set_defaults(func=cmd_simulate)

    bench = sub.add_parser("bench", help="speed, accuracy and robustness benchmarks (dice, board, robustness)")
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
    if argv:
        storage.program_name = f"companion {argv[0]}"[:40]
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
