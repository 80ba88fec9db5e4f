"""Name -> game package. Packages are imported lazily so one broken game cannot stop the others.

Each game package exposes in its ``__init__``:

- ``GAME``: the :class:`~companion.games.core.Game` subclass;
- ``TEXT_VIEW``: a :class:`~companion.games.text.TextView` subclass for the terminal referee;
- optionally ``simulation_policy(state, rng) -> action`` for ``companion simulate``
  (default: a uniformly random legal action).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from companion.games.core import ConfigError, Game

GAMES: dict[str, str] = {
    "eagle-kingdoms": "companion.games.eagle_kingdoms",
    "falconry": "companion.games.falconry",
    "verzauberte-eulen": "companion.games.verzauberte_eulen",
    "mighty-magpies": "companion.games.mighty_magpies",
}
ALIASES = {"enchanted-owls": "verzauberte-eulen", "eulen": "verzauberte-eulen", "magpies": "mighty-magpies"}


@dataclass(frozen=True)
class GameModule:
    name: str
    module: ModuleType

    @property
    def game_class(self) -> type[Game]:
        return self.module.GAME

    @property
    def text_view(self) -> Any:
        return self.module.TEXT_VIEW

    @property
    def simulation_policy(self) -> Callable | None:
        return getattr(self.module, "simulation_policy", None)


def canonical_name(name: str) -> str:
    key = name.strip().lower().replace("_", "-").replace(" ", "-")
    key = ALIASES.get(key, key)
    if key not in GAMES:
        raise ConfigError(f"Unknown game {name!r}; choose one of: {', '.join(GAMES)}.")
    return key


def load_game(name: str) -> GameModule:
    key = canonical_name(name)
    return GameModule(key, importlib.import_module(GAMES[key]))


def available_games() -> list[str]:
    """Games whose package is present in this installation."""
    names = []
    for key, module in GAMES.items():
        if importlib.util.find_spec(module) is not None:
            names.append(key)
    return names
