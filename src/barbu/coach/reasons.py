"""The coach's reasons: templates that each state a fact of the seat's view about one choice.

A :class:`Reason` is data, a catalogue key (``coach.void_shown``) and the values of its slots, so
that a page says it in its reader's language and the terminal in English (:mod:`barbu.coach.words`).
Each template is a function of the seat's :class:`~barbu.engine.observation.Observation` and of one
legal action; it returns None where its fact does not apply, so a reason is never said where it is
not true. :func:`explain` keeps the facts that tell the expert's choice from another.

Slots: ``card``, ``best`` and ``cards`` are cards as people write them (``Q♠``), ``suit`` a suit's
symbol, ``who`` a seat (a name for people), ``contract`` a contract id of the rule set ``ruleset``,
``rank`` a rank (``10``), ``n`` a count, ``points`` contract points with their sign.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from barbu.coach import facts as f
from barbu.engine.cards import ABOVE, BELOW, RANK_MASKS, SUIT_MASKS, bits, rank_pretty
from barbu.engine.contracts import Kind
from barbu.engine.game import CONTRACT, RANK, TRUMP
from barbu.engine.layout import fitting_cards, place_card
from barbu.engine.observation import Observation
from barbu.engine.state import Phase

Slot = str | int | float


@dataclass(frozen=True)
class Reason:
    """A fact said by a catalogue key with its slots' values."""

    key: str
    slots: Mapping[str, Slot] = field(default_factory=dict)


Template = Callable[[Observation, int], Reason | None]


def takes(obs: Observation, action: int) -> Reason | None:
    """The card would win the trick as it stands, and what that scores."""
    c = f.trick_game(obs)
    if c is None or not obs.trick or not f.would_win(obs, action):
        return None
    points, scoring = f.trick_points(obs, c, action)
    if not points:
        return None
    slots: dict[str, Slot] = {"card": f.cards_text(1 << action), "points": points}
    if scoring:
        return Reason("coach.takes_cards", slots | {"cards": f.cards_text(scoring)})
    return Reason("coach.takes", slots)


def sheds(obs: Observation, action: int) -> Reason | None:
    """Discarding a costly card (no card of the suit led) into a trick someone else is winning."""
    c = f.trick_game(obs)
    if c is None or not obs.trick or action // 13 == obs.trick[0][1] // 13 or f.would_win(obs, action):
        return None
    if not f.costly(obs.game, c.card_points[action]):
        return None
    who, _ = f.winning_so_far(obs)
    return Reason("coach.sheds", {"card": f.cards_text(1 << action), "points": c.card_points[action],
                                  "who": who})


def ducks(obs: Observation, action: int) -> Reason | None:
    """The card stays under the one winning the trick: someone else keeps it as it stands."""
    if f.trick_game(obs) is None or not obs.trick or f.would_win(obs, action):
        return None
    who, best = f.winning_so_far(obs)
    return Reason("coach.ducks", {"card": f.cards_text(1 << action), "best": f.cards_text(1 << best),
                                  "who": who})


def exposed(obs: Observation, action: int) -> Reason | None:
    """Following a trick that players still play to after you: the card would lead it, and costly
    cards of the suit led, still out and lower, could be dropped under it."""
    c = f.trick_game(obs)
    after = obs.game.players - len(obs.trick) - 1
    if c is None or not obs.trick or after <= 0 or not f.would_win(obs, action):
        return None
    led = obs.trick[0][1] // 13
    if action // 13 != led:
        return None
    under = [x for x in bits(f.out_in_suit(obs, led) & BELOW[action]) if f.costly(obs.game, c.card_points[x])]
    if not under:
        return None
    return Reason("coach.exposed", {"card": f.cards_text(1 << action), "n": after,
                                    "cards": f.cards_text(sum(1 << x for x in under)),
                                    "points": sum(c.card_points[x] for x in under)})


def still_out(obs: Observation, action: int) -> Reason | None:
    """Leading a suit: how many of its cards the others still hold (none: a suit nobody can follow)."""
    if f.trick_game(obs) is None or obs.trick:
        return None
    suit = action // 13
    n = f.out_in_suit(obs, suit).bit_count()
    if not n:
        return Reason("coach.suit_gone", {"suit": f.suit_text(suit)})
    return Reason("coach.still_out", {"suit": f.suit_text(suit), "n": n})


def void_shown(obs: Observation, action: int) -> Reason | None:
    """Leading a suit that another player, still holding cards, has shown he lacks."""
    if f.trick_game(obs) is None or obs.trick:
        return None
    suit = action // 13
    shown = f.voids(obs)
    for k in range(1, obs.game.players):
        seat = (obs.seat + k) % obs.game.players
        if shown[seat] >> suit & 1 and obs.hand_sizes[seat]:
            return Reason("coach.void_shown", {"who": seat, "suit": f.suit_text(suit)})
    return None


def master(obs: Observation, action: int) -> Reason | None:
    """Leading the highest card of its suit still in play (none higher held or out), with cards of the
    suit still out."""
    if f.trick_game(obs) is None or obs.trick:
        return None
    out = f.out_in_suit(obs, action // 13)
    if not out or (out | obs.hand) & ABOVE[action]:
        return None
    return Reason("coach.master", {"card": f.cards_text(1 << action), "n": out.bit_count()})


def danger_held(obs: Observation, action: int) -> Reason | None:
    """Playing in the suit of a costly card you hold, in a suit not led yet this hand."""
    c = f.trick_game(obs)
    if c is None:
        return None
    suit = action // 13
    held = [x for x in range(13 * suit, 13 * suit + 13)
            if obs.hand >> x & 1 and x != action and f.costly(obs.game, c.card_points[x])]
    if not held or f.suits_led(obs) >> suit & 1:
        return None
    worst = max(held, key=lambda x: (abs(c.card_points[x]), x))
    return Reason("coach.danger_held", {"card": f.cards_text(1 << worst), "suit": f.suit_text(suit),
                                        "points": c.card_points[worst]})


def contract_cards(obs: Observation, action: int) -> Reason | None:
    """Choosing a contract whose scoring cards you hold some of (read from the contract's data)."""
    if obs.phase != Phase.CHOOSE or not CONTRACT <= action < CONTRACT + len(obs.game.contracts):
        return None
    c = obs.game.contracts[action - CONTRACT]
    held = obs.hand & c.scoring_cards
    if c.kind != Kind.TRICKS or not held:
        return None
    points = sum(c.card_points[x] for x in bits(held))
    return Reason("coach.contract_cards", {"contract": c.id, "ruleset": obs.game.ruleset,
                                           "cards": f.cards_text(held), "points": points})


def trump_length(obs: Observation, action: int) -> Reason | None:
    """Naming a trump suit you hold cards of: how many, and the highest."""
    if obs.phase != Phase.TRUMP or not TRUMP <= action < TRUMP + 4:
        return None
    held = obs.hand & SUIT_MASKS[action - TRUMP]
    if not held:
        return None
    return Reason("coach.trump_length", {"suit": f.suit_text(action - TRUMP), "n": held.bit_count(),
                                         "card": f.cards_text(1 << (held.bit_length() - 1))})


def rank_held(obs: Observation, action: int) -> Reason | None:
    """Naming a starting rank you hold cards of: those you may place at once."""
    if obs.phase != Phase.START_RANK or not RANK <= action < RANK + 13:
        return None
    held = obs.hand & RANK_MASKS[action - RANK]
    if not held:
        return None
    return Reason("coach.rank_held", {"rank": rank_pretty(action - RANK), "n": held.bit_count()})


def opens(obs: Observation, action: int) -> Reason | None:
    """Placing a card of the layout games: the cards you do not hold that it lets the others place."""
    c = obs.contract
    if obs.phase != Phase.PLAY or c is None or c.kind == Kind.TRICKS or action >= 52:
        return None
    lo, hi = [x for x, _ in obs.lines], [y for _, y in obs.lines]
    start = -1 if obs.start_rank is None else obs.start_rank
    before = fitting_cards(lo, hi, start) if start >= 0 else 0
    start = place_card(lo, hi, action, start, obs.set_aside)
    freed = fitting_cards(lo, hi, start) & ~before & obs.unseen
    if not freed:
        return None
    return Reason("coach.opens", {"card": f.cards_text(1 << action), "cards": f.cards_text(freed)})


# Every template, in the order their reasons are said: what the choice does to this trick first.
TEMPLATES: tuple[Template, ...] = (takes, exposed, sheds, ducks, danger_held, void_shown, master, still_out,
                                   opens, contract_cards, trump_length, rank_held)


def reasons_for(obs: Observation, action: int) -> list[Reason]:
    """Every fact the templates state about ``action`` at ``obs``."""
    found = (t(obs, action) for t in TEMPLATES)
    return [r for r in found if r is not None]


def explain(obs: Observation, chosen: int, alternative: int) -> list[Reason]:
    """The facts that set ``chosen`` (the expert's choice) apart from ``alternative``: those stated of
    one and not, or not with the same values, of the other: the choice's first. Each names the card,
    suit, contract or rank it is about, so it reads the same of either."""
    mine, theirs = reasons_for(obs, chosen), reasons_for(obs, alternative)
    # A fact said of both choices alike but for naming each its own card ("K♥ stays under 9♦" and
    # "9♠ stays under 9♦") tells them no more apart than silence: it is left out.
    same = ({_without_card(r, obs, chosen) for r in mine}
            & {_without_card(r, obs, alternative) for r in theirs})
    return ([r for r in mine if r not in theirs and _without_card(r, obs, chosen) not in same]
            + [r for r in theirs if r not in mine and _without_card(r, obs, alternative) not in same])


def _without_card(r: Reason, obs: Observation, action: int) -> tuple[str, tuple[tuple[str, Slot], ...]]:
    """A reason with its ``card`` slot dropped where that slot names the choice's own card."""
    own = action < 52 and r.slots.get("card") == f.cards_text(1 << action)
    return r.key, tuple(sorted((k, v) for k, v in r.slots.items() if not (own and k == "card")))
