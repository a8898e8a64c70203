"""The bidding of a hand of Barbu: the contract chosen, its trump or starting rank named, the doubling round.

:class:`BiddingState` is the layer of :class:`~barbu.engine.state.State` that applies the
actions before the first card and, once they are done, opens the play.
"""

from __future__ import annotations

from barbu.engine import doubling
from barbu.engine.cardplay import PlayingState
from barbu.engine.core import DOMINOES_K, DOUBLE_P, RANK_P, REDOUBLE_P, TRUMP_P


class BiddingState(PlayingState):
    """The contract, its trump or starting rank, and the doubles; see :class:`State`."""

    __slots__ = ()

    def _choose(self, index: int) -> None:
        c = self.game.contracts[index]
        self.contract_idx = index
        self.contract = c
        if c.trumps:
            self.phase = TRUMP_P
        elif c.kind == DOMINOES_K:
            self.phase = RANK_P
        else:
            self._after_naming()

    def _after_naming(self) -> None:
        if self.game.is_classic:
            n = self.game.players
            self.phase = DOUBLE_P
            # Nothing can be compulsory while the declarer has more hands left than anyone owes.
            early = self.hands_left_for_declarer() > doubling.REQUIRED_DOUBLES
            self.forced = 0 if early else sum(
                1 << s for s in range(n) if self.double_is_compulsory(s))
            self.turn_queue = doubling.doubling_turns(self.declarer, n)
            self.current = self.turn_queue.pop()
        else:
            self._start_play()

    def _double(self, mask: int) -> None:
        seat = self.current
        self.doubled[seat] = mask
        if mask >> self.declarer & 1:
            self.dbl_count[seat] += 1
        if self.turn_queue:
            self.current = self.turn_queue.pop()
            return
        if not any(self.doubled):
            self._start_play()
            return
        self.turn_queue = doubling.redoubling_turns(self.declarer, self.doubled)
        self.phase = REDOUBLE_P
        self._next_redoubler()

    def _next_redoubler(self) -> None:
        if self.turn_queue:
            self.current = self.turn_queue.pop()
        else:
            self._start_play()
