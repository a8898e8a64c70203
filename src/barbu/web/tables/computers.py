"""A table's computer players: which seat acts without a person now, and that action decided and applied."""

from __future__ import annotations

from dataclasses import dataclass

from barbu.bots import Bot, make_bot
from barbu.engine.game import PASS
from barbu.engine.observation import Observation
from barbu.engine.state import Phase
from barbu.web.tables.parts import Change, Host


@dataclass(frozen=True)
class AutoMove:
    """A computer player's (or a forced pass's) turn: its seat's view, and who decides."""

    seat: int
    moves: int  # the table's move count when the view was taken
    obs: Observation
    bot: Bot | None  # None: a person whose only legal action is to pass

    def decide(self) -> int:
        """The action; the bot sees only ``obs``, so this may run in another thread."""
        return self.bot.act(self.obs) if self.bot is not None else PASS


class Computers:
    """The computer players of a table (and a person's forced pass): seated, asked, their moves made."""

    def __init__(self, table: Host) -> None:
        self.table = table

    def make_bots(self) -> None:
        t = self.table
        for s in t.seats:
            if s.is_bot and s.bot is None:
                s.bot = make_bot(s.row.level, seed=hash((t.state.seed, s.row.seat)) & 0xFFFFFFFF)

    def auto_seat(self) -> int | None:
        """The seat that acts without a person now: a computer, or a player whose only move is to pass."""
        t = self.table
        s = t.state
        if s.current < 0 or t.damaged is not None or t.waiting():
            return None
        if t.seats[s.current].is_bot:
            return s.current
        if s.phase == Phase.PLAY and s.legal_actions() == [PASS]:
            return s.current
        return None

    def auto_move(self) -> AutoMove | None:
        """The automatic action due now (see :meth:`auto_seat`), to be decided off the event loop."""
        t = self.table
        seat = self.auto_seat()
        if seat is None:
            return None
        bot = t.seats[seat].bot if t.seats[seat].is_bot else None
        return AutoMove(seat, t.moves, t.state.observe(seat), bot)

    def plan_auto(self, move: AutoMove, action: int) -> Change | None:
        """A decided automatic action, unless the table has moved on since it was asked for (None)."""
        t = self.table
        if t.moves != move.moves or self.auto_seat() != move.seat:
            return None
        row = t.seats[move.seat].row
        # A seat with a token is a person's: a computer playing it now stands in for them.
        by = row.level if move.bot is not None and row.token else ""
        return t.plan_apply(move.seat, action, by)

    def auto_apply(self, move: AutoMove, action: int) -> bool:
        """Store and apply a decided automatic action (see :meth:`plan_auto`); False if it was stale."""
        change = self.plan_auto(move, action)
        if change is None:
            return False
        self.table.run(change)
        return True

    def auto_step(self) -> bool:
        """Take one automatic action at once; False when nothing is automatic now."""
        move = self.auto_move()
        return move is not None and self.auto_apply(move, move.decide())
