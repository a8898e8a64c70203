"""Train sb3-contrib's MaskablePPO on one seat of barbu/Classic-v0, then match it in barbu arena.

    pip install -e ".[train]"      # sb3-contrib, and with it stable-baselines3 and torch
    .venv/bin/python examples/train_maskable_ppo.py [--steps 300000] [--minutes M] [--envs 2]
        [--opponents random] [--hidden 128] [--out ppo.npz] [--curve ppo-curve.csv]
        [--deals 300] [--against random,basic]

The environment is the registered single-seat Gymnasium env (``barbu.env.single.SeatEnv``): one
hand an episode, the learner's seat drawn from each game's seed, the other seats played by
``--opponents``, the reward the learner's points in the hand (classic, as scored). MaskablePPO
reads the legal ids from the env's ``action_masks()``. ``--envs`` games run in as many worker
processes (two for the project's two cores); torch uses one thread in each process. The policy
is an MLP with one hidden ReLU layer, so that its actor is exactly a
:class:`barbu.bots.learned.Network`: after training it is saved as one (``--out``, ``.npz``) and
played as the arena level ``policy:PATH`` (the legal id it rates highest) against three bots of
each level of ``--against``, in duplicate deals; the script prints its edge with 95% intervals.
``--curve`` writes the learning curve: after each rollout, the mean reward of the last 100 episodes.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one thread per process: the workers share two cores

import numpy as np  # after the thread setting

from barbu.bots.learned import Network
from barbu.cli import main as barbu

ENV_ID = "barbu.env:barbu/Classic-v0"  # the prefix imports barbu.env, which registers the id


def export(weights: dict[str, np.ndarray], rules: str, players: int) -> Network:
    """The actor of an SB3 ``MlpPolicy`` with one hidden layer as a barbu Network.

    SB3's actor is ``action_net(relu(policy_net(x)))`` with torch's ``Linear`` weights stored
    (out, in); the Network computes ``relu(x @ w1 + b1) @ w2 + b2``, so the weights transpose.
    """
    def get(name: str) -> np.ndarray:
        return np.asarray(weights[name], dtype=np.float32)

    if "mlp_extractor.policy_net.2.weight" in weights:
        raise ValueError("the policy has more than one hidden layer: a Network holds one")
    return Network(rules, players, get("mlp_extractor.policy_net.0.weight").T.copy(),
                   get("mlp_extractor.policy_net.0.bias"), get("action_net.weight").T.copy(),
                   get("action_net.bias"))


def arena(path: Path, opponent: str, args: argparse.Namespace) -> dict[str, Any]:
    """``policy:PATH`` against three ``opponent`` bots in duplicate deals: the arena's summary."""
    bots = ",".join([f"policy:{path}"] + [opponent] * 3)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "arena.json"
        status = barbu(["arena", "--bots", bots, "--deals", str(args.deals), "--seed",
                        str(args.arena_seed), "--no-records", "--quiet", "--json", str(out)])
        if status != 0:
            raise SystemExit(f"barbu arena failed with status {status}")
        summary: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return summary


def train(args: argparse.Namespace) -> tuple[Network, dict[str, float]]:
    """MaskablePPO on ``args.envs`` worker processes; the learning curve written as it goes."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecNormalize

    torch.set_num_threads(1)
    vec = make_vec_env(ENV_ID, n_envs=args.envs, seed=args.seed,
                       vec_env_cls=SubprocVecEnv if args.envs > 1 else DummyVecEnv,
                       env_kwargs={"opponents": args.opponents, "hands": 1, "render_mode": None})
    vec = VecNormalize(vec, norm_obs=False, norm_reward=True)  # hand scores run to ±100s
    model = MaskablePPO("MlpPolicy", vec, seed=args.seed, n_steps=args.n_steps, batch_size=256,
                        learning_rate=args.lr, ent_coef=0.01, verbose=0,
                        policy_kwargs={"net_arch": {"pi": [args.hidden], "vf": [args.hidden]},
                                       "activation_fn": torch.nn.ReLU})
    start = time.perf_counter()

    class Curve(BaseCallback):
        """After each rollout, a row: steps, episodes, mean reward of the last 100, seconds."""

        def __init__(self, file: Any) -> None:
            super().__init__()
            self.file, self.writer = file, csv.writer(file)

        def _on_step(self) -> bool:
            return time.perf_counter() - start < args.minutes * 60  # False ends the training

        def _on_rollout_end(self) -> None:
            infos = self.model.ep_info_buffer
            if infos:
                mean = float(np.mean([e["r"] for e in infos]))
                self.writer.writerow([self.num_timesteps, len(infos), f"{mean:.3f}",
                                      f"{time.perf_counter() - start:.1f}"])
                self.file.flush()  # the curve can be watched while it trains

    with open(args.curve, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerow(["steps", "episodes_in_mean", "mean_reward_last_100", "seconds"])
        model.learn(total_timesteps=args.steps, callback=Curve(f))
    seconds = time.perf_counter() - start
    weights = {k: v.detach().cpu().numpy() for k, v in model.policy.state_dict().items()}
    vec.close()
    return export(weights, "classic", 4), {"seconds": seconds, "steps": float(model.num_timesteps)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=300_000, help="learner decisions to train on, at most")
    p.add_argument("--minutes", type=float, default=float("inf"), help="stop training after this long")
    p.add_argument("--envs", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--opponents", default="random", help="bot level of the other seats while training")
    p.add_argument("--hidden", type=int, default=128, help="hidden units (default 128)")
    p.add_argument("--n-steps", type=int, default=1024, help="steps per env per rollout (default 1024)")
    p.add_argument("--lr", type=float, default=3e-4, help="Adam step size (default 0.0003)")
    p.add_argument("--seed", type=int, default=0, help="training seed (default 0)")
    p.add_argument("--out", default="ppo.npz", help="where the actor is saved, as a barbu Network")
    p.add_argument("--curve", default="ppo-curve.csv", help="where the learning curve is written")
    p.add_argument("--deals", type=int, default=300, help="arena deals against each level (default 300)")
    p.add_argument("--against", default="random,basic", help="arena opponents' levels (default random,basic)")
    p.add_argument("--arena-seed", type=int, default=1, help="seed of the arena matches (default 1)")
    args = p.parse_args()
    net, run = train(args)
    net.save(args.out)
    print(f"trained {run['seconds'] / 60:.1f} min: {run['steps']:,.0f} learner decisions "
          f"({run['steps'] / run['seconds']:,.0f}/s); saved {args.out}, curve {args.curve}")
    for level in args.against.split(","):
        pair = arena(Path(args.out), level, args)["deals"]["levels"][0]
        d = pair["diff"]
        print(f"arena, {args.deals} deals × 4 rotations, seed {args.arena_seed}: {pair['a']} vs "
              f"{pair['b']}: {d['mean']:+.2f} points per hand, 95% interval "
              f"[{d['low']:+.2f}, {d['high']:+.2f}]")


if __name__ == "__main__":
    main()
