"""The card tables of the web server, free of any web framework: one game, its seats and its parts.

A :class:`Table` wraps one engine :class:`~barbu.state.State`. People act through
:meth:`Table.act`; computer players (and a forced "pass") through :meth:`Table.auto_step`. After
every change each connected :class:`~barbu.web.tables.parts.Client` is sent one JSON ``state`` event
built only from its own seat's observation, so no message ever carries a card its reader may not
see. Every change is first worked out on copies (a :class:`~barbu.web.tables.parts.Change`), stored
in the :class:`~barbu.web.storage.sqlite.Store`, and only then made in memory and told to anyone: a
write that fails leaves the table as it was.

The table holds the game's state; its parts, each in its own module, answer its requests:
:mod:`~barbu.web.tables.seats` (who sits where), :mod:`~barbu.web.tables.invites` (the creator's
links), :mod:`~barbu.web.tables.clock` (the pause and the turn clock),
:mod:`~barbu.web.tables.computers` and :mod:`~barbu.web.tables.standins` (computer players),
:mod:`~barbu.web.tables.play` (the moves), :mod:`~barbu.web.tables.talk` (the chat),
:mod:`~barbu.web.tables.newgame` (the rematch) and :mod:`~barbu.web.tables.views` (what each reader
sees). :mod:`~barbu.web.tables.loading` opens new and stored tables, and
:mod:`~barbu.web.tables.lobby` holds a server's tables.
"""

from __future__ import annotations

import json
import logging
import secrets
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from barbu.engine.game import Game
from barbu.engine.state import State
from barbu.solo.shapes import contract_facts
from barbu.web.core.errors import TableError
from barbu.web.core.ports import TableStore
from barbu.web.core.rows import Batch, Event, PlayerRow, SeatRow
from barbu.web.tables.chat import Chat
from barbu.web.tables.clock import Timing
from barbu.web.tables.computers import AutoMove, Computers
from barbu.web.tables.deadlines import Deadlines
from barbu.web.tables.history import damage_text
from barbu.web.tables.invites import Invitations
from barbu.web.tables.loading import load_table, plan_seated
from barbu.web.tables.newgame import Rematches
from barbu.web.tables.parts import Change, Client, Decisions, Seat, StandIns, storage_error
from barbu.web.tables.play import Play
from barbu.web.tables.rematch import Offer
from barbu.web.tables.seats import Seating, rematch_rows, seat_rows
from barbu.web.tables.setup import Setup, TurnClock
from barbu.web.tables.standins import Handovers
from barbu.web.tables.talk import Talk
from barbu.web.tables.views import Views

log = logging.getLogger("barbu.web")


class Keeper(Protocol):
    """What keeps a rematch's new table once stored: the server's :class:`~barbu.web.tables.lobby.Lobby`."""

    idle_seconds: float

    def add(self, table: Table) -> Table: ...


@dataclass
class Table:
    """One game of Barbu being played at the server."""

    id: str
    game: Game
    state: State
    seats: list[Seat]
    store: TableStore
    idle_seconds: float = 60.0
    clock: Callable[[], float] = time.monotonic
    wall: Callable[[], float] = time.time  # the deadlines' clock (tables at your own pace)
    clients: list[Client] = field(default_factory=list)
    turn_since: float = 0.0
    last: dict[str, Any] | None = None
    moves: int = 0  # actions applied since the table was opened: tells a stale decision apart
    active_at: float = field(default_factory=time.time)  # wall time of the last stored change
    damaged: dict[str, Any] | None = None  # why the stored game stopped replaying, and where
    private: bool = False  # not in the lobby's list
    creator: int = -1  # the seat of whoever created the table (-1: unknown, as for older tables)
    # The pause between hands: the pages that asked for it (hello "pace") are waited for.
    pacers: list[Client] = field(default_factory=list)
    ready: set[int] = field(default_factory=set)  # seats that said they are ready for this hand
    hand_ended_at: float | None = None  # clock time the last hand ended, while its pause lasts
    chat: Chat = field(default_factory=Chat)
    turn_clock: TurnClock | None = None
    pace: str = "normal"  # how quickly the computers play (barbu.web.tables.setup.PACES)
    pause_held: bool = False  # the hand that just began waits for the people (see waiting)
    rematch: Offer = field(default_factory=Offer)  # the offer of a new game once this one is over
    contracts: list[dict[str, Any]] = field(init=False, repr=False)  # the game's, as meta() shows them
    stand_ins: StandIns = field(default_factory=dict)  # cards a computer played in a person's seat
    last_seq: int = 0  # the seq of the last stored event replayed when the table was loaded
    decisions: Decisions = field(default_factory=dict)  # who made each seat's decisions (the ratings')
    filled: dict[str, Any] | None = None  # the creator's "start with computers" (its stored event)
    seed_chosen: bool = False  # a practice game whose creator chose the seed (knows every deal): unrated
    lesson: str | None = None  # the tutorial's lesson whose real hand this is (one hand, coach on)
    # The parts that answer the table's requests (each holds only the table).
    seating: Seating = field(init=False, repr=False, compare=False)
    invitations: Invitations = field(init=False, repr=False, compare=False)
    timing: Timing = field(init=False, repr=False, compare=False)
    computers: Computers = field(init=False, repr=False, compare=False)
    handovers: Handovers = field(init=False, repr=False, compare=False)
    play: Play = field(init=False, repr=False, compare=False)
    views: Views = field(init=False, repr=False, compare=False)
    rematches: Rematches = field(init=False, repr=False, compare=False)
    talk: Talk = field(init=False, repr=False, compare=False)
    deadlines: Deadlines = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.contracts = contract_facts(self.game)
        self.seating, self.invitations, self.timing = Seating(self), Invitations(self), Timing(self)
        self.computers, self.handovers = Computers(self), Handovers(self)
        self.play, self.views = Play(self), Views(self)
        self.rematches, self.talk, self.deadlines = Rematches(self), Talk(self), Deadlines(self)

    # -- creating and loading ------------------------------------------------------

    @classmethod
    def plan(cls, store: TableStore, setup: Setup, **kw: Any) -> tuple[Table, Batch]:
        """A new table, dealt, and the batch that stores it: the table exists once that is stored."""
        rows = seat_rows(store, setup)
        # The seed decides every deal: unguessable unless a practice game chose its own.
        state = State(setup.game, seed=setup.seed if setup.seed is not None else secrets.randbits(63),
                      first_declarer=setup.first_declarer)
        return plan_seated(cls, store, state, rows, setup, **kw)

    @classmethod
    def create(cls, store: TableStore, setup: Setup, **kw: Any) -> Table:
        """A new table, stored at once (in this thread); TableError ``storage`` if that fails."""
        table, batch = cls.plan(store, setup, **kw)
        try:
            store.commit(batch)
        except (sqlite3.Error, OSError) as e:
            raise storage_error(table.id, e) from e
        table.created()
        return table

    def created(self) -> None:
        log.info("table %s created: %s, %d players, seats %s", self.id, self.game.ruleset, self.game.players,
                 [s.row.kind for s in self.seats])

    @classmethod
    def load(cls, store: TableStore, table_id: str, **kw: Any) -> Table | None:
        """A stored table rebuilt by replaying its events (:func:`~barbu.web.tables.loading.load_table`)."""
        return load_table(cls, store, table_id, **kw)

    # -- changes: planned, stored, then made ------------------------------------------

    def run(self, change: Change) -> None:
        """Store a change here and now, then make it (TableError ``storage``, nothing changed, if
        storing fails). The server does the same with the store's writes in its writer thread."""
        if change.batch:
            try:
                self.store.commit(change.batch)
            except (sqlite3.Error, OSError) as e:
                raise storage_error(self.id, e) from e
        self.stored(change)

    def stored(self, change: Change) -> None:
        """Make a change whose batch is stored, the deadlines told first what was stored and when."""
        self.deadlines.noted(change.batch)
        change.commit()

    def writable(self) -> None:
        if self.damaged is not None:
            raise TableError("damaged", f"this table is damaged ({damage_text(self.damaged)}): it is kept "
                             "as it was before that, and nothing more can be played on it", 409,
                             args={"variant": "table"})

    def act(self, client: Client, text: object) -> None:
        """A person's action, checked by the engine; TableError (state unchanged) when refused."""
        self.run(self.plan_act(client, text))

    def attach(self, client: Client, token: object, name: object = None, pace: object = False,
               player: PlayerRow | None = None, browser: str = "") -> None:
        """Seat a client by its token (None: watch), storing the claim of a free seat first."""
        self.run(self.plan_attach(client, token, name, pace, player, browser))

    def join(self, name: object, player: PlayerRow | None = None, browser: str = "") -> tuple[int, str]:
        """Give the first free open seat to ``name`` (from the lobby): a fresh token, so old links lapse."""
        change, seat, token = self.plan_join(name, player, browser)
        self.run(change)
        return seat, token

    def takeover(self, client: Client, target: object, level: object = None) -> None:
        self.run(self.plan_takeover(client, target, level))

    def reclaim(self, client: Client) -> None:
        self.run(self.plan_reclaim(client))

    def names(self) -> list[str]:
        return [s.row.name for s in self.seats]

    def send(self, client: Client, event: dict[str, Any]) -> None:
        client.send_text(json.dumps(event, ensure_ascii=False))

    @property
    def computers_only(self) -> bool:
        return all(s.row.kind == "bot" and not s.row.token for s in self.seats)

    # -- the rematch -------------------------------------------------------------------

    def plan_rematch(self, client: Client, op: object, lobby: Keeper) -> Change:
        """An offer of a new game or its answer (:meth:`~barbu.web.tables.newgame.Rematches.plan_rematch`)."""
        return self.rematches.plan_rematch(client, op, lambda: self._plan_rematch_table(lobby), lobby.add)

    def _plan_rematch_table(self, lobby: Keeper) -> tuple[Table, Batch]:
        """The new game: same rules, seats and settings, a new token each, the next first declarer."""
        rows = rematch_rows([s.row for s in self.seats])
        seats = [{"you": r.seat == self.creator} for r in rows]
        setup = Setup(self.game, seats, chat=self.chat.rights, turn_clock=self.turn_clock,
                      private=self.private, pace=self.pace, own_pace=self.deadlines.hours or None)
        first = (self.state.first_declarer + 1) % self.game.players
        state = State(self.game, seed=secrets.randbits(63), first_declarer=first)
        return plan_seated(Table, self.store, state, rows, setup, {"rematch_of": self.id},
                           idle_seconds=lobby.idle_seconds)

    def people(self) -> list[int]:
        return self.rematches.people()

    def rematch_link(self, seat: int) -> str | None:
        return self.rematches.rematch_link(seat)

    def send_rematch_link(self, client: Client) -> None:
        self.rematches.send_rematch_link(client)

    def plan_chat(self, client: Client, text: object) -> Change:
        return self.talk.plan_chat(client, text)

    # -- requests answered by the table's parts ---------------------------------------

    def seat_of_token(self, token: object) -> int | None:
        return self.seating.seat_of_token(token)

    def plan_attach(self, client: Client, token: object, name: object = None, pace: object = False,
                    player: PlayerRow | None = None, browser: str = "") -> Change:
        return self.seating.plan_attach(client, token, name, pace, player, browser)

    def detach(self, client: Client) -> None:
        self.seating.detach(client)

    def plan_join(self, name: object, player: PlayerRow | None = None,
                  browser: str = "") -> tuple[Change, int, str]:
        return self.seating.plan_join(name, player, browser)

    def joinable(self, s: Seat) -> bool:
        return self.seating.joinable(s)

    def plan_tie(self, token: object, player: PlayerRow) -> tuple[Change, int]:
        return self.seating.plan_tie(token, player)

    def seat_change(self, row: SeatRow, then: Callable[[], None]) -> Change:
        return self.seating.seat_change(row, then)

    def plan_start_deal(self, batch: Batch, changed: list[SeatRow]) -> State | None:
        return self.seating.plan_start_deal(batch, changed)

    def started(self, dealt: State | None) -> None:
        self.seating.started(dealt)

    def awaited(self) -> list[int]:
        return self.seating.awaited()

    def tokens(self) -> list[tuple[int, str]]:
        return self.seating.tokens()

    def is_creator(self, client: Client) -> bool:
        return self.invitations.is_creator(client)

    def invites(self) -> dict[str, Any]:
        return self.invitations.invites()

    def tell_creator(self) -> None:
        self.invitations.tell_creator()

    def plan_invites(self, client: Client) -> Change:
        return self.invitations.plan_invites(client)

    def plan_reissue(self, client: Client, target: object) -> Change:
        return self.invitations.plan_reissue(client, target)

    def plan_start(self, client: Client, level: object = None) -> Change:
        return self.invitations.plan_start(client, level)

    def pause(self) -> dict[str, Any]:
        return self.timing.pause()

    def pause_left(self) -> float:
        return self.timing.pause_left()

    def waiting(self) -> list[int]:
        return self.timing.waiting()

    def plan_ready(self, client: Client, hand: object) -> Change:
        return self.timing.plan_ready(client, hand)

    def clock_left(self) -> float | None:
        return self.timing.clock_left()

    def plan_time_out(self, moves: int) -> Change | None:
        return self.timing.plan_time_out(moves)

    def make_bots(self) -> None:
        self.computers.make_bots()

    def auto_seat(self) -> int | None:
        return self.computers.auto_seat()

    def auto_move(self) -> AutoMove | None:
        return self.computers.auto_move()

    def plan_auto(self, move: AutoMove, action: int) -> Change | None:
        return self.computers.plan_auto(move, action)

    def auto_apply(self, move: AutoMove, action: int) -> bool:
        return self.computers.auto_apply(move, action)

    def auto_step(self) -> bool:
        return self.computers.auto_step()

    def plan_takeover(self, client: Client, target: object, level: object = None) -> Change:
        return self.handovers.plan_takeover(client, target, level)

    def plan_reclaim(self, client: Client) -> Change:
        return self.handovers.plan_reclaim(client)

    def plan_act(self, client: Client, text: object) -> Change:
        return self.play.plan_act(client, text)

    def plan_apply(self, seat: int, action: int, by: str = "") -> Change:
        return self.play.plan_apply(seat, action, by)

    def meta(self) -> dict[str, Any]:
        return self.views.meta()

    def own_pace(self) -> dict[str, Any] | None:
        return self.deadlines.view(self.wall())

    def open_pace(self, hours: int, created: float, events: list[Event]) -> None:
        self.deadlines.open(hours, created, events)

    def view(self, seat: int | None) -> dict[str, Any]:
        return self.views.view(seat)

    def state_event(self, seat: int | None, meta: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.views.state_event(seat, meta)

    def sheet_event(self) -> dict[str, Any]:
        return self.views.sheet_event()

    def broadcast(self, sheet: bool = False) -> None:
        self.views.broadcast(sheet)

    def public_record(self, seat: int | None = None) -> dict[str, Any]:
        return self.views.public_record(seat)

    def summary(self) -> dict[str, Any]:
        return self.views.summary()

    def yours(self, seat: int) -> dict[str, Any]:
        return self.views.yours(seat)
