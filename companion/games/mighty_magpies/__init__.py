"""Mighty Magpies (published elsewhere as 'Elli Elster'): the referee for the registry."""

from companion.games.mighty_magpies.policy import simulation_policy
from companion.games.mighty_magpies.rules import MagpiesState, MightyMagpies
from companion.games.mighty_magpies.view import MagpiesTextView

GAME = MightyMagpies
TEXT_VIEW = MagpiesTextView

__all__ = ["GAME", "TEXT_VIEW", "MagpiesState", "MightyMagpies", "simulation_policy"]
