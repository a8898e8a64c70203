"""The tables one process of a group drives: leasing and loading them, guarding their writes, taking over.

A table no process drives is leased (see :mod:`barbu.web.cluster.bus`) and loaded from the store by the
first process that needs it; every second each process takes its share of the unfinished tables that no
live process drives, so that they play on. A table whose lease is lost is dropped, its readers told to
connect again (they land on the new owner).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any

from barbu.web.cluster.bus import Bus
from barbu.web.cluster.ports import Host
from barbu.web.core.errors import TableError
from barbu.web.core.names import valid_id
from barbu.web.core.rows import Batch, PlayerBatch, SheetBatch
from barbu.web.tables.lobby import Lobby
from barbu.web.tables.parts import storage_error
from barbu.web.tables.table import Table

log = logging.getLogger("barbu.web.cluster.relay")

CLOSE_RESTART = 1012  # the WebSocket close code "service restart": the page connects again

Spawn = Callable[[Awaitable[Any]], None]  # run a task the process keeps until it is done


class LeaseLost(OSError):
    """A write refused because this process no longer holds the table's lease (treated as a failed write)."""


class ClusterLobby(Lobby):
    """The tables this process drives; any other table is read from the store when asked, and not kept.

    A table read that way is exact (everything acknowledged is stored) but only for reading: a
    change planned on it is refused by the lease check before it reaches the store.
    """

    def get(self, table_id: str) -> Table:
        table = self.tables.get(table_id)
        if table is None and valid_id(table_id):
            table = Table.load(self.store, table_id, idle_seconds=self.idle_seconds, wall=self.wall)
        if table is None:
            raise TableError("no-table", f"there is no table {table_id[:40]!r}", 404)
        return table

    def take(self, table_id: str) -> Table | None:
        """Load a table to drive it (its lease is held), expecting its next event after the last replayed."""
        table = self._load(table_id)
        if table is not None:
            self.store.expect_seq(table_id, table.last_seq + 1)
        return table


def close_readers(table: Table, spawn: Spawn) -> None:
    """Close (1012) every reader at a table: each connects again, to whichever process drives it then."""
    for client in list(table.clients):
        port = getattr(client, "ws", None)
        if port is not None:
            spawn(port.close(CLOSE_RESTART))


def no_table(table_id: str) -> TableError:
    return TableError("no-table", f"there is no table {table_id[:40]!r}", 404)


class Leases:
    """The leases this process holds, the tables it drives under them, and the takeover of orphans."""

    def __init__(self, server: Host, bus: Bus, spawn: Spawn) -> None:
        self.server, self.bus, self.spawn = server, bus, spawn
        self.loading: dict[str, asyncio.Future[Table | None]] = {}  # tables being loaded, by id

    @property
    def lobby(self) -> ClusterLobby:
        lobby = self.server.tables
        assert isinstance(lobby, ClusterLobby)
        return lobby

    def drives(self, table_id: str) -> bool:
        return table_id in self.lobby.tables and self.bus.holds(table_id)

    def current(self, table: Table) -> bool:
        """Whether we drive this very copy of the table (an older copy, loaded before a lapse, is dead)."""
        return self.lobby.tables.get(table.id) is table and self.bus.holds(table.id)

    # -- placing a table -------------------------------------------------------------------

    async def place(self, table_id: str) -> str | None:
        """Where a table is driven: None for here (leased and loaded now if no one drove it), else
        the owner's process id; TableError ``no-table`` if there is no such table."""
        for _ in range(int(2 * self.bus.lease_ms / 1000 / 0.25)):
            if self.drives(table_id) or await self.take(table_id) is not None:
                return None
            owner = await self.bus.owner(table_id)
            if owner is not None and owner != self.bus.proc and await self.bus.alive(owner):
                return owner
            await asyncio.sleep(0.25)  # a dead owner's lease expires within seconds
        if valid_id(table_id) and self.lobby.store.load_setup(table_id) is not None:
            raise storage_error(table_id, TimeoutError("no process could take the table's lease"))
        raise no_table(table_id)

    async def take(self, table_id: str) -> Table | None:
        """Lease and load a table no process drives (None: another process holds it); TableError
        ``no-table`` if there is no such table. Loaded in a thread: a long replay keeps the loop going."""
        pending = self.loading.get(table_id)
        if pending is not None:  # already being loaded here: the same table, not a second copy
            return await asyncio.shield(pending)
        if self.drives(table_id):
            return self.lobby.tables[table_id]
        if not valid_id(table_id):
            raise no_table(table_id)
        future: asyncio.Future[Table | None] = asyncio.get_running_loop().create_future()
        self.loading[table_id] = future
        table: Table | None = None
        try:
            table = await self._lease_and_load(table_id)
            if table is not None:
                self.server.resume(table)
            return table
        finally:
            self.loading.pop(table_id, None)
            future.set_result(table)

    async def _lease_and_load(self, table_id: str) -> Table | None:
        """Lease and load a table (None: another process holds it); the lease given back if it fails."""
        if not await self.bus.acquire(table_id):
            return None
        self.drop(table_id)  # a copy kept from before our lease lapsed: its readers start afresh
        table: Table | None = None
        try:
            table = await asyncio.to_thread(self.lobby.take, table_id)
        finally:
            if table is None:
                await self.bus.release([table_id])
        if table is None:
            raise no_table(table_id)
        return table

    # -- guarding the writes -----------------------------------------------------------------

    def check_held(self, batch: Batch | SheetBatch | PlayerBatch) -> None:
        """Refuse (LeaseLost) a table's write whose lease may have lapsed by our own clock.

        Called in the writer thread just before the commit: a write queued behind a slow one may
        otherwise be stored after the lease lapsed and another process took the table.
        """
        if isinstance(batch, Batch):
            for b in (batch, *batch.also):
                if not self.bus.holds(b.table_id):
                    raise LeaseLost(f"this process no longer holds table {b.table_id}'s lease")

    async def guard(self, batch: Batch | SheetBatch | PlayerBatch) -> None:
        """Refuse (LeaseLost) a table's write unless we hold its lease; lease the new tables it makes."""
        if not isinstance(batch, Batch):
            return
        for b in (batch, *batch.also):
            if b.create is not None:
                if not await self.bus.acquire(b.table_id):
                    raise LeaseLost(f"table {b.table_id}'s new id is leased elsewhere")
            elif not self.bus.holds(b.table_id):
                raise LeaseLost(f"this process no longer holds table {b.table_id}'s lease")

    async def abandon(self, batch: Batch) -> None:
        """Give up the leases a refused write took for the tables it would have made (else kept for good)."""
        made = [b.table_id for b in (batch, *batch.also) if b.create is not None]
        with contextlib.suppress(Exception):
            await self.bus.release([t for t in made if t not in self.lobby.tables])

    # -- letting a table go ------------------------------------------------------------------

    def drop(self, table_id: str) -> None:
        """Stop driving a table whose lease we lost: its readers reconnect to the new owner."""
        table = self.lobby.tables.pop(table_id, None)
        if table is None:
            return
        log.warning("table %s: lease lost, handed over", table_id)
        task = self.server.drivers.pop(table_id, None)
        if task is not None:
            task.cancel()
        clock = self.server.clocks.pop(table_id, None)
        if clock is not None:
            clock.cancel()
        close_readers(table, self.spawn)

    def refused(self, table_id: str) -> None:
        """Give up a table whose write the database refused (another process wrote it behind our back).

        Our copy and our count of its events are stale, and every later write would be refused too:
        the table is dropped, its count forgotten and its lease released, so that the sweep (or the
        next reader) loads it afresh from the store, with the other writer's events.
        """
        log.warning("table %s: a write was refused by the database, loaded afresh", table_id)
        self.drop(table_id)
        self.lobby.store.forget(table_id)
        self.spawn(self.bus.release([table_id]))

    # -- keeping and taking over -------------------------------------------------------------

    async def renew(self) -> None:
        """Say we live and keep our leases: the lost ones are dropped, the kept tables play on."""
        await self.bus.heartbeat()
        for table_id in await self.bus.renew():
            self.drop(table_id)
        for table in list(self.lobby.tables.values()):  # renewed: play on where a lapse stopped us
            self.server.revive(table)

    async def take_orphans(self, recent: bool = False) -> None:
        """Lease some of the tables no live process drives: our share of them, so that the load spreads.

        Those are the unfinished tables (``recent``: and the finished ones the lobby still lists, as
        at a start). Each process takes about 1/N of them a second, at random: the takeover after a
        death is spread over the survivors, and a table is never taken twice (its lease).
        """
        ids = [t for t in await asyncio.to_thread(self._wanted, recent) if t not in self.lobby.tables]
        owners = await self.bus.owners(ids)
        orphans = [t for t, owner in zip(ids, owners, strict=True) if owner is None]
        if not orphans:
            return
        random.shuffle(orphans)
        share = math.ceil(len(orphans) / max(1, len(await self.bus.live_procs())))
        taken = 0
        for table_id in orphans[:share]:
            try:
                taken += await self.take(table_id) is not None
            except Exception:
                log.exception("table %s could not be taken over", table_id)
        if taken:
            log.info("took over %d table(s) no process drove", taken)

    def _wanted(self, recent: bool) -> list[str]:
        """The tables some process must drive: the unfinished ones (and those the lobby still lists)."""
        store = self.lobby.store
        if not recent:
            return store.table_ids(include_over=False)
        since = time.time() - self.lobby.limits.listed_after_over
        return [e.id for e in store.table_index() if not e.over or e.last_change >= since]
