"""The array namespace the batched rules are written against (NumPy here), and the card bit masks.

The rules are xp.* calls on whole arrays (where, comparisons, shifts, gathers) with no Python
loop over games. The in-place writes they make (the observation buffer's :func:`mark` and
:func:`fill`, and writes by game index where only a few games change: full tricks, the rare
phases, the hands' ends and deals) would be ``.at[].set`` under JAX; docs/RL.md lists them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

xp: Any = np

Bool = npt.NDArray[np.bool_]
Int = npt.NDArray[np.signedinteger[Any]]  # int32 state, int64 or intp indices
U32 = npt.NDArray[np.uint32]  # MT19937 words (the deals' generators)
U64 = npt.NDArray[np.uint64]  # card sets: bit c is card c (suit × 13 + rank)
Float = npt.NDArray[np.float32]
U8 = npt.NDArray[np.uint8]  # the observation buffer: 0/1 entries, a quarter of float32's traffic
I64 = npt.NDArray[np.int64]
Arr = npt.NDArray[Any]  # any dtype: the seat helpers serve bits and counts alike

ONE = np.uint64(1)
CARD = np.arange(52, dtype=np.uint64)
BIT = ONE << CARD  # BIT[c]: the set of card c alone
SUIT_SET = np.array([sum(1 << (13 * s + r) for r in range(13)) for s in range(4)], dtype=np.uint64)
NO_CARDS = np.uint64(0)


def bits_of(cards: U64) -> Bool:
    """A card set (any shape) as booleans over the 52 cards (a last axis of 52)."""
    # unpackbits reads the sets' bytes (little-endian): ten times faster than shifting 52 ways.
    raw = xp.ascontiguousarray(cards, dtype=np.uint64).view(np.uint8).reshape((*cards.shape, 8))
    spread: Bool = xp.unpackbits(raw, axis=-1, count=52, bitorder="little").view(np.bool_)
    return spread


def card_set(card: Int) -> U64:
    """The one-card set of each card number (the empty set for -1 or 52, pass)."""
    valid = (card >= 0) & (card < 52)
    one: U64 = xp.where(valid, ONE << xp.clip(card, 0, 51).astype(np.uint64), NO_CARDS)
    return one


def at_or_below_top(cards: U64) -> U64:
    """Every bit at or below the highest bit of each set (empty stays empty)."""
    x = cards
    for shift in (1, 2, 4, 8, 16, 32):
        x = x | (x >> np.uint64(shift))
    smeared: U64 = x
    return smeared


def count(cards: U64) -> Int:
    """Cards in each set."""
    n: Int = xp.bitwise_count(cards).astype(np.int32)
    return n


def rows(table: Arr, seat: Int) -> Arr:
    """Row ``seat[b]`` of ``table[b]`` for each game ``b`` (table shaped (B, n, ...))."""
    picked: Arr = table[xp.arange(table.shape[0]), seat]
    return picked


def mark(buffer: U8, flat: Int, value: int) -> None:
    """Write ``value`` at the flat positions ``flat`` of the observation buffer."""
    buffer.reshape(-1)[flat] = value


def fill(buffer: U8, games: Int, start: int, stop: int, value: Arr | int) -> None:
    """Write ``value`` into entries ``start:stop`` of every seat's view in the games ``games``."""
    buffer[games, :, start:stop] = value
