"""The screens: thin Kivy shells that show what they are given (layout in ``companion/app/kv/``).

Each screen is built with ``controller`` (the game flow), ``session`` (the camera), ``ui`` (the language,
the window's shape, the camera's state) and ``shell`` (navigation): see :mod:`companion.app.screens.base`.
No screen looks the app up or computes a game fact (a score, a legal move) itself.
"""

from companion.app.screens.base import AppScreen, PreviewScreen, ViewState
from companion.app.screens.counters import TallyScreen, TilesScreen
from companion.app.screens.dice_profiles import DiceScreen
from companion.app.screens.home import HomeScreen
from companion.app.screens.scores import EndScreen, HistoryScreen, RulesScreen, ScoresScreen
from companion.app.screens.setup import SetupScreen
from companion.app.screens.setup_fix import SetupFixScreen
from companion.app.screens.table import TableScreen

SCREENS = (HomeScreen, SetupScreen, TableScreen, ScoresScreen, RulesScreen, HistoryScreen, EndScreen, TallyScreen,
           TilesScreen)
SCREENS += (DiceScreen, SetupFixScreen)

__all__ = ["SCREENS", "AppScreen", "DiceScreen", "EndScreen", "HistoryScreen", "HomeScreen", "PreviewScreen", "RulesScreen",
           "ScoresScreen", "SetupFixScreen", "SetupScreen", "TableScreen", "TallyScreen", "TilesScreen", "ViewState"]
