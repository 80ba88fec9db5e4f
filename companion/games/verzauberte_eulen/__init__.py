"""Verzauberte Eulen (Enchanted Owls): the referee's rules, text view and simulation policy."""

from companion.games.verzauberte_eulen.policy import simulation_policy
from companion.games.verzauberte_eulen.rules import EulenState, VerzauberteEulen
from companion.games.verzauberte_eulen.view import EulenTextView

GAME = VerzauberteEulen
TEXT_VIEW = EulenTextView

__all__ = ["GAME", "TEXT_VIEW", "EulenState", "VerzauberteEulen", "simulation_policy"]
