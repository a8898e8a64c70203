"""Computer learners built on the coach, for the arena: one follows every hint, one plays ``basic``
but takes the coach's advice when warned at "big mistakes only".

They measure the coach (docs/coach.md, "Figures"): the follower should play as the expert the
coach asks does, and the warned learner should beat plain ``basic``. The bots import the engine
only and the coach imports the bots, so these live here and the arena seats them by import path:

    barbu arena --bots barbu.coach.learner:WarnedBasic,basic,basic,basic --deals 500

Each is deterministic from its seed: the coach runs without its CPU-time stop (``stop=None``) and
every decision's search gets a seed drawn from the learner's own generator, so the arena's
duplicate runs replay exactly. The ``Light`` variants ask a weaker coach (:data:`LIGHT_FLOOR`
deals a decision instead of the table's budget), the one the figures could afford.
"""

from __future__ import annotations

import random

from barbu.bots.base import Bot
from barbu.bots.basic import BasicBot
from barbu.bots.expert import ExpertBot
from barbu.coach.advice import BUDGET, Hint, Level, caution, coach_bot, hint
from barbu.engine.observation import Observation

# The figures' coach: this many sampled deals at every decision (solved endings too), and a work
# budget too small to buy any more, so that the floor alone sets the work (docs/coach.md).
LIGHT_FLOOR = 16
LIGHT_BUDGET = 0.001


class Coached(Bot):
    """A bot that asks the coach: the coach's budget, no CPU stop, an optional floor of deals."""

    budget = BUDGET
    floor: int | None = None

    def ask(self, obs: Observation) -> int:
        """The coach's choice at ``obs``, its search seeded from this bot's generator."""
        return self.hint(obs).choice

    def hint(self, obs: Observation) -> Hint:
        """The coach's hint at ``obs``."""
        return hint(obs, self.budget, seed=self.rng.getrandbits(63), stop=None, floor=self.floor)


class HintFollower(Coached):
    """Plays the coach's choice at every decision (the hint at the coach's budget)."""

    name = "hint-follower"

    def act(self, obs: Observation) -> int:
        return self.ask(obs)


class WarnedBasic(Coached):
    """Plays ``basic``, but where the coach warns at "big mistakes only" (``Level.BIG``) plays the
    coach's choice instead, as a learner who heeds every warning would."""

    name = "warned-basic"
    level = Level.BIG

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        # Seeded alike, the learner's own play is plain basic's wherever the coach is silent.
        self.basic = BasicBot(seed)

    def act(self, obs: Observation) -> int:
        intended = self.basic.act(obs)
        if len(obs.legal) == 1:
            return intended
        warning = caution(self.hint(obs), intended, self.level)
        return intended if warning is None else warning.hint.choice


class LightFollower(HintFollower):
    """:class:`HintFollower` with the figures' weaker coach."""

    name = "hint-follower-light"
    budget = LIGHT_BUDGET
    floor = LIGHT_FLOOR


class LightWarnedBasic(WarnedBasic):
    """:class:`WarnedBasic` with the figures' weaker coach."""

    name = "warned-basic-light"
    budget = LIGHT_BUDGET
    floor = LIGHT_FLOOR


def coach_expert(seed: int | None = None) -> ExpertBot:
    """The expert the coach asks, as a player: the coach's budget, no CPU stop (replayable)."""
    bot = coach_bot(_seed(seed), BUDGET, None)
    bot.name = "coach-expert"
    return bot


def light_expert(seed: int | None = None) -> ExpertBot:
    """The expert the figures' weaker coach asks, as a player (:data:`LIGHT_FLOOR` deals)."""
    bot = coach_bot(_seed(seed), LIGHT_BUDGET, None, LIGHT_FLOOR)
    bot.name = "light-expert"
    return bot


def _seed(seed: int | None) -> int:
    # coach_bot wants a number; None asks for a game nobody can replay, as Bot(None) does.
    return random.SystemRandom().getrandbits(63) if seed is None else seed
