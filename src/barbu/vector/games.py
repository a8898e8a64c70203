"""The state of B games as arrays, one row per game, and the resets between hands and games."""

from __future__ import annotations

import numpy as np

from barbu.vector.backend import I64, U64, Arr, Bool, Int, xp

# The phases, numbered as the engine's Phase.
DEAL, CHOOSE, TRUMP, RANK, DOUBLE, REDOUBLE, PLAY, OVER = range(8)

GAME_FIELDS = ("used", "dbl_count", "totals", "hand_no")
HAND_FIELDS = (
    "phase", "declarer", "current", "contract", "trump", "start", "doubled", "redoubled", "forced",
    "turn", "leader", "trick", "trick_len", "trick_cards", "last_leader", "hands", "set_aside",
    "tricks_won", "trick_no", "points", "lo", "hi", "out", "out_count", "ace_extra",
    "played", "captured", "last_trick", "voids",
)


class Games:
    """B games at a table of ``n``: every field an array whose first axis is the game.

    Card sets are uint64 bit masks (bit c: card c); seats are absolute (the observation turns
    them relative). ``doubled[b, a]`` has bit t when seat a doubled seat t; ``trick`` holds each
    seat's card in the trick or -1, ``out`` each seat's place of going out or -1, ``turn`` the
    position in the doubling (1…n-1 from the declarer's left) or redoubling (0…n-1) order.
    """

    phase: Int
    declarer: Int
    current: Int
    contract: Int
    trump: Int
    start: Int
    doubled: Int  # (B, n) seat masks
    redoubled: Int
    forced: Int  # seat mask: doubling the declarer is compulsory this hand
    turn: Int
    leader: Int
    trick: Int  # (B, n)
    trick_len: Int
    trick_cards: U64
    last_leader: Int
    hands: U64  # (B, n)
    set_aside: U64
    tricks_won: Int
    trick_no: Int
    points: Int
    lo: Int  # (B, 4): lowest rank of each line, -1 while shut
    hi: Int
    out: Int
    out_count: Int
    ace_extra: Bool
    played: U64  # (B, n): the cards each seat has played (placed) in this hand
    captured: U64  # (B, n): the cards of the tricks each seat has taken
    last_trick: Int  # (B, n): each seat's card in the last finished trick, or -1
    voids: Int  # (B, n): bit s when the seat has shown it lacks suit s
    used: Int  # (B, n) masks of the contracts each seat has declared
    dbl_count: Int
    totals: Int
    hand_no: Int
    seed: I64  # engine seed of each game (the deals come from it)
    first_declarer: Int
    redeals: Int

    def __init__(self, batch: int, n: int) -> None:
        self.batch, self.n = batch, n
        self.ids: Int = xp.arange(batch)  # each row's game in the whole batch
        for name, value in blank(batch, n).items():
            setattr(self, name, value)
        self.fresh = blank(1, n)  # one game's fields before its first deal, for refresh()
        self.seed: I64 = np.zeros(batch, dtype=np.int64)  # below 2**63: engine seeds fit
        self.first_declarer = xp.zeros(batch, dtype=np.int32)
        self.redeals: Int = np.zeros(batch, dtype=np.int32)


def blank(batch: int, n: int) -> dict[str, Arr]:
    """Every field of a game before its first deal."""
    i32, u64 = np.int32, np.uint64
    zeros = {name: xp.zeros(batch, dtype=i32) for name in (
        "phase", "declarer", "current", "forced", "turn", "leader", "trick_len", "trick_no",
        "out_count", "hand_no")}
    minus = {name: xp.full(batch, -1, dtype=i32) for name in ("contract", "trump", "start", "last_leader")}
    seats = {name: xp.zeros((batch, n), dtype=i32) for name in (
        "doubled", "redoubled", "tricks_won", "points", "used", "dbl_count", "totals")}
    return {
        **zeros, **minus, **seats, "trick": xp.full((batch, n), -1, dtype=i32),
        "out": xp.full((batch, n), -1, dtype=i32), "last_trick": xp.full((batch, n), -1, dtype=i32),
        "played": xp.zeros((batch, n), dtype=u64), "captured": xp.zeros((batch, n), dtype=u64),
        "voids": xp.zeros((batch, n), dtype=i32), "lo": xp.full((batch, 4), -1, dtype=i32),
        "hi": xp.full((batch, 4), -1, dtype=i32), "trick_cards": xp.zeros(batch, dtype=u64),
        "hands": xp.zeros((batch, n), dtype=u64), "set_aside": xp.zeros(batch, dtype=u64),
        "ace_extra": xp.zeros(batch, dtype=np.bool_),
    }


def refresh(g: Games, games: Int, names: tuple[str, ...]) -> None:
    """Put the fields ``names`` of the games ``games`` back to their values before a deal."""
    fresh = g.fresh
    for name in names:
        getattr(g, name)[games] = fresh[name][0]  # host-side, between hands


def take(g: Games, idx: Int) -> Games:
    """The games ``idx`` as a smaller batch of their own (copies; see :func:`put`)."""
    sub = Games.__new__(Games)
    sub.batch, sub.n, sub.ids, sub.fresh = len(idx), g.n, g.ids[idx], g.fresh
    for name in HAND_FIELDS + GAME_FIELDS:
        setattr(sub, name, getattr(g, name)[idx])
    return sub


def put(g: Games, idx: Int, sub: Games) -> None:
    """Write a batch made by :func:`take` back into its rows."""
    for name in HAND_FIELDS + GAME_FIELDS:
        getattr(g, name)[idx] = getattr(sub, name)
