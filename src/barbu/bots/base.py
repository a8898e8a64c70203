"""The bot interface: an observation in, one legal action out."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod

from barbu.engine.observation import Observation
from barbu.engine.state import State


class Bot(ABC):
    """A computer player. It sees only what :func:`barbu.observation.observe` gives its seat."""

    name = "bot"
    searches = False  # True for levels that think long enough to want a process of their own
    cheats = False  # True for a baseline that reads the whole state: only the arena seats it

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def show(self, state: State) -> None:
        """Before each ``act``, the arena shows a cheating bot the true state (no one else calls it)."""
        return  # fair bots ignore it: they play from the observation alone

    @abstractmethod
    def act(self, obs: Observation) -> int:
        """One of ``obs.legal`` (never called when that is empty)."""


class RandomBot(Bot):
    """Uniformly random legal actions: a baseline and a test driver."""

    name = "random"

    def act(self, obs: Observation) -> int:
        return self.rng.choice(obs.legal)
