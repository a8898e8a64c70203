"""The state of B games as arrays, one row per game, and the resets between hands and games."""

from __future__ import annotations

import numpy as np

from barbu.vector.backend import Bool, Int, xp

# The phases, numbered as the engine's Phase.
DEAL, CHOOSE, TRUMP, RANK, DOUBLE, REDOUBLE, PLAY, OVER = range(8)

GAME_FIELDS = ("used", "dbl_count", "totals", "hand_no")
HAND_FIELDS = (
    "phase", "declarer", "current", "contract", "trump", "start", "doubled", "redoubled", "forced",
    "turn", "leader", "trick", "trick_len", "last_trick", "last_leader", "hands", "set_aside",
    "played", "captured", "voids", "tricks_won", "trick_no", "points", "lo", "hi", "out", "out_count",
    "ace_extra",
)


class Games:
    """B games at a table of ``n``: every field an array whose first axis is the game.

    Cards are booleans over the 52 card numbers; seats are absolute (the observation rotates
    them to the observer). ``trick``/``last_trick`` hold each seat's card or -1, ``out`` each
    seat's place of going out or -1, ``turn`` the position in the doubling (1…n-1, from the
    declarer's left) or redoubling (0…n-1, the declarer first) order.
    """

    phase: Int
    declarer: Int
    current: Int
    contract: Int
    trump: Int
    start: Int
    doubled: Bool  # (B, n, n): a doubled b
    redoubled: Bool
    forced: Bool  # (B, n): doubling the declarer is compulsory this hand
    turn: Int
    leader: Int
    trick: Int  # (B, n)
    trick_len: Int
    last_trick: Int
    last_leader: Int
    hands: Bool  # (B, n, 52)
    set_aside: Bool  # (B, 52)
    played: Bool  # (B, n, 52): the cards each seat played this hand
    captured: Bool
    voids: Bool  # (B, n, 4)
    tricks_won: Int
    trick_no: Int
    points: Int
    lo: Int  # (B, 4): lowest rank of each line, -1 while shut
    hi: Int
    out: Int
    out_count: Int
    ace_extra: Bool
    used: Bool  # (B, n, 7)
    dbl_count: Int
    totals: Int
    hand_no: Int
    seed: list[int]  # engine seed of each game (host side: the deals come from it)
    first_declarer: Int
    redeals: list[int]

    def __init__(self, batch: int, n: int) -> None:
        self.batch, self.n = batch, n
        fresh = blank(batch, n)
        for name, value in fresh.items():
            setattr(self, name, value)
        self.seed = [0] * batch
        self.first_declarer = xp.zeros(batch, dtype=np.int32)
        self.redeals = [0] * batch


def blank(batch: int, n: int) -> dict[str, Bool | Int]:
    """Every field of a game before its first deal."""
    i32, b8 = np.int32, np.bool_
    return {
        "phase": xp.full(batch, DEAL, dtype=i32), "declarer": xp.zeros(batch, dtype=i32),
        "current": xp.zeros(batch, dtype=i32), "contract": xp.full(batch, -1, dtype=i32),
        "trump": xp.full(batch, -1, dtype=i32), "start": xp.full(batch, -1, dtype=i32),
        "doubled": xp.zeros((batch, n, n), dtype=b8), "redoubled": xp.zeros((batch, n, n), dtype=b8),
        "forced": xp.zeros((batch, n), dtype=b8), "turn": xp.zeros(batch, dtype=i32),
        "leader": xp.zeros(batch, dtype=i32), "trick": xp.full((batch, n), -1, dtype=i32),
        "trick_len": xp.zeros(batch, dtype=i32), "last_trick": xp.full((batch, n), -1, dtype=i32),
        "last_leader": xp.full(batch, -1, dtype=i32), "hands": xp.zeros((batch, n, 52), dtype=b8),
        "set_aside": xp.zeros((batch, 52), dtype=b8), "played": xp.zeros((batch, n, 52), dtype=b8),
        "captured": xp.zeros((batch, n, 52), dtype=b8), "voids": xp.zeros((batch, n, 4), dtype=b8),
        "tricks_won": xp.zeros((batch, n), dtype=i32), "trick_no": xp.zeros(batch, dtype=i32),
        "points": xp.zeros((batch, n), dtype=i32), "lo": xp.full((batch, 4), -1, dtype=i32),
        "hi": xp.full((batch, 4), -1, dtype=i32), "out": xp.full((batch, n), -1, dtype=i32),
        "out_count": xp.zeros(batch, dtype=i32), "ace_extra": xp.zeros(batch, dtype=b8),
        "used": xp.zeros((batch, n, 7), dtype=b8), "dbl_count": xp.zeros((batch, n), dtype=i32),
        "totals": xp.zeros((batch, n), dtype=i32), "hand_no": xp.zeros(batch, dtype=i32),
    }


def refresh(g: Games, where: Bool, names: tuple[str, ...]) -> None:
    """Put the fields ``names`` of the games ``where`` back to their values before a deal."""
    fresh = blank(1, g.n)
    for name in names:
        old = getattr(g, name)
        mask = where.reshape((-1,) + (1,) * (old.ndim - 1))
        setattr(g, name, xp.where(mask, fresh[name], old))
