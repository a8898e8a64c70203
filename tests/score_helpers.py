"""Helpers for the score keeper's tests: the counts a player would enter for a hand played in full."""

from __future__ import annotations

import random
from typing import Any

from barbu.engine.cards import HEART_CARDS, RANKS, SUITS
from barbu.engine.game import CONTRACT, PASS, RANK, Game
from barbu.engine.hand import HandRecord, Phase
from barbu.engine.scoresheet import new_sheet, sheet_hand
from barbu.engine.state import State
from barbu.engine.tally import ACE_OF_HEARTS, KING_OF_HEARTS, QUEEN_CARDS, Tally, fields_of
from barbu.engine.tricks import trick_winner


def tricks_of(game: Game, h: HandRecord) -> list[tuple[int, int]]:
    """Each trick of a played hand as (its taker, its cards as a mask)."""
    n, leader = game.players, h.declarer
    out = []
    for k in range(0, len(h.actions), n):
        trick = list(h.actions[k:k + n])
        leader = (leader + trick_winner(trick, -1 if h.trump is None else h.trump)) % n
        out.append((leader, sum(1 << x for x in trick)))
    return out


def out_order(game: Game, h: HandRecord) -> list[int]:
    """The seats in the order they went out, replaying the hand's actions on a fresh state."""
    state = State(game, seed=0, first_declarer=h.declarer)
    assert state.deal(list(h.deal), h.set_aside)
    state.apply(CONTRACT + game.contract_index(h.contract))
    if h.start_rank is not None:
        state.apply(RANK + h.start_rank)
    while state.phase == Phase.DOUBLE:  # the first hand of a game: nothing is compulsory
        state.apply(state.legal_actions()[0])
    left = [game.hand_size] * game.players
    out = []
    for a in h.actions:
        seat = state.current
        state.apply(a)
        if a != PASS:
            left[seat] -= 1
            if not left[seat]:
                out.append(seat)
    return out


def tally_of(game: Game, h: HandRecord, rng: random.Random) -> Tally:
    """What a player counts after the played hand ``h`` (Dominoes: the last out left out or not)."""
    c = game.contracts[game.contract_index(h.contract)]
    fields = fields_of(c)
    if fields == ("out",):
        out = out_order(game, h)
        return Tally(out=tuple(out[:-1] if len(out) == game.players and rng.random() < 0.5 else out))
    tricks = tricks_of(game, h)
    captured = [0] * game.players
    for seat, cards in tricks:
        captured[seat] |= cards

    def taker(x: int) -> int | None:
        return next((s for s in range(game.players) if captured[s] >> x & 1), None)

    won = tuple(sum(1 for s, _ in tricks if s == seat) for seat in range(game.players))
    return Tally(
        tricks=won if "tricks" in fields else None,
        last_tricks=tuple(s for s, _ in tricks[-len(c.last_tricks):]) if "last_tricks" in fields else None,
        queens=tuple(taker(q) for q in QUEEN_CARDS) if "queens" in fields else None,
        hearts=tuple((m & HEART_CARDS).bit_count() for m in captured) if "hearts" in fields else None,
        king_of_hearts=taker(KING_OF_HEARTS) if "king_of_hearts" in fields else None,
        ace_of_hearts=taker(ACE_OF_HEARTS) if "ace_of_hearts" in fields else None)


def sheet_of(state: State, names: list[str], rng: random.Random) -> dict[str, Any]:
    """The score sheet a player would have kept of a game played by the engine.

    Set-aside cards are entered for some rounds and left unknown for others.
    """
    game = state.game
    doc = new_sheet(game, names, first_declarer=state.first_declarer)
    for h in state.history:
        doc["hands"].append(sheet_hand(
            h.declarer, h.contract, tally_of(game, h, rng),
            trump=None if h.trump is None else SUITS[h.trump],
            start_rank=None if h.start_rank is None else RANKS[h.start_rank], doubles=h.doubles,
            set_aside=h.set_aside if rng.random() < 0.5 else None))
    return doc
