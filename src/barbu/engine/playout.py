"""Fast random playouts: finish a hand with uniformly random legal plays, for search and benchmarks.

The trick-game loops work on the hands' 52-bit masks: a follower's choice is a
random rank of one 13-bit suit slice, read from a table. They apply the same rules
as :meth:`State.apply` (sharing its ``legal_cards``, ``lead_mask`` and
``trick_winner``), and tests replay their actions through ``apply`` to check that
every one was legal and the scores agree.

>>> import random
>>> from barbu.engine.game import Game, CONTRACT, DOUBLE
>>> from barbu.engine.state import State
>>> s = State(Game.classic(), seed=1, first_declarer=0)
>>> _ = s.deal_random()
>>> s.apply(CONTRACT)          # No Tricks
>>> for _ in range(3): s.apply(DOUBLE)
>>> finish_hand(s, random.Random(2))
>>> sum(s.history[0].contract_scores)
-26
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache
from itertools import chain

from barbu.engine.cards import CARD_BITS, RANKS_OF
from barbu.engine.contracts import Contract, Kind, Lead
from barbu.engine.state import PLAY_P, State, lead_mask, legal_cards, trick_winner

_BIT = CARD_BITS
# For each table size and leader: the seats that follow, and all seats from the leader.
_FOLLOWERS = {n: tuple(tuple((lead + k) % n for k in range(1, n)) for lead in range(n)) for n in range(3, 7)}
_SEATS_FROM = {n: tuple(tuple((lead + k) % n for k in range(n)) for lead in range(n)) for n in range(3, 7)}


def finish_hand(state: State, rng: random.Random) -> None:
    """Play the hand in progress to its end with uniformly random legal actions.

    Decisions before the play (contract, doubles) go through the ordinary rules; so do
    Dominoes and Réussite, whose moves are few and whose layouts carry more rules.
    """
    if not state.hand_in_progress:
        return
    hand_no = state.hand_no
    if state.phase != PLAY_P:
        # The bidding draws from a stream of its own, so that the card play that follows
        # gets the same random numbers whatever was bid: searches compare bids paired.
        bids = random.Random(rng.getrandbits(64))
        while state.hand_no == hand_no and state.phase != PLAY_P:
            state.apply(bids.choice(state.legal_actions()))
    while state.trick and state.hand_no == hand_no:  # finish a trick already begun
        state._do(random_card(state.legal_mask(), rng.random))
    c = state.contract
    if state.hand_no != hand_no or c is None:
        return
    if c.kind == Kind.TRICKS:
        if c.trumps or c.king_first or c.overtrump:
            _play_tricks(state, c, rng.random)
        else:
            _play_no_trumps(state, c, rng.random)
        return
    while state.hand_no == hand_no:
        state._do(rng.choice(state.legal_actions()))


def _play_tricks(state: State, c: Contract, rnd: Callable[[], float]) -> None:
    """The rest of a trick game with trumps or a forced K♥, from an empty trick.

    Each card comes from the same :func:`~barbu.state.legal_cards` that the state
    machine uses, so these rarer rules live in one place.
    """
    n = state.game.players
    size = state.game.hand_size
    hands = state.hands
    seats_from = _SEATS_FROM[n]
    table, per_trick = c.card_points, c.per_trick
    bonus = _bonus(c.last_tricks, size)
    end_mask = c.ends_when_taken & ~state.set_aside
    trump = state.trump
    played = state.played
    leader = state.current
    trick_no = state.trick_no
    cards: list[int] = []
    leaders: list[int] = []
    while True:
        trick: list[int] = []
        for seat in seats_from[leader]:
            hand = hands[seat]
            card = random_card(legal_cards(c, hand, trick, trump, trick_no == 0), rnd)
            hands[seat] = hand ^ _BIT[card]
            trick.append(card)
        winner = seats_from[leader][trick_winner(trick, trump)]
        taken = 0
        pts = per_trick + bonus[trick_no]
        for card in trick:
            taken |= _BIT[card]
            pts += table[card]
        state.points[winner] += pts
        state.captured[winner] |= taken
        state.tricks_won[winner] += 1
        cards += trick
        leaders.append(leader)
        played |= taken
        trick_no += 1
        leader = winner
        if trick_no == size or (end_mask and not end_mask & ~played):
            break
    _write_back(state, cards, leaders, played, trick_no, leader)


def _play_no_trumps(state: State, c: Contract, rnd: Callable[[], float]) -> None:
    """:func:`_play_tricks` for the plain no-trump contracts, the bulk of all playouts.

    With no trumps and no forced card the highest card of the suit led wins, so a
    follower's choice is a random rank of one 13-bit slice of his hand mask
    (``RANKS_OF`` lists them); this loop has nothing else in it.

    Longer than the house's 50 lines on purpose, the one hot-path exemption: calling
    :func:`random_card` for the free lead and the discards instead of writing it out made a
    whole-hand playout 4-5% slower in pure Python and 2-4% compiled (CPU time, measured side by
    side), and this loop is most of every search bot's time.
    """
    n = state.game.players
    size = state.game.hand_size
    hands = state.hands
    followers = _FOLLOWERS[n]
    table, per_trick = c.card_points, c.per_trick
    scored = c.scoring_cards != 0
    bonus = _bonus(c.last_tricks, size)
    end_mask = c.ends_when_taken & ~state.set_aside
    free_lead = c.lead == Lead.FREE
    played = state.played
    leader = state.current
    points, captured, tricks_won = state.points, state.captured, state.tricks_won
    cards: list[int] = []
    leaders: list[int] = []
    append = cards.append
    bit = _BIT
    ranks_of = RANKS_OF
    for trick_no in range(state.trick_no, size):
        hand = hands[leader]
        if free_lead:  # written out: a random card of the whole hand
            k = int(rnd() * hand.bit_count())
            base = 0
            while True:
                ranks = ranks_of[hand >> base & 0x1FFF]
                m = len(ranks)
                if k < m:
                    break
                k -= m
                base += 13
            best = ranks[k]
            card = base + best
        else:
            card = random_card(lead_mask(c, hand, trick_no == 0), rnd)
            base, best = card - card % 13, card % 13
        hands[leader] = hand ^ bit[card]
        append(card)
        leaders.append(leader)
        taken = bit[card]
        pts = per_trick + bonus[trick_no] + (table[card] if scored else 0)
        winner = leader
        for seat in followers[leader]:
            hand = hands[seat]
            ranks = ranks_of[hand >> base & 0x1FFF]
            if ranks:
                r = ranks[int(rnd() * len(ranks))]
                card = base + r
                if r > best:
                    best = r
                    winner = seat
            else:  # void: any card of the hand (none can win), as for a free lead above
                k = int(rnd() * hand.bit_count())
                shift = 0
                while True:
                    ranks = ranks_of[hand >> shift & 0x1FFF]
                    m = len(ranks)
                    if k < m:
                        break
                    k -= m
                    shift += 13
                card = shift + ranks[k]
            b = bit[card]
            hands[seat] = hand ^ b
            append(card)
            taken |= b
            if scored:
                pts += table[card]
        points[winner] += pts
        captured[winner] |= taken
        tricks_won[winner] += 1
        played |= taken
        leader = winner
        if end_mask and not end_mask & ~played:
            break
    _write_back(state, cards, leaders, played, trick_no + 1, leader)


@cache
def _bonus(last_tricks: tuple[int, ...], size: int) -> tuple[int, ...]:
    """Points for taking each trick of a hand of ``size`` tricks, besides its cards."""
    return (0,) * (size - len(last_tricks)) + last_tricks


def random_card(hand: int, rnd: Callable[[], float]) -> int:
    """A uniformly random card of a non-empty mask (``rnd``: a uniform float source such as
    ``Random.random``). The kernel's loops write this out for a lead and a discard."""
    k = int(rnd() * hand.bit_count())
    suit = 0
    while True:
        ranks = RANKS_OF[hand >> (13 * suit) & 0x1FFF]
        if k < len(ranks):
            return suit * 13 + ranks[k]
        k -= len(ranks)
        suit += 1


def _write_back(state: State, cards: list[int], leaders: list[int], played: int, trick_no: int,
                leader: int) -> None:
    """Store a finished playout's cards, players and counters in the state, and score the hand."""
    n = state.game.players
    state.actions.extend(cards)
    state.actors.extend(chain.from_iterable(map(_SEATS_FROM[n].__getitem__, leaders)))
    state.played = played
    state.trick_no = trick_no
    state.leader = state.current = leader
    state._finish_hand()
