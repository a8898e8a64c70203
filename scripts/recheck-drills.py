"""Check the shipped drills again, independently of the run that mined them: each drill's view rebuilt,
searched afresh with another seed at ten times the coach's budget and floor of deals, and counted as
agreeing when that search ranks the drill's key first among the choices it offers.

    nice -n 10 .venv/bin/python scripts/recheck-drills.py [--seed 7] [--limit N]

Prints the agreement per rule set and kind of decision, and over all; the drills that disagree by id.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

from barbu.coach import hint
from barbu.learn.drills import drills

TIMES = 10  # the search's budget and floor, in the mining coach's


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=7, help="added to each drill's own check seed")
    ap.add_argument("--limit", type=int, default=0, help="check only the first N drills (0: all)")
    args = ap.parse_args()
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    wrong: list[str] = []
    started = time.process_time()
    shipped = list(drills().values())
    for d in shipped[: args.limit or None]:
        obs = d.observation()
        budget, floor = float(d.coach["budget"]), int(d.coach["floor"])
        deep = hint(obs, budget * TIMES, seed=int(d.coach["seed"]) + args.seed * 1_000_003, stop=None,
                    floor=floor * TIMES)
        ok = all(deep.values[d.key] > deep.values[a] for a in d.choices if a != d.key)
        for name in (f"{d.rules} {d.kind}", d.rules, "all"):
            tally[name][0] += ok
            tally[name][1] += 1
        if not ok:
            wrong.append(d.id)
    for name, (agreed, n) in sorted(tally.items()):
        print(f"{name:24} {agreed:4} of {n:4} ({100 * agreed / n:.1f}%)")
    print(f"disagreeing: {' '.join(wrong) or 'none'}")
    print(f"CPU time {time.process_time() - started:.0f} s")


if __name__ == "__main__":
    main()
