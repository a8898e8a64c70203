"""The ASGI application: the lobby's HTTP API, the static page, and one WebSocket per reader of a table.

Client to server, each a JSON object with a ``type``: ``hello`` (first, with the seat ``token`` or
none to watch, and a ``name`` for a free seat), ``act`` (``action``: "QS", "no-queens",
"trump H", "rank J", "double 0,2", "redouble none", "pass"), ``takeover`` (``seat``, ``level``),
``reclaim``, ``sync``, ``ping``, ``rematch`` (``op``: offer, accept, decline, withdraw, once the game
is over), and the creator's ``invites`` and ``reissue`` (``seat``). Server to client: ``welcome``,
``state`` (the reader's own view), ``sheet`` (the finished hands, when one ends), ``invites`` (to the
creator only: the free seats' links), ``rematch-link`` (to each person only: their seat at the new
game), ``error`` (``code``, ``message``), ``pong``.
A hello may carry ``profile`` ("ID:SECRET") to tie the seat it takes to a profile (profile_routes).
Anything malformed gets an ``error`` and changes nothing. A change is told to anyone only once it
is stored: the database is written in one writer thread, so a slow write holds up only its table.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import multiprocessing
import os
import sqlite3
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from barbu.bots import levels, make_bot
from barbu.engine.contracts import CLASSIC_OPTIONS, OPTION_HELP
from barbu.engine.game import RULESETS
from barbu.engine.observation import Observation
from barbu.web.core.errors import TableError
from barbu.web.core.ports import TableStore
from barbu.web.core.rows import PlayerBatch, PlayerRow, SheetBatch
from barbu.web.core.words import words
from barbu.web.http.clientid import CLIENT_HEADER, client_key
from barbu.web.http.guard import Guard, http_refusal, parse_json, refusal_of, secret_header
from barbu.web.http.heavy import Heavy
from barbu.web.http.limits import Limiter, RedisCounters, Rule, Who, client_id
from barbu.web.http.replay import Analyses, Gates, replay_routes
from barbu.web.people import ladder
from barbu.web.people.players import Policy, Profiles, public
from barbu.web.people.signin import ThrottlePolicy
from barbu.web.sheets import sheet as sheetmod
from barbu.web.sheets.sheet import Sheet, SheetBook
from barbu.web.storage.sqlite import open_store
from barbu.web.tables.rules import rules_info
from barbu.web.tables.table import (
    AutoMove,
    Change,
    Limits,
    Lobby,
    Setup,
    Table,
    default_level,
    name_key,
    storage_error,
)
from barbu.wording import plural

if TYPE_CHECKING:
    from barbu.web.cluster.relay import Cluster

log = logging.getLogger("barbu.web")

STATIC = Path(__file__).resolve().parents[1] / "static"
MAX_MESSAGE = 4096  # bytes of one client message; a real one is under 100
MAX_BODY = 16384  # bytes of an HTTP request body
MAX_QUEUE = 2000  # events waiting for one slow client before it is cut off
CLOSE_NO_TABLE = 4404
CLOSE_BAD_TOKEN = 4403
CLOSE_TOO_SLOW = 4408
CLOSE_NO_HELLO = 4400
CLOSE_TOO_MANY = 4429
PROFILE_HEADER = "x-barbu-player"  # "ID:SECRET", the profile this browser keeps
TOKEN_HEADER = "x-barbu-token"  # a seat's token, or a score sheet's write secret
NO_NEW_TABLES = "this server creates no new tables"  # a limit of 0 (--tables-per-minute, --max-open-tables)


def cheap_levels() -> tuple[str, ...]:
    """The computer levels that do not search: the only ones a computer-only table gets by default."""
    return tuple(lv for lv in levels() if not make_bot(lv, 0).searches)


@dataclass
class Config:
    """How the server behaves, and the limits that keep a public one usable; tests shorten them."""

    db_path: str  # an SQLite file, or a postgresql:// URL
    bot_delay: float = 0.6  # seconds before each computer play, so people can follow
    idle_seconds: float = 60.0  # a person's turn may be handed to a computer after this
    db_timeout: float = 5.0  # seconds a write waits for the database before it is refused
    retry_delay: float = 2.0  # seconds before a computer player tries again after a failed write
    tables_per_minute: int = 10  # tables one client (IP address) may create in a minute
    max_open_tables: int = 200  # unfinished tables still played, in all
    max_bot_tables: int = 10  # computer-only tables running at once (0: none may be created)
    bot_table_levels: tuple[str, ...] = field(default_factory=cheap_levels)  # levels they may use
    sockets_per_client: int = 16  # WebSockets open at once from one client (IP address)
    hello_timeout: float = 10.0  # seconds a new socket has to say hello before it is closed
    listed_after_over: float = 600.0  # seconds a finished table stays in the lobby's list
    abandoned_after: float = 3600.0  # seconds without a change before a computers' table leaves the list
    quiet_after: float = 86400.0  # the same for a table with a person at it
    sheets_per_minute: int = 10  # score sheets one client (IP address) may start in a minute
    profiles_per_minute: int = 10  # profiles one client (IP address) may make in a minute
    chat_per_minute: int = 30  # chat messages one person and one address may send in a minute, all tables
    rematch_per_minute: int = 12  # rematch answers (offer, withdraw…) one person and one address, a minute
    signin_failures: int = 3  # failed sign-ins per name and client before each next one waits (1 s, doubling)
    signin_per_client: int = 20  # failed sign-ins from one client, all names together, in signin_window
    signin_window: float = 900.0  # seconds a failed sign-in is remembered
    max_analyses: int = 2  # analyses of a player's cards (worker processes) running at once
    analysis_budget: float = 0.5  # the expert's seconds a decision in an analysis (barbu analyze --seconds)
    analysis_seconds: float = 900.0  # an analysis still running after this long is stopped
    reads_per_minute: int = 60  # timelines and PDFs one person and one address may ask for in a minute
    analysis_queue: int = 8  # analyses waiting for a place (past it they are refused)
    bus: str | None = None  # redis://… : one process of a group sharing the database (web.cluster)

    @property
    def limits(self) -> Limits:
        return Limits(self.listed_after_over, self.abandoned_after, self.quiet_after)


class Port(Protocol):
    """Where a reader's frames come from and go to: its WebSocket, or a socket relayed by another process."""

    async def receive(self, within: float | None = None) -> str | None:
        """The next text frame, None once the reader has gone; TimeoutError after ``within`` s."""

    async def send_text(self, text: str) -> None: ...

    async def close(self, code: int) -> None: ...

    @property
    def address(self) -> str:
        """The reader's IP address (client_of), for the per-address limits."""


class SocketPort:
    """A reader's own WebSocket, connected to this process."""

    def __init__(self, ws: WebSocket) -> None:
        self.ws = ws
        self.address = client_of(ws)

    async def receive(self, within: float | None = None) -> str | None:
        return await _receive(self.ws, within)

    async def send_text(self, text: str) -> None:
        await self.ws.send_text(text)

    async def close(self, code: int) -> None:
        await self.ws.close(code)


class Connection:
    """One reader of a table: events are queued here and sent by its own task."""

    def __init__(self, ws: Port) -> None:
        self.ws = ws
        self.seat: int | None = None
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.overflowed = False
        self.greeted = False  # it has said a hello that was taken (or that only lacked a name)
        self.person: str | None = None  # the profile its hello proved, for the per-person limits

    def send_text(self, text: str) -> None:
        if self.queue.qsize() >= MAX_QUEUE:
            if not self.overflowed:
                self.overflowed = True
                self.queue.put_nowait(None)
            return
        self.queue.put_nowait(text)

    async def pump(self) -> None:
        """Send queued events in order until told to stop (None)."""
        while (text := await self.queue.get()) is not None:
            await self.ws.send_text(text)
        if self.overflowed:
            log.warning("closing a connection that fell %d events behind", MAX_QUEUE)
            await self.ws.close(CLOSE_TOO_SLOW)


class Server:
    """The lobby, the store, and the tasks that let computer players act."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.store: TableStore | None = None
        self.lobby: Lobby | None = None
        self.drivers: dict[str, asyncio.Task[None]] = {}
        self.clocks: dict[str, asyncio.TimerHandle] = {}  # each table's turn clock, while it runs
        self.background: set[asyncio.Task[None]] = set()
        self.pool: ProcessPoolExecutor | None = None  # for the searching computer players
        # One thread writes the database, in the order the changes were asked for.
        self.writer: ThreadPoolExecutor | None = None
        self.locks: dict[str, asyncio.Lock] = {}  # one per table: its changes, one after another
        self.limiter = Limiter()  # what each person and address did lately (in Redis with --bus)
        self.sockets: Counter[str] = Counter()  # open WebSockets of each client
        self.book: SheetBook | None = None  # the score keeper's sheets
        self.people: Profiles | None = None  # the player profiles
        self.cluster: Cluster | None = None  # the group this process is one of (--bus), if any
        self.heavy = Heavy()  # the costly reads (timelines, PDFs), worked out in a process and kept

    def open(self) -> None:
        self.store = open_store(self.config.db_path, timeout=self.config.db_timeout)
        self.writer = ThreadPoolExecutor(1, thread_name_prefix="barbu-db")
        c = self.config
        throttle = ThrottlePolicy(free=c.signin_failures, per_address=c.signin_per_client,
                                  window=c.signin_window)
        self.people = Profiles(self.store, Policy(throttle=throttle))
        if self.cluster is not None:  # the tables are leased by the cluster's sweep, not all loaded here
            from barbu.web.cluster.relay import ClusterLobby, FreshSheetBook

            self.lobby = ClusterLobby(self.store, idle_seconds=c.idle_seconds, limits=c.limits)
            self.book = FreshSheetBook(self.store)
            return
        self.lobby = Lobby(self.store, idle_seconds=self.config.idle_seconds, limits=self.config.limits)
        self.book = SheetBook(self.store)
        for table in self.lobby.load_all():
            self.kick(table)

    async def close(self) -> None:
        # Drivers and clocks stop, the writer drains, and only then do the leases go (the others
        # take our tables over at once): a queued write must not land after another took its table.
        if self.cluster is not None:
            await self.cluster.stop()
        for handle in self.clocks.values():
            handle.cancel()
        for task in self.drivers.values():
            task.cancel()
        for task in list(self.drivers.values()):
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self.drivers.clear()
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None
        self.heavy.close()
        if self.writer is not None:
            self.writer.shutdown(wait=True)
            self.writer = None
        if self.cluster is not None:
            await self.cluster.leave()
        if self.store is not None:
            self.store.close()

    @property
    def tables(self) -> Lobby:
        assert self.lobby is not None, "the server is not open"
        return self.lobby

    def drives(self, table: Table) -> bool:
        """Whether this process plays this table on (with --bus, only the tables whose lease it holds)."""
        return self.cluster is None or self.cluster.current(table)

    def kick(self, table: Table) -> None:
        """Make sure computer players (and forced passes) get to act at this table."""
        if not self.drives(table):
            return
        if table.auto_seat() is None:
            if table.waiting():  # the pause between hands ends by itself after --idle seconds
                asyncio.get_running_loop().call_later(table.pause_left() + 0.05, self.kick, table)
            self.arm_clock(table)
            return
        task = self.drivers.get(table.id)
        if task is None or task.done():
            self.drivers[table.id] = asyncio.get_running_loop().create_task(self._drive(table))

    def revive(self, table: Table) -> None:
        """Kick a table whose computer players or turn clock stopped (they stop when our lease may have
        lapsed by our own clock; once it is renewed nothing else would start them again)."""
        if not self.drives(table):
            return
        task = self.drivers.get(table.id)
        if table.auto_seat() is not None and (task is None or task.done()):
            self.kick(table)
        clock = self.clocks.get(table.id)
        if clock is not None and clock.when() < asyncio.get_running_loop().time() - 1.0:
            self.arm_clock(table)  # it went off and found the table not ours: the same turn, again

    def arm_clock(self, table: Table) -> None:
        """Wake up when the person to act runs out of time on the table's turn clock, if it has one."""
        left = table.clock_left()
        if left is None:
            return
        old = self.clocks.pop(table.id, None)
        if old is not None:
            old.cancel()
        moves = table.moves
        self.clocks[table.id] = asyncio.get_running_loop().call_later(
            max(0.0, left) + 0.05, lambda: self._spawn(self._time_out(table, moves)))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` as a task, held until it is done (the loop keeps only weak references)."""
        task = asyncio.get_running_loop().create_task(work)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    async def _time_out(self, table: Table, moves: int) -> None:
        try:
            if await self.change(table, lambda: table.plan_time_out(moves)):
                self.kick(table)
            else:
                self.arm_clock(table)  # moved on (or the pause began): the new turn's clock
        except TableError as e:
            log.info("table %s: the turn clock could not hand the seat over: %s", table.id, e.message)

    async def store_batch(self, batch: Any) -> None:
        """Write a batch in the writer thread; sqlite3.Error (or OSError) when it cannot be stored."""
        assert self.store is not None and self.writer is not None, "the server is not open"
        if batch and self.cluster is not None:
            await self.cluster.guard(batch)
        if batch:
            await asyncio.get_running_loop().run_in_executor(self.writer, self._commit, batch)

    def _commit(self, batch: Any) -> list[int]:
        """Store a batch (in the writer thread), checking the lease again just before: it may have lapsed
        while the batch waited behind others."""
        assert self.store is not None, "the server is not open"
        if self.cluster is not None:
            self.cluster.check_held(batch)
        return self.store.commit(batch)

    async def change(self, table: Table, plan: Callable[[], Change | None]) -> bool:
        """Plan a change of ``table``, store it off the loop, then make it; TableError if refused.

        The table's lock keeps its changes in order, each planned on the state the one before it
        left. Reads (``sync``, ``ping``, the lobby) take no lock: they see the last stored state.
        Returns False when ``plan`` found nothing to do. A change that stores nothing (a watcher
        or a returning player arriving) is made at once, even while another change is stored.
        """
        lock = self.locks.setdefault(table.id, asyncio.Lock())
        try:
            quick = plan()
        except TableError:
            if not lock.locked():
                raise
            quick = None  # it may be allowed once the change being stored is made
        if quick is not None and not quick.batch:
            quick.commit()
            return True
        if quick is None and not lock.locked():
            return False
        async with lock:
            change = plan()
            if change is None:
                return False
            try:
                if change.batch and not self.drives(table):  # another process drives it now
                    raise OSError(f"this process no longer drives table {table.id}")
                await self.store_batch(change.batch)
            except sqlite3.IntegrityError as e:
                if self.cluster is not None:  # another process wrote this table: ours is stale
                    self.cluster.refused(table.id)
                raise storage_error(table.id, e) from e
            except (sqlite3.Error, OSError) as e:
                if self.cluster is not None and change.batch:  # a rematch's new table is not there
                    await self.cluster.abandon(change.batch)
                raise storage_error(table.id, e) from e
            change.commit()
        return True

    @property
    def profiles(self) -> Profiles:
        assert self.people is not None, "the server is not open"
        return self.people

    async def store_player(self, batch: PlayerBatch) -> None:
        try:
            await self.store_batch(batch)
        except sqlite3.IntegrityError as e:  # one name taken twice, or a transfer code used twice, at once
            raise TableError("conflict", "someone else made this change at the same moment: try again", 409,
                             args={"variant": "profile"}) from e
        except (sqlite3.Error, OSError) as e:
            raise storage_error("profile " + batch.player_id, e) from e

    def profile_limit(self, who: Who) -> contextlib.AbstractAsyncContextManager[None]:
        """Counts a new profile of ``who`` while it is made; TableError (429) past the limit."""
        n = self.config.profiles_per_minute

        def refuse(wait: int) -> TableError:
            why = f"you have made {plural(n, 'profile')} in the last minute: please wait a little"
            return TableError("too-many-profiles", why, 429, args={"n": n})
        return self.limiter.hold(Rule("profiles", n), who, refuse)

    def event_limit(self, kind: str, table: Table,
                    conn: Connection) -> contextlib.AbstractAsyncContextManager[None]:
        """Counts a chat message or rematch step of ``conn``'s person and address, on any socket or table.

        The person: the profile its hello proved, else its seat at this table (a seat's token outlives
        a socket); a watcher without a profile is counted by address only.
        """
        n = self.config.chat_per_minute if kind == "chat" else self.config.rematch_per_minute
        seat = f"s:{table.id}:{conn.seat}" if conn.seat is not None else None
        who = Who(conn.ws.address, conn.person or seat)

        def refuse(wait: int) -> TableError:
            if kind == "chat":
                return TableError("chat-too-fast", f"at most {n} messages a minute from one person or "
                                  f"address: wait {wait} s", 429, args={"n": n, "seconds": wait})
            return TableError("rematch-too-fast", f"at most {n} rematch answers a minute from one person or "
                              f"address: wait {wait} s", 429, args={"n": n, "seconds": wait})
        return self.limiter.hold(Rule(kind, n), who, refuse)

    async def count_read(self, request: Request) -> None:
        """TableError (429) past the costly reads (timelines, PDFs) one person or address may ask for."""
        n = self.config.reads_per_minute

        def refuse(wait: int) -> TableError:
            return TableError("too-many-reads", f"at most {n} replays and prints a minute from one person or "
                              f"address: wait {wait} s", 429, args={"n": n, "seconds": wait})
        await self.limiter.take(Rule("reads", n), who_of(self, request), refuse)

    @property
    def sheets(self) -> SheetBook:
        assert self.book is not None, "the server is not open"
        return self.book

    async def create_sheet(self, doc: dict[str, Any], who: Who) -> Sheet:
        """A new score sheet, within the per-client limit, stored before its link is given."""
        n = self.config.sheets_per_minute

        def refuse(wait: int) -> TableError:
            why = f"you have started {plural(n, 'score sheet')} in the last minute: please wait a little"
            return TableError("too-many-sheets", why if n else "this server starts no score sheets", 429,
                              args={"n": n})
        async with self.limiter.hold(Rule("sheets", n), who, refuse):
            sheet, batch = self.sheets.plan_create(doc)
            await self._store_sheet(sheet.id, batch)
        self.sheets.add(sheet)
        return sheet

    async def change_sheet(self, sheet: Sheet, entry: str, op: dict[str, Any]) -> bool:
        """Make a sheet's change once stored; False when this entry was already made (a resend).

        The sheet's lock keeps its changes in order, each planned on the document the one
        before it left; a refused or unstorable change leaves the sheet as it was.
        """
        async with self.locks.setdefault("sheet:" + sheet.id, asyncio.Lock()):
            if self.store is not None and self.store.sheet_entry(sheet.id, entry) is not None:
                return False
            doc = sheet.plan(op)
            await self._store_sheet(sheet.id, sheet.batch(doc, entry, op))
            sheet.apply(doc)
        return True

    async def _store_sheet(self, sheet_id: str, batch: SheetBatch) -> None:
        try:
            await self.store_batch(batch)
        except (sqlite3.Error, OSError) as e:
            raise storage_error("sheet " + sheet_id, e) from e

    async def _drive(self, table: Table) -> None:
        while self.drives(table) and (move := table.auto_move()) is not None:
            await asyncio.sleep(self.config.bot_delay)
            try:
                action = await self._decide(move)
                # Dropped if a person took the seat back, or anything else changed, meanwhile.
                await self.change(table, functools.partial(table.plan_auto, move, action))
            except TableError as e:
                if e.code != "storage":
                    raise
                await asyncio.sleep(self.config.retry_delay)  # the database may be back by then
            except Exception:
                log.exception("table %s: computer player at seat %d failed", table.id, move.seat)
                return
        self.kick(table)  # held for the people after a hand: wake up when the pause is over

    async def create(self, setup: Setup, who: Who) -> Table:
        """A new table, within the limits, stored before anyone hears of it."""
        n = self.config.tables_per_minute

        def refuse(wait: int) -> TableError:
            why = f"you have created {plural(n, 'table')} in the last minute: please wait a little"
            return TableError("too-many-tables", why if n else NO_NEW_TABLES, 429, args={"n": n})
        async with self.limiter.hold(Rule("tables", n), who, refuse):  # given back if it fails
            self.check_limits(setup)
            table, batch = self.tables.plan(setup)
            try:
                await self.store_batch(batch)
            except (sqlite3.Error, OSError) as e:
                if self.cluster is not None:  # the new id's lease, taken for a table that is not there
                    await self.cluster.abandon(batch)
                raise storage_error(table.id, e) from e
        self.tables.add(table)
        self.kick(table)
        if self.cluster is not None:  # in every process's lobby at once, not at the next sweep
            self._spawn(self.cluster.publish())
        return table

    def room_for(self, change: Change) -> Change:
        """A change that makes a rematch's table, unless the server is full (TableError, nothing stored)."""
        n = self.config.max_open_tables
        if change.batch.also and self.tables.open_tables() >= n:
            why = f"the server already has {plural(n, 'open table')}: please come back later"
            raise TableError("server-full", why if n else NO_NEW_TABLES, 429, args={"n": n})
        return change

    def check_limits(self, setup: Setup) -> None:
        """TableError (429) when this new table would go past a limit of the server as a whole."""
        c = self.config
        if self.tables.open_tables() >= c.max_open_tables:
            why = f"the server already has {plural(c.max_open_tables, 'open table')}: please come back later"
            raise TableError("server-full", why if c.max_open_tables else NO_NEW_TABLES, 429,
                             args={"n": c.max_open_tables})
        if any(s["kind"] == "human" for s in setup.seats):
            return
        if c.max_bot_tables <= 0:
            raise TableError("no-bot-tables", "this server does not run tables of computer players only", 403)
        if self.tables.open_tables(computers_only=True) >= c.max_bot_tables:
            running = "is" if c.max_bot_tables == 1 else "are"
            raise TableError("too-many-bot-tables", f"{plural(c.max_bot_tables, 'table')} of computer "
                             f"players only {running} already running: please come back later", 429,
                             args={"n": c.max_bot_tables})
        slow = sorted({s["level"] for s in setup.seats} - set(c.bot_table_levels))
        if slow:
            raise TableError("bot-level-refused", f"a table of computer players only may use the levels "
                             f"{', '.join(c.bot_table_levels) or '(none)'}, not {', '.join(slow)}", 403,
                             args={"allowed": ", ".join(c.bot_table_levels), "refused": ", ".join(slow)})


    async def _decide(self, move: AutoMove) -> int:
        """A computer player's action, decided away from the event loop.

        The quick levels answer in a worker thread. The searching ones (``pimc``, ``strong``,
        ``expert``) think for up to a second or so, which in a thread would hold the interpreter
        lock that every table shares: they get a worker process, with a seed drawn from the seat's
        own bot so that its play stays reproducible.
        """
        bot = move.bot
        if bot is None or not bot.searches:
            return await asyncio.to_thread(move.decide)
        if self.pool is None:
            workers = max(1, min(4, os.cpu_count() or 1))
            self.pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
        seed = bot.rng.getrandbits(64)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.pool, decide_elsewhere, bot.name, seed, move.obs)


def decide_elsewhere(level: str, seed: int, obs: Observation) -> int:
    """A fresh bot's action for ``obs``, in a worker process (module level: it is pickled by name)."""
    return make_bot(level, seed).act(obs)


# -- HTTP ----------------------------------------------------------------------------

def client_of(conn: Request | WebSocket) -> str:
    """Who is asking, for the per-client limits: the IP address (as uvicorn's proxy settings give it)."""
    return conn.client.host if conn.client is not None else "?"


def who_of(server: Server, request: Request) -> Who:
    """Who asks, for the limits: the address, and the person (the profile it proves, else the page's id)."""
    person = None
    credential = request.headers.get(PROFILE_HEADER)
    if credential:
        with contextlib.suppress(TableError):  # a wrong profile is refused where it matters, not here
            person = "p:" + server.profiles.authenticate(credential).id
    return Who(client_of(request), person or client_id(request.headers.get(CLIENT_HEADER)))


def _ruleset_of(request: Request) -> str:
    ruleset = str(request.path_params["ruleset"])
    if ruleset not in RULESETS:
        raise TableError("no-such-rules", "there are two rule sets: classic and family", 404)
    return ruleset


def _error(e: TableError) -> JSONResponse:
    log.info("refused (%d %s): %s", e.status, e.code, e.message)
    return JSONResponse(e.body(), status_code=e.status)


async def _json_body(request: Request) -> Any:
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise TableError("too-large", f"a request body is at most {MAX_BODY} bytes", 413)
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise TableError("too-large", f"a request body is at most {MAX_BODY} bytes", 413)
    return parse_json(body, "the request body")


Handler = Callable[[Request], Awaitable[Response]]


def _refusals(fn: Handler) -> Handler:
    async def wrapped(request: Request) -> Response:
        try:
            return await fn(request)
        except TableError as e:
            return _error(e)
    return wrapped


def build_app(config: Config) -> Starlette:
    """The whole web application for one database."""
    server = Server(config)
    if config.bus is not None:
        from barbu.web.cluster.relay import Cluster  # redis-py is needed only by a group of processes

        server.cluster = Cluster(server, config.bus)
        server.limiter = Limiter(RedisCounters(server.cluster.bus.redis))  # one count for the group
    # With several processes a job's id names the one running it, where its progress is asked for.
    prefix = server.cluster.job_prefix if server.cluster is not None else ""
    analyses = Analyses(config.max_analyses, config.analysis_budget, config.analysis_seconds, prefix=prefix,
                        queued=config.analysis_queue)

    def owners(request: Request) -> frozenset[str]:
        who = who_of(server, request)
        return frozenset(who.keys(Rule("analysis", 1)))
    gates = Gates(server.heavy, server.count_read, owners)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        server.open()
        if server.cluster is not None:
            await server.cluster.start()
        log.info("serving tables from %s", server.store.path if server.store else config.db_path)
        try:
            yield
        finally:
            analyses.close()
            await server.close()

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def info(request: Request) -> Response:
        return JSONResponse({"levels": levels(), "default_level": default_level(),
                             "options": [{"id": o, "help": OPTION_HELP.get(o, "")} for o in CLASSIC_OPTIONS]})

    async def list_tables(request: Request) -> Response:
        if server.cluster is not None:
            return JSONResponse({"tables": await server.cluster.listing()})
        return JSONResponse({"tables": server.tables.listing()})

    async def create_table(request: Request) -> Response:
        setup = Setup.parse(await _json_body(request))
        setup.player = server.profiles.optional(secret_header(request, PROFILE_HEADER))
        setup.client = client_key(request.headers.get(CLIENT_HEADER))
        if setup.seed is not None and sum(s["kind"] == "human" for s in setup.seats) > 1:
            raise TableError("bad-setup", "a chosen seed tells whoever chose it every hand: it is only "
                             "for a game of one person against computer players", args={"variant": "seed"})
        table = await server.create(setup, who_of(server, request))
        links = {s: {"seat": s, "token": t, "link": f"/table/{table.id}#t={t}"} for s, t in table.tokens()}
        mine = links.get(table.creator)  # the creator's seat, named or still to be taken with its link
        return JSONResponse({"id": table.id, "seats": list(links.values()), "you": mine}, status_code=201)

    async def table_info(request: Request) -> Response:
        table = server.tables.get(request.path_params["table_id"])
        return JSONResponse({"table": table.meta(), "summary": table.summary()})

    async def join_table(request: Request) -> Response:
        table = server.tables.get(request.path_params["table_id"])
        body = await _json_body(request)
        name = body.get("name") if isinstance(body, dict) else None
        player = server.profiles.optional(secret_header(request, PROFILE_HEADER))
        browser = client_key(request.headers.get(CLIENT_HEADER))
        seat, token = -1, ""

        def plan() -> Change:
            nonlocal seat, token
            change, seat, token = table.plan_join(name, player, browser)
            return change
        await server.change(table, plan)
        return JSONResponse({"seat": seat, "token": token, "link": f"/table/{table.id}#t={token}"})

    async def tie_seat(request: Request) -> Response:
        """A guest's seat (its token) tied to the profile of the request: rated and listed for it."""
        table = server.tables.get(request.path_params["table_id"])
        player = server.profiles.authenticate(secret_header(request, PROFILE_HEADER))
        token = secret_header(request, TOKEN_HEADER)
        seat = -1

        def plan() -> Change:
            nonlocal seat
            change, seat = table.plan_tie(token, player)
            return change
        await server.change(table, plan)
        return JSONResponse({"seat": seat, "table": table.meta()["seats"][seat]})

    async def record(request: Request) -> Response:
        table = server.tables.get(request.path_params["table_id"])
        if "token" in request.query_params:  # a secret in a URL ends up in logs and histories
            raise TableError("secret-in-url", f"send the seat's token in the {TOKEN_HEADER} header, not in "
                             "the address")
        token = secret_header(request, TOKEN_HEADER)
        seat = None
        if token:
            seat = table.seat_of_token(token)
            if seat is None:
                raise TableError("bad-token", "this token gives no seat at this table", 403,
                                 args={"variant": "record"})
        body = json.dumps(table.public_record(seat), indent=1, ensure_ascii=False)
        return Response(body + "\n", media_type="application/json", headers={
            "Content-Disposition": f'attachment; filename="barbu-{table.id}.json"'})

    async def ws_endpoint(ws: WebSocket) -> None:
        await _serve_socket(server, ws)

    async def score_page(request: Request) -> Response:
        return FileResponse(STATIC / "score.html", headers={"Cache-Control": "no-cache"})

    async def rules_page(request: Request) -> Response:
        _ruleset_of(request)
        return FileResponse(STATIC / "rules.html", headers={"Cache-Control": "no-cache"})

    async def rules_api(request: Request) -> Response:
        return JSONResponse(rules_info(_ruleset_of(request)))

    async def replay_page(request: Request) -> Response:
        return FileResponse(STATIC / "replay.html", headers={"Cache-Control": "no-cache"})

    routes = [
        Route("/", page),
        Route("/table/{table_id}", page),
        Route("/api/info", info),
        Route("/api/tables", _refusals(list_tables), methods=["GET"]),
        Route("/api/tables", _refusals(create_table), methods=["POST"]),
        Route("/api/tables/{table_id}", _refusals(table_info)),
        Route("/api/tables/{table_id}/join", _refusals(join_table), methods=["POST"]),
        Route("/api/tables/{table_id}/tie", _refusals(tie_seat), methods=["POST"]),
        Route("/api/tables/{table_id}/record", _refusals(record)),
        WebSocketRoute("/ws/{table_id}", ws_endpoint),
        Route("/profile", page),
        *profile_routes(server),
        Route("/score", score_page),
        Route("/score/{sheet_id}", score_page),
        Route("/rules/{ruleset}", _refusals(rules_page)),
        Route("/api/rules/{ruleset}", _refusals(rules_api)),
        *sheet_routes(server),
        Route("/replay", replay_page),
        Route("/replay/{table_id}", replay_page),
        *replay_routes(lambda: server.tables, analyses, _refusals, gates),
        *ladder_routes(server),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan, middleware=[Middleware(Guard)],
                    exception_handlers={HTTPException: http_refusal})
    app.state.server = server
    app.state.analyses = analyses
    return app


# -- WebSocket -----------------------------------------------------------------------

async def _serve_socket(server: Server, ws: WebSocket) -> None:
    await ws.accept()
    who = client_of(ws)
    if server.sockets[who] >= server.config.sockets_per_client:
        most = plural(server.config.sockets_per_client, "connection")
        await _refuse(ws, TableError("too-many-sockets", f"at most {most} at once from one address", 429,
                                     args={"n": server.config.sockets_per_client}),
                      CLOSE_TOO_MANY)
        return
    server.sockets[who] += 1
    try:
        if server.cluster is not None:
            try:
                await server.cluster.serve_socket(ws, str(ws.path_params["table_id"]))
            except Exception as e:  # Redis out of reach, say: the page is told, and connects again
                from barbu.web.cluster.relay import CLOSE_RESTART

                await _refuse(ws, refusal_of(e), CLOSE_RESTART)
            return
        try:
            table = server.tables.get(ws.path_params["table_id"])
        except TableError as e:
            await _refuse(ws, e, CLOSE_NO_TABLE)
            return
        await _serve_table(server, table, SocketPort(ws))
    finally:
        server.sockets[who] -= 1
        if not server.sockets[who]:
            del server.sockets[who]


async def _refuse(ws: WebSocket, e: TableError, code: int) -> None:
    log.info("websocket refused: %s", e.message)
    with contextlib.suppress(Exception):
        await ws.send_text(json.dumps(e.event()))
        await ws.close(code)


async def _serve_table(server: Server, table: Table, ws: Port) -> None:
    """Read one reader's messages and answer them until it goes (the same for a relayed reader)."""
    conn = Connection(ws)
    pump = asyncio.get_running_loop().create_task(conn.pump())
    attached = False
    close_code = 1000
    deadline = time.monotonic() + server.config.hello_timeout
    try:
        while True:
            try:
                # A new socket must say hello in time (see _handle for the refused one that counts).
                text = await ws.receive(None if conn.greeted else deadline - time.monotonic())
            except TimeoutError:
                conn.send_text(json.dumps(TableError("hello-timeout", "no hello came in "
                               f"{server.config.hello_timeout:g} s: closing",
                               args={"seconds": f"{server.config.hello_timeout:g}"}).event()))
                close_code = CLOSE_NO_HELLO
                break
            if text is None:
                break
            try:
                attached = await _handle(server, table, conn, text, attached)
            except TableError as e:
                log.info("table %s seat %s: refused %s: %s", table.id, conn.seat, e.code, e.message)
                conn.send_text(json.dumps(e.event()))
                if e.code == "bad-token":
                    close_code = CLOSE_BAD_TOKEN
                    break
            except Exception as e:  # a bug or an outage: said to this reader, whose socket stays open
                conn.send_text(json.dumps(refusal_of(e).event()))
    finally:
        if attached:
            table.detach(conn)
            server.kick(table)  # the computers no longer wait for a person who left
        conn.queue.put_nowait(None)
        with contextlib.suppress(Exception):
            await pump
    if not conn.overflowed:
        with contextlib.suppress(Exception):
            await ws.close(close_code)


async def _receive(ws: WebSocket, within: float | None = None) -> str | None:
    """The next text message, or None once the client has gone; TimeoutError after ``within`` s."""
    try:
        message = await asyncio.wait_for(ws.receive(), within)
    except WebSocketDisconnect:
        return None
    if message["type"] == "websocket.disconnect":
        return None
    text = message.get("text")
    if text is None:
        data = message.get("bytes") or b""
        try:
            text = data.decode()
        except UnicodeDecodeError:
            text = "\x00"  # not JSON: answered as such
    return str(text)


async def _handle(server: Server, table: Table, conn: Connection, text: str, attached: bool) -> bool:
    """Answer one client message; returns whether the client is attached to the table."""
    if len(text.encode()) > MAX_MESSAGE:
        raise TableError("too-large", f"a message is at most {MAX_MESSAGE} bytes")
    msg = parse_json(text, "a message")
    if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
        raise TableError("bad-message", "a message is a JSON object with a \"type\"")
    kind = msg["type"]
    if kind == "ping":
        conn.send_text(json.dumps({"type": "pong"}))
        return attached
    if kind == "hello":
        if attached:
            raise TableError("already-joined", "you are already at this table")
        try:
            player = server.profiles.optional(msg.get("profile"))
            browser = client_key(msg.get("client"))
            await server.change(table, lambda: table.plan_attach(conn, msg.get("token"), msg.get("name"),
                                                                 msg.get("pace", False), player, browser))
        except TableError as e:
            # A refused hello does not count, but for one: its token opens a free seat and only the
            # name is missing, so a person holding the invitation is typing it at the page's prompt.
            conn.greeted = conn.greeted or e.code == "name-required"
            raise
        conn.greeted = True
        conn.person = "p:" + player.id if player is not None else None
        server.kick(table)  # a seat taken on its turn starts its turn clock
        return True
    if kind not in ("act", "takeover", "reclaim", "sync", "ready", "chat", "invites", "reissue", "rematch",
                    "start"):
        raise TableError("unknown-type", f"unknown message type {kind[:40]!r}")
    if not attached:
        raise TableError("hello-first", "say hello (with your seat's token, or none to watch) first")
    if kind == "act":
        await server.change(table, lambda: table.plan_act(conn, msg.get("action")))
    elif kind == "takeover":
        await server.change(table, lambda: table.plan_takeover(conn, msg.get("seat"), msg.get("level")))
    elif kind == "reclaim":
        await server.change(table, lambda: table.plan_reclaim(conn))
    elif kind == "ready":
        await server.change(table, lambda: table.plan_ready(conn, msg.get("hand")))
    elif kind == "chat":
        async with server.event_limit("chat", table, conn):
            await server.change(table, lambda: table.plan_chat(conn, msg.get("text")))
        return True  # a message moves no player: nothing for the computers to do
    elif kind == "invites":  # the creator's: the links of the free seats, to copy or send again
        await server.change(table, lambda: table.plan_invites(conn))
    elif kind == "reissue":
        await server.change(table, lambda: table.plan_reissue(conn, msg.get("seat")))
    elif kind == "start":  # the creator's: the invited seats nobody took become computers', and it deals
        await server.change(table, lambda: table.plan_start(conn, msg.get("level")))
    elif kind == "rematch":
        op = msg.get("op")
        async with server.event_limit("rematch", table, conn):
            await server.change(table, lambda: server.room_for(table.plan_rematch(conn, op, server.tables)))
        if table.rematch.table is not None:  # its computers may have the first move
            server.kick(server.tables.get(table.rematch.table))
        return True
    else:
        table.send(conn, table.sheet_event())
        table.send(conn, table.state_event(conn.seat))
    server.kick(table)
    return True


# -- the score keeper's sheets ----------------------------------------------------------------

def sheet_routes(server: Server) -> list[Route]:
    """The HTTP API of the score keeper (``/api/sheets``): small JSON, refusals as 4xx with a field."""

    def sheet_of(request: Request, *, write: bool) -> tuple[Sheet, bool]:
        sheet = server.sheets.get(request.path_params["sheet_id"])
        token = secret_header(request, TOKEN_HEADER)
        if token and not sheet.may_write(token):
            raise TableError("bad-token", "this link's secret does not open this sheet for writing", 403,
                             args={"variant": "sheet"})
        if write and not token:
            raise TableError("read-only", "this link only shows the sheet: open the link with its secret "
                             "(#k=…) to enter hands", 403)
        return sheet, bool(token)

    async def create(request: Request) -> Response:
        doc = sheetmod.parse_setup(await _json_body(request))
        sheet = await server.create_sheet(doc, who_of(server, request))
        link = f"/score/{sheet.id}#k={sheet.token}"
        return JSONResponse({"id": sheet.id, "token": sheet.token, "link": link,
                             "view": sheetmod.view(sheet, True)}, status_code=201)

    async def show(request: Request) -> Response:
        sheet, writable = sheet_of(request, write=False)
        return JSONResponse(sheetmod.view(sheet, writable))

    async def check(request: Request) -> Response:
        sheet, _ = sheet_of(request, write=False)
        body = await _json_body(request)
        if not isinstance(body, dict):
            raise TableError("bad-hand", "a check is a JSON object with the \"data\" of a hand")
        return JSONResponse(sheet.check(body.get("hand"), body.get("data")))

    async def change(request: Request, kind: str, k: object, body: Any) -> Response:
        sheet, _ = sheet_of(request, write=True)
        entry, op = sheetmod.parse_op(kind, k, body)
        made = await server.change_sheet(sheet, entry, op)
        return JSONResponse({**sheetmod.view(sheet, True), "repeat": not made})

    async def add(request: Request) -> Response:
        body = await _json_body(request)
        return await change(request, "add", body.get("hand") if isinstance(body, dict) else None, body)

    async def edit(request: Request) -> Response:
        return await change(request, "edit", request.path_params["k"], await _json_body(request))

    async def undo(request: Request) -> Response:
        body = await _json_body(request)
        return await change(request, "undo", body.get("hand") if isinstance(body, dict) else None, body)

    async def hand_frame(request: Request) -> Response:
        sheet, _ = sheet_of(request, write=False)
        return JSONResponse(sheet.frame_at(request.path_params["k"]))

    async def export(request: Request) -> Response:
        sheet, _ = sheet_of(request, write=False)
        kind = request.path_params["kind"]
        if kind not in ("json", "csv", "pdf"):
            raise TableError("not-found", "a sheet's exports are json, csv and pdf", 404)
        name = f"barbu-sheet-{sheet.id}.{kind}"
        disposition = {"Content-Disposition": f'attachment; filename="{name}"'}
        if kind == "json":
            body = json.dumps(sheet.doc, indent=1, ensure_ascii=False) + "\n"
            return Response(body, media_type="application/json", headers=disposition)
        w = words(request.query_params.get("lang"))  # the reader's language; English if unknown
        if kind == "csv":
            return Response(sheetmod.csv_text(sheet, w), media_type="text/csv; charset=utf-8",
                            headers=disposition)
        await server.count_read(request)
        key = f"pdf:{sheet.id}:{sheet.version}:{w.lang}"  # a sheet's version changes with each hand
        _, pdf = await server.heavy.answer(key, sheetmod.pdf_answer, sheet.id, sheet.doc, sheet.version,
                                           w.lang)
        return Response(pdf, media_type="application/pdf", headers=disposition)

    return [
        Route("/api/sheets", _refusals(create), methods=["POST"]),
        Route("/api/sheets/{sheet_id}", _refusals(show), methods=["GET"]),
        Route("/api/sheets/{sheet_id}/check", _refusals(check), methods=["POST"]),
        Route("/api/sheets/{sheet_id}/hands", _refusals(add), methods=["POST"]),
        Route("/api/sheets/{sheet_id}/hands/{k:int}", _refusals(edit), methods=["PUT"]),
        Route("/api/sheets/{sheet_id}/hands/{k:int}", _refusals(hand_frame), methods=["GET"]),
        Route("/api/sheets/{sheet_id}/undo", _refusals(undo), methods=["POST"]),
        Route("/api/sheets/{sheet_id}/{kind:str}", _refusals(export), methods=["GET"]),
    ]


# -- player profiles and "your tables" ----------------------------------------------------------



def ladder_routes(server: Server) -> list[Route]:
    """The leaderboards and the players' pages (``/leaderboard``, ``/player/NAME``) and their API."""

    async def ladder_page(request: Request) -> Response:
        return FileResponse(STATIC / "leaderboard.html", headers={"Cache-Control": "no-cache"})

    async def board(request: Request) -> Response:
        top = ladder.top_of(request.query_params.get("top"))
        return JSONResponse(ladder.leaderboard(server.profiles.store, _ruleset_of(request), top))

    async def player(request: Request) -> Response:
        # Stored names are cleaned (one space between words): another spelling of one finds it too.
        key = name_key(" ".join(str(request.path_params["name"]).split()))
        return JSONResponse(ladder.player_page(server.profiles.store, key))

    return [
        Route("/leaderboard", ladder_page),
        Route("/player/{name:path}", ladder_page),  # a name may hold a slash
        Route("/api/leaderboard/{ruleset}", _refusals(board), methods=["GET"]),
        Route("/api/players/{name:path}", _refusals(player), methods=["GET"]),
    ]


def profile_routes(server: Server) -> list[Route]:
    """The HTTP API of the profiles (``/api/players``, ``/api/me``…) and of a person's own tables."""

    def me(request: Request) -> PlayerRow:
        return server.profiles.authenticate(secret_header(request, PROFILE_HEADER))

    async def seen(request: Request) -> tuple[PlayerRow, str]:
        """The profile asking and its device's key hash, the device noted as seen now."""
        row, key_hash = server.profiles.identify(secret_header(request, PROFILE_HEADER))
        batch = server.profiles.plan_seen(row, key_hash)
        if batch is not None:
            await server.store_player(batch)
        return row, key_hash

    def signed(row: PlayerRow, secret: str, status: int = 200) -> JSONResponse:
        """A device's new way in: shown once, kept by the browser, never stored by the server."""
        return JSONResponse({"profile": public(row), "credential": f"{row.id}:{secret}"}, status_code=status)

    async def create(request: Request) -> Response:
        body = await _json_body(request)
        name = body.get("name") if isinstance(body, dict) else None
        async with server.profile_limit(who_of(server, request)):
            player_id, secret, batch = server.profiles.plan_create(name)
            await server.store_player(batch)
        row = server.profiles.store.load_player(player_id)
        assert row is not None
        return signed(row, secret, 201)

    async def show(request: Request) -> Response:
        return JSONResponse({"profile": public((await seen(request))[0])})

    async def transfer(request: Request) -> Response:
        code, until, batch = server.profiles.plan_transfer(me(request))
        await server.store_player(batch)
        return JSONResponse({"code": code, "link": f"/profile#code={code}", "expires": until,
                             "seconds": server.profiles.policy.transfer_seconds})

    async def claim(request: Request) -> Response:
        body = await _json_body(request)
        row, secret, batch = server.profiles.plan_claim(body.get("code") if isinstance(body, dict) else None)
        await server.store_player(batch)
        return signed(row, secret)

    async def password(request: Request) -> Response:
        row, key_hash = server.profiles.identify(secret_header(request, PROFILE_HEADER))
        body = await _json_body(request)
        if not isinstance(body, dict) or "password" not in body:
            raise TableError("bad-password", "send {\"password\": TEXT} (or null to remove it), with "
                             "{\"current\": TEXT} when the profile has one",
                             args={"min": 8, "max": 128})
        batch = await asyncio.to_thread(server.profiles.plan_password, row, body["password"], key_hash,
                                        body.get("current"), client_of(request))
        await server.store_player(batch)
        return JSONResponse({"profile": public(me(request))})

    async def signin(request: Request) -> Response:
        body = await _json_body(request)
        if not isinstance(body, dict):
            raise TableError("bad-signin", "this name and password do not match a profile", 403)
        row, secret, batch = await asyncio.to_thread(server.profiles.plan_signin, body.get("name"),
                                                     body.get("password"), client_of(request),
                                                     secret_header(request, PROFILE_HEADER))
        await server.store_player(batch)
        return signed(row, secret)

    async def devices(request: Request) -> Response:
        row, key_hash = await seen(request)
        return JSONResponse({"devices": server.profiles.devices(row, key_hash)})

    async def revoke(request: Request) -> Response:
        row = me(request)
        await server.store_player(server.profiles.plan_revoke(row, request.path_params["device"]))
        return Response(status_code=204)

    async def others(request: Request) -> Response:
        row, key_hash = server.profiles.identify(secret_header(request, PROFILE_HEADER))
        await server.store_player(server.profiles.plan_sign_out_others(row, key_hash))
        return JSONResponse({"devices": server.profiles.devices(row, key_hash)})

    async def mine(request: Request) -> Response:
        body = await _json_body(request)
        asked = secret_header(request, PROFILE_HEADER)
        player = None if asked is None else (await seen(request))[0]  # the lobby's visit
        held = body.get("seats") if isinstance(body, dict) else "?"
        return JSONResponse({"tables": server.tables.yours(player, held)})

    return [
        Route("/api/players", _refusals(create), methods=["POST"]),
        Route("/api/players/claim", _refusals(claim), methods=["POST"]),
        Route("/api/signin", _refusals(signin), methods=["POST"]),
        Route("/api/me", _refusals(show), methods=["GET"]),
        Route("/api/me/transfer", _refusals(transfer), methods=["POST"]),
        Route("/api/me/password", _refusals(password), methods=["POST"]),
        Route("/api/me/devices", _refusals(devices), methods=["GET"]),
        Route("/api/me/devices/others", _refusals(others), methods=["DELETE"]),
        Route("/api/me/devices/{device}", _refusals(revoke), methods=["DELETE"]),
        Route("/api/mine", _refusals(mine), methods=["POST"]),
    ]
