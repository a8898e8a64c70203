"""What a seat can know from its own view: the tricks so far, the voids shown, the cards still out.

Every fact is computed from an :class:`~barbu.engine.observation.Observation` alone, so that a
reason built on it tells the learner nothing the seat could not know.
"""

from __future__ import annotations

from barbu.engine.cards import SUIT_MASKS, SUIT_SYMBOLS, card_pretty, sorted_cards
from barbu.engine.contracts import Contract, Kind
from barbu.engine.game import Game
from barbu.engine.observation import Observation
from barbu.engine.state import Phase
from barbu.engine.tricks import beats, trick_winner


def trick_game(obs: Observation) -> Contract | None:
    """The contract, when a card of a trick game is being played now."""
    c = obs.contract
    return c if obs.phase == Phase.PLAY and c is not None and c.kind == Kind.TRICKS else None


def tricks_played(obs: Observation) -> list[list[tuple[int, int]]]:
    """The tricks of this hand so far as (seat, card) lists, the one in progress last."""
    n = obs.game.players
    cards = [(s, a) for s, a in obs.history if a < 52]
    return [cards[i:i + n] for i in range(0, len(cards), n)]


def voids(obs: Observation) -> list[int]:
    """Per seat, the suits (a 4-bit mask) it has shown it holds none of, by not following them."""
    shown = [0] * obs.game.players
    for trick in tricks_played(obs):
        led = trick[0][1] // 13
        for seat, card in trick[1:]:
            if card // 13 != led:
                shown[seat] |= 1 << led
    return shown


def suits_led(obs: Observation) -> int:
    """The suits (a 4-bit mask) that have been led to a trick in this hand."""
    led = 0
    for trick in tricks_played(obs):
        led |= 1 << trick[0][1] // 13
    return led


def out_in_suit(obs: Observation, suit: int) -> int:
    """The cards of ``suit`` the others still hold between them (the seat's unseen cards)."""
    return obs.unseen & SUIT_MASKS[suit]


def winning_so_far(obs: Observation) -> tuple[int, int]:
    """The seat and card winning the trick in progress (which must have begun)."""
    cards = [c for _, c in obs.trick]
    at = trick_winner(cards, -1 if obs.trump is None else obs.trump)
    return obs.trick[at]


def would_win(obs: Observation, card: int) -> bool:
    """Whether ``card`` would take the trick in progress as it stands (a lead always does)."""
    if not obs.trick:
        return True
    return beats(card, winning_so_far(obs)[1], -1 if obs.trump is None else obs.trump)


def trick_points(obs: Observation, c: Contract, card: int) -> tuple[int, int]:
    """What taking the trick in progress with ``card`` scores in ``c`` (its contract points), and the
    scoring cards it would hold, as a mask."""
    cards = [x for _, x in obs.trick] + [card]
    points = c.per_trick + sum(c.card_points[x] for x in cards)
    total = obs.game.hand_size
    first_paid = total - len(c.last_tricks)
    if obs.trick_no >= first_paid:
        points += c.last_tricks[obs.trick_no - first_paid]
    mask = sum(1 << x for x in cards) & c.scoring_cards
    return points, mask


def costly(game: Game, points: int) -> bool:
    """Whether contract points are bad for the one who scores them (a loss in classic, a penalty in
    the family rules)."""
    return points < 0 if game.is_classic else points > 0


def cards_text(mask: int) -> str:
    """Cards for people, highest rank first: ``A♥ Q♠ Q♥``."""
    return " ".join(card_pretty(x) for x in sorted(sorted_cards(mask), key=lambda x: (-(x % 13), x)))


def suit_text(suit: int) -> str:
    return SUIT_SYMBOLS[suit]
