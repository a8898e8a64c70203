"""barbu as a PettingZoo environment: fixed action ids, encoded observations, rewards per hand or game.

PettingZoo is imported only when an environment is asked for, so that ``barbu.env.actions`` and
``barbu.env.encoding`` (the action ids and the observation vectors) need numpy alone. Importing
this package registers the single-seat Gymnasium environments (:mod:`barbu.env.single`) when
Gymnasium is installed: ``gymnasium.make("barbu/Classic-v0")`` and ``"barbu/Family-v0"`` (or
``gymnasium.make("barbu.env:barbu/Classic-v0")``, which imports this package first).

>>> e = env("classic", reward="game")
>>> e.reset(seed=1)
>>> int(e.action_space(e.agent_selection).n), e.observation_space("player_0")["observation"].shape
(93, (1159,))
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pettingzoo import AECEnv

    from barbu.env.aec import BarbuEnv
    from barbu.env.parallel import BarbuParallelEnv

    raw_env = BarbuEnv

__all__ = ["BarbuEnv", "BarbuParallelEnv", "aec_env", "env", "parallel_env", "raw_env"]

# The Gymnasium ids and the rule set each stands for; any SeatEnv keyword goes to gymnasium.make.
GYM_IDS = {"barbu/Classic-v0": "classic", "barbu/Family-v0": "family"}


def _register() -> None:
    """Register the single-seat environments with Gymnasium (once; nothing without Gymnasium)."""
    try:
        from gymnasium.envs.registration import register, registry
    except ModuleNotFoundError:
        return
    for env_id, rules in GYM_IDS.items():
        if env_id not in registry:
            register(env_id, entry_point="barbu.env.single:SeatEnv", kwargs={"rules": rules},
                     disable_env_checker=True)


_register()


def __getattr__(name: str) -> object:
    if name in ("BarbuEnv", "raw_env"):  # raw_env: PettingZoo's name for the unwrapped class
        from barbu.env.aec import BarbuEnv

        return BarbuEnv
    if name == "BarbuParallelEnv":
        from barbu.env.parallel import BarbuParallelEnv

        return BarbuParallelEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def aec_env(rules: str = "classic", players: int = 4, options: tuple[str, ...] = (),
            reward: str = "hand", hands: int | None = None, max_cycles: int | None = None,
            render_mode: str | None = None, illegal: str = "raise") -> BarbuEnv:
    """The unwrapped AEC environment (see :class:`~barbu.env.aec.BarbuEnv`)."""
    from barbu.env.aec import BarbuEnv

    return BarbuEnv(rules, players, options, reward, hands, max_cycles, render_mode, illegal)


def env(rules: str = "classic", players: int = 4, options: tuple[str, ...] = (),
        reward: str = "hand", hands: int | None = None, max_cycles: int | None = None,
        render_mode: str | None = None, illegal: str = "raise") -> AECEnv[str, dict[str, Any], Any]:
    """The environment inside PettingZoo's usual checks: actions in range, calls in order."""
    from pettingzoo.utils.wrappers import AssertOutOfBoundsWrapper, OrderEnforcingWrapper

    inner = aec_env(rules, players, options, reward, hands, max_cycles, render_mode, illegal)
    return OrderEnforcingWrapper(AssertOutOfBoundsWrapper(inner))


def parallel_env(rules: str = "classic", players: int = 4, options: tuple[str, ...] = (),
                 reward: str = "hand", hands: int | None = None, max_cycles: int | None = None,
                 render_mode: str | None = None, illegal: str = "raise") -> BarbuParallelEnv:
    """The parallel form: every agent steps at once, the one to act acts, the others wait."""
    from barbu.env.parallel import BarbuParallelEnv

    return BarbuParallelEnv(rules, players, options, reward, hands, max_cycles, render_mode,
                            illegal)
