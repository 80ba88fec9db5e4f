"""Rule engines of the four games (pure Python: no vision, no UI imports)."""

from companion.games.registry import GAMES, GameModule, load_game

__all__ = ["GAMES", "GameModule", "load_game"]
