"""barbu.env speed on chosen tables: agent steps per second of random masked play, and each step's parts.

    .venv/bin/python research/env_speed.py [--seconds 3] [--tables classic,family3,family6]

The measurement of ``barbu bench --env`` (:mod:`barbu.tools.envbench`: ``env.last()``, a
uniformly random id among the mask's ones, ``env.step``; games played to the end and reset),
for any tables, without OpenSpiel beside it. The header says which build of the engine ran
(``BARBU_PURE=1`` for the pure-Python one).
"""

from __future__ import annotations

import argparse
import random

import barbu
from barbu.env.aec import BarbuEnv
from barbu.tools.envbench import Row, env_split, env_steps, print_rows


def table(name: str) -> tuple[str, int]:
    return ("classic", 4) if name == "classic" else ("family", int(name.removeprefix("family")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per table (default 3)")
    parser.add_argument("--tables", default="classic,family4,family6",
                        help="comma-separated: classic, family3 … family6")
    args = parser.parse_args()
    print(f"barbu.env, engine {'compiled (mypyc)' if barbu.COMPILED else 'pure Python'}")
    rng = random.Random(1)
    rows = []
    for name in args.tables.split(","):
        env = BarbuEnv(*table(name))
        env.reset(seed=1)
        rate = env_steps(env, rng, args.seconds)
        rows.append(Row(f"barbu.env {name} (AEC)", rate, env_split(env, rng, 3000)))
    print_rows(rows)


if __name__ == "__main__":
    main()
