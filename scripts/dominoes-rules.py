"""Two rules of thumb for Dominoes against each other, every hand seen: the playouts' own contest.

    .venv/bin/python scripts/dominoes-rules.py [--deals N] [--seed S]

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
from collections.abc import Callable

from barbu.bots.basic import best_start_rank
from barbu.bots.pimc import hand_value
from barbu.bots.policy import heuristic_card, line_card
from barbu.engine.game import RANK, Game
from barbu.engine.state import Phase, State
from barbu.tools.arena import deal_state

Rule = Callable[[State, random.Random, float], int]
DOMINOES = 6  # deal k plays contract k mod 7: Dominoes is the seventh


def play_hand(state: State, rules: list[Rule]) -> list[float]:
    """Finish the hand with ``rules[seat]`` placing for each seat, no doubles: each seat's score."""
    hand_no = state.hand_no
    steady = random.Random(0)  # never drawn from to choose: both rules run without noise
    while state.hand_no == hand_no and state.hand_in_progress:
        if state.phase == Phase.PLAY:
            state.apply(rules[state.current](state, steady, 0.0))
        elif state.phase == Phase.START_RANK:
            state.apply(RANK + best_start_rank(state.hands[state.current]))
        else:
            state.apply(min(state.legal_actions()))  # the contract forced, then no doubles
    return [hand_value(state, s, hand_no) for s in range(state.game.players)]


def edge(deal: int, seed: int, new: Rule = line_card, old: Rule = heuristic_card) -> float:
    """``new``'s mean edge a hand over one deal played in each seat's place."""
    game = Game.classic()
    total = 0.0
    for seat in range(game.players):
        rules = [old] * game.players
        rules[seat] = new
        scores = play_hand(deal_state(game, seed, 7 * deal + DOMINOES), rules)
        total += scores[seat] - (sum(scores) - scores[seat]) / (game.players - 1)
    return total / game.players


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
