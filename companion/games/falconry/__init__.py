"""Falconry: the referee for Duel of Nobles, Allied Nobility, Truel, Quarrel and Joint Nobility."""

from companion.games.falconry.policy import simulation_policy
from companion.games.falconry.rules import FalconryGame, FalconryState
from companion.games.falconry.view import FalconryView

GAME = FalconryGame
TEXT_VIEW = FalconryView

__all__ = ["GAME", "TEXT_VIEW", "FalconryGame", "FalconryState", "FalconryView", "simulation_policy"]
