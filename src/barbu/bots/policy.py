"""A fast rule-of-thumb move for a full (determinized) state: the playout policy of the search bots.

It looks at the raw state, which in a sampled world is allowed, and plays the
way a sensible player does — duck under the winning card, shed the cards that
score, take tricks cheaply in Trumps, shed high cards early when only the last tricks
count, play toward one's own cards in Dominoes —
with a little randomness so that playouts of the same deal differ.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from barbu.bots.basic import best_start_rank, best_trump, early_tricks_free
from barbu.engine.cards import ABOVE, ACE, BELOW, SUIT_MASKS, bits
from barbu.engine.contracts import Kind
from barbu.engine.game import PASS, RANK, TRUMP
from barbu.engine.playout import random_card
from barbu.engine.state import Phase, State, beats, trick_winner

CardRule = Callable[[State, random.Random, float], int]  # a play for the state, given rng and noise


def heuristic_card(state: State, rng: random.Random, noise: float = 0.1) -> int:
    """A sensible legal action in the PLAY phase of ``state``."""
    c = state.contract
    assert c is not None
    if c.kind != Kind.TRICKS:
        return _placement(state, rng, noise)
    legal = state.legal_mask()
    if legal & (legal - 1) == 0 or rng.random() < noise:
        return random_card(legal, rng.random)
    cards = list(bits(legal))
    if early_tricks_free(c, state.trick_no, state.game.hand_size):
        return max(cards, key=lambda x: (x % 13, -x))
    trick = state.trick
    table = c.card_points
    if not trick:
        if c.positive:
            return max(cards, key=lambda x: (x % 13, x))
        # Lead low, and not a scoring card.
        return min(cards, key=lambda x: (table[x] != 0, x % 13))
    led = trick[0] // 13
    trump = state.trump
    best = trick[trick_winner(trick, trump)]
    winners = [x for x in cards if beats(x, best, trump)]
    losers = [x for x in cards if not beats(x, best, trump)]
    if c.positive:
        if winners:
            return min(winners, key=lambda x: (x // 13 == trump and led != trump, x % 13))
        return min(cards, key=lambda x: (x // 13 == trump, x % 13))
    if losers:
        # Shed: points first, then the highest card that still loses.
        return max(losers, key=lambda x: (abs(table[x]), x % 13))
    last = len(trick) == state.game.players - 1
    if last:
        return max(cards, key=lambda x: (-abs(table[x]), x % 13))
    return min(cards, key=lambda x: (abs(table[x]), x % 13))


def _unchosen_placement(legal: int, rng: random.Random, noise: float) -> int | None:
    """A layout game's play when no rule is needed: a pass with nothing to place, the only card,
    or (with probability ``noise``) a random one; None when the rule must choose."""
    if not legal:
        return PASS
    if legal & (legal - 1) == 0 or rng.random() < noise:
        return random_card(legal, rng.random)
    return None


def _placement(state: State, rng: random.Random, noise: float) -> int:
    legal = state.legal_mask()
    unchosen = _unchosen_placement(legal, rng, noise)
    if unchosen is not None:
        return unchosen
    hand = state.hands[state.current]
    best, best_value = -1, -1e9
    for x in bits(legal):
        suit, rank = divmod(x, 13)
        lo = state.lo[suit]
        steps = (-1, 1) if lo < 0 else (-1,) if rank < lo else (1,)
        value = 0.0
        for step in steps:
            r = rank + step
            if 0 <= r <= ACE:
                nxt = suit * 13 + r
                value += 2.0 if hand >> nxt & 1 else -1.0
                value += 0.3 * ((hand & SUIT_MASKS[suit]).bit_count())
        if rank == ACE and state.contract is not None and state.contract.kind == Kind.REUSSITE:
            value += 1.5
        if value > best_value:
            best, best_value = x, value
    return best


def line_card(state: State, rng: random.Random, noise: float = 0.1) -> int:
    """Dominoes by its lines: the legal card with the most of the player's own cards behind it.

    A card opens the rest of its line (both ways for a suit's opener): each card of the
    player's own beyond it can be placed in turn later, each of another's lets that player
    in. Each card scores ten for every card of one's own behind it, less one for every card of
    the others' (so the others' count mostly between cards with as many of one's own behind
    them), and the best is placed. Only the player's own hand and the layout are looked at, so
    the rule is also a model of a player who sees no more than that. Other contracts are left
    to :func:`heuristic_card`.

    In full-information play against :func:`heuristic_card`'s Dominoes (one seat against three,
    2,000 deals in each seat's place) it gained 4.6 points a hand (docs/RESULTS.md).
    """
    c = state.contract
    assert c is not None
    if c.kind != Kind.DOMINOES:
        return heuristic_card(state, rng, noise)
    legal = state.legal_mask()
    unchosen = _unchosen_placement(legal, rng, noise)
    if unchosen is not None:
        return unchosen
    hand = state.hands[state.current]
    best, best_value = -1, -(1 << 30)
    for x in bits(legal):
        lo = state.lo[x // 13]
        # A legal card opens its suit (lo < 0) or lies just below lo or just above hi.
        if lo < 0:
            behind = BELOW[x] | ABOVE[x]
        elif x % 13 < lo:
            behind = BELOW[x]
        else:
            behind = ABOVE[x]
        mine = (hand & behind).bit_count()
        value = 10 * mine - (behind & ~hand).bit_count()
        if value > best_value:
            best, best_value = x, value
    return best


def heuristic_playout(state: State, rng: random.Random, noise: float = 0.1,
                      card: CardRule = heuristic_card) -> None:
    """Finish the hand in progress with ``card`` (:func:`heuristic_card`) for every play.

    Decisions before the play still open (doubles) are taken as 'no double', the
    cautious default, so a playout measures the cards rather than the side bets.
    """
    hand_no = state.hand_no
    while state.hand_no == hand_no and state.hand_in_progress:
        phase = state.phase
        if phase == Phase.PLAY:
            state._do(card(state, rng, noise))
        elif phase == Phase.TRUMP:
            state._do(TRUMP + best_trump(state.hands[state.current]))
        elif phase == Phase.START_RANK:
            state._do(RANK + best_start_rank(state.hands[state.current]))
        else:
            state._do(min(state.legal_actions()))
