"""A table's time: the pause between hands that waits for the people, and the turn clock of each decision."""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from barbu.web.core.errors import TableError
from barbu.web.core.rows import Batch
from barbu.web.tables.parts import Change, Client, Host

log = logging.getLogger("barbu.web")


class Timing:
    """How long a table waits: for the people between hands, and for the person to act (the turn clock)."""

    def __init__(self, table: Host) -> None:
        self.table = table

    # -- the pause between hands ----------------------------------------------------

    def pause(self) -> dict[str, Any]:
        """The pause between hands as the pages see it: who is waited for, who is ready, how long."""
        waiting = self.waiting()
        if not waiting:  # no pause (also after a restart: the pause is not stored)
            return {"waiting": [], "ready": [], "pause_left": 0.0}
        return {"waiting": waiting, "ready": sorted(self.table.ready),
                "pause_left": round(self.pause_left(), 1)}

    def pause_left(self) -> float:
        """Seconds the computers may still wait for the people after the last hand (0: none)."""
        t = self.table
        if t.hand_ended_at is None or t.state.is_over:
            return 0.0
        return max(0.0, t.idle_seconds - (t.clock() - t.hand_ended_at))

    def waiting(self) -> list[int]:
        """The people the computers wait for before the next hand: seated, connected with a page
        that asked for the pause (hello ``pace``), not ready yet, and for at most ``idle_seconds``."""
        t = self.table
        if self.pause_left() <= 0:
            return []
        seats = {c.seat for c in t.pacers if c.seat is not None and not t.seats[c.seat].is_bot}
        return sorted(seats - t.ready)

    def plan_ready(self, client: Client, hand: object) -> Change:
        """A person says they are ready for hand ``hand`` (counted from 0): the computers may go on."""
        t = self.table
        if client.seat is None:
            raise TableError("not-seated", "you are watching this table: only players say they are ready",
                             args={"variant": "ready"})
        if not isinstance(hand, int) or isinstance(hand, bool):
            raise TableError("bad-hand", "\"hand\" is the number of the hand you are ready for, from 0")
        if hand != t.state.hand_no:
            raise TableError("not-this-hand",
                             f"the table is at hand {t.state.hand_no + 1}, not {hand + 1}",
                             args={"hand": t.state.hand_no + 1})
        seat = client.seat

        def ready() -> None:
            if seat not in t.ready:
                t.ready.add(seat)
                if t.pause_held and not self.waiting():  # the turn clock starts as the pause ends
                    t.turn_since, t.pause_held = t.clock(), False
                t.broadcast()
        return Change(Batch(t.id), ready)

    # -- the turn clock -------------------------------------------------------------

    def clock_left(self) -> float | None:
        """Seconds left on the turn clock of the person to act (None: no clock is running now)."""
        t = self.table
        s = t.state
        if t.turn_clock is None or s.current < 0 or t.damaged is not None or self.waiting():
            return None
        if t.auto_seat() is not None or not t.seats[s.current].row.claimed:
            return None
        start = t.turn_since
        if t.pause_held and t.hand_ended_at is not None and t.hand_ended_at >= start:
            start = t.hand_ended_at + t.idle_seconds  # the pause ran out by itself
        return t.turn_clock.seconds - (t.clock() - start)

    def plan_time_out(self, moves: int) -> Change | None:
        """When the person to act has used up the turn clock, a computer takes the seat (None: not
        now, or the table moved on since ``moves``)."""
        t = self.table
        left = self.clock_left()
        if t.turn_clock is None or moves != t.moves or left is None or left > 0.05:
            return None
        seat, level = t.seats[t.state.current], t.turn_clock.level

        def timed_out() -> None:
            t.make_bots()
            log.info("table %s: seat %d ran out of time; computer %s plays it", t.id, seat.row.seat, level)
            t.broadcast()
        return t.seat_change(dataclasses.replace(seat.row, kind="bot", level=level), timed_out)
