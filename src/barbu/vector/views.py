"""Every seat's observation of every game, kept up to date action by action in one buffer of bits.

The buffer holds, per game and per observing seat, the fields that change only at a few events
(cards played, tricks taken, voids, doubles, going out, a new hand); the fields that change at
almost every action (phase, turn, the observer's hand, the layout, the counts) are written into
the acting seat's row when it is read. Reading is then one gather of (B, obs_size) rows.
"""

from __future__ import annotations

import numpy as np

from barbu.engine.game import Game
from barbu.env.encoding import layout
from barbu.vector.backend import U8, U64, Arr, Float, Int, bits_of, count, fill, mark, xp
from barbu.vector.games import PLAY, Games
from barbu.vector.tables import Tables


class Views:
    """The (B, n, obs_size) buffer of a batch and the writers of its events."""

    def __init__(self, game: Game, batch: int) -> None:
        lay = layout(game)
        self.n, self.size, self.batch = game.players, lay.size, batch
        self.off = lay.off
        self.nbits = lay.nbits
        self.scales = lay.inverse_scales
        self.classic = game.is_classic
        self.buffer: U8 = xp.zeros((batch, self.n, lay.size), dtype=np.uint8)
        self.seats = np.arange(self.n)
        # ROT[o]: the seats in observer o's relative order.
        self.rot = (self.seats[:, None] + self.seats[None, :]) % self.n
        # Where the four per-seat counts of each game start in their flattened (B, 4, n) stack.
        self.count_base = (np.arange(batch)[:, None, None] * 4 + np.arange(4)[:, None]) * self.n
        # SEAT_ROW[p, o]: where seat p's rows begin in observer o's view (o's offset included),
        # so that a card's positions in every view are one gather and an add.
        rel = (self.seats[:, None] - self.seats[None, :]) % self.n
        self.seat_row = self.seats[None, :] * self.size + rel * 52

    def _flat(self, games: Int, pos: Int) -> Int:
        """Flat buffer positions of entry ``pos[k, o]`` of observer o's view in game ``games[k]``."""
        flat: Int = ((games[:, None] * self.n + self.seats) * self.size + pos).reshape(-1)
        return flat

    def _rel(self, seat: Int) -> Int:
        """(k, n): ``seat`` relative to each observer o."""
        rel: Int = (seat[:, None] - self.seats) % self.n
        return rel

    def played(self, games: Int, seat: Int, card: Int, in_trick: bool) -> None:
        at = (games * (self.n * self.size))[:, None] + self.seat_row[seat] + card[:, None]
        mark(self.buffer, (at + self.off["played"]).reshape(-1), 1)
        if in_trick:
            mark(self.buffer, (at + self.off["trick"]).reshape(-1), 1)

    def void(self, games: Int, seat: Int, suit: Int) -> None:
        pos = self.off["voids"] + 4 * self._rel(seat) + suit[:, None]
        mark(self.buffer, self._flat(games, pos), 1)

    def trick_taken(self, games: Int, winner: Int, trick: Int) -> None:
        """The trick becomes the last trick and goes into the winner's captured cards."""
        span = 52 * self.n
        tr, last = self.off["trick"], self.off["last_trick"]
        fill(self.buffer, games, last, last + span, self.buffer[games, :, tr:tr + span])
        fill(self.buffer, games, tr, tr + span, 0)
        base = self.off["captured"] + 52 * self._rel(winner)
        for k in range(self.n):
            mark(self.buffer, self._flat(games, base + trick[:, k:k + 1]), 1)

    def pair(self, games: Int, name: str, actor: Int, targets: Int) -> None:
        """Seat ``actor`` doubled (or redoubled) the seats of mask ``targets``."""
        row = self.off[name] + self.n * self._rel(actor)
        for t in range(self.n):
            hit = (targets >> t) & 1 == 1
            if hit.any():
                col = self._rel(xp.full(int(hit.sum()), t))
                mark(self.buffer, self._flat(games[hit], row[hit] + col), 1)

    def gone_out(self, games: Int, seat: Int, place: Int) -> None:
        pos = self.off["out_order"] + self.n * self._rel(seat) + place[:, None]
        mark(self.buffer, self._flat(games, pos), 1)

    def per_seat(self, games: Int, name: str, values: Arr) -> None:
        """Write a per-seat field (values (k, n, w), absolute seats) into every observer's view."""
        width = values.shape[2] * self.n
        at = self.off[name]
        for o in range(self.n):
            self.buffer[games, o, at:at + width] = values[:, self.rot[o]].reshape(len(games), width)

    def owed(self, g: Games, games: Int) -> None:
        """Rewrite the doubles owed in the games ``games`` of ``g`` (a batch or a part of one)."""
        if not self.classic:
            return
        owed = np.maximum(0, 2 - g.dbl_count[games])
        owed[np.arange(len(games)), g.declarer[games]] = 0
        self.per_seat(g.ids[games], "owed", owed[:, :, None] > np.arange(2))

    def compulsory(self, g: Games, games: Int) -> None:
        forced = (g.forced[games][:, None] >> self.seats) & 1
        self.per_seat(g.ids[games], "compulsory", forced[:, :, None])

    def new_hand(self, g: Games, games: Int) -> None:
        """Clear the views of a new hand and write what it starts with."""
        fill(self.buffer, games, self.off["set_aside"], self.nbits, 0)
        aside = self.off["set_aside"]
        fill(self.buffer, games, aside, aside + 52, bits_of(g.set_aside[games])[:, None, :])
        left = (~g.used[games][:, :, None] >> np.arange(7)) & 1
        self.per_seat(games, "available", left)
        self.owed(g, games)

    def read(self, g: Games, t: Tables) -> Float:
        """The acting seat's view in every game: encode(state.observe(current))."""
        b, s, n = np.arange(self.batch), g.current, self.n
        bits: U8 = self.buffer[b, s]
        flat = bits.reshape(-1)
        base = b * self.size
        off = self.off
        c = xp.maximum(g.contract, 0)
        flat[base + off["phase"] + g.phase] = 1
        flat[base + off["current"]] = 1
        flat[base + off["declarer"] + (g.declarer - s) % n] = 1
        tricks_play = (g.phase == PLAY) & (g.contract >= 0) & (t.kind[c] == 0)
        spare = base + self.nbits  # a count entry, overwritten below: where a one-hot has no entry
        for name, at, valid in (("leader", (g.leader - s) % n, tricks_play),
                                ("last_leader", (g.last_leader - s) % n, g.last_leader >= 0),
                                ("contract", c, g.contract >= 0), ("trump", g.trump, g.trump >= 0),
                                ("start_rank", g.start, g.start >= 0), ("ace_extra", 0, g.ace_extra)):
            flat[xp.where(valid, base + off[name] + at, spare)] = 1
        bits[:, off["hand"]:off["hand"] + 52] = bits_of(g.hands[b, s])
        if (g.lo >= 0).any():
            bits[:, off["lines"]:off["lines"] + 52] = bits_of(_lines(g))
        out: Float = bits.astype(np.float32)  # the whole rows: a strided copy is four times slower
        # The per-seat counts turned relative together: one gather for the four of them.
        seats = xp.stack([count(g.hands), g.tricks_won, g.points, g.totals], axis=1).astype(np.float32)
        rel = seats.reshape(-1)[self.rot[s][:, None, :] + self.count_base]
        counts = [rel[:, 0], rel[:, 1], g.trick_no[:, None], rel[:, 2], rel[:, 3], g.hand_no[:, None]]
        out[:, self.nbits:] = xp.concatenate(counts, axis=1).astype(np.float32) * self.scales
        return out


def _lines(g: Games) -> U64:
    """Every card of each suit's line, from its low end to its high end."""
    lines = xp.zeros(g.batch, dtype=np.uint64)
    for s in range(4):
        lo, hi = g.lo[:, s], g.hi[:, s]
        run = ((2 << xp.maximum(hi, 0)) - (1 << xp.maximum(lo, 0))).astype(np.uint64) << np.uint64(13 * s)
        lines = lines | xp.where(lo >= 0, run, np.uint64(0))
    spans: U64 = lines
    return spans
