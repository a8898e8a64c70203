"""Practice drills: decisions mined from computer games, answered in one choice, scored and explained.

The drill set ships as data (``drills.json``, made by ``scripts/mine-drills.py``: docs/coach.md says
how). A :class:`Drill` rebuilds its seat's view exactly (:mod:`barbu.learn.positions`); :func:`answer`
says whether a choice is the key, what it costs in points and why (the coach's reasons, catalogue
keys with slots); :class:`Record` is a learner's tally per contract, and :func:`pick` the next drill
(none of the last ones, more of the weakest contract).
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from barbu.coach.reasons import Reason
from barbu.engine.observation import Observation
from barbu.learn.positions import game_for, rebuild

DATA = Path(__file__).resolve().parent / "drills.json"
RECENT = 12  # drills a learner is not shown again until this many others came between
WEAK_SHARE = 0.4  # of the drills picked across contracts: the weakest contract's, once there is one
KEPT = 40  # the last drills' ids a record keeps (bounded, whatever a client sends)


@dataclass(frozen=True)
class Drill:
    """One drill: where it comes from, the choices offered (the key first) and their values, and the
    reasons between the key and each wrong choice."""

    id: str
    rules: str
    players: int
    seed: int
    first: int
    actions: tuple[int, ...]
    seat: int
    kind: str
    contract: str
    key: int
    choices: tuple[int, ...]
    values: Mapping[int, float]
    reasons: Mapping[int, tuple[Reason, ...]]
    # The coach's search that gave the key: its budget (s), floor of deals and seed (no CPU stop).
    coach: Mapping[str, float] = field(default_factory=dict)

    @property
    def category(self) -> str:
        """The contract it counts for, as ``rules:contract`` (``classic:no-last-two``)."""
        return f"{self.rules}:{self.contract}"

    def observation(self) -> Observation:
        """The seat's view at the decision, rebuilt from the game's seed and the hand's actions."""
        return rebuild(self.rules, self.players, self.seed, self.first, self.actions).observe(self.seat)

    def tempting(self) -> int:
        """The wrong choice worth most: what a right answer's explanation is weighed against."""
        return max((c for c in self.choices if c != self.key), key=lambda c: (self.values[c], -c))

    def shown(self) -> tuple[int, ...]:
        """The choices in the order they are offered: shuffled once by the drill's id, so that the key
        is not always first, and the same on every visit."""
        order = list(self.choices)
        random.Random(self.id).shuffle(order)
        return tuple(order)


@dataclass(frozen=True)
class Answer:
    """A choice answered: right or not, its cost against the key in points, and why."""

    drill: Drill
    choice: int
    right: bool
    cost: float
    reasons: tuple[Reason, ...]


def _drill(n: int, raw: Mapping[str, Any]) -> Drill:
    reasons = {int(a): tuple(Reason(k, dict(slots)) for k, slots in rs) for a, rs in raw["reasons"].items()}
    return Drill(f"{raw['rules']}-{raw['contract']}-{n}", raw["rules"], raw["players"], raw["seed"],
                 raw["first"], tuple(raw["actions"]), raw["seat"], raw["kind"], raw["contract"],
                 raw["key"], tuple(raw["choices"]), {int(a): v for a, v in raw["values"].items()}, reasons,
                 dict(raw["coach"]))


@functools.cache
def drills() -> dict[str, Drill]:
    """Every shipped drill by id, in the file's order (numbered within its contract)."""
    out: dict[str, Drill] = {}
    seen: dict[str, int] = {}
    for raw in _document()["drills"]:
        cat = f"{raw['rules']}:{raw['contract']}"
        seen[cat] = seen.get(cat, 0) + 1
        d = _drill(seen[cat], raw)
        out[d.id] = d
    return out


@functools.cache
def _document() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(DATA.read_text(encoding="utf-8"))
    return doc


def figures() -> dict[str, Any]:
    """The mining run's figures stored with the drills: candidates checked and agreed, and its seed."""
    return {k: v for k, v in _document().items() if k != "drills"}


def categories(rules: str | None = None) -> list[str]:
    """The contracts that have drills (``rules:contract``), in the rule sets' own order."""
    seen = {d.category for d in drills().values()}
    order = [f"{r}:{c.id}" for r in ("classic", "family") for c in game_for(r).contracts]
    return [c for c in order if c in seen and (rules is None or c.startswith(f"{rules}:"))]


def answer(drill: Drill, choice: int) -> Answer:
    """``choice`` answered at ``drill``; one not offered is refused (ValueError)."""
    if choice not in drill.choices:
        raise ValueError(f"{choice} is not one of the choices offered at drill {drill.id}")
    right = choice == drill.key
    cost = 0.0 if right else round(drill.values[drill.key] - drill.values[choice], 1)
    return Answer(drill, choice, right, cost, () if right else drill.reasons[choice])


@dataclass
class Tally:
    """A contract's answers: how many right of how many, and the points the wrong ones cost."""

    right: int = 0
    asked: int = 0
    cost: float = 0.0

    @property
    def rate(self) -> float:
        return self.right / self.asked if self.asked else 0.0


@dataclass
class Record:
    """A learner's drills: a tally per contract and the last drills' ids (to show others next)."""

    tallies: dict[str, Tally] = field(default_factory=dict)
    recent: list[str] = field(default_factory=list)

    def add(self, a: Answer) -> None:
        t = self.tallies.setdefault(a.drill.category, Tally())
        t.asked += 1
        t.right += a.right
        t.cost = round(t.cost + a.cost, 1)
        self.recent = [*[i for i in self.recent if i != a.drill.id][-(KEPT - 1):], a.drill.id]

    def weakest(self, least: int = 3) -> str | None:
        """The contract answered worst (the lowest share right, the most points lost on a tie) among
        those answered at least ``least`` times; None before any is."""
        tried = [(t.rate, -t.cost, c) for c, t in self.tallies.items() if t.asked >= least]
        return min(tried)[2] if tried else None

    def to_json(self) -> dict[str, Any]:
        return {"contracts": {c: [t.right, t.asked, t.cost] for c, t in self.tallies.items()},
                "recent": list(self.recent)}

    @classmethod
    def from_json(cls, doc: object) -> Record:
        """A record read back; what is not one (a changed drill set, a hand-edited file) is dropped,
        never raised, since a learner's tally is no reason to refuse a drill."""
        rec = cls()
        if not isinstance(doc, dict):
            return rec
        known = set(categories())
        for c, v in (doc.get("contracts") or {}).items() if isinstance(doc.get("contracts"), dict) else ():
            if c in known and _tally_ok(v):
                rec.tallies[c] = Tally(int(v[0]), int(v[1]), float(v[2]))
        recent = doc.get("recent")
        if isinstance(recent, list):
            ids = drills()
            rec.recent = [i for i in recent if isinstance(i, str) and i in ids][-KEPT:]
        return rec


def _tally_ok(v: object) -> bool:
    return (isinstance(v, list) and len(v) == 3 and all(isinstance(x, int | float) and not isinstance(x, bool)
                                                        for x in v)
            and 0 <= v[0] <= v[1] < 10**9 and 0 <= v[2] < 10**12)


def pick(record: Record, rng: random.Random, *, rules: str | None = None, contract: str | None = None,
         recent: Iterable[str] = ()) -> Drill:
    """The next drill for a learner: of ``contract`` (an id of ``rules``) when given, else of any
    contract (of ``rules`` when given), the weakest contract's :data:`WEAK_SHARE` of the time; never
    one of the last :data:`RECENT` done while others remain."""
    pool = [d for d in drills().values() if (rules is None or d.rules == rules)
            and (contract is None or d.contract == contract)]
    if not pool:
        raise ValueError(f"no drills of {rules or 'any rules'}:{contract or 'any contract'}")
    done = set([*record.recent, *recent][-RECENT:])
    fresh = [d for d in pool if d.id not in done] or pool
    weak = [d for d in fresh if d.category == record.weakest()]
    if weak and rng.random() < WEAK_SHARE:
        return rng.choice(weak)
    return rng.choice(fresh)
