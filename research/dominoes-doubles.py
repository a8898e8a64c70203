"""Where a bot's Dominoes points come from in an arena run: the hands its doubles touched or not.

    .venv/bin/python research/dominoes-doubles.py A.journal [B.journal ...] [--bot I]

A journal keeps each hand's scores, not its doubles; but in Dominoes a player who is in no doubled
pair scores exactly one of the finishing places' points (45, 20, 5, −5 by default), so a score off
those shows that a double or redouble moved points to or from him. The converse does not hold: a
settlement can land on another place's points (second, doubled with the first: 20 − 25 = −5;
with the last: 20 + 25 = 45), and such a hand reads as undoubled. So the doubled count is a lower
bound, and a loose one for a player who often finishes second or third in a doubled pair. For bot
I (default 0) and for the other bots together (their seats' hands, three a hand at four players)
the script prints, over the run's Dominoes hands, how many scores were a place's and their mean,
how many were not and their mean, and the mean of all.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from barbu.tools.arena import Config
from barbu.tools.journal import read_entries


def split(path: Path, bot: int) -> dict[str, list[int]]:
    """Bot ``bot``'s Dominoes scores and the others', each cut into place scores and the rest."""
    with path.open(encoding="utf-8") as f:
        header: dict[str, Any] = json.loads(f.readline())
    game = Config(tuple(header["bots"]), header["ruleset"], tuple(header["options"]), header["seed"]).game
    dominoes = [c for c in game.contracts if c.id == "dominoes"]
    if not dominoes:
        raise SystemExit(f"{path}: the {header['ruleset']} rules have no Dominoes")
    places = set(dominoes[0].out_scores)
    out: dict[str, list[int]] = {"bot-place": [], "bot-other": [], "rest-place": [], "rest-other": []}
    for entry in read_entries(path, header):
        for contract, scores in entry["hands"]:
            if contract != "dominoes":
                continue
            for seat, b in enumerate(entry["seats"]):
                who = "bot" if b == bot else "rest"
                out[f"{who}-{'place' if scores[seat] in places else 'other'}"].append(scores[seat])
    return out


def _mean(xs: list[int]) -> str:
    return f"{sum(xs) / len(xs):+7.2f}" if xs else "      –"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("journals", type=Path, nargs="+")
    p.add_argument("--bot", type=int, default=0, help="the bot (by its place in --bots) to single out")
    args = p.parse_args()
    print("journal        bots       seat-hands  place: n    mean   doubled: n    mean     all")
    for path in args.journals:
        parts = split(path, args.bot)
        for who, label in (("bot", f"bot {args.bot}"), ("rest", "the others")):
            place, other = parts[f"{who}-place"], parts[f"{who}-other"]
            hands = len(place) + len(other)
            print(f"{path.stem[:14]:14} {label:10} {hands:10d}  {len(place):8d} {_mean(place)}"
                  f"   {len(other):10d} {_mean(other)} {_mean(place + other)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
