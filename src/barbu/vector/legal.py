"""The legal actions of every game's player to act, as a (B, 93) mask over barbu.env's action ids."""

from __future__ import annotations

import numpy as np

from barbu.vector.backend import (
    BIT,
    NO_CARDS,
    ONE,
    SUIT_SET,
    U64,
    Bool,
    Int,
    at_or_below_top,
    bits_of,
    rows,
    xp,
)
from barbu.vector.games import CHOOSE, DOUBLE, PLAY, RANK, REDOUBLE, TRUMP, Games, take
from barbu.vector.tables import Tables

KH = 24  # the king of hearts' card number
ACE = 12
KH_SET = BIT[KH]
HEART_SET = SUIT_SET[1]
FULL = np.uint64((1 << 52) - 1)
MASKS = np.arange(8, dtype=np.int32)  # the doubling ids' relative seat masks


def _card(suit: int, rank: Int) -> U64:
    """The set of card ``suit``/``rank`` where 0 <= rank <= 12, else empty."""
    ok = (rank >= 0) & (rank <= ACE)
    one: U64 = xp.where(ok, ONE << (13 * suit + xp.clip(rank, 0, ACE)).astype(np.uint64), NO_CARDS)
    return one


def fitting(lo: Int, hi: Int, start: Int) -> U64:
    """The cards that fit each Dominoes/Réussite layout (every card before Réussite's first)."""
    fits = xp.zeros(len(start), dtype=np.uint64)
    for s in range(4):
        low, high = lo[:, s], hi[:, s]
        ends = _card(s, xp.where(low > 0, low - 1, -1)) | _card(s, xp.where(high >= 0, high + 1, -1))
        fits = fits | xp.where(low < 0, _card(s, start), ends)
    every: U64 = xp.where(start < 0, FULL, fits)
    return every


def _above(cards: U64, in_trick: U64) -> U64:
    """``cards`` above every card of ``in_trick`` (of their suit), or all of them when none is."""
    better = cards & ~at_or_below_top(in_trick)
    picked: U64 = xp.where(better != 0, better, cards)
    return picked


def _leads(g: Games, t: Tables, hand: U64, c: Int) -> U64:
    """The cards that may be led under each game's lead rule."""
    lead = t.lead[c]
    no_heart = (lead == 1) | ((lead == 3) & (g.trick_no == 0))
    others, not_king = hand & ~HEART_SET, hand & ~KH_SET
    out = xp.where(no_heart & (others != 0), others, hand)
    leads: U64 = xp.where((lead == 2) & (not_king != 0), not_king, out)
    return leads


def _follows(g: Games, t: Tables, hand: U64, c: Int) -> U64:
    """The cards that may be played to a trick already led."""
    led = rows(g.trick, g.leader) // 13
    led_set = SUIT_SET[xp.clip(led, 0, 3)]
    trump_set = xp.where(g.trump >= 0, SUIT_SET[xp.clip(g.trump, 0, 3)], NO_CARDS)
    follow, trumps = hand & led_set, hand & trump_set
    over, first, has_king = t.overtrump[c], t.king_first[c], (hand & KH_SET) != 0
    out, beat = follow, trumps
    if t.overtrump.any():  # only a table with the option needs the "beat the trick" sets
        out = xp.where(over & (led == g.trump), _above(follow, g.trick_cards & led_set), follow)
        beat = xp.where(over, _above(trumps, g.trick_cards & trump_set), trumps)
    out = xp.where(first & (led == 1) & has_king, KH_SET, out)
    short = xp.where(t.trumps[c] & (trumps != 0), beat, xp.where(first & has_king, KH_SET, hand))
    legal: U64 = xp.where(follow != 0, out, short)
    return legal


def cards(g: Games, t: Tables) -> tuple[U64, Bool]:
    """The cards each player to act may play, as a set, and whether he may pass (PLAY phase)."""
    hand = rows(g.hands, g.current)
    c = xp.maximum(g.contract, 0)
    layout = t.kind[c] != 0
    tricks = xp.where(g.trick_len == 0, _leads(g, t, hand, c), _follows(g, t, hand, c))
    placed = hand
    if layout.any():  # a few games: their layouts alone (by index; under JAX, masked)
        idx = xp.flatnonzero(layout)
        placed = hand.copy()
        placed[idx] = hand[idx] & fitting(g.lo[idx], g.hi[idx], g.start[idx])
    legal: U64 = xp.where(layout, placed, tricks)
    may_pass: Bool = layout & ((placed == 0) | g.ace_extra)
    return legal, may_pass


def relative(seats: Int, actor: Int, n: int) -> Int:
    """A seat mask as the bits of the seats 1…n-1 places to the actor's left."""
    bits = xp.zeros_like(seats)
    for k in range(1, n):
        bits = bits | (((seats >> ((actor + k) % n)) & 1) << (k - 1))
    rel: Int = bits
    return rel


def doubled_by(g: Games, seat: Int) -> Int:
    """Per game, the mask of the seats that doubled ``seat``."""
    by = xp.zeros_like(seat)
    for a in range(g.n):
        by = by | (((g.doubled[:, a] >> seat) & 1) << a)
    mask: Int = by
    return mask


def doubles(g: Games, t: Tables) -> tuple[Bool, Bool]:
    """The legal double ids (B, 8) and redouble ids (B, 8) of each player to act."""
    n, cur = g.n, g.current
    by = doubled_by(g, cur)
    others = ((1 << n) - 1) & ~(1 << cur) & ~by
    targets = xp.where(t.positive[xp.maximum(g.contract, 0)], 1 << g.declarer, others)
    allowed = relative(targets, cur, n)[:, None]
    must = xp.where((g.forced >> cur) & 1 == 1, 1 << ((g.declarer - cur) % n - 1), 0)[:, None]
    dbl: Bool = ((MASKS & ~allowed) == 0) & ((MASKS & must) == must)
    redbl: Bool = (MASKS & ~relative(by, cur, n)[:, None]) == 0
    return dbl, redbl


def choices(g: Games, t: Tables) -> Bool:
    """The contracts each declarer may choose (B, 7)."""
    left = ~rows(g.used, g.declarer)
    if t.king_idx >= 0:
        left = xp.where((g.set_aside & KH_SET) != 0, left & ~(1 << t.king_idx), left)
    allowed: Bool = (left[:, None] >> np.arange(7)) & 1 == 1
    return allowed


def legal_mask(g: Games, t: Tables) -> Bool:
    """The (B, 93) mask of barbu.env's ids legal for each game's player to act."""
    ph = g.phase[:, None]
    play, may_pass = cards(g, t)
    dbl, redbl = xp.zeros((g.batch, 8), dtype=np.bool_), xp.zeros((g.batch, 8), dtype=np.bool_)
    doubling = (ph[:, 0] == DOUBLE) | (ph[:, 0] == REDOUBLE)
    if t.king_idx < 0 and doubling.any():  # the few games doubling, on their own
        idx = xp.flatnonzero(doubling)
        dbl[idx], redbl[idx] = doubles(take(g, idx), t)
    parts = [
        bits_of(play) & (ph == PLAY), may_pass[:, None] & (ph == PLAY), choices(g, t) & (ph == CHOOSE),
        xp.broadcast_to(ph == TRUMP, (g.batch, 4)), xp.broadcast_to(ph == RANK, (g.batch, 13)),
        dbl & (ph == DOUBLE), redbl & (ph == REDOUBLE),
    ]
    mask: Bool = xp.concatenate(parts, axis=1)
    return mask
