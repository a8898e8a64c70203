"""The phases of a hand and the record of a finished one: the types the state and its views share."""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple


class Phase(IntEnum):
    """The phases of a hand, in the order they come (Dominoes names a rank, Trumps a suit)."""

    DEAL = 0
    CHOOSE = 1
    TRUMP = 2
    START_RANK = 3
    DOUBLE = 4
    REDOUBLE = 5
    PLAY = 6
    GAME_OVER = 7


PHASE_TASK = {
    Phase.DEAL: "deal the cards",
    Phase.CHOOSE: "choose a contract",
    Phase.TRUMP: "name the trump suit",
    Phase.START_RANK: "name the starting rank",
    Phase.DOUBLE: "double",
    Phase.REDOUBLE: "redouble",
    Phase.PLAY: "play",
    Phase.GAME_OVER: "stop: the game is over",
}


class HandRecord(NamedTuple):
    """Everything about one hand: enough to replay it and its score.

    A named tuple rather than a frozen dataclass: one is built at the end of every
    playout, and a tuple is several times cheaper to make.
    """

    hand_no: int
    declarer: int
    deal: tuple[int, ...]
    set_aside: int
    contract: str
    trump: int | None
    start_rank: int | None
    doubles: tuple[tuple[int, int], ...]  # directed pairs [from, to], as in RECORD.md
    actions: tuple[int, ...]
    contract_scores: tuple[int, ...]
    scores: tuple[int, ...]
    finished: bool = True
