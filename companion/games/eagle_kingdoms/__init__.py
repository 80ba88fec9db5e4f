"""Eagle Kingdoms (Gamewright, 1994): the rules engine, its terminal view and a simulation policy."""

from companion.games.eagle_kingdoms.policy import simulation_policy
from companion.games.eagle_kingdoms.rules import EagleKingdoms, EagleState
from companion.games.eagle_kingdoms.view import EagleTextView

GAME = EagleKingdoms
TEXT_VIEW = EagleTextView

__all__ = ["GAME", "TEXT_VIEW", "EagleKingdoms", "EagleState", "EagleTextView", "simulation_policy"]
