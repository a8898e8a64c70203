"""A trained policy network as the bot level ``policy:PATH``: the seat's encoded view in, an action out.

The network is a small multilayer perceptron over :func:`barbu.env.encoding.encode` of the
seat's observation, with one output per action id of :mod:`barbu.env.actions`: one hidden
ReLU layer, weights saved with NumPy as ``.npz`` (``examples/train_policy.py`` trains one). It
plays the legal id with the highest output. It needs numpy (the ``rl`` extra).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from barbu.bots.base import Bot
from barbu.engine.game import Game
from barbu.engine.observation import Observation
from barbu.env.actions import NUM_ACTIONS, legal_ids, to_engine
from barbu.env.encoding import encode, obs_size

Matrix = npt.NDArray[np.float32]


@dataclass
class Network:
    """``relu(x @ w1 + b1) @ w2 + b2``: one output per action id, for one table's arrays."""

    rules: str
    players: int
    w1: Matrix
    b1: Matrix
    w2: Matrix
    b2: Matrix

    @classmethod
    def initial(cls, rules: str, players: int, hidden: int, rng: np.random.Generator) -> Network:
        """Small random weights (He-scaled first layer, near-zero outputs)."""
        size = obs_size(Game(rules, players))
        w1 = rng.normal(0.0, np.sqrt(2.0 / size), (size, hidden)).astype(np.float32)
        w2 = rng.normal(0.0, 0.01, (hidden, NUM_ACTIONS)).astype(np.float32)
        return cls(rules, players, w1, np.zeros(hidden, np.float32), w2,
                   np.zeros(NUM_ACTIONS, np.float32))

    def hidden(self, x: Matrix) -> Matrix:
        out: Matrix = np.maximum(x @ self.w1 + self.b1, 0.0)
        return out

    def logits(self, x: Matrix) -> Matrix:
        out: Matrix = self.hidden(x) @ self.w2 + self.b2
        return out

    def save(self, path: str | Path) -> None:
        with open(path, "wb") as f:  # a file object: np.savez would add ".npz" to a bare name
            np.savez(f, rules=self.rules, players=self.players, w1=self.w1, b1=self.b1,
                     w2=self.w2, b2=self.b2)

    @classmethod
    def load(cls, path: str | Path) -> Network:
        with np.load(path) as z:
            return cls(str(z["rules"]), int(z["players"]), z["w1"], z["b1"], z["w2"], z["b2"])


class PolicyBot(Bot):
    """Plays the legal action id the network rates highest, from the seat's observation alone."""

    name = "policy"

    def __init__(self, network: Network, seed: int | None = None) -> None:
        super().__init__(seed)
        self.network = network

    def act(self, obs: Observation) -> int:
        g = obs.game
        if (g.ruleset, g.players) != (self.network.rules, self.network.players):
            raise ValueError(f"the policy was trained for {self.network.rules} with "
                             f"{self.network.players} players, not {g.ruleset} with {g.players}")
        ids = legal_ids(obs.legal, obs.seat, g)
        if len(ids) == 1:
            return obs.legal[0]
        scores = self.network.logits(encode(obs)[None, :])[0]
        best = max(ids, key=lambda i: float(scores[i]))
        return to_engine(best, obs.seat, g)


def policy_bot(path: str, seed: int | None = None) -> PolicyBot:
    """The bot of the level ``policy:PATH``: the network saved at ``path``."""
    return PolicyBot(Network.load(path), seed)
