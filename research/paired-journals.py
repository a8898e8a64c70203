"""Two arena runs on the same deals, compared deal by deal: how much more the first bot gained in one.

    .venv/bin/python research/paired-journals.py A.journal [A2.journal ...] B.journal [--bot I] [--merged]

Both journals must be of deal mode with the same rule set, seed and players (so that deal k is the
same cards in each); their line-ups may differ, which is the point (``expert:1`` in one,
``expert:0.1`` in the other). A run of one contract (``--contract``) pairs with a run of them all:
its board k is deal 7k + i of the full match, and the deals are matched by that number; several A
journals (one run for each contract, say) are read as one run, and a deal held by two of them is
refused. For every
deal whose rotations both journals hold complete, the
edge of bot I (default 0) is its mean per hand minus the mean of the other bots' means, as
``barbu arena`` prints it, signed so that positive is better; the script prints each run's mean
edge over those deals and the mean of A's edge minus B's, with its 95% interval. The journal of a
run still being played can be read: its last, unfinished line is left out.

``--merged`` also prints B's whole result with A's deals put in place of B's own: what B's run
would have read had A's line-up played the deals A holds. That is B's run replayed with A's
change only where the change can act (a bot that differs only in Dominoes, replayed on B's
Dominoes deals), since every board's bots are seeded by the board alone.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

from barbu.tools.arena import deal_edge, interval, journal_deals

SAME = ("ruleset", "players", "options", "seed")  # what makes deal k the same cards in two runs


def header_of(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as f:
        header: dict[str, Any] = json.loads(f.readline())
    return header


def edges(path: Path, bot: int) -> dict[int, float]:
    """Bot ``bot``'s edge on every deal of the journal whose rotations are all there, by the
    deal's number in the full match."""
    cfg, deals = journal_deals(path)
    return {k: deal_edge(cfg, results, bot) for k, results in deals.items()}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a", type=Path, nargs="+", help="the first run's journal (or several, read as one run)")
    p.add_argument("b", type=Path, help="the second run's journal")
    p.add_argument("--bot", type=int, default=0, help="the bot compared, by its place in --bots (default 0)")
    p.add_argument("--merged", action="store_true",
                   help="also print B's whole result with A's deals in place of B's own")
    args = p.parse_args()
    ha, hb = header_of(args.a[0]), header_of(args.b)
    for h in [header_of(path) for path in args.a[1:]] + [hb]:
        differ = [k for k in SAME if ha.get(k) != h.get(k)]
        if differ:
            p.error(f"the journals are not of the same deals: {', '.join(differ)} differ")
    a: dict[int, float] = {}
    for path in args.a:
        more = edges(path, args.bot)
        if a.keys() & more.keys():
            p.error(f"{path} holds deals another A journal holds: {sorted(a.keys() & more.keys())[:5]}")
        a.update(more)
    b = edges(args.b, args.bot)
    both = sorted(a.keys() & b.keys())
    if len(both) < 2:
        p.error("fewer than two deals are complete in both journals")
    diff = interval([a[k] - b[k] for k in both])
    names = ha["bots"][args.bot], hb["bots"][args.bot]
    print(f"{len(both)} deals in both; bot {args.bot}: {names[0]} in A, {names[1]} in B")
    means = statistics.fmean(a[k] for k in both), statistics.fmean(b[k] for k in both)
    print(f"edge in A {means[0]:+.2f}, in B {means[1]:+.2f}")
    print(f"A minus B: {diff.mean:+.2f} ± {diff.half:.2f}  [{diff.low:+.2f}, {diff.high:+.2f}]")
    if args.merged:
        merged = interval([a.get(k, b[k]) for k in sorted(b)])
        print(f"B with A's {len(both)} deals in place: edge {merged.mean:+.2f} ± {merged.half:.2f}  "
              f"[{merged.low:+.2f}, {merged.high:+.2f}] over {len(b)} deals")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
