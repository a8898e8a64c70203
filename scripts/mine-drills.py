"""Mine the practice drills: decisions of computer games where the best choice is clearly better than
the natural ones, keyed by the coach's search and checked by a search of ten times its budget.

    nice -n 10 .venv/bin/python scripts/mine-drills.py --out src/barbu/learn/drills.json

For each contract of the classic rules and each challenge of the family rules (four players), it
plays first hands of games seeded from ``--seed``: the declarer is made to choose that contract, and
every decision is the coach's choice (``barbu.coach.hint`` with the budget and floor of deals below,
a fixed seed and no CPU stop, so that it replays), so the expert plays every seat. Each decision
with a choice becomes a candidate when the coach's choice beats two or three natural alternatives by
``STRICT`` times ``--margin`` points (classic; ``--family-margin`` for the family rules' larger
points): what ``basic`` would choose, then the next best choices by the coach's value. Up to
``PER_HAND`` candidates of a hand are searched again with ten times the budget (another seed); one is
kept when that search ranks the key first among the choices offered and still by the margin. The
script prints how often the deeper search agrees, and what it kept per contract and kind of
decision; the data file holds the same figures. Deterministic from its seed: no search is cut short
by a CPU stop.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from barbu.bots.basic import BasicBot
from barbu.coach import Hint, hint
from barbu.coach.explained import reasons_between
from barbu.engine.game import CONTRACT
from barbu.engine.observation import Observation
from barbu.engine.state import Phase, State
from barbu.learn.positions import game_for, kind_of, rebuild

# The coach's search for a drill: a budget smaller than the table's (0.25 s) so that the check, ten
# times it, fits the run's CPU time; the floor of deals is the expert's own for a card, so most of a
# decision's deals come from the floor anyway.
BUDGET = 0.1
FLOOR = 48  # deals each search looks at, at least: the budget buys more
CHECK = 10  # the check's budget, in coach's budgets
PER_HAND = 8  # candidates checked from one hand at most, so that drills come from many deals
STRICT = 1.25  # a candidate's key must beat its alternatives by this many margins in the coach's search


@dataclass
class Tally:
    """What the run found: candidates checked, agreements, drills kept per contract and kind."""

    checked: int = 0
    agreed: int = 0
    same_best: int = 0  # candidates whose key is the deeper search's own best choice of all
    kept: dict[str, int] = field(default_factory=dict)
    kinds: dict[str, dict[str, int]] = field(default_factory=dict)
    hands: int = 0
    agreement: dict[str, list[int]] = field(default_factory=dict)  # per kind: agreed, checked

    def keep(self, category: str, kind: str) -> None:
        self.kept[category] = self.kept.get(category, 0) + 1
        per = self.kinds.setdefault(category, {})
        per[kind] = per.get(kind, 0) + 1


def offered(obs: Observation, h: Hint, margin: float, basic: int) -> list[int] | None:
    """The key and two or three natural alternatives each worse by ``margin`` (``basic``'s choice
    first, then the best by value), or None when there are fewer than two such."""
    if h.forced or max(h.values, key=lambda a: (h.values[a], -a)) != h.choice:
        return None
    worse = [a for a in h.values if h.values[h.choice] - h.values[a] >= margin * STRICT]
    worse.sort(key=lambda a: (-h.values[a], a))
    alts = ([basic] if basic in worse else []) + [a for a in worse if a != basic]
    return [h.choice, *alts[:3]] if len(alts) >= 2 else None


def category(obs: Observation, key: int) -> str:
    """The contract a drill counts for: the contract chosen at a contract choice, else the one played."""
    g = obs.game
    c = g.contracts[key - CONTRACT] if obs.phase == Phase.CHOOSE else obs.contract
    assert c is not None
    return f"{g.ruleset}:{c.id}"


@dataclass(frozen=True)
class Checked:
    """The deeper search's verdict on a candidate: whether it ranks the key first among the choices
    offered, whether by the margin still, whether its own best choice is the key, and its hint."""

    agrees: bool
    clear: bool
    same_best: bool
    deep: Hint


def check(obs: Observation, choices: list[int], margin: float, seed: int) -> Checked:
    """The search of ten times the coach's budget at ``obs``, on the choices offered."""
    deep = hint(obs, BUDGET * CHECK, seed=seed, stop=None, floor=FLOOR)
    key, alts = choices[0], choices[1:]
    agrees = all(deep.values[key] > deep.values[a] for a in alts)
    clear = all(deep.values[key] - deep.values[a] >= margin for a in alts)
    return Checked(agrees, clear, deep.choice == key, Hint(deep.seat, key, deep.values, edges=deep.edges))


def record(state: State, first: int, actions: list[int], obs: Observation, deep: Hint, choices: list[int],
           seeds: tuple[int, int], margin: float) -> dict[str, Any]:
    """The drill as data: what rebuilds the view, the choices and their values (the deeper search's),
    and the reasons between the key and each wrong choice."""
    key = choices[0]
    reasons = {str(a): [[r.key, dict(r.slots)] for r in reasons_between(obs, deep, a)] for a in choices[1:]}
    return {"rules": obs.game.ruleset, "players": obs.game.players, "seed": state.seed, "first": first,
            "actions": list(actions), "seat": obs.seat, "kind": kind_of(obs),
            "contract": category(obs, key).split(":")[1], "key": key, "choices": choices,
            "values": {str(a): round(deep.values[a], 2) for a in choices}, "reasons": reasons,
            "coach": {"budget": BUDGET, "floor": FLOOR, "seed": seeds[0]},
            "check": {"budget": BUDGET * CHECK, "floor": FLOOR, "seed": seeds[1]}, "margin": margin}


@dataclass(frozen=True)
class Candidate:
    """A decision met in a hand whose coach's choice beats natural alternatives by the margin."""

    first: int
    actions: list[int]
    obs: Observation
    choices: list[int]
    seeds: tuple[int, int]


class Miner:
    """Plays first hands with the coach at every seat and keeps the drills it finds."""

    def __init__(self, seed: int, target: int, margins: dict[str, float]) -> None:
        self.seed, self.target, self.margins = seed, target, margins
        self.tally = Tally()
        self.drills: list[dict[str, Any]] = []
        self.on_progress: Callable[[Miner], None] | None = None  # after each contract (the file so far)

    def want(self, cat: str, kind: str) -> bool:
        """Still short of drills of this contract, and this kind has not taken its share of them: a
        quarter for the bidding's kinds (contract, trump, rank, doubles), half for a kind of trick play,
        all for the placements of Dominoes and Réussite."""
        have = self.tally.kept.get(cat, 0)
        share = {"place": self.target, "lead": self.target // 2, "follow": self.target // 2,
                 "discard": self.target // 2}.get(kind, self.target // 4)
        return have < self.target and self.tally.kinds.get(cat, {}).get(kind, 0) < share

    def hand(self, rules: str, contract: int, game_seed: int) -> None:
        """Play one first hand of ``contract`` and check the candidates met on the way."""
        first = game_seed % 4
        state = State(game_for(rules), seed=game_seed, first_declarer=first)
        if not state.deal_random():
            return
        actions: list[int] = []
        found: list[Candidate] = []
        self.tally.hands += 1
        while state.phase != Phase.DEAL and not state.is_over:
            obs = state.observe(state.current)
            if len(obs.legal) == 1:
                state.apply(obs.legal[0])
                actions.append(obs.legal[0])
                continue
            seeds = (game_seed * 100 + len(actions), game_seed * 100 + len(actions) + 50)
            h = hint(obs, BUDGET, seed=seeds[0], stop=None, floor=FLOOR)
            choices = offered(obs, h, self.margins[obs.game.ruleset], BasicBot(seeds[0]).act(obs))
            if choices is not None:
                found.append(Candidate(first, actions[:], obs, choices, seeds))
            move = CONTRACT + contract if obs.phase == Phase.CHOOSE else h.choice
            state.apply(move)
            actions.append(move)
        self.pick(state, found)

    def pick(self, state: State, found: list[Candidate]) -> None:
        """Check up to PER_HAND of a hand's candidates, the kinds this contract has least of first, and of
        a kind the latest in the hand first (fewer cards unseen: the searches agree more often)."""
        checked = 0
        for cand in sorted(found, key=self.scarcity):
            if checked == PER_HAND:
                break
            if self.want(category(cand.obs, cand.choices[0]), kind_of(cand.obs)):
                checked += 1
                self.consider(state, cand)

    def scarcity(self, cand: Candidate) -> tuple[int, int]:
        cat = category(cand.obs, cand.choices[0])
        return self.tally.kinds.get(cat, {}).get(kind_of(cand.obs), 0), -len(cand.actions)

    def consider(self, state: State, cand: Candidate) -> bool:
        obs, choices, seeds = cand.obs, cand.choices, cand.seeds
        margin = self.margins[obs.game.ruleset]
        self.tally.checked += 1
        verdict = check(obs, choices, margin, seeds[1])
        kind = kind_of(obs)
        per = self.tally.agreement.setdefault(kind, [0, 0])
        per[0] += verdict.agrees
        per[1] += 1
        self.tally.agreed += verdict.agrees
        self.tally.same_best += verdict.same_best
        if not (verdict.agrees and verdict.clear):
            return False
        drill = record(state, cand.first, cand.actions, obs, verdict.deep, choices, seeds, margin)
        self.tally.keep(category(obs, choices[0]), drill["kind"])
        self.drills.append(drill)
        return True

    def mine(self, rule_sets: list[str], max_hands: int) -> None:
        """Rounds of one hand of each contract still short of drills, until none is (or ``max_hands``
        rounds were played): every contract gets its share of the time, whenever the run is cut."""
        cats = [(rules, i, f"{rules}:{c.id}")
                for rules in rule_sets for i, c in enumerate(game_for(rules).contracts)]
        for n in range(max_hands):
            short = [(rules, i, cat) for rules, i, cat in cats if self.tally.kept.get(cat, 0) < self.target]
            if not short:
                break
            for rules, i, _ in short:
                base = self.seed * 100_000 + (0 if rules == "classic" else 50_000)
                self.hand(rules, i, base + i * 1000 + n)
            if self.on_progress is not None:
                self.on_progress(self)
            t = self.tally
            print(f"round {n + 1}: {sum(t.kept.values())} drills {t.kept}, {t.hands} hands, "
                  f"agreement so far {t.agreed}/{t.checked}, {time.process_time():.0f} s CPU", flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, default=38)
    p.add_argument("--target", type=int, default=30, help="drills per contract and challenge")
    p.add_argument("--max-hands", type=int, default=80, help="rounds (a hand of each contract) at most")
    p.add_argument("--margin", type=float, default=4.0, help="points (classic) a drill's key must win by")
    p.add_argument("--family-margin", type=float, default=12.0, help="points (family) likewise")
    p.add_argument("--rules", choices=("classic", "family", "both"), default="both")
    p.add_argument("--out", help="the drills' file (JSON); printed figures only without it")
    p.add_argument("--reasons-only", action="store_true",
                   help="only say the reasons of --out's drills again (after the coach's templates changed), "
                        "from their stored values: no search")
    args = p.parse_args(argv)
    if args.reasons_only:
        return say_again(args.out)
    miner = Miner(args.seed, args.target, {"classic": args.margin, "family": args.family_margin})
    if args.out:
        miner.on_progress = partial(write, args)
    miner.mine(["classic", "family"] if args.rules == "both" else [args.rules], args.max_hands)
    t = miner.tally
    rate = t.agreed / t.checked if t.checked else 0.0
    print(f"candidates checked {t.checked}, the 10x search ranks the key first on {t.agreed} "
          f"({100 * rate:.1f}%), "
          f"and its own best is the key on {t.same_best}; per kind (agreed, checked) {t.agreement}; "
          f"kept {len(miner.drills)} drills from {t.hands} hands in {time.process_time():.0f} s CPU")
    return 0


def say_again(path: str) -> int:
    """The reasons of every drill in ``path`` made again from its stored values, the doubles' excepted
    (their stakes need the search's edges, which a drill does not keep)."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    for d in doc["drills"]:
        if d["kind"] in ("double", "redouble"):
            continue
        obs = rebuild(d["rules"], d["players"], d["seed"], d["first"], d["actions"]).observe(d["seat"])
        values = {int(a): v for a, v in d["values"].items()}
        h = Hint(obs.seat, d["key"], values)
        d["reasons"] = {str(a): [[r.key, dict(r.slots)] for r in reasons_between(obs, h, a)]
                        for a in d["choices"][1:]}
    with open(path, "w", encoding="utf-8") as out:
        json.dump(doc, out, ensure_ascii=False, separators=(",", ":"))
        out.write("\n")
    return 0


def write(args: argparse.Namespace, miner: Miner) -> None:
    """The drills found so far, with the run's figures, as the package's data file."""
    t = miner.tally
    doc = {"format": "barbu-drills/1", "seed": args.seed, "margin": args.margin,
           "family_margin": args.family_margin, "checked": t.checked, "agreed": t.agreed,
           "same_best": t.same_best, "hands": t.hands, "drills": miner.drills}
    with open(args.out, "w", encoding="utf-8") as out:
        json.dump(doc, out, ensure_ascii=False, separators=(",", ":"))
        out.write("\n")


if __name__ == "__main__":
    sys.exit(main())
