"""The layout of Dominoes and Réussite: each suit's line, the cards that fit it, and who places next."""

from __future__ import annotations

from collections.abc import Sequence

from barbu.engine.cards import ACE, RANK_MASKS, SUIT_MASKS


def place_card(lo: list[int], hi: list[int], card: int, start: int, set_aside: int) -> int:
    """Put ``card`` on its suit's line of a Dominoes/Réussite layout; return the starting rank.

    ``lo``/``hi`` hold each suit's lowest and highest rank (-1 while the suit is shut) and
    are updated in place. ``start`` is -1 until the first Réussite card fixes it. Set-aside
    cards count as placed: lines run on past them, and one of the starting rank opens its
    suit as soon as that rank is known.
    """
    suit, rank = divmod(card, 13)
    if start < 0:
        start = rank
        for s in range(4):
            if set_aside >> (s * 13 + rank) & 1:
                lo[s] = hi[s] = rank
                _run_on(lo, hi, s, set_aside)
    if lo[suit] < 0:
        lo[suit] = hi[suit] = rank
    elif rank < lo[suit]:
        lo[suit] = rank
    else:
        hi[suit] = rank
    _run_on(lo, hi, suit, set_aside)
    return start


def _run_on(lo: list[int], hi: list[int], suit: int, set_aside: int) -> None:
    while lo[suit] > 0 and set_aside >> (suit * 13 + lo[suit] - 1) & 1:
        lo[suit] -= 1
    while hi[suit] < ACE and set_aside >> (suit * 13 + hi[suit] + 1) & 1:
        hi[suit] += 1


def fitting_cards(lo: Sequence[int], hi: Sequence[int], start: int) -> int:
    """The cards that may be placed on a layout: each line's two next cards, or a shut suit's opener."""
    mask = 0
    for s in range(4):
        if lo[s] < 0:
            mask |= RANK_MASKS[start] & SUIT_MASKS[s]
            continue
        if lo[s] > 0:
            mask |= 1 << (s * 13 + lo[s] - 1)
        if hi[s] < ACE:
            mask |= 1 << (s * 13 + hi[s] + 1)
    return mask


def next_holder(hands: Sequence[int], seat: int) -> int:
    """The next seat after ``seat`` that still holds cards (those out are skipped), else ``seat``."""
    n = len(hands)
    for k in range(1, n + 1):
        s = (seat + k) % n
        if hands[s]:
            return s
    return seat
