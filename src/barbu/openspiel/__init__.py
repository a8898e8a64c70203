"""Barbu as an OpenSpiel game: ``import barbu.openspiel`` registers ``barbu`` and ``barbu_mini`` with pyspiel.

>>> import pyspiel
>>> import barbu.openspiel
>>> game = pyspiel.load_game("barbu", {"rules": "family", "players": 3, "hands": 1})
>>> game.num_players(), game.new_initial_state().is_chance_node()
(3, True)
"""

from __future__ import annotations

try:
    import pyspiel
except ImportError as e:  # an optional dependency: say which extra brings it
    raise ImportError("barbu.openspiel needs OpenSpiel: pip install 'barbu[openspiel]'") from e

from barbu.openspiel.game import GAME_TYPE, BarbuGame, BarbuObserver, BarbuState
from barbu.openspiel.mini import MINI_DEFAULTS, MINI_TYPE, MiniBarbuGame, MiniBarbuState
from barbu.openspiel.params import DEFAULTS, Settings, settings_of

pyspiel.register_game(GAME_TYPE, BarbuGame)
pyspiel.register_game(MINI_TYPE, MiniBarbuGame)

__all__ = ["DEFAULTS", "GAME_TYPE", "MINI_DEFAULTS", "MINI_TYPE", "BarbuGame", "BarbuObserver", "BarbuState",
           "MiniBarbuGame", "MiniBarbuState", "Settings", "settings_of"]
