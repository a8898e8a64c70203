"""The ``expert`` computer player: ``strong``'s search with fitted playouts, inference and exact endings.

It keeps what makes ``strong`` good (sampled deals that respect what the seat saw,
each candidate played out to the end of the hand, the same deals for every candidate)
and adds from the field:

- **playouts by a policy fitted to strong** (:mod:`barbu.bots.fitted`): every player of a
  playout plays the card a regression on ``strong``'s own choices scores best, rather than
  the rules of thumb of :mod:`barbu.bots.policy`, which pick ``strong``'s card less often and
  lose to the fitted policy when the two play each other (docs/RESULTS.md). Contracts with no
  fitted weights (Dominoes, Réussite) keep the rules of thumb.

- **a budget of work per decision**, in engine steps rather than a fixed number of
  deals, so that a decision among two cards near the end costs as little as it
  should and the first lead of a hand gets as many deals as the budget pays for.
  The budget is given in seconds and turned into steps at a measured rate, so a
  seed still gives the same game on any machine; a stop at :attr:`ExpertBot.hard_stop`
  budgets of the process's own CPU time guards against a slower machine or engine.
  CPU time, not wall time: what else the machine runs must not change how it plays,
  or a match measured beside other work would not replay.
- **policy-based inference**: every sampled deal is weighted by how likely it makes
  the plays the other players actually made (a player who could have ducked under the Q♠
  and did not probably had no low spade), by the fitted policy's softmax with a share of
  uniform play; by the rules of thumb, tempered, where there is no fitted policy.
- **successive elimination**: candidates that trail the best by a clear margin (in
  standard errors of the paired difference) are dropped, and the rest of the budget
  goes to the close calls.
- **exact endings**: once a trick game's ending is small (:data:`barbu.bots.endgame.LEAVES`
  ways to finish it at most: three cards each at a table of four), each sampled deal is solved
  exactly (:mod:`barbu.bots.endgame`, every player playing on perfectly for themselves) instead
  of played out. A solved deal costs more, so fewer are drawn: :attr:`ExpertBot.solve_floor`
  (unless the safety stop comes first), then what the budget pays for. ``+solvedom`` solves
  Dominoes' endings too (:data:`barbu.bots.endgame.DOMINO_LEFT` cards still held): a trial,
  +0.8 ± 1.4 a hand over the headline's 142 Dominoes deals, not separable from zero
  (docs/RESULTS.md), so not the default.

Every decision first gets as many deals as ``strong`` gives it, with nothing dropped
(:meth:`ExpertBot.floor`), unless the safety stop comes first; the budget buys deals beyond
those. The safety stop counts CPU time, so a decision it cuts short depends on the machine's
speed: a seed replays exactly only where the work budget, not the stop, ends each decision
(:meth:`ExpertBot.make_replayable` lifts the stop, as an analysis does).
A first version counted only the budget, at a rate set too low, and so gave the first leads of a hand fewer
deals than ``strong`` does: it lost to ``strong`` (docs/RESULTS.md).

Doubles are decided as ``strong`` does, from the distribution of the hand's outcome
(a double is a bet on the difference of two players' scores), with the budget's
deals and their weights.

A level name may carry a budget and a part: ``expert:0.3`` gets 0.3 s of work a decision;
``expert:1+play`` uses its own search for card play only and ``strong``'s for the rest
(``bid``, ``double``, ``play``); ``+flat`` turns the inference off, ``+nosolve`` the exact
endings, ``+rules`` the fitted policy (playouts and likelihoods by the rules of thumb);
``+solvedom`` adds Dominoes' endings to the solved ones; ``+lines`` plays Dominoes' playouts, and
weighs the others' Dominoes plays, by :func:`barbu.bots.policy.line_card`. The others' doubles
are read as evidence of the deal (:meth:`ExpertBot.wary_edges`) for the expert's own doubles and
redoubles, not for its card play (the default, also spelled ``+warybets``); ``+wary`` reads them
for the card play too, ``+nowary`` not at all (the expert measured before that default, which lost
to OpenSpiel's MCTS where the default beats it: docs/RESULTS.md).

>>> make_expert("expert:0.3+play+flat").budget, sorted(make_expert("expert:0.3+play").parts)
(0.3, ['play'])
>>> make_expert("expert+nosolve").solve_end, make_expert("expert").solve_end
(False, True)
>>> make_expert("expert:2+rules").fitted, make_expert("expert+solvedom").solve_dominoes
(False, True)
>>> [(b.wary, b.wary_play) for b in map(make_expert, ["expert", "expert+wary", "expert+nowary"])]
[(True, False), (True, True), (False, False)]
>>> make_expert("expert+warybets").reads == make_expert("expert").reads == "bets"
True
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Literal

from barbu.bots import register
from barbu.bots.endgame import Solver, small
from barbu.bots.fitted import fitted_line_playout, fitted_playout, likelihood
from barbu.bots.pimc import hand_value
from barbu.bots.policy import CardRule, heuristic_card, heuristic_playout, line_card
from barbu.bots.sampling import sample_state
from barbu.bots.strong import StrongBot, _contract_scores
from barbu.engine.doubling import (
    double_targets,
    doubling_turns,
    redouble_targets,
    redoubling_turns,
    split_doubles,
)
from barbu.engine.game import PASS
from barbu.engine.observation import Observation
from barbu.engine.state import Phase, State

PARTS = ("bid", "double", "play")
# What the expert reads the others' doubles for: its own bets, its card play too, or nothing.
Reads = Literal["bets", "all", "none"]
READS: tuple[Reads, ...] = ("bets", "all", "none")
Choice = tuple[int, int, bool]  # a doubling choice seen: maker, target, and whether he bet
# A deal's candidates evaluated: their values, the work it cost, and the contract scores one of
# them ended on when it was played out (None for an exact ending).
Evaluated = tuple[dict[int, float], float, tuple[int, ...] | None]
_KIND = {Phase.CHOOSE: "bid", Phase.TRUMP: "bid", Phase.START_RANK: "bid",
         Phase.DOUBLE: "double", Phase.REDOUBLE: "double", Phase.PLAY: "play"}
_STEADY = random.Random(0)  # the policy is asked without noise: its rng is never drawn from


class ExpertBot(StrongBot):
    """Budgeted, weighted, pruned determinized search (see the module's text)."""

    name = "expert"
    budget = 1.0  # seconds a decision, as work at steps_per_second
    # Playout steps a second, compiled engine, this 2-core machine (4,357 whole-hand playouts a
    # second of about 56 steps); a pure-Python engine runs about 1.5 times slower, so the same
    # budget there takes longer but plays the same way.
    steps_per_second = 250_000
    # Fitted playouts run at this share of the rules of thumb's speed (4,392 against 5,624 whole
    # playouts a second, classic, measured side by side): a step of theirs counts for more time.
    fitted_speed = 0.78
    hard_stop = 2.8  # budgets of CPU time after which a decision stops, whatever its work
    world_cost = 60  # steps a sampled deal costs to draw and weigh (200–260 µs), before any playout
    drop_z = 2.5  # standard errors a candidate must trail the best by to be dropped
    epsilon = 0.5  # the policy's share of plays not its first choice, in the likelihoods
    temper = 0.5  # exponent of the likelihoods: 1 trusts the policy fully, 0 ignores it
    # The fitted policy's softmax is a probability already, fitted to how strong plays: trusted
    # as it is, with a small share of other plays.
    fitted_epsilon = 0.1
    fitted_temper = 1.0
    solve_floor = 16  # solved deals an exact ending looks at, whatever the budget
    node_cost = 2  # steps a state of the exact search costs (7.5 µs against a playout step's 4)
    # +wary: a double is read as "its maker expects to beat its target by double_margin", on a
    # scale of wary_scale times the spread of the pair's difference over the deals drawn, with
    # this share of bets made, and as many refused, whatever the cards (chosen, not tuned).
    wary_noise = 0.1
    wary_scale = 0.5
    wary_deals = 32  # deals that measure the spreads when this hand's doubling was not weighed

    def __init__(self, seed: int | None = None, budget: float | None = None,
                 parts: Sequence[str] = PARTS, infer: bool = True, solve_end: bool = True,
                 fitted: bool = True, replayable: bool = False, solve_dominoes: bool = False,
                 lines: bool = False, reads: Reads = "bets") -> None:
        super().__init__(seed)
        if replayable:
            self.make_replayable()
        if budget is not None:
            if not budget > 0:
                raise ValueError(f"a budget is a positive number of seconds, not {budget}")
            self.budget = budget
        unknown = set(parts) - set(PARTS)
        if unknown:
            raise ValueError(f"unknown expert part(s) {sorted(unknown)}: one of {', '.join(PARTS)}")
        self.parts = frozenset(parts)
        self.infer = infer
        self.solve_end = solve_end
        self.solve_dominoes = solve_dominoes
        self.fitted = fitted
        self.lines = lines
        if reads not in READS:
            raise ValueError(f"the doubles are read for {' or '.join(READS)}, not {reads!r}")
        self.reads = reads
        # What reading the doubles is for: the doubling decisions ("bets", the default), the card
        # play too ("all", +wary), or nothing ("none", +nowary, the expert measured before).
        self.wary = reads != "none"
        self.wary_play = reads == "all"
        # +wary: the spread of each pair's difference, from this hand's doubling decision (the
        # hand's number and declarer first), to read the doubles by during the play (kept but
        # never read by default, when the play reads nothing). The arena
        # and the terminal give each game its own bots, so that is key enough; a bot made afresh
        # for each decision measures the spreads again (_doubles_to_read).
        self._spreads: tuple[tuple[int, int], list[list[float]]] | None = None
        # The rules of thumb where there is no fitted policy (or none is wanted): Dominoes by its
        # lines under +lines, the rules of strong otherwise.
        self.rule: CardRule = line_card if lines else heuristic_card
        if fitted:
            self.playout: Callable[[State, random.Random], None] = (
                fitted_line_playout if lines else fitted_playout)
        else:
            self.playout = partial(heuristic_playout, card=self.rule)

    def make_replayable(self) -> ExpertBot:
        """Lift the safety stop, so that the work budget alone ends every decision and a seed gives
        the same play on any machine, however busy (an analysis, a test, two builds compared)."""
        self.hard_stop = math.inf
        return self

    def act(self, obs: Observation) -> int:
        if len(obs.legal) == 1:
            return obs.legal[0]
        if _KIND.get(obs.phase) not in self.parts:
            return super().act(obs)  # strong's own decision
        if obs.phase in (Phase.DOUBLE, Phase.REDOUBLE):
            edges = self.wary_edges(obs) if self.wary else self._weighted_edges(obs)
            return self.double_for(obs, edges)
        values = self.values(obs, list(obs.legal))
        return max(values, key=lambda a: (values[a], -a))

    def values(self, obs: Observation, candidates: list[int]) -> dict[int, float]:
        """Each candidate's estimated value to this seat: solved exactly on each sampled deal in a small
        ending, played out otherwise (the coach reads them all, not only the best)."""
        if self.solve_end and _small_ending(obs, self.solve_dominoes):
            return self.solve(obs, candidates)
        return self.search(obs, candidates)

    # -- worlds ------------------------------------------------------------------------------

    def world(self, obs: Observation) -> tuple[State, float]:
        """A sampled deal played up to now, and its weight (the tempered likelihood of the plays)."""
        log_like = 0.0

        def watch(state: State, action: int) -> None:
            nonlocal log_like
            if state.current != obs.seat and action != PASS:
                like = likelihood(state, action, self.fitted_epsilon) if self.fitted else None
                if like is None:
                    log_like += self.temper * math.log(
                        _play_likelihood(state, action, self.epsilon, self.rule))
                else:
                    log_like += self.fitted_temper * math.log(like)

        state = sample_state(obs, self.rng, watch=watch if self.infer else None)
        # Floored so that even the least likely deals keep a weight whose square is not zero.
        return state, math.exp(max(log_like, -300.0))

    def _work(self, obs: Observation) -> float:
        return self.budget * self.steps_per_second * (self.fitted_speed if self.fitted else 1.0)

    def floor(self, obs: Observation) -> int:
        """The deals ``strong`` gives this kind of decision: the expert looks at no fewer (unless
        the safety stop comes first) and drops no candidate before, so that it is ``strong`` plus
        what its extra time finds."""
        kind = _KIND.get(obs.phase)
        return {"play": self.play_samples, "double": self.double_samples}.get(kind or "", self.bid_samples)

    def _clock(self) -> float:
        return time.process_time() + self.hard_stop * self.budget

    # -- search ------------------------------------------------------------------------------

    def search(self, obs: Observation, candidates: list[int]) -> dict[int, float]:
        """Weighted mean value of the hand to this seat after each candidate, by playouts.

        A candidate dropped as worse keeps the mean it had when dropped, which is below the
        best's; one dropped as the best's twin gets that candidate's final mean.
        """
        steps = sum(obs.hand_sizes) + 8

        def playouts(world: State, alive: list[int]) -> Evaluated:
            out = {}
            ends = None
            for action in alive:
                trial = world.copy()
                trial._do(action)
                self.playout(trial, self.rng)
                out[action] = hand_value(trial, obs.seat, obs.hand_no)
                if self.wary_play and ends is None:  # +wary: the doubles, read by a deal's end
                    ends = _contract_scores(trial, obs.hand_no)
            return out, self.world_cost + steps * len(alive), ends

        return self._compare(obs, candidates, self.floor(obs), self._work(obs), playouts)

    def solve(self, obs: Observation, candidates: list[int]) -> dict[int, float]:
        """Weighted mean over sampled deals of each candidate's exact value (:mod:`barbu.bots.endgame`)."""

        def solved(world: State, alive: list[int]) -> Evaluated:
            solver = Solver(world)
            got = solver.card_values(world, obs.seat, alive)
            return got, self.world_cost + self.node_cost * solver.nodes, None

        # No playout runs here, so the budget is counted at the rules of thumb's rate.
        return self._compare(obs, candidates, self.solve_floor, self.budget * self.steps_per_second, solved)

    def _compare(self, obs: Observation, candidates: list[int], floor: int, work: float,
                 evaluate: Callable[[State, list[int]], Evaluated]) -> dict[int, float]:
        """Draw deals and ``evaluate`` the candidates still in the running on each (values, the
        work that cost, and the contract scores one of them ended on, if it played out) until the
        floor and the work are done, or the safety stop."""
        deadline = self._clock()
        alive = list(candidates)
        weights: list[float] = []
        values: dict[int, list[float]] = {a: [] for a in candidates}
        means: dict[int, float] = {}
        twins: dict[int, int] = {}
        spent = 0.0
        read = self._doubles_to_read(obs)
        while len(alive) > 1 and (len(weights) < floor or spent < work) and (
                not weights or time.process_time() < deadline):
            world, w = self.world(obs)
            got, cost, ends = evaluate(world, alive)
            if read:
                if ends is None:  # an exact ending: one playout more to read the doubles by
                    ends = self._played_to_end(world, obs.hand_no)
                    cost += sum(obs.hand_sizes) + 8
                w *= self._choices_likelihood(ends, *read)
            weights.append(w)
            for action in alive:
                values[action].append(got[action])
            spent += cost
            if len(weights) >= floor and len(weights) % 8 == 0:
                alive = _prune(alive, values, weights, means, twins, self.drop_z)
        for a in alive:
            means[a] = _weighted_mean(values[a], weights)
        for a, twin in twins.items():
            while twin in twins:
                twin = twins[twin]
            means[a] = means[twin]
        return means

    # -- doubles -----------------------------------------------------------------------------

    def _weighted_edges(self, obs: Observation) -> list[float]:
        """Weighted mean of (my contract score − each other player's) over playouts of this hand."""
        n = obs.game.players
        edge = [0.0] * n
        total = 0.0
        for w, scores in self._played_out(obs):
            for t in range(n):
                edge[t] += w * (scores[obs.seat] - scores[t])
            total += w
        return [e / total for e in edge]

    def _played_out(self, obs: Observation) -> list[tuple[float, tuple[int, ...]]]:
        """Deals drawn and played out to the end of the hand, as (weight, contract scores), as
        many as the budget pays for."""
        steps = sum(obs.hand_sizes) + 8
        work, deadline, floor = self._work(obs), self._clock(), self.floor(obs)
        out: list[tuple[float, tuple[int, ...]]] = []
        spent = 0.0
        while (len(out) < floor or spent < work) and (not out or time.process_time() < deadline):
            world, w = self.world(obs)
            self.playout(world, self.rng)
            out.append((w, _contract_scores(world, obs.hand_no)))
            spent += self.world_cost + steps
        return out

    def wary_edges(self, obs: Observation) -> list[float]:
        """What doubling (or redoubling) each player is worth, reading the others' doubles as
        evidence (unless ``+nowary``).

        A player who doubled (or did not double) someone this hand told what he expects of the
        pair: each deal is weighted, besides its plays, by how likely it makes every such choice,
        a double being likely where the playout has its maker ahead of its target by more than
        ``double_margin`` (a soft step, :func:`_says`). A double of mine can be answered by its
        target's redouble, and will be where he expects to come out ahead, so in the doubling
        round a deal counts my difference with him once more by how likely that answer is. A
        player who doubles knowing the cards (or just his own) does so where it pays; a search
        that took each double as a coin toss would redouble him exactly when it should not.
        Under ``+wary`` (not by default) the same reading weighs the deals of every card
        decision of the hand that follows (:meth:`_doubles_to_read`).
        """
        n = obs.game.players
        me = obs.seat
        worlds = self._played_out(obs)
        spread = _pair_spreads([sc for _, sc in worlds], n, self.wary_scale)
        self._spreads = ((obs.hand_no, obs.declarer), spread)
        choices = _doubling_choices(obs)
        weights = [w * self._choices_likelihood(sc, choices, spread) for w, sc in worlds]
        total = math.fsum(weights)
        edge = [0.0] * n
        for w, (_, sc) in zip(weights, worlds, strict=True):
            for t in range(n):
                if t == me:
                    continue
                d = sc[me] - sc[t]
                answer = (_says(-d - self.double_margin, spread[t][me], self.wary_noise)
                          if obs.phase == Phase.DOUBLE else 0.0)
                edge[t] += w * d * (1.0 + answer)
        return [e / total for e in edge]

    def _choices_likelihood(self, scores: Sequence[int], choices: list[Choice],
                            spread: list[list[float]]) -> float:
        """How likely a deal that ends in ``scores`` makes the doubling ``choices`` seen."""
        like = 1.0
        for t, s, made in choices:
            p = _says(scores[t] - scores[s] - self.double_margin, spread[t][s], self.wary_noise)
            like *= p if made else 1.0 - p
        return like

    def _doubles_to_read(self, obs: Observation) -> tuple[list[Choice], list[list[float]]] | None:
        """Under ``+wary``, in the play: the others' doubling choices and the pairs' spreads, to
        weigh each deal of a card decision by (None when there is nothing to read, and always
        without ``+wary``).

        The spreads are those of this hand's doubling decision; a seat that had none (a declarer
        nobody doubled, a double that was its only choice) measures them on its first card
        decision, over a few deals (:attr:`wary_deals`, some 1% of a budget, not counted).
        """
        if not self.wary_play or obs.phase != Phase.PLAY:
            return None
        choices = _doubling_choices(obs)
        if not choices:
            return None
        key = (obs.hand_no, obs.declarer)
        if self._spreads is None or self._spreads[0] != key:
            ends = [self._played_to_end(self.world(obs)[0], obs.hand_no) for _ in range(self.wary_deals)]
            self._spreads = (key, _pair_spreads(ends, obs.game.players, self.wary_scale))
        return choices, self._spreads[1]

    def _played_to_end(self, world: State, hand_no: int) -> tuple[int, ...]:
        """The contract scores a playout of the deal ends on (the deal itself untouched)."""
        trial = world.copy()
        self.playout(trial, self.rng)
        return _contract_scores(trial, hand_no)


def _prune(alive: list[int], values: dict[int, list[float]], weights: list[float],
           means: dict[int, float], twins: dict[int, int], drop_z: float) -> list[int]:
    """Drop the candidates the paired comparison with the best shows to be clearly worse, by
    ``drop_z`` standard errors (their mean goes in ``means``), and those that came out exactly as
    the best on every deal so far, two cards that play alike, which more deals would not tell
    apart either (their twin goes in ``twins``)."""
    # Every candidate still alive has been played out on every deal drawn so far (all start
    # together; only a dropped one stops), so its values line up with ``weights``.
    mean = {a: _weighted_mean(values[a], weights) for a in alive}
    best = max(alive, key=lambda a: mean[a])
    keep = [best]
    for a in alive:
        if a == best:
            continue
        diff = [x - y for x, y in zip(values[best], values[a], strict=True)]
        if not any(diff):
            twins[a] = best
        elif _weighted_mean(diff, weights) > drop_z * _weighted_se(diff, weights):
            means[a] = mean[a]
        else:
            keep.append(a)
    return keep


def _pair_spreads(ends: Sequence[Sequence[int]], n: int, scale: float) -> list[list[float]]:
    """The step width of each pair's doubles: ``scale`` (:attr:`ExpertBot.wary_scale`) times the
    spread of the pair's difference over the deals' ends."""
    return [[_spread([sc[t] - sc[s] for sc in ends]) * scale for s in range(n)] for t in range(n)]


def _doubling_choices(obs: Observation) -> list[Choice]:
    """The choices the others made so far in this hand's doubling, as (maker, target, made):
    every double or redouble they could have made, and whether they did; a compulsory double of
    the declarer tells nothing and is left out."""
    n = obs.game.players
    declarer = obs.declarer
    doubles, redoubles = split_doubles(obs.doubles, declarer, n)
    positive = obs.contract is not None and obs.contract.positive
    out: list[Choice] = []
    made = [0] * n
    for t in reversed(doubling_turns(declarer, n)):  # the doubling round, from the declarer's left
        if obs.phase == Phase.DOUBLE and t == obs.seat:
            return out
        for s in range(n):
            if double_targets(t, declarer, positive, made) >> s & 1 and t != obs.seat and not (
                    s == declarer and t in obs.compulsory):
                out.append((t, s, bool(doubles[t] >> s & 1)))
        made[t] = doubles[t]
    for t in reversed(redoubling_turns(declarer, doubles)):  # the redoubles, the declarer first
        if obs.phase == Phase.REDOUBLE and t == obs.seat:
            break
        if t == obs.seat:
            continue
        for s in range(n):
            if redouble_targets(t, doubles) >> s & 1:
                out.append((t, s, bool(redoubles[t] >> s & 1)))
    return out


def _says(lead: float, scale: float, noise: float) -> float:
    """How likely a player is to make a bet that leads by ``lead`` points on this deal: a
    logistic step of width ``scale``, with a share ``noise`` of bets made or not whatever."""
    z = max(-30.0, min(30.0, lead / scale))
    return noise + (1.0 - 2.0 * noise) / (1.0 + math.exp(-z))


def _spread(xs: Sequence[float]) -> float:
    """Standard deviation, at least one point."""
    return max(1.0, statistics.pstdev(xs))


def _small_ending(obs: Observation, dominoes: bool = False) -> bool:
    """A card play with few enough ways left to finish that each deal is solved (Dominoes only
    when asked)."""
    c = obs.contract
    return (obs.phase == Phase.PLAY and c is not None
            and small(c.kind, obs.game.players, obs.hand_sizes, dominoes))


def _play_likelihood(state: State, action: int, epsilon: float,
                     rule: CardRule = heuristic_card) -> float:
    """How likely the rule-of-thumb policy ``rule``, with a share ``epsilon`` of other plays,
    makes ``action``."""
    legal = state.legal_mask()
    k = legal.bit_count()
    if k <= 1:
        return 1.0
    guess = rule(state, _STEADY, 0.0)
    return (1.0 - epsilon) * (action == guess) + epsilon / k


def _weighted_mean(xs: Sequence[float], ws: Sequence[float]) -> float:
    total = math.fsum(ws)
    return math.fsum(x * w for x, w in zip(xs, ws, strict=True)) / total


def _weighted_se(xs: Sequence[float], ws: Sequence[float]) -> float:
    """Standard error of a weighted mean, with Kish's effective sample size."""
    total = math.fsum(ws)
    m = _weighted_mean(xs, ws)
    var = math.fsum(w * (x - m) ** 2 for x, w in zip(xs, ws, strict=True)) / total
    ess = total * total / math.fsum(w * w for w in ws)
    return math.sqrt(var / max(ess - 1.0, 1.0))


def make_expert(name: str, seed: int | None = None) -> ExpertBot:
    """The bot a level name asks for: ``expert``, ``expert:SECONDS``, then ``+PART``…, ``+flat``,
    ``+nosolve``, ``+rules``, ``+solvedom``, ``+lines``, and one reading of the doubles:
    ``+warybets`` (the default, named), ``+wary`` or ``+nowary``.

    >>> make_expert("expert:2+double+bid").parts == {"double", "bid"}
    True
    """
    head, *extras = name.split("+")
    level, _, seconds = head.partition(":")
    if level != "expert":
        raise ValueError(f"not an expert level: {name!r}")
    try:
        budget = float(seconds) if seconds else None
    except ValueError:
        raise ValueError(f"an expert budget is a number of seconds, not {seconds!r}") from None
    readings: dict[str, Reads] = {"warybets": "bets", "wary": "all", "nowary": "none"}
    flags = {"flat", "nosolve", "rules", "solvedom", "lines", *readings}
    parts = [e for e in extras if e not in flags] or list(PARTS)
    chosen = [readings[e] for e in extras if e in readings]
    if len(chosen) > 1:
        raise ValueError(f"{name!r}: +warybets, +wary and +nowary are three readings of the "
                         "others' doubles; give one at most")
    reads = chosen[0] if chosen else "bets"
    return ExpertBot(seed, budget=budget, parts=parts, infer="flat" not in extras,
                     solve_end="nosolve" not in extras, fitted="rules" not in extras,
                     solve_dominoes="solvedom" in extras, lines="lines" in extras, reads=reads)


register("expert", ExpertBot)
