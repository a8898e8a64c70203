"""The coach's advice: what the expert would decide from a seat's view, and what each choice is worth.

The expert's own search (:class:`~barbu.bots.expert.ExpertBot`), run on the seat's
:class:`~barbu.engine.observation.Observation` alone, with a budget a person can wait for. Every
legal choice gets an estimated value: the hand's score to this seat (classic) or minus its penalty
(family), averaged over the sampled deals, so that the cost of any choice is the expert's value
minus its own, in points.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from barbu.bots.expert import ExpertBot
from barbu.engine.game import DOUBLE, REDOUBLE, seats_of
from barbu.engine.observation import Observation
from barbu.engine.state import Phase

# A hint within a second at p95 on two busy cores (docs/coach.md measures it): 0.25 s of the
# expert's work, and a stop at 0.8 s of CPU time whatever the work.
BUDGET = 0.25
STOP = 0.8
BIG = 3.0  # points: a mistake the "big" level warns about costs at least this much


class Level(Enum):
    """How often the coach warns before a decision: never, for big mistakes, or for any loss."""

    OFF = "off"
    BIG = "big"
    ALWAYS = "always"


@dataclass(frozen=True)
class Hint:
    """The expert's decision at a seat's view, and the estimated value of every legal choice."""

    seat: int
    choice: int  # an engine action code
    values: dict[int, float]  # every legal action: its estimated value
    forced: bool = False  # one legal action: nothing to weigh
    # At a double or redouble: per seat, the expected difference of this hand's scores (mine minus
    # theirs) that a bet with that player would settle, as the expert weighed it.
    edges: tuple[float, ...] = ()

    def cost(self, action: int) -> float:
        """What ``action`` is estimated to lose against the expert's choice (0 for that choice)."""
        if self.forced or action == self.choice:
            return 0.0
        return max(0.0, self.values[self.choice] - self.values[action])

    def runner_up(self) -> int | None:
        """The best choice after the expert's own, by value (None when there is no other)."""
        others = [a for a in self.values if a != self.choice]
        return max(others, key=lambda a: (self.values[a], -a)) if others else None


def coach_bot(seed: int = 0, budget: float = BUDGET, stop: float | None = STOP,
              floor: int | None = None) -> ExpertBot:
    """The expert the coach asks: ``budget`` seconds of work, stopped at ``stop`` seconds of CPU
    time (None: never, so that a seed replays exactly), at least ``floor`` deals when given (the
    expert's own floor otherwise, which small tests lower)."""
    bot = ExpertBot(seed, budget=budget)
    bot.hard_stop = math.inf if stop is None else stop / budget
    if floor is not None:
        bot.play_samples = bot.bid_samples = bot.double_samples = bot.solve_floor = floor
    return bot


def hint(obs: Observation, budget: float = BUDGET, *, seed: int = 0, stop: float | None = STOP,
         floor: int | None = None) -> Hint:
    """What the expert would decide at ``obs`` (a seat's view, at its turn), with every legal
    choice's estimated value. Refused when it is not this seat's turn."""
    if not obs.my_turn or not obs.legal:
        raise ValueError("the coach advises only the seat to act")
    if len(obs.legal) == 1:
        return Hint(obs.seat, obs.legal[0], {obs.legal[0]: 0.0}, forced=True)
    bot = coach_bot(seed, budget, stop, floor)
    if obs.phase in (Phase.DOUBLE, Phase.REDOUBLE):
        edges = bot.wary_edges(obs)
        return Hint(obs.seat, bot.double_for(obs, edges), double_values(obs, edges), edges=tuple(edges))
    values = bot.values(obs, list(obs.legal))
    choice = max(values, key=lambda a: (values[a], -a))  # as the expert itself chooses
    return Hint(obs.seat, choice, values)


def double_values(obs: Observation, edges: Sequence[float]) -> dict[int, float]:
    """Each legal double (or redouble) valued as the sum, over the players it names, of the
    expected difference of the pair's scores (mine minus theirs): what those bets win on average."""
    base = DOUBLE if obs.phase == Phase.DOUBLE else REDOUBLE
    return {a: sum(edges[t] for t in seats_of(a - base)) for a in obs.legal}


@dataclass(frozen=True)
class Caution:
    """A warning before a decision: what it is estimated to cost against the expert's choice."""

    intended: int
    cost: float
    hint: Hint


def caution(hint_: Hint, intended: int, level: Level, big: float = BIG) -> Caution | None:
    """The warning ``level`` calls for, given the hint at this decision: none at ``off``, any loss at
    ``always``, a loss of at least ``big`` points at ``big``."""
    cost = hint_.cost(intended)
    if level is Level.OFF or cost <= 0.0 or (level is Level.BIG and cost < big):
        return None
    return Caution(intended, cost, hint_)
