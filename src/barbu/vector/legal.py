"""The legal actions of every game's player to act, as a (B, 93) mask over barbu.env's action ids."""

from __future__ import annotations

import numpy as np

from barbu.vector.backend import Bool, Int, rows, xp
from barbu.vector.games import CHOOSE, DOUBLE, PLAY, RANK, REDOUBLE, TRUMP, Games
from barbu.vector.tables import Tables

SUIT = np.arange(52, dtype=np.int32) // 13
RANK_OF = np.arange(52, dtype=np.int32) % 13
HEARTS = SUIT == 1
KH = 24  # the king of hearts' card number
ACE = 12
MASKS = np.arange(8, dtype=np.int32)  # the doubling ids' relative seat masks


def fitting(g: Games) -> Bool:
    """The cards that fit each game's Dominoes/Réussite layout (every card before Réussite's first)."""
    lo, hi = g.lo[:, SUIT], g.hi[:, SUIT]
    shut = (lo < 0) & (g.start[:, None] == RANK_OF)
    ends = (lo >= 0) & ((lo - 1 == RANK_OF) | (hi + 1 == RANK_OF))
    fits: Bool = shut | ends | (g.start < 0)[:, None]
    return fits


def _top_of(trick: Int, suit: Int) -> Int:
    """The highest rank of ``suit`` among the trick's cards, -1 when it has none."""
    of_suit = (trick >= 0) & (trick // 13 == suit[:, None])
    top: Int = xp.where(of_suit, trick % 13, -1).max(axis=1)
    return top


def _above(cards: Bool, top: Int) -> Bool:
    """``cards`` above rank ``top``, or all of ``cards`` when none is."""
    better: Bool = cards & (top[:, None] < RANK_OF)
    picked: Bool = xp.where(xp.any(better, axis=1)[:, None], better, cards)
    return picked


def _leads(g: Games, t: Tables, hand: Bool, c: Int) -> Bool:
    """The cards that may be led under each game's lead rule."""
    lead = t.lead[c]
    no_heart = (lead == 1) | ((lead == 3) & (g.trick_no == 0))
    others = hand & ~HEARTS
    out = xp.where((no_heart & others.any(axis=1))[:, None], others, hand)
    not_king = hand & (np.arange(52) != KH)
    leads: Bool = xp.where(((lead == 2) & not_king.any(axis=1))[:, None], not_king, out)
    return leads


def _follows(g: Games, t: Tables, hand: Bool, c: Int) -> Bool:
    """The cards that may be played to a trick already led."""
    led = rows(g.trick, g.leader) // 13
    follow = hand & (led[:, None] == SUIT)
    over, first, trump = t.overtrump[c], t.king_first[c], g.trump
    beat_led = _above(follow, _top_of(g.trick, led))
    out = xp.where((over & (led == trump))[:, None], beat_led, follow)
    kh_only = (np.arange(52) == KH) & hand
    out = xp.where((first & (led == 1) & hand[:, KH])[:, None], kh_only, out)
    trumps = hand & (trump[:, None] == SUIT)
    beat_trump = xp.where(over[:, None], _above(trumps, _top_of(g.trick, trump)), trumps)
    short = xp.where((t.trumps[c] & trumps.any(axis=1))[:, None], beat_trump,
                     xp.where((first & hand[:, KH])[:, None], kh_only, hand))
    legal: Bool = xp.where(follow.any(axis=1)[:, None], out, short)
    return legal


def cards(g: Games, t: Tables) -> tuple[Bool, Bool]:
    """The cards each player to act may play, and whether he may pass (PLAY phase)."""
    hand = rows(g.hands, g.current)
    c = xp.maximum(g.contract, 0)
    tricks = xp.where((g.trick_len == 0)[:, None], _leads(g, t, hand, c), _follows(g, t, hand, c))
    placed = hand & fitting(g)
    layout = t.kind[c] != 0
    legal = xp.where(layout[:, None], placed, tricks)
    may_pass = layout & (~placed.any(axis=1) | g.ace_extra)
    return legal, may_pass


def relative(seats: Bool, actor: Int) -> Int:
    """A (B, n) seat mask as the bits of the seats 1…n-1 places to the actor's left."""
    n = seats.shape[1]
    ahead = (actor[:, None] + np.arange(1, n)) % n
    picked = xp.take_along_axis(seats, ahead, axis=1)
    bits: Int = (picked.astype(np.int32) << np.arange(n - 1, dtype=np.int32)).sum(axis=1)
    return bits


def doubled_by(g: Games, seat: Int) -> Bool:
    """Per game, the seats that doubled ``seat`` (B, n)."""
    col: Bool = xp.take_along_axis(g.doubled, seat[:, None, None], axis=2)[:, :, 0]
    return col


def double_targets(g: Games, t: Tables) -> Bool:
    """The seats each player to act may double (B, n)."""
    n = g.n
    seats = np.arange(n)
    others = seats != g.current[:, None]
    declarer_only = seats == g.declarer[:, None]
    open_pairs = others & ~doubled_by(g, g.current)
    targets: Bool = xp.where(t.positive[xp.maximum(g.contract, 0)][:, None], declarer_only, open_pairs)
    return targets


def doubles(g: Games, t: Tables) -> tuple[Bool, Bool]:
    """The legal double ids (B, 8) and redouble ids (B, 8) of each player to act."""
    allowed = relative(double_targets(g, t), g.current)[:, None]
    forced = rows(g.forced, g.current)
    must = xp.where(forced, 1 << ((g.declarer - g.current) % g.n - 1), 0)[:, None]
    dbl = ((MASKS & ~allowed) == 0) & ((MASKS & must) == must)
    back = relative(doubled_by(g, g.current), g.current)[:, None]
    redbl = (MASKS & ~back) == 0
    if g.n - 1 < 3:  # ids whose bits name seats beyond the table mean nothing there
        dbl, redbl = dbl & (1 << (g.n - 1) > MASKS), redbl & (1 << (g.n - 1) > MASKS)
    return dbl, redbl


def choices(g: Games, t: Tables) -> Bool:
    """The contracts each declarer may choose (B, 7)."""
    left = ~rows(g.used, g.declarer)
    if t.king_idx < 0:
        return left
    barred = (np.arange(7) == t.king_idx) & g.set_aside[:, KH][:, None]
    allowed: Bool = left & ~barred
    return allowed


def legal_mask(g: Games, t: Tables) -> Bool:
    """The (B, 93) mask of barbu.env's ids legal for each game's player to act."""
    ph = g.phase[:, None]
    play, may_pass = cards(g, t)
    dbl, redbl = doubles(g, t) if t.king_idx < 0 else (xp.zeros((g.batch, 8), dtype=np.bool_),) * 2
    parts = [
        play & (ph == PLAY), may_pass[:, None] & (ph == PLAY), choices(g, t) & (ph == CHOOSE),
        xp.broadcast_to(ph == TRUMP, (g.batch, 4)), xp.broadcast_to(ph == RANK, (g.batch, 13)),
        dbl & (ph == DOUBLE), redbl & (ph == REDOUBLE),
    ]
    mask: Bool = xp.concatenate(parts, axis=1)
    return mask
