"""What the table pipeline needs of each game: its board map, its board reader, its rules adapter and
how its set-up is read from the board.

:func:`table_game` returns a :class:`TableGame` for one of the four games. The pipeline
(:mod:`companion.referee.table`) stays free of game knowledge; everything game-specific it uses is here
or in the per-game adapters (``referee/<game>.py``).

Set-up (issue 20, item 3): Eagle Kingdoms and Mighty Magpies lay their set-up out by chance, so the
set-up is an action read from the board (the character on every piece, the tiles in each nest).
Verzauberte Eulen and Falconry lay theirs out from the game's configuration: reading the set-up checks
the owls' starting spaces and the opening cards against it, and says which configuration options the
board shows where the game lets the players choose (a Falconry noble's colour). Every set-up reading
is a :class:`SetupReading`; unsure spaces are named for a tap, never guessed.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from companion.games.core import Action, Game, GameError
from companion.referee.match import differences
from companion.vision.boardmap import BoardMap, load_board_map
from companion.vision.readers import Observation

if TYPE_CHECKING:
    from companion.games.verzauberte_eulen.rules import EulenState

GAMES = ("eagle-kingdoms", "falconry", "verzauberte-eulen", "mighty-magpies")


@dataclass(frozen=True)
class SetupReading:
    """A set-up read from the board.

    ``action``: the set-up action to apply (Eagle Kingdoms, Mighty Magpies), or None; ``options``: game
    options the board shows (Falconry's ``colours``) to start the game with; ``offset``: Falconry's table
    cell of engine cell (0, 0). ``complete`` when the whole set-up was read and is legal; otherwise
    ``message`` says what to fix and ``unsure`` names the spaces to tap."""

    complete: bool
    message: str = ""
    action: Action | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    unsure: tuple[str, ...] = ()
    offset: tuple[int, int] | None = None


class BoardReading:
    """One game's board reader behind one call: ``read(frame, pose) -> Observation`` (the pose from the
    pipeline's own tracker, ``self.tracker``)."""

    def __init__(self, reader: Any, tracker: Any, read: Callable[[Any, Any], Observation]):
        self.reader = reader
        self.tracker = tracker
        self._read = read

    def read(self, frame: Any, pose: Any) -> Observation:
        return self._read(frame, pose)


@dataclass
class TableGame:
    """The pipeline's view of one game (see the module docstring)."""

    name: str
    map_file: str
    make_reader: Callable[[BoardMap, Any], BoardReading]
    adapter: Callable[[], Any]
    read_setup: Callable[[Game, Observation, Any], SetupReading]
    setup_is_action: bool  # the set-up is a chance action of the engine (else: the game's configuration)
    piece_reach_mm: float = 0.0  # how far beyond its region's outline a piece standing there may reach
    learns_empty_board: bool = False  # its reader learns the print under the nests a set-up covers (teach_bare)

    def board_map(self) -> BoardMap:
        from companion.data import bundled

        return load_board_map(bundled("calibration", "boards", self.map_file))


# -- readers ------------------------------------------------------------------------------------------


def _eagle_reader(board: BoardMap, camera: Any) -> BoardReading:
    from companion.vision.pose import BoardTracker
    from companion.vision.readers.eagle_kingdoms import EagleKingdomsReader

    reader = EagleKingdomsReader(board)
    return BoardReading(reader, BoardTracker(board, camera=camera), reader.read)


def _tracked_reader(cls_path: str) -> Callable[[BoardMap, Any], BoardReading]:
    def make(board: BoardMap, camera: Any) -> BoardReading:
        import importlib

        module, _, name = cls_path.partition(":")
        reader = getattr(importlib.import_module(module), name)(board, camera=camera)
        read = reader.read_with_pose if hasattr(reader, "read_with_pose") else reader.read
        return BoardReading(reader, reader.tracker, read)

    return make


# -- adapters -----------------------------------------------------------------------------------------


def _module_adapter(module: str) -> Callable[[], Any]:
    def make() -> Any:
        import importlib

        return importlib.import_module(module).ADAPTER

    return make


def _falconry_adapter() -> Any:
    from companion.referee.falconry import FalconryAdapter

    return FalconryAdapter()


# -- set-ups ------------------------------------------------------------------------------------------


def _setup_by_action(module: str) -> Callable[[Game, Observation, Any], SetupReading]:
    """Eagle Kingdoms and Mighty Magpies: the adapter's ``setup_from_observation`` on the game's first
    state; the uncertain spaces are named for a tap."""

    def read(game: Game, obs: Observation, _adapter: Any) -> SetupReading:
        import importlib

        adapter = importlib.import_module(module)
        state = game.new_initial_state()
        action, why = adapter.setup_from_observation(state, obs)
        if action is not None:
            return SetupReading(True, action=action)
        return SetupReading(False, why, unsure=tuple(sorted(obs.uncertain)) if obs.usable else ())

    return read


def read_owls_setup(game: Game, obs: Observation, _adapter: Any = None) -> SetupReading:
    """Verzauberte Eulen: the owls must stand on their starting spaces -- every colour in play in a nest,
    the black owl in the cave. The colours are the players' (the game's ``colours`` option, else the seat
    order's); which corner each starts from is read from the board when the game leaves it open
    (``corners``). Uncertain spaces are fixed by the layout when everything read confidently agrees with it."""
    from companion.referee.verzauberte_eulen import scene_from_state

    if not obs.usable:
        return SetupReading(False, f"board not read: {obs.status}")
    options: dict[str, Any] = {}
    if "corners" not in (game.config().get("options") or {}):
        corners = _corners_seen(game, obs)
        if corners is not None:
            options["corners"] = corners
            try:
                game = type(game).from_config({**game.config(), "options": {**(game.config().get("options") or {}), **options}})
            except GameError:
                options = {}
    hard, soft = differences(scene_from_state(cast("EulenState", game.new_initial_state())), obs)
    if hard:
        return SetupReading(False, "the owls do not stand on their starting spaces: " + ", ".join(hard), unsure=tuple(hard))
    if options and options["corners"] == _corners_of(type(game).from_config({**game.config(), "options": {
            k: v for k, v in (game.config().get("options") or {}).items() if k != "corners"}})):
        options = {}  # the usual corners: nothing to write down
    words = "owls on their starting spaces" + (f" (unsure, as the set-up has them: {', '.join(soft)})" if soft else "")
    return SetupReading(True, words, options=options)


def _corners_of(game: Game) -> list[str]:
    """Each colour's starting corner in a game (in the order of its colours option)."""
    from companion.games.verzauberte_eulen.board import board

    lay = cast("EulenState", game.new_initial_state()).lay
    nest_name = {index: compass for compass, index in board().nests.items()}
    out = []
    for seat in lay.player_nests:
        out += [nest_name[n] for n in seat]
    return out


def _corners_seen(game: Game, obs: Observation) -> list[str] | None:
    """The corner where each colour of the game (in seat order) has its owls on the board, or None when a
    colour is in no nest or in several."""
    from companion.games.verzauberte_eulen.board import board
    from companion.games.verzauberte_eulen.rules import default_seats

    b = board()
    found: dict[str, str] = {}
    for compass, index in b.nests.items():
        bodies = {p["owl"]["body"] for p in obs.regions.get(b.ids[index], []) if isinstance(p, dict) and "owl" in p}
        if len(bodies) == 1:
            found.setdefault(next(iter(bodies)), compass)
    colours = list(game.option("colours") or [c for seat in default_seats(game.num_players, game.variant) for c in seat["colours"]])
    corners = [found.get(colour) for colour in colours]
    return None if None in corners or len(set(corners)) != len(corners) else corners  # type: ignore[return-value]


def read_opening_cards(game: Game, obs: Observation, _adapter: Any = None) -> SetupReading:
    """Falconry: the opening cards, wherever on the table they were laid (the table offset is found as
    :func:`companion.referee.falconry.align` does), and -- when the game leaves each noble's colour open --
    the colour each seat plays, from the cards' colours."""
    from companion.referee.falconry import FalconryAdapter, align

    if not obs.usable:
        return SetupReading(False, f"board not read: {obs.status}")
    config = game.config()
    candidates: list[tuple[Game, dict[str, Any]]] = [(game, {})]
    if not (config.get("options") or {}).get("colours"):
        candidates = []
        names = [c["id"] for c in _falconry_colours()]
        for colours in itertools.permutations(names, game.num_players):
            options = {**(config.get("options") or {}), "colours": list(colours)}
            try:
                candidates.append((type(game).from_config({**config, "options": options}), {"colours": list(colours)}))
            except GameError:
                continue
    fits = []
    for candidate, options in candidates:
        state = candidate.new_initial_state()
        offset = align(state, obs)
        hard, soft = differences(FalconryAdapter(offset).scene_from_state(state), obs)
        if not hard:
            fits.append((options, offset, soft))
    if len(fits) == 1:
        options, offset, soft = fits[0]
        return SetupReading(True, "opening cards read", options=options, offset=offset)
    if not fits:
        return SetupReading(False, "the opening cards are not laid as this game begins", unsure=tuple(sorted(obs.uncertain)))
    return SetupReading(False, "several nobles' colours fit the cards read: tap the unsure cards",
                        unsure=tuple(sorted(obs.uncertain)))


def _falconry_colours() -> list[dict[str, Any]]:
    from companion.games.falconry.rules import DATA

    return list(DATA["colours"])


_GAMES: dict[str, TableGame] = {
    "eagle-kingdoms": TableGame(
        "eagle-kingdoms", "eagle-kingdoms.json", _eagle_reader, _module_adapter("companion.referee.eagle_kingdoms"),
        _setup_by_action("companion.referee.eagle_kingdoms"), True,
        piece_reach_mm=6.0,  # a stand's card over its piece's outline
    ),
    "mighty-magpies": TableGame(
        "mighty-magpies", "mighty-magpies.json", _tracked_reader("companion.vision.readers.mighty_magpies:MagpiesReader"),
        _module_adapter("companion.referee.mighty_magpies"), _setup_by_action("companion.referee.mighty_magpies"), True,
        piece_reach_mm=45.0,  # a magpie stands 28 mm out from its nest's middle
        learns_empty_board=True,
    ),
    "verzauberte-eulen": TableGame(
        "verzauberte-eulen", "verzauberte-eulen.json", _tracked_reader("companion.vision.readers.verzauberte_eulen:EulenReader"),
        _module_adapter("companion.referee.verzauberte_eulen"), read_owls_setup, False,
        piece_reach_mm=14.0,  # an owl (12 mm) stands 13 mm to the side of its path's line
        learns_empty_board=True,
    ),
    "falconry": TableGame(
        "falconry", "falconry.json", _tracked_reader("companion.vision.readers.falconry:FalconryReader"),
        _falconry_adapter, read_opening_cards, False, piece_reach_mm=12.0,  # a card larger than its cell
    ),
}


def table_game(name: str) -> TableGame:
    """The table plumbing of game ``name`` (KeyError with the choices for another name)."""
    try:
        return _GAMES[name]
    except KeyError:
        raise KeyError(f"no camera support for {name!r}; choose from {', '.join(GAMES)}") from None

