"""The rules of the trick games: which cards may be led or played, and which card takes a trick."""

from __future__ import annotations

from collections.abc import Sequence

from barbu.engine.cards import HEART_CARDS, HEARTS, KH_MASK, SUIT_MASKS
from barbu.engine.contracts import Contract, Lead

# Plain names for the hot paths: reading a member off an Enum class costs about 90 ns.
_FREE, _NO_HEART, _NO_KH, _NO_HEART_FIRST = (Lead.FREE, Lead.NO_HEART_UNLESS_ONLY_HEARTS,
                                             Lead.NO_KH_UNLESS_LAST_CARD, Lead.NO_HEART_FIRST_TRICK)


def lead_mask(c: Contract, hand: int, first_trick: bool) -> int:
    """The cards of ``hand`` that may be led under the contract's lead rule."""
    lead = c.lead
    if lead == _FREE:
        return hand
    if lead == _NO_HEART or (lead == _NO_HEART_FIRST and first_trick):
        return hand & ~HEART_CARDS or hand
    if lead == _NO_KH:
        return hand & ~KH_MASK or hand
    return hand


def legal_cards(c: Contract, hand: int, trick: Sequence[int], trump: int, first_trick: bool) -> int:
    """The cards of ``hand`` that may be played to ``trick`` (empty: a lead) in a trick game."""
    if not trick:
        return lead_mask(c, hand, first_trick)
    led = trick[0] // 13
    follow = hand & SUIT_MASKS[led]
    if follow:
        if c.overtrump and led == trump:
            top = max(x for x in trick if x // 13 == led)
            return follow & ~((2 << top) - 1) or follow
        if c.king_first and led == HEARTS and follow & KH_MASK:
            return KH_MASK
        return follow
    if c.trumps:
        trumps = hand & SUIT_MASKS[trump]
        if trumps:
            in_trick = [x for x in trick if x // 13 == trump] if c.overtrump else []
            if in_trick:
                return trumps & ~((2 << max(in_trick)) - 1) or trumps
            return trumps
    if c.king_first and hand & KH_MASK:
        return KH_MASK
    return hand


def beats(card: int, best: int, trump: int) -> bool:
    """Whether ``card`` takes the trick from ``best``, the card winning it so far.

    >>> beats(12, 11, -1), beats(13, 12, -1), beats(13, 12, 1)  # A♠ over K♠; 2♥ on A♠
    (True, False, True)
    """
    if card // 13 == best // 13:
        return card > best
    return card // 13 == trump


def trick_winner(trick: Sequence[int], trump: int) -> int:
    """Index in ``trick`` of the card that takes it (``trump`` is -1 without trumps)."""
    best = trick[0]
    best_at = 0
    for i in range(1, len(trick)):
        x = trick[i]
        # beats(x, best, trump), written out: this runs for every card the engine plays.
        if x // 13 == best // 13:
            if x > best:
                best, best_at = x, i
        elif x // 13 == trump:
            best, best_at = x, i
    return best_at
