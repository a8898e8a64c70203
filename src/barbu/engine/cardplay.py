"""The card play of a hand of Barbu: tricks, and the Dominoes and Réussite layouts.

:class:`PlayingState` is the layer of :class:`~barbu.engine.state.State` that opens the play
once the contract is named and doubled, applies each legal card (or pass), closes the tricks,
and ends the hand when the contract says it is over.
"""

from __future__ import annotations

from barbu.engine.cards import ACE, FULL_DECK, RANK_MASKS
from barbu.engine.contracts import Contract
from barbu.engine.core import DOMINOES_K, PLAY_P, REUSSITE_K, TRICKS_K
from barbu.engine.game import PASS
from barbu.engine.layout import fitting_cards, next_holder, place_card
from barbu.engine.scoring import ScoringState
from barbu.engine.tricks import trick_winner


class PlayingState(ScoringState):
    """The play of the cards, trick by trick or card by card onto a layout; see :class:`State`."""

    __slots__ = ()

    def _start_play(self) -> None:
        c = self.contract
        assert c is not None
        self.phase = PLAY_P
        self.current = self.declarer
        self.leader = self.declarer
        if c.kind == DOMINOES_K:
            self.frontier = RANK_MASKS[self.start_rank]
        elif c.kind == REUSSITE_K:
            self.frontier = FULL_DECK  # the chooser opens with any card
        elif c.ends_when_taken and not c.ends_when_taken & ~self.set_aside:
            self._finish_hand()  # nothing to score: every such card is set aside

    def _play(self, action: int) -> None:
        seat = self.current
        self.actions.append(action)
        self.actors.append(seat)
        c = self.contract
        assert c is not None
        if c.kind == TRICKS_K:
            self.hands[seat] &= ~(1 << action)
            self.played |= 1 << action
            self.trick.append(action)
            if len(self.trick) == self.game.players:
                self._finish_trick(c)
            else:
                self.current = (seat + 1) % self.game.players
            return
        if action == PASS:
            self.ace_extra = False
            self._next_placer()
            return
        self.hands[seat] &= ~(1 << action)
        self.played |= 1 << action
        self._place(action)
        if not self.hands[seat]:
            self.out_order.append(seat)
            self.ace_extra = False
            needed = len(c.out_scores) if c.kind == REUSSITE_K else self.game.players - 1
            if len(self.out_order) >= needed:
                self._finish_hand()
                return
        elif c.kind == REUSSITE_K and action % 13 == ACE:
            self.ace_extra = True  # the same player may place one more card or stop
            return
        else:
            self.ace_extra = False
        self._next_placer()

    def _next_placer(self) -> None:
        self.current = next_holder(self.hands, self.current)

    def _place(self, card: int) -> None:
        """Add a card to the Dominoes/Réussite layout and recompute what may follow."""
        self.start_rank = place_card(self.lo, self.hi, card, self.start_rank, self.set_aside)
        self.frontier = fitting_cards(self.lo, self.hi, self.start_rank)

    def _finish_trick(self, c: Contract) -> None:
        trick = self.trick
        winner = (self.leader + trick_winner(trick, self.trump)) % self.game.players
        taken = 0
        pts = c.per_trick
        table = c.card_points
        for x in trick:
            taken |= 1 << x
            pts += table[x]
        from_end = self.game.hand_size - 1 - self.trick_no
        if from_end < len(c.last_tricks):
            pts += c.last_tricks[-1 - from_end]
        self.points[winner] += pts
        self.captured[winner] |= taken
        self.tricks_won[winner] += 1
        self.trick_no += 1
        self.trick = []
        self.leader = winner
        self.current = winner
        if self.trick_no == self.game.hand_size or (
                c.ends_when_taken and not c.ends_when_taken & ~self.set_aside & ~self.played):
            self._finish_hand()
