"""How many steps a second barbu.vector runs at each batch size, and where the time of a step goes."""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from barbu.vector.env import VectorEnv

PARTS = ("apply", "deal", "mask", "obs")  # the rules, scoring and dealing, the masks, the observations


def _pick(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action id per game."""
    return np.argmax(mask * rng.random(mask.shape, dtype=np.float32), axis=1)  # type: ignore[no-any-return]


def _warm(rules: str, players: int, options: Sequence[str], backend: str) -> None:
    """Play two one-hand games to their end first, so that no compiling (numba's first calls of
    each kernel, the hand-end and deal ones included) falls inside a measurement."""
    env = VectorEnv(rules, players, options, batch=2, seed=0, hands=1, backend=backend)
    rng = np.random.default_rng(0)
    _, mask, _ = env.reset()
    ended = 0
    while ended < 2:
        _, mask, _, _, done = env.step(_pick(mask, rng))
        ended += int(done.sum())


def rate(rules: str, players: int, batch: int, seconds: float, options: Sequence[str] = (),
         seed: int = 1, backend: str = "numpy", reuse: bool = False) -> dict[str, float]:
    """Steps a second (a step: one action in one game) with random legal actions at batch size ``batch``.

    Only the env's step() is timed (the random policy is not); ``cpu`` is the same rate over the
    process's CPU time, which other programs on a shared machine disturb less than the clock.
    """
    _warm(rules, players, options, backend)
    env = VectorEnv(rules, players, options, batch=batch, seed=seed, backend=backend, reuse=reuse)
    rng = np.random.default_rng(seed)
    _, mask, _ = env.reset()
    for _ in range(5):  # warm up: the first steps allocate
        _, mask, _, _, _ = env.step(_pick(mask, rng))
    env.timings = {}
    stepped, wall, cpu = 0, 0.0, 0.0
    while wall < seconds:
        actions = _pick(mask, rng)
        w, c = time.perf_counter(), time.process_time()
        _, mask, _, _, _ = env.step(actions)
        wall += time.perf_counter() - w
        cpu += time.process_time() - c
        stepped += batch
    spent = sum(env.timings.values()) or 1.0
    row = {"batch": float(batch), "steps_per_s": stepped / wall, "cpu_steps_per_s": stepped / max(cpu, 1e-9)}
    row.update({part: env.timings.get(part, 0.0) / spent for part in PARTS})
    return row


def rates(rules: str = "classic", players: int = 4, batches: Sequence[int] = (1, 64, 1024, 4096),
          seconds: float = 2.0, options: Sequence[str] = (),
          backend: str = "numpy", reuse: bool = False) -> list[dict[str, float]]:
    """One :func:`rate` row per batch size: batch, steps_per_s, cpu_steps_per_s and the parts' shares."""
    return [rate(rules, players, b, seconds, options, backend=backend, reuse=reuse) for b in batches]


def table(rows: list[dict[str, float]]) -> str:
    """The rows as a text table."""
    head = f"{'B':>6} {'steps/s':>11} {'(CPU time)':>11}  " + "  ".join(f"{p:>6}" for p in PARTS)
    lines = [head]
    for r in rows:
        shares = "  ".join(f"{r[p]:>6.0%}" for p in PARTS)
        rate_cols = f"{r['steps_per_s']:>11,.0f} {r['cpu_steps_per_s']:>11,.0f}"
        lines.append(f"{int(r['batch']):>6} {rate_cols}  {shares}")
    return "\n".join(lines)
