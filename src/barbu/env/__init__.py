"""barbu as a PettingZoo environment: fixed action ids, encoded observations, rewards per hand or game.

>>> e = env("classic", reward="game")
>>> e.reset(seed=1)
>>> int(e.action_space(e.agent_selection).n), e.observation_space("player_0")["observation"].shape
(93, (1159,))
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import AssertOutOfBoundsWrapper, OrderEnforcingWrapper

from barbu.env.aec import BarbuEnv, Obs

raw_env = BarbuEnv  # PettingZoo's name for the unwrapped environment class

__all__ = ["BarbuEnv", "aec_env", "env", "raw_env"]


def aec_env(rules: str = "classic", players: int = 4, options: tuple[str, ...] = (),
            reward: str = "hand", hands: int | None = None, max_cycles: int | None = None,
            render_mode: str | None = None) -> BarbuEnv:
    """The unwrapped AEC environment (see :class:`~barbu.env.aec.BarbuEnv`)."""
    return BarbuEnv(rules, players, options, reward, hands, max_cycles, render_mode)


def env(rules: str = "classic", players: int = 4, options: tuple[str, ...] = (),
        reward: str = "hand", hands: int | None = None, max_cycles: int | None = None,
        render_mode: str | None = None) -> AECEnv[str, Obs, Any]:
    """The environment inside PettingZoo's usual checks: actions in range, calls in order."""
    inner = aec_env(rules, players, options, reward, hands, max_cycles, render_mode)
    return OrderEnforcingWrapper(AssertOutOfBoundsWrapper(inner))
