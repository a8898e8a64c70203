"""Cards as ints 0..51 and card sets as 52-bit masks, with their notation.

A card is ``suit * 13 + rank``: suits are spades, hearts, diamonds, clubs
(0..3) and ranks run from the two (0) to the ace (12), so a higher rank
index is a higher card in every suit.

>>> c = parse_card("QS")
>>> c, card_str(c), rank_of(c), suit_of(c)
(10, 'QS', 10, 0)
>>> card_str(parse_card("10h")), card_str(parse_card("K♥"))
('TH', 'KH')
>>> mask_str(parse_cards("2c AS th"))
'AS TH 2C'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

SPADES, HEARTS, DIAMONDS, CLUBS = 0, 1, 2, 3
SUITS = "SHDC"
RANKS = "23456789TJQKA"
SUIT_SYMBOLS = "♠♥♦♣"
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king", "ace")

TWO, TEN, JACK, QUEEN, KING, ACE = 0, 8, 9, 10, 11, 12

FULL_DECK = (1 << 52) - 1
CARD_BITS = tuple(1 << c for c in range(52))  # CARD_BITS[c] == 1 << c, a lookup in hot loops


def _suit_tables() -> tuple[tuple[tuple[int, ...], ...], ...]:
    tables = []
    for suit in range(4):
        base = 13 * suit
        table: list[tuple[int, ...]] = [()]
        for m in range(1, 1 << 13):
            # m's lowest card, then the cards of m without it (an entry already built)
            table.append((base + (m & -m).bit_length() - 1,) + table[m & (m - 1)])
        tables.append(tuple(table))
    return tuple(tables)


# SUIT_CARDS[s][m]: the cards of suit s whose ranks are the bits of the 13-bit mask m, low to
# high. Listing a hand's cards is then four lookups instead of a loop over its bits.
SUIT_CARDS = _suit_tables()
RANKS_OF = SUIT_CARDS[0]  # spades are 0..12, so their cards are the ranks themselves
_SPADES, _HEARTS, _DIAMONDS, _CLUBS = SUIT_CARDS
SUIT_MASKS = tuple(0x1FFF << (13 * s) for s in range(4))
RANK_MASKS = tuple(sum(1 << (s * 13 + r) for s in range(4)) for r in range(13))
# BELOW[c] / ABOVE[c]: the cards of c's suit of lower / higher rank than c.
BELOW = tuple(((1 << (c % 13)) - 1) << (c - c % 13) for c in range(52))
ABOVE = tuple(SUIT_MASKS[c // 13] & ~BELOW[c] & ~(1 << c) for c in range(52))
QUEENS = RANK_MASKS[QUEEN]
HEART_CARDS = SUIT_MASKS[HEARTS]
KING_OF_HEARTS = HEARTS * 13 + KING
ACE_OF_HEARTS = HEARTS * 13 + ACE
KH_MASK = 1 << KING_OF_HEARTS

_SUIT_ALIASES = {"S": 0, "H": 1, "D": 2, "C": 3, "♠": 0, "♥": 1, "♦": 2, "♣": 3,
                 "♤": 0, "♡": 1, "♢": 2, "♧": 3}
_RANK_ALIASES = {ch: i for i, ch in enumerate(RANKS)} | {"10": TEN, "1": ACE}


def card(rank: int, suit: int) -> int:
    """The card of a rank index and a suit index."""
    return suit * 13 + rank


def suit_of(c: int) -> int:
    return c // 13


def rank_of(c: int) -> int:
    return c % 13


def card_str(c: int) -> str:
    """Canonical two-character notation: rank then suit (``TD``)."""
    return RANKS[c % 13] + SUITS[c // 13]


def rank_pretty(r: int) -> str:
    """A rank for people: ``10`` rather than ``T``."""
    return "10" if r == TEN else RANKS[r]


def card_pretty(c: int) -> str:
    """Notation for people: ``10♦``, ``Q♠``."""
    return rank_pretty(c % 13) + SUIT_SYMBOLS[c // 13]


def parse_suit(text: str) -> int:
    """A suit from ``S``/``spades``/``♠`` (any case)."""
    t = text.strip()
    if len(t) == 1 and t.upper() in _SUIT_ALIASES:
        return _SUIT_ALIASES[t.upper()]
    name = t.lower().rstrip("s")
    for i, full in enumerate(SUIT_NAMES):
        if name and full.rstrip("s") == name:
            return i
    raise ValueError(f"not a suit: {text!r} (use S, H, D or C)")


def parse_rank(text: str) -> int:
    """A rank from ``A``, ``K``, ``10``, ``T``, ``9`` … or its English name."""
    t = text.strip().upper()
    if t in _RANK_ALIASES and t != "1":
        return _RANK_ALIASES[t]
    for i, name in enumerate(RANK_NAMES):
        if t.lower() == name:
            return i
    raise ValueError(f"not a rank: {text!r} (use A K Q J 10 9 … 2)")


def parse_card(text: str) -> int:
    """A card from forgiving notation: ``QS``, ``qs``, ``Q♠``, ``10h``, ``th``, ``♥K``."""
    t = text.strip().replace(" ", "")
    if len(t) < 2:
        raise ValueError(f"not a card: {text!r} (write rank then suit, e.g. QS or 10H)")
    # Rank then suit is canonical; suit then rank is accepted too.
    for rank_part, suit_part in ((t[:-1], t[-1]), (t[1:], t[0])):
        up = rank_part.upper()
        if up in _RANK_ALIASES and up != "1" and suit_part.upper() in _SUIT_ALIASES:
            return card(_RANK_ALIASES[up], _SUIT_ALIASES[suit_part.upper()])
    raise ValueError(f"not a card: {text!r} (write rank then suit, e.g. QS or 10H)")


def parse_cards(text: str) -> int:
    """A mask from space-separated cards; a repeated card is an error."""
    mask = 0
    for word in text.split():
        c = parse_card(word)
        if mask >> c & 1:
            raise ValueError(f"card {card_str(c)} is listed twice")
        mask |= 1 << c
    return mask


def cards_of(mask: int) -> list[int]:
    """The cards of a mask, lowest index first.

    >>> cards_of(parse_cards("AS 2H KC"))
    [12, 13, 50]
    """
    return [*_SPADES[mask & 0x1FFF], *_HEARTS[mask >> 13 & 0x1FFF],
            *_DIAMONDS[mask >> 26 & 0x1FFF], *_CLUBS[mask >> 39]]


def bits(mask: int) -> Iterator[int]:
    """The cards of a mask, lowest index first."""
    return iter(cards_of(mask))


def mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def count(mask: int) -> int:
    return mask.bit_count()


def highest(mask: int) -> int:
    """The highest-index card of a non-empty mask."""
    return mask.bit_length() - 1


def lowest(mask: int) -> int:
    """The lowest-index card of a non-empty mask."""
    return (mask & -mask).bit_length() - 1


def sorted_cards(mask: int) -> list[int]:
    """Cards in display order: by suit (S H D C), high to low within a suit."""
    return sorted(bits(mask), key=lambda c: (c // 13, -(c % 13)))


def mask_str(mask: int) -> str:
    """Canonical notation of a card set, in display order."""
    return " ".join(card_str(c) for c in sorted_cards(mask))
