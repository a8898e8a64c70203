"""Two rules of thumb for Dominoes against each other, every hand seen: the playouts' own contest.

    .venv/bin/python research/dominoes-rules.py [--deals N] [--seed S]

The search bots play Dominoes' playouts on fully dealt sampled deals, so what counts there is
how well a rule places cards when every hand is known. Each classic Dominoes deal of the arena
(``barbu.tools.arena.deal_state``, the starting rank named by the declarer's rule of thumb) is
played four times, :func:`barbu.bots.policy.line_card` in one seat and
:func:`barbu.bots.policy.heuristic_card` in the other three, once for each seat; the figure is
line_card's mean score a hand minus the others' mean, with its 95% interval over deals.
No randomness enters the play (both rules without noise), so a seed gives the same figure.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics

from barbu.bots.pimc import hand_value
from barbu.bots.policy import CardRule, heuristic_card, heuristic_playout, line_card
from barbu.engine.game import Game
from barbu.engine.state import State
from barbu.tools.arena import deal_state

CLASSIC = Game.classic()
DOMINOES = CLASSIC.contract_index("dominoes")  # deal k of the arena plays contract k mod 7 (their count)


def play_hand(state: State, rules: list[CardRule]) -> list[float]:
    """Finish the hand with ``rules[seat]`` placing for each seat, no doubles: each seat's score."""
    hand_no = state.hand_no

    def by_seat(s: State, rng: random.Random, noise: float) -> int:
        return rules[s.current](s, rng, noise)

    # Both rules without noise: the rng is never drawn from to choose.
    heuristic_playout(state, random.Random(0), 0.0, card=by_seat)
    return [hand_value(state, s, hand_no) for s in range(state.game.players)]


def edge(deal: int, seed: int, new: CardRule = line_card, old: CardRule = heuristic_card) -> float:
    """``new``'s mean edge a hand over one deal played in each seat's place."""
    n = CLASSIC.players
    total = 0.0
    for seat in range(n):
        rules = [old] * n
        rules[seat] = new
        scores = play_hand(deal_state(CLASSIC, seed, len(CLASSIC.contracts) * deal + DOMINOES), rules)
        total += scores[seat] - (sum(scores) - scores[seat]) / (n - 1)
    return total / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=2000, help="Dominoes deals (default 2000)")
    parser.add_argument("--seed", type=int, default=7, help="the arena seed of the deals (default 7)")
    args = parser.parse_args()
    edges = [edge(k, args.seed) for k in range(args.deals)]
    mean = statistics.fmean(edges)
    half = 1.96 * statistics.stdev(edges) / math.sqrt(len(edges)) if len(edges) > 1 else math.inf
    print(f"line_card vs heuristic_card, {args.deals} Dominoes deals × 4 seats, seed {args.seed}: "
          f"{mean:+.2f} ± {half:.2f} a hand (positive = line_card better)")


if __name__ == "__main__":
    main()
