"""A seat's Observation as a flat float32 array, and back into names: what a network sees of a game.

Every seat is counted from the observer: relative seat ``r`` is the seat ``r`` places to the
left (``0`` is the observer, ``1`` plays next). The array is a block of 0/1 bits followed by a
few scaled counts; :func:`layout` gives each field's offset and shape, docs/RL.md describes
them one by one, and :func:`decode` turns an array back into cards, seats and contract ids.

>>> from barbu.engine.game import Game
>>> from barbu.engine.state import State
>>> s = State(Game.family(3), seed=5)
>>> _ = s.deal_random()
>>> x = encode(s.observe(1))
>>> x.shape == (obs_size(s.game),), x.dtype.name
(True, 'float32')
>>> view = decode(x, s.game, seat=1)
>>> view["phase"], view["current"] == s.current, len(view["hand"])
('choose', True, 17)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from barbu.engine.cards import CARD_BITS, RANKS, SUITS, card_str
from barbu.engine.contracts import Kind
from barbu.engine.doubling import split_doubles
from barbu.engine.game import PASS, Game
from barbu.engine.hand import Phase
from barbu.engine.observation import Observation

POINTS_SCALE = 100.0  # contract points of the hand in progress, divided by this
TOTALS_SCALE = 1000.0  # running totals of the game, divided by this
NUM_CONTRACTS = 7
OWED_LEVELS = 2  # a classic player owes a declarer at most two doubles

Array = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Field:
    """One named part of the array: ``size`` entries from ``offset``, read as ``shape``."""

    name: str
    offset: int
    shape: tuple[int, ...]
    scale: float  # 0: bits; else the entries are counts divided by this
    doc: str

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def end(self) -> int:
        return self.offset + self.size


def _fields(game: Game) -> list[tuple[str, tuple[int, ...], float, str]]:
    n, size = game.players, float(game.hand_size)
    return [
        ("phase", (len(Phase),), 0, "one-hot: deal, choose, trump, start_rank, double, redouble, "
                                    "play, game_over"),
        ("current", (n,), 0, "one-hot relative seat to act (none at the end of the game)"),
        ("declarer", (n,), 0, "one-hot relative seat of the declarer (family: the chooser)"),
        ("leader", (n,), 0, "one-hot relative seat that led the trick in progress"),
        ("last_leader", (n,), 0, "one-hot relative seat that led the last finished trick"),
        ("contract", (NUM_CONTRACTS,), 0, "one-hot contract index of the rule set (none before "
                                          "it is chosen)"),
        ("trump", (4,), 0, "one-hot trump suit S H D C (Trumps only)"),
        ("start_rank", (13,), 0, "one-hot starting rank 2..A (Dominoes once named, Réussite "
                                 "once the first card is placed)"),
        ("ace_extra", (1,), 0, "Réussite: the player to act has just placed an ace"),
        ("hand", (52,), 0, "the observer's cards"),
        ("set_aside", (52,), 0, "family: the cards left over by the deal, face up"),
        ("lines", (52,), 0, "Dominoes/Réussite layout: the cards of each suit's line, from its "
                            "low end to its high end"),
        ("played", (n, 52), 0, "per relative seat, the cards it has played in this hand"),
        ("trick", (n, 52), 0, "per relative seat, its card in the trick in progress"),
        ("last_trick", (n, 52), 0, "per relative seat, its card in the last finished trick"),
        ("captured", (n, 52), 0, "per relative seat, every card in the tricks it has taken"),
        ("voids", (n, 4), 0, "per relative seat, suits it has shown it lacks (did not follow; "
                             "in Trumps, did not trump either)"),
        ("available", (n, NUM_CONTRACTS), 0, "per relative seat, the contracts it has not yet "
                                             "chosen"),
        ("doubled", (n, n), 0, "row a, column b: relative seat a doubled relative seat b"),
        ("redoubled", (n, n), 0, "row a, column b: relative seat a redoubled relative seat b"),
        ("compulsory", (n,), 0, "relative seats for whom doubling the declarer is compulsory now"),
        ("owed", (n, OWED_LEVELS), 0, "per relative seat, doubles still owed to this declarer, "
                                      "as a thermometer (at least 1, 2)"),
        ("out_order", (n, n), 0, "row: relative seat; column k: it went out in place k "
                                 "(Dominoes/Réussite)"),
        ("hand_sizes", (n,), size, f"per relative seat, cards held / {game.hand_size}"),
        ("tricks_won", (n,), size, f"per relative seat, tricks taken / {game.hand_size}"),
        ("trick_no", (1,), size, f"tricks finished in this hand / {game.hand_size}"),
        ("points", (n,), POINTS_SCALE, f"per relative seat, contract points so far in this "
                                       f"hand / {POINTS_SCALE:g}"),
        ("totals", (n,), TOTALS_SCALE, f"per relative seat, game total / {TOTALS_SCALE:g}"),
        ("hand_no", (1,), float(game.num_hands), f"hands finished / {game.num_hands}"),
    ]


class Layout:
    """The fields of the array for one table, with the tables :func:`encode` reads."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.fields: dict[str, Field] = {}
        offset = 0
        for name, shape, scale, doc in _fields(game):
            f = Field(name, offset, shape, scale, doc)
            self.fields[name] = f
            offset = f.end
        self.size = offset
        self.nbits = self.fields["hand_sizes"].offset  # every field before the counts is bits
        self.nbytes = (self.nbits + 7) // 8
        self.off = {name: f.offset for name, f in self.fields.items()}
        n = game.players
        self.rotations = tuple(tuple((seat + r) % n for r in range(n)) for seat in range(n))
        # row_bits[seat][a][m]: seat a's row of an n × n seat matrix, for its targets m, rotated
        # to the observer ``seat`` (a relative seat's row, and relative columns).
        self.row_bits = tuple(tuple(tuple(
            sum(1 << (n * ((a - seat) % n) + (t - seat) % n) for t in range(n) if m >> t & 1)
            for m in range(1 << n)) for a in range(n)) for seat in range(n))
        self.contract_index = {c.id: i for i, c in enumerate(game.contracts)}
        counts = [f for f in self.fields.values() if f.scale]
        self.inverse_scales = np.array([1 / f.scale for f in counts for _ in range(f.size)],
                                       dtype=np.float32)


@cache
def layout(game: Game) -> Layout:
    """The array layout of a table (the same for every seat)."""
    return Layout(game)


def obs_size(game: Game) -> int:
    """The length of an encoded observation at this table."""
    return layout(game).size


OWED_BITS = (0b00, 0b01, 0b11)  # doubles owed (0, 1, 2) as a thermometer
# LINE_BITS[lo][hi]: the 13-bit rank mask from lo to hi, both included.
LINE_BITS = tuple(tuple(((2 << hi) - (1 << lo)) if lo <= hi else 0 for hi in range(13))
                  for lo in range(13))


def _history_bits(obs: Observation) -> tuple[list[int], list[int]]:
    """Per seat, the cards it has played this hand and the suits it has shown it lacks."""
    n = obs.game.players
    played, voids = [0] * n, [0] * n
    c = obs.contract
    if c is None or c.kind != Kind.TRICKS:
        for s, a in obs.history:
            if a != PASS:
                played[s] |= CARD_BITS[a]
        return played, voids
    trump = obs.trump if obs.trump is not None else -1
    led = -1
    for i, (s, a) in enumerate(obs.history):
        played[s] |= CARD_BITS[a]
        if i % n == 0:
            led = a // 13
        elif a // 13 != led:
            voids[s] |= 1 << led
            if trump >= 0 and a // 13 != trump:
                voids[s] |= 1 << trump  # could not follow and did not trump, so holds none
    return played, voids


def _seat_bits(obs: Observation, lay: Layout) -> int:
    """The one-hot seats, contract, trump, rank and flags."""
    off, seat, n = lay.off, obs.seat, obs.game.players
    b = 1 << (off["phase"] + obs.phase)
    if obs.current >= 0:
        b |= 1 << (off["current"] + (obs.current - seat) % n)
    b |= 1 << (off["declarer"] + (obs.declarer - seat) % n)
    if obs.phase == Phase.PLAY and obs.contract is not None and obs.contract.kind == Kind.TRICKS:
        b |= 1 << (off["leader"] + (obs.leader - seat) % n)
    if obs.last_trick:
        b |= 1 << (off["last_leader"] + (obs.last_trick[0][0] - seat) % n)
    if obs.contract is not None:
        b |= 1 << (off["contract"] + lay.contract_index[obs.contract.id])
    if obs.trump is not None:
        b |= 1 << (off["trump"] + obs.trump)
    if obs.start_rank is not None:
        b |= 1 << (off["start_rank"] + obs.start_rank)
    if obs.ace_extra:
        b |= 1 << off["ace_extra"]
    return b


def _card_bits(obs: Observation, lay: Layout) -> int:
    """The observer's hand, the set-aside cards, the layout and the per-seat card blocks."""
    off, seat, n = lay.off, obs.seat, obs.game.players
    rot = lay.rotations[seat]
    b = obs.hand << off["hand"] | obs.set_aside << off["set_aside"]
    lines = 0
    for s, (lo, hi) in enumerate(obs.lines):
        if lo >= 0:
            lines |= LINE_BITS[lo][hi] << (13 * s)
    b |= lines << off["lines"]
    played, voids = _history_bits(obs)
    at_played, at_captured, at_voids = off["played"], off["captured"], off["voids"]
    at_avail = off["available"]
    for r, s in enumerate(rot):
        b |= (played[s] << (at_played + 52 * r) | obs.captured[s] << (at_captured + 52 * r)
              | voids[s] << (at_voids + 4 * r) | obs.available[s] << (at_avail + NUM_CONTRACTS * r))
    for block, trick in (("trick", obs.trick), ("last_trick", obs.last_trick)):
        at = off[block]
        for s, card in trick:
            b |= 1 << (at + 52 * ((s - seat) % n) + card)
    return b


def _doubling_bits(obs: Observation, lay: Layout) -> int:
    """Doubles, redoubles, the compulsory doubles, the doubles owed and the order of going out."""
    off, seat, n = lay.off, obs.seat, obs.game.players
    b = 0
    if obs.doubles:
        rows = lay.row_bits[seat]
        doubled, redoubled = split_doubles(obs.doubles, obs.declarer, n)
        b |= sum(rows[a][m] for a, m in enumerate(doubled)) << off["doubled"]
        b |= sum(rows[a][m] for a, m in enumerate(redoubled)) << off["redoubled"]
    for s in obs.compulsory:
        b |= 1 << (off["compulsory"] + (s - seat) % n)
    if any(obs.owed):
        for s, owed in enumerate(obs.owed):
            b |= OWED_BITS[owed] << (off["owed"] + OWED_LEVELS * ((s - seat) % n))
    for place, s in enumerate(obs.out_order):
        b |= 1 << (off["out_order"] + n * ((s - seat) % n) + place)
    return b


def encode(obs: Observation) -> Array:
    """The observation as a float32 array of :func:`obs_size` entries (see :func:`layout`)."""
    lay = layout(obs.game)
    bits = _seat_bits(obs, lay) | _card_bits(obs, lay) | _doubling_bits(obs, lay)
    out = np.empty(lay.size, dtype=np.float32)
    raw = np.frombuffer(bits.to_bytes(lay.nbytes, "little"), dtype=np.uint8)
    out[:lay.nbits] = np.unpackbits(raw, count=lay.nbits, bitorder="little")
    rot = lay.rotations[obs.seat]
    counts = [obs.hand_sizes[s] for s in rot] + [obs.tricks_won[s] for s in rot] + [obs.trick_no]
    counts += [obs.points[s] for s in rot] + [obs.totals[s] for s in rot] + [obs.hand_no]
    out[lay.nbits:] = counts
    out[lay.nbits:] *= lay.inverse_scales
    return out


# -- decoding -----------------------------------------------------------------


def _cards(bits: Array) -> list[str]:
    return [card_str(int(c)) for c in np.flatnonzero(bits)]


def _one(bits: Array) -> int | None:
    hot = np.flatnonzero(bits)
    return int(hot[0]) if len(hot) else None


class _Reader:
    """Reads the fields of one array, turning relative seats into seats from ``seat``."""

    def __init__(self, array: Array, game: Game, seat: int) -> None:
        self.lay, self.array, self.seat, self.n = layout(game), array, seat, game.players
        if array.shape != (self.lay.size,):
            raise ValueError(f"expected an array of {self.lay.size} entries, not {array.shape}")

    def raw(self, name: str) -> Array:
        f = self.lay.fields[name]
        return self.array[f.offset:f.end].reshape(f.shape)

    def seat_of(self, relative: int) -> int:
        return (relative + self.seat) % self.n

    def one_seat(self, name: str) -> int | None:
        r = _one(self.raw(name))
        return None if r is None else self.seat_of(r)

    def by_seat(self, name: str) -> list[Array]:
        """The rows of a per-seat field, indexed by seat."""
        rows = self.raw(name)
        return [rows[(s - self.seat) % self.n] for s in range(self.n)]

    def counts(self, name: str) -> list[int]:
        f = self.lay.fields[name]
        values = [round(float(v) * f.scale) for v in self.raw(name)]
        return [values[(s - self.seat) % self.n] for s in range(self.n)] if f.shape == (self.n,) \
            else values

    def pairs(self, name: str) -> list[list[int]]:
        m = self.raw(name)
        return sorted([self.seat_of(int(a)), self.seat_of(int(b))] for a, b in np.argwhere(m))

    def trick(self, block: str, leader: str) -> list[list[object]]:
        rows, first = self.raw(block), _one(self.raw(leader))
        if first is None:
            return []
        out: list[list[object]] = []
        for k in range(self.n):
            card = _one(rows[(first + k) % self.n])
            if card is not None:
                out.append([self.seat_of(first + k), card_str(card)])
        return out


def _lines(bits: Array) -> list[list[str] | None]:
    out: list[list[str] | None] = []
    for s in range(4):
        hot = np.flatnonzero(bits[13 * s:13 * s + 13])
        out.append([RANKS[int(hot[0])], RANKS[int(hot[-1])]] if len(hot) else None)
    return out


def decode(array: Array, game: Game, seat: int = 0) -> dict[str, object]:
    """An encoded observation in names: cards as in RECORD.md, seats counted from ``seat``.

    With the observer's own seat, every seat is the engine's; with the default ``0``, seats
    stay relative (``1`` is the observer's left). Lists per seat are indexed by seat.
    """
    rd = _Reader(array, game, seat)
    phase, contract = _one(rd.raw("phase")), _one(rd.raw("contract"))
    trump, rank = _one(rd.raw("trump")), _one(rd.raw("start_rank"))
    hand_no, trick_no = rd.counts("hand_no"), rd.counts("trick_no")
    out_order = sorted((int(k), rd.seat_of(int(r))) for r, k in np.argwhere(rd.raw("out_order")))
    return {
        "phase": Phase(phase).name.lower() if phase is not None else None,
        "current": rd.one_seat("current"), "declarer": rd.one_seat("declarer"),
        "leader": rd.one_seat("leader"),
        "contract": game.contracts[contract].id if contract is not None else None,
        "trump": SUITS[trump] if trump is not None else None,
        "start_rank": RANKS[rank] if rank is not None else None,
        "ace_extra": bool(rd.raw("ace_extra")[0]),
        "hand": _cards(rd.raw("hand")), "set_aside": _cards(rd.raw("set_aside")),
        "lines": _lines(rd.raw("lines")),
        "played": [_cards(row) for row in rd.by_seat("played")],
        "trick": rd.trick("trick", "leader"), "last_trick": rd.trick("last_trick", "last_leader"),
        "captured": [_cards(row) for row in rd.by_seat("captured")],
        "voids": ["".join(SUITS[int(x)] for x in np.flatnonzero(row)) for row in rd.by_seat("voids")],
        "available": [[game.contracts[int(i)].id for i in np.flatnonzero(row)]
                      for row in rd.by_seat("available")],
        "doubles": rd.pairs("doubled"), "redoubles": rd.pairs("redoubled"),
        "compulsory": sorted(rd.seat_of(int(r)) for r in np.flatnonzero(rd.raw("compulsory"))),
        "owed": [int(row.sum()) for row in rd.by_seat("owed")],
        "out_order": [s for _, s in out_order],
        "hand_sizes": rd.counts("hand_sizes"), "tricks_won": rd.counts("tricks_won"),
        "trick_no": trick_no[0], "points": rd.counts("points"), "totals": rd.counts("totals"),
        "hand_no": hand_no[0],
    }
