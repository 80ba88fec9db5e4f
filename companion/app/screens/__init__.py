"""The screens: thin Kivy shells over :class:`~companion.app.controller.Controller` (layout in ``companion/app/kv/``),
one module per screen (or group of screens)."""

from companion.app.screens.counters import CounterScreen, TallyScreen, TilesScreen
from companion.app.screens.home import HomeScreen
from companion.app.screens.scores import EndScreen, HistoryScreen, RulesScreen, ScoresScreen, rules_markup
from companion.app.screens.setup import SetupScreen
from companion.app.screens.table import TableScreen

__all__ = ["CounterScreen", "EndScreen", "HistoryScreen", "HomeScreen", "RulesScreen", "ScoresScreen", "SetupScreen",
           "TableScreen", "TallyScreen", "TilesScreen", "rules_markup"]
