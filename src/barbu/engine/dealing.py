"""The checks of a deal given by hand: a hand per seat, each of its size, the deck shared out exactly."""

from __future__ import annotations

from collections.abc import Sequence

from barbu.engine.cards import card_str
from barbu.engine.errors import IllegalDealError, Phrase, Seat
from barbu.engine.game import Game


def check_deal(g: Game, hands: Sequence[int], set_aside: int) -> None:
    """Raise :class:`~barbu.errors.IllegalDealError` unless ``hands`` and ``set_aside`` share out
    ``g``'s deck, naming what is wrong."""
    if len(hands) != g.players:
        raise IllegalDealError(f"the deal must have {g.players} hands, not {len(hands)}")
    seen = set_aside
    if set_aside.bit_count() != g.set_aside_count:
        raise IllegalDealError(
            f"{cards(g.set_aside_count)} must be set aside with {g.players} players, "
            f"not {set_aside.bit_count()}")
    for seat, h in enumerate(hands):
        if h.bit_count() != g.hand_size:
            raise IllegalDealError(Phrase("{s} must be dealt {n}, not {k}", s=Seat(seat),
                                          n=cards(g.hand_size), k=h.bit_count()))
        if seen & h:
            raise IllegalDealError(f"card {card_str((seen & h).bit_length() - 1)} is dealt twice")
        seen |= h
    if seen != g.deck:
        stray = seen & ~g.deck
        if stray:
            raise IllegalDealError(f"card {card_str(stray.bit_length() - 1)} is not in this game's deck")
        raise IllegalDealError(f"the deal does not hold all {cards(g.deck.bit_count())}")


def cards(n: int) -> str:
    """``1 card``, ``3 cards``."""
    return f"{n} card{'' if n == 1 else 's'}"
