"""The engine state inside an OpenSpiel state: copied with State.copy(), pickled field by field.

OpenSpiel clones a Python state by deep-copying each attribute and serialises it
by pickling them. A box makes the first :meth:`State.copy` (a generic deep copy
would also copy the game and its contract table, and is several times slower)
and the second a list of the state's fields, which both engine builds restore.

>>> import copy, pickle
>>> from barbu.engine.game import Game
>>> from barbu.engine.state import State
>>> s = State(Game.family(3), seed=5)
>>> _ = s.deal_random()
>>> back = pickle.loads(pickle.dumps(EngineBox(s))).state
>>> back.hands == s.hands and back.phase == s.phase, copy.deepcopy(EngineBox(s)).state is s
(True, False)
"""

from __future__ import annotations

from typing import Any

from barbu.engine.cards import FULL_DECK
from barbu.engine.game import Game
from barbu.engine.hand import HandRecord, Phase
from barbu.engine.state import _SLOTS, State

# The game and its contract are rebuilt from their names; the undo stack is not kept.
_FIELDS = tuple(n for n in _SLOTS if n not in ("game", "contract", "_undo"))
Snapshot = tuple[str, int, tuple[str, ...], list[Any], int, tuple[str, ...]]


def snapshot(state: State) -> Snapshot:
    """Plain data (ints, lists, tuples) from which :func:`restore` rebuilds ``state``."""
    values: list[Any] = [getattr(state, n) for n in _FIELDS]
    values[_FIELDS.index("phase")] = int(state.phase)
    values[_FIELDS.index("history")] = [tuple(h) for h in state.history]
    g = state.game
    return g.ruleset, g.players, tuple(sorted(g.options)), values, g.deck, g.contract_ids


def restore(ruleset: str, players: int, options: tuple[str, ...], values: list[Any],
            deck: int = FULL_DECK, contract_ids: tuple[str, ...] = ()) -> State:
    game = Game(ruleset, players, frozenset(options), deck=deck, contract_ids=contract_ids)
    state = State(game, seed=0, first_declarer=0)
    # Typed back before they are set: the compiled State checks each field's type on assignment.
    for name, value in zip(_FIELDS, values, strict=True):
        if name == "phase":
            value = Phase(value)
        elif name == "history":
            value = [HandRecord(*h) for h in value]
        setattr(state, name, value)
    state.contract = game.contracts[state.contract_idx] if state.contract_idx >= 0 else None
    return state


class EngineBox:
    """Holds the engine state of one OpenSpiel state; each clone gets its own copy."""

    __slots__ = ("state",)

    def __init__(self, state: State) -> None:
        self.state = state

    def __deepcopy__(self, memo: dict[int, Any]) -> EngineBox:
        return EngineBox(self.state.copy())

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return _unbox, snapshot(self.state)


class SharedBox(EngineBox):
    """An engine state that is never changed (a game's origin): clones share it."""

    __slots__ = ()

    def __deepcopy__(self, memo: dict[int, Any]) -> SharedBox:
        return self

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return _unbox_shared, snapshot(self.state)


def _unbox(*snap: Any) -> EngineBox:
    return EngineBox(restore(*snap))


def _unbox_shared(*snap: Any) -> SharedBox:
    return SharedBox(restore(*snap))
