"""Your own bot in barbu arena: a plug-in wrapping a small policy, matched against barbu's bots.

    python examples/plugin_bot.py [--deals 20] [--jobs 2]

or from the command line, with examples/ on the import path:

    PYTHONPATH=examples barbu arena --bots plugin_bot:PolicyBot,basic,basic,basic --deals 20 --jobs 2

A plug-in is any importable factory (here the class PolicyBot) that, called with a seed, returns
an object with ``act(observation) -> action``; see barbu.bots.base.Bot for the whole protocol.
The arena names it by its import path, ``plugin_bot:PolicyBot``: that name, not the object, is
what the worker processes of ``--jobs`` receive, so they import this module again (hence the
``if __name__ == "__main__"`` guard at the end). A package makes its bots known by name instead
with an entry point in its pyproject.toml:

    [project.entry-points."barbu.bots"]
    mybot = "mypkg.bots:MyBot"

The policy is a linear scorer over a few features of each legal card; a research bot would put
its own network here (its weights read from a file, its features from barbu.env's encoder). The
decisions the policy does not cover (contract, trump, doubles) are left to barbu's basic bot.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from barbu.arena import match

from barbu.bots.base import Bot
from barbu.bots.basic import BasicBot
from barbu.engine.cards import rank_of
from barbu.engine.contracts import Kind
from barbu.engine.observation import Observation
from barbu.engine.state import Phase

# Weights of the features below; a trained policy would load these.
WEIGHTS = {"rank": 1.0, "points": 2.0, "wins": 1.5}


@dataclass(frozen=True)
class Policy:
    """Scores a legal card: high cards and winning the trick are good in a trick-taking contract
    and bad in the others; cards that score are shed when the trick is someone else's."""

    weights: dict[str, float]

    def score(self, obs: Observation, card: int) -> float:
        contract = obs.contract
        assert contract is not None
        sign = 1.0 if contract.positive else -1.0
        features = {"rank": sign * rank_of(card) / 12, "wins": sign * self.wins(obs, card),
                    "points": -contract.card_points[card] / 50 * (1 - 2 * self.wins(obs, card))}
        return sum(self.weights[k] * v for k, v in features.items())

    @staticmethod
    def wins(obs: Observation, card: int) -> float:
        """1 if the card beats every card of the trick so far in its suit, else 0 (trumps ignored)."""
        if not obs.trick:
            return 0.5  # leading: no one has played yet
        led = obs.trick[0][1] // 13
        return float(card // 13 == led and all(c // 13 != led or c < card for _, c in obs.trick))


class PolicyBot(Bot):
    """Plays the card the policy scores highest; barbu's basic bot makes the other decisions."""

    name = "policy-plugin"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.policy = Policy(WEIGHTS)
        self.helper = BasicBot(seed)

    def act(self, obs: Observation) -> int:
        if obs.phase != Phase.PLAY or obs.contract is None or obs.contract.kind != Kind.TRICKS:
            return self.helper.act(obs)  # bids, doubles, and the layout games (Dominoes)
        return max(obs.legal, key=lambda card: self.policy.score(obs, card))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--deals", type=int, default=20, help="duplicate deals (default 20)")
    p.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--seed", type=int, default=1, help="seed of the match (default 1)")
    args = p.parse_args(argv)
    # The class itself is given: match() names it by its import path, plugin_bot:PolicyBot.
    summary = match([PolicyBot, "basic", "basic", "basic"], deals=args.deals, jobs=args.jobs,
                    seed=args.seed)
    edge = summary["deals"]["per_bot"][0]["edge"]
    print(f"{summary['bots'][0]} against three basic bots, {args.deals} deals × 4 rotations: "
          f"edge {edge['mean']:+.2f} points per hand, 95% interval "
          f"[{edge['low']:+.2f}, {edge['high']:+.2f}]")
    return 0


if __name__ == "__main__":  # the worker processes import this module: they must not play a match
    sys.exit(main())
