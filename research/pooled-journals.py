"""Arena runs of one line-up on other deals (other seeds), read as one match: a bot's edge over them all.

    .venv/bin/python research/pooled-journals.py JOURNAL [JOURNAL ...] [--bot I]

Every journal must be of deal mode, with the same line-up, rule set, players and options; they
may differ in seed, and a run of one contract (``--contract``) counts as the deals it played, so
the seven one-contract runs of a match and a whole match on new deals pool into one. A deal is
told by its seed and its number in the full match; a deal held twice is refused. For every deal
whose rotations are all there, the edge of bot I (default 0) is its mean per hand minus the mean
of the other bots' means, as ``barbu arena`` prints it (positive better). The script prints the
edge of each seed's deals, the edge over all of them with its 95% interval (deals are drawn
independently, so the pooled deals are one sample), and the same by contract. A journal still
being written can be read: its unfinished deals are left out.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from barbu.tools.arena import Config, Interval, deal_edge, interval, journal_deals
from barbu.tools.journal import JournalError

SAME = ("bots", "ruleset", "options")  # what makes several runs one match on more deals

Deal = tuple[int, int]  # seed, the deal's number in the full match


def pooled(paths: list[Path], bot: int) -> tuple[Config, dict[Deal, float], dict[Deal, str]]:
    """The line-up, bot ``bot``'s edge on every complete deal of the journals, and each deal's
    contract (a deal is one hand); a journal of another match, or a deal held twice, raises
    ValueError."""
    first: Config | None = None
    edges: dict[Deal, float] = {}
    contracts: dict[Deal, str] = {}
    for path in paths:
        cfg, deals = journal_deals(path)
        if first is None:
            first = cfg
        differ = [k for k in SAME if getattr(cfg, k) != getattr(first, k)]
        if differ:
            raise ValueError(f"{path} is another match: its {', '.join(differ)} differ")
        twice = sorted(k for k in deals if (cfg.seed, k) in edges)
        if twice:
            raise ValueError(f"{path} holds deals of seed {cfg.seed} another journal holds: {twice[:5]}")
        for k, results in deals.items():
            edges[cfg.seed, k] = deal_edge(cfg, results, bot)
            contracts[cfg.seed, k] = results[0].hands[0][0]
    assert first is not None
    return first, edges, contracts


def _line(label: str, iv: Interval) -> str:
    return (f"{label:<14}{iv.n:>5} deals   edge {iv.mean:+7.2f} ± {iv.half:5.2f}  "
            f"[{iv.low:+.2f}, {iv.high:+.2f}]")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("journals", type=Path, nargs="+", help="the runs' journals")
    p.add_argument("--bot", type=int, default=0, help="the bot whose edge is read, by its place in --bots")
    args = p.parse_args()
    try:
        cfg, edges, contracts = pooled(args.journals, args.bot)
    except (ValueError, JournalError) as e:
        p.error(str(e))
    if len(edges) < 2:
        p.error("fewer than two deals are complete in the journals")
    print(f"bot {args.bot}: {cfg.bots[args.bot]}, line-up {','.join(cfg.bots)}, {cfg.ruleset} rules")
    for seed in sorted({s for s, _ in edges}):
        print(_line(f"seed {seed}", interval([e for (s, _), e in sorted(edges.items()) if s == seed])))
    print(_line("all", interval([edges[k] for k in sorted(edges)])))
    for contract in [c.id for c in cfg.game.contracts]:
        own = [edges[k] for k in sorted(edges) if contracts[k] == contract]
        if own:
            print(_line(contract, interval(own)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
