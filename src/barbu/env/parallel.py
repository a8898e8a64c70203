"""Barbu as a PettingZoo ParallelEnv: every agent steps at once, only the one whose turn it is acts.

Barbu is turn-based: at each decision one seat acts. In a parallel step every live agent hands
in an action; the action of the agent to act (``infos[agent]["active_agent"]``, also the one
agent with ones in its mask) is applied and every other agent's is ignored: it waits. So a
parallel step is one decision of the game, and every agent steps exactly once in it, which is
what PettingZoo calls a cycle: ``max_cycles`` truncates the game after that many parallel steps.
``parallel_to_aec`` of it is the same game with agents stepping in a fixed round, each once a
cycle (PettingZoo's ``max_cycles_test`` checks both forms).

>>> e = BarbuParallelEnv("family", players=3, illegal="replace", max_cycles=2)
>>> obs, infos = e.reset(seed=1)
>>> actor = infos["player_0"]["active_agent"]
>>> _ = e.step({a: 0 for a in e.agents})
>>> _, _, _, truncations, _ = e.step({a: 0 for a in e.agents})
>>> all(truncations.values()), e.agents
(True, [])
"""

from __future__ import annotations

from typing import Any

from gymnasium import spaces
from pettingzoo import ParallelEnv

from barbu.env.aec import BarbuEnv, Obs


class BarbuParallelEnv(ParallelEnv[str, Obs, Any]):
    """The parallel form of :class:`~barbu.env.aec.BarbuEnv` (same arguments and meaning).

    ``max_cycles`` counts parallel steps (each agent steps once in each); ``illegal`` applies to
    the acting agent's action only, since the others' are not played.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 (PettingZoo reads it as a plain attribute)
        "name": "barbu_parallel_v0", "render_modes": ["ansi", "human"], "is_parallelizable": True}

    def __init__(self, rules: str = "classic", players: int = 4, options: tuple[str, ...] = (),
                 reward: str = "hand", hands: int | None = None, max_cycles: int | None = None,
                 render_mode: str | None = None, illegal: str = "raise") -> None:
        self.aec = BarbuEnv(rules, players, options, reward, hands, None, render_mode, illegal)
        if max_cycles is not None and max_cycles < 1:
            raise ValueError(f"max_cycles must be at least 1, not {max_cycles}")
        self.max_cycles = max_cycles
        self.render_mode = render_mode
        self.possible_agents = self.aec.possible_agents[:]
        self.agents: list[str] = []
        self._steps = 0

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.aec.observation_space(agent)

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.aec.action_space(agent)

    def reset(self, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, Obs], dict[str, dict[str, Any]]]:
        """A new game, seeded as :meth:`BarbuEnv.reset`; every agent's observation and info."""
        self.aec.reset(seed=seed, options=options)
        self.agents = self.possible_agents[:]
        self._steps = 0
        return self._observations(), self._infos()

    def step(self, actions: dict[str, Any]) -> tuple[
            dict[str, Obs], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]:
        """Apply the acting agent's action (the others wait); every agent's results."""
        aec = self.aec
        actor = aec.agent_selection
        if actor not in actions:
            raise ValueError(f"{actor} is to act: its action is missing")
        aec.step(actions[actor])
        self._steps += 1
        rewards = {a: float(aec.rewards[a]) for a in self.agents}
        terminations = {a: aec.terminations[a] for a in self.agents}
        cut = self.max_cycles is not None and self._steps >= self.max_cycles
        truncations = {a: aec.truncations[a] or (cut and not terminations[a]) for a in self.agents}
        observations, infos = self._observations(), self._infos()
        if any(terminations.values()) or any(truncations.values()):
            self.agents = []  # the game ends for every seat at once
        return observations, rewards, terminations, truncations, infos

    def _observations(self) -> dict[str, Obs]:
        return {a: self.aec.observe(a) for a in self.agents}

    def _infos(self) -> dict[str, dict[str, Any]]:
        active = self.aec.agent_selection
        return {a: {**self.aec.infos[a], "active_agent": active} for a in self.agents}

    def render(self) -> str | None:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()

    def state(self) -> Any:
        raise NotImplementedError("Barbu has hidden cards: there is no global observation")
