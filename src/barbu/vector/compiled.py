"""The glue between VectorEnv and the compiled kernels (backend="numba"): which arrays each one gets."""

from __future__ import annotations

import numpy as np

from barbu.engine.doubling import REQUIRED_DOUBLES
from barbu.vector import kernels as k
from barbu.vector.backend import U32, U64, Bool, Float, Int
from barbu.vector.deal import mt_keys
from barbu.vector.games import HAND_FIELDS, Games
from barbu.vector.tables import Tables
from barbu.vector.views import Views

# The observation's fields whose offsets kernels.read takes, in its order.
READ_OFFSETS = ("phase", "current", "declarer", "leader", "last_leader", "contract", "trump", "start_rank",
                "ace_extra", "hand", "set_aside", "lines", "played", "trick", "last_trick", "captured",
                "voids", "available", "doubled", "redoubled", "compulsory", "owed", "out_order")
# The games' fields that kernels.read takes, in its order.
READ_STATE = ("phase", "current", "declarer", "leader", "last_leader", "contract", "trump", "start",
              "ace_extra", "hands", "lo", "hi", "tricks_won", "points", "totals", "trick_no", "hand_no",
              "set_aside", "played", "captured", "trick", "last_trick", "voids", "used", "doubled",
              "redoubled", "forced", "dbl_count", "out")


# The games' fields that kernels.rest takes, in its order.
REST_STATE = ("phase", "contract", "current", "declarer", "trump", "start", "hands", "played", "set_aside",
              "lo", "hi", "out", "out_count", "ace_extra", "doubled", "redoubled", "dbl_count", "forced",
              "turn", "leader", "hand_no")


# kernels.read writes these fields whole and clears only the rest: they must follow one another.
CARD_BLOCKS = ("hand", "set_aside", "lines", "played", "trick", "last_trick", "captured", "voids")


def _check_blocks(views: Views) -> None:
    """Refuse a layout in which kernels.read's card blocks are not one contiguous run."""
    off, n = views.off, views.n
    widths = (52, 52, 52, 52 * n, 52 * n, 52 * n, 52 * n)
    for name, after, width in zip(CARD_BLOCKS, CARD_BLOCKS[1:], widths, strict=False):
        if off[name] + width != off[after]:
            raise ValueError(f"observation layout: {after} does not follow {name}")


class Compiled:
    """The kernels of one table, with the offsets they need worked out once."""

    def __init__(self, t: Tables, views: Views, hand_size: int, classic: bool, per_declarer: int) -> None:
        self.t, self.v, self.size, self.classic, self.per = t, views, hand_size, classic, per_declarer
        self.k = k.COMPILED
        self.read_off = np.array([views.off[f] for f in READ_OFFSETS], dtype=np.int64)
        _check_blocks(views)
        self.groups: dict[tuple[str, ...], tuple[tuple[str, ...], tuple[str, ...]]] = {}

    def step(self, g: Games, action: Int) -> Bool:
        """Every game takes its action, as Rules.step; the games whose hand ended."""
        t, ended = self.t, np.zeros(g.batch, dtype=np.bool_)
        self.k["play_tricks"](ended, action, g.phase, g.contract, g.current, g.hands, g.trick, g.trick_len,
                      g.trick_cards, g.leader, g.last_leader, g.trump, g.trick_no, g.points, g.tricks_won,
                      g.played, g.captured, g.last_trick, g.voids, t.kind, t.per_trick, t.card_points,
                      t.last_bonus, t.ends, self.size)
        state = tuple(getattr(g, name) for name in REST_STATE)
        self.k["rest"](ended, action, state, (t.kind, t.trumps, t.ends, t.out_needed), self.classic, self.per,
               REQUIRED_DOUBLES, t.aside)
        return ended

    def score(self, g: Games, idx: Int, last_hand: int, per_hand: bool, sign: float,
              rewards: Float, done: Bool) -> Bool:
        """Score, settle and pay the hands of the games ``idx`` as env._close_hands; the games over."""
        over = np.zeros(len(idx), dtype=np.bool_)
        state = (g.contract, g.out, g.points, g.doubled, g.redoubled, g.totals, g.used, g.declarer, g.hand_no,
                 g.dbl_count)
        self.k["score"](idx, state, (self.t.kind, self.t.out_scores), self.classic, last_hand, per_hand, sign,
                        rewards, done, over, np.empty((2, g.n), dtype=np.int64))
        return over

    def cards(self, names: list[str], hand_size: int, n: int) -> tuple[Int, U64, U64]:
        """deal.cards_of, compiled: the generators' words made by kernels.mt_words, not Python's random."""
        w = self.words(names)
        seat = np.empty((len(names), 52), dtype=np.int32)
        hands, aside = np.empty((len(names), n), dtype=np.uint64), np.empty(len(names), dtype=np.uint64)
        self.k["deal_cards"](w, hand_size, seat, hands, aside, np.empty(52, dtype=np.int64))
        return seat, hands, aside

    def dealt(self, g: Games, idx: Int, hand_size: int) -> tuple[Int, U64, U64]:
        """deal.dealt, compiled from end to end: the seed strings' keys (SHA-512 included) too."""
        key, length = np.empty((k.KEY_ROWS, len(idx)), dtype=np.uint32), np.empty(len(idx), dtype=np.int64)
        self.k["seed_keys"](g.seed[idx], g.hand_no[idx], g.redeals[idx], key, length)
        w = np.empty((len(idx), 104), dtype=np.uint32)
        self.k["mt_words"](key, length, k.MT_BASE, w)
        seat = np.empty((len(idx), 52), dtype=np.int32)
        hands, aside = np.empty((len(idx), g.n), dtype=np.uint64), np.empty(len(idx), dtype=np.uint64)
        self.k["deal_cards"](w, hand_size, seat, hands, aside, np.empty(52, dtype=np.int64))
        return seat, hands, aside

    def words(self, names: list[str]) -> U32:
        """deal.python_words, compiled: the 104 words of each deal's generator seeded with ``names``."""
        key, length = mt_keys(names)
        out = np.empty((len(names), 104), dtype=np.uint32)
        self.k["mt_words"](key, length, k.MT_BASE, out)
        return out

    def refresh(self, g: Games, idx: Int, names: tuple[str, ...]) -> None:
        """games.refresh, in one compiled pass: the fields ``names`` of the games ``idx`` as before a deal."""
        if names not in self.groups:  # which fields start at 0 and which at -1
            zeros = tuple(f for f in names if not g.fresh[f].any())
            minus = tuple(f for f in names if (g.fresh[f] == -1).all())
            if len(zeros) + len(minus) != len(names):
                raise ValueError("kernels.clear knows fresh fields of 0 or -1 only")
            self.groups[names] = zeros, minus
        for fields, value in zip(self.groups[names], (0, -1), strict=True):
            if fields:
                self.k["clear"](idx, tuple(getattr(g, f) for f in fields), value)

    def next_hands(self, g: Games, idx: Int) -> None:
        """env._next_hands in one kernel: the fields reset, the declarer set, the hands dealt."""
        if HAND_FIELDS not in self.groups:
            self.refresh(g, idx[:0], HAND_FIELDS)  # works out the fields' groups
        zeros, minus = (tuple(getattr(g, f) for f in fields) for fields in self.groups[HAND_FIELDS])
        state = (g.first_declarer, g.hand_no, g.declarer, g.leader, g.redeals, g.seed, g.used, g.hands,
                 g.set_aside, g.phase, g.current)
        self.k["new_hands"](idx, zeros, minus, state, self.per, self.size, self.t.king_idx,
                            bool(self.t.aside), k.MT_BASE)

    def legal_mask(self, g: Games, mask: Bool | None = None) -> Bool:
        """The (B, 93) legal ids, as legal.legal_mask (written into ``mask`` if given)."""
        t = self.t
        mask = np.empty((g.batch, 93), dtype=np.bool_) if mask is None else mask
        self.k["legal_mask"](mask, g.phase, g.current, g.declarer, g.contract, g.hands, g.trick, g.trick_len,
                     g.leader, g.trump, g.trick_cards, g.trick_no, g.lo, g.hi, g.start, g.ace_extra, g.used,
                     g.set_aside, g.doubled, g.forced, t.kind, t.lead, t.positive, t.trumps, t.overtrump,
                     t.king_first, t.king_idx)
        return mask

    def read(self, g: Games, out: Float | None = None) -> Float:
        """The acting seats' observations, as Views.read, from the games' fields alone (into ``out``)."""
        v = self.v
        out = np.empty((g.batch, v.size), dtype=np.float32) if out is None else out
        state = tuple(getattr(g, name) for name in READ_STATE)
        self.k["read"](out, state, (self.t.kind,), self.read_off, v.nbits, v.scales, self.classic,
                       np.empty(3 + 4 * g.n, dtype=np.uint64))
        return out
