"""The deal as chance steps, and a hand in progress rebuilt from one seat's observation.

OpenSpiel sees the deal as one chance node per card: outcome ``c`` gives card
``c`` to the next seat in turn (card ``j`` of the deal to seat ``j mod n``);
once every seat holds its share, the cards left over are the family set-aside.
Each node has at most 52 outcomes, which OpenSpiel's algorithms enumerate and
sample cheaply, and every deal has exactly its real probability. The family
redeal (K♥ set aside when the chooser has only King of Hearts left) is not a
second deal but the same distribution conditioned: K♥ then falls uniformly
among the seats' slots, so the game stays finite.

>>> from barbu.engine.game import Game
>>> from barbu.engine.state import State
>>> s = State(Game.family(5), seed=1)
>>> outcomes = deal_outcomes(s, [])
>>> len(outcomes), round(sum(p for _, p in outcomes), 9)
(52, 1.0)
"""

from __future__ import annotations

from collections.abc import Sequence

from barbu.engine.cards import FULL_DECK, KH_MASK, KING_OF_HEARTS, cards_of
from barbu.engine.contracts import Kind
from barbu.engine.doubling import doubling_turns, redoubling_turns, split_doubles
from barbu.engine.game import CONTRACT, DOUBLE, RANK, REDOUBLE, TRUMP
from barbu.engine.observation import Observation
from barbu.engine.state import Phase, State


def deal_size(state: State) -> int:
    """Chance steps of one deal: every card a seat receives (the set-aside follows)."""
    return state.game.players * state.game.hand_size


def king_must_be_dealt(state: State) -> bool:
    """Family: the chooser's only challenge left is King of Hearts, so K♥ may not be set aside."""
    g = state.game
    return (not g.is_classic and g.set_aside_count > 0 and g.has_contract("king")
            and state.available_contracts(state.declarer) == [g.contract_index("king")])


def deal_outcomes(state: State, dealt: Sequence[int]) -> list[tuple[int, float]]:
    """The next card's outcomes and probabilities, after the cards ``dealt`` so far."""
    left = FULL_DECK
    for c in dealt:
        left &= ~(1 << c)
    cards = cards_of(left)
    slots = deal_size(state) - len(dealt)  # seat places still to fill
    if not (left & KH_MASK and king_must_be_dealt(state)) or slots == len(cards):
        p = 1.0 / len(cards)
        return [(c, p) for c in cards]
    if slots == 1:
        return [(KING_OF_HEARTS, 1.0)]  # OpenSpiel wants no outcome of probability 0
    # K♥ is uniform over the remaining slots; the other cards share the rest evenly.
    king = 1.0 / slots
    other = (1.0 - king) / (len(cards) - 1)
    return [(c, king if c == KING_OF_HEARTS else other) for c in cards]


def hands_of(state: State, dealt: Sequence[int]) -> tuple[list[int], int]:
    """The seats' hands and the set-aside cards once a whole deal is ``dealt``."""
    n = state.game.players
    hands = [0] * n
    for j, c in enumerate(dealt):
        hands[j % n] |= 1 << c
    return hands, FULL_DECK & ~sum(hands)


def deal_order(hands: Sequence[int]) -> list[int]:
    """Chance outcomes that deal these hands (each seat's cards low to high)."""
    per_seat = [cards_of(h) for h in hands]
    return [per_seat[j % len(hands)][j // len(hands)] for j in range(sum(map(len, per_seat)))]


def hand_origin(obs: Observation) -> State:
    """The engine state at the deal of the observed hand, with what came before as public facts.

    Earlier hands are not replayed (their hidden cards are unknown to the seat and
    change nothing that follows); what they decided is set: contracts already
    declared, doubles still owed, totals.
    """
    g = obs.game
    n = g.players
    first = (obs.declarer - obs.hand_no // g.hands_per_declarer) % n
    state = State(g, seed=0, first_declarer=first)
    state.hand_no = obs.hand_no
    state.declarer = state.leader = obs.declarer
    state.used = [((1 << len(g.contracts)) - 1) & ~m for m in obs.available]
    doubles, _ = split_doubles(obs.doubles, obs.declarer, n)
    # obs.owed already counts this hand's doubles, which have not been made at the deal.
    state.dbl_count = [2 - o - (doubles[s] >> obs.declarer & 1) for s, o in enumerate(obs.owed)]
    state.totals = list(obs.totals)
    return state


def hand_decisions(obs: Observation) -> list[int]:
    """Every decision of the observed hand so far, in order, as engine actions.

    All of them are public: the contract, trump or starting rank, who doubled and
    redoubled whom (a seat that has spoken without doubling said "none"), the cards.
    """
    c = obs.contract
    if c is None:
        return []
    out = [CONTRACT + obs.game.contract_index(c.id)]
    if c.trumps and obs.trump is not None:
        out.append(TRUMP + obs.trump)
    elif c.kind == Kind.DOMINOES and obs.start_rank is not None:
        out.append(RANK + obs.start_rank)
    if obs.game.is_classic and obs.phase not in (Phase.CHOOSE, Phase.TRUMP, Phase.START_RANK):
        out += _doubling_decisions(obs)
    return out + [a for _, a in obs.history]


def _doubling_decisions(obs: Observation) -> list[int]:
    n = obs.game.players
    doubles, redoubles = split_doubles(obs.doubles, obs.declarer, n)
    out = [DOUBLE + doubles[s] for s in _spoken(doubling_turns(obs.declarer, n), obs, Phase.DOUBLE)]
    if obs.phase != Phase.DOUBLE and any(doubles):
        order = redoubling_turns(obs.declarer, doubles)
        out += [REDOUBLE + redoubles[s] for s in _spoken(order, obs, Phase.REDOUBLE)]
    return out


def _spoken(turns: list[int], obs: Observation, phase: Phase) -> list[int]:
    """The seats of a round (``turns``: first to speak last) that have spoken by now."""
    order = turns[::-1]
    return order[:order.index(obs.current)] if obs.phase == phase else order
