"""Train a small policy network for Barbu on batched games, then match it against random in barbu arena.

    .venv/bin/python examples/train_policy.py [--rules classic] [--minutes 10] [--deals 300]
                                              [--out policy.npz] [--env barbu.vector:VectorEnv]

NumPy only: a one-hidden-layer network (barbu.bots.learned.Network) over the encoded
observation of the seat to act, a softmax over its legal action ids, trained by REINFORCE with
a learned linear baseline and hand-written gradients (Adam). In each one-hand game of the batch
one seat (game i: seat i mod players) plays the network against random legal actions, or with
``--opponents self`` every seat plays it; each decision is credited with the discounted points
its seat takes from then on (classic as scored, family negated: more is better), less the
baseline. The batched games come
from the class named by ``--env``: by default ``barbu.vector:VectorEnv``, the batched engine;
``barbu.env.loop:LoopEnv`` has the same interface as a loop over ``barbu.env`` games. After
training, the network is saved and played as the level ``policy:PATH`` in a
duplicate arena match against three ``random`` bots, and the policy's edge over random is
printed with its 95% interval.
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import os
import time
from pathlib import Path
from typing import Any

# One BLAS thread, set before NumPy loads: for products this small, OpenBLAS's threads spend far
# more time waiting on each other than they save, and on a shared machine 50× more.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # after the thread settings
import numpy.typing as npt

from barbu.bots.learned import Network
from barbu.engine.game import Game
from barbu.env.encoding import layout
from barbu.tools.arena import ArenaError, match

F32 = npt.NDArray[np.float32]
NEG = np.float32(-1e9)  # the logit of an illegal action: never drawn, no weight in the softmax


class Adam:
    """Adam steps for a list of arrays, updated in place."""

    def __init__(self, params: list[F32], lr: float) -> None:
        self.params, self.lr, self.t = params, lr, 0
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]

    def step(self, grads: list[F32]) -> None:
        self.t += 1
        b1, b2 = 0.9, 0.999
        for p, g, m, v in zip(self.params, grads, self.m, self.v, strict=True):
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            p -= self.lr * (m / (1 - b1**self.t)) / (np.sqrt(v / (1 - b2**self.t)) + 1e-8)


def softmax(z: F32) -> F32:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    out: F32 = e / e.sum(axis=1, keepdims=True)
    return out


def masked_logits(net: Network, x: F32, mask: npt.NDArray[np.bool_]) -> tuple[F32, F32]:
    h = net.hidden(x)
    z = np.where(mask, h @ net.w2 + net.b2, NEG).astype(np.float32)
    return h, z


def sample(z: npt.NDArray[np.floating[Any]], rng: np.random.Generator) -> npt.NDArray[np.int64]:
    """One id per row drawn from softmax(z): the Gumbel-max trick, which never picks a masked id."""
    out: npt.NDArray[np.int64] = np.argmax(z + rng.gumbel(size=z.shape), axis=1)
    return out


class Learner:
    """The network, its baseline and their optimisers: one update per batch of scored decisions."""

    def __init__(self, net: Network, lr: float, entropy: float) -> None:
        self.net, self.entropy = net, entropy
        self.value = np.zeros(net.w1.shape[0] + 1, dtype=np.float32)  # linear baseline and bias
        self.opt = Adam([net.w1, net.b1, net.w2, net.b2], lr)
        self.vopt = Adam([self.value], lr)

    def update(self, x: F32, mask: npt.NDArray[np.bool_], a: npt.NDArray[np.int64],
               g: F32) -> float:
        """A policy-gradient step on these decisions and their returns; the mean |advantage|."""
        net, n = self.net, len(x)
        base = x @ self.value[:-1] + self.value[-1]
        err = base - g
        self.vopt.step([(np.append(x.T @ err, err.sum()) / n).astype(np.float32)])
        adv = g - base
        adv = (adv - adv.mean()) / (adv.std() + 1e-6)
        h, z = masked_logits(net, x, mask)
        p = softmax(z)
        dz = p.copy()
        dz[np.arange(n), a] -= 1.0
        dz *= adv[:, None]
        if self.entropy:  # push toward spreading the probability: d(-H)/dz = p (log p + H)
            logp = np.where(mask, np.log(np.maximum(p, 1e-12)), 0.0)
            ent = -(p * logp).sum(axis=1, keepdims=True)
            dz += self.entropy * p * (logp + ent)
        dz /= n
        dh = dz @ net.w2.T
        dh[h <= 0] = 0.0
        grads = [x.T @ dh, dh.sum(axis=0), h.T @ dz, dz.sum(axis=0)]
        self.opt.step([gr.astype(np.float32) for gr in grads])
        return float(np.abs(g - base).mean())


def returns(so_far: list[float], final: float, gamma: float) -> list[float]:
    """Each decision's discounted return, from the seat's points so far at its decisions.

    The points a seat gains between two of its decisions are the reward of the first (mostly
    the trick it just played to); the hand's final score less the points at its last decision is
    the reward of the last (doubles settle there). Undiscounted, decision ``t`` gets the final
    score less the points it already had, which its action cannot change.
    """
    rewards = [b - a for a, b in itertools.pairwise(so_far)]
    rewards.append(final - so_far[-1] if so_far else 0.0)
    out, g = [], 0.0
    for r in reversed(rewards[:len(so_far)]):
        g = r + gamma * g
        out.append(g)
    return out[::-1]


def env_class(path: str) -> Any:
    """The batched environment class named ``module:Class``."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def train(args: argparse.Namespace) -> tuple[Network, dict[str, float]]:
    """Self-play until the time is up; the network and a few figures of the run."""
    rng = np.random.default_rng(args.seed)
    env = env_class(args.env)(rules=args.rules, players=args.players, batch=args.batch,
                              seed=args.seed, hands=1, reward="hand")
    net = Network.initial(args.rules, args.players, args.hidden, rng)
    learner = Learner(net, args.lr, args.entropy)
    scale = 1 / args.score_scale
    # The seat's own contract points so far (relative seat 0 of the "points" field), as scored.
    lay = layout(Game(args.rules, args.players))
    at, per_point = lay.fields["points"].offset, lay.fields["points"].scale
    sign = 1.0 if args.rules == "classic" else -1.0  # the env pays family scores negated
    # Against random: game i's learner is seat i mod players, so that every seat is learnt.
    seats = None if args.opponents == "self" else np.arange(env.num_envs) % env.num_players
    obs, mask, player = env.reset()
    pending: list[list[tuple[F32, npt.NDArray[np.bool_], int, int]]] = [[] for _ in range(env.num_envs)]
    xs: list[F32] = []
    ms: list[npt.NDArray[np.bool_]] = []
    acts: list[int] = []
    gs: list[float] = []
    steps = updates = hands = 0
    start = time.perf_counter()
    deadline = start + 60 * args.minutes
    while time.perf_counter() < deadline:
        _, z = masked_logits(net, obs, mask)
        actions = sample(z, rng)
        learns = np.ones(env.num_envs, dtype=np.bool_) if seats is None else player == seats
        if seats is not None:  # the other seats play uniformly random legal actions
            actions = np.where(learns, actions, sample(np.where(mask, 0.0, NEG), rng))
        for i in np.flatnonzero(learns).tolist():
            # copies: a batched env may reuse its output arrays at the next step
            pending[i].append((obs[i].copy(), mask[i].copy(), int(actions[i]), int(player[i])))
        obs, mask, player, rewards, done = env.step(actions)
        steps += env.num_envs
        for i in np.flatnonzero(done).tolist():
            hands += 1
            for seat in range(env.num_players):
                mine = [d for d in pending[i] if d[3] == seat]
                so_far = [sign * per_point * float(x[at]) for x, _, _, _ in mine]
                for (x, m, a, _), g in zip(mine, returns(so_far, float(rewards[i, seat]),
                                                         args.gamma), strict=True):
                    xs.append(x)
                    ms.append(m)
                    acts.append(a)
                    gs.append(g * scale)
            pending[i] = []
        if len(xs) >= args.update:
            learner.update(np.stack(xs), np.stack(ms), np.array(acts), np.array(gs, np.float32))
            updates += 1
            xs, ms, acts, gs = [], [], [], []
    seconds = time.perf_counter() - start
    return net, {"seconds": seconds, "steps": steps, "hands": hands, "updates": updates,
                 "steps_per_second": steps / seconds}


def arena(path: Path, args: argparse.Namespace) -> dict[str, Any]:
    """The trained level against random bots in duplicate deals; the arena's summary."""
    bots = [f"policy:{path}"] + ["random"] * (args.players - 1)
    try:
        return match(bots, rules=args.rules, players=args.players, deals=args.deals, seed=args.arena_seed)
    except ArenaError as e:
        raise SystemExit(f"barbu arena: {e}") from None


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rules", choices=("classic", "family"), default="classic")
    p.add_argument("--players", type=int, default=None, help="default 4 (family: 3 to 6)")
    p.add_argument("--minutes", type=float, default=10.0, help="training time (default 10)")
    p.add_argument("--deals", type=int, default=300, help="arena deals afterwards (default 300)")
    p.add_argument("--out", default="policy.npz", help="where the network is saved")
    p.add_argument("--env", default="barbu.vector:VectorEnv",
                   help="batched environment class, module:Class (default barbu.vector:VectorEnv)")
    p.add_argument("--batch", type=int, default=64, help="games stepped together (default 64)")
    p.add_argument("--hidden", type=int, default=128, help="hidden units (default 128)")
    p.add_argument("--lr", type=float, default=1e-3, help="Adam step size (default 0.001)")
    p.add_argument("--entropy", type=float, default=0.01, help="entropy bonus (default 0.01)")
    p.add_argument("--update", type=int, default=4096, help="decisions per update (default 4096)")
    p.add_argument("--score-scale", type=float, default=100.0, help="scores divided by this")
    p.add_argument("--opponents", choices=("random", "self"), default="random",
                   help="who the other seats are while training: random legal actions (default), "
                        "or the network itself")
    p.add_argument("--gamma", type=float, default=0.9,
                   help="discount between a seat's decisions (default 0.9)")
    p.add_argument("--seed", type=int, default=0, help="training seed (default 0)")
    p.add_argument("--arena-seed", type=int, default=1, help="seed of the arena match (default 1)")
    args = p.parse_args()
    args.players = args.players or 4
    net, run = train(args)
    net.save(args.out)
    print(f"trained {run['seconds'] / 60:.1f} min: {run['steps']:,} decisions "
          f"({run['steps_per_second']:,.0f}/s), {run['hands']:,} hands, {run['updates']} updates; "
          f"saved {args.out}")
    summary = arena(Path(args.out), args)
    pair = summary["deals"]["levels"][0]
    d = pair["diff"]
    print(f"arena, {args.deals} deals × {args.players} rotations, seed {args.arena_seed}: "
          f"{pair['a']} vs {pair['b']}: {d['mean']:+.2f} points per hand, "
          f"95% interval [{d['low']:+.2f}, {d['high']:+.2f}] "
          f"({'above zero' if d['low'] > 0 else 'not above zero'})")


if __name__ == "__main__":
    main()
