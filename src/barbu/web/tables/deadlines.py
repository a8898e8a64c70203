"""Tables at your own pace: a deadline per move, what a passed deadline does, and the switch to live and back.

A table at your own pace gives each person ``hours`` for each move. The deadline is an absolute wall
time counted from the stored time of the event that began the turn (``Batch.at``), so it is the same
instant in memory, after a restart and in the process that takes the table over. When it passes,
the person's own choices (:class:`~barbu.web.core.rows.PaceRow`, kept in their profile) decide, in
this order: the time bank gives up to one more deadline (once a turn); then, if they chose to be waited for, a
*skip* gives one more deadline (at most :data:`MAX_SKIPS` in a game); then a computer of their level
plays that one move and the seat stays theirs. Away (on holiday), a person's deadlines wait until
they are back, but never longer than :data:`AWAY_MAX` after the turn began.
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass
from typing import Any

from barbu.bots import levels, make_bot
from barbu.web.core.errors import TableError
from barbu.web.core.rows import Batch, Event, PaceRow
from barbu.web.people.pace import bank_now
from barbu.web.tables.computers import AutoMove
from barbu.web.tables.parts import Change, Client, Host, Seat
from barbu.web.tables.setup import default_level

log = logging.getLogger("barbu.web")

MAX_SKIPS = 3  # deadlines a seat may let pass in one game before a computer plays its move
AWAY_MAX = 14 * 86400.0  # seconds an away person's move may wait after its turn began, at most
TURN_KINDS = ("act", "deal", "start")  # stored events that begin a new turn


@dataclass(frozen=True)
class Turn:
    """The turn of a person at a table at your own pace, as stored: its seat, when it began, its deadline
    (moved on by a time bank or a skip), the skips the seat used in this game, and whether the time
    bank was drawn in this turn already (once a turn: its refill would otherwise dribble out)."""

    seat: int
    began: float
    due: float
    skips: int
    banked: bool = False


@dataclass(frozen=True)
class Outcome:
    """What a passed deadline does: ``bank`` or ``skip`` (a new deadline ``due``; ``used``: seconds of
    the bank drawn, ``left`` what stays in it) or ``computer`` (one of ``level`` plays this move)."""

    kind: str
    due: float = 0.0
    used: float = 0.0
    left: float = 0.0
    level: str = ""


def effective_due(turn: Turn, pace: PaceRow) -> float:
    """A turn's deadline: its own, or later while its person is away (at most AWAY_MAX after it began)."""
    return max(turn.due, min(pace.away_until, turn.began + AWAY_MAX))


def on_deadline(turn: Turn, pace: PaceRow, hours: int, now: float) -> Outcome | None:
    """What happens at ``now`` to a turn whose deadline may have passed (None: it has not)."""
    due = effective_due(turn, pace)
    if now < due:
        return None
    start, period = max(now, due), hours * 3600.0
    bank = bank_now(pace, now)
    if bank >= 60.0 and not turn.banked:  # less than a minute left in the bank is no help
        used = min(bank, period)
        return Outcome("bank", start + used, used, bank - used)
    if pace.on_timeout == "wait" and turn.skips < MAX_SKIPS:
        return Outcome("skip", start + period)
    return Outcome("computer", level=pace.level if pace.level in levels() else default_level())


class Deadlines:
    """A table's mode (live, or at your own pace with a deadline per move) and the current turn's deadline."""

    def __init__(self, table: Host) -> None:
        self.table = table
        self.hours = 0  # hours per move at your own pace (0: a live table)
        self.live = False  # a table at your own pace played live for now, as everyone there agreed
        self.began = 0.0  # wall time the current turn began, as stored
        self.due: float | None = None  # this turn's deadline as a bank or a skip moved it (stored)
        self.banked = False  # the time bank was drawn in this turn
        self.skips: dict[int, int] = {}  # deadlines each seat let pass in this game
        self.votes: set[int] = set()  # seats asking to play live now (not stored: a wish of the moment)

    @property
    def running(self) -> bool:
        return self.hours > 0 and not self.live

    # -- the stored facts -----------------------------------------------------------

    def note(self, kind: str, data: dict[str, Any], at: float) -> None:
        """Take in one stored event (as it is stored, or read back): the same facts either way."""
        if kind in TURN_KINDS:
            self.began, self.due, self.banked = at, None, False
        elif kind == "pace":
            self.live, self.began, self.due, self.banked = data.get("live") is True, at, None, False
            self.votes.clear()
        elif kind == "deadline" and isinstance(data.get("seat"), int):
            if data.get("outcome") == "skip":
                self.skips[data["seat"]] = self.skips.get(data["seat"], 0) + 1
            self.banked = self.banked or data.get("outcome") == "bank"
            self.due = float(data["due"])

    def open(self, hours: int, created: float, events: list[Event]) -> None:
        """Set a new or loaded table's mode, and its turn's deadline as its stored events say."""
        self.hours, self.began = hours, created
        for ev in events:
            if ev.problem is None:
                with contextlib.suppress(KeyError, TypeError, ValueError):  # edited by hand: not ours
                    self.note(ev.kind, ev.data, ev.at)

    def noted(self, batch: Batch) -> None:
        for kind, data in batch.events:
            self.note(kind, data, batch.at)

    def stored(self) -> dict[str, Any] | None:
        return {"hours": self.hours} if self.hours else None

    # -- the turn's deadline --------------------------------------------------------

    def pace_of(self, seat: Seat) -> PaceRow:
        """The choices of a seat's person (a guest, or a profile that never chose: the defaults)."""
        if not seat.row.player:  # a guest keeps no time bank from one table to the next
            return PaceRow(bank=0.0, bank_at=float("inf"))  # empty, and never refilled
        return self.table.store.pace_of(seat.row.player) or PaceRow()

    def turn(self) -> Turn | None:
        """The turn a deadline runs on now (None: a live table, a computer's or a free seat's turn)."""
        t = self.table
        s = t.state
        if not self.running or s.current < 0 or t.damaged is not None or s.is_over:
            return None
        seat = t.seats[s.current]
        if seat.is_bot or not seat.row.claimed or t.auto_seat() is not None:
            return None
        due = self.due if self.due is not None else self.began + self.hours * 3600.0
        return Turn(s.current, self.began, due, self.skips.get(s.current, 0), self.banked)

    def deadline(self) -> float | None:
        """The wall time the person to act must move by (None: no deadline runs now)."""
        turn = self.turn()
        return None if turn is None else effective_due(turn, self.pace_of(self.table.seats[turn.seat]))

    def view(self, now: float) -> dict[str, Any] | None:
        """The mode as pages show it: hours per move, live or not, who asked to play live, the deadline."""
        if not self.hours:
            return None
        due = self.deadline()
        return {"hours": self.hours, "live": self.live, "votes": sorted(self.votes), "due": due,
                "left": None if due is None else max(0.0, round(due - now, 1)), "max_skips": MAX_SKIPS,
                "skips": [self.skips.get(i, 0) for i in range(len(self.table.seats))]}

    # -- a passed deadline ----------------------------------------------------------

    def plan_deadline(self, moves: int, now: float) -> Change | str | None:
        """What the passed deadline of the turn at ``moves`` does: a change to store (a bank drawn or a
        skip counted), the level of the computer that is to play the move, or None (not passed, or the
        table moved on)."""
        t = self.table
        turn = self.turn()
        if turn is None or moves != t.moves:
            return None
        seat = t.seats[turn.seat]
        out = on_deadline(turn, self.pace_of(seat), self.hours, now)
        if out is None or out.kind == "computer":
            return None if out is None else out.level
        data: dict[str, Any] = {"seat": turn.seat, "outcome": out.kind, "due": out.due}
        batch = Batch(t.id, events=[("deadline", data)])
        if out.kind == "bank":
            data["bank"] = round(out.used, 1)
            batch.bank = (seat.row.player, out.left, now) if seat.row.player else None

        def passed() -> None:
            log.info("table %s: seat %d's deadline passed: %s until %.0f", t.id, turn.seat, out.kind, out.due)
            t.broadcast()
        return Change(batch, passed)

    def computer(self, level: str) -> AutoMove:
        """The move a computer of ``level`` is to make for the person to act (decided off the loop, as a
        computer player's is: a searching level in a worker process)."""
        t = self.table
        seat = t.state.current
        bot = make_bot(level, seed=hash((t.state.seed, seat, t.moves)) & 0xFFFFFFFF)
        return AutoMove(seat, t.moves, t.state.observe(seat), bot)

    def plan_computer(self, moves: int, level: str, action: int, now: float) -> Change | None:
        """The move a computer decided for a person whose deadline passed (None: the table moved on)."""
        t = self.table
        turn = self.turn()
        if turn is None or moves != t.moves or self.plan_deadline(moves, now) != level:
            return None
        log.info("table %s: seat %d's deadline passed; computer %s plays its move", t.id, turn.seat, level)
        return t.plan_apply(turn.seat, action, level)

    def step(self, now: float) -> str | None:
        """Do here and now what a passed deadline does (the server does it off its loop): what it did."""
        t = self.table
        moves = t.moves
        planned = self.plan_deadline(moves, now)
        if isinstance(planned, Change):
            t.run(planned)
            return str(planned.batch.events[0][1]["outcome"])
        if planned is None:
            return None
        change = self.plan_computer(moves, planned, self.computer(planned).decide(), now)
        if change is None:
            return None
        t.run(change)
        return "computer"

    # -- live and back ----------------------------------------------------------------

    def people(self) -> set[int]:
        """The seats a person holds (a computer standing in for one counts as them)."""
        return {s.row.seat for s in self.table.seats if (not s.is_bot and s.row.claimed) or s.stand_in}

    def plan_switch(self, client: Client, live: object) -> Change:
        """A seated person asks to play live (made once every seated person asked) or back at your own
        pace (made at once: it only gives everyone more time)."""
        t = self.table
        if client.seat is None or client.seat not in self.people():
            raise TableError("not-seated", "only the people playing at this table choose how it is played",
                             args={"variant": "pace"})
        if not isinstance(live, bool):
            raise TableError("bad-pace", '"live" is true (play live now) or false (back to your own pace)')
        if not self.hours:
            raise TableError("not-own-pace", "this table is played live: it was not made to be played at "
                             "your own pace")
        t.writable()
        if live and self.live:
            raise TableError("same-pace", "the table is played live already", 409, args={"variant": "live"})
        if not live and not self.live:
            raise TableError("same-pace", "the table is played at your own pace already", 409,
                             args={"variant": "own"})
        seat = client.seat
        if live and not self.people() <= self.votes | {seat}:  # a wish noted, nothing stored yet
            def asked() -> None:
                self.votes.add(seat)
                t.broadcast()
            return Change(Batch(t.id), asked)

        def switched() -> None:
            log.info("table %s: now played %s", t.id, "live" if live else "at your own pace")
            t.broadcast()
        return Change(Batch(t.id, events=[("pace", {"live": live, "by": seat})]), switched)
