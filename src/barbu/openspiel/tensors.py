"""OpenSpiel's tensors: barbu.env's observation encoder, and for the information state when each card fell.

The observation tensor is exactly ``barbu.env.encoding.encode`` of the seat's
Observation (one encoding for the project), with each of its fields also a named
view. The information-state tensor appends ``play_order``: for every card played in
this hand, its place in the hand's play (counting passes) over the longest play a
hand can have. With the encoder's per-seat ``played`` cards it gives back the whole
sequence of the hand's play; the bidding and doubling are in the encoder already.

>>> from barbu.engine.game import Game
>>> from barbu.engine.state import State
>>> s = State(Game.classic(), seed=2)
>>> _ = s.deal_random()
>>> tensor, views = named_views(s.game, perfect_recall=True)
>>> fill(tensor, s.observe(0), perfect_recall=True)
>>> int(views["hand"].sum()), int(views["play_order"].sum()), tensor.shape
(13, 0, (1211,))
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from barbu.engine.game import Game
from barbu.engine.observation import Observation
from barbu.env.encoding import encode, layout
from barbu.openspiel.params import max_plays

Array = npt.NDArray[np.float32]


def tensor_size(game: Game, perfect_recall: bool) -> int:
    return layout(game).size + (52 if perfect_recall else 0)


def named_views(game: Game, perfect_recall: bool) -> tuple[Array, dict[str, Array]]:
    """A zero tensor and a view of each of its fields by name (OpenSpiel's observer ``dict``)."""
    lay = layout(game)
    tensor = np.zeros(tensor_size(game, perfect_recall), np.float32)
    views = {name: tensor[f.offset:f.end].reshape(f.shape) for name, f in lay.fields.items()}
    if perfect_recall:
        views["play_order"] = tensor[lay.size:]
    return tensor, views


def fill(tensor: Array, obs: Observation, perfect_recall: bool) -> None:
    """Write the seat's observation (and, for the information state, the play order) in place."""
    size = layout(obs.game).size
    tensor[:size] = encode(obs)
    if perfect_recall:
        tensor[size:] = play_order(obs)


def play_order(obs: Observation) -> Array:
    """Per card, its place (1 = first) in this hand's play over the longest play; 0 if not played."""
    out = np.zeros(52, np.float32)
    longest = max_plays(obs.game)
    for i, (_, action) in enumerate(obs.history):
        if action < 52:
            out[action] = (i + 1) / longest
    return out
