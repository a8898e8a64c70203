"""barbu.env speed: agent steps per second of random masked play, with an observation and a mask each step.

    .venv/bin/python scripts/env_speed.py [--seconds 3] [--tables classic,family4,family6]

Each step is what a learning loop does: ``env.last()`` (the engine's observation of the seat to
act, encoded, and its action mask), a uniformly random id among the mask's ones, ``env.step``.
Games are played to the end, then reset. A second table splits one step's cost into the engine's
``observe``, ``encode``, the mask, and the engine's ``apply``. The header says which build of
the engine ran (``BARBU_PURE=1`` for the pure-Python one).
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

import barbu
from barbu.engine.hand import Phase
from barbu.env import aec_env
from barbu.env.actions import legal_ids
from barbu.env.aec import BarbuEnv
from barbu.env.encoding import encode


def table(name: str) -> tuple[str, int]:
    return ("classic", 4) if name == "classic" else ("family", int(name.removeprefix("family")))


def env_rate(env: BarbuEnv, seconds: float, rng: random.Random) -> float:
    """Agent steps per second through last() and step(), resetting at each game's end."""
    steps = 0
    env.reset(seed=1)
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.reset()
            if time.perf_counter() >= deadline:
                break
            continue
        assert obs is not None
        ids = np.flatnonzero(obs["action_mask"])
        env.step(int(ids[int(rng.random() * len(ids))]))
        steps += 1
    return steps / (time.perf_counter() - start)


def split(env: BarbuEnv, rng: random.Random, steps: int = 3000) -> dict[str, float]:
    """Microseconds per step in each part, over one stretch of random play."""
    spent = dict.fromkeys(("observe", "encode", "mask", "apply"), 0.0)
    env.reset(seed=2)
    state = env.game_state
    for _ in range(steps):
        if env.is_over:
            env.reset()
            state = env.game_state
        seat = state.current
        t0 = time.perf_counter()
        obs = state.observe(seat)
        t1 = time.perf_counter()
        encode(obs)
        t2 = time.perf_counter()
        mask = np.zeros(93, dtype=np.int8)
        mask[legal_ids(obs.legal, seat, env.game)] = 1
        t3 = time.perf_counter()
        action = obs.legal[int(rng.random() * len(obs.legal))]
        t4 = time.perf_counter()
        state.apply(action)
        while state.phase == Phase.DEAL:
            state.deal_random()
        t5 = time.perf_counter()
        for part, dt in zip(spent, (t1 - t0, t2 - t1, t3 - t2, t5 - t4), strict=True):
            spent[part] += dt
    return {part: dt / steps * 1e6 for part, dt in spent.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per table (default 3)")
    parser.add_argument("--tables", default="classic,family4,family6",
                        help="comma-separated: classic, family3 … family6")
    args = parser.parse_args()
    print(f"barbu.env, engine {'compiled (mypyc)' if barbu.COMPILED else 'pure Python'}")
    rng = random.Random(1)
    for name in args.tables.split(","):
        rules, players = table(name)
        env = aec_env(rules, players)
        rate = env_rate(env, args.seconds, rng)
        parts = "  ".join(f"{k} {v:.1f}" for k, v in split(env, rng).items())
        print(f"{name:>8}: {rate:9,.0f} steps/s   µs per step: {parts}")


if __name__ == "__main__":
    main()
