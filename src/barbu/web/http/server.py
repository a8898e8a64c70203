"""The server's state: the lobby, the store and its one writer, the profiles and sheets, the limits."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from barbu.web.core.errors import TableError
from barbu.web.core.ports import TableStore
from barbu.web.core.rows import Batch, PlayerBatch, SheetBatch
from barbu.web.http.computers import Computers
from barbu.web.http.config import Config
from barbu.web.http.heavy import Heavy
from barbu.web.http.limits import Limiter, Rule, Who
from barbu.web.http.notices import Notices, notices_for
from barbu.web.http.notify import Pusher
from barbu.web.people.players import Policy, Profiles
from barbu.web.people.signin import ThrottlePolicy
from barbu.web.sheets.sheet import Sheet, SheetBook
from barbu.web.storage.sqlite import open_store
from barbu.web.tables.lobby import Lobby
from barbu.web.tables.parts import Change, storage_error
from barbu.web.tables.setup import Setup
from barbu.web.tables.table import Table
from barbu.wording import plural

if TYPE_CHECKING:
    from barbu.web.cluster.relay import Cluster

NO_NEW_TABLES = "this server creates no new tables"  # a limit of 0 (--tables-per-minute, --max-open-tables)


class Server:
    """The lobby, the store and its writer, the profiles and sheets; its computers play the tables on."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.store: TableStore | None = None
        self.lobby: Lobby | None = None
        self.computers = Computers(config, self.change, self.drives)
        # One thread writes the database, in the order the changes were asked for.
        self.writer: ThreadPoolExecutor | None = None
        self.locks: dict[str, asyncio.Lock] = {}  # one per table: its changes, one after another
        self.limiter = Limiter()  # what each person and address did lately (in Redis with --bus)
        self.sockets: Counter[str] = Counter()  # open WebSockets of each client
        self.book: SheetBook | None = None  # the score keeper's sheets
        self.people: Profiles | None = None  # the player profiles
        self.cluster: Cluster | None = None  # the group this process is one of (--bus), if any
        self.heavy = Heavy()  # the costly reads (timelines, PDFs), worked out in a process and kept
        self.pusher: Pusher | None = None  # Web Push, with --vapid-private-key
        self.notices: Notices | None = None  # push and mail told of turns, invitations and games' ends
        self.over_listeners: list[Callable[[str], None]] = []  # told a table's id once its game is over

    def open(self) -> None:
        self.store = open_store(self.config.db_path, timeout=self.config.db_timeout)
        self.writer = ThreadPoolExecutor(1, thread_name_prefix="barbu-db")
        c = self.config
        throttle = ThrottlePolicy(free=c.signin_failures, per_address=c.signin_per_client,
                                  window=c.signin_window)
        self.people = Profiles(self.store, Policy(throttle=throttle))
        self.open_push()
        if self.cluster is not None:  # the tables are leased by the cluster's sweep, not all loaded here
            from barbu.web.cluster.relay import ClusterLobby, FreshSheetBook

            self.lobby = ClusterLobby(self.store, idle_seconds=c.idle_seconds, limits=c.limits, wall=c.wall)
            self.book = FreshSheetBook(self.store)
            return
        self.lobby = Lobby(self.store, idle_seconds=c.idle_seconds, limits=c.limits, wall=c.wall)
        self.book = SheetBook(self.store)
        for table in self.lobby.load_all():
            self.resume(table)

    def open_push(self) -> None:
        """Web Push (a VAPID key) and e-mail (an SMTP server): turns and games' ends told to who is away,
        and the daily digest's rounds."""
        assert self.store is not None
        self.notices = notices_for(self.config, self.store, lambda t: self.tables.get(t), self.store_player)
        if self.notices is None:
            return
        self.notices.wall = self.config.wall
        self.pusher = self.notices.pusher
        self.computers.turn_listeners.append(self.notices.turn)
        self.over_listeners.append(self.notices.over)
        self.notices.start_digests(lambda p: self.tables.yours(p, []), self.config.digest_every)

    async def close(self) -> None:
        # Drivers and clocks stop, the writer drains, and only then do the leases go (the others
        # take our tables over at once): a queued write must not land after another took its table.
        if self.cluster is not None:
            await self.cluster.stop()
        await self.computers.stop()
        if self.notices is not None:
            self.notices.cancel()
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

    @property
    def drivers(self) -> dict[str, asyncio.Task[None]]:
        return self.computers.drivers

    @property
    def clocks(self) -> dict[str, asyncio.TimerHandle]:
        return self.computers.clocks

    def drives(self, table: Table) -> bool:
        """Whether this process plays this table on (with --bus, only the tables whose lease it holds)."""
        return self.cluster is None or self.cluster.current(table)

    def kick(self, table: Table) -> None:
        """Make sure computer players (and forced passes) get to act at this table."""
        self.computers.kick(table)

    def resume(self, table: Table) -> None:
        """A table loaded from the store (a restart, a takeover): a turn begun before was told by whoever
        drove the table then, not told again here; its computer players get to act."""
        self.computers.told[table.id] = table.moves
        self.kick(table)

    def revive(self, table: Table) -> None:
        """Kick a table whose computer players or turn clock stopped (see Computers.revive)."""
        self.computers.revive(table)

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
                if isinstance(change.batch, Batch):
                    change.batch.at = table.wall()  # a turn's deadline counts from it: the table's clock
                await self.store_batch(change.batch)
            except sqlite3.IntegrityError as e:
                if self.cluster is not None:  # another process wrote this table: ours is stale
                    self.cluster.refused(table.id)
                raise storage_error(table.id, e) from e
            except (sqlite3.Error, OSError) as e:
                if self.cluster is not None and change.batch:  # a rematch's new table is not there
                    await self.cluster.abandon(change.batch)
                raise storage_error(table.id, e) from e
            table.stored(change)
        if isinstance(change.batch, Batch) and change.batch.over:
            for listener in self.over_listeners:
                listener(table.id)
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
            self.computers.spawn(self.cluster.publish())
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
