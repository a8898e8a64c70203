"""What one seat may see of a game: the only view a front end or a bot is given.

>>> from barbu.engine.game import Game
>>> from barbu import State
>>> s = State(Game.classic(), seed=3)
>>> _ = s.deal_random()
>>> obs = observe(s, 0)
>>> obs.hand == s.hands[0], len(obs.hand_sizes)
(True, 4)
>>> obs.to_json()["hand"][:1] != []
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

from barbu.engine.cards import RANKS, SUITS, card_str, sorted_cards
from barbu.engine.contracts import Contract, Kind
from barbu.engine.game import Game
from barbu.engine.hand import HandRecord, Phase


class Observed(Protocol):
    """What :func:`observe` reads of a game; a :class:`~barbu.engine.state.State` is one.

    A protocol rather than the State class itself, so that the state machine may depend on
    this module (for ``State.observe``) without the two importing each other.
    """

    game: Game
    phase: Phase
    hand_no: int
    declarer: int
    current: int
    hands: list[int]
    set_aside: int
    contract: Contract | None
    trump: int
    start_rank: int
    used: list[int]
    forced: int
    leader: int
    trick: list[int]
    trick_no: int
    tricks_won: list[int]
    captured: list[int]
    points: list[int]
    lo: list[int]
    hi: list[int]
    out_order: list[int]
    ace_extra: bool
    actions: list[int]
    actors: list[int]
    history: list[HandRecord]
    totals: list[int]

    def doubles_list(self) -> list[tuple[int, int]]: ...
    def owed_doubles(self, seat: int) -> int: ...
    def legal_actions(self) -> Sequence[int]: ...


@dataclass(frozen=True)
class HandSummary:
    """A finished hand as the score sheet shows it (no cards)."""

    hand_no: int
    declarer: int
    contract: str
    trump: int | None
    start_rank: int | None
    doubles: tuple[tuple[int, int], ...]
    contract_scores: tuple[int, ...]
    scores: tuple[int, ...]
    finished: bool = True  # always, in an observation; the score sheet also takes unfinished hands

    def to_json(self) -> dict[str, object]:
        return {"hand_no": self.hand_no, "declarer": self.declarer, "contract": self.contract,
                "trump": SUITS[self.trump] if self.trump is not None else None,
                "start_rank": RANKS[self.start_rank] if self.start_rank is not None else None,
                "doubles": [list(p) for p in self.doubles],
                "contract_scores": list(self.contract_scores), "scores": list(self.scores)}


@dataclass(frozen=True)
class Observation:
    """A seat's view of the game; it never holds another player's hidden cards."""

    game: Game
    seat: int
    phase: Phase
    hand_no: int
    declarer: int
    current: int  # seat to act; -1 at a deal, -2 when the game is over
    hand: int  # this seat's cards, as a mask
    hand_sizes: tuple[int, ...]
    set_aside: int  # family: face up for everyone
    contract: Contract | None
    trump: int | None
    start_rank: int | None
    available: tuple[int, ...]  # per seat, mask of contract indices not yet chosen
    doubles: tuple[tuple[int, int], ...]  # directed pairs made so far in this hand
    compulsory: tuple[int, ...]  # seats for whom doubling the declarer is compulsory now
    owed: tuple[int, ...]  # doubles each seat still owes this declarer (classic)
    leader: int
    trick: tuple[tuple[int, int], ...]  # (seat, card) in the trick in progress
    last_trick: tuple[tuple[int, int], ...]
    trick_no: int
    tricks_won: tuple[int, ...]
    captured: tuple[int, ...]  # all cards each seat has taken in tricks
    points: tuple[int, ...]  # contract points so far in this hand
    lines: tuple[tuple[int, int], ...]  # Dominoes/Réussite: (low, high) rank per suit, -1 if shut
    out_order: tuple[int, ...]
    ace_extra: bool
    history: tuple[tuple[int, int], ...]  # (seat, action) of every play action in this hand
    results: tuple[HandSummary, ...]
    totals: tuple[int, ...]
    legal: tuple[int, ...]  # legal actions if it is this seat's turn, else empty

    @property
    def my_turn(self) -> bool:
        return self.current == self.seat

    @cached_property
    def played(self) -> int:
        """Every card played so far in this hand."""
        m = 0
        for _, a in self.history:
            if a < 52:
                m |= 1 << a
        return m

    @cached_property
    def unseen(self) -> int:
        """The cards this seat has not seen: the others' hands, together."""
        return self.game.deck & ~self.hand & ~self.played & ~self.set_aside

    def scoring_captured(self, seat: int) -> int:
        """The cards ``seat`` has taken that score in this contract (queens, hearts, K♥ …)."""
        c = self.contract
        if c is None:
            return 0
        return self.captured[seat] & c.scoring_cards

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict with cards in RECORD.md notation."""
        g = self.game
        return {
            "seat": self.seat, "phase": self.phase.name.lower(), "hand_no": self.hand_no,
            "declarer": self.declarer, "current": self.current,
            "hand": [card_str(c) for c in sorted_cards(self.hand)],
            "hand_sizes": list(self.hand_sizes),
            "set_aside": [card_str(c) for c in sorted_cards(self.set_aside)],
            "contract": self.contract.id if self.contract else None,
            "trump": SUITS[self.trump] if self.trump is not None else None,
            "start_rank": RANKS[self.start_rank] if self.start_rank is not None else None,
            "available": [[g.contracts[i].id for i in range(len(g.contracts)) if m >> i & 1]
                          for m in self.available],
            "doubles": [list(p) for p in self.doubles],
            "compulsory": list(self.compulsory), "owed": list(self.owed),
            "leader": self.leader,
            "trick": [[s, card_str(c)] for s, c in self.trick],
            "last_trick": [[s, card_str(c)] for s, c in self.last_trick],
            "trick_no": self.trick_no, "tricks_won": list(self.tricks_won),
            "captured": [[card_str(c) for c in sorted_cards(self.scoring_captured(s))]
                         for s in range(g.players)],
            "points": list(self.points),
            "lines": [list(x) for x in self.lines], "out_order": list(self.out_order),
            "ace_extra": self.ace_extra,
            "history": [[s, g.action_str(a)] for s, a in self.history],
            "results": [r.to_json() for r in self.results],
            "totals": list(self.totals),
            "legal": [g.action_str(a) for a in self.legal],
        }


def _last_trick(state: Observed) -> tuple[tuple[int, int], ...]:
    c = state.contract
    if c is None or c.kind != Kind.TRICKS or state.trick_no == 0:
        return ()
    n = state.game.players
    done = len(state.actions) - len(state.trick)
    cards = state.actions[done - n:done]
    return tuple(zip(state.actors[done - n:done], cards, strict=True))


# A finished hand's summary never changes, so each is made once: observe() used to spend half its
# time rebuilding the whole score sheet. Keyed by the record's identity, checked on each hit (an id
# is reused only once its record is gone), and emptied when it grows past a few games of hands.
_SUMMARIES: dict[int, tuple[HandRecord, HandSummary]] = {}
_SUMMARIES_KEPT = 4096


def _summary(r: HandRecord) -> HandSummary:
    hit = _SUMMARIES.get(id(r))
    if hit is not None and hit[0] is r:
        return hit[1]
    if len(_SUMMARIES) >= _SUMMARIES_KEPT:
        _SUMMARIES.clear()
    made = HandSummary(r.hand_no, r.declarer, r.contract, r.trump, r.start_rank, r.doubles,
                       r.contract_scores, r.scores)
    _SUMMARIES[id(r)] = (r, made)
    return made


def observe(state: Observed, seat: int) -> Observation:
    """The view of ``seat``: its own hand and everything played face up, nothing else."""
    n = state.game.players
    in_hand = state.phase not in (Phase.DEAL, Phase.GAME_OVER)
    c = state.contract
    pairs = tuple(state.doubles_list())
    return Observation(
        game=state.game, seat=seat, phase=state.phase, hand_no=state.hand_no,
        declarer=state.declarer, current=state.current,
        hand=state.hands[seat] if in_hand else 0,
        hand_sizes=tuple(h.bit_count() for h in state.hands) if in_hand else (0,) * n,
        set_aside=state.set_aside if in_hand else 0,
        contract=c, trump=state.trump if state.trump >= 0 else None,
        start_rank=state.start_rank if state.start_rank >= 0 else None,
        available=tuple(((1 << len(state.game.contracts)) - 1) & ~u for u in state.used),
        doubles=pairs,
        compulsory=tuple(s for s in range(n) if state.forced >> s & 1),
        owed=tuple(state.owed_doubles(s) for s in range(n)),
        leader=state.leader,
        trick=tuple(((state.leader + i) % n, x) for i, x in enumerate(state.trick)),
        last_trick=_last_trick(state), trick_no=state.trick_no,
        tricks_won=tuple(state.tricks_won), captured=tuple(state.captured),
        points=tuple(state.points),
        lines=tuple(zip(state.lo, state.hi, strict=True)),
        out_order=tuple(state.out_order), ace_extra=state.ace_extra,
        history=tuple(zip(state.actors, state.actions, strict=True)),
        results=tuple(map(_summary, state.history)),
        totals=tuple(state.totals),
        legal=tuple(state.legal_actions()) if state.current == seat else (),
    )
