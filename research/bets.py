"""Where a bot's bets went in an arena run: each doubled pair of its hands, who bet, what it moved.

    .venv/bin/python research/bets.py RECORDS_DIR [--bot I]

Reads the game records `barbu arena --out RECORDS_DIR` writes (``deal*-rot*.json`` and
``game*-rot*.json``, one a board and rotation; a record names each seat's bot as ``I:level``).
A run made with ``--no-records`` can be played again with them: the same arguments and seed give
the same cards, bids and bets, unless the expert's CPU-time safety stop cut a decision short.
For every hand of bot I (default 0) and every pair it was in with a double, the pair is put in
a row by contract, by the bot's part in the hand (declarer or not), by who made the double (the
bot, or the other player) and by whether it was redoubled; the row counts the pairs and the
points the settlements moved to the bot (the difference of the two contract scores, twice when
redoubled). A journal keeps no doubles, so this needs the records; ``research/dominoes-doubles.py``
reads what a journal allows. Classic rules only: the family rules have no doubles. The other
player of a row's pairs is the declarer, or another defender, as the contract allows (in Trumps
and Dominoes only the declarer is doubled).
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Any, NamedTuple

from barbu.engine.doubling import split_doubles
from barbu.engine.record import replay


class Bet(NamedTuple):
    contract: str
    declarer: bool  # the bot declared the hand
    mine: bool  # the bot made the double
    redoubled: bool
    moved: int  # points the settlement moved to the bot (negative: from it)


def bets_of(record: dict[str, Any], bot: int) -> tuple[int, list[Bet]]:
    """Bot ``bot``'s hands in one record, and the bets of those hands it was in."""
    players = [str(p) for p in record["players"]]
    seats = [s for s, name in enumerate(players) if name.split(":", 1)[0] == str(bot)]
    if len(seats) != 1:
        raise SystemExit(f"bot {bot} is not exactly one seat of this record: {players}")
    me = seats[0]
    n = len(players)
    out = []
    hands = replay(record).hands
    for hand in hands:
        doubles, redoubles = split_doubles(hand.doubles, hand.declarer, n)
        for other in range(n):
            if other == me:
                continue
            mine = bool(doubles[me] >> other & 1)
            if not (mine or doubles[other] >> me & 1):
                continue
            red = bool((redoubles[other] >> me | redoubles[me] >> other) & 1)
            d = hand.contract_scores[me] - hand.contract_scores[other]
            out.append(Bet(hand.contract, hand.declarer == me, mine, red, d * (2 if red else 1)))
    return len(hands), out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("records", type=Path, help="the folder of an arena run's records")
    p.add_argument("--bot", type=int, default=0, help="the bot (by its place in --bots) to follow")
    args = p.parse_args()
    paths = sorted(args.records.glob("deal*-rot*.json")) + sorted(args.records.glob("game*-rot*.json"))
    if not paths:
        raise SystemExit(f"{args.records}: no arena records (deal*-rot*.json, game*-rot*.json) here")
    hands = 0
    rows: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    for path in paths:
        record = json.loads(path.read_text(encoding="utf-8"))
        if record["ruleset"] != "classic":
            raise SystemExit(f"{path}: the {record['ruleset']} rules have no doubles")
        got, bets = bets_of(record, args.bot)
        hands += got
        for b in bets:
            if b.mine:
                who = "bot doubled" + (", was redoubled" if b.redoubled else "")
            else:
                who = "bot was doubled" + (", redoubled back" if b.redoubled else "")
            rows[(b.contract, "declarer" if b.declarer else "not declarer", who)].append(b.moved)
    print(f"bot {args.bot}: {hands} hands in {len(paths)} records; points the bets moved to it")
    print(f"{'contract':12} {'bot is':13} {'bet':28} {'pairs':>5} {'moved':>7} {'a pair':>7}")
    for (contract, role, who), moved in sorted(rows.items()):
        mean = sum(moved) / len(moved)
        print(f"{contract:12} {role:13} {who:28} {len(moved):5d} {sum(moved):+7d} {mean:+7.1f}")
    total = sum(sum(m) for m in rows.values())
    print(f"all bets: {sum(len(m) for m in rows.values())} pairs, {total:+d} points, "
          f"{total / hands:+.2f} a hand of the bot's")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
