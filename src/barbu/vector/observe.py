"""The acting seat's observation in every game, as barbu.env.encoding lays it out, built from arrays."""

from __future__ import annotations

import numpy as np

from barbu.engine.doubling import REQUIRED_DOUBLES
from barbu.engine.game import Game
from barbu.env.encoding import layout
from barbu.vector.backend import Arr, Bool, Float, Int, onehot, rotate, xp
from barbu.vector.games import PLAY, Games
from barbu.vector.legal import RANK_OF, SUIT
from barbu.vector.tables import Tables


def _seat(x: Int, seat: Int, n: int) -> Int:
    """Seats relative to the observer (-1 stays -1: no seat)."""
    rel: Int = xp.where(x >= 0, (x - seat) % n, -1)
    return rel


def _lines(g: Games) -> Bool:
    lo, hi = g.lo[:, SUIT], g.hi[:, SUIT]
    on: Bool = (lo >= 0) & (lo <= RANK_OF) & (hi >= RANK_OF)
    return on


def _square(m: Bool, seat: Int) -> Bool:
    """An (B, n, n) seat-by-seat matrix with both axes relative to the observer."""
    n = m.shape[1]
    order = (seat[:, None] + np.arange(n)) % n
    by_rows = rotate(m, seat)
    both: Bool = xp.take_along_axis(by_rows, xp.broadcast_to(order[:, None, :], by_rows.shape), axis=2)
    return both


def _owed(g: Games, classic: bool) -> Bool:
    if not classic:
        return xp.zeros((g.batch, g.n, 2), dtype=np.bool_)  # type: ignore[no-any-return]
    owed = xp.maximum(0, REQUIRED_DOUBLES - g.dbl_count)
    owed = xp.where(np.arange(g.n) == g.declarer[:, None], 0, owed)
    levels: Bool = owed[:, :, None] > np.arange(2)
    return levels


def bit_fields(g: Games, t: Tables, classic: bool) -> dict[str, Arr]:
    """The 0/1 fields of each acting seat's view, absolute seats already turned relative."""
    s, n = g.current, g.n
    c = xp.maximum(g.contract, 0)
    tricks_play = (g.phase == PLAY) & (g.contract >= 0) & (t.kind[c] == 0)
    return {
        "phase": onehot(g.phase, 8), "current": onehot(xp.zeros_like(s), n),
        "declarer": onehot(_seat(g.declarer, s, n), n),
        "leader": onehot(xp.where(tricks_play, _seat(g.leader, s, n), -1), n),
        "last_leader": onehot(_seat(g.last_leader, s, n), n),
        "contract": onehot(g.contract, 7), "trump": onehot(g.trump, 4),
        "start_rank": onehot(g.start, 13), "ace_extra": g.ace_extra[:, None],
        "hand": xp.take_along_axis(g.hands, s[:, None, None], axis=1)[:, 0],
        "set_aside": g.set_aside, "lines": _lines(g),
        "played": rotate(g.played, s), "trick": onehot(rotate(g.trick, s), 52),
        "last_trick": onehot(rotate(g.last_trick, s), 52), "captured": rotate(g.captured, s),
        "voids": rotate(g.voids, s), "available": ~rotate(g.used, s),
        "doubled": _square(g.doubled, s), "redoubled": _square(g.redoubled, s),
        "compulsory": rotate(g.forced, s), "owed": rotate(_owed(g, classic), s),
        "out_order": onehot(rotate(g.out, s), n),
    }


def count_fields(g: Games) -> dict[str, Arr]:
    """The counts of each acting seat's view, before scaling."""
    s = g.current
    return {
        "hand_sizes": rotate(g.hands.sum(axis=2), s), "tricks_won": rotate(g.tricks_won, s),
        "trick_no": g.trick_no[:, None], "points": rotate(g.points, s),
        "totals": rotate(g.totals, s), "hand_no": g.hand_no[:, None],
    }


def observation(g: Games, t: Tables, game: Game) -> Float:
    """The (B, obs_size) float32 views: encode(state.observe(current)) for every game."""
    lay = layout(game)
    bits, counts = bit_fields(g, t, game.is_classic), count_fields(g)
    parts = [bits[name].reshape(g.batch, -1) for name in lay.fields if name in bits]
    flags = xp.concatenate(parts, axis=1).astype(np.float32)
    raw = xp.concatenate([counts[name].reshape(g.batch, -1) for name in lay.fields if name in counts],
                         axis=1).astype(np.float32)
    out: Float = xp.concatenate([flags, raw * lay.inverse_scales], axis=1)
    return out
