"""Fast random playouts: finish a hand with uniformly random legal plays, for search and benchmarks.

The trick-game loop keeps each hand as four lists of ranks (one per suit), so
following suit is one ``pop`` and a lead is a weighted pick of a suit; it applies
the same rules as :meth:`State.apply`, and tests replay its actions through
``apply`` to check that every one was legal and the scores agree.

>>> import random
>>> from barbu.game import Game, CONTRACT, DOUBLE
>>> from barbu.state import State
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

from barbu.cards import HEARTS, KING
from barbu.contracts import Contract, Kind, Lead
from barbu.state import Phase, State

# RANKS_OF[m]: the ranks present in a 13-bit suit mask, low to high.
RANKS_OF: tuple[tuple[int, ...], ...] = tuple(
    tuple(r for r in range(13) if m >> r & 1) for m in range(1 << 13))
_BIT = tuple(1 << c for c in range(52))
# For each table size and leader: the seats that follow, and all seats from the leader.
_FOLLOWERS = {n: tuple(tuple((lead + k) % n for k in range(1, n)) for lead in range(n)) for n in range(3, 7)}
_SEATS_FROM = {n: tuple(tuple((lead + k) % n for k in range(n)) for lead in range(n)) for n in range(3, 7)}


def _pick(mask: int, rng: random.Random) -> int:
    """A uniformly random card of a non-empty mask."""
    k = int(rng.random() * mask.bit_count())
    while k:
        mask &= mask - 1
        k -= 1
    return (mask & -mask).bit_length() - 1


def finish_hand(state: State, rng: random.Random) -> None:
    """Play the hand in progress to its end with uniformly random legal actions.

    Decisions before the play (contract, doubles) go through the ordinary rules; so do
    Dominoes and Réussite, whose moves are few and whose layouts carry more rules.
    """
    if not state.hand_in_progress:
        return
    hand_no = state.hand_no
    while state.hand_no == hand_no and state.phase != Phase.PLAY:
        state.apply(rng.choice(state.legal_actions()))
    c = state.contract
    if state.hand_no != hand_no or c is None:
        return
    while state.trick and state.hand_no == hand_no:  # finish a trick already begun
        state._do(_pick(state.legal_mask(), rng))
    if state.hand_no != hand_no:
        return
    if c.kind == Kind.TRICKS:
        if c.trumps or c.king_first or c.overtrump:
            _play_tricks(state, c, rng.random)
        else:
            _play_no_trumps(state, c, rng.random)
        return
    while state.hand_no == hand_no:
        state._do(rng.choice(state.legal_actions()))


def _take(lists: list[list[int]], total: int, rnd: Callable[[], float]) -> int:
    """Remove and return a uniformly random card from a hand held as rank lists per suit."""
    k = int(rnd() * total)
    for suit in range(4):
        ranks = lists[suit]
        if k < len(ranks):
            return suit * 13 + ranks.pop(k)
        k -= len(ranks)
    raise AssertionError("empty hand")


def _lead(c: Contract, lists: list[list[int]], first_trick: bool, rnd: Callable[[], float]) -> int:
    """A random legal lead under the contract's lead rule."""
    total = len(lists[0]) + len(lists[1]) + len(lists[2]) + len(lists[3])
    lead = c.lead
    hearts = lists[HEARTS]
    if lead == Lead.NO_HEART_UNLESS_ONLY_HEARTS or (
            lead == Lead.NO_HEART_FIRST_TRICK and first_trick):
        if total > len(hearts):
            lists[HEARTS] = []
            card = _take(lists, total - len(hearts), rnd)
            lists[HEARTS] = hearts
            return card
    elif lead == Lead.NO_KH_UNLESS_LAST_CARD and KING in hearts and total > 1:
        hearts.remove(KING)
        card = _take(lists, total - 1, rnd)
        hearts.append(KING)
        return card
    return _take(lists, total, rnd)


def _follow(c: Contract, lists: list[list[int]], led: int, trump: int, top_trump: int,
            rnd: Callable[[], float]) -> int:
    """A random legal card for a player who is not leading (top_trump: highest trump rank so far)."""
    ranks = lists[led]
    if ranks:
        if c.king_first and led == HEARTS and KING in ranks:
            ranks.remove(KING)
            return HEARTS * 13 + KING
        if c.overtrump and led == trump:
            return led * 13 + _pop_above(ranks, top_trump, rnd)
        return led * 13 + ranks.pop(int(rnd() * len(ranks)))
    if trump >= 0 and lists[trump]:
        trumps = lists[trump]
        if c.overtrump:
            return trump * 13 + _pop_above(trumps, top_trump, rnd)
        return trump * 13 + trumps.pop(int(rnd() * len(trumps)))
    if c.king_first and KING in lists[HEARTS]:
        lists[HEARTS].remove(KING)
        return HEARTS * 13 + KING
    return _take(lists, len(lists[0]) + len(lists[1]) + len(lists[2]) + len(lists[3]), rnd)


def _pop_above(ranks: list[int], floor: int, rnd: Callable[[], float]) -> int:
    """Overtrump: a random rank above ``floor`` if there is one, else any rank."""
    above = [i for i, r in enumerate(ranks) if r > floor]
    if above:
        return ranks.pop(above[int(rnd() * len(above))])
    return ranks.pop(int(rnd() * len(ranks)))


def _play_tricks(state: State, c: Contract, rnd: Callable[[], float]) -> None:
    """The rest of a trick game, trick by trick, from an empty trick.

    The common cases — following suit, and a free lead — are written out in the loop,
    because a function call per card would cost as much as the rest of the work.
    """
    n = state.game.players
    size = state.game.hand_size
    hands = state.hands
    lists = [[list(RANKS_OF[h >> (13 * s) & 0x1FFF]) for s in range(4)] for h in hands]
    followers = [tuple((leader + k) % n for k in range(1, n)) for leader in range(n)]
    seats_from = [tuple((leader + k) % n for k in range(n)) for leader in range(n)]
    actions, actors = state.actions, state.actors
    table, per_trick, last = c.card_points, c.per_trick, c.last_tricks
    scored = any(table)
    end_mask = c.ends_when_taken & ~state.set_aside
    trump = state.trump
    plain = not (c.king_first or c.overtrump)
    free_lead = c.lead == Lead.FREE
    played = state.played
    leader = state.current
    trick_no = state.trick_no
    points, captured, tricks_won = state.points, state.captured, state.tricks_won
    while True:
        mine = lists[leader]
        if free_lead:
            k = int(rnd() * (len(mine[0]) + len(mine[1]) + len(mine[2]) + len(mine[3])))
            led = 0
            while k >= len(mine[led]):
                k -= len(mine[led])
                led += 1
            best = mine[led].pop(k)
        else:
            card = _lead(c, mine, trick_no == 0, rnd)
            led, best = divmod(card, 13)
        base = led * 13
        trick = [base + best]
        winner = leader
        trumped = led == trump
        top_trump = best if trumped else -1
        for seat in followers[leader]:
            ranks = lists[seat][led]
            if ranks and plain:
                r = ranks.pop(int(rnd() * len(ranks)))
                trick.append(base + r)
                if r > best and not (trumped and led != trump):
                    best, winner = r, seat
                    if led == trump:
                        top_trump = r
                continue
            card = _follow(c, lists[seat], led, trump, top_trump, rnd)
            trick.append(card)
            suit, r = divmod(card, 13)
            if suit == trump and led != trump:
                if not trumped or r > top_trump:
                    trumped, top_trump, best, winner = True, r, r, seat
            elif suit == led and r > best and not (trumped and led != trump):
                best, winner = r, seat
                if led == trump:
                    top_trump = r
        taken = 0
        for x in trick:
            taken |= _BIT[x]
        pts = per_trick
        if scored:
            for x in trick:
                pts += table[x]
        from_end = size - 1 - trick_no
        if from_end < len(last):
            pts += last[-1 - from_end]
        actions.extend(trick)
        actors.extend(seats_from[leader])
        points[winner] += pts
        captured[winner] |= taken
        tricks_won[winner] += 1
        played |= taken
        trick_no += 1
        leader = winner
        if trick_no == size or (end_mask and not end_mask & ~played):
            break
    for seat in range(n):
        hands[seat] &= ~played
    state.played = played
    state.trick_no = trick_no
    state.leader = state.current = leader
    state._finish_hand()


def _play_no_trumps(state: State, c: Contract, rnd: Callable[[], float]) -> None:
    """:func:`_play_tricks` for the plain no-trump contracts, the bulk of all playouts.

    With no trumps and no forced card the highest card of the suit led wins and
    following suit is a single random pop; this loop has nothing else in it.
    """
    n = state.game.players
    size = state.game.hand_size
    lists = [[list(RANKS_OF[h >> (13 * s) & 0x1FFF]) for s in range(4)] for h in state.hands]
    followers = _FOLLOWERS[n]
    table, per_trick, last = c.card_points, c.per_trick, c.last_tricks
    scored = any(table)
    end_mask = c.ends_when_taken & ~state.set_aside
    free_lead = c.lead == Lead.FREE
    played = state.played
    leader = state.current
    trick_no = state.trick_no
    points, captured, tricks_won = state.points, state.captured, state.tricks_won
    cards: list[int] = []
    leaders: list[int] = []
    bit = _BIT
    while True:
        mine = lists[leader]
        if free_lead:
            k = int(rnd() * (len(mine[0]) + len(mine[1]) + len(mine[2]) + len(mine[3])))
            led = 0
            while k >= len(mine[led]):
                k -= len(mine[led])
                led += 1
            best = mine[led].pop(k)
        else:
            led, best = divmod(_lead(c, mine, trick_no == 0, rnd), 13)
        base = led * 13
        card = base + best
        cards.append(card)
        leaders.append(leader)
        taken = bit[card]
        pts = per_trick + table[card] if scored else per_trick
        winner = leader
        for seat in followers[leader]:
            ranks = lists[seat][led]
            if ranks:
                r = ranks.pop(int(rnd() * len(ranks)))
                card = base + r
                if r > best:
                    best, winner = r, seat
            else:  # void: any card of the hand, none of which can win
                hand = lists[seat]
                k = int(rnd() * (len(hand[0]) + len(hand[1]) + len(hand[2]) + len(hand[3])))
                suit = 0
                while k >= len(hand[suit]):
                    k -= len(hand[suit])
                    suit += 1
                card = suit * 13 + hand[suit].pop(k)
            cards.append(card)
            taken |= bit[card]
            if scored:
                pts += table[card]
        from_end = size - 1 - trick_no
        if from_end < len(last):
            pts += last[-1 - from_end]
        points[winner] += pts
        captured[winner] |= taken
        tricks_won[winner] += 1
        played |= taken
        trick_no += 1
        leader = winner
        if trick_no == size or (end_mask and not end_mask & ~played):
            break
    _write_back(state, cards, leaders, played, trick_no, leader)


def _write_back(state: State, cards: list[int], leaders: list[int], played: int, trick_no: int,
                leader: int) -> None:
    """Store a finished playout's cards, players and counters in the state, and score the hand."""
    n = state.game.players
    state.actions.extend(cards)
    order = _SEATS_FROM[n]
    actors = state.actors
    for lead_seat in leaders:
        actors.extend(order[lead_seat])
    for seat in range(n):
        state.hands[seat] &= ~played
    state.played = played
    state.trick_no = trick_no
    state.leader = state.current = leader
    state._finish_hand()
