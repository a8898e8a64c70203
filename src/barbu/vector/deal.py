"""The deals, drawn per game from the engine's generators (MT19937) so that each equals State's for its seed.

The NumPy backend seeds a Python generator per deal; the compiled one makes the same words itself
(mt_keys here, kernels.mt_words); the keys are then made and sorted into hands for every game
dealt in a step at once.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable

import numpy as np

from barbu.vector.backend import BIT, I64, U32, U64, Bool, Int
from barbu.vector.games import CHOOSE, Games
from barbu.vector.legal import KH
from barbu.vector.tables import Tables

Cards = Callable[[list[str], int, int], tuple[Int, U64, U64]]  # from the deals' seed strings
Dealt = Callable[[Games, Int, int], tuple[Int, U64, U64]]  # the next deal of some games, from their seeds


def _words(seed: int, hand_no: int, redeals: int) -> bytes:
    """The 104 32-bit outputs of the generator State.deal_random draws its 52 sort keys from."""
    # random() makes each key of two successive outputs a, b as ((a >> 5) * 2**26 + (b >> 6)) / 2**53,
    # and getrandbits(32 * k) returns k successive outputs, the first lowest: the same keys, unscaled.
    return random.Random(seed_of(seed, hand_no, redeals)).getrandbits(32 * 104).to_bytes(416, "little")


def seed_of(seed: int, hand_no: int, redeals: int) -> str:
    """The string State.deal_random seeds its generator with."""
    return f"{seed}:{hand_no}:{redeals}"


def python_words(names: list[str]) -> U32:
    """The (deals, 104) words of the generators seeded with ``names``, from Python's random."""
    raw = b"".join(random.Random(s).getrandbits(32 * 104).to_bytes(416, "little") for s in names)
    words: U32 = np.frombuffer(raw, dtype="<u4").reshape(len(names), 104)
    return words


def mt_keys(names: list[str]) -> tuple[U32, I64]:
    """The init_by_array keys random.Random(s) seeds MT19937 with, one column a deal, and their lengths.

    A str seed becomes the int of s.encode() + sha512(s.encode()).digest() read big-endian; its key is
    that int's 32-bit words, least significant first, as many as its bit length needs (at least one).
    """
    rev = []
    for s in names:
        e = s.encode()
        rev.append((e + hashlib.sha512(e).digest())[::-1])
    width = max(len(r) for r in rev)
    width += -width % 4
    raw = b"".join(r.ljust(width, b"\0") for r in rev)
    key: U32 = np.ascontiguousarray(np.frombuffer(raw, dtype="<u4").reshape(len(names), width // 4).T)
    # Ceil(bit length / 32) is ceil(bytes / 4) once the zero high bytes are dropped.
    length: I64 = np.array([max(1, (len(r.rstrip(b"\0")) + 3) // 4) for r in rev], dtype=np.int64)
    return key, length


def owners(words: U32, hand_size: int) -> Int:
    """Each card's place in the deck sorted by its key, divided by the hand size: its seat (≥ n: aside)."""
    w = words.astype(np.uint64)
    keys = (w[:, 0::2] >> np.uint64(5)) * np.uint64(1 << 26) + (w[:, 1::2] >> np.uint64(6))
    place = np.argsort(np.argsort(keys, axis=1, kind="stable"), axis=1, kind="stable")
    seat: Int = (place // hand_size).astype(np.int32)
    return seat


def cards_of(names: list[str], hand_size: int, n: int) -> tuple[Int, U64, U64]:
    """Each card's seat (≥ n: set aside), each seat's hand and the set-aside cards of the deals ``names``."""
    seat = owners(python_words(names), hand_size)
    mine = seat[:, None, :] == np.arange(n)[None, :, None]
    hands: U64 = np.where(mine, BIT, 0).sum(axis=2, dtype=np.uint64)
    aside: U64 = np.where(seat >= n, BIT, 0).sum(axis=1, dtype=np.uint64)
    return seat, hands, aside


def dealt(g: Games, idx: Int, hand_size: int) -> tuple[Int, U64, U64]:
    """:func:`cards_of` the deals the games ``idx`` are at (their seeds, hand numbers and redeals)."""
    names = [seed_of(int(g.seed[b]), int(g.hand_no[b]), int(g.redeals[b])) for b in idx]
    return cards_of(names, hand_size, g.n)


def _only_king_left(g: Games, t: Tables, idx: Int) -> Bool:
    """Games whose chooser has King of Hearts as the one challenge left (a K♥ set aside redeals)."""
    if t.king_idx < 0 or not t.aside:
        return np.zeros(len(idx), dtype=np.bool_)
    only: Bool = g.used[idx, g.declarer[idx]] == 127 & ~(1 << t.king_idx)
    return only


def deal(g: Games, t: Tables, idx: Int, hand_size: int, cards: Dealt = dealt) -> None:
    """Deal the hands of the games ``idx`` as State.deal_random would, redealing where the rules say.

    ``cards`` makes the games' next deals (the compiled backend passes its own).
    """
    while len(idx):
        seat, hands, aside = cards(g, idx, hand_size)
        again = _only_king_left(g, t, idx) & (seat[:, KH] >= g.n)
        g.redeals[idx[again]] += 1
        ok = idx[~again]
        # Host-side writes between hands (JAX would take the dealt arrays through a host callback).
        g.hands[ok] = hands[~again]
        g.set_aside[ok] = aside[~again]
        g.phase[ok] = CHOOSE
        g.current[ok] = g.declarer[ok]
        idx = idx[again]
