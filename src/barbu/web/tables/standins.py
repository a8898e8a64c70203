"""Stand-ins: an idle person's seat handed to a computer by another player, and taken back by its person."""

from __future__ import annotations

import dataclasses
import logging

from barbu.bots import levels
from barbu.web.core.errors import TableError
from barbu.web.tables.parts import Change, Client, Host
from barbu.web.tables.setup import default_level

log = logging.getLogger("barbu.web")


class Handovers:
    """A computer standing in for a person at a table: handed the seat, and giving it back."""

    def __init__(self, table: Host) -> None:
        self.table = table

    def plan_takeover(self, client: Client, target: object, level: object = None) -> Change:
        """Hand an idle person's seat to a computer player (asked by another player at the table)."""
        t = self.table
        if client.seat is None:
            raise TableError("not-seated", "only the players at the table may hand a seat to the computer",
                             args={"variant": "handover"})
        if not isinstance(target, int) or isinstance(target, bool) or not 0 <= target < len(t.seats):
            raise TableError("bad-seat", "no such seat")
        if target == client.seat:
            raise TableError("bad-seat", "you cannot hand your own seat to the computer",
                             args={"variant": "own"})
        lvl = default_level() if level is None else level
        if not isinstance(lvl, str) or lvl not in levels():
            raise TableError("bad-level", f"unknown computer level {str(lvl)[:40]!r}")
        t.writable()
        seat = t.seats[target]
        if seat.is_bot:
            raise TableError("not-idle", "a computer already plays that seat", args={"variant": "bot"})
        if seat.free and seat.row.access == "friend":
            raise TableError("not-taken", f"seat {target + 1} is kept for an invited friend who has not "
                             "taken it yet: nobody can hand it to a computer (the table's creator may start "
                             "the game with computers in the seats nobody took)", 409,
                             args={"seat": target + 1})
        pace = t.own_pace()
        if pace is not None and not pace["live"] and seat.row.claimed:  # a free seat has no deadline
            raise TableError("not-idle", "at a table at your own pace a person has until their deadline: "
                             "then what they chose happens", 409, args={"variant": "own-pace"})
        waited = t.clock() - t.turn_since
        if seat.row.claimed and (t.state.current != target or waited < t.idle_seconds):
            raise TableError("not-idle", f"{seat.row.name} is not idle: a seat can be handed over "
                             f"after {t.idle_seconds:g} s waiting on its turn",
                             args={"name": seat.row.name, "seconds": f"{t.idle_seconds:g}"})
        by = client.seat

        def handed() -> None:
            t.make_bots()
            log.info("table %s: seat %d handed to computer %s by seat %d", t.id, target, lvl, by)
            t.broadcast()
        return t.seat_change(dataclasses.replace(seat.row, kind="bot", level=lvl), handed)

    def plan_reclaim(self, client: Client) -> Change:
        """A player takes back from the computer the seat that was handed over."""
        t = self.table
        if client.seat is None:
            raise TableError("not-seated", "you are watching this table", args={"variant": "act"})
        t.writable()
        seat = t.seats[client.seat]
        if not seat.is_bot:
            raise TableError("not-bot", "you already play your seat")

        def taken_back() -> None:
            seat.bot = None
            t.turn_since = t.clock()
            log.info("table %s: seat %d taken back by its player", t.id, seat.row.seat)
            t.broadcast()
        return t.seat_change(dataclasses.replace(seat.row, kind="human"), taken_back)
