#!/usr/bin/env python3
"""Measure the computer levels' rating anchors: whole games of the levels against each other, rated.

    .venv/bin/python research/calibrate-ratings.py --rules classic --games 6 --jobs 2

Every game seats each level once (so the table has as many seats as levels), and each game is
played once per rotation of the seats, the way `barbu arena` plays games. All levels start at
openskill's default skill and are rated after each game with the Plackett–Luce model, as the
server rates people; the final skills are printed as the lines of ``barbu.web.people.ratings.ANCHORS``,
with each level's mean place to read beside them.
"""

from __future__ import annotations

import argparse
import statistics

from barbu.tools.arena import GAME, Config, TaskResult, run_tasks
from barbu.web.people.ratings import MODEL, Skill


def places_by_level(cfg: Config, result: TaskResult) -> list[int]:
    """Each level's place in one played game (index: the level's position in the line-up)."""
    totals = [sum(scores[s] for _, scores in result.hands) for s in range(cfg.players)]
    places = cfg.game.places(totals)
    by_level = [0] * cfg.players
    for seat, level in enumerate(result.seats):
        by_level[level] = places[seat]
    return by_level


def fit(cfg: Config, results: list[TaskResult]) -> tuple[list[Skill], list[float]]:
    """The levels' skills after rating every game in order, and their mean places."""
    ratings = [MODEL.rating() for _ in cfg.bots]
    seen: list[list[int]] = [[] for _ in cfg.bots]
    for result in results:
        places = places_by_level(cfg, result)
        rated = MODEL.rate([[r] for r in ratings], ranks=[float(p) for p in places])
        ratings = [team[0] for team in rated]
        for level, place in enumerate(places):
            seen[level].append(place)
    return [Skill(r.mu, r.sigma) for r in ratings], [statistics.fmean(p) for p in seen]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="classic", choices=("classic", "family"))
    ap.add_argument("--levels", default="random,basic,pimc,strong")
    ap.add_argument("--games", type=int, default=6, help="whole-game deals, each played in every rotation")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    cfg = Config(tuple(args.levels.split(",")), args.rules, seed=args.seed)
    tasks = [(GAME, g, r) for g in range(args.games) for r in range(cfg.players)]
    results = run_tasks(cfg, tasks, args.jobs)
    skills, mean_places = fit(cfg, results)
    print(f"# {len(results)} {args.rules} games of {', '.join(cfg.bots)} (seed {args.seed})")
    for level, skill, place in zip(cfg.bots, skills, mean_places, strict=True):
        print(f'        "{level}": Skill({skill.mu:.1f}, {skill.sigma:.1f}),  # mean place {place:.2f}')


if __name__ == "__main__":
    main()
