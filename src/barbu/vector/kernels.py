"""The compiled backend (backend="numba", the ``fast`` extra): trick play, masks and views as loops per game.

Each kernel reads and writes the same arrays as the NumPy code (the Games fields, the views'
byte buffer) one game at a time, in a single compiled pass over the batch instead of hundreds
of whole-batch NumPy operations. The NumPy code stays the reference (and the model for a JAX
port); tests/test_vector.py checks both backends against barbu.env at every step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba
import numpy as np
import numpy.typing as npt
from numba import literal_unroll

from barbu.vector.backend import I64, U32, U64, Bool, Float, Int

F = TypeVar("F", bound=Callable[..., Any])
State = tuple[Any, ...]  # the games' fields that read() takes, in the order of compiled.READ_STATE
Tab = tuple[Any, ...]  # the tables' arrays that read() takes

U1 = np.uint64(1)
U0 = np.uint64(0)
KH = 24
HEARTS = np.uint64(((1 << 13) - 1) << 13)
FULL = np.uint64((1 << 52) - 1)


NO_NRT: dict[str, Any] = {"_nrt": False}  # numba's target option (not in its typed signature)


def _jit(f: F) -> F:
    """Compile ``f`` without the Python interpreter (cached on disk beside the module), and without
    numba's reference counting (``_nrt=False``): the kernels take every array they use as an
    argument and allocate none, and the counts numba kept of the arrays taken out of the state
    tuples and of each row's views cost up to 200 ns a game (the rules of the phases other than
    trick play went from 0.2 ms to 0.01-0.02 ms a step at B = 4,096 without them).
    """
    return cast(F, numba.njit(cache=True, nogil=True, **NO_NRT)(f))


def _allocating(f: F) -> F:
    """Compile a kernel that makes arrays of its own (the deals'), with numba's reference counts."""
    return cast(F, numba.njit(cache=True, nogil=True)(f))


def _inline(f: F) -> F:
    """Compile ``f`` into its callers (the small helpers of the hot loops)."""
    return cast(F, numba.njit(cache=True, nogil=True, inline="always", **NO_NRT)(f))


@_jit
def _suit_set(s: int) -> np.uint64:
    return np.uint64(0x1FFF) << np.uint64(13 * s)


@_jit
def _bit(card: int) -> np.uint64:
    return U1 << np.uint64(card)


@_jit
def _card(suit: int, rank: int) -> np.uint64:
    if rank < 0 or rank > 12:
        return U0
    return U1 << np.uint64(13 * suit + rank)


@_jit
def _smear(x: np.uint64) -> np.uint64:
    """Every bit at or below the highest bit of ``x``."""
    for shift in (1, 2, 4, 8, 16, 32):
        x = x | (x >> np.uint64(shift))
    return x


@_jit
def _above(cards: np.uint64, in_trick: np.uint64) -> np.uint64:
    better = cards & ~_smear(in_trick)
    return better if better != U0 else cards


@_jit
def _fitting(lo: Int, hi: Int, start: int) -> np.uint64:
    if start < 0:
        return FULL
    fits = U0
    for s in range(4):
        if lo[s] < 0:
            fits |= _card(s, start)
        else:
            fits |= _card(s, lo[s] - 1 if lo[s] > 0 else -1) | _card(s, hi[s] + 1 if hi[s] >= 0 else -1)
    return fits


@_jit
def _relative(seats: int, actor: int, n: int) -> int:
    bits = 0
    for k in range(1, n):
        bits |= ((seats >> ((actor + k) % n)) & 1) << (k - 1)
    return bits


@_jit
def _leads(lead: int, trick_no: int, hand: np.uint64) -> np.uint64:
    no_heart = lead == 1 or (lead == 3 and trick_no == 0)
    others, not_king = hand & ~HEARTS, hand & ~_bit(KH)
    out = others if (no_heart and others != U0) else hand
    return not_king if (lead == 2 and not_king != U0) else out


@_jit
def _follows(b: int, c: int, hand: np.uint64, trick: Int, leader: Int, trump: Int, trick_cards: U64,
             overtrump: Bool, king_first: Bool, trumps_c: Bool) -> np.uint64:
    led = trick[b, leader[b]] // 13
    led_set = _suit_set(led)
    tr = trump[b]
    trump_set = _suit_set(tr) if tr >= 0 else U0
    follow, trumps = hand & led_set, hand & trump_set
    has_king = (hand & _bit(KH)) != U0
    out, beat = follow, trumps
    if overtrump[c]:
        if led == tr:
            out = _above(follow, trick_cards[b] & led_set)
        beat = _above(trumps, trick_cards[b] & trump_set)
    if king_first[c] and led == 1 and has_king:
        out = _bit(KH)
    if follow != U0:
        return out
    if trumps_c[c] and trumps != U0:
        return beat
    return _bit(KH) if (king_first[c] and has_king) else hand


@_jit
def _doubles(mask: Bool, b: int, n: int, cur: int, declarer: int, doubled: Int, forced: int,
             positive: bool) -> None:
    by = 0
    for a in range(n):
        by |= ((doubled[b, a] >> cur) & 1) << a
    others = ((1 << n) - 1) & ~(1 << cur) & ~by
    targets = (1 << declarer) if positive else others
    allowed = _relative(targets, cur, n)
    must = (1 << ((declarer - cur) % n - 1)) if (forced >> cur) & 1 == 1 else 0
    re = _relative(by, cur, n)
    for m in range(8):
        mask[b, 77 + m] = (m & ~allowed) == 0 and (m & must) == must
        mask[b, 85 + m] = (m & ~re) == 0


def _legal_mask(mask: Bool, phase: Int, current: Int, declarer: Int, contract: Int, hands: U64, trick: Int,
               trick_len: Int, leader: Int, trump: Int, trick_cards: U64, trick_no: Int, lo: Int, hi: Int,
               start: Int, ace_extra: Bool, used: Int, set_aside: U64, doubled: Int, forced: Int,
               kind: Int, lead: Int, positive: Bool, trumps_c: Bool, overtrump: Bool, king_first: Bool,
               king_idx: int) -> None:
    """Write every game's (93,) row of legal ids into ``mask``, as legal.legal_mask does."""
    n = hands.shape[1]
    for b in range(mask.shape[0]):
        mask[b, :] = False
        ph, cur, c = phase[b], current[b], max(contract[b], 0)
        if ph == 6:
            hand = hands[b, cur]
            if kind[c] != 0:
                legal = hand & _fitting(lo[b], hi[b], start[b])
                mask[b, 52] = legal == U0 or ace_extra[b]
            elif trick_len[b] == 0:
                legal = _leads(lead[c], trick_no[b], hand)
            else:
                legal = _follows(b, c, hand, trick, leader, trump, trick_cards, overtrump, king_first,
                                 trumps_c)
            for k in range(52):
                mask[b, k] = (legal >> np.uint64(k)) & U1 == U1
        elif ph == 1:
            left = ~used[b, declarer[b]]
            if king_idx >= 0 and (set_aside[b] & _bit(KH)) != U0:
                left &= ~(1 << king_idx)
            for i in range(7):
                mask[b, 53 + i] = (left >> i) & 1 == 1
        elif ph == 2:
            mask[b, 60:64] = True
        elif ph == 3:
            mask[b, 64:77] = True
        elif (ph == 4 or ph == 5) and king_idx < 0:
            _doubles(mask, b, n, cur, declarer[b], doubled, forced[b], positive[c])
            if ph == 4:
                mask[b, 85:93] = False
            else:
                mask[b, 77:85] = False


# BYTE_BITS[v]: the eight bits of byte v, lowest first, as float32 (eight entries a look-up).
BYTE_BITS = ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(np.float32)


@_jit
def _blocks(dst: Float, sets: U64) -> None:
    """The card blocks at the start of ``dst``: 52 entries a set, one after another."""
    # Indices that cannot be negative spare numba's wraparound test on each of the ~1,000 writes.
    for k in range(sets.shape[0]):
        x = np.int64(sets[k])
        for j in range(6):
            row = BYTE_BITS[(x >> (8 * j)) & 255]
            for i in range(8):
                dst[52 * k + 8 * j + i] = row[i]
        row = BYTE_BITS[(x >> 48) & 255]
        for i in range(4):
            dst[52 * k + 48 + i] = row[i]


@_inline
def _rel(seat: int, observer: int, n: int) -> int:
    """``seat`` counted from ``observer`` (both in 0…n-1)."""
    return seat - observer if seat >= observer else seat - observer + n


@_inline
def _lines(lo: Int, hi: Int) -> np.uint64:
    lines = U0
    for su in range(4):
        if lo[su] >= 0:
            run = (np.uint64(2) << np.uint64(max(hi[su], 0))) - (U1 << np.uint64(max(lo[su], 0)))
            lines |= run << np.uint64(13 * su)
    return lines


def _read(out: Float, s: State, t: Tab, off: Int, nbits: int, scales: Float, classic: bool,
          sets: U64) -> None:
    """Write every acting seat's observation into ``out``: encode(state.observe(current)).

    ``s``: the fields of compiled.READ_STATE; ``off``: the offsets of compiled.READ_OFFSETS, in
    their order; ``sets``: room for the 3 + 4n card sets of a row. Each entry is written once:
    the card blocks (hand … captured, contiguous) whole, zeros included, and only the small
    fields around them cleared first, since clearing the whole row and then writing the cards
    over it cost a third more at B = 1,024. The parts of a row are compiled into this loop.
    """
    current, hands = s[1], s[9]
    n = hands.shape[1]
    for b in range(out.shape[0]):
        me, dst = current[b], out[b]
        dst[:off[9]] = 0
        dst[off[16]:nbits] = 0
        _read_flags(dst, b, me, n, s, t, off)
        _read_cards(dst, b, me, n, s, off, sets)
        _read_seats(dst, b, me, n, s, off, classic)
        _read_counts(dst, b, me, n, s, nbits, scales)


@_inline
def _read_flags(dst: Float, b: int, me: int, n: int, s: State, t: Tab, off: Int) -> None:
    """The one-hot fields of game ``b`` before its card blocks: phase, seats, contract, trump…"""
    # The fields of s by their places in compiled.READ_STATE (constant slices: numba types each).
    phase, _, declarer, leader, last_leader, contract, trump, start, ace_extra = s[:9]
    kind = t[0]
    c = max(contract[b], 0)
    dst[off[0] + phase[b]] = 1
    dst[off[1]] = 1
    dst[off[2] + _rel(declarer[b], me, n)] = 1
    if phase[b] == 6 and contract[b] >= 0 and kind[c] == 0:
        dst[off[3] + _rel(leader[b], me, n)] = 1
    if last_leader[b] >= 0:
        dst[off[4] + _rel(last_leader[b], me, n)] = 1
    if contract[b] >= 0:
        dst[off[5] + c] = 1
    if trump[b] >= 0:
        dst[off[6] + trump[b]] = 1
    if start[b] >= 0:
        dst[off[7] + start[b]] = 1
    if ace_extra[b]:
        dst[off[8]] = 1


@_inline
def _read_cards(dst: Float, b: int, me: int, n: int, s: State, off: Int, sets: U64) -> None:
    """The card blocks of game ``b``, seen from ``me``: hand, set aside, layout, then by seat."""
    hands, lo, hi = s[9:12]
    set_aside, played, captured, trick, last_trick = s[17:22]
    sets[0], sets[1], sets[2] = hands[b, me], set_aside[b], _lines(lo[b], hi[b])
    for r in range(n):
        p = me + r if me + r < n else me + r - n
        sets[3 + r], sets[3 + n + r] = played[b, p], _one(trick[b, p])
        sets[3 + 2 * n + r], sets[3 + 3 * n + r] = _one(last_trick[b, p]), captured[b, p]
    _blocks(dst[off[9]:], sets)


@_inline
def _read_seats(dst: Float, b: int, me: int, n: int, s: State, off: Int, classic: bool) -> None:
    """The fields of each seat of game ``b`` after the card blocks: voids, contracts left, doubles…"""
    declarer = s[2]
    voids, used, doubled, redoubled, forced, dbl_count, out_place = s[22:]
    for r in range(n):
        p = me + r if me + r < n else me + r - n
        for k in range(4):
            if (voids[b, p] >> k) & 1:
                dst[off[16] + 4 * r + k] = 1
        for k in range(7):
            if not (used[b, p] >> k) & 1:
                dst[off[17] + 7 * r + k] = 1
        if doubled[b, p] or redoubled[b, p]:
            for q in range(n):
                target = me + q if me + q < n else me + q - n
                dst[off[18] + n * r + q] = (doubled[b, p] >> target) & 1
                dst[off[19] + n * r + q] = (redoubled[b, p] >> target) & 1
        if (forced[b] >> p) & 1:
            dst[off[20] + r] = 1
        if classic and p != declarer[b]:
            owed = 2 - dbl_count[b, p]
            dst[off[21] + 2 * r] = owed >= 1
            dst[off[21] + 2 * r + 1] = owed >= 2
        if out_place[b, p] >= 0:
            dst[off[22] + n * r + out_place[b, p]] = 1


@_inline
def _read_counts(dst: Float, b: int, me: int, n: int, s: State, at: int, scales: Float) -> None:
    """The scaled counts of game ``b`` from entry ``at`` on: cards held, tricks, points, totals…"""
    hands = s[9]
    tricks_won, points, totals, trick_no, hand_no = s[12:17]
    for r in range(n):
        p = me + r if me + r < n else me + r - n
        dst[at + r] = np.float32(_popcount(hands[b, p])) * scales[r]
        dst[at + n + r] = np.float32(tricks_won[b, p]) * scales[n + r]
        dst[at + 2 * n + 1 + r] = np.float32(points[b, p]) * scales[2 * n + 1 + r]
        dst[at + 3 * n + 1 + r] = np.float32(totals[b, p]) * scales[3 * n + 1 + r]
    dst[at + 2 * n] = np.float32(trick_no[b]) * scales[2 * n]
    dst[at + 4 * n + 1] = np.float32(hand_no[b]) * scales[4 * n + 1]


@_inline
def _one(card: int) -> np.uint64:
    """The set of ``card`` alone, or the empty set for -1 (no card)."""
    return U1 << np.uint64(card) if card >= 0 else U0


@_inline
def _popcount(x: np.uint64) -> int:
    k = 0
    while x != U0:
        x &= x - U1
        k += 1
    return k


def _play_tricks(ended: Bool, action: Int, phase: Int, contract: Int, current: Int, hands: U64, trick: Int,
                trick_len: Int, trick_cards: U64, leader: Int, last_leader: Int, trump: Int, trick_no: Int,
                points: Int, tricks_won: Int, played: U64, captured: U64, last_trick: Int, voids: Int,
                kind: Int, per_trick: Int, card_points: Int, last_bonus: Int, ends: U64, size: int) -> None:
    """Play each trick game's card (phase PLAY, a trick contract) as Rules._play_trick does.

    ``ended`` is set for the games whose hand ends with this trick; every other game is left as it was.
    """
    n = hands.shape[1]
    for b in range(ended.shape[0]):
        c = max(contract[b], 0)
        if phase[b] != 6 or kind[c] != 0:
            continue
        cur, card = current[b], action[b]
        one = _bit(card)
        hands[b, cur] &= ~one
        played[b, cur] |= one
        suit = card // 13
        if trick_len[b] > 0:
            led = trick[b, leader[b]] // 13
            if suit != led:
                voids[b, cur] |= 1 << led
                if trump[b] >= 0 and suit != trump[b]:
                    voids[b, cur] |= 1 << trump[b]
        trick[b, cur] = card
        trick_cards[b] |= one
        trick_len[b] += 1
        if trick_len[b] < n:
            current[b] = (cur + 1) % n
            continue
        ended[b] = _finish(b, c, n, trick, leader, last_leader, trump, trick_no, points, tricks_won,
                           hands, trick_cards, trick_len, current, captured, last_trick, per_trick,
                           card_points, last_bonus, ends, size)


@_jit
def _finish(b: int, c: int, n: int, trick: Int, leader: Int, last_leader: Int, trump: Int, trick_no: Int,
            points: Int, tricks_won: Int, hands: U64, trick_cards: U64, trick_len: Int, current: Int,
            captured: U64, last_trick: Int, per_trick: Int, card_points: Int, last_bonus: Int, ends: U64,
            size: int) -> bool:
    """Score game ``b``'s full trick, as Rules._finish_trick does; whether the hand ends."""
    led = trick[b, leader[b]] // 13
    winner, best, pts = 0, -1, per_trick[c] + last_bonus[c, trick_no[b]]
    for k in range(n):
        card = trick[b, k]
        key = (200 if card // 13 == trump[b] else 100 if card // 13 == led else 0) + card % 13
        if key > best:
            winner, best = k, key
        pts += card_points[c, card]
    points[b, winner] += pts
    tricks_won[b, winner] += 1
    held = U0
    for k in range(n):
        captured[b, winner] |= _bit(trick[b, k])
        last_trick[b, k] = trick[b, k]
        trick[b, k] = -1
        held |= hands[b, k]
    last_leader[b] = leader[b]
    trick_cards[b] = U0
    trick_len[b] = 0
    trick_no[b] += 1
    leader[b] = current[b] = winner
    e = ends[c]
    return bool(trick_no[b] == size or (e != U0 and (held & e) == U0))


def _rest(ended: Bool, action: Int, s: State, t: Tab, classic: bool, per: int, required: int,
         aside: int) -> None:
    """Every game not in trick play takes its action, as Rules._rest does (``s``: compiled.REST_STATE)."""
    phase, contract, kind = s[0], s[1], t[0]
    for b in range(ended.shape[0]):
        # The few games concerned go to a function of their own: with its body in this loop, the
        # loop cost 50 ns a game even for the games it skips (10 times a skip alone).
        if phase[b] != 6 or kind[max(contract[b], 0)] != 0:
            ended[b] = _act(b, action[b], s, t, classic, per, required, aside)


@_inline
def _act(b: int, a: int, s: State, t: Tab, classic: bool, per: int, required: int, aside: int) -> bool:
    """Game ``b``, not in trick play, takes action ``a``; whether its hand ends."""
    phase, contract, current, trump, start = s[0], s[1], s[2], s[4], s[5]
    hands, redoubled, turn = s[6], s[15], s[18]
    kind, trumps_c = t[0], t[1]
    n = hands.shape[1]
    ph = phase[b]
    if ph == 1:
        i = min(max(a - 53, 0), 6)
        contract[b] = i
        if trumps_c[i]:
            phase[b] = 2
            return False
        if kind[i] == 1:
            phase[b] = 3
            return False
    elif ph == 2:
        trump[b] = a - 60
    elif ph == 3:
        start[b] = a - 64
    elif ph == 4:
        return _double(b, a - 77, n, s, t)
    elif ph == 5:
        redoubled[b, current[b]] = _from_left(a - 85, current[b], n)
        return _next_redoubler(b, turn[b] + 1, n, s, t)
    elif ph == 6:
        return _place(b, a, n, s, t, aside)
    else:
        return False
    if classic:  # the contract is named
        _forced(b, n, s, per, required)
        return False
    return _start_play(b, s, t)


@_inline
def _forced(b: int, n: int, s: State, per: int, required: int) -> None:
    """After the naming: the doubling round, with the doubles now compulsory."""
    phase, declarer, current, dbl_count, forced, turn, hand_no = s[0], s[3], s[2], s[16], s[17], s[18], s[20]
    left = per - hand_no[b] % per
    mask = 0
    for p in range(n):
        owed = 0 if p == declarer[b] else max(0, required - dbl_count[b, p])
        if owed > 0 and owed >= left:
            mask |= 1 << p
    forced[b] = mask
    phase[b] = 4
    turn[b] = 1
    current[b] = (declarer[b] + 1) % n


@_inline
def _start_play(b: int, s: State, t: Tab) -> bool:
    """The first lead; whether the hand is over at once (every card it scores set aside)."""
    phase, contract, current, declarer, set_aside, leader = s[0], s[1], s[2], s[3], s[8], s[19]
    kind, ends = t[0], t[2]
    phase[b] = 6
    current[b] = declarer[b]
    leader[b] = declarer[b]
    c = max(contract[b], 0)
    e = ends[c]
    return bool(kind[c] == 0 and e != U0 and (e & ~set_aside[b]) == U0)


@_inline
def _from_left(mask: int, actor: int, n: int) -> int:
    """A relative seat mask (bit k-1: k places to the actor's left) as a seat mask."""
    seats = 0
    for k in range(1, n):
        seats |= ((mask >> (k - 1)) & 1) << ((actor + k) % n)
    return seats


@_inline
def _double(b: int, mask: int, n: int, s: State, t: Tab) -> bool:
    current, declarer, doubled, dbl_count, turn = s[2], s[3], s[14], s[16], s[18]
    cur = current[b]
    targets = _from_left(mask, cur, n)
    doubled[b, cur] = targets
    dbl_count[b, cur] += (targets >> declarer[b]) & 1
    if turn[b] < n - 1:
        turn[b] += 1
        current[b] = (declarer[b] + turn[b]) % n
        return False
    anyone = 0
    for p in range(n):
        anyone |= doubled[b, p]
    if anyone == 0:
        return _start_play(b, s, t)
    s[0][b] = 5
    return _next_redoubler(b, 0, n, s, t)


@_inline
def _next_redoubler(b: int, first: int, n: int, s: State, t: Tab) -> bool:
    """The next doubled seat in redoubling order from position ``first``, or the play."""
    current, declarer, doubled, turn = s[2], s[3], s[14], s[18]
    hit = 0
    for p in range(n):
        hit |= doubled[b, p]
    for pos in range(first, n):
        seat = (declarer[b] + pos) % n
        if (hit >> seat) & 1:
            turn[b] = pos
            current[b] = seat
            return False
    return _start_play(b, s, t)


@_inline
def _place(b: int, card: int, n: int, s: State, t: Tab, aside: int) -> bool:
    """A Dominoes/Réussite card placed (or a pass): as Rules._place; whether the hand is over."""
    contract, current, hands, played, out, out_count, ace_extra = s[1], s[2], s[6], s[7], s[11], s[12], s[13]
    kind, out_needed = t[0], t[3]
    cur, c = current[b], max(contract[b], 0)
    over, extra = False, False
    if card != 52:
        one = _bit(card)
        hands[b, cur] &= ~one
        played[b, cur] |= one
        _lay(b, card, s, aside)
        if hands[b, cur] == U0:
            out[b, cur] = out_count[b]
            out_count[b] += 1
            over = out_count[b] >= out_needed[c]
        else:
            extra = kind[c] == 2 and card % 13 == 12
    ace_extra[b] = extra
    if not extra and not over:
        for k in range(1, n + 1):
            seat = (cur + k) % n
            if hands[b, seat] != U0:
                current[b] = seat
                break
    return over


@_inline
def _lay(b: int, card: int, s: State, aside: int) -> None:
    """Put ``card`` on its line, opening set-aside ones at Réussite's first card, and run on."""
    start, set_aside, lo, hi = s[5], s[8], s[9], s[10]
    rank, suit = card % 13, card // 13
    if start[b] < 0:
        start[b] = rank
        if aside:
            for su in range(4):
                if (set_aside[b] >> np.uint64(13 * su + rank)) & U1:
                    lo[b, su] = rank
                    hi[b, su] = rank
    shut = lo[b, suit] < 0
    if shut or rank < lo[b, suit]:
        lo[b, suit] = rank
    if shut or rank > hi[b, suit]:
        hi[b, suit] = rank
    for _ in range(aside):
        for su in range(4):
            low, high = lo[b, su], hi[b, su]
            below = (set_aside[b] >> np.uint64(13 * su + max(low - 1, 0))) & U1
            above = (set_aside[b] >> np.uint64(13 * su + min(high + 1, 12))) & U1
            if low > 0 and below == U1:
                lo[b, su] = low - 1
            if 0 <= high < 12 and above == U1:
                hi[b, su] = high + 1


def _deal_cards(words: U32, hand_size: int, seat: Int, hands: U64, aside: U64, keys: I64) -> None:
    """deal.cards_of compiled: each deal's 52 keys from its generator's words, ranked (stably) into seats.

    A key (53 bits) times 64 plus its card is below 2**63 and unique, and orders the cards as a
    stable sort of the keys does; a card's place is then the number of such keys below its own:
    52 × 52 comparisons that vectorise, quicker than numba's argsort for 52 keys.
    """
    n = hands.shape[1]
    for b in range(words.shape[0]):
        for c in range(52):
            high, low = np.int64(words[b, 2 * c]), np.int64(words[b, 2 * c + 1])
            keys[c] = (((high >> 5) << 26) + (low >> 6)) * 64 + c
        hands[b, :] = U0
        aside[b] = U0
        for card in range(52):
            place, key = 0, keys[card]
            for other in range(52):
                place += keys[other] < key
            who = place // hand_size
            seat[b, card] = who
            if who < n:
                hands[b, who] |= _bit(card)
            else:
                aside[b] |= _bit(card)


def _mt_base() -> npt.NDArray[np.uint32]:
    """MT19937's state after init_genrand(19650218), where every init_by_array starts."""
    mt = [19650218]
    for i in range(1, 624):
        mt.append((1812433253 * (mt[-1] ^ (mt[-1] >> 30)) + i) & 0xFFFFFFFF)
    return np.array(mt, dtype=np.uint32)


MT_BASE = _mt_base()
LOW32 = np.uint64(0xFFFFFFFF)
UPPER, LOWER = np.uint64(0x80000000), np.uint64(0x7FFFFFFF)  # the twist's split of a word


def _mt_words(key: U32, key_len: Int, base: U32, out: U32) -> None:
    """The first out.shape[1] outputs of MT19937 seeded by init_by_array with each deal's key (column).

    The deals run side by side (the state is (624, deals)), so each of init_by_array's sequential
    steps is one loop over the deals; only the words the outputs need are twisted.
    """
    deals = key.shape[1]
    mt = np.empty((624, deals), dtype=np.uint32)
    add = np.empty((624, deals), dtype=np.uint32)  # init_key[j] + j at each step of the first loop
    for b in range(deals):
        j = 0
        for t in range(624):
            add[t, b] = np.uint64(key[j, b]) + np.uint64(j)
            j += 1
            if j >= key_len[b]:
                j = 0
    for i in range(624):
        for b in range(deals):
            mt[i, b] = base[i]
    for t in range(624):  # i runs 1..623, then (mt[0] = mt[623]) 1 once more
        i = t + 1 if t < 623 else 1
        if t == 623:
            for b in range(deals):
                mt[0, b] = mt[623, b]
        for b in range(deals):
            x = np.uint64(mt[i - 1, b])
            y = (np.uint64(mt[i, b]) ^ (((x ^ (x >> np.uint64(30))) * np.uint64(1664525)) & LOW32))
            mt[i, b] = (y + np.uint64(add[t, b])) & LOW32
    for t in range(623):  # i runs 2..623, then (mt[0] = mt[623]) 1
        i = t + 2 if t < 622 else 1
        if i == 1:
            for b in range(deals):
                mt[0, b] = mt[623, b]
        for b in range(deals):
            x = np.uint64(mt[i - 1, b])
            y = (np.uint64(mt[i, b]) ^ (((x ^ (x >> np.uint64(30))) * np.uint64(1566083941)) & LOW32))
            mt[i, b] = (y - np.uint64(i)) & LOW32
    for b in range(deals):
        mt[0, b] = np.uint32(0x80000000)
    for b in range(deals):
        for k in range(out.shape[1]):  # twisted from the untwisted words k, k + 1 and k + 397 (k < 227)
            y = (np.uint64(mt[k, b]) & UPPER) | (np.uint64(mt[k + 1, b]) & LOWER)
            z = np.uint64(mt[k + 397, b]) ^ (y >> U1)
            if y & U1:
                z ^= np.uint64(0x9908B0DF)
            z ^= z >> np.uint64(11)
            z ^= (z << np.uint64(7)) & np.uint64(0x9D2C5680)
            z ^= (z << np.uint64(15)) & np.uint64(0xEFC60000)
            z ^= z >> np.uint64(18)
            out[b, k] = z & LOW32


def _clear(idx: Int, arrays: tuple[Any, ...], value: int) -> None:
    """games.refresh compiled: rows ``idx`` of each array of ``arrays`` (not empty) set to ``value``."""
    for j in range(idx.shape[0]):
        b = idx[j]
        for a in literal_unroll(arrays):
            a[b] = value


def _primes(count: int) -> list[int]:
    found: list[int] = []
    k = 2
    while len(found) < count:
        if all(k % p for p in found):
            found.append(k)
        k += 1
    return found


def _root_bits(p: int, k: int) -> int:
    """The first 64 bits after the point of the k-th root of ``p`` (SHA-512's constants)."""
    n = p << (64 * k)
    x = 1 << -(-n.bit_length() // k)
    while True:  # integer Newton from above: stops at the floor of the root
        y = ((k - 1) * x + n // x ** (k - 1)) // k
        if y >= x:
            return x & ((1 << 64) - 1)
        x = y


# SHA-512 (FIPS 180-4): the first hash words (square roots of the first 8 primes) and the round
# constants (cube roots of the first 80), made here rather than written out.
SHA_H = np.array([_root_bits(p, 2) for p in _primes(8)], dtype=np.uint64)
SHA_K = np.array([_root_bits(p, 3) for p in _primes(80)], dtype=np.uint64)
# Key words of the longest seed string: 19 digits, ":", two int32's 10 and the 64 bytes of the hash.
KEY_ROWS = (19 + 1 + 10 + 1 + 10 + 64 + 3) // 4


@_inline
def _rotr(x: np.uint64, k: int) -> np.uint64:
    return (x >> np.uint64(k)) | (x << np.uint64(64 - k))


@_inline
def _digits(out: U32, at: int, value: int) -> int:
    """Write ``value``'s decimal digits (as bytes) from ``at``; where they end."""
    width, v = 1, value
    while v >= 10:
        v //= 10
        width += 1
    v = value
    for i in range(width):
        out[at + width - 1 - i] = 48 + v % 10
        v //= 10
    return at + width


@_jit
def _sha512(msg: U32, size: int, w: U64, h: U64) -> None:
    """The SHA-512 of the ``size`` bytes of ``msg`` (one per entry, at most 111) into ``h``."""
    for i in range(16):
        w[i] = U0
    for i in range(128):
        byte = msg[i] if i < size else (128 if i == size else 0)
        w[i // 8] |= np.uint64(byte) << np.uint64(56 - 8 * (i % 8))
    w[15] = np.uint64(8 * size)
    for i in range(16, 80):
        a, b = w[i - 15], w[i - 2]
        s0 = _rotr(a, 1) ^ _rotr(a, 8) ^ (a >> np.uint64(7))
        s1 = _rotr(b, 19) ^ _rotr(b, 61) ^ (b >> np.uint64(6))
        w[i] = w[i - 16] + s0 + w[i - 7] + s1
    a, b, c, d, e, f, g, hh = h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
    for i in range(80):
        t1 = hh + (_rotr(e, 14) ^ _rotr(e, 18) ^ _rotr(e, 41)) + ((e & f) ^ (~e & g)) + SHA_K[i] + w[i]
        t2 = (_rotr(a, 28) ^ _rotr(a, 34) ^ _rotr(a, 39)) + ((a & b) ^ (a & c) ^ (b & c))
        hh, g, f, e, d, c, b, a = g, f, e, d + t1, c, b, a, t1 + t2
    for i, x in enumerate((a, b, c, d, e, f, g, hh)):
        h[i] += x


def _seed_keys(seed: Int, hand_no: Int, redeals: Int, key: U32, length: Int) -> None:
    """deal.mt_keys compiled, from the numbers of each deal's seed string f"{seed}:{hand}:{redeals}".

    Deal ``b``'s key (column b) is the 32-bit words, least significant first, of the int
    ``s.encode() + sha512(s.encode()).digest()`` read big-endian; its first byte is a digit, so
    the int has ceil(bytes / 4) words.
    """
    msg = np.empty(128, dtype=np.uint32)  # the string's bytes, then the digest's
    w, h = np.empty(80, dtype=np.uint64), np.empty(8, dtype=np.uint64)
    for b in range(seed.shape[0]):
        size = _digits(msg, 0, seed[b])
        msg[size] = 58  # ":"
        size = _digits(msg, size + 1, hand_no[b])
        msg[size] = 58
        size = _digits(msg, size + 1, redeals[b])
        h[:] = SHA_H
        _sha512(msg, size, w, h)
        for i in range(64):
            msg[size + i] = (h[i // 8] >> np.uint64(56 - 8 * (i % 8))) & np.uint64(255)
        total = size + 64
        length[b] = (total + 3) // 4
        for j in range(key.shape[0]):
            word = 0
            for i in range(4):  # bytes total-4j-4 … total-4j-1, the first the most significant
                at = total - 4 * j - 4 + i
                word = (word << 8) | (msg[at] if at >= 0 else 0)
            key[j, b] = word if j < length[b] else 0


def _score(idx: Int, s: State, t: Tab, classic: bool, last_hand: int, per_hand: bool, sign: float,
           rewards: Float, done: Bool, over: Bool, scratch: Int) -> None:
    """env._close_hands' scoring compiled: the hands of the games ``idx`` scored, settled and paid."""
    contract, out, points, doubled, redoubled, totals, used, declarer, hand_no, dbl_count = s
    kind, out_scores = t
    n = points.shape[1]
    scores, cs = scratch[0], scratch[1]  # (2, n): each seat's score with and without the doubles
    for j in range(idx.shape[0]):
        b = idx[j]
        c = contract[b]
        for p in range(n):
            cs[p] = points[b, p] if kind[c] == 0 else out_scores[c, out[b, p] if out[b, p] >= 0 else n - 1]
        for a in range(n):
            won = 0
            for q in range(n):
                pair = ((doubled[b, a] >> q) & 1) | ((doubled[b, q] >> a) & 1)
                re = ((redoubled[b, a] >> q) & 1) | ((redoubled[b, q] >> a) & 1)
                won += pair * (1 + re) * (cs[a] - cs[q])
            scores[a] = cs[a] + won
        for p in range(n):
            totals[b, p] += scores[p]
        used[b, declarer[b]] |= 1 << c
        hand_no[b] += 1
        if classic and hand_no[b] % 7 == 0:
            dbl_count[b, :] = 0
        over[j] = hand_no[b] >= last_hand
        done[b] = over[j]
        for p in range(n):
            paid = scores[p] if per_hand else (totals[b, p] if over[j] else 0)
            rewards[b, p] = sign * paid


_SEED_KEYS, _MT_WORDS = _allocating(_seed_keys), _allocating(_mt_words)
_DEAL_CARDS = _jit(_deal_cards)


def _new_hands(idx: Int, zeros: tuple[Any, ...], minus: tuple[Any, ...], s: State, per: int,
               hand_size: int, king_idx: int, aside: bool, base: U32) -> None:
    """env._next_hands compiled: the games ``idx`` reset for their next hand, given its declarer, dealt.

    ``zeros``, ``minus``: the hand's fields that start at 0 and at -1; ``s``: first_declarer,
    hand_no, declarer, leader, redeals, seed, used, hands, set_aside, phase, current. A deal that
    sets K♥ aside when King of Hearts is the chooser's last challenge is dealt again (deal.deal).
    """
    first, hand_no, declarer, leader, redeals, seed, used, hands, set_aside, phase, current = s
    n = hands.shape[1]
    for j in range(idx.shape[0]):
        b = idx[j]
        for a in literal_unroll(zeros):
            a[b] = 0
        for a in literal_unroll(minus):
            a[b] = -1
        declarer[b] = (first[b] + hand_no[b] // per) % n
        leader[b] = declarer[b]
        redeals[b] = 0
    only_king = 127 & ~(1 << king_idx) if king_idx >= 0 and aside else -1
    todo = idx.copy()
    while todo.shape[0] > 0:
        m = todo.shape[0]
        key, length = np.empty((KEY_ROWS, m), dtype=np.uint32), np.empty(m, dtype=np.int64)
        _SEED_KEYS(seed[todo], hand_no[todo], redeals[todo], key, length)
        words = np.empty((m, 104), dtype=np.uint32)
        _MT_WORDS(key, length, base, words)
        seat = np.empty((m, 52), dtype=np.int32)
        dealt, dealt_aside = np.empty((m, n), dtype=np.uint64), np.empty(m, dtype=np.uint64)
        _DEAL_CARDS(words, hand_size, seat, dealt, dealt_aside, np.empty(52, dtype=np.int64))
        again = 0
        for j in range(m):
            b = todo[j]
            if used[b, declarer[b]] == only_king and seat[j, KH] >= n:
                redeals[b] += 1
                todo[again] = b  # kept for the next round (again <= j: already read)
                again += 1
            else:
                hands[b, :] = dealt[j]
                set_aside[b] = dealt_aside[j]
                phase[b] = 1
                current[b] = declarer[b]
        todo = todo[:again]


KERNELS: dict[str, Callable[..., None]] = {"score": _score, "deal_cards": _deal_cards, "mt_words": _mt_words,
    "seed_keys": _seed_keys, "clear": _clear, "new_hands": _new_hands,
    "legal_mask": _legal_mask, "read": _read, "play_tricks": _play_tricks, "rest": _rest}
# The kernels by name, each compiled at its first call.
# Their arrays: the generators' states, the hash's words, the deals' keys, words and cards.
ALLOCATING = ("mt_words", "seed_keys", "new_hands")
COMPILED: dict[str, Callable[..., None]] = {
    name: (_allocating if name in ALLOCATING else _jit)(f) for name, f in KERNELS.items()}
