"""Barbu as a single-agent Gymnasium environment: one learner's seat, the other seats played by bots.

>>> import gymnasium
>>> import barbu.env  # registers barbu/Classic-v0 and barbu/Family-v0
>>> e = gymnasium.make("barbu/Family-v0", players=3, opponents="basic", hands=1)
>>> obs, info = e.reset(seed=5)
>>> obs.shape, info["action_mask"].dtype.name, bool(info["action_mask"][e.unwrapped.action_masks()].all())
((908,), 'bool', True)

The learner sees only its seat's view: the array is barbu.env's (the tracker's, equal to
``encode(state.observe(seat))``) and nothing else of the state reaches ``step`` or ``reset``'s
returns, unless ``state=True`` asks for the perfect-information tensor in ``info["state"]`` (for
a centralised critic; see :mod:`barbu.env.fullstate`).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from barbu.bots import make_bot
from barbu.bots.base import Bot
from barbu.env.actions import NUM_ACTIONS, from_engine
from barbu.env.aec import BarbuEnv, observation_space
from barbu.env.fullstate import state_size, state_tensor

Floats = npt.NDArray[np.float32]
Opponents = str | Bot | Sequence[str | Bot]


class SeatEnv(gymnasium.Env[Floats, np.int64]):
    """One seat of a Barbu game for a single-agent learner; the others are ``opponents``.

    ``opponents``: a bot level (``"random"``, ``"basic"``, ``"strong"``, ``"policy:PATH"`` …),
    a :class:`~barbu.bots.base.Bot`, or one of those for each other seat, listed from the
    learner's left. ``seat``: the learner's seat, or ``None`` to draw it from each game's seed.
    ``hands`` and ``reward`` are barbu.env's: ``hands=1`` is one hand per episode, ``None`` the
    whole game. The reward of a step is the learner's score change since its last decision
    (classic as scored, family negated: more is better). ``state=True`` puts the
    perfect-information tensor in ``info["state"]``. ``illegal`` is barbu.env's: ``"raise"``
    (the engine's error, nothing changed) or ``"replace"`` (a random legal action in its place).
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}  # noqa: RUF012 (Gymnasium's attribute)

    def __init__(self, rules: str = "classic", players: int = 4, options: Sequence[str] = (),
                 opponents: Opponents = "random", seat: int | None = None, hands: int | None = None,
                 reward: str = "hand", state: bool = False, illegal: str = "raise",
                 render_mode: str | None = None) -> None:
        if render_mode not in (None, "ansi"):
            raise ValueError(f"unknown render mode {render_mode!r} (ansi)")
        self.aec = BarbuEnv(rules, players, tuple(options), reward, hands, illegal=illegal,
                            render_mode=render_mode)
        self.game = game = self.aec.game
        if seat is not None and not 0 <= seat < game.players:
            raise ValueError(f"seat must be 0 to {game.players - 1}, not {seat}")
        self.fixed_seat = seat
        self.bots = _bots(opponents, game.players - 1)
        self.observation_space = observation_space(game)["observation"]
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.render_mode = render_mode
        self.with_state = state
        if state:
            self.state_space = spaces.Box(-np.inf, np.inf, (state_size(game),), dtype=np.float32)
        self.seat = seat if seat is not None else 0
        self._gained = 0.0

    @property
    def agent(self) -> str:
        """The learner's agent name in the PettingZoo env underneath."""
        return self.aec.possible_agents[self.seat]

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Floats, dict[str, Any]]:
        """A new game; with ``seed``, the game ``barbu.env`` plays after ``reset(seed=seed)``."""
        super().reset(seed=seed)
        self.aec.reset(seed=seed)
        game_seed = self.aec.game_state.seed
        n = self.game.players
        if self.fixed_seat is None:
            self.seat = random.Random(f"{game_seed}:learner").randrange(n)
        for k, bot in enumerate(self.bots, start=1):
            bot.rng.seed(f"{game_seed}:bot:{(self.seat + k) % n}")
        self._gained = 0.0  # nothing is scored before the learner's first card: a hand needs it
        self._others()
        return self._observe(), self._info()

    def step(self, action: int | np.integer[Any]) -> tuple[Floats, float, bool, bool, dict[str, Any]]:
        """The learner's action, then the bots' until the learner is to act again or the game ends."""
        if self.aec.is_over:
            raise RuntimeError("the game is over: call reset()")
        self._gained = 0.0
        self._play(int(action))
        replaced = self.aec.infos[self.agent].get("replaced")
        self._others()
        info = self._info()
        if replaced is not None:
            info["replaced"] = replaced
        return self._observe(), self._gained, self.aec.is_over, False, info

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal ids for the learner (all false once the game is over): MaskablePPO's hook."""
        mask: npt.NDArray[np.bool_] = self.aec.observe(self.agent)["action_mask"].astype(np.bool_)
        return mask

    def global_state(self) -> Floats:
        """The perfect-information tensor of the learner's seat (for a critic, never the actor)."""
        view = self._observe()[None, :]
        hands = np.array([self.aec.game_state.hands], dtype=np.uint64)
        full: Floats = state_tensor(view, hands, np.array([self.seat]))[0]
        return full

    def render(self) -> str | None:
        """The table as text (every hand shown: for people watching, not for the learner)."""
        return self.aec.render()

    def _play(self, action_id: int) -> None:
        """One action by the seat to act, and the learner's reward of it."""
        self.aec.step(action_id)
        self._gained += self.aec.rewards[self.agent]

    def _others(self) -> None:
        """The bots play until the learner is to act or the game is over."""
        state, n = self.aec.game_state, self.game.players
        while not self.aec.is_over and state.current != self.seat:
            seat = state.current
            bot = self.bots[(seat - self.seat) % n - 1]
            bot.show(state)  # a cheating baseline reads the state; fair bots ignore it
            action = bot.act(state.observe(seat))
            self._play(from_engine(action, seat, self.game))
            state = self.aec.game_state

    def _observe(self) -> Floats:
        view: Floats = self.aec.observe(self.agent)["observation"]
        return view

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self.action_masks(), "seat": self.seat}
        if self.with_state:
            info["state"] = self.global_state()
        return info


def _bots(opponents: Opponents, count: int) -> list[Bot]:
    """One bot for each other seat, from the learner's left."""
    if isinstance(opponents, str | Bot):
        given: list[str | Bot] = [opponents] * count if isinstance(opponents, str) else [opponents]
        if isinstance(opponents, Bot) and count > 1:
            # one object cannot sit at several seats that keep their own memory: copies of it
            given = [opponents, *(copy.deepcopy(opponents) for _ in range(count - 1))]
    else:
        given = list(opponents)
    if len(given) != count:
        raise ValueError(f"{count} opponents needed (from the learner's left), not {len(given)}")
    return [make_bot(b) if isinstance(b, str) else b for b in given]
