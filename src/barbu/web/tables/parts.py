"""What a table's parts share: a connection, a seat, a change planned on copies, and the table as they see it.

A :class:`~barbu.web.tables.table.Table` coordinates small parts (seats, invitations, the pause and
the turn clock, computer players, stand-ins, play, views, the rematch); each part reads and changes
the table only through :class:`Host`, so that no part imports the table, nor the table's module
its parts in a circle.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from barbu.bots import Bot
from barbu.engine.game import Game
from barbu.engine.state import Phase, State
from barbu.web.core.errors import TableError
from barbu.web.core.ports import TableStore
from barbu.web.core.rows import Batch, Event, SeatRow
from barbu.web.tables.chat import Chat
from barbu.web.tables.rematch import Offer
from barbu.web.tables.setup import TurnClock

log = logging.getLogger("barbu.web")

StandIns = dict[int, dict[int, str]]  # hand -> index of the card in its actions -> the computer's level
Decisions = dict[int, dict[str, int]]  # seat -> who decided ("" its person, else a computer's level) -> count


class Client(Protocol):
    """A connection to a table: a seat (or None to watch) and a way to send it text."""

    seat: int | None

    def send_text(self, text: str) -> None: ...


@dataclass
class Seat:
    """A seat at a table: its stored row, and its computer player when a computer plays it."""

    row: SeatRow
    bot: Bot | None = None
    connected: int = 0

    @property
    def is_bot(self) -> bool:
        return self.row.kind == "bot"

    @property
    def public(self) -> dict[str, Any]:
        r = self.row
        return {"seat": r.seat, "name": r.name, "kind": r.kind,
                "level": r.level if r.kind == "bot" else None, "claimed": r.claimed,
                "connected": self.connected > 0, "has_link": bool(r.token), "access": r.access,
                "profile": bool(r.player), "holder": self.holder, "stand_in": self.stand_in}

    @property
    def holder(self) -> str:
        """Whose seat it is, as every page shows it: ``profile`` (a registered player), ``guest`` (a
        bare name), ``computer`` (a computer's seat, or one a computer keeps until someone comes) or
        ``free`` (nobody has taken it yet). A person's seat stays theirs while a computer stands in."""
        r = self.row
        if r.player:
            return "profile"
        if r.kind == "bot" and not self.stand_in:
            return "computer"
        return "guest" if r.claimed else "free"

    @property
    def stand_in(self) -> bool:
        """A computer plays, for now, a seat a person has taken."""
        r = self.row
        return r.kind == "bot" and r.claimed and bool(r.token or r.player)

    @property
    def free(self) -> bool:
        """A person's seat nobody has taken yet."""
        return self.row.kind == "human" and not self.row.claimed


@dataclass
class Change:
    """A change of a table worked out on copies: what to store, and what to do once it is stored.

    Nothing in memory moves and nobody is told until ``batch`` is in the database; if storing it
    fails, the change is dropped whole and the table is exactly as it was.
    """

    batch: Batch
    commit: Callable[[], None]


def storage_error(table_id: str, e: BaseException) -> TableError:
    """The refusal of a change that could not be stored (the table is unchanged), logged."""
    log.error("table %s: a change could not be stored, so it was not made: %s", table_id, e)
    return TableError("storage", "the server could not store this just now, so nothing was changed: "
                      "please try again in a moment", 503)


def deal_into(state: State, batch: Batch) -> None:
    """Deal every hand due now on ``state``, adding each accepted deal to ``batch``."""
    while state.phase == Phase.DEAL:
        if state.deal_random():
            batch.events.append(("deal", {"hands": list(state.dealt), "set_aside": state.set_aside}))


def awaited(rows: list[SeatRow]) -> list[int]:
    """The invited seats (a friend's, taken with its link only) nobody has taken yet: the game waits."""
    return [r.seat for r in rows if r.kind == "human" and r.access == "friend" and not r.claimed]


class Host(Protocol):
    """The table as its parts see it: its state, and what one part asks of the others through it."""

    id: str
    game: Game
    state: State
    seats: list[Seat]
    store: TableStore
    idle_seconds: float
    clients: list[Client]
    turn_since: float
    last: dict[str, Any] | None
    moves: int
    active_at: float
    damaged: dict[str, Any] | None
    private: bool
    creator: int
    pacers: list[Client]
    ready: set[int]
    hand_ended_at: float | None
    chat: Chat
    turn_clock: TurnClock | None
    pace: str
    pause_held: bool
    rematch: Offer
    contracts: list[dict[str, Any]]
    stand_ins: StandIns
    decisions: Decisions
    filled: dict[str, Any] | None
    seed_chosen: bool
    lesson: str | None
    last_seq: int

    def clock(self) -> float: ...
    def wall(self) -> float: ...
    def own_pace(self) -> dict[str, Any] | None: ...
    def open_pace(self, hours: int, created: float, events: list[Event]) -> None: ...
    def run(self, change: Change) -> None: ...
    def send(self, client: Client, event: dict[str, Any]) -> None: ...
    def broadcast(self, sheet: bool = False) -> None: ...
    def names(self) -> list[str]: ...
    def meta(self) -> dict[str, Any]: ...
    def sheet_event(self) -> dict[str, Any]: ...
    def summary(self) -> dict[str, Any]: ...
    def writable(self) -> None: ...
    def seat_change(self, row: SeatRow, then: Callable[[], None]) -> Change: ...
    def plan_start_deal(self, batch: Batch, changed: list[SeatRow]) -> State | None: ...
    def started(self, dealt: State | None) -> None: ...
    def awaited(self) -> list[int]: ...
    def joinable(self, s: Seat) -> bool: ...
    def seat_of_token(self, token: object) -> int | None: ...
    def is_creator(self, client: Client) -> bool: ...
    def invites(self) -> dict[str, Any]: ...
    def tell_creator(self) -> None: ...
    def people(self) -> list[int]: ...
    def rematch_link(self, seat: int) -> str | None: ...
    def send_rematch_link(self, client: Client) -> None: ...
    def pause(self) -> dict[str, Any]: ...
    def waiting(self) -> list[int]: ...
    def clock_left(self) -> float | None: ...
    def auto_seat(self) -> int | None: ...
    def make_bots(self) -> None: ...
    def plan_apply(self, seat: int, action: int, by: str = "") -> Change: ...
