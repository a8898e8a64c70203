"""Static facts of a game: rule set, number of players, options, contract table, action codes.

Actions are small ints so that the hot path never allocates:

===========  =======================================================
0..51        play this card
52           pass (Dominoes/Réussite knock, or stop after a Réussite ace)
64 + i       choose contract ``i`` of the game's table
72 + s       name trump suit ``s``
80 + r       name Dominoes starting rank ``r``
128 + m      double the seats in bitmask ``m`` (``m == 0``: no double)
192 + m      redouble the seats in bitmask ``m``
===========  =======================================================

>>> g = Game.classic()
>>> g.action_str(g.parse_action("no-queens")), g.action_str(CONTRACT + 1)
('no-queens', 'no-queens')
>>> g.action_str(g.parse_action("double 0 2")), g.action_str(DOUBLE)
('double 0,2', 'double none')
>>> g.action_str(g.parse_action("trump h")), g.action_str(g.parse_action("rank 10"))
('trump H', 'rank T')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from barbu.engine.cards import (
    CARD_BITS,
    FULL_DECK,
    RANKS,
    SUITS,
    card_str,
    parse_card,
    parse_rank,
    parse_suit,
)
from barbu.engine.contracts import CLASSIC, CLASSIC_OPTIONS, FAMILY, Contract, for_deck, only, with_options

PASS = 52
CONTRACT = 64
TRUMP = 72
RANK = 80
DOUBLE = 128
REDOUBLE = 192
RULESETS = ("classic", "family")


def seats_of(mask: int) -> list[int]:
    return [s for s in range(mask.bit_length()) if mask >> s & 1]


@dataclass(frozen=True)
class Game:
    """What does not change during a game: who plays, under which rules."""

    ruleset: str = "classic"
    players: int = 4
    options: frozenset[str] = frozenset()
    contracts: tuple[Contract, ...] = field(default=CLASSIC, compare=False)
    # A smaller game (Mini-Barbu, for exact methods): the cards in play, and the contracts
    # played by id, when not the whole deck and the rule set's whole table.
    deck: int = FULL_DECK
    contract_ids: tuple[str, ...] = ()
    # A shorter game: it ends after this many hands (0: the whole game). A family game agreed so at
    # the table, or one hand of one contract (a lesson of the tutorial, with ``contract_ids``).
    rounds: int = 0
    # Derived once, because the state machine reads them on every trick.
    is_classic: bool = field(init=False, compare=False)
    hand_size: int = field(init=False, compare=False)  # cards dealt to each player
    set_aside_count: int = field(init=False, compare=False)  # family: cards left over, face up
    num_hands: int = field(init=False, compare=False)  # 28 hands, or 7 × players rounds
    hands_per_declarer: int = field(init=False, compare=False)  # 7 in a row (classic) or 1
    deck_bits: tuple[int, ...] = field(init=False, compare=False)  # 1 << c for each card of the deck

    def __post_init__(self) -> None:
        if self.ruleset not in RULESETS:
            raise ValueError(f"unknown rule set {self.ruleset!r} (classic or family)")
        if self.ruleset == "classic" and self.players != 4:
            raise ValueError("classic Barbu is played by exactly 4 players")
        if self.ruleset == "family" and not 3 <= self.players <= 6:
            raise ValueError("family Barbu is played by 3 to 6 players")
        unknown = sorted(set(self.options) - set(CLASSIC_OPTIONS))
        if unknown:
            raise ValueError(f"unknown option {unknown[0]!r} (known: {', '.join(CLASSIC_OPTIONS)})")
        if self.options and self.ruleset == "family":
            raise ValueError("the option flags belong to the classic rules")
        table = with_options(CLASSIC if self.ruleset == "classic" else FAMILY, self.options)
        table = for_deck(only(table, tuple(self.contract_ids)), self.deck)
        whole = len(table) * self.players
        if self.rounds and not 1 <= self.rounds <= whole:
            raise ValueError(f"a shorter game is a game of 1 to {whole} hands, not {self.rounds}")
        cards = self.deck.bit_count()
        if cards < self.players:
            raise ValueError(f"a deck of {cards} cards cannot deal one to each of {self.players} players")
        object.__setattr__(self, "options", frozenset(self.options))
        object.__setattr__(self, "contract_ids", tuple(self.contract_ids))
        object.__setattr__(self, "contracts", table)
        derived = {
            "is_classic": self.ruleset == "classic",
            "hand_size": cards // self.players,
            "set_aside_count": cards % self.players,
            "num_hands": self.rounds or whole,
            "hands_per_declarer": len(table) if self.ruleset == "classic" else 1,
            "deck_bits": CARD_BITS if self.deck == FULL_DECK else tuple(
                b for b in CARD_BITS if self.deck & b),
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)

    @classmethod
    def classic(cls, options: tuple[str, ...] | frozenset[str] = ()) -> Game:
        return cls("classic", 4, frozenset(options))

    @classmethod
    def family(cls, players: int = 4) -> Game:
        return cls("family", players)

    def declarer_of(self, first: int, hand_no: int) -> int:
        """Seat of the declarer (chooser) of hand ``hand_no``."""
        return (first + hand_no // self.hands_per_declarer) % self.players

    def has_contract(self, contract_id: str) -> bool:
        return any(c.id == contract_id for c in self.contracts)

    def contract_index(self, contract_id: str) -> int:
        for i, c in enumerate(self.contracts):
            if c.id == contract_id:
                return i
        ids = ", ".join(c.id for c in self.contracts)
        raise ValueError(f"unknown {self.ruleset} contract {contract_id!r} (one of {ids})")

    def places(self, totals: Sequence[int]) -> list[int]:
        """Each seat's place by its total, 1 being the best (the highest total in classic, the lowest
        in family); equal totals share a place and the next place is skipped.

        >>> Game.family(4).places([12, -3, 12, 40])
        [2, 1, 2, 4]
        >>> Game.classic().places([50, -20, 50, -30])
        [1, 3, 1, 4]
        """
        sign = 1 if self.is_classic else -1
        return [1 + sum(sign * u > sign * t for u in totals) for t in totals]

    # -- notation of actions -------------------------------------------------

    def action_str(self, action: int) -> str:
        """Canonical text of an action (cards as in RECORD.md)."""
        if 0 <= action < 52:
            return card_str(action)
        if action == PASS:
            return "pass"
        if CONTRACT <= action < CONTRACT + len(self.contracts):
            return self.contracts[action - CONTRACT].id
        if TRUMP <= action < TRUMP + 4:
            return "trump " + SUITS[action - TRUMP]
        if RANK <= action < RANK + 13:
            return "rank " + RANKS[action - RANK]
        if DOUBLE <= action < REDOUBLE + 64:
            verb = "double" if action < REDOUBLE else "redouble"
            seats = seats_of((action - DOUBLE) % 64)
            return verb + " " + (",".join(map(str, seats)) if seats else "none")
        raise ValueError(f"not an action code: {action}")

    def parse_action(self, text: str) -> int:
        """An action from its text; the inverse of :meth:`action_str`."""
        t = text.strip()
        low = t.lower()
        if low in ("pass", "knock", "stop"):
            return PASS
        for i, c in enumerate(self.contracts):
            if low == c.id:
                return CONTRACT + i
        word, _, rest = low.partition(" ")
        if word == "trump":
            return TRUMP + parse_suit(rest)
        if word in ("rank", "from"):
            return RANK + parse_rank(rest)
        if word in ("double", "redouble"):
            base = DOUBLE if word == "double" else REDOUBLE
            mask = 0
            for part in rest.replace(",", " ").split():
                if part in ("none", "-"):
                    continue
                seat = int(part)
                if not 0 <= seat < self.players:
                    raise ValueError(f"no seat {seat} at this table")
                mask |= 1 << seat
            return base + mask
        return parse_card(t)
