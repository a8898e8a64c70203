"""A batch of barbu.env games stepped together: the batched interface, as a loop over games.

``LoopEnv`` has the interface of ``barbu.vector.VectorEnv`` (the batched NumPy engine) and the
same observations and action ids, so a training loop written for one runs on the other:

>>> v = LoopEnv("classic", batch=3, seed=1, hands=1)
>>> obs, mask, player = v.reset()
>>> obs.shape, mask.shape, mask.dtype.name, player.shape
((3, 1159), (3, 93), 'bool', (3,))
>>> import numpy as np
>>> actions = np.array([int(np.flatnonzero(m)[0]) for m in mask])
>>> obs, mask, player, rewards, done = v.step(actions)
>>> rewards.shape, done.tolist()
((3, 4), [False, False, False])

Each game is a :class:`~barbu.env.aec.BarbuEnv` with its observations from what the seat to
act may see. ``player[i]`` is the seat to act in game ``i``, ``obs[i]`` and ``mask[i]`` are
that seat's. ``rewards[i]`` holds every seat's reward of that step (by seat, as the env pays
them: per hand, or the totals at the end; family scores negated). A game that ends at a step
has ``done[i]`` set and is reset at once (the next game of its seed sequence): the ``obs``,
``mask`` and ``player`` returned for it are then the new game's first decision.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from barbu.env.actions import NUM_ACTIONS
from barbu.env.aec import BarbuEnv
from barbu.env.encoding import obs_size
from barbu.env.seeds import stream_seed

Batch = tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_], npt.NDArray[np.int64]]
StepResult = tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_], npt.NDArray[np.int64],
                   npt.NDArray[np.float32], npt.NDArray[np.bool_]]


class LoopEnv:
    """``batch`` games of one table, stepped with one action each (see the module's doc)."""

    def __init__(self, rules: str = "classic", players: int = 4, options: Sequence[str] = (),
                 batch: int = 64, seed: int = 0, hands: int | None = None,
                 reward: str = "hand") -> None:
        if batch < 1:
            raise ValueError(f"batch must be at least 1, not {batch}")
        self.envs = [BarbuEnv(rules, players, tuple(options), reward, hands) for _ in range(batch)]
        game = self.envs[0].game
        self.num_envs, self.num_players, self.num_actions = batch, game.players, NUM_ACTIONS
        self.obs_size = obs_size(game)
        self.seed = seed
        self._started = False
        self._obs = np.zeros((batch, self.obs_size), dtype=np.float32)
        self._mask = np.zeros((batch, NUM_ACTIONS), dtype=np.bool_)
        self._player = np.zeros(batch, dtype=np.int64)

    def reset(self, seed: int | None = None) -> Batch:
        """New games everywhere: game ``i`` plays the games of ``stream_seed(seed, i)``, as in VectorEnv.

        With ``seed`` (or at the first reset, the constructor's) the streams start again;
        without, each game moves on to the next of its stream.
        """
        restart = seed is not None or not self._started
        self.seed = self.seed if seed is None else seed
        for i, env in enumerate(self.envs):
            env.reset(seed=stream_seed(self.seed, i) if restart else None)
            self._read(i)
        self._started = True
        return self._obs.copy(), self._mask.copy(), self._player.copy()

    def step(self, actions: npt.ArrayLike) -> StepResult:
        """One action per game, by the seat to act in it; see the module's doc for what comes back."""
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,):
            raise ValueError(f"expected {self.num_envs} actions, not shape {acts.shape}")
        rewards = np.zeros((self.num_envs, self.num_players), dtype=np.float32)
        done = np.zeros(self.num_envs, dtype=np.bool_)
        for i, env in enumerate(self.envs):
            env.step(int(acts[i]))
            rewards[i] = [env.rewards[a] for a in env.possible_agents]
            if env.is_over:
                done[i] = True
                env.reset()
            self._read(i)
        return self._obs.copy(), self._mask.copy(), self._player.copy(), rewards, done

    @property
    def cards(self) -> npt.NDArray[np.uint64]:
        """Every seat's cards in each game, ``(B, n)`` card masks (the whole deal: not for agents)."""
        return np.array([env.game_state.hands for env in self.envs], dtype=np.uint64)

    def _read(self, i: int) -> None:
        env = self.envs[i]
        agent = env.agent_selection
        seen = env.observe(agent)
        self._obs[i] = seen["observation"]
        self._mask[i] = seen["action_mask"]
        self._player[i] = env.game_state.current
