"""A card-play policy fitted to how ``strong`` plays: a linear score of each legal card, per contract.

``strong``'s playouts and its inference assume that everyone plays by the rules of thumb of
:mod:`barbu.bots.policy`; measured on ``strong``'s own games, those rules pick the card
``strong`` picks about half the time when following and one time in seven or less when leading
(docs/RESULTS.md). This module scores each legal card by a weighted sum of a few features of
the card in its trick and hand (does it win the trick, what the trick is worth, how many higher
and lower cards of its suit are still out, how long the suit is…), with one weight vector per
contract fitted by ``research/fit-playout.py`` to ``strong``'s choices (a softmax regression),
and shipped as ``fitted_weights.json``.

It is used two ways by ``expert``: as the playout policy (the card with the best score, with a
little noise) and, through the softmax of the scores, as the likelihood of the other players'
actual plays for the weights of the sampled deals.

The features use only what the player to act can see (own hand, the cards played, the trick),
so the same function is fitted on observations and applied in sampled deals.
"""

from __future__ import annotations

import json
import math
import random
from functools import cache
from importlib import resources

from barbu.bots.policy import heuristic_card, heuristic_playout, line_card
from barbu.engine.cards import ABOVE, BELOW, SUIT_MASKS, bits
from barbu.engine.contracts import Contract
from barbu.engine.playout import random_card
from barbu.engine.state import State, beats, trick_winner

FEATURES = (
    "rank", "wins", "wins×trick", "wins×card", "loses×card", "wins×last", "lead×higher out",
    "lead×lower out", "lead×top", "lead×bottom", "lead×length", "follow×length",
    "discard×rank", "discard×length", "trump", "lead×trump", "lead×card", "late×rank",
    "late×wins", "lead×rank", "lead×suit out", "lead×suit gone", "follow×higher out",
    "wins×higher out",
)


def features(state: State, cards: list[int]) -> list[list[float]]:
    """The feature vector (:data:`FEATURES`) of each of ``cards`` for the player to act."""
    c = state.contract
    assert c is not None
    table = c.card_points
    hand = state.hands[state.current]
    trick = state.trick
    # With another player, as far as this one knows: not in the hand, played or set aside face up.
    out = state.game.deck & ~hand & ~state.played & ~state.set_aside
    size = state.game.hand_size
    from_end = size - 1 - state.trick_no
    worth = c.per_trick + (c.last_tricks[-1 - from_end] if from_end < len(c.last_tricks) else 0)
    for x in trick:
        worth += table[x]
    lead = not trick
    last = len(trick) == state.game.players - 1
    trump = state.trump
    best = trick[trick_winner(trick, trump)] if trick else -1
    led = trick[0] // 13 if trick else -1
    late = state.trick_no / (size - 1)
    rows = []
    for x in cards:
        suit, rank = divmod(x, 13)
        r = rank / 12
        wins = 0.0 if lead else float(beats(x, best, trump))
        v = table[x] / 10
        higher = (out & ABOVE[x]).bit_count() / 12
        lower = (out & BELOW[x]).bit_count() / 12
        length = (hand & SUIT_MASKS[suit]).bit_count() / 13
        suit_out = (out & SUIT_MASKS[suit]).bit_count() / 13
        discard = float(not lead and suit != led)
        tr = float(suit == trump)
        if lead:
            rows.append([r, 0.0, 0.0, 0.0, 0.0, 0.0, higher, lower, float(higher == 0),
                         float(lower == 0), length, 0.0, 0.0, 0.0, tr, tr, v, late * r, 0.0, r,
                         suit_out, float(suit_out == 0), 0.0, 0.0])
        else:
            rows.append([r, wins, wins * worth / 10, wins * v, (1 - wins) * v, wins * last,
                         0.0, 0.0, 0.0, 0.0, 0.0, length, discard * r, discard * length, tr, 0.0,
                         0.0, late * r, late * wins, 0.0, 0.0, 0.0, higher, wins * higher])
    return rows


@cache
def _weights() -> dict[str, tuple[float, ...]]:
    return parse_weights(resources.files("barbu.bots").joinpath("fitted_weights.json").read_text())


def parse_weights(text: str) -> dict[str, tuple[float, ...]]:
    """The weights of a file written by ``research/fit-playout.py``, by contract id.

    Refused (``ValueError``) when the file was fitted on other features than :data:`FEATURES`.
    """
    data = json.loads(text)
    if tuple(data["features"]) != FEATURES:
        raise ValueError("fitted_weights.json was fitted on other features: run research/fit-playout.py")
    return {k: tuple(v) for k, v in data["weights"].items()}


def weights_for(c: Contract) -> tuple[float, ...] | None:
    """The fitted weights of a contract (by its id), None for one that has none."""
    return _weights().get(c.id)


def scores(state: State, cards: list[int], w: tuple[float, ...]) -> list[float]:
    """``w`` · :func:`features` of each card, written out: this runs for every card of a playout.

    The same sums as the feature vectors (a test holds the two to each other), with the parts
    of a lead and of a follow apart, and what depends only on the trick computed once.
    """
    c = state.contract
    assert c is not None
    hand = state.hands[state.current]
    out = state.game.deck & ~hand & ~state.played & ~state.set_aside
    late = state.trick_no / (state.game.hand_size - 1)
    if not state.trick:
        return _lead_scores(c, cards, w, hand, out, late, state.trump)
    return _follow_scores(state, c, cards, w, hand, out, late)


def _lead_scores(c: Contract, cards: list[int], w: tuple[float, ...], hand: int, out: int,
                 late: float, trump: int) -> list[float]:
    """:func:`scores` of the cards that may lead a trick (the features of a follow are zero)."""
    (w_rank, _, _, _, _, _, w_lead_hi, w_lead_lo, w_top, w_bottom, w_lead_len, _, _, _, w_trump,
     w_lead_trump, w_lead_card, w_late, _, w_lead_rank, w_suit_out, w_suit_gone, _, _) = w
    table = c.card_points
    high, low = ABOVE, BELOW
    rank_w = w_rank + w_lead_rank + late * w_late
    result = []
    for x in cards:
        suit = x // 13
        higher = (out & high[x]).bit_count() / 12
        lower = (out & low[x]).bit_count() / 12
        suit_out = (out & SUIT_MASKS[suit]).bit_count() / 13
        s = (x % 13 / 12 * rank_w + higher * w_lead_hi + lower * w_lead_lo
             + (hand & SUIT_MASKS[suit]).bit_count() / 13 * w_lead_len
             + table[x] / 10 * w_lead_card + suit_out * w_suit_out)
        if higher == 0:
            s += w_top
        if lower == 0:
            s += w_bottom
        if suit_out == 0:
            s += w_suit_gone
        if suit == trump:
            s += w_trump + w_lead_trump
        result.append(s)
    return result


def _follow_scores(state: State, c: Contract, cards: list[int], w: tuple[float, ...], hand: int,
                   out: int, late: float) -> list[float]:
    """:func:`scores` of the cards that may follow to the trick in progress (the lead's features
    are zero)."""
    (w_rank, w_wins, w_worth, w_card_won, w_card_lost, w_last, _, _, _, _, _, w_follow_len,
     w_discard_rank, w_discard_len, w_trump, _, _, w_late, w_late_wins, _, _, _, w_follow_hi,
     w_wins_hi) = w
    table, trick, trump = c.card_points, state.trick, state.trump
    from_end = state.game.hand_size - 1 - state.trick_no
    worth = c.per_trick + (c.last_tricks[-1 - from_end] if from_end < len(c.last_tricks) else 0)
    for x in trick:
        worth += table[x]
    win_w = (w_wins + worth / 10 * w_worth + late * w_late_wins
             + (w_last if len(trick) == state.game.players - 1 else 0.0))
    best = trick[trick_winner(trick, trump)]
    led = trick[0] // 13
    rank_w = w_rank + late * w_late
    high = ABOVE
    result = []
    for x in cards:
        suit = x // 13
        r = x % 13 / 12
        v = table[x] / 10
        higher = (out & high[x]).bit_count() / 12
        length = (hand & SUIT_MASKS[suit]).bit_count() / 13
        s = r * rank_w + length * w_follow_len + higher * w_follow_hi
        if beats(x, best, trump):
            s += win_w + v * w_card_won + higher * w_wins_hi
        else:
            s += v * w_card_lost
        if suit != led:
            s += r * w_discard_rank + length * w_discard_len
        if suit == trump:
            s += w_trump
        result.append(s)
    return result


def fitted_card(state: State, rng: random.Random, noise: float = 0.1) -> int | None:
    """The legal card with the best fitted score (a random one with probability ``noise``);
    None when the contract has no fitted weights (the caller falls back on the rules of thumb)."""
    c = state.contract
    assert c is not None
    w = weights_for(c)
    if w is None:
        return None
    legal = state.legal_mask()
    if legal & (legal - 1) == 0 or rng.random() < noise:
        return random_card(legal, rng.random)
    cards = list(bits(legal))
    s = scores(state, cards, w)
    return cards[max(range(len(cards)), key=s.__getitem__)]


def likelihood(state: State, action: int, epsilon: float) -> float | None:
    """The softmax probability of ``action`` under the fitted scores, mixed with a share
    ``epsilon`` of uniform play; None without fitted weights."""
    c = state.contract
    assert c is not None
    w = weights_for(c)
    if w is None:
        return None
    cards = list(bits(state.legal_mask()))
    if len(cards) <= 1:
        return 1.0
    if action not in cards:
        # The sampled deal makes the real play illegal (the sampler could not meet every sign
        # the play gave): the deal keeps only the uniform share, as unlikely as can be.
        return epsilon / len(cards)
    s = scores(state, cards, w)
    top = max(s)
    e = [math.exp(x - top) for x in s]
    return (1.0 - epsilon) * e[cards.index(action)] / math.fsum(e) + epsilon / len(cards)


def fitted_playout(state: State, rng: random.Random, noise: float = 0.1) -> None:
    """:func:`barbu.bots.policy.heuristic_playout` with the fitted cards where there are weights."""
    heuristic_playout(state, rng, noise, card=_fitted_or_rules)


def fitted_line_playout(state: State, rng: random.Random, noise: float = 0.1) -> None:
    """:func:`fitted_playout` with Dominoes played by :func:`barbu.bots.policy.line_card`."""
    heuristic_playout(state, rng, noise, card=_fitted_or_lines)


def _fitted_or_rules(state: State, rng: random.Random, noise: float) -> int:
    card = fitted_card(state, rng, noise)
    return heuristic_card(state, rng, noise) if card is None else card


# A named twin of _fitted_or_rules rather than one built from a rule: the playouts stay module
# functions, which a bot holds and a test can name.
def _fitted_or_lines(state: State, rng: random.Random, noise: float) -> int:
    card = fitted_card(state, rng, noise)
    return line_card(state, rng, noise) if card is None else card
