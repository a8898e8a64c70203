"""How a hand of Barbu is scored and closed: its record, the doubles settled, the totals, the next hand.

:class:`ScoringState` is the layer of :class:`~barbu.engine.state.State` over
:class:`~barbu.engine.core.StateCore` that turns the hand in progress into a
:class:`~barbu.engine.hand.HandRecord` and, once the hand is over, adds it to the game.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

from barbu.engine import doubling
from barbu.engine.core import DOMINOES_K, OVER_P, PLAY_P, TERMINAL, TRICKS_K, StateCore
from barbu.engine.errors import IllegalActionError
from barbu.engine.hand import HandRecord


class ScoringState(StateCore):
    """The scores of the hand in progress, and the end of a hand; see :class:`State`."""

    __slots__ = ()

    def contract_scores(self) -> list[int]:
        """Points of the contract alone, for the hand as played so far."""
        c = self.contract
        if c is None or c.kind == TRICKS_K:
            return list(self.points)
        scores = [0] * self.game.players
        for place, seat in enumerate(self.out_order):
            scores[seat] = c.out_scores[place]
        if c.kind == DOMINOES_K and len(self.out_order) == self.game.players - 1:
            last = next(s for s in range(self.game.players) if s not in self.out_order)
            scores[last] = c.out_scores[-1]
        return scores

    def doubles_list(self) -> list[tuple[int, int]]:
        """The doubles of this hand as directed pairs (RECORD.md): doubles, then redoubles."""
        return doubling.directed_pairs(self.doubled, self.redoubled)

    def current_record(self, finished: bool = False) -> HandRecord:
        """The hand in progress as a record (scores so far)."""
        c = self.contract
        # Every playout ends here: the common cases (a trick game, no double) skip the calls.
        cs = tuple(self.points) if c is not None and c.kind == TRICKS_K else tuple(self.contract_scores())
        doubled = any(self.doubled)
        return HandRecord(
            self.hand_no, self.declarer, tuple(self.dealt), self.set_aside,
            c.id if c else "",
            self.trump if self.trump >= 0 else None,
            self.start_rank if c and c.kind == DOMINOES_K and self.start_rank >= 0 else None,
            tuple(self.doubles_list()) if doubled else (), tuple(self.actions),
            cs, tuple(doubling.settle(cs, self.doubled, self.redoubled)) if doubled else cs, finished)

    def finish_from(self, contract_scores: Sequence[int]) -> None:
        """Score the hand from its result counted at the table, instead of from its cards.

        For a score sheet kept beside a real deck: the hand must be at its first card
        (contract, trump or rank, and doubles done), and ``contract_scores`` are each seat's
        points from the contract alone, already checked (:mod:`barbu.engine.tally`). The doubles
        are settled and the game moves on exactly as after the last card.
        """
        if self.phase != PLAY_P or self.actions:
            raise IllegalActionError("a hand is scored from its count only before its first card",
                                     rule="finish-from")
        if len(contract_scores) != self.game.players:
            raise ValueError(f"one score per seat: {self.game.players}, not {len(contract_scores)}")
        cs = tuple(contract_scores)
        played = self.current_record(finished=True)
        self._close_hand(HandRecord(
            played.hand_no, played.declarer, played.deal, played.set_aside, played.contract,
            played.trump, played.start_rank, played.doubles, played.actions, cs,
            tuple(doubling.settle(cs, self.doubled, self.redoubled)), True))

    def _finish_hand(self) -> None:
        self._close_hand(self.current_record(finished=True))

    def _close_hand(self, record: HandRecord) -> None:
        """Add a finished hand to the history and the totals, and start the next one."""
        self.history.append(record)
        self.totals = list(map(operator.add, self.totals, record.scores))
        self.used[self.declarer] |= 1 << self.contract_idx
        self.hand_no += 1
        if self.game.is_classic and self.hand_no % self.game.hands_per_declarer == 0:
            self.dbl_count = [0] * self.game.players
        if self.hand_no == self.game.num_hands:
            self.phase = OVER_P
            self.current = TERMINAL
            return
        self._start_hand()
