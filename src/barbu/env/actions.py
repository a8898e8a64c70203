"""The fixed action ids of barbu.env: one ``Discrete(93)`` space for both rule sets and every table size.

=========  =====  =================================================================
ids        count  action
=========  =====  =================================================================
0..51      52     play (or place) card ``id``: ``suit * 13 + rank``, as in the engine
52         1      pass: a Dominoes/Réussite knock, or stopping after a Réussite ace
53..59     7      choose contract ``id - 53`` of the rule set's table (RULES.md order)
60..63     4      name trump suit S, H, D, C
64..76     13     name starting rank 2 … A (classic Dominoes)
77..84     8      double: bit ``k - 1`` of ``id - 77`` is the seat ``k`` places to your left
85..92     8      redouble: the same seat bits, of ``id - 85``
=========  =====  =================================================================

Doubles are seat masks, as in the engine (one decision per player and round), but relative to
the actor, so that one policy reads every seat alike; the actor never doubles himself, so three
bits cover the classic table's four seats. ``77`` (and ``85``) is "no double".

>>> from barbu.engine.game import Game
>>> g = Game.classic()
>>> to_engine(77 + 0b101, 2, g) == g.parse_action("double 3 1")
True
>>> from_engine(g.parse_action("double 3 1"), 2, g), action_name(82, g)
(82, 'double +1,+3')
>>> [action_name(a, g) for a in (10, 52, 54, 61, 73)]
['QS', 'pass', 'no-queens', 'trump H', 'rank J']
"""

from __future__ import annotations

from functools import cache

from barbu.engine.cards import RANKS, SUITS, card_str
from barbu.engine.game import CONTRACT, DOUBLE, PASS, RANK, REDOUBLE, TRUMP, Game

CARDS = 0
PASS_ID = 52
CONTRACT_ID = 53
TRUMP_ID = 60
RANK_ID = 64
DOUBLE_ID = 77
REDOUBLE_ID = 85
NUM_ACTIONS = 93
NUM_CONTRACTS = 7  # both rule sets have seven contracts (challenges, in the family game)
SEAT_BITS = 3  # relative seats 1..3: doubling is classic only, at a table of four


@cache
def engine_table(players: int, seat: int) -> tuple[int, ...]:
    """The engine action of every id for ``seat`` at a table of ``players`` (-1: none there)."""
    table = [*range(52), PASS]
    table += [CONTRACT + i for i in range(NUM_CONTRACTS)]
    table += [TRUMP + s for s in range(4)] + [RANK + r for r in range(13)]
    for base in (DOUBLE, REDOUBLE):
        for m in range(1 << SEAT_BITS):
            # A bit beyond the table's other seats would come round to the actor himself.
            fits = m < 1 << (players - 1)
            table.append(base + sum(1 << (seat + k) % players for k in range(1, SEAT_BITS + 1)
                                    if m >> (k - 1) & 1) if fits else -1)
    return tuple(table)


@cache
def id_table(players: int, seat: int) -> dict[int, int]:
    """The id of every engine action ``seat`` can take at a table of ``players``."""
    return {a: i for i, a in enumerate(engine_table(players, seat)) if a >= 0}


def to_engine(action_id: int, seat: int, game: Game) -> int:
    """The engine action of an id taken by ``seat``; ValueError for an id that means nothing there."""
    if not 0 <= action_id < NUM_ACTIONS:
        raise ValueError(f"not an action id: {action_id} (0..{NUM_ACTIONS - 1})")
    action = engine_table(game.players, seat)[action_id]
    if action < 0:
        raise ValueError(f"action id {action_id} names a seat beyond a table of {game.players}")
    return action


def from_engine(action: int, seat: int, game: Game) -> int:
    """The id of an engine action taken by ``seat``."""
    try:
        return id_table(game.players, seat)[action]
    except KeyError:
        raise ValueError(f"no action id for engine action {action} of seat {seat}") from None


def action_name(action_id: int, game: Game) -> str:
    """What an id means, seats counted from the actor (``+1``: the next seat to the left)."""
    if action_id < PASS_ID:
        return card_str(action_id)
    if action_id == PASS_ID:
        return "pass"
    if action_id < TRUMP_ID:
        return game.contracts[action_id - CONTRACT_ID].id
    if action_id < RANK_ID:
        return "trump " + SUITS[action_id - TRUMP_ID]
    if action_id < DOUBLE_ID:
        return "rank " + RANKS[action_id - RANK_ID]
    if action_id < NUM_ACTIONS:
        verb, m = ("double", action_id - DOUBLE_ID) if action_id < REDOUBLE_ID else (
            "redouble", action_id - REDOUBLE_ID)
        seats = [f"+{k}" for k in range(1, SEAT_BITS + 1) if m >> (k - 1) & 1]
        return verb + " " + (",".join(seats) if seats else "none")
    raise ValueError(f"not an action id: {action_id} (0..{NUM_ACTIONS - 1})")


def legal_ids(legal: list[int] | tuple[int, ...], seat: int, game: Game) -> list[int]:
    """The ids of the engine's legal actions for ``seat``, in the same order."""
    if legal and legal[0] <= PASS:
        return list(legal)  # cards and pass keep their engine numbers
    ids = id_table(game.players, seat)
    return [ids[a] for a in legal]
