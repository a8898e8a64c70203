"""The tutorial's lessons: one per contract of each rule set and one on doubling, each with prepared
positions (a seed and the actions up to a decision of the learner's seat) and its real hand.

The lessons are data (``lessons.json``, written by ``scripts/make-lessons.py``); this module reads
them, rebuilds each position with the engine, tells the learner what a choice led to and what the
coach says of it. What a contract scores comes from the engine's contract table.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib.resources import files
from typing import Any

from barbu.bots import make_bot
from barbu.coach.advice import Hint
from barbu.coach.explained import Advice, advice_from
from barbu.engine.contracts import Contract, Kind
from barbu.engine.game import CONTRACT, Game
from barbu.engine.observation import Observation
from barbu.engine.state import Phase, State
from barbu.engine.tricks import trick_winner

# The computers that play a position on after the learner's choice: the rule-of-thumb player,
# seeded, so that the same choice always leads to the same trick and hand.
PLAYOUT_LEVEL = "basic"
# The coach's search at a small, fixed amount of work (a seed replays it exactly): what
# scripts/make-lessons.py screens decisions with and the tests check every stored answer against.
SCREEN = {"budget": 0.05, "seed": 0, "stop": None, "floor": 8}


@dataclass(frozen=True)
class Position:
    """A prepared decision: the game's seed, the actions from its first deal up to the decision
    (engine text), the learner's seat, the expert's answer, the natural alternatives it was checked
    against, and every legal choice's value as the deeper search estimated it."""

    seed: int
    actions: tuple[str, ...]
    seat: int
    answer: str
    natural: tuple[str, ...]
    values: dict[str, float]

    def state(self, game: Game) -> State:
        """The game at the decision, rebuilt from the seed and the actions."""
        state = State(game, seed=self.seed)
        for text in self.actions:
            while state.phase == Phase.DEAL:
                state.deal_random()
            state.apply(game.parse_action(text))
        while state.phase == Phase.DEAL:
            state.deal_random()
        if state.current != self.seat:
            raise ValueError(f"the position is not at seat {self.seat}'s decision")
        return state

    def hint(self, game: Game, obs: Observation) -> Hint:
        """The stored search as the coach's hint: its choice and every legal choice's value."""
        values = {game.parse_action(a): v for a, v in self.values.items()}
        return Hint(self.seat, game.parse_action(self.answer), values)


@dataclass(frozen=True)
class Lesson:
    """One lesson: its id, rule set, the contract it teaches (None: doubling) and its positions."""

    id: str
    ruleset: str
    contract: str | None
    players: int
    positions: tuple[Position, ...]

    @property
    def game(self) -> Game:
        """The game its positions are played in: the rule set's whole game."""
        return Game(self.ruleset, self.players)

    @property
    def topic(self) -> str:
        """The contract it teaches, or ``doubling``."""
        return self.contract or "doubling"

    def scoring(self) -> Contract | None:
        """The engine's description of the contract taught (None for doubling)."""
        return None if self.contract is None else self.game.contracts[self.game.contract_index(self.contract)]

    def table_game(self) -> Game:
        """The game of the lesson's real hand: one hand of its contract (doubling: of No Queens)."""
        return Game(self.ruleset, self.players, contract_ids=(self.contract or "no-queens",), rounds=1)


def lesson_from(doc: dict[str, Any]) -> Lesson:
    """A lesson from its stored form (lessons.json)."""
    positions = tuple(Position(int(p["seed"]), tuple(p["actions"]), int(p["seat"]), str(p["answer"]),
                               tuple(p["natural"]), {str(k): float(v) for k, v in p["values"].items()})
                      for p in doc["positions"])
    return Lesson(str(doc["id"]), str(doc["ruleset"]), doc.get("contract"), int(doc["players"]), positions)


@functools.cache
def lessons() -> tuple[Lesson, ...]:
    """Every lesson, classic first, in the order of the rule sets' contract tables."""
    text = files("barbu.learn").joinpath("lessons.json").read_text(encoding="utf-8")
    return tuple(lesson_from(d) for d in json.loads(text)["lessons"])


def lesson(lesson_id: str) -> Lesson:
    """The lesson of this id; KeyError naming the known ones otherwise."""
    for x in lessons():
        if x.id == lesson_id:
            return x
    raise KeyError(f"no lesson {lesson_id!r} (one of {', '.join(x.id for x in lessons())})")


def plan() -> list[tuple[str, str, str | None, int]]:
    """The lessons there are to be: (id, rule set, contract, players), from the engine's tables."""
    out: list[tuple[str, str, str | None, int]] = []
    for ruleset in ("classic", "family"):
        game = Game(ruleset, 4)
        out += [(f"{ruleset}-{c.id}", ruleset, c.id, 4) for c in game.contracts]
        if ruleset == "classic":
            out.append(("classic-doubling", "classic", None, 4))
    return out


@dataclass(frozen=True)
class Outcome:
    """What a choice led to, the computers playing on: the trick it went into (seat, card) and who
    took it (None: no trick, as in Dominoes), then the learner's score of the whole hand."""

    choice: int
    trick: tuple[tuple[int, int], ...]
    winner: int | None
    score: int


def outcome(state: State, choice: int, seed: int = 0) -> Outcome:
    """Play ``choice`` at ``state`` (left unchanged), then let the computers play every seat to the
    end of the hand: the trick it went into and the learner's score of the hand."""
    seat, s = state.current, state.copy()
    hand_no, players = s.hand_no, s.game.players
    before = s.observe(seat)
    bots = {p: make_bot(PLAYOUT_LEVEL, seed * 16 + p) for p in range(players)}
    contract = before.contract
    tricks = before.phase == Phase.PLAY and contract is not None and contract.kind == Kind.TRICKS
    trick = list(before.trick) if tricks else []
    action, actor = choice, seat
    while True:
        s.apply(action)
        if tricks and len(trick) < players:
            trick.append((actor, action))
        if s.hand_no != hand_no or s.is_over:
            break
        actor = s.current
        action = bots[actor].act(s.observe(actor))
    winner = None
    if len(trick) == players:
        trump = before.trump if before.trump is not None else -1
        winner = trick[trick_winner([c for _, c in trick], trump)][0]
    return Outcome(choice, tuple(trick), winner, s.history[hand_no].scores[seat])


def answer(lesson_: Lesson, index: int, choice: int) -> tuple[Advice, Outcome, Outcome]:
    """The learner chose ``choice`` at position ``index``: the coach's advice (the expert's answer
    weighed against it), what the choice led to and what the expert's answer leads to."""
    position = lesson_.positions[index]
    game = lesson_.game
    state = position.state(game)
    obs = state.observe(position.seat)
    if choice not in obs.legal:
        raise ValueError(f"{game.action_str(choice) if 0 <= choice < 256 else choice} is not a legal "
                         "choice here")
    h = position.hint(game, obs)
    return advice_from(obs, h, choice), outcome(state, choice), outcome(state, h.choice)


def contract_action(game: Game, contract_id: str) -> int:
    """The action of choosing ``contract_id`` in ``game``."""
    return CONTRACT + game.contract_index(contract_id)
