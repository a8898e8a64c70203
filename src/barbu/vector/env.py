"""VectorEnv: B games stepped together, with auto-reset, barbu.env's masks, observations and rewards."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from barbu.engine.game import Game
from barbu.env.actions import NUM_ACTIONS
from barbu.env.encoding import obs_size
from barbu.env.seeds import stream_seed
from barbu.vector.apply import Rules
from barbu.vector.backend import I64, U64, Bool, Float, Int, xp
from barbu.vector.deal import Dealt, deal, dealt
from barbu.vector.games import GAME_FIELDS, HAND_FIELDS, Games, refresh
from barbu.vector.legal import legal_mask
from barbu.vector.tables import tables
from barbu.vector.views import Views

if TYPE_CHECKING:
    from barbu.vector.compiled import Compiled

BACKENDS = ("numpy", "numba")  # numba: the compiled kernels of barbu.vector.kernels (the fast extra)

Reset = tuple[Float, Bool, Int]
Step = tuple[Float, Bool, Int, Float, Bool]


class VectorEnv:
    """``batch`` games of one table, stepped together; a game that ends is reset at once.

    Game ``b`` plays exactly the games that ``barbu.env`` plays after
    ``reset(seed=stream_seed(seed, b))`` and then ``reset()`` each time one ends: the same
    engine seeds, so the same deals, and with the same actions the same observations, masks
    and rewards. ``hands`` ends each game after that many hands, as in barbu.env.
    ``backend="numba"`` runs the rules, masks and observations as compiled loops (the fast
    extra), to the same results; ``"numpy"`` is the reference. With ``reuse=True`` the numba
    backend writes every step's observations and masks into the same two arrays (the ones the
    previous step returned: copy what you keep); by default each step's arrays are new.
    """

    def __init__(self, rules: str = "classic", players: int = 4, options: Sequence[str] = (),
                 batch: int = 64, seed: int = 0, hands: int | None = None, reward: str = "hand",
                 backend: str = "numpy", reuse: bool = False) -> None:
        if reward not in ("hand", "game"):
            raise ValueError(f"unknown reward {reward!r} (hand or game)")
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend {backend!r} ({' or '.join(BACKENDS)})")
        if batch < 1 or seed < 0:
            raise ValueError("batch must be at least 1 and seed at least 0")
        self.game = Game(rules, players, frozenset(options))
        if hands is not None and not 1 <= hands <= self.game.num_hands:
            raise ValueError(f"hands must be 1 to {self.game.num_hands}, not {hands}")
        self.hands = hands if hands is not None else self.game.num_hands
        self.reward = reward
        self.num_envs, self.num_players, self.num_actions = batch, players, NUM_ACTIONS
        self.obs_size = obs_size(self.game)
        self.tables = tables(self.game)
        self.sign = 1.0 if self.game.is_classic else -1.0
        self.seed = seed
        self.games = Games(batch, players)
        self.views = Views(self.game, batch)
        self.rules = Rules(self.tables, self.views, self.game.hands_per_declarer, self.game.is_classic,
                           self.game.hand_size)
        self.backend = backend
        self._apply: Callable[[Games, Int], Bool] = self.rules.step
        self._cards: Dealt = dealt
        self._refresh: Callable[[Games, Int, tuple[str, ...]], None] = refresh
        self._fast: Compiled | None = None
        self._mask: Callable[[Games], Bool] = lambda g: legal_mask(g, self.tables)
        self._read: Callable[[Games], Float] = lambda g: self.views.read(g, self.tables)
        if backend == "numba":  # the fast extra: numba is imported only when asked for
            try:
                from barbu.vector.compiled import Compiled
            except ModuleNotFoundError as missing:
                raise ImportError('backend="numba" needs numba: pip install -e ".[fast]"') from missing

            fast = Compiled(self.tables, self.views, self.game.hand_size, self.game.is_classic,
                            self.game.hands_per_declarer)
            self._apply, self._mask, self._read = fast.step, fast.legal_mask, fast.read
            if reuse:  # one observation array and one mask for the whole run, overwritten each step
                obs = np.empty((batch, self.obs_size), dtype=np.float32)
                mask = np.empty((batch, NUM_ACTIONS), dtype=np.bool_)
                self._mask, self._read = lambda g: fast.legal_mask(g, mask), lambda g: fast.read(g, obs)
            self._cards, self._fast, self._refresh = fast.dealt, fast, fast.refresh
        self.mask: Bool = xp.zeros((batch, NUM_ACTIONS), dtype=np.bool_)
        self._rows = np.arange(batch) * NUM_ACTIONS  # where each game's mask row starts, flattened
        self._streams: list[random.Random] = []
        # Seconds spent in each part of step() (barbu.vector.speed turns it on; None: not kept).
        self.timings: dict[str, float] | None = None

    @property
    def cards(self) -> U64:
        """Every seat's cards in each game, ``(B, n)`` card masks (the whole deal: not for agents)."""
        return self.games.hands.copy()

    @property
    def seeds(self) -> I64:
        """The engine seed of each game in progress (``State(game, seed=...)`` replays it)."""
        return self.games.seed.copy()

    def reset(self, seed: int | None = None) -> Reset:
        """New games everywhere; with ``seed``, the streams of games start again from it."""
        if seed is not None or not self._streams:
            self.seed = self.seed if seed is None else seed
            self._streams = [random.Random(stream_seed(self.seed, b)) for b in range(self.num_envs)]
        self._new_games(np.arange(self.num_envs))
        return self._view()

    def step(self, actions: npt.ArrayLike) -> Step:
        """Each game's player to act takes its action id; games that end start again."""
        g = self.games
        a = np.asarray(actions).astype(np.int32).reshape(g.batch)
        known = (a >= 0) & (a < NUM_ACTIONS)
        # A flat take: np.clip (which makes an np.iinfo at each call) stood out in cProfile.
        legal = known & self.mask.reshape(-1).take(self._rows + np.where(known, a, 0))
        if not legal.all():
            bad = int(np.flatnonzero(~legal)[0])
            raise ValueError(f"game {bad}: action {int(a[bad])} is not legal for seat {int(g.current[bad])}")
        clock = time.perf_counter
        t0 = clock()
        ended = self._apply(g, xp.asarray(a))
        t1 = clock()
        rewards = xp.zeros((g.batch, g.n), dtype=np.float32)
        done = xp.zeros(g.batch, dtype=np.bool_)
        if ended.any():
            rewards, done = self._close_hands(np.asarray(ended))
        t2 = clock()
        self.mask = self._mask(g)
        t3 = clock()
        obs = self._read(g)
        if self.timings is not None:
            parts = (("apply", t1 - t0), ("deal", t2 - t1), ("mask", t3 - t2), ("obs", clock() - t3))
            for part, seconds in parts:
                self.timings[part] = self.timings.get(part, 0.0) + seconds
        return obs, self.mask, g.current.copy(), rewards, done

    def _view(self) -> Reset:
        g = self.games
        self.mask = self._mask(g)
        return self._read(g), self.mask, g.current.copy()

    def _close_hands(self, ended: Bool) -> tuple[Float, Bool]:
        """Score the hands that ended, pay the rewards, and deal the next hands or games."""
        g, t, n = self.games, self.tables, self.games.n
        idx = np.flatnonzero(ended)  # a few games a step: scored on the host, by index
        if self._fast is not None:
            rewards = np.zeros((g.batch, n), dtype=np.float32)
            done = np.zeros(g.batch, dtype=np.bool_)
            over = self._fast.score(g, idx, self.hands, self.reward == "hand", self.sign, rewards, done)
            self._next_hands(idx[~over])
            self._new_games(idx[over])
            return rewards, done
        c, out = g.contract[idx], g.out[idx]
        places = t.out_scores[c[:, None], np.where(out < 0, n - 1, out)]
        cs = np.where((t.kind[c] == 0)[:, None], g.points[idx], places)
        scores = cs + _settlement(g.doubled[idx], g.redoubled[idx], cs)
        g.totals[idx] += scores
        g.used[idx, g.declarer[idx]] |= 1 << c
        g.hand_no[idx] += 1
        if self.game.is_classic:
            g.dbl_count[idx[g.hand_no[idx] % 7 == 0]] = 0
        over = g.hand_no[idx] >= self.hands
        rewards = np.zeros((g.batch, n), dtype=np.float32)
        paid = scores if self.reward == "hand" else np.where(over[:, None], g.totals[idx], 0)
        rewards[idx] = self.sign * paid
        done = np.zeros(g.batch, dtype=np.bool_)
        done[idx[over]] = True
        self._next_hands(idx[~over])
        self._new_games(idx[over])
        return rewards, done

    def _next_hands(self, idx: Int) -> None:
        g = self.games
        if not len(idx):
            return
        if self._fast is not None:  # the same steps below, in one compiled pass
            self._fast.next_hands(g, idx)
            return
        self._refresh(g, idx, HAND_FIELDS)
        per = self.game.hands_per_declarer
        g.declarer[idx] = g.leader[idx] = (g.first_declarer[idx] + g.hand_no[idx] // per) % g.n
        g.redeals[idx] = 0
        deal(g, self.tables, idx, self.game.hand_size, self._cards)
        if self.backend == "numpy":  # the compiled observation is made from the games' fields alone
            self.views.new_hand(g, idx)

    def _new_games(self, idx: Int) -> None:
        g = self.games
        if not len(idx):
            return
        for b in idx:
            g.seed[b] = self._streams[b].randrange(2**63)
        first = [random.Random(f"{g.seed[b]}:declarer").randrange(g.n) for b in idx]
        g.first_declarer[idx] = first
        self._refresh(g, idx, GAME_FIELDS)
        self._next_hands(idx)


def _settlement(doubled: Int, redoubled: Int, cs: Int) -> Int:
    """What each seat wins or loses over its doubled pairs (RULES.md 1.5)."""
    n = cs.shape[1]
    seats = np.arange(n)
    d = (doubled[:, :, None] >> seats) & 1
    r = (redoubled[:, :, None] >> seats) & 1
    pairs = d | d.transpose(0, 2, 1)
    mult = pairs * (1 + (r | r.transpose(0, 2, 1)))
    won: Int = (mult * (cs[:, :, None] - cs[:, None, :])).sum(axis=2)
    return won
