"""The ``pimc`` computer player: the field's standard baseline, Perfect Information Monte Carlo.

For each decision it samples 20 deals of the hidden cards consistent with the
seat's view (the cards seen, and the voids and passes the play revealed), plays
each candidate action out to the end of the hand with uniformly random play, and
picks the best average. Every candidate is played out on the same deals with the
same random numbers, so that the comparison measures the candidates, not luck.

Each deal is played out 8 times per candidate. One random playout of a whole
hand scatters the score by more than the typical gap between two cards, so with
one playout per deal the "best average" of 20 is mostly noise; 8 cut that noise by
√8 (docs/RESULTS.md has what that was worth against ``basic``). The deals stay 20.
"""

from __future__ import annotations

import random

from barbu.bots import register
from barbu.bots.base import Bot
from barbu.bots.sampling import sample_state
from barbu.engine.observation import Observation
from barbu.engine.playout import finish_hand
from barbu.engine.state import State


def hand_value(state: State, seat: int, hand_no: int) -> float:
    """What a finished hand was worth to ``seat``: its score (family: minus its penalty)."""
    score = state.history[-1].scores[seat] if state.history else 0
    assert not state.history or state.history[-1].hand_no == hand_no
    return float(score if state.game.is_classic else -score)


class PimcBot(Bot):
    """Sample deals, play every candidate out at random, keep the best average."""

    name = "pimc"
    searches = True
    samples = 20  # deals per decision
    playouts = 8  # random playouts of each candidate on each deal

    def act(self, obs: Observation) -> int:
        if len(obs.legal) == 1:
            return obs.legal[0]
        totals = dict.fromkeys(obs.legal, 0.0)
        for _ in range(self.samples):
            world = sample_state(obs, self.rng)
            for _ in range(self.playouts):
                seed = self.rng.getrandbits(64)
                for action in obs.legal:
                    trial = world.copy()
                    trial._do(action)
                    # The same random numbers for every candidate: the comparison is paired.
                    finish_hand(trial, random.Random(seed))
                    totals[action] += hand_value(trial, obs.seat, obs.hand_no)
        return max(obs.legal, key=lambda a: (totals[a], -a))


register("pimc", PimcBot)
