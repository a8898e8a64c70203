"""Doubling (classic rules): who may double or redouble whom, the compulsory doubles, settling pairs.

Plain functions over the state's fields (doubles as per-seat masks of the seats doubled),
so that the state machine calls them without a layer of objects, compiled or not.
"""

from __future__ import annotations

from collections.abc import Sequence

from barbu.engine.game import seats_of

REQUIRED_DOUBLES = 2  # each player doubles each declarer at least twice (classic)


def still_owed(made: int) -> int:
    """Doubles a player still owes the declarer after doubling him ``made`` times in his block."""
    return max(0, REQUIRED_DOUBLES - made)


def is_compulsory(owed: int, hands_left: int) -> bool:
    """Whether a player who owes ``owed`` doubles must double in this hand (RULES.md 1.4)."""
    return owed > 0 and owed >= hands_left


def double_targets(seat: int, declarer: int, positive: bool, doubled: Sequence[int]) -> int:
    """Seats that ``seat`` may double now, as a mask (``doubled``: the doubles made so far)."""
    if positive:
        return 1 << declarer
    n = len(doubled)
    if not any(doubled):
        return ((1 << n) - 1) & ~(1 << seat)
    targets = 0
    for t in range(n):
        # A pair already doubled the other way is settled by a redouble, not a second double.
        if t != seat and not doubled[t] >> seat & 1:
            targets |= 1 << t
    return targets


def redouble_targets(seat: int, doubled: Sequence[int]) -> int:
    """Seats that ``seat`` may redouble: those who doubled him."""
    return sum(1 << t for t in range(len(doubled)) if doubled[t] >> seat & 1)


def doubling_turns(declarer: int, n: int) -> list[int]:
    """The seats that speak in the doubling round, from the declarer's left, the first one last."""
    return [(declarer + k) % n for k in range(n - 1, 0, -1)]


def redoubling_turns(declarer: int, doubled: Sequence[int]) -> list[int]:
    """The seats that may redouble, the first one last: the declarer, then from his left."""
    n = len(doubled)
    order = [declarer] + [(declarer + k) % n for k in range(1, n)]
    return [s for s in reversed(order) if redouble_targets(s, doubled)]


def directed_pairs(doubled: Sequence[int], redoubled: Sequence[int]) -> list[tuple[int, int]]:
    """The doubles as directed pairs (RECORD.md): the doubles, then the redoubles."""
    n = len(doubled)
    if not any(doubled):
        return []
    pairs = [(a, b) for a in range(n) for b in range(n) if doubled[a] >> b & 1]
    pairs += [(a, b) for a in range(n) for b in range(n) if redoubled[a] >> b & 1]
    return pairs


def _pair_mult(doubled: Sequence[int], redoubled: Sequence[int], a: int, b: int) -> int:
    """0, 1 or 2: how many times the pair a-b settles its difference."""
    if doubled[a] >> b & 1 or doubled[b] >> a & 1:
        return 2 if redoubled[a] >> b & 1 or redoubled[b] >> a & 1 else 1
    return 0


def settle(contract_scores: Sequence[int], doubled: Sequence[int],
           redoubled: Sequence[int]) -> list[int]:
    """Hand scores after settling every doubled pair (RULES.md 1.5).

    >>> settle([-6, 0, -6, -12], [0b0100, 0b1101, 0b0001, 0], [0b0100, 0, 0, 0])
    [-12, 24, -12, -24]
    """
    scores = list(contract_scores)
    if not any(doubled):
        return scores
    for a, b, _, won in settled_pairs(contract_scores, doubled, redoubled):
        scores[a] += won
        scores[b] -= won
    return scores


def settled_pairs(contract_scores: Sequence[int], doubled: Sequence[int],
                  redoubled: Sequence[int]) -> list[tuple[int, int, int, int]]:
    """Each doubled pair of a hand as (a, b, times, what a wins from b), a before b: the pair
    settles the difference of its contract scores once, or twice when redoubled.

    >>> settled_pairs([-6, 0, -6, -12], [0b0100, 0b1101, 0b0001, 0], [0b0100, 0, 0, 0])
    [(0, 1, 1, -6), (0, 2, 2, 0), (1, 2, 1, 6), (1, 3, 1, 12)]
    """
    n = len(contract_scores)
    out = []
    for a in range(n):
        for b in range(a + 1, n):
            mult = _pair_mult(doubled, redoubled, a, b)
            if mult:
                out.append((a, b, mult, (contract_scores[a] - contract_scores[b]) * mult))
    return out


def split_doubles(pairs: Sequence[tuple[int, int]], declarer: int,
                  n: int) -> tuple[list[int], list[int]]:
    """Directed pairs (RECORD.md) as masks: who doubled whom, and who redoubled whom.

    Where a pair holds both directions, the declarer is always the redoubler (he does not
    double); between two other players the direction listed first is taken as the double.
    Either reading scores the same.

    >>> split_doubles([(1, 0), (0, 1), (3, 2), (2, 3)], 0, 4)
    ([0, 1, 0, 4], [2, 0, 8, 0])
    """
    doubles, redoubles = [0] * n, [0] * n
    seen: set[tuple[int, int]] = set()
    for a, b in pairs:
        if a == declarer or (b != declarer and (b, a) in seen):
            redoubles[a] |= 1 << b
        else:
            doubles[a] |= 1 << b
        seen.add((a, b))
    return doubles, redoubles


def submasks(mask: int) -> list[int]:
    """Every subset of a mask, the empty set first."""
    out = [0]
    for s in seats_of(mask):
        out += [m | 1 << s for m in out]
    return sorted(out, key=lambda m: (m.bit_count(), m))
