#!/usr/bin/env python3
"""Time the coach's hint at random decision points of random games: p50, p95 and the slowest.

Plays games of ``basic`` players from seeds 0, 1, …, and at a random decision of each (one with
more than one legal choice: a contract, a trump, a starting rank, a double or a card) asks the
coach for its hint with the given budget, timing wall clock and CPU time. No assertion: a figure
to read (docs/coach.md), issue #38's "a hint within 1 s at p95".

    .venv/bin/python scripts/coach-bench.py --points 100 --budget 0.25 --stop 0.8
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from barbu.bots import Bot, make_bot
from barbu.coach import BUDGET, STOP, hint
from barbu.engine.game import Game
from barbu.engine.observation import Observation
from barbu.engine.state import Phase, State


def decision_point(seed: int) -> Observation:
    """A decision of a random game of ``basic`` players: its hand, and the step in it, drawn by ``seed``."""
    rng = random.Random(seed)
    game = Game.classic() if rng.random() < 0.7 else Game.family(rng.choice((3, 4, 5)))
    state = State(game, seed=seed)
    bots = [make_bot("basic", seed * 8 + s) for s in range(game.players)]
    for _ in range(rng.randrange(game.num_hands)):  # skip to a random hand, dealt by the seed
        _play_hand(state, bots)
    while not state.deal_random():
        pass
    points = []
    while state.phase not in (Phase.DEAL, Phase.GAME_OVER):
        if len(state.legal_actions()) > 1:
            points.append(state.copy())
        state.apply(bots[state.current].act(state.observe(state.current)))
    chosen = rng.choice(points)
    return chosen.observe(chosen.current)


def _play_hand(state: State, bots: list[Bot]) -> None:
    while not state.deal_random():
        pass
    hand = state.hand_no
    while state.hand_no == hand and state.phase != Phase.GAME_OVER:
        state.apply(bots[state.current].act(state.observe(state.current)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=100, help="decision points (default 100)")
    parser.add_argument("--budget", type=float, default=BUDGET, help=f"seconds of work (default {BUDGET})")
    parser.add_argument("--stop", type=float, default=STOP, help=f"CPU seconds at most (default {STOP})")
    args = parser.parse_args()
    wall, cpu, kinds = [], [], []
    for seed in range(args.points):
        obs = decision_point(seed)
        w, c = time.perf_counter(), time.process_time()
        hint(obs, args.budget, seed=seed, stop=args.stop)
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
        kinds.append(obs.phase.name.lower())
    for name, xs in (("wall", wall), ("cpu", cpu)):
        p = statistics.quantiles(xs, n=100)
        print(f"{name}: p50 {p[49]:.3f} s, p95 {p[94]:.3f} s, max {max(xs):.3f} s over {len(xs)} hints")
    print("decisions:", ", ".join(f"{k} {kinds.count(k)}" for k in sorted(set(kinds))))


if __name__ == "__main__":
    main()
