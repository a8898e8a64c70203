"""barbu: the card game Barbu — rules engine, game records, computer players, front ends."""

import importlib
import importlib.abc
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

from barbu import _compiled  # first: it decides which build of the engine modules loads
from barbu.engine.errors import BarbuError, IllegalActionError, IllegalDealError, RecordError
from barbu.engine.game import CONTRACT, DOUBLE, PASS, RANK, REDOUBLE, TRUMP, Game
from barbu.engine.observation import Observation, observe
from barbu.engine.state import CHANCE, TERMINAL, HandRecord, Phase, State

__all__ = [
    "CHANCE", "CONTRACT", "DOUBLE", "PASS", "RANK", "REDOUBLE", "TERMINAL", "TRUMP",
    "BarbuError", "Game", "HandRecord", "IllegalActionError", "IllegalDealError",
    "Observation", "Phase", "RecordError", "State", "observe",
]
__version__ = "0.1.0"
COMPILED = _compiled.in_use()  # the engine modules running are the mypyc-compiled ones

# Where the modules of the flat layout live now: ``import barbu.state`` still works.
MOVED = {f"barbu.{name}": f"barbu.{folder}.{name}" for folder, names in (
    ("engine", ("cards", "contracts", "errors", "game", "observation", "playout", "record", "sheet",
                "state")),
    ("tools", ("analyze", "arena", "bench"))) for name in names}


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports a module by its old path as the very module object of its new one (no shim files)."""

    def __init__(self) -> None:
        self._specs: dict[str, ModuleSpec | None] = {}

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        return ModuleSpec(fullname, self) if fullname in MOVED else None

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        module = importlib.import_module(MOVED[spec.name])
        self._specs[module.__name__] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # The import system has just set the old name's spec on the module: give it its own back.
        module.__spec__ = self._specs.pop(module.__name__)


sys.meta_path.append(_MovedModules())  # last: only names no real module answers to
