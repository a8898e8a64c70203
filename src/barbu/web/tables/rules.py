"""The figures of each contract, read from the engine's table, for the pages to put into their words.

A catalogue line such as ``"{queen} per queen taken"`` holds no number: the page fills its
slots from these figures, so the words can never disagree with what the engine scores.

>>> figures(CLASSIC[1])
{'queen': -6, 'total': -24}
>>> figures(with_options(CLASSIC, frozenset({"dominoes-40"}))[6])["first"]
40
"""

from __future__ import annotations

from typing import Any

from barbu.engine.cards import ACE_OF_HEARTS, HEARTS, KING_OF_HEARTS, QUEEN, card
from barbu.engine.contracts import CLASSIC, CLASSIC_OPTIONS, FAMILY, Contract, with_options
from barbu.engine.game import Game

_TWO_OF_HEARTS = card(0, HEARTS)
_QUEEN_OF_SPADES = card(QUEEN, 0)
_PLACES = ("first", "second", "third", "fourth")


def figures(c: Contract) -> dict[str, int]:
    """The numbers a contract's line and rules text name, by slot; only those that score."""
    pts = c.card_points
    heart = pts[_TWO_OF_HEARTS]
    found = {"trick": c.per_trick, "queen": pts[_QUEEN_OF_SPADES], "heart": heart,
             # the A♥ of No Hearts replaces the heart's value; the K♥ of Salad adds to it
             "ace": pts[ACE_OF_HEARTS] if pts[ACE_OF_HEARTS] != heart else 0,
             "king": pts[KING_OF_HEARTS] - heart}
    found |= dict(zip(("last", "second_last"), reversed(c.last_tricks), strict=False))
    found |= dict(zip(_PLACES, c.out_scores, strict=False))
    out = {k: v for k, v in found.items() if v}
    if len(c.out_scores) in (0, 4):  # Réussite pays only two players: it has no total
        out["total"] = _total(c)
    return out


def _total(c: Contract) -> int:
    """What a hand of a 13-trick contract hands out in all (classic: the contract's total)."""
    if c.out_scores:
        return sum(c.out_scores)
    return 13 * c.per_trick + sum(c.card_points) + sum(c.last_tricks)


def rules_info(ruleset: str, options: frozenset[str] = frozenset()) -> dict[str, Any]:
    """What the rules page of a rule set needs from the engine: each contract's id and figures."""
    table = with_options(CLASSIC, options) if ruleset == "classic" else FAMILY
    games = [Game(ruleset, n) for n in ((4,) if ruleset == "classic" else range(3, 7))]
    out: dict[str, Any] = {"ruleset": ruleset,
                           "contracts": [{"id": c.id, "positive": c.positive, "figures": figures(c)}
                                         for c in table],
                           # per number of players: the hands of a game, the cards set aside each deal
                           "games": [{"players": g.players, "hands": g.num_hands,
                                      "set_aside": g.set_aside_count, "per_declarer": g.hands_per_declarer}
                                     for g in games]}
    if ruleset == "classic":
        out["options"] = {o: _changed(frozenset({o})) for o in CLASSIC_OPTIONS}
    return out


def _changed(options: frozenset[str]) -> dict[str, dict[str, int]]:
    """The figures an option changes (only ``dominoes-40`` changes any), by contract id."""
    plain = {c.id: figures(c) for c in CLASSIC}
    return {c.id: figures(c) for c in with_options(CLASSIC, options) if figures(c) != plain[c.id]}
