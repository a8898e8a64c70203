"""Tables opened: a new one planned from its setup and seats, a stored one rebuilt by replaying its events.

Each function is given the table class to make (``make``), so that this module needs the table only as
its parts see it (:class:`~barbu.web.tables.parts.Host`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import secrets
import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

from barbu.engine.game import Game
from barbu.engine.state import Phase, State
from barbu.web.core.errors import TableError
from barbu.web.core.ports import TableStore
from barbu.web.core.rows import Batch, Event, SeatRow
from barbu.web.tables.chat import rights_of
from barbu.web.tables.history import SETUP_ERRORS, read_setup, replay_events
from barbu.web.tables.parts import Decisions, Host, Seat, StandIns, awaited, deal_into
from barbu.web.tables.setup import Setup, TurnClock, parse_own_pace, parse_pace

log = logging.getLogger("barbu.web")

H = TypeVar("H", bound=Host)


def open_table(make: Callable[..., H], store: TableStore, table_id: str, game: Game, state: State,
               rows: list[SeatRow], **kw: Any) -> H:
    """The table of a game (new or stored) with its computer players seated."""
    table = make(table_id, game, state, [Seat(r) for r in rows], store, **kw)
    table.make_bots()
    table.turn_since = table.clock()
    return table


def plan_seated(make: Callable[..., H], store: TableStore, state: State, rows: list[SeatRow], setup: Setup,
                extra: dict[str, Any] | None = None, **kw: Any) -> tuple[H, Batch]:
    """A new table of ``state`` with these seats, dealt, and its batch (``extra``: more of its record)."""
    game, table_id = state.game, secrets.token_urlsafe(6)
    record = setup.record(state, extra)
    creator_seat = setup.creator_seat
    mine = -1 if creator_seat is None else creator_seat
    batch = Batch(table_id, seats=rows, create=record, private=setup.private, creator=mine)
    if not awaited(rows):  # a table with invited seats deals once they are taken (or filled)
        deal_into(state, batch)
    table = open_table(make, store, table_id, game, state, rows, private=setup.private, creator=mine, **kw)
    table.chat.rights = setup.chat
    table.turn_clock = setup.turn_clock
    table.pace = setup.pace
    table.seed_chosen = setup.seed is not None
    table.lesson = setup.lesson
    batch.at = table.wall()
    table.open_pace(setup.own_pace or 0, batch.at, [])  # the first turn begins as the table is stored
    return table, batch


def load_table(make: Callable[..., H], store: TableStore, table_id: str, **kw: Any) -> H | None:
    """Rebuild a stored table by replaying its deals and actions through the engine.

    A stored event the rules refuse (or that cannot be read) stops the replay there: the table
    opens as it was just before it, marked ``damaged``, and refuses every change, so that no
    new play is ever stored after a history that does not hold together. A table whose very
    setup cannot be read is kept too, damaged at its setup (see :func:`unreadable_table`).
    """
    try:
        start = read_setup(store, table_id)
    except SETUP_ERRORS as e:
        return unreadable_table(make, store, table_id, e, **kw)
    if start is None:
        return None
    game, state, rows = start
    events = store.events(table_id)
    stand_ins: StandIns = {}
    decisions: Decisions = {}
    damaged = replay_events(state, events, [r.name for r in rows], stand_ins, decisions)
    if damaged is not None:
        log.error("table %s is damaged: %s; it is kept as it was before that event and cannot be "
                  "played on", table_id, damaged.pop("logged"))
    if damaged is None and state.is_over and not store.is_over(table_id):  # ended before a crash
        store.mark_over(table_id)
    private, creator = store.table_flags(table_id)
    table = open_table(make, store, table_id, game, state, rows, damaged=damaged, private=private,
                       creator=creator, **kw)
    table.active_at = store.last_change(table_id) or table.active_at
    table.stand_ins = stand_ins
    table.decisions = decisions
    table.last_seq = events[-1].seq if events else 0
    restore(table, events, store.load_setup(table_id) or {})
    if damaged is None and state.phase == Phase.DEAL and not awaited(rows):  # stored before deals went
        # with their action (a table still waiting for its invited people deals when they come)
        batch = Batch(table_id)
        deal_into(table.state, batch)
        store.commit(batch)
    return table


def restore(table: Host, events: list[Event], stored: dict[str, Any]) -> None:
    """Set a loaded table's chat, seed, clock, pace, rematch and start as its stored setup and events say."""
    table.chat.rights = rights_of(stored.get("chat"))
    table.seed_chosen = stored.get("seed_chosen") is True
    table.lesson = stored["lesson"] if isinstance(stored.get("lesson"), str) else None
    with contextlib.suppress(TableError):  # a clock no longer valid (an unknown level): none
        table.turn_clock = TurnClock.parse(stored.get("turn_clock"))
    with contextlib.suppress(TableError):  # stored before paces (none) or edited by hand: normal
        table.pace = parse_pace(stored.get("pace", "normal"))
    hours = 0
    with contextlib.suppress(TableError):  # edited by hand: a live table
        hours = parse_own_pace(stored["own_pace"]) if "own_pace" in stored else 0
    table.open_pace(hours, table.store.origin(table.id)[0], events)
    table.chat.messages.extend(ev.data for ev in events if ev.kind == "chat" and ev.problem is None)
    table.chat.stored = sum(1 for ev in events if ev.kind == "chat")
    for ev in events:
        if ev.kind == "rematch" and ev.problem is None:
            with contextlib.suppress(KeyError, TypeError, ValueError):  # edited by hand: not the game's
                table.rematch.apply(ev.data)
        if ev.kind == "start" and ev.problem is None:
            table.filled = ev.data



def unreadable_table(make: Callable[..., H], store: TableStore, table_id: str, e: BaseException,
                     **kw: Any) -> H:
    """A stored table whose setup cannot be read, kept so that its link still says why.

    Its rules are unknown: it stands in as a table of as many seats as are stored (4 when
    that is no number of players), with no deal and no computer player, damaged at its setup.
    """
    reason = f"its stored setup cannot be read ({type(e).__name__}: {str(e)[:200]})"
    log.error("table %s is damaged: %s; it is kept, but cannot be played on and has no record",
              table_id, reason)
    try:
        rows = store.load_seats(table_id)
    except sqlite3.Error:
        rows = []
    players = len(rows) if 3 <= len(rows) <= 6 else 4
    # Each stored link still opens its seat (to watch from), so that its owner is told why.
    kept = [dataclasses.replace(r, seat=i) for i, r in enumerate(rows[:players])]
    seats = [Seat(r) for r in kept + [SeatRow(i, f"Seat {i + 1}", "", "human", "", True)
                                      for i in range(len(kept), players)]]
    game = Game("classic" if players == 4 else "family", players)
    damaged = {"seq": 0, "kind": "setup", "reason": reason, "hand_no": 0, "action_no": 0}
    table = make(table_id, game, State(game, seed=0), seats, store, damaged=damaged, **kw)
    with contextlib.suppress(sqlite3.Error, TypeError, ValueError):
        table.active_at = store.last_change(table_id) or table.active_at
    return table
