"""Every seat's encoded observation kept up to date action by action, instead of encoded afresh.

:func:`barbu.env.encoding.encode` builds a seat's array from its whole ``Observation``: about
60 µs with the engine's ``observe``. During the play of a hand an action changes a handful of
entries (a card leaves a hand and joins a trick, a seat to act, at a trick's end the captures
and the counts), so a :class:`Tracker` keeps one *public* array, every seat's fields in
absolute seat order, and writes only those entries after each card. Anything rarer (a deal, a
contract, a double, a hand's end) rebuilds the public array from the engine's observation of
seat 0 (seats relative to seat 0 are the absolute seats).

What feeds it is what every seat sees: the public actions, and after each of them the public
counters that every seat's ``Observation`` shows alike (the trick's leader, tricks and points,
the Dominoes lines, the order of going out). A seat's own cards are kept in a block of their
own, read from its hand alone. A seat's array is then one gather (:meth:`Tracker.encode`):
its fields picked from the public array in its relative seat order, and its own hand block.
``tests/test_env_tracker.py`` checks that it equals ``encode(state.observe(seat))`` for every
seat at every step of random games on every table.

>>> from barbu.engine.game import Game
>>> from barbu.engine.state import State
>>> from barbu.env.encoding import encode
>>> s = State(Game.classic(), seed=2)
>>> _ = s.deal_random()
>>> t = Tracker(s)
>>> s.apply(s.legal_actions()[0]); t.update()
>>> bool((t.encode(1) == encode(s.observe(1))).all())
True
"""

from __future__ import annotations

from typing import Protocol, cast

import numpy as np
import numpy.typing as npt

from barbu.engine.cards import CARD_BITS
from barbu.engine.contracts import Kind
from barbu.engine.doubling import split_doubles
from barbu.engine.game import PASS
from barbu.engine.hand import Phase
from barbu.engine.state import State
from barbu.env.encoding import LINE_BITS, OWED_BITS, OWED_LEVELS, Array, Layout, encode, layout

IntArray = npt.NDArray[np.intp]


class _Floats(Protocol):
    """A float32 buffer's items (typeshed's memoryview takes ints only)."""

    def __setitem__(self, index: int, value: float, /) -> None: ...


# Fields whose entries are per seat (one-hot seats, or one row per seat), and the two seat × seat
# matrices whose columns are seats as well.
_SEAT_ROWS = frozenset({
    "current", "declarer", "leader", "last_leader", "played", "trick", "last_trick", "captured",
    "voids", "available", "compulsory", "owed", "out_order", "hand_sizes", "tricks_won", "points",
    "totals"})
_SEAT_MATRICES = frozenset({"doubled", "redoubled"})
_PLAY, _DEAL, _OVER = Phase.PLAY, Phase.DEAL, Phase.GAME_OVER
_DOUBLING = (Phase.DOUBLE, Phase.REDOUBLE)
_NAMING = (Phase.CHOOSE, Phase.TRUMP, Phase.START_RANK)
# What naming a contract, a trump or a rank, or a double or a redouble leads to.
_AFTER = (Phase.TRUMP, Phase.START_RANK, Phase.DOUBLE, Phase.REDOUBLE, Phase.PLAY)


def _bits(mask: int, count: int) -> npt.NDArray[np.uint8]:
    """The ``count`` low bits of ``mask``, lowest first."""
    raw = np.frombuffer(mask.to_bytes((count + 7) // 8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, count=count, bitorder="little")


def _bits52(mask: int) -> npt.NDArray[np.uint8]:
    return _bits(mask, 52)


def gather_tables(lay: Layout) -> list[IntArray]:
    """Per observer seat, the index of each of its array's entries in the public array.

    The public array is the layout relative to seat 0 (so in absolute seats), followed by one
    52-entry block per seat for its own cards; the observer's ``hand`` field points at its block.
    """
    n = lay.game.players
    tables = []
    for seat in range(n):
        index = np.arange(lay.size, dtype=np.intp)
        for name, f in lay.fields.items():
            at = np.arange(f.offset, f.end, dtype=np.intp).reshape(f.shape)
            if name == "hand":
                at = lay.size + 52 * seat + np.arange(52, dtype=np.intp)
            elif name in _SEAT_ROWS:
                at = np.roll(at, -seat, axis=0)
            elif name in _SEAT_MATRICES:
                at = np.roll(np.roll(at, -seat, axis=0), -seat, axis=1)
            index[f.offset:f.end] = at.reshape(-1)
        tables.append(index)
    return tables


class Tracker:
    """The public array of one game and every seat's own cards, kept in step with the state.

    Call :meth:`update` after every action applied to the state (and after dealing);
    :meth:`encode` gives a seat's array. A state changed behind its back (another hand, actions
    it was not told of) is noticed and rebuilt from; its own cards are read at each
    :meth:`encode`, so they are never stale.
    """

    def __init__(self, state: State) -> None:
        self.lay = lay = layout(state.game)
        self.n = n = state.game.players
        self.size = lay.size
        self.public: Array = np.zeros(lay.size + 52 * n, dtype=np.float32)
        # Its items written through a memoryview: a third quicker than numpy's item assignment.
        self.mv = cast("_Floats", memoryview(self.public.data))
        self.gather = gather_tables(lay)
        off = lay.off
        self._current, self._leader = off["current"], off["leader"]
        self._last_leader = off["last_leader"]
        self._played, self._trick, self._last_trick = off["played"], off["trick"], off["last_trick"]
        self._captured, self._voids, self._lines = off["captured"], off["voids"], off["lines"]
        self._sizes, self._won, self._trick_no = off["hand_sizes"], off["tricks_won"], off["trick_no"]
        self._points, self._out, self._ace = off["points"], off["out_order"], off["ace_extra"]
        self._start = off["start_rank"]
        inv = lay.inverse_scales
        self._points_scale = inv[self._points - lay.nbits:self._points - lay.nbits + n]
        per_card = np.float32(inv[self._sizes - lay.nbits])
        self._per_card = [float(np.float32(k) * per_card) for k in range(53)]
        self._line_rows = [[_bits52(LINE_BITS[lo][hi])[:13].astype(np.float32)
                            for hi in range(13)] for lo in range(13)]
        self.rebuild(state)

    # -- keeping up -------------------------------------------------------------

    def rebuild(self, state: State) -> None:
        """The public array from the engine's observation of seat 0, and every seat's cards."""
        self.state = state
        pub = self.public
        pub[:self.size] = encode(state.observe(0))
        hand = self.lay.fields["hand"]
        pub[hand.offset:hand.end] = 0.0  # seat 0's cards: never read there (each seat has its block)
        in_hand = state.phase not in (_DEAL, _OVER)
        self.hands = [h if in_hand else 0 for h in state.hands]
        for s, h in enumerate(self.hands):
            pub[self.size + 52 * s:self.size + 52 * (s + 1)] = _bits52(h)
        self._mark(state)

    def _mark(self, state: State) -> None:
        """What :meth:`update` compares the next state with."""
        self.hand_no, self.phase, self.seen = state.hand_no, state.phase, len(state.actions)
        self.current, self.leader = state.current, state.leader
        self.points = state.points[:]
        c = state.contract
        if c is not None and c.kind != Kind.TRICKS:  # what only Dominoes and Réussite change
            self.out = len(state.out_order)
            self.ace_extra, self.start_rank = state.ace_extra, state.start_rank
            self.lines = list(zip(state.lo, state.hi, strict=True))

    def update(self) -> None:
        """Bring the arrays up to the state after one more action (or a deal, or anything else)."""
        state = self.state
        if (state.phase == _PLAY and self.phase == _PLAY and state.hand_no == self.hand_no
                and len(state.actions) == self.seen + 1):  # one card (or pass) more: the hot path
            c = state.contract
            assert c is not None
            if c.kind == Kind.TRICKS:
                self._card_in_trick(state)  # notes what it changed itself: quicker than _mark
                return
            self._card_in_layout(state)
        # Naming and doubling write what they change from the state itself; no card is played.
        elif (state.hand_no == self.hand_no and state.phase in _AFTER
              and len(state.actions) == self.seen and self.phase in _DOUBLING):
            self._doubling_step(state)
        elif (state.hand_no == self.hand_no and state.phase in _AFTER
              and len(state.actions) == self.seen and self.phase in _NAMING):
            self._naming_step(state)
        else:
            self.rebuild(state)
            return
        self._mark(state)

    def _phase_changed(self, state: State) -> None:
        """The phase and the turn; the trick's leader as trick play begins."""
        at = self.lay.off["phase"]
        self.mv[at + self.phase] = 0.0
        self.mv[at + state.phase] = 1.0
        if state.phase == _PLAY and state.contract is not None \
                and state.contract.kind == Kind.TRICKS:
            self.mv[self._leader + state.leader] = 1.0
        self._turn(state)

    def _naming_step(self, state: State) -> None:
        """A contract, a trump suit or a starting rank named: its one-hot entry, the obligations."""
        pub, off, c = self.public, self.lay.off, state.contract
        assert c is not None
        if self.phase == Phase.CHOOSE:
            pub[off["contract"] + self.lay.contract_index[c.id]] = 1.0
        if state.trump >= 0:
            pub[off["trump"] + state.trump] = 1.0
        if state.start_rank >= 0:
            self.mv[self._start + state.start_rank] = 1.0
        for s in range(self.n):
            if state.forced >> s & 1:  # fixed as the doubles begin (classic)
                pub[off["compulsory"] + s] = 1.0
        self._phase_changed(state)

    def _doubling_step(self, state: State) -> None:
        """A double or a redouble: the two seat matrices, the doubles owed, the turn, the phase."""
        pub, n, off = self.public, self.n, self.lay.off
        doubled, redoubled = split_doubles(state.doubles_list(), state.declarer, n)
        rows = self.lay.row_bits[0]
        bits = sum(rows[a][m] for a, m in enumerate(doubled))
        bits |= sum(rows[a][m] for a, m in enumerate(redoubled)) << (n * n)
        pub[off["doubled"]:off["doubled"] + 2 * n * n] = _bits(bits, 2 * n * n)
        owed = [OWED_BITS[state.owed_doubles(s)] >> k & 1 for s in range(n)
                for k in range(OWED_LEVELS)]
        pub[off["owed"]:off["owed"] + OWED_LEVELS * n] = owed
        self._phase_changed(state)

    def _card_left(self, seat: int, card: int) -> None:
        """``seat`` played ``card``: out of its hand, into its played cards, one card fewer."""
        self.hands[seat] &= ~CARD_BITS[card]
        self.mv[self.size + 52 * seat + card] = 0.0
        self.mv[self._played + 52 * seat + card] = 1.0
        self.mv[self._sizes + seat] = self._per_card[self.state.hands[seat].bit_count()]

    def _turn(self, state: State) -> None:
        self.mv[self._current + self.current] = 0.0
        self.mv[self._current + state.current] = 1.0

    def _card_in_trick(self, state: State) -> None:
        seat, card = state.actors[-1], state.actions[-1]
        self._card_left(seat, card)
        trick = state.trick
        if trick:  # the trick goes on: the card joins it, and may show a void
            self.mv[self._trick + 52 * seat + card] = 1.0
            if len(trick) > 1:
                led = trick[0] // 13
                if card // 13 != led:
                    self.mv[self._voids + 4 * seat + led] = 1.0
                    if state.trump >= 0 and card // 13 != state.trump:
                        self.mv[self._voids + 4 * seat + state.trump] = 1.0
        else:
            self._trick_over(state)
        self._turn(state)
        self.current = state.current
        self.seen += 1

    def _trick_over(self, state: State) -> None:
        """The last card of a trick: the trick becomes the last trick and goes to its winner."""
        pub, n = self.public, self.n
        seats, cards = state.actors[-n:], state.actions[-n:]
        led = cards[0] // 13
        seat, card = seats[-1], cards[-1]
        if card // 13 != led:
            self.mv[self._voids + 4 * seat + led] = 1.0
            if state.trump >= 0 and card // 13 != state.trump:
                self.mv[self._voids + 4 * seat + state.trump] = 1.0
        pub[self._trick:self._trick + 52 * n] = 0.0
        pub[self._last_trick:self._last_trick + 52 * n] = 0.0
        winner = state.leader
        for s, x in zip(seats, cards, strict=True):
            self.mv[self._last_trick + 52 * s + x] = 1.0
            self.mv[self._captured + 52 * winner + x] = 1.0
        pub[self._last_leader:self._last_leader + n] = 0.0
        pub[self._last_leader + seats[0]] = 1.0
        self.mv[self._leader + self.leader] = 0.0
        self.mv[self._leader + winner] = 1.0
        self.mv[self._won + winner] = self._per_card[state.tricks_won[winner]]
        self.mv[self._trick_no] = self._per_card[state.trick_no]
        self._points_changed(state)
        self.leader = winner
        self.points = state.points[:]

    def _points_changed(self, state: State) -> None:
        if state.points != self.points:
            pub = self.public
            pub[self._points:self._points + self.n] = state.points
            pub[self._points:self._points + self.n] *= self._points_scale

    def _card_in_layout(self, state: State) -> None:
        """A Dominoes/Réussite action: a card placed on its line, or a pass."""
        pub = self.public
        seat, action = state.actors[-1], state.actions[-1]
        if action != PASS:
            self._card_left(seat, action)
        for suit in range(4):  # a Réussite start also opens the lines of set-aside cards
            lo, hi = state.lo[suit], state.hi[suit]
            if (lo, hi) != self.lines[suit]:
                at = self._lines + 13 * suit
                pub[at:at + 13] = self._line_rows[lo][hi] if lo >= 0 else 0.0
        if state.start_rank != self.start_rank:
            if self.start_rank >= 0:
                self.mv[self._start + self.start_rank] = 0.0
            self.mv[self._start + state.start_rank] = 1.0
        if state.ace_extra != self.ace_extra:
            self.mv[self._ace] = float(state.ace_extra)
        n = self.n
        for place in range(self.out, len(state.out_order)):
            pub[self._out + n * state.out_order[place] + place] = 1.0
        self._points_changed(state)
        self._turn(state)

    # -- reading ----------------------------------------------------------------

    def encode(self, seat: int) -> Array:
        """``seat``'s array, equal to ``encode(state.observe(seat))`` (a new array each call)."""
        state = self.state
        if state.phase not in (_DEAL, _OVER) and state.hands[seat] != self.hands[seat]:
            h = self.hands[seat] = state.hands[seat]  # changed behind our back (a test's swap)
            self.public[self.size + 52 * seat:self.size + 52 * (seat + 1)] = _bits52(h)
        out: Array = self.public.take(self.gather[seat])
        return out
