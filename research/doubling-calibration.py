"""How well ``strong``'s doubles pay: its predicted edges against what the hands then gave.

    .venv/bin/python research/doubling-calibration.py [--deals N] [--seed S]

``strong`` plays all four seats of N classic arena deals (Dominoes skipped). At every doubling
or redoubling decision it makes, the expected edge it computed for each player it could bet
against, E[my contract points − theirs], is set beside the difference the hand then gave. It
prints, for the doubles made, the predicted and realized difference (and with the redouble's
factor), how often they were redoubled; for the bets not made, the realized difference by
predicted edge; and the realized difference by bins of predicted edge over every pair looked at.
A calibrated search has realized ≈ predicted in every bin.
"""

from __future__ import annotations

import argparse
import math
import statistics
from collections import defaultdict
from collections.abc import Sequence

from barbu.bots.strong import StrongBot
from barbu.engine.game import DOUBLE, REDOUBLE, Game
from barbu.engine.observation import Observation
from barbu.engine.state import Phase
from barbu.tools.arena import deal_state

Bet = tuple[int, int, float, bool, int]  # seat, other, predicted edge, bet made, 0 double / 1 redouble


class _Recording(StrongBot):
    """``strong``, noting each doubling decision's edges and choice."""

    def __init__(self, seed: int, notes: list[Bet]) -> None:
        super().__init__(seed)
        self.notes = notes

    def _double(self, obs: Observation) -> int:
        edge = self._expected_edges(obs)
        action = self.double_for(obs, edge)
        base = DOUBLE if obs.phase == Phase.DOUBLE else REDOUBLE
        possible = max((a - base for a in obs.legal), key=int.bit_count)
        for t in range(obs.game.players):
            if possible >> t & 1:
                self.notes.append((obs.seat, t, edge[t], bool((action - base) >> t & 1),
                                   int(obs.phase == Phase.REDOUBLE)))
        return action


def _iv(xs: Sequence[float]) -> str:
    if len(xs) < 2:
        return f"n={len(xs)}"
    half = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs))
    return f"{statistics.fmean(xs):+.2f} ± {half:.2f} (n={len(xs)})"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--deals", type=int, default=80, help="classic deals (default 80)")
    p.add_argument("--seed", type=int, default=4321, help="seed of the deals (default 4321)")
    args = p.parse_args()
    game = Game.classic()
    made: list[tuple[float, float, bool]] = []
    passed: dict[int, list[float]] = defaultdict(list)
    by_bin: dict[int, list[float]] = defaultdict(list)
    for k in range(args.deals):
        if game.contracts[k % len(game.contracts)].id == "dominoes":
            continue
        notes: list[Bet] = []
        state = deal_state(game, args.seed, k)
        bots = [_Recording(k * 10 + i, notes) for i in range(game.players)]
        hand_no = state.hand_no
        while state.hand_no == hand_no and state.hand_in_progress:
            state.apply(bots[state.current].act(state.observe(state.current)))
        record = state.history[-1]
        cs, redoubled = record.contract_scores, {(a, b) for a, b in record.doubles}
        for seat, t, edge, bet, redouble in notes:
            real = cs[seat] - cs[t]
            by_bin[max(-12, min(12, math.floor(edge / 4) * 4))].append(real)
            if redouble:
                continue
            if bet:
                made.append((edge, real, (t, seat) in redoubled))
            else:
                passed[max(-8, math.floor(edge / 2) * 2)].append(real)
    print(f"strong, {args.deals} classic deals from seed {args.seed} (Dominoes left out)")
    print(f"doubles made: predicted {_iv([m[0] for m in made])}, realized {_iv([m[1] for m in made])}")
    print(f"  with the redouble's factor: {_iv([m[1] * (2 if m[2] else 1) for m in made])}; "
          f"redoubled {sum(m[2] for m in made)} of {len(made)}")
    for b in sorted(passed):
        print(f"not doubled, predicted edge in [{b}, {b + 2}): realized {_iv(passed[b])}")
    for b in sorted(by_bin):
        print(f"every pair, predicted edge in [{b}, {b + 4}): realized {_iv(by_bin[b])}")


if __name__ == "__main__":
    main()
