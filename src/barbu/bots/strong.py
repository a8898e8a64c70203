"""The ``strong`` computer player: determinized search with inference and heuristic playouts.

Every decision is judged on sampled deals that respect all the seat knows
(:mod:`barbu.bots.sampling`: cards seen, voids shown, passes, set-aside cards),
each candidate played out to the end of the hand by the rule-of-thumb policy of
:mod:`barbu.bots.policy` rather than at random, with the same deals for every
candidate so that the comparison is paired. Contract, trump and starting rank are
chosen the same way; doubles are decided from the distribution of the hand's
outcome, since a double is a bet on the difference of two players' scores.
"""

from __future__ import annotations

from collections.abc import Sequence

from barbu.bots import register
from barbu.bots.base import Bot
from barbu.bots.basic import domino_distance
from barbu.bots.pimc import hand_value
from barbu.bots.policy import heuristic_playout
from barbu.bots.sampling import sample_state
from barbu.engine.game import DOUBLE, RANK, REDOUBLE, seats_of
from barbu.engine.observation import Observation
from barbu.engine.state import Phase, State


class StrongBot(Bot):
    """Paired evaluation of every candidate on consistent sampled deals."""

    name = "strong"
    searches = True
    play_samples = 100  # deals per card decision
    bid_samples = 60  # deals per contract / trump / starting-rank decision
    double_samples = 100  # playouts behind a doubling decision
    rank_candidates = 5  # Dominoes starting ranks worth simulating
    double_margin = 2.0  # expected edge (points) a double needs, against noise and redoubles

    def act(self, obs: Observation) -> int:
        if len(obs.legal) == 1:
            return obs.legal[0]
        if obs.phase in (Phase.DOUBLE, Phase.REDOUBLE):
            return self._double(obs)
        candidates = list(obs.legal)
        samples = self.play_samples if obs.phase == Phase.PLAY else self.bid_samples
        if obs.phase == Phase.START_RANK:
            candidates.sort(key=lambda a: domino_distance(obs.hand, a - RANK))
            candidates = candidates[: self.rank_candidates]
        return self._best(obs, candidates, samples)

    def _best(self, obs: Observation, candidates: Sequence[int], samples: int) -> int:
        values = self.evaluate(obs, candidates, samples)
        return max(candidates, key=lambda a: (values[a], -a))

    def evaluate(self, obs: Observation, candidates: Sequence[int], samples: int) -> dict[int, float]:
        """Mean value of the hand to this seat after each candidate, on the same sampled deals."""
        if samples < 1:
            raise ValueError(f"a mean needs at least one sampled deal, not {samples}")
        totals = dict.fromkeys(candidates, 0.0)
        for _ in range(samples):
            world = sample_state(obs, self.rng)
            for action in candidates:
                trial = world.copy()
                trial._do(action)
                heuristic_playout(trial, self.rng)
                totals[action] += hand_value(trial, obs.seat, obs.hand_no)
        return {a: t / samples for a, t in totals.items()}

    def _double(self, obs: Observation) -> int:
        return self.double_for(obs, self._expected_edges(obs))

    def double_for(self, obs: Observation, edge: Sequence[float]) -> int:
        """Double (or redouble) each player whose expected score is ``double_margin`` below ours,
        ``edge[t]`` being the expected (my score − t's score) of this hand."""
        base = DOUBLE if obs.phase == Phase.DOUBLE else REDOUBLE
        options = [a - base for a in obs.legal]
        everyone = max(options, key=int.bit_count)
        wanted = sum(1 << t for t in seats_of(everyone) if edge[t] > self.double_margin)
        # The compulsory part is in every legal option; add what we want on top of it.
        best = min((m for m in options if m & wanted == wanted), key=int.bit_count)
        return base + best

    def _expected_edges(self, obs: Observation) -> list[float]:
        """Mean of (my contract score − each other player's) over playouts of this hand."""
        n = obs.game.players
        edge = [0.0] * n
        for _ in range(self.double_samples):
            world = sample_state(obs, self.rng)
            heuristic_playout(world, self.rng)
            scores = _contract_scores(world, obs.hand_no)
            for t in range(n):
                edge[t] += scores[obs.seat] - scores[t]
        return [e / self.double_samples for e in edge]


def _contract_scores(state: State, hand_no: int) -> tuple[int, ...]:
    record = state.history[-1]
    assert record.hand_no == hand_no
    return record.contract_scores


register("strong", StrongBot)
