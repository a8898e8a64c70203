"""barbu.vector as a Gymnasium ``VectorEnv``: B self-play games, a row per seat to act, rewards kept by seat.

>>> env = BarbuVectorEnv("classic", num_envs=3, seed=1, hands=1)
>>> obs, info = env.reset()
>>> obs.shape, env.single_action_space, info["seat"].shape, env.metadata["autoreset_mode"].value
((3, 1159), Discrete(93), (3,), 'SameStep')

Every seat of every game is played by the caller (self-play): row ``b`` is game ``b``'s seat to
act (``info["seat"][b]``), its view and its mask (``info["action_mask"]``). A seat's reward is
kept until that seat is next to act, or the game ends, so that nothing it earns while the
others play is lost:

- ``reward[b]``: what the seat now to act in game ``b`` earned since its previous decision (0 at
  its first); on the step that ends the game, what the seat that acted last earned since then.
- ``info["seat_rewards"][b]``: every seat's reward handed over at this step, by seat: the seat
  to act's entry, or, when the game ends, every seat's remainder.
- ``terminated[b]``: the game ended at this step. Auto-reset is Gymnasium's same-step mode: the
  returned row is already the next game's first decision (no terminal view is kept: games end
  by termination only, never truncation, so no value is bootstrapped from one).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from barbu.env.actions import NUM_ACTIONS
from barbu.env.aec import observation_space
from barbu.env.fullstate import state_tensor
from barbu.env.loop import LoopEnv
from barbu.vector.env import VectorEnv as Batch

Floats = npt.NDArray[np.float32]
Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]


class BarbuVectorEnv(VectorEnv[Floats, Ints, npt.NDArray[Any]]):
    """``num_envs`` self-play games of one table (see the module's doc).

    ``backend``: ``"numpy"`` or ``"numba"`` (barbu.vector's batched rules) or ``"loop"``
    (:class:`~barbu.env.loop.LoopEnv`, barbu.env games in a loop); all three play the same games
    for the same seed. ``state=True`` adds the perfect-information tensor of each row's seat in
    ``info["state"]`` (:mod:`barbu.env.fullstate`).
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012

    def __init__(self, rules: str = "classic", players: int = 4, options: Sequence[str] = (),
                 num_envs: int = 64, seed: int = 0, hands: int | None = None, reward: str = "hand",
                 backend: str = "numpy", state: bool = False) -> None:
        if backend == "loop":
            self.batch: Batch | LoopEnv = LoopEnv(rules, players, options, num_envs, seed, hands, reward)
        else:
            self.batch = Batch(rules, players, options, num_envs, seed, hands, reward, backend)
        self.num_envs = num_envs
        self.players = players
        self.with_state = state
        game = self.batch.game if isinstance(self.batch, Batch) else self.batch.envs[0].game
        self.single_observation_space = observation_space(game)["observation"]
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._pending = np.zeros((num_envs, players), dtype=np.float32)
        self._seat = np.zeros(num_envs, dtype=np.int64)
        self._mask = np.zeros((num_envs, NUM_ACTIONS), dtype=np.bool_)

    def reset(self, *, seed: int | list[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[Floats, dict[str, Any]]:
        """New games everywhere; with ``seed`` (one int), game ``b`` plays ``stream_seed(seed, b)``'s."""
        if seed is not None and not isinstance(seed, int):
            raise ValueError("seed the batch with one int: game b then plays stream_seed(seed, b)'s games")
        obs, mask, seat = self.batch.reset(seed)
        self._pending[:] = 0
        self._seat, self._mask = seat, mask
        return obs, self._info(obs, np.zeros_like(self._pending))

    def step(self, actions: Ints) -> tuple[Floats, Floats, Bools, Bools, dict[str, Any]]:
        """Each game's seat to act plays its id; rewards handed to the seats as described above."""
        actor = self._seat
        obs, mask, seat, rewards, done = self.batch.step(actions)
        self._pending += rewards
        handed = np.zeros_like(self._pending)
        handed[done] = self._pending[done]  # the game is over: every seat's remainder
        self._pending[done] = 0.0
        live = np.flatnonzero(~done)
        handed[live, seat[live]] = self._pending[live, seat[live]]  # the seat to act's, at its turn
        self._pending[live, seat[live]] = 0.0
        reward = handed[np.arange(self.num_envs), np.where(done, actor, seat)]
        self._seat, self._mask = seat, mask
        info = self._info(obs, handed)
        return obs, reward, done, np.zeros(self.num_envs, dtype=np.bool_), info

    def action_masks(self) -> Bools:
        """Each row's legal ids (the mask ``info["action_mask"]`` holds)."""
        return self._mask.copy()

    def global_state(self, obs: Floats) -> Floats:
        """The perfect-information tensor of each row's seat, its view ``obs`` given."""
        return state_tensor(obs, self.batch.cards, self._seat)

    def _info(self, obs: Floats, handed: Floats) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self._mask.copy(), "seat": self._seat.copy(),
                                "seat_rewards": handed}
        if self.with_state:
            info["state"] = self.global_state(obs)
        return info
