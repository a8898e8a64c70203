"""``barbu bench --env``: learning-environment steps per second, beside OpenSpiel Hearts, in one run.

Each figure is what a learning loop does at every decision. For ``barbu.env`` (the AEC env,
unwrapped): ``env.last()`` (the seat's observation array and action mask), a uniformly random
id among the mask's ones, ``env.step``; games are played to the end and reset. For OpenSpiel's
Hearts driven from Python (no card passing): ``information_state_tensor()`` and
``legal_actions_mask()`` read into NumPy arrays, a uniformly random legal action among the
mask's ones, ``apply_action``; its chance steps (the deal) take their time but are not counted
as steps. Figures alternate round by round, the best round of each kept, so that a change in
the machine's load touches them alike. A second column splits a step's time into its parts.

Rows are :class:`Row` values printed by :func:`print_rows`; the batched engine's rows
(:mod:`barbu.vector` at each batch size of ``--batches``: B games stepped together, each game's
action a step) are printed beside them in ``extra``, with their time split into the rules
(``apply``), scoring and dealing (``deal``), masks and observations.
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

import barbu
from barbu.env.aec import BarbuEnv
from barbu.wording import plural

TABLES = (("classic", 4), ("family", 4), ("family", 6))
REFERENCE = "OpenSpiel Hearts (tensor + mask)"


@dataclass
class Row:
    """One figure: steps per second, and microseconds per step by part (may be empty)."""

    name: str
    steps_per_second: float
    parts: dict[str, float] = field(default_factory=dict)


Clock = Callable[[], float]
_clock: Clock = time.perf_counter


def env_steps(env: BarbuEnv, rng: random.Random, seconds: float) -> float:
    """barbu.env agent steps per second through last() and step() for about ``seconds``."""
    steps = 0
    start = _clock()
    deadline = start + seconds
    while True:
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.reset()
            if _clock() >= deadline:
                break
            continue
        assert obs is not None
        ids = np.flatnonzero(obs["action_mask"])
        env.step(int(ids[int(rng.random() * len(ids))]))
        steps += 1
    return steps / (_clock() - start)


def env_split(env: BarbuEnv, rng: random.Random, steps: int) -> dict[str, float]:
    """Microseconds per step: last(), the random choice, step(), and within step() the engine's
    apply and the tracker's update of the arrays (the rest is PettingZoo's bookkeeping)."""
    spent = dict.fromkeys(("last", "choose", "step", "apply", "track"), 0.0)
    apply, update = env._apply, env.tracker.update

    def timed_apply(action_id: int, seat: int, agent: str) -> None:
        t = _clock()
        apply(action_id, seat, agent)
        spent["apply"] += _clock() - t

    def timed_update() -> None:
        t = _clock()
        update()
        spent["track"] += _clock() - t

    env._apply = timed_apply  # type: ignore[method-assign]
    env.tracker.update = timed_update  # type: ignore[method-assign]
    try:
        for _ in range(steps):
            t0 = _clock()
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.reset()
                continue
            t1 = _clock()
            assert obs is not None
            ids = np.flatnonzero(obs["action_mask"])
            action = int(ids[int(rng.random() * len(ids))])
            t2 = _clock()
            env.step(action)
            t3 = _clock()
            for part, dt in (("last", t1 - t0), ("choose", t2 - t1), ("step", t3 - t2)):
                spent[part] += dt
    finally:
        del env._apply, env.tracker.update  # back to the methods
    return {part: dt / steps * 1e6 for part, dt in spent.items()}


def hearts_factory() -> Callable[[random.Random, float], tuple[float, dict[str, float]]] | None:
    """A function measuring OpenSpiel Hearts steps per second (and its split), or None without it."""
    try:
        import pyspiel  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    game = pyspiel.load_game("hearts", {"pass_cards": False})

    def measure(rng: random.Random, seconds: float) -> tuple[float, dict[str, float]]:
        spent = dict.fromkeys(("tensor", "mask", "apply"), 0.0)
        steps = 0
        start = _clock()
        deadline = start + seconds
        while _clock() < deadline:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():  # the deal: legal_actions() lists the outcomes
                    outcomes = state.legal_actions()
                    state.apply_action(outcomes[int(rng.random() * len(outcomes))])
                    continue
                t0 = _clock()
                np.asarray(state.information_state_tensor(), dtype=np.float32)
                t1 = _clock()
                ids = np.flatnonzero(np.asarray(state.legal_actions_mask(), dtype=np.bool_))
                t2 = _clock()
                state.apply_action(int(ids[int(rng.random() * len(ids))]))
                t3 = _clock()
                for part, dt in (("tensor", t1 - t0), ("mask", t2 - t1), ("apply", t3 - t2)):
                    spent[part] += dt
                steps += 1
        rate = steps / (_clock() - start)
        return rate, {part: dt / max(steps, 1) * 1e6 for part, dt in spent.items()}

    return measure


def env_rows(seconds: float, rounds: int, seed: int) -> list[Row]:
    """barbu.env on each table of TABLES, then OpenSpiel Hearts when installed."""
    rng = random.Random(seed)
    envs = {f"barbu.env {r}{'' if r == 'classic' else n} (AEC)": BarbuEnv(r, n) for r, n in TABLES}
    for k, env in enumerate(envs.values()):
        env.reset(seed=seed + k)
    hearts = hearts_factory()
    best: dict[str, Row] = {name: Row(name, 0.0) for name in envs}
    if hearts is not None:
        best[REFERENCE] = Row(REFERENCE, 0.0)
    for _ in range(rounds):  # alternate, so that the machine's load touches every figure alike
        for name, env in envs.items():
            best[name].steps_per_second = max(best[name].steps_per_second,
                                              env_steps(env, rng, seconds / rounds))
        if hearts is not None:
            rate, parts = hearts(rng, seconds / rounds)
            if rate > best[REFERENCE].steps_per_second:
                best[REFERENCE] = Row(REFERENCE, rate, parts)
    for name, env in envs.items():
        best[name].parts = env_split(env, rng, max(200, int(2000 * seconds)))
    return list(best.values())


def _parts(parts: dict[str, float]) -> str:
    return "  ".join(f"{k} {v:.1f}" for k, v in parts.items())


def print_rows(rows: Sequence[Row], extra: Sequence[Row] = ()) -> None:
    """The table of figures: steps per second, the ratio to OpenSpiel Hearts, µs per step by part.

    ``extra``: more rows (another engine's), printed after these and compared the same way.
    """
    everything = [*rows, *extra]
    ref = next((r.steps_per_second for r in everything if r.name == REFERENCE), None)
    print(f"  {'':36s} {'steps/s':>10s} {'× Hearts':>9s}   µs per step")
    for r in everything:
        ratio = f"{r.steps_per_second / ref:9.1f}" if ref else f"{'-':>9s}"
        print(f"  {r.name:36s} {r.steps_per_second:10,.0f} {ratio}   {_parts(r.parts)}")
    if ref is None:
        print("  no OpenSpiel Hearts row (not measured, or open_spiel not installed): no ratio")


def run(args: argparse.Namespace) -> int:
    """``barbu bench --env``: measure and print."""
    build = "compiled (mypyc)" if barbu.COMPILED else "pure Python"
    print(f"barbu.env benchmark — Python {platform.python_version()} on {platform.machine()}, "
          f"engine {build}, {args.seconds:g} s per figure, best of {args.rounds}, seed {args.seed}")
    print("  barbu.env step = last() + random id from the mask + step(); step's parts: apply "
          "(engine), track (arrays); Hearts: tensor + mask read into NumPy, apply")
    print("  barbu.vector, classic table, NumPy backend and (numba installed) compiled one: B games "
          "stepped together, each game's action a step;\n  random legal actions; parts: apply "
          "(rules), deal (scoring, resets, deals), mask, obs")
    rows = env_rows(args.seconds, args.rounds, args.seed)
    print_rows(rows, extra=vector_rows(args.seconds, args.batches))
    return 0


def vector_rows(seconds: float, batches: Sequence[int]) -> list[Row]:
    """barbu.vector on the classic table at each batch size: steps/s and µs per step by part.

    Its NumPy backend always; its compiled one too where numba is installed (the ``fast`` extra).
    """
    from barbu.vector.speed import PARTS, rates

    backends = ["numpy"] + (["numba"] if importlib.util.find_spec("numba") else [])
    rows = []
    for backend in backends:
        for r in rates("classic", 4, batches, seconds, backend=backend):
            per_step = 1e6 / r["steps_per_s"] if r["steps_per_s"] else 0.0
            parts = {p: r[p] * per_step for p in PARTS}
            n = int(r["batch"])
            games = plural(n, "game").replace(str(n), f"{n:,}")
            rows.append(Row(f"barbu.vector {backend}, {games}", r["steps_per_s"], parts))
    return rows
