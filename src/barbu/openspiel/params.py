"""The parameters of the OpenSpiel game ``barbu`` and the bounds OpenSpiel asks of it.

==================  ==========  =====================================================
``rules``           classic     ``classic`` or ``family``
``players``         4           3 to 6 (family); classic is always 4
``options``         ""          classic option flags joined by ``+`` (``overtrump+dominoes-40``)
``hands``           0           hands to play, 1 up to the whole game; 0 is the whole game
``first_declarer``  0           the seat that declares (family: chooses) first
==================  ==========  =====================================================

>>> s = settings_of({"rules": "family", "players": 5, "hands": 1})
>>> s.game.players, s.hands, s.zero_sum
(5, 1, False)
>>> settings_of({}).zero_sum, settings_of({}).hands
(True, 28)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from barbu.engine.contracts import Contract, Kind
from barbu.engine.game import Game

DEFAULTS: dict[str, Any] = {"rules": "classic", "players": 4, "options": "", "hands": 0,
                            "first_declarer": 0}


@dataclass(frozen=True)
class Settings:
    """A checked parameter set."""

    game: Game
    hands: int
    first_declarer: int

    @property
    def params(self) -> dict[str, Any]:
        """As OpenSpiel keeps them (``hands`` as given: 0 stays 0)."""
        g = self.game
        return {"rules": g.ruleset, "players": g.players, "options": "+".join(sorted(g.options)),
                "hands": 0 if self.hands == g.num_hands else self.hands,
                "first_declarer": self.first_declarer}

    @property
    def zero_sum(self) -> bool:
        # Each classic declarer's seven contracts add up to 0 (−130 in the five negative ones,
        # +130 in Trumps and Dominoes, with or without dominoes-40) and doubles move points
        # between players, so only whole blocks of seven hands are zero-sum: the whole game.
        return self.game.is_classic and self.hands == self.game.num_hands

    @property
    def hand_bound(self) -> int:
        """No seat scores more than this, either way, in one hand (doubles and redoubles included)."""
        g = self.game
        return max(_contract_bound(c, g) for c in g.contracts)

    @property
    def utility_bound(self) -> float:
        return float(self.hands * self.hand_bound)

    @property
    def max_decisions(self) -> int:
        """Decisions in the longest game: naming, doubling and the longest play, every hand."""
        n = self.game.players
        return self.hands * (2 + (n - 1) + n + max_plays(self.game))

    @property
    def max_chance_nodes(self) -> int:
        return self.hands * self.game.players * self.game.hand_size


def max_plays(game: Game) -> int:
    """The longest play of one hand: Dominoes, with at most n − 1 passes before each card (someone
    can always play), and a Réussite stop after each of the four aces."""
    n = game.players
    return n * game.hand_size * n + 4


def _contract_bound(c: Contract, g: Game) -> int:
    if c.kind == Kind.TRICKS:
        per_card = [p for p in c.card_points if p]
        high = (max(c.per_trick, 0) * g.hand_size + sum(p for p in per_card if p > 0)
                + sum(p for p in c.last_tricks if p > 0))
        low = (min(c.per_trick, 0) * g.hand_size + sum(p for p in per_card if p < 0)
               + sum(p for p in c.last_tricks if p < 0))
    else:
        high, low = max(c.out_scores), min(c.out_scores)
    high, low = max(high, 0), min(low, 0)
    # Each of the n − 1 pairs a seat is in settles the difference of the two scores, at most twice.
    settle = 2 * (g.players - 1) * (high - low) if g.is_classic else 0
    return max(high, -low) + settle


def settings_of(params: Mapping[str, Any]) -> Settings:
    """Check OpenSpiel's parameters (missing ones take their defaults); ValueError says what is wrong."""
    unknown = sorted(set(params) - set(DEFAULTS))
    if unknown:
        raise ValueError(f"unknown barbu parameter {unknown[0]!r} (known: {', '.join(DEFAULTS)})")
    p = {**DEFAULTS, **params}
    # "+" joins the flags: a comma would end the parameter in OpenSpiel's game string.
    options = frozenset(o.strip() for o in str(p["options"]).replace(",", "+").split("+") if o.strip())
    game = Game(str(p["rules"]), int(p["players"]), options)
    hands = int(p["hands"]) or game.num_hands
    if not 1 <= hands <= game.num_hands:
        raise ValueError(f"hands must be 1 to {game.num_hands} (0: the whole game), not {hands}")
    first = int(p["first_declarer"])
    if not 0 <= first < game.players:
        raise ValueError(f"first_declarer must be a seat, 0 to {game.players - 1}, not {first}")
    return Settings(game, hands, first)
