"""Steps a second of barbu.vector at several batch sizes, with the split of a step's time.

    .venv/bin/python research/vector_speed.py [--seconds 3] [--tables classic,family4,family6]
                                             [--batches 1,64,1024,4096] [--backend numba] [--reuse]

A step is one action in one game (a batch step at B = 4096 is 4096 steps), each with its
observation and mask; the random policy that picks the actions is not timed.
"""

from __future__ import annotations

import argparse
import os

from barbu.vector.speed import rates, table

TABLES = {"classic": ("classic", 4), **{f"family{n}": ("family", n) for n in range(3, 7)}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="seconds of stepping per batch size")
    ap.add_argument("--tables", default="classic", help=f"comma-separated, of {', '.join(TABLES)}")
    ap.add_argument("--batches", default="1,64,1024,4096", help="comma-separated batch sizes")
    ap.add_argument("--backend", default="numpy", help="numpy (the default) or numba (the fast extra)")
    ap.add_argument("--reuse", action="store_true",
                    help="VectorEnv(reuse=True): numba writes each step's observations into the same array")
    args = ap.parse_args()
    batches = [int(b) for b in args.batches.split(",")]
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    for name in args.tables.split(","):
        rules, players = TABLES[name]
        print(f"\n{name}: steps/s (wall clock and CPU time) and the shares of a step's time")
        print(table(rates(rules, players, batches, args.seconds, backend=args.backend, reuse=args.reuse)))


if __name__ == "__main__":
    main()
