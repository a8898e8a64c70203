"""One action in every game at once: the engine's state machine written over arrays.

Each game is in one phase, so each phase's update is computed for the games in it (a
boolean mask) and merged, with ``where`` or, where few games change, by index; the
observation buffer is told of each event; the hands that end are returned for scoring.
"""

from __future__ import annotations

import numpy as np

from barbu.engine.doubling import REQUIRED_DOUBLES
from barbu.vector.backend import NO_CARDS, U64, Bool, Int, card_set, xp
from barbu.vector.games import CHOOSE, DOUBLE, PLAY, RANK, REDOUBLE, TRUMP, Games, put, take
from barbu.vector.legal import ACE
from barbu.vector.tables import Tables
from barbu.vector.views import Views


def _set(g: Games, name: str, where: Bool, value: Int | Bool | U64 | int | np.uint64) -> None:
    """Field ``name`` takes ``value`` in the games ``where`` and keeps its own elsewhere."""
    old = getattr(g, name)
    setattr(g, name, xp.where(where.reshape((-1,) + (1,) * (old.ndim - 1)), value, old))


def _seat_set(g: Games, name: str, where: Bool, seat: Int, value: Int | U64) -> None:
    """Replace the entry of ``seat`` in the per-seat field ``name`` of the games ``where``."""
    idx = xp.flatnonzero(where)
    # By index, in place (under JAX: .at[idx, seat].set): a third of the cost of a masked where.
    getattr(g, name)[idx, seat[idx]] = value[idx]


def _none(g: Games) -> Bool:
    """No game (a mask of B falses)."""
    none: Bool = xp.zeros(g.batch, dtype=np.bool_)
    return none


class Rules:
    """The batched state machine of one table."""

    def __init__(self, t: Tables, views: Views, per_declarer: int, classic: bool, hand_size: int) -> None:
        self.t, self.v, self.per, self.classic, self.size = t, views, per_declarer, classic, hand_size

    def step(self, g: Games, action: Int) -> Bool:
        """Apply each game's (legal) ``action``; return the games whose hand ended."""
        c = xp.maximum(g.contract, 0)
        tricks = (g.phase == PLAY) & (self.t.kind[c] == 0)
        ended = self._play_trick(g, tricks, action) if tricks.any() else _none(g)
        rest = ~tricks
        if not rest.any():
            return ended
        if not tricks.any():
            return self._rest(g, action)
        # Most games are in a trick: the other phases run on their few games alone.
        idx = xp.flatnonzero(rest)
        sub = take(g, idx)
        done = self._rest(sub, action[idx])
        put(g, idx, sub)
        ended[idx] = done
        return ended

    def _rest(self, g: Games, action: Int) -> Bool:
        """Every phase but trick play, each on the games in it."""
        ph = g.phase
        steps = ((ph == CHOOSE, self._choose), (ph == TRUMP, self._trump), (ph == RANK, self._rank),
                 (ph == DOUBLE, self._double), (ph == REDOUBLE, self._redouble), (ph == PLAY, self._place))
        ended = _none(g)
        for m, do in steps:
            if m.any():  # a skip only: under JAX every branch would run, masked
                ended = ended | do(g, m, action)
        return ended

    def _choose(self, g: Games, m: Bool, action: Int) -> Bool:
        idx = xp.clip(action - 53, 0, 6)
        _set(g, "contract", m, idx)
        naming_suit = m & self.t.trumps[idx]
        naming_rank = m & (self.t.kind[idx] == 1)
        _set(g, "phase", naming_suit, TRUMP)
        _set(g, "phase", naming_rank, RANK)
        return self._after_naming(g, m & ~naming_suit & ~naming_rank)

    def _trump(self, g: Games, m: Bool, action: Int) -> Bool:
        _set(g, "trump", m, action - 60)
        return self._after_naming(g, m)

    def _rank(self, g: Games, m: Bool, action: Int) -> Bool:
        _set(g, "start", m, action - 64)
        return self._after_naming(g, m)

    def _after_naming(self, g: Games, m: Bool) -> Bool:
        if not self.classic:
            return self._start_play(g, m)
        left = self.per - g.hand_no % self.per
        owed = xp.maximum(0, REQUIRED_DOUBLES - g.dbl_count)
        owed = xp.where(np.arange(g.n) == g.declarer[:, None], 0, owed)
        forced = (((owed > 0) & (owed >= left[:, None])) << np.arange(g.n)).sum(axis=1)
        _set(g, "forced", m, forced)
        _set(g, "phase", m, DOUBLE)
        _set(g, "turn", m, 1)
        _set(g, "current", m, (g.declarer + 1) % g.n)
        self.v.compulsory(g, xp.flatnonzero(m))
        return _none(g)

    def _start_play(self, g: Games, m: Bool) -> Bool:
        _set(g, "phase", m, PLAY)
        _set(g, "current", m, g.declarer)
        _set(g, "leader", m, g.declarer)
        c = xp.maximum(g.contract, 0)
        ends = self.t.ends[c]
        nothing: Bool = m & (self.t.kind[c] == 0) & (ends != 0) & ((ends & ~g.set_aside) == 0)
        return nothing

    def _from_left(self, g: Games, mask: Int) -> Int:
        """The seats of an id's relative mask (bit k-1: k places to the actor's left) as a seat mask."""
        seats = xp.zeros_like(mask)
        for k in range(1, g.n):
            seats = seats | (((mask >> (k - 1)) & 1) << ((g.current + k) % g.n))
        absolute: Int = seats
        return absolute

    def _double(self, g: Games, m: Bool, action: Int) -> Bool:
        targets = self._from_left(g, action - 77)
        games = xp.flatnonzero(m)
        self.v.pair(g.ids[games], "doubled", g.current[games], targets[games])
        _seat_set(g, "doubled", m, g.current, targets)
        hit = (targets >> g.declarer) & 1
        _seat_set(g, "dbl_count", m, g.current, g.dbl_count[np.arange(g.batch), g.current] + hit)
        self.v.owed(g, games)
        more = m & (g.turn < g.n - 1)
        _set(g, "turn", more, g.turn + 1)
        _set(g, "current", more, (g.declarer + g.turn) % g.n)
        last = m & ~more
        nobody = last & (g.doubled.sum(axis=1) == 0)
        _set(g, "phase", last & ~nobody, REDOUBLE)
        ended = self._next_redoubler(g, last & ~nobody, xp.zeros(g.batch, dtype=np.int32))
        return ended | self._start_play(g, nobody)

    def _redouble(self, g: Games, m: Bool, action: Int) -> Bool:
        targets = self._from_left(g, action - 85)
        games = xp.flatnonzero(m)
        self.v.pair(g.ids[games], "redoubled", g.current[games], targets[games])
        _seat_set(g, "redoubled", m, g.current, targets)
        return self._next_redoubler(g, m, g.turn + 1)

    def _next_redoubler(self, g: Games, m: Bool, first: Int) -> Bool:
        """Move to the next seat in redoubling order, from position ``first``, that was doubled."""
        doubled = xp.bitwise_or.reduce(g.doubled, axis=1)  # the seats someone doubled
        order = (g.declarer[:, None] + np.arange(g.n)) % g.n
        waiting = ((doubled[:, None] >> order) & 1 == 1) & (np.arange(g.n) >= first[:, None])
        found = m & waiting.any(axis=1)
        pos = xp.argmax(waiting, axis=1).astype(np.int32)
        _set(g, "turn", found, pos)
        _set(g, "current", found, (g.declarer + pos) % g.n)
        return self._start_play(g, m & ~found)

    def _take(self, g: Games, m: Bool, card: Int, in_trick: bool) -> None:
        """Take ``card`` from the actor's hand (and tell the views)."""
        games = xp.flatnonzero(m)
        self.v.played(g.ids[games], g.current[games], card[games], in_trick)
        one, cur = card_set(card), g.current
        _seat_set(g, "hands", m, cur, g.hands[np.arange(g.batch), cur] & ~one)
        _seat_set(g, "played", m, cur, g.played[np.arange(g.batch), cur] | one)

    def _play_trick(self, g: Games, m: Bool, card: Int) -> Bool:
        self._take(g, m, card, True)
        led = g.trick[np.arange(g.batch), g.leader] // 13
        off_suit = m & (g.trick_len > 0) & (card // 13 != led)
        if off_suit.any():
            games = xp.flatnonzero(off_suit)
            self.v.void(g.ids[games], g.current[games], led[games])
            no_trump = off_suit & (g.trump >= 0) & (card // 13 != g.trump)
            shown = (1 << xp.maximum(led, 0)) | xp.where(no_trump, 1 << xp.maximum(g.trump, 0), 0)
            _seat_set(g, "voids", off_suit, g.current, g.voids[np.arange(g.batch), g.current] | shown)
            games = xp.flatnonzero(no_trump)
            self.v.void(g.ids[games], g.current[games], g.trump[games])
        _seat_set(g, "trick", m, g.current, card)
        _set(g, "trick_cards", m, g.trick_cards | card_set(card))
        _set(g, "trick_len", m, g.trick_len + 1)
        full = m & (g.trick_len == g.n)
        _set(g, "current", m & ~full, (g.current + 1) % g.n)
        return self._finish_trick(g, full) if full.any() else _none(g)

    def _finish_trick(self, g: Games, m: Bool) -> Bool:
        """Score the full tricks; worked out on those games only (a quarter of them at most)."""
        t, idx = self.t, xp.flatnonzero(m)
        k = np.arange(len(idx))
        c, trick, leader = xp.maximum(g.contract[idx], 0), g.trick[idx], g.leader[idx]
        trick_no = g.trick_no[idx]
        suit, led = trick // 13, (trick[k, leader] // 13)[:, None]
        key = xp.where(suit == g.trump[idx][:, None], 200, xp.where(suit == led, 100, 0)) + trick % 13
        winner = xp.argmax(key, axis=1)
        pts = t.per_trick[c] + t.card_points[c[:, None], trick].sum(axis=1) + t.last_bonus[c, trick_no]
        # In-place writes by index (under JAX: .at[idx, winner].add and .at[idx].set).
        g.points[idx, winner] += pts
        g.tricks_won[idx, winner] += 1
        self.v.trick_taken(g.ids[idx], winner, trick)
        g.captured[idx, winner] |= xp.bitwise_or.reduce(card_set(trick), axis=1)
        g.last_trick[idx] = trick
        g.last_leader[idx] = leader
        g.trick[idx] = -1
        g.trick_cards[idx] = NO_CARDS
        g.trick_len[idx] = 0
        g.trick_no[idx] = trick_no + 1
        g.leader[idx] = g.current[idx] = winner
        ends = t.ends[c]
        fallen = (ends != 0) & ((xp.bitwise_or.reduce(g.hands[idx], axis=1) & ends) == 0)
        last = _none(g)
        last[idx] = (trick_no + 1 == self.size) | fallen
        return last

    def _run_on(self, g: Games) -> None:
        """Stretch every open line over the set-aside cards beyond its ends."""
        for _ in range(self.t.aside):
            for s in range(4):
                lo, hi = g.lo[:, s], g.hi[:, s]
                below = (g.set_aside >> (13 * s + xp.maximum(lo - 1, 0)).astype(np.uint64)) & np.uint64(1)
                above = (g.set_aside >> (13 * s + xp.minimum(hi + 1, ACE)).astype(np.uint64)) & np.uint64(1)
                g.lo[:, s] = xp.where((lo > 0) & (below == 1), lo - 1, lo)
                g.hi[:, s] = xp.where((hi >= 0) & (hi < ACE) & (above == 1), hi + 1, hi)

    def _lay(self, g: Games, m: Bool, card: Int) -> None:
        """Put ``card`` on its line; Réussite's first card fixes the rank and opens set-aside ones."""
        rank, suit = card % 13, card // 13
        first = m & (g.start < 0)
        _set(g, "start", first, rank)
        if self.t.aside and first.any():
            for s in range(4):
                opens = first & ((g.set_aside >> (13 * s + rank).astype(np.uint64)) & np.uint64(1) == 1)
                g.lo[:, s] = xp.where(opens, rank, g.lo[:, s])
                g.hi[:, s] = xp.where(opens, rank, g.hi[:, s])
        mine = m[:, None] & (np.arange(4) == suit[:, None])
        shut = g.lo < 0
        g.lo = xp.where(mine & (shut | (rank[:, None] < g.lo)), rank[:, None], g.lo)
        g.hi = xp.where(mine & (shut | (rank[:, None] > g.hi)), rank[:, None], g.hi)
        self._run_on(g)

    def _place(self, g: Games, m: Bool, card: Int) -> Bool:
        placing = m & (card != 52)
        safe = xp.minimum(card, 51)
        self._take(g, placing, safe, False)
        self._lay(g, placing, safe)
        c = xp.maximum(g.contract, 0)
        gone = placing & (g.hands[np.arange(g.batch), g.current] == 0)
        if gone.any():
            games = xp.flatnonzero(gone)
            self.v.gone_out(g.ids[games], g.current[games], g.out_count[games])
            _seat_set(g, "out", gone, g.current, g.out_count)
            _set(g, "out_count", gone, g.out_count + 1)
        over: Bool = gone & (g.out_count >= self.t.out_needed[c])
        extra = placing & ~gone & (self.t.kind[c] == 2) & (safe % 13 == ACE)
        _set(g, "ace_extra", m, extra)
        self._next_holder(g, m & ~extra & ~over)
        return over

    def _next_holder(self, g: Games, m: Bool) -> None:
        """The next seat after the actor that still holds cards (or the actor himself)."""
        order = (g.current[:, None] + np.arange(1, g.n + 1)) % g.n
        holds = g.hands[np.arange(g.batch)[:, None], order] != 0
        nxt = order[np.arange(g.batch), xp.argmax(holds, axis=1)]
        _set(g, "current", m & holds.any(axis=1), nxt)

