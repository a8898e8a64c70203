"""The seeds of a batch's games: one rule shared by every batched form, so one seed plays the same games.

Game ``b`` of a batch seeded ``seed`` (``barbu.vector.VectorEnv``, ``barbu.env.loop.LoopEnv``,
``barbu.vector.gym.BarbuVectorEnv``) plays the games that ``BarbuEnv`` (or the Gymnasium
``SeatEnv``) plays after ``reset(seed=stream_seed(seed, b))``, then ``reset()`` each time one ends.
"""

from __future__ import annotations


def stream_seed(seed: int, b: int) -> int:
    """The barbu.env seed whose games game ``b`` of a batch seeded ``seed`` plays, one after another.

    >>> stream_seed(0, 3), stream_seed(1, 0)
    (3, 4294967296)
    """
    if not 0 <= b < 2**32:
        raise ValueError(f"a batch holds at most 2**32 games, not game {b}")
    return seed << 32 | b
