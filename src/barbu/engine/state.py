"""The rules of Barbu as one state machine, from the first deal to the final score.

A :class:`State` walks through the phases of every hand — deal (a chance
step), contract, trump or starting rank, doubles, redoubles, play, score —
and at each point says whose turn it is and which actions are legal. An
illegal action raises :class:`~barbu.errors.IllegalActionError` naming the
rule, and leaves the state as it was.

>>> from barbu.engine.game import Game
>>> s = State(Game.classic(), seed=7)
>>> s.phase.name, s.current
('DEAL', -1)
>>> s.deal_random()
True
>>> s.phase.name, s.current == s.declarer
('CHOOSE', True)
>>> len(s.legal_actions())
7
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from barbu.engine.bidding import BiddingState
from barbu.engine.cards import KH_MASK, cards_of
from barbu.engine.core import (
    CHANCE,
    CHOOSE_P,
    DEAL_P,
    DOUBLE_P,
    PLAY_P,
    RANK_P,
    REDOUBLE_P,
    SLOTS,
    TERMINAL,
    TRICKS_K,
    TRUMP_P,
)
from barbu.engine.dealing import check_deal
from barbu.engine.doubling import REQUIRED_DOUBLES, settle, split_doubles, submasks
from barbu.engine.errors import IllegalActionError, IllegalDealError
from barbu.engine.game import CONTRACT, DOUBLE, PASS, RANK, REDOUBLE, TRUMP
from barbu.engine.hand import PHASE_TASK, HandRecord, Phase
from barbu.engine.layout import fitting_cards, place_card
from barbu.engine.observation import Observation, observe
from barbu.engine.reasons import why_illegal
from barbu.engine.tricks import beats, lead_mask, legal_cards, trick_winner

# With the rules the state applies, split out of this module, still importable from here.
__all__ = [
    "CHANCE", "PHASE_TASK", "PLAY_P", "REQUIRED_DOUBLES", "TERMINAL", "HandRecord", "Phase", "State",
    "beats", "fitting_cards", "lead_mask", "legal_cards", "place_card", "settle", "split_doubles",
    "trick_winner",
]

_SLOTS = SLOTS  # the state's fields, the undo stack last (the OpenSpiel box reads them)
_SAVED = SLOTS[:-1]  # what push() saves and pop() restores: every field but the undo stack


class State(BiddingState):
    """A game of Barbu in progress; mutable, with cheap :meth:`copy` and :meth:`push`/:meth:`pop`.

    One object to its users, built in layers that each apply one part of the rules: its
    fields and the rules' questions (:class:`~barbu.engine.core.StateCore`), the scoring
    (:class:`~barbu.engine.scoring.ScoringState`), the card play
    (:class:`~barbu.engine.cardplay.PlayingState`) and the bidding
    (:class:`~barbu.engine.bidding.BiddingState`); this last layer deals, lists the legal
    actions and applies them.
    """

    __slots__ = ()

    def copy(self) -> State:
        """An independent copy (the undo stack is not copied).

        Written out field by field rather than looped over the slots: a copy is made for
        every candidate of every searched deal, and the same source must also compile with
        mypyc, whose classes are only made through ``__init__``.
        """
        new = State(self.game, self.seed, self.first_declarer)
        new.hand_no = self.hand_no
        new.phase = self.phase
        new.declarer = self.declarer
        new.current = self.current
        new.used = self.used[:]
        new.dbl_count = self.dbl_count[:]
        new.hands = self.hands[:]
        new.dealt = self.dealt[:]
        new.set_aside = self.set_aside
        new.contract_idx = self.contract_idx
        new.contract = self.contract
        new.trump = self.trump
        new.start_rank = self.start_rank
        new.doubled = self.doubled[:]
        new.redoubled = self.redoubled[:]
        new.turn_queue = self.turn_queue[:]
        new.leader = self.leader
        new.trick = self.trick[:]
        new.played = self.played
        new.captured = self.captured[:]
        new.tricks_won = self.tricks_won[:]
        new.trick_no = self.trick_no
        new.points = self.points[:]
        new.lo = self.lo[:]
        new.hi = self.hi[:]
        new.frontier = self.frontier
        new.out_order = self.out_order[:]
        new.ace_extra = self.ace_extra
        new.actions = self.actions[:]
        new.actors = self.actors[:]
        new.history = self.history[:]
        new.totals = self.totals[:]
        new.redeals = self.redeals
        new.forced = self.forced
        return new

    def push(self, action: int) -> None:
        """Apply ``action`` so that :meth:`pop` can take it back."""
        # A list comprehension: mypyc compiles a generator inside tuple() as one anyway.
        snapshot = tuple([list(v) if isinstance(v, list) else v
                          for v in [getattr(self, name) for name in _SAVED]])
        self.apply(action)
        self._undo.append(snapshot)

    def pop(self) -> None:
        """Take back the last action applied with :meth:`push`."""
        snapshot = self._undo.pop()
        for name, value in zip(_SAVED, snapshot, strict=True):
            setattr(self, name, value)

    # -- what the rules allow now -------------------------------------------

    def legal_actions(self) -> list[int]:
        """The actions the player to act may take now (empty at a chance step or the end)."""
        phase = self.phase
        if phase == PLAY_P:
            out = cards_of(self.legal_mask())
            if self.contract is not None and self.contract.kind != TRICKS_K and (
                    not out or self.ace_extra):
                out.append(PASS)
            return out
        if phase == CHOOSE_P:
            return [CONTRACT + i for i in range(len(self.game.contracts))
                    if self._contract_allowed(i)]
        if phase == TRUMP_P:
            return [TRUMP + s for s in range(4)]
        if phase == RANK_P:
            return [RANK + r for r in range(13)]
        if phase == DOUBLE_P:
            targets = self.double_targets(self.current)
            must = self._compulsory_target()
            return [DOUBLE + m for m in submasks(targets) if m & must == must]
        if phase == REDOUBLE_P:
            return [REDOUBLE + m for m in submasks(self.redouble_targets(self.current))]
        return []

    def is_legal(self, action: int) -> bool:
        phase = self.phase
        if phase == PLAY_P and 0 <= action < 52:
            return bool(self.legal_mask() >> action & 1)
        if phase == DOUBLE_P and DOUBLE <= action < REDOUBLE:
            mask = action - DOUBLE
            must = self._compulsory_target()
            return not mask & ~self.double_targets(self.current) and mask & must == must
        if phase == CHOOSE_P and CONTRACT <= action < CONTRACT + len(self.game.contracts):
            return self._contract_allowed(action - CONTRACT)
        return action in self.legal_actions()

    def observe(self, seat: int) -> Observation:
        """What ``seat`` may see now (see :mod:`barbu.engine.observation`)."""
        return observe(self, seat)

    # -- chance: the deal ----------------------------------------------------

    def deal(self, hands: Sequence[int], set_aside: int = 0) -> bool:
        """Give each seat its cards. Returns False when the rules call for a redeal.

        Family: when the chooser's only challenge left is King of Hearts and K♥
        is set aside, the round is redealt; the state then stays at the deal.
        """
        if self.phase != DEAL_P:
            raise IllegalDealError(f"the cards are dealt only before a hand, not now ({self.phase.name})")
        check_deal(self.game, hands, set_aside)
        return self._accept_deal(list(hands), set_aside)

    def _accept_deal(self, hands: list[int], set_aside: int) -> bool:
        """Take a deal known to partition the deck (checked by :meth:`deal`, or shuffled here).

        ``hands`` becomes the state's own list.
        """
        g = self.game
        if (not g.is_classic and set_aside & KH_MASK and g.has_contract("king")
                and self.available_contracts(self.declarer) == [g.contract_index("king")]):
            self.redeals += 1
            return False
        self.hands = hands
        self.dealt = hands[:]
        self.set_aside = set_aside
        self.phase = CHOOSE_P
        self.current = self.declarer
        return True

    def deal_random(self, rng: random.Random | None = None) -> bool:
        """Deal from ``rng``, or reproducibly from the game seed, the hand number and the redeal count."""
        if self.phase != DEAL_P:
            raise IllegalDealError(f"the cards are dealt only before a hand, not now ({self.phase.name})")
        if rng is None:
            rng = random.Random(f"{self.seed}:{self.hand_no}:{self.redeals}")
        # Sorting by independent uniform keys is a uniform shuffle, and faster than shuffle();
        # sorting the cards' bits lets each hand be a plain sum.
        rnd = rng.random
        deck = sorted(self.game.deck_bits, key=lambda _: rnd())
        n, size = self.game.players, self.game.hand_size
        hands = [sum(deck[i * size:(i + 1) * size]) for i in range(n)]
        set_aside = sum(deck[n * size:])
        return self._accept_deal(hands, set_aside)

    # -- applying actions ----------------------------------------------------

    def apply(self, action: int) -> None:
        """Apply one legal action of the player to act; raise IllegalActionError otherwise."""
        if not self.is_legal(action):
            raise self.illegal(action)
        self._do(action)

    def _do(self, action: int) -> None:
        """Apply an action already known to be legal."""
        phase = self.phase
        if phase == PLAY_P:
            self._play(action)
        elif phase == CHOOSE_P:
            self._choose(action - CONTRACT)
        elif phase == TRUMP_P:
            self.trump = action - TRUMP
            self._after_naming()
        elif phase == RANK_P:
            self.start_rank = action - RANK
            self._after_naming()
        elif phase == DOUBLE_P:
            self._double(action - DOUBLE)
        elif phase == REDOUBLE_P:
            self.redoubled[self.current] = action - REDOUBLE
            self._next_redoubler()

    def illegal(self, action: int) -> IllegalActionError:
        """The error for an action that is not legal now, naming the rule it breaks.

        Its message speaks to the player who tried it; ``about`` says the same of that player
        to a third person, such as the reader of a record (:mod:`barbu.engine.reasons`).
        """
        seat = self.current if self.current >= 0 else None
        rule, message, about = why_illegal(self, action)
        return IllegalActionError(message, seat=seat, rule=rule, about=about)
