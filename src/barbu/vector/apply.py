"""One action in every game at once: the engine's state machine written over arrays.

Each game is in one phase, so each phase's update is computed for the games in it (a
boolean mask) and merged with ``where``; the hands that end are returned for scoring.
"""

from __future__ import annotations

import numpy as np

from barbu.engine.doubling import REQUIRED_DOUBLES
from barbu.vector.backend import Bool, Int, onehot, rows, xp
from barbu.vector.games import CHOOSE, DEAL, DOUBLE, PLAY, RANK, REDOUBLE, TRUMP, Games
from barbu.vector.legal import ACE, RANK_OF, SUIT
from barbu.vector.tables import Tables

ACTION_BASE = {"contract": 53, "trump": 60, "rank": 64, "double": 77, "redouble": 85}


def _set(g: Games, name: str, where: Bool, value: Int | Bool | int) -> None:
    old = getattr(g, name)
    setattr(g, name, xp.where(where.reshape((-1,) + (1,) * (old.ndim - 1)), value, old))


def _seat_row(g: Games, name: str, where: Bool, seat: Int, row: Int | Bool) -> None:
    """Replace row ``seat`` of the per-seat field ``name`` in the games ``where``."""
    old = getattr(g, name)
    at = (where[:, None] & onehot(seat, g.n)).reshape(where.shape + (g.n,) + (1,) * (old.ndim - 2))
    setattr(g, name, xp.where(at, xp.expand_dims(row, 1), old))


def step(g: Games, t: Tables, action: Int, per_declarer: int, classic: bool) -> Bool:
    """Apply each game's (legal) ``action``; return the games whose hand ended."""
    ph, c = g.phase, xp.maximum(g.contract, 0)
    layout = t.kind[c] != 0
    masks = (ph == CHOOSE, ph == TRUMP, ph == RANK, ph == DOUBLE, ph == REDOUBLE,
             (ph == PLAY) & ~layout, (ph == PLAY) & layout)
    ended: Bool = xp.zeros(g.batch, dtype=np.bool_)
    ended = ended | _choose(g, t, masks[0], action, per_declarer, classic)
    ended = ended | _name(g, t, masks[1], "trump", action - 60, per_declarer, classic)
    ended = ended | _name(g, t, masks[2], "start", action - 64, per_declarer, classic)
    ended = ended | _double(g, t, masks[3], action - 77)
    ended = ended | _redouble(g, t, masks[4], action - 85)
    ended = ended | _play_trick(g, t, masks[5], action)
    ended = ended | _place(g, t, masks[6], action)
    return ended


def _choose(g: Games, t: Tables, m: Bool, action: Int, per: int, classic: bool) -> Bool:
    idx = xp.clip(action - 53, 0, 6)
    _set(g, "contract", m, idx)
    naming_suit = m & t.trumps[idx]
    naming_rank = m & (t.kind[idx] == 1)
    _set(g, "phase", naming_suit, TRUMP)
    _set(g, "phase", naming_rank, RANK)
    return _after_naming(g, t, m & ~naming_suit & ~naming_rank, per, classic)


def _name(g: Games, t: Tables, m: Bool, name: str, value: Int, per: int, classic: bool) -> Bool:
    _set(g, name, m, value)
    return _after_naming(g, t, m, per, classic)


def _after_naming(g: Games, t: Tables, m: Bool, per: int, classic: bool) -> Bool:
    if not classic:
        return _start_play(g, t, m)
    left = per - g.hand_no % per
    owed = xp.maximum(0, REQUIRED_DOUBLES - g.dbl_count)
    owed = xp.where(np.arange(g.n) == g.declarer[:, None], 0, owed)
    forced = (owed > 0) & (owed >= left[:, None])
    _set(g, "forced", m, forced)
    _set(g, "phase", m, DOUBLE)
    _set(g, "turn", m, 1)
    _set(g, "current", m, (g.declarer + 1) % g.n)
    none: Bool = xp.zeros(g.batch, dtype=np.bool_)
    return none


def _start_play(g: Games, t: Tables, m: Bool) -> Bool:
    _set(g, "phase", m, PLAY)
    _set(g, "current", m, g.declarer)
    _set(g, "leader", m, g.declarer)
    c = xp.maximum(g.contract, 0)
    ends = t.ends[c]
    nothing = (t.kind[c] == 0) & ends.any(axis=1) & ~(ends & ~g.set_aside).any(axis=1)
    ends_now: Bool = m & nothing
    return ends_now


def _from_left(g: Games, m: Bool, mask: Int) -> Bool:
    """The seats of an id's relative mask (bit k-1: k places to the actor's left) as (B, n)."""
    k = (np.arange(g.n) - g.current[:, None]) % g.n
    bits: Bool = (k > 0) & ((mask[:, None] >> xp.maximum(k - 1, 0)) & 1 == 1) & m[:, None]
    return bits


def _double(g: Games, t: Tables, m: Bool, mask: Int) -> Bool:
    row = _from_left(g, m, mask)
    _seat_row(g, "doubled", m, g.current, row)
    hit = rows(row, g.declarer).astype(np.int32)
    _seat_row(g, "dbl_count", m, g.current, rows(g.dbl_count, g.current) + hit)
    more = m & (g.turn < g.n - 1)
    _set(g, "turn", more, g.turn + 1)
    _set(g, "current", more, (g.declarer + g.turn) % g.n)
    last = m & ~more
    nobody = last & ~g.doubled.any(axis=(1, 2))
    _set(g, "phase", last & ~nobody, REDOUBLE)
    ended = _next_redoubler(g, t, last & ~nobody, xp.zeros(g.batch, dtype=np.int32))
    return ended | _start_play(g, t, nobody)


def _redouble(g: Games, t: Tables, m: Bool, mask: Int) -> Bool:
    _seat_row(g, "redoubled", m, g.current, _from_left(g, m, mask))
    return _next_redoubler(g, t, m, g.turn + 1)


def _next_redoubler(g: Games, t: Tables, m: Bool, first: Int) -> Bool:
    """Move to the next seat in redoubling order, from position ``first``, that was doubled."""
    order = (g.declarer[:, None] + np.arange(g.n)) % g.n
    was_doubled = g.doubled.any(axis=1)  # (B, n): someone doubled this seat
    waiting = xp.take_along_axis(was_doubled, order, axis=1) & (np.arange(g.n) >= first[:, None])
    found = m & waiting.any(axis=1)
    pos = xp.argmax(waiting, axis=1).astype(np.int32)
    _set(g, "turn", found, pos)
    _set(g, "current", found, (g.declarer + pos) % g.n)
    return _start_play(g, t, m & ~found)


def _play_card(g: Games, m: Bool, card: Int) -> None:
    """Take ``card`` from the actor's hand into his played cards."""
    at = m[:, None, None] & onehot(g.current, g.n)[:, :, None] & onehot(card, 52)[:, None, :]
    g.hands = g.hands & ~at
    g.played = g.played | at


def _play_trick(g: Games, t: Tables, m: Bool, card: Int) -> Bool:
    _play_card(g, m, card)
    led = rows(g.trick, g.leader) // 13
    off_suit = m & (g.trick_len > 0) & (card // 13 != led)
    void = onehot(led, 4) | (onehot(g.trump, 4) & (card // 13 != g.trump)[:, None])
    _seat_row(g, "voids", off_suit, g.current, rows(g.voids, g.current) | void)
    _seat_row(g, "trick", m, g.current, card)
    _set(g, "trick_len", m, g.trick_len + 1)
    full = m & (g.trick_len == g.n)
    _set(g, "current", m & ~full, (g.current + 1) % g.n)
    return _finish_trick(g, t, full)


def _finish_trick(g: Games, t: Tables, m: Bool) -> Bool:
    c = xp.maximum(g.contract, 0)
    suit, led = g.trick // 13, rows(g.trick, g.leader)[:, None] // 13
    key = xp.where(suit == g.trump[:, None], 200, xp.where(suit == led, 100, 0)) + g.trick % 13
    winner = xp.argmax(key, axis=1).astype(np.int32)
    cards: Bool = xp.any(onehot(g.trick, 52), axis=1)
    bonus = xp.take_along_axis(t.last_bonus[c], xp.minimum(g.trick_no, t.last_bonus.shape[1] - 1)[:, None],
                               axis=1)[:, 0]
    pts = t.per_trick[c] + (t.card_points[c] * cards).sum(axis=1) + bonus
    win: Bool = m[:, None] & onehot(winner, g.n)
    g.points = g.points + win * pts[:, None]
    g.captured = g.captured | (win[:, :, None] & cards[:, None, :])
    g.tricks_won = g.tricks_won + win
    _set(g, "last_trick", m, g.trick)
    _set(g, "last_leader", m, g.leader)
    _set(g, "trick", m, -1)
    _set(g, "trick_len", m, 0)
    _set(g, "trick_no", m, g.trick_no + 1)
    _set(g, "leader", m, winner)
    _set(g, "current", m, winner)
    ends = t.ends[c]
    fallen = ends.any(axis=1) & ~(ends[:, None, :] & g.hands).any(axis=(1, 2))
    last: Bool = m & ((g.trick_no == g.hands.shape[2] // g.n) | fallen)
    return last


def _run_on(g: Games, steps: int) -> None:
    """Stretch every open line over the set-aside cards beyond its ends."""
    aside = g.set_aside.reshape(-1, 4, 13)
    for _ in range(steps):
        below = xp.take_along_axis(aside, xp.maximum(g.lo - 1, 0)[:, :, None], axis=2)[:, :, 0]
        above = xp.take_along_axis(aside, xp.minimum(g.hi + 1, 12)[:, :, None], axis=2)[:, :, 0]
        g.lo = xp.where((g.lo > 0) & below, g.lo - 1, g.lo)
        g.hi = xp.where((g.hi >= 0) & (g.hi < ACE) & above, g.hi + 1, g.hi)


def _lay(g: Games, m: Bool, card: Int, steps: int) -> None:
    """Put ``card`` on its line; Réussite's first card fixes the rank and opens set-aside ones."""
    rank, suit = card % 13, card // 13
    first = m & (g.start < 0)
    _set(g, "start", first, rank)
    opener: Bool = g.set_aside.reshape(-1, 4, 13)[:, :, :] & (np.arange(13) == rank[:, None, None])
    opened = first[:, None] & opener.any(axis=2)
    g.lo = xp.where(opened, rank[:, None], g.lo)
    g.hi = xp.where(opened, rank[:, None], g.hi)
    mine = m[:, None] & (np.arange(4) == suit[:, None])
    shut = g.lo < 0
    g.lo = xp.where(mine & (shut | (rank[:, None] < g.lo)), rank[:, None], g.lo)
    g.hi = xp.where(mine & (shut | (rank[:, None] > g.hi)), rank[:, None], g.hi)
    _run_on(g, steps)


def _place(g: Games, t: Tables, m: Bool, card: Int) -> Bool:
    passing = m & (card == 52)
    placing = m & ~passing
    safe = xp.minimum(card, 51)
    _play_card(g, placing, safe)
    _lay(g, placing, safe, t.aside)
    c = xp.maximum(g.contract, 0)
    gone = placing & ~rows(g.hands, g.current).any(axis=1)
    _seat_row(g, "out", gone, g.current, g.out_count)
    _set(g, "out_count", gone, g.out_count + 1)
    over: Bool = gone & (g.out_count >= t.out_needed[c])
    extra = placing & ~gone & (t.kind[c] == 2) & (safe % 13 == ACE)
    _set(g, "ace_extra", m, extra)
    _next_holder(g, m & ~extra & ~over)
    return over


def _next_holder(g: Games, m: Bool) -> None:
    """The next seat after the actor that still holds cards (or the actor himself)."""
    order = (g.current[:, None] + np.arange(1, g.n + 1)) % g.n
    holds = xp.take_along_axis(g.hands.any(axis=2), order, axis=1)
    nxt = xp.take_along_axis(order, xp.argmax(holds, axis=1)[:, None], axis=1)[:, 0]
    _set(g, "current", m & holds.any(axis=1), nxt)


__all__ = ["DEAL", "RANK_OF", "SUIT", "step"]
