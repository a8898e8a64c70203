"""The array namespace the batched rules are written against (NumPy here; JAX's would do)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

# Every rule is written as xp.* calls on whole arrays (where, take_along_axis, comparisons), with
# no in-place writes, so that swapping this module's namespace for jax.numpy is the only change
# the rules need; the deal, which follows the engine's Python random, stays on the host.
xp: Any = np

Bool = npt.NDArray[np.bool_]
Int = npt.NDArray[np.signedinteger[Any]]  # int32 state, int64 or intp indices
Float = npt.NDArray[np.float32]
I64 = npt.NDArray[np.int64]
Arr = npt.NDArray[Any]  # any dtype: the seat helpers serve bits and counts alike


def onehot(index: Int, size: int) -> Bool:
    """Index ``i`` of each row as a row of ``size`` booleans (all false where ``i`` is -1)."""
    result: Bool = index[..., None] == xp.arange(size, dtype=np.int32)
    return result


def rows(table: Arr, seat: Int) -> Arr:
    """Row ``seat[b]`` of ``table[b]`` for each game ``b`` (table shaped (B, n, ...))."""
    picked: Arr = xp.take_along_axis(table, seat.reshape((-1,) + (1,) * (table.ndim - 1)), axis=1)
    return picked[:, 0]


def rotate(table: Arr, start: Int) -> Arr:
    """The seat rows of ``table`` (B, n, ...) from seat ``start[b]`` on: row r is seat start + r."""
    n = table.shape[1]
    order = (start[:, None] + xp.arange(n, dtype=np.int32)) % n
    rotated: Arr = xp.take_along_axis(table, order.reshape(order.shape + (1,) * (table.ndim - 2)), axis=1)
    return rotated
