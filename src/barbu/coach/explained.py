"""The coach's whole answer at a decision: the expert's choice, its gain over another, and why."""

from __future__ import annotations

from dataclasses import dataclass

from barbu.coach.advice import BIG, BUDGET, STOP, Caution, Hint, Level, caution, hint
from barbu.coach.doubles import stakes
from barbu.coach.reasons import Reason, explain
from barbu.engine.observation import Observation
from barbu.engine.state import Phase


@dataclass(frozen=True)
class Advice:
    """The hint, the choice it is weighed against (the learner's, or the next best), the expert's
    estimated gain over that choice in points, and the reasons that set the two apart."""

    hint: Hint
    against: int | None
    gain: float
    reasons: tuple[Reason, ...]


def value_reason(h: Hint, against: int) -> Reason:
    """The estimate itself: what the expert expects of its choice and of the other, in points."""
    return Reason("coach.value", {"choice": h.choice, "points": round(h.values[h.choice], 1),
                                  "alternative": against, "other_points": round(h.values[against], 1)})


def reasons_between(obs: Observation, h: Hint, against: int) -> list[Reason]:
    """Why the expert prefers its choice to ``against``: the facts that tell them apart (the stakes
    of each player, at a double), then the estimate itself."""
    told = stakes(obs, h) if obs.phase in (Phase.DOUBLE, Phase.REDOUBLE) else explain(obs, h.choice, against)
    return [*told, value_reason(h, against)]


def advise(obs: Observation, intended: int | None = None, budget: float = BUDGET, *, seed: int = 0,
           stop: float | None = STOP, floor: int | None = None) -> Advice:
    """The coach's answer at ``obs``: the expert's choice weighed against ``intended`` (or, without
    one, against the next best choice), with the gain and the reasons."""
    return advice_from(obs, hint(obs, budget, seed=seed, stop=stop, floor=floor), intended)


def advice_from(obs: Observation, h: Hint, intended: int | None = None) -> Advice:
    """:func:`advise` from a hint already made at ``obs`` (a front end that keeps it for the decision)."""
    against = h.runner_up() if intended is None or intended == h.choice else intended
    if against is None:
        return Advice(h, None, 0.0, ())
    gain = h.values[h.choice] - h.values[against]
    return Advice(h, against, gain, tuple(reasons_between(obs, h, against)))


def warn(obs: Observation, intended: int, level: Level, big: float = BIG, budget: float = BUDGET, *,
         seed: int = 0, stop: float | None = STOP, floor: int | None = None) -> Advice | None:
    """The advice to show before ``intended`` when ``level`` calls for a warning at its cost, else None
    (no search at all at ``Level.OFF``)."""
    if level is Level.OFF:
        return None
    return warning_from(obs, hint(obs, budget, seed=seed, stop=stop, floor=floor), intended, level, big)


def warning_from(obs: Observation, h: Hint, intended: int, level: Level, big: float = BIG) -> Advice | None:
    """:func:`warn` from a hint already made at ``obs``."""
    warned: Caution | None = caution(h, intended, level, big)
    if warned is None:
        return None
    return Advice(h, intended, warned.cost, tuple(reasons_between(obs, h, intended)))
