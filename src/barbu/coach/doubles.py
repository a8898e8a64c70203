"""Doubling explained: what a double means against each player at the decision, and what every
doubled pair of a finished hand settled, by the engine's own arithmetic (RULES.md 1.5)."""

from __future__ import annotations

from dataclasses import dataclass

from barbu.coach.advice import Hint
from barbu.coach.reasons import Reason
from barbu.engine.doubling import settled_pairs, split_doubles
from barbu.engine.game import DOUBLE, REDOUBLE, seats_of
from barbu.engine.observation import HandSummary, Observation
from barbu.engine.state import Phase


def _base(obs: Observation) -> int:
    if obs.phase == Phase.DOUBLE:
        return DOUBLE
    if obs.phase == Phase.REDOUBLE:
        return REDOUBLE
    raise ValueError("doubles are explained at a doubling or redoubling decision")


def targets(obs: Observation) -> list[int]:
    """The players this seat may double (or redouble) now."""
    base = _base(obs)
    mask = 0
    for a in obs.legal:
        mask |= a - base
    return seats_of(mask)


def stakes(obs: Observation, hint: Hint) -> list[Reason]:
    """At a doubling decision, for each player who may be doubled: what the double means (a side bet
    on the difference of the pair's scores, settled twice when redoubled), and the difference the
    expert expects (``hint``: the coach's hint at this decision), with whether the double is
    compulsory."""
    redouble = obs.phase == Phase.REDOUBLE
    out = []
    for t in targets(obs):
        key = "coach.redouble_means" if redouble else "coach.double_means"
        out.append(Reason(key, {"who": t}))
        if hint.edges:  # none where the only choice was forced: nothing was weighed
            out.append(Reason("coach.double_edge", {"who": t, "points": round(hint.edges[t], 1)}))
        if not redouble and t == obs.declarer and obs.seat in obs.compulsory:
            out.append(Reason("coach.double_compulsory", {"who": t, "n": obs.owed[obs.seat]}))
    return out


@dataclass(frozen=True)
class Pair:
    """One doubled pair of a finished hand: the doubler, the doubled, how many times it settled
    (two when redoubled), their contract scores, and what the doubler won from the other."""

    doubler: int
    doubled: int
    times: int
    doubler_points: int
    doubled_points: int
    won: int

    def reason(self) -> Reason:
        return Reason("coach.pair.redoubled" if self.times == 2 else "coach.pair", {
            "who": self.doubler, "other": self.doubled, "points": self.doubler_points,
            "other_points": self.doubled_points, "won": self.won})


def pairs(summary: HandSummary, players: int) -> list[Pair]:
    """Every doubled pair of a finished hand, the doubler first, settled as the engine settles it."""
    doubled, redoubled = split_doubles(summary.doubles, summary.declarer, players)
    scores = summary.contract_scores
    out = []
    for a, b, times, won in settled_pairs(scores, doubled, redoubled):
        if doubled[a] >> b & 1:
            out.append(Pair(a, b, times, scores[a], scores[b], won))
        else:
            out.append(Pair(b, a, times, scores[b], scores[a], -won))
    return out
