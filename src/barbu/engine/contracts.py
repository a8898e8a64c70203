"""The contracts (classic) and challenges (family) as a table of data.

Every rule that differs between contracts is a field here, so the state
machine never asks which contract it is playing, only what the contract says.

>>> [c.id for c in CLASSIC]
['no-tricks', 'no-queens', 'no-hearts', 'no-last-two', 'no-king', 'trumps', 'dominoes']
>>> sum(CLASSIC[1].card_points)
-24
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import IntEnum
from functools import cached_property

from barbu.engine.cards import ACE_OF_HEARTS, FULL_DECK, HEART_CARDS, KH_MASK, KING_OF_HEARTS, QUEENS, bits


class Kind(IntEnum):
    """How a contract is played."""

    TRICKS = 0
    DOMINOES = 1  # classic Dominoes (Fan Tan), starting rank named by the declarer
    REUSSITE = 2  # family Réussite, starting rank from the first card placed


class Lead(IntEnum):
    """Restriction on the card led to a trick."""

    FREE = 0
    NO_HEART_UNLESS_ONLY_HEARTS = 1  # every trick (classic No Hearts, option heart-lead)
    NO_KH_UNLESS_LAST_CARD = 2  # classic No King: K♥ led only as the last card in hand
    NO_HEART_FIRST_TRICK = 3  # family King, Hearts, Salad: first trick only


@dataclass(frozen=True)
class Contract:
    """Static description of one contract or challenge."""

    id: str
    name: str
    kind: Kind
    positive: bool = False
    per_trick: int = 0
    card_points: tuple[int, ...] = (0,) * 52  # points for each card taken, by card index
    last_tricks: tuple[int, ...] = ()  # points for the last tricks: (..., 2nd to last, last)
    out_scores: tuple[int, ...] = ()  # Dominoes/Réussite: points by order of going out
    lead: Lead = Lead.FREE
    ends_when_taken: int = 0  # the hand ends once every one of these cards in play has fallen
    trumps: bool = False  # the declarer names a trump suit
    overtrump: bool = False  # option overtrump: must beat the highest trump when able
    king_first: bool = False  # option king-first: K♥ must go at the first legal chance
    description: str = ""

    @cached_property
    def scoring_cards(self) -> int:
        """Mask of the cards worth points when taken (queens, hearts, K♥ …)."""
        return sum(1 << c for c, p in enumerate(self.card_points) if p)

    def __reduce__(self) -> tuple[type[Contract], tuple[object, ...]]:
        # Pickled (for the arena's worker processes) as a call with every field: a compiled
        # frozen class cannot be restored field by field, as pickle's default would try.
        return Contract, tuple(getattr(self, f.name) for f in dataclasses.fields(self))


def _points(per_card: dict[int, int]) -> tuple[int, ...]:
    table = [0] * 52
    for c, p in per_card.items():
        table[c] += p
    return tuple(table)


def _each(mask: int, value: int) -> dict[int, int]:
    return {c: value for c in bits(mask)}


CLASSIC: tuple[Contract, ...] = (
    Contract("no-tricks", "No Tricks", Kind.TRICKS, per_trick=-2,
             description="−2 per trick taken"),
    Contract("no-queens", "No Queens", Kind.TRICKS, card_points=_points(_each(QUEENS, -6)),
             ends_when_taken=QUEENS, description="−6 per queen taken"),
    Contract("no-hearts", "No Hearts", Kind.TRICKS,
             card_points=_points(_each(HEART_CARDS, -2) | {ACE_OF_HEARTS: -6}),
             lead=Lead.NO_HEART_UNLESS_ONLY_HEARTS, ends_when_taken=HEART_CARDS,
             description="−2 per heart, A♥ −6; hearts may not be led while you hold another suit"),
    Contract("no-last-two", "No Last Two", Kind.TRICKS, last_tricks=(-10, -20),
             description="−10 for the 12th trick, −20 for the 13th"),
    Contract("no-king", "No King of Hearts", Kind.TRICKS,
             card_points=_points({KING_OF_HEARTS: -20}), lead=Lead.NO_KH_UNLESS_LAST_CARD,
             ends_when_taken=KH_MASK, description="−20 for K♥; K♥ may be led only as your last card"),
    Contract("trumps", "Trumps", Kind.TRICKS, positive=True, per_trick=5, trumps=True,
             description="+5 per trick; the declarer names trumps"),
    Contract("dominoes", "Dominoes", Kind.DOMINOES, positive=True, out_scores=(45, 20, 5, -5),
             description="+45, +20, +5, −5 by order of going out"),
)

_KING = _points({KING_OF_HEARTS: 100})
_QUEENS = _points(_each(QUEENS, 25))
_HEARTS = _points(_each(HEART_CARDS, 10))

FAMILY: tuple[Contract, ...] = (
    Contract("king", "King of Hearts", Kind.TRICKS, card_points=_KING,
             lead=Lead.NO_HEART_FIRST_TRICK, ends_when_taken=KH_MASK,
             description="100 for K♥; no heart led to the first trick"),
    Contract("queens", "Queens", Kind.TRICKS, card_points=_QUEENS, ends_when_taken=QUEENS,
             description="25 per queen"),
    Contract("hearts", "Hearts", Kind.TRICKS, card_points=_HEARTS,
             lead=Lead.NO_HEART_FIRST_TRICK, ends_when_taken=HEART_CARDS,
             description="10 per heart; no heart led to the first trick"),
    Contract("tricks", "Tricks", Kind.TRICKS, per_trick=10, description="10 per trick"),
    Contract("last-trick", "Last Trick", Kind.TRICKS, last_tricks=(100,),
             description="100 for the last trick"),
    Contract("salad", "Salad", Kind.TRICKS, per_trick=10, last_tricks=(100,),
             card_points=tuple(a + b + c for a, b, c in zip(_KING, _QUEENS, _HEARTS, strict=True)),
             lead=Lead.NO_HEART_FIRST_TRICK,
             description="all five at once: tricks, queens, hearts, K♥ and the last trick"),
    Contract("reussite", "Réussite", Kind.REUSSITE, out_scores=(-100, -50),
             description="first out −100, second out −50"),
)

CLASSIC_OPTIONS = ("heart-lead", "king-first", "overtrump", "dominoes-40")
OPTION_HELP = {
    "heart-lead": "No King: no heart may be led unless the leader holds only hearts",
    "king-first": "No King: the holder of K♥ must play it at the first legal chance",
    "overtrump": "Trumps: a player must beat the highest trump in the trick when able",
    "dominoes-40": "Dominoes pays 40/25/10/−10 instead of 45/20/5/−5",
}


def with_options(table: tuple[Contract, ...], options: frozenset[str]) -> tuple[Contract, ...]:
    """The classic table with the option flags of RULES.md 1.6 applied as data."""
    changes: dict[str, dict[str, object]] = {}
    if "heart-lead" in options:
        changes.setdefault("no-king", {})["lead"] = Lead.NO_HEART_UNLESS_ONLY_HEARTS
    if "king-first" in options:
        changes.setdefault("no-king", {})["king_first"] = True
    if "overtrump" in options:
        changes.setdefault("trumps", {})["overtrump"] = True
    if "dominoes-40" in options:
        changes.setdefault("dominoes", {}).update(
            out_scores=(40, 25, 10, -10), description="+40, +25, +10, −10 by order of going out")
    return tuple(dataclasses.replace(c, **changes[c.id]) if c.id in changes else c  # type: ignore[arg-type]
                 for c in table)


def only(table: tuple[Contract, ...], ids: tuple[str, ...]) -> tuple[Contract, ...]:
    """The contracts of ``table`` named by ``ids``, in that order (all of them when ``ids`` is empty)."""
    if not ids:
        return table
    by_id = {c.id: c for c in table}
    for k, i in enumerate(ids):
        if i not in by_id:
            raise ValueError(f"unknown contract {i!r} (one of {', '.join(by_id)})")
        if i in ids[:k]:
            raise ValueError(f"contract {i!r} is listed twice")
    return tuple(by_id[i] for i in ids)


def for_deck(table: tuple[Contract, ...], deck: int) -> tuple[Contract, ...]:
    """The contracts as played with the cards of ``deck`` only (a smaller deck, for exact methods).

    Cards outside the deck score nothing and are not waited for: a hand that ends once its
    scoring cards have fallen ends once those of the deck have. The layout games are refused:
    their lines run through all thirteen ranks of a suit.
    """
    if deck == FULL_DECK:
        return table
    if not 0 < deck < FULL_DECK:
        raise ValueError("a deck is a non-empty set of the 52 cards")
    for c in table:
        if c.kind != Kind.TRICKS:
            raise ValueError(f"{c.name} needs the whole deck: choose trick contracts for a smaller one")
    return tuple(dataclasses.replace(
        c, card_points=tuple(p if deck >> x & 1 else 0 for x, p in enumerate(c.card_points)),
        ends_when_taken=c.ends_when_taken & deck) for c in table)
