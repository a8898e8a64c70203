"""Fit the expert's playout policy (src/barbu/bots/fitted_weights.json) to how ``strong`` plays.

    .venv/bin/python research/fit-playout.py [--deals N] [--jobs J] [--out FILE]

1. ``strong`` plays N duplicate-arena deals against itself (seed 1234), classic and family with
   4 players; every card decision of a trick game with a choice is kept as the features of each
   legal card (``barbu.bots.fitted.features``) and the card ``strong`` chose.
2. One softmax regression a contract (Newton's method, a small L2 penalty) is fitted on three
   quarters of the decisions; the held-out quarter gives how often the fitted score and the
   rules of thumb pick ``strong``'s card.
3. The duel: on 1,000 other deals a rule set, one seat plays the fitted card and the others the
   rules of thumb, against a table of rules of thumb only, seat by seat: the fitted player's
   gain a hand, with its 95% interval.

The fit is deterministic (the seeds are fixed), so the same N gives the same weights; the
shipped file came from ``--deals 300 --jobs 2`` (docs/RESULTS.md). Needs numpy (the dev extra).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from barbu.bots import fitted
from barbu.bots.pimc import hand_value
from barbu.bots.policy import heuristic_card
from barbu.bots.strong import StrongBot
from barbu.engine.cards import bits
from barbu.engine.contracts import Kind
from barbu.engine.game import Game
from barbu.engine.state import Phase, State
from barbu.tools.arena import deal_state

SEED, DUEL_SEED = 1234, 999
GAMES = {"classic": Game.classic(), "family4": Game.family(4)}
# Contract id, features of each legal card, strong's choice, whether the rules of thumb chose it too.
Decision = tuple[str, list[list[float]], int, bool]


def decisions(game_key: str, k: int) -> list[Decision]:
    """strong's card decisions with a choice in deal ``k`` of a rule set."""
    game = GAMES[game_key]
    if game.contracts[k % len(game.contracts)].kind != Kind.TRICKS:
        return []  # the deal's forced contract (barbu.tools.arena) is not a trick game
    state = deal_state(game, SEED, k)
    bots = [StrongBot(seed=k * 10 + i) for i in range(game.players)]
    hand_no, out = state.hand_no, []
    while state.hand_no == hand_no and state.hand_in_progress:
        action = bots[state.current].act(state.observe(state.current))
        c = state.contract
        if state.phase == Phase.PLAY and c is not None and c.kind == Kind.TRICKS:
            cards = list(bits(state.legal_mask()))
            if len(cards) > 1:
                rules = heuristic_card(state, random.Random(0), noise=0.0) == action
                out.append((c.id, fitted.features(state, cards), cards.index(action), rules))
        state.apply(action)
    return out


def fit(items: list[Decision], l2: float = 1e-3) -> np.ndarray:
    """Softmax regression of the choices on the features, by Newton's method."""
    w = np.zeros(len(fitted.FEATURES))
    mats = [(np.array(f), y) for _, f, y, _ in items]
    for _ in range(100):
        grad = -l2 * len(mats) * w
        hess = -l2 * len(mats) * np.eye(len(w))
        for f, y in mats:
            s = f @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            mu = p @ f
            grad += f[y] - mu
            hess -= (f * p[:, None]).T @ f - np.outer(mu, mu)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-7:
            break
    return w


def agreement(items: list[Decision], w: np.ndarray) -> float:
    return float(np.mean([np.argmax(np.array(f) @ w) == y for _, f, y, _ in items]))


def duel(game_key: str, deals: int, weights: dict[str, tuple[float, ...]]) -> dict[str, list[float]]:
    """Per contract, the mean gain a hand of one fitted seat among rules-of-thumb players."""
    game = GAMES[game_key]
    gains: dict[str, list[float]] = defaultdict(list)
    for k in range(deals):
        base = _duel_hand(game, k, -1, weights)
        if base is None:
            continue
        one = [hand_value(_duel_hand(game, k, seat, weights) or base, seat, base.hand_no - 1)
               - hand_value(base, seat, base.hand_no - 1) for seat in range(game.players)]
        gains[base.history[-1].contract].append(statistics.fmean(one))
    return gains


def _duel_hand(game: Game, k: int, seat: int, weights: dict[str, tuple[float, ...]]) -> State | None:
    state = deal_state(game, DUEL_SEED, k)
    rng = random.Random(k)
    while state.phase != Phase.PLAY:
        state._do(min(state.legal_actions()))  # the one contract, no doubles: the cards alone
    c = state.contract
    if c is None or c.kind != Kind.TRICKS or c.id not in weights:
        return None
    w, hand_no = weights[c.id], state.hand_no
    while state.hand_no == hand_no and state.hand_in_progress:
        if state.current == seat:
            cards = list(bits(state.legal_mask()))
            s = fitted.scores(state, cards, w)
            state._do(cards[max(range(len(cards)), key=s.__getitem__)])
        else:
            state._do(heuristic_card(state, rng, noise=0.0))
    return state


def _interval(xs: list[float]) -> str:
    return f"{statistics.fmean(xs):+.2f} ± {1.96 * statistics.stdev(xs) / math.sqrt(len(xs)):.2f}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--deals", type=int, default=300, help="deals of strong's play a rule set (default 300)")
    p.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--duel", type=int, default=1000, help="deals of the duel a rule set (default 1000)")
    p.add_argument("--out", default=str(Path(__file__).parent.parent / "src/barbu/bots/fitted_weights.json"))
    args = p.parse_args()
    by_contract: dict[str, list[Decision]] = defaultdict(list)
    with ProcessPoolExecutor(args.jobs) as pool:
        for key in GAMES:
            for found in pool.map(decisions, [key] * args.deals, range(args.deals), chunksize=4):
                for d in found:
                    by_contract[d[0]].append(d)
    weights: dict[str, tuple[float, ...]] = {}
    print(f"{'contract':<13}{'decisions':>10}{'fitted':>8}{'rules':>8}   (held-out agreement with strong)")
    for cid, items in sorted(by_contract.items()):
        random.Random(cid).shuffle(items)
        cut = len(items) * 3 // 4
        held = agreement(items[cut:], fit(items[:cut]))
        rules = float(np.mean([r for *_, r in items[cut:]]))
        weights[cid] = tuple(round(float(x), 6) for x in fit(items))  # the shipped fit: every decision
        print(f"{cid:<13}{len(items):>10}{held:>8.2f}{rules:>8.2f}")
    Path(args.out).write_text(json.dumps({"features": list(fitted.FEATURES), "weights": weights,
                                          "fitted_on": f"strong, {args.deals} deals a rule set, seed {SEED}"},
                                         indent=1) + "\n")
    print(f"wrote {args.out}")
    for key in GAMES:
        gains = duel(key, args.duel, weights)
        every = [g for gs in gains.values() for g in gs]
        print(f"duel, {key}: one fitted seat vs the rules of thumb, points a hand {_interval(every)}"
              f" over {len(every)} deals; "
              + ", ".join(f"{c} {_interval(g)}" for c, g in sorted(gains.items())))


if __name__ == "__main__":
    main()
