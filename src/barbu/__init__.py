"""barbu: the card game Barbu — rules engine, game records, computer players, front ends."""

from barbu import _compiled  # first: it decides which build of the engine modules loads
from barbu.errors import BarbuError, IllegalActionError, IllegalDealError, RecordError
from barbu.game import CONTRACT, DOUBLE, PASS, RANK, REDOUBLE, TRUMP, Game
from barbu.observation import Observation, observe
from barbu.state import CHANCE, TERMINAL, HandRecord, Phase, State

__all__ = [
    "CHANCE", "CONTRACT", "DOUBLE", "PASS", "RANK", "REDOUBLE", "TERMINAL", "TRUMP",
    "BarbuError", "Game", "HandRecord", "IllegalActionError", "IllegalDealError",
    "Observation", "Phase", "RecordError", "State", "observe",
]
__version__ = "0.1.0"
COMPILED = _compiled.in_use()  # the engine modules running are the mypyc-compiled ones
