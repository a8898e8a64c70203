"""The perfect-information tensor for centralised critics: a seat's view plus every seat's hand.

A critic trained with the whole deal in sight (centralised training, decentralised execution)
needs more than a seat's view; the actor must never get it. ``state_tensor`` is that seat's
encoded view (:func:`barbu.env.encoding.encode`, which already holds the trick, the cards played
and taken, the scores) followed by the cards every seat holds, in the same relative seat order
as the view (row 0 the seat itself, row 1 the next to play, …), one 0/1 entry per card.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from barbu.engine.game import Game
from barbu.env.encoding import obs_size

Floats = npt.NDArray[np.float32]
_BIT = np.arange(52, dtype=np.uint64)


def state_size(game: Game) -> int:
    """The length of a state tensor: the view's, and 52 entries for each seat's hand."""
    return obs_size(game) + 52 * game.players


def hand_bits(hands: npt.NDArray[np.uint64], seats: npt.NDArray[np.int64]) -> Floats:
    """Every seat's hand, rotated to each row's seat: ``(B, n)`` card masks -> ``(B, n × 52)``."""
    batch, n = hands.shape
    order = (seats[:, None] + np.arange(n)[None, :]) % n
    rotated = hands[np.arange(batch)[:, None], order]
    bits = (rotated[:, :, None] >> _BIT) & np.uint64(1)
    out: Floats = bits.reshape(batch, n * 52).astype(np.float32)
    return out


def state_tensor(views: Floats, hands: npt.NDArray[np.uint64], seats: npt.NDArray[np.int64]) -> Floats:
    """Each row's view (``(B, obs_size)``, of seat ``seats[b]``) with every hand appended."""
    out: Floats = np.concatenate([views, hand_bits(hands, seats)], axis=1)
    return out
