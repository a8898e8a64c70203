"""Exact play of a hand's last cards on a known deal: the max-n value of each card.

Near the end of a hand a sampled deal is small enough to play out every way: each player, in
turn, takes the card that leaves them the best final score of the hand (their own score: the
*max-n* rule of multi-player games, with the doubles settled by the engine as in a real hand).
A player with several such cards is taken to play any of them at random: the others get the
mean of what those cards leave them.
The ``expert`` uses it in place of rule-of-thumb playouts for its last card decisions, as bridge
programs have done since GIB: on each sampled deal the ending is solved, and the cards are
compared by their mean over the deals.

Two cards of one hand are played the same way when no card still out lies between them and they
are worth the same points (the 7♠ and the 6♠ once the others are gone; a card of the open trick
is not gone, since one may beat it and the other not): only one is searched.

Dominoes is solved too, once :data:`DOMINO_LEFT` cards or fewer are still held: a player with no
card to place passes, and every placeable card is searched (the card below a suit's row and the
one above it are never alike: each opens the way to different cards). The ways to finish a
layout game are far fewer than the orders of the hands' cards, as most cards cannot be placed
yet: at 16 cards a deal takes some 50 to 1,100 states of the search, at 20 up to 76,000.

>>> from barbu.engine.game import Game
>>> from barbu.engine.state import State
>>> s = State(Game.classic(), seed=3)
>>> leaves_bound(s.game.players, [3, 3, 3, 3]), leaves_bound(4, [4, 4, 4, 4]) > LEAVES
(1296, True)
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence

from barbu.engine.cards import SUIT_MASKS, bits
from barbu.engine.contracts import Kind
from barbu.engine.game import PASS
from barbu.engine.state import Phase, State

LEAVES = 1296  # the most ways to finish a hand (bound below) that a decision solves: 3 cards each of 4
DOMINO_LEFT = 16  # the most cards still held at which a Dominoes ending is solved


def leaves_bound(players: int, hand_sizes: Sequence[int]) -> int:
    """An upper bound on the ways the hand can finish: every order of every hand's cards."""
    assert len(hand_sizes) == players
    return math.prod([math.factorial(h) for h in hand_sizes])


def small(kind: Kind, players: int, hand_sizes: Sequence[int], dominoes: bool = False) -> bool:
    """Whether an ending of a contract of this ``kind`` with these hands is small enough to solve
    (Dominoes only when asked: ``dominoes``)."""
    if kind == Kind.TRICKS:
        return leaves_bound(players, hand_sizes) <= LEAVES
    return dominoes and kind == Kind.DOMINOES and sum(hand_sizes) <= DOMINO_LEFT


def solvable(state: State, dominoes: bool = False) -> bool:
    """Whether ``state`` is a card play with few enough ways left to solve it (:func:`small`)."""
    c = state.contract
    return (state.phase == Phase.PLAY and c is not None
            and small(c.kind, state.game.players, [h.bit_count() for h in state.hands], dominoes))


class Solver:
    """Max-n search of the rest of one hand; ``nodes`` counts the states it visited."""

    def __init__(self, state: State) -> None:
        self.hand_no = state.hand_no
        self.sign = 1.0 if state.game.is_classic else -1.0  # family scores are penalties
        self.nodes = 0

    def card_values(self, state: State, seat: int,
                    cards: Collection[int] | None = None) -> dict[int, float]:
        """The final hand score to ``seat`` after each legal card of the player to act (or each
        of ``cards``), everyone playing on perfectly for themselves."""
        out: dict[int, float] = {}
        for card, same in _distinct(state):
            if cards is not None and not any(x in cards for x in same):
                continue
            value = self._value(_after(state, card))[seat]
            for x in same:
                out[x] = value
        return out

    def _value(self, state: State) -> tuple[float, ...]:
        self.nodes += 1
        if state.hand_no != self.hand_no or not state.hand_in_progress:
            return tuple(self.sign * x for x in state.history[-1].scores)
        p = state.current
        best: list[tuple[float, ...]] = []
        weight: list[int] = []
        for card, same in _distinct(state):
            v = self._value(_after(state, card))
            if not best or v[p] > best[0][p]:
                best, weight = [v], [len(same)]
            elif v[p] == best[0][p]:
                best.append(v)
                weight.append(len(same))
        if len(best) == 1:
            return best[0]
        # A player indifferent between cards plays any of them, as far as anyone can tell: the
        # others get the mean over those cards, not what the first in card order leaves them.
        total = sum(weight)
        return tuple(math.fsum([v[s] * k for v, k in zip(best, weight, strict=True)]) / total
                     for s in range(len(best[0])))


def _after(state: State, card: int) -> State:
    child = state.copy()
    child._do(card)
    return child


def _distinct(state: State) -> list[tuple[int, list[int]]]:
    """The legal cards, one of each run of equivalent ones, with the run it stands for (in a
    layout game each card alone, or a pass when none can be placed)."""
    c = state.contract
    assert c is not None
    legal = state.legal_mask()
    if c.kind != Kind.TRICKS:
        return [(x, [x]) for x in bits(legal)] or [(PASS, [PASS])]
    on_table = 0
    for x in state.trick:
        on_table |= 1 << x
    # Cards between two of mine that are gone from play: a card of the trick on the table is not
    # gone (the 9 beats the 8 just led, the 7 does not).
    gone = state.hands[state.current] | (state.played & ~on_table) | state.set_aside
    table = c.card_points
    runs: list[tuple[int, list[int]]] = []
    for suit_mask in SUIT_MASKS:
        run: list[int] = []
        for x in bits(legal & suit_mask):
            if run and table[x] == table[run[-1]] and all(
                    gone >> y & 1 for y in range(run[-1] + 1, x)):
                run.append(x)
                continue
            if run:
                runs.append((run[0], run))
            run = [x]
        if run:
            runs.append((run[0], run))
    return runs
