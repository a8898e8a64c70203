"""The PettingZoo AEC environment: one agent per seat, the engine's rules, dealing done inside.

>>> env = BarbuEnv("family", players=3, reward="game")
>>> env.reset(seed=7)
>>> env.agents, env.agent_selection == f"player_{env.game_state.current}"
(['player_0', 'player_1', 'player_2'], True)
>>> obs = env.observe(env.agent_selection)
>>> sorted(obs), int(obs["action_mask"].sum()) == len(env.game_state.legal_actions())
(['action_mask', 'observation'], True)
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from barbu.engine.cards import card_str, mask_str
from barbu.engine.errors import IllegalActionError
from barbu.engine.game import Game
from barbu.engine.hand import Phase
from barbu.engine.state import State
from barbu.env.actions import NUM_ACTIONS, legal_ids, to_engine
from barbu.env.encoding import layout
from barbu.env.tracker import Tracker

Obs = dict[str, Any]  # "observation" and "action_mask", both numpy arrays
REWARDS = ("hand", "game")
ILLEGAL = ("raise", "replace")
_NO_ACTION = np.zeros(NUM_ACTIONS, dtype=np.int8)


def observation_space(game: Game) -> spaces.Dict:
    """The space of one agent's observation: the encoded array and the action mask."""
    lay = layout(game)
    low = np.zeros(lay.size, dtype=np.float32)
    high = np.ones(lay.size, dtype=np.float32)
    for name in ("points", "totals"):  # scores have no fixed bound; every other entry is in [0, 1]
        f = lay.fields[name]
        low[f.offset:f.end], high[f.offset:f.end] = -np.inf, np.inf
    return spaces.Dict({
        "observation": spaces.Box(low, high, dtype=np.float32),
        "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
    })


# The action type is Any: the space is Discrete (numpy ints), and dead agents step with None.
class BarbuEnv(AECEnv[str, Obs, Any]):
    """Barbu for PettingZoo: agents ``player_0`` …, one ``Discrete(93)`` action space.

    ``reward="hand"`` pays every seat its score as each hand ends; ``"game"`` pays the totals once,
    at the end. Classic scores are paid as scored; family scores are negated (lowest wins there),
    so that more is always better. ``hands``: end the game (terminated) after its first
    ``hands`` hands, for short episodes. ``max_cycles``: every agent acts at most this many
    times, and then the game is truncated. ``illegal="raise"``: an illegal action raises the
    engine's IllegalActionError and changes nothing; ``"replace"``: it is replaced by a legal
    action drawn uniformly from the env's own random generator (seeded by ``reset``), and the
    acting agent's info says so (``"replaced": [given id, id played]``).
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 (PettingZoo reads it as a plain attribute)
        "name": "barbu_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}

    def __init__(self, rules: str = "classic", players: int = 4, options: tuple[str, ...] = (),
                 reward: str = "hand", hands: int | None = None, max_cycles: int | None = None,
                 render_mode: str | None = None, illegal: str = "raise") -> None:
        # No super().__init__(): AECEnv's does nothing (and, unannotated, would need an ignore).
        if reward not in REWARDS:
            raise ValueError(f"unknown reward {reward!r} (hand or game)")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render mode {render_mode!r} (ansi or human)")
        self.game = Game(rules, players, frozenset(options))  # refuses tables the rules do not allow
        self.reward_mode = reward
        if illegal not in ILLEGAL:
            raise ValueError(f"unknown illegal {illegal!r} (raise or replace)")
        self.illegal = illegal
        if hands is not None and not 1 <= hands <= self.game.num_hands:
            raise ValueError(f"hands must be 1 to {self.game.num_hands}, not {hands}")
        self.hands = hands if hands is not None else self.game.num_hands
        self.sign = 1.0 if self.game.is_classic else -1.0
        if max_cycles is not None and max_cycles < 1:
            raise ValueError(f"max_cycles must be at least 1, not {max_cycles}")
        self.max_cycles = max_cycles
        self.render_mode = render_mode
        self.possible_agents = [f"player_{s}" for s in range(self.game.players)]
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        obs_space, act_space = observation_space(self.game), spaces.Discrete(NUM_ACTIONS)
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, act_space)
        self._seeds = random.Random()
        self._rng = random.Random()  # draws the legal action that replaces an illegal one
        self.game_state = State(self.game, seed=0)
        self.tracker = Tracker(self.game_state)
        self._acted = [0] * self.game.players
        self._paid = False

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; with ``seed``, the same deals, first declarer and everything else each time.

        Without a seed, the next game of the sequence the last seed began (or a fresh one).
        """
        if seed is not None:
            self._seeds = random.Random(seed)
        self.game_state = State(self.game, seed=self._seeds.randrange(2**63))
        # from the game's own seed, so that the stream of game seeds is the same whatever the option
        self._rng.seed(f"{self.game_state.seed}:replace")
        self._deal()
        self.tracker.rebuild(self.game_state)
        self._paid = False
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._acted = [0] * self.game.players
        self.agent_selection = self.possible_agents[self.game_state.current]

    def _deal(self) -> None:
        # A family redeal (K♥ set aside when it is the chooser's last challenge) stays at the deal.
        while self.game_state.phase == Phase.DEAL:
            self.game_state.deal_random()

    def observe(self, agent: str) -> Obs:
        """The agent's encoded view and its action mask, both from what its seat may see.

        The array is the :class:`~barbu.env.tracker.Tracker`'s, equal to
        ``encode(game_state.observe(seat))``; the mask is the engine's legal actions, for the
        seat to act only.
        """
        seat = self._seat[agent]
        state = self.game_state
        mask = _NO_ACTION.copy()
        if seat == state.current:
            for i in legal_ids(state.legal_actions(), seat, self.game):
                mask[i] = 1  # item by item: quicker than fancy indexing for a dozen ids
        return {"observation": self.tracker.encode(seat), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act: None is only for agents that are done")
        state = self.game_state
        seat = state.current
        before = state.hand_no
        self._apply(int(action), seat, agent)
        self._acted[seat] += 1
        self._cumulative_rewards[agent] = 0.0
        if self._paid:  # rewards are zero but on the step that ends a hand: clear only then
            self._clear_rewards()
            self._paid = False
        over = False
        if state.hand_no > before:  # only then can the game end or cards be dealt
            self._pay(before)
            over = self.is_over
            if over:
                self.terminations = dict.fromkeys(self.agents, True)
            else:
                self._deal()
        if not over:
            self.agent_selection = self.possible_agents[state.current]
            if self.max_cycles is not None and self._acted[state.current] >= self.max_cycles:
                self.truncations = dict.fromkeys(self.agents, True)
        self.tracker.update()
        if self._paid:
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _apply(self, action_id: int, seat: int, agent: str) -> None:
        """Apply the agent's action, or with ``illegal="replace"`` a legal one in its place."""
        state = self.game_state
        if self.infos[agent]:
            self.infos[agent] = {}
        try:
            state.apply(to_engine(action_id, seat, self.game))
            return
        except (IllegalActionError, ValueError):
            if self.illegal == "raise":
                raise
        legal = state.legal_actions()
        played = legal[int(self._rng.random() * len(legal))]
        self.infos[agent] = {"replaced": [action_id, legal_ids([played], seat, self.game)[0]]}
        state.apply(played)

    def _pay(self, first_hand: int) -> None:
        """The rewards of the hands finished since ``first_hand`` (per hand, or the totals at the end)."""
        state = self.game_state
        self._paid = True
        if self.reward_mode == "hand":
            for record in state.history[first_hand:]:
                for s, score in enumerate(record.scores):
                    self.rewards[self.possible_agents[s]] += self.sign * score
        elif self.is_over:
            for s, total in enumerate(state.totals):
                self.rewards[self.possible_agents[s]] = self.sign * total

    @property
    def is_over(self) -> bool:
        """Whether the game (or the ``hands`` it was cut to) is over."""
        return self.game_state.hand_no >= self.hands

    def render(self) -> str | None:
        """The table as text (it shows every hand: for people watching, not for the agents)."""
        if self.render_mode is None:
            return None
        text = describe(self.game_state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def describe(state: State) -> str:
    """A few lines on the state: the hand, the contract, the trick, every seat's cards and totals."""
    g = state.game
    c = state.contract
    lines = [f"hand {state.hand_no + 1 if not state.is_over else g.num_hands}/{g.num_hands}, "
             f"declarer player_{state.declarer}, {c.name if c else 'no contract yet'}, "
             f"phase {state.phase.name.lower()}"]
    if state.trick:
        n = g.players
        lines.append("trick: " + " ".join(f"player_{(state.leader + i) % n}:{card_str(x)}"
                                          for i, x in enumerate(state.trick)))
    for s in range(g.players):
        mark = ">" if s == state.current else " "
        lines.append(f"{mark} player_{s} total {state.totals[s]:>5}  {mask_str(state.hands[s])}")
    return "\n".join(lines)
