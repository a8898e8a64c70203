"""One process of a group serving one site: it drives the tables it leases, relays the others to their owners.

A reader (WebSocket) or an HTTP request about a table may reach any process. The one that drives
the table (its owner, see :mod:`barbu.web.cluster.bus`) answers it as a single server would. Any other
process relays it: the socket's frames go to the owner on the owner's channel, the owner runs the
same table code with a :class:`RelayPort` standing in for the socket, and its frames come back on
the relaying process's channel; an HTTP request is run by the owner's own application and its
answer sent back whole. A table no process drives is leased and loaded from the store by the first
process that needs it, and every second each process takes some of the unfinished tables that no
live process drives (a process that died, or one that stopped), so that they play on.

A relayed socket whose owner goes is closed with 1012 (service restart): the page connects again,
and its new socket lands on the table's new owner.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import re
from collections.abc import Awaitable, Callable
from typing import Any

from barbu.web.cluster.bus import Bus
from barbu.web.cluster.leases import CLOSE_RESTART, ClusterLobby, LeaseLost, Leases, close_readers
from barbu.web.cluster.ports import Host, Port, Serve
from barbu.web.cluster.relaying import SWEEP_SECONDS, ASGIApp, Receive, Requests, Scope, Send, Sockets
from barbu.web.core.errors import TableError
from barbu.web.core.rows import Batch, PlayerBatch, SheetBatch
from barbu.web.sheets.sheet import Sheet, SheetBook
from barbu.web.tables.table import Table

# What the server builds a group's process with (the tables it drives, its writes' guard: leases.py).
__all__ = ["CLOSE_RESTART", "Cluster", "ClusterLobby", "FreshSheetBook", "LeaseLost"]

log = logging.getLogger("barbu.web.cluster.relay")

# The table's routes whose answer depends on the table's state in memory: answered by its owner.
TABLE_PATH = re.compile(r"^/api/tables/([A-Za-z0-9_-]{1,32})(/join|/record|/tie|/invite|/invitation)?$")
# An analysis runs in the process that started it: its progress is asked of that one.
JOB_PATH = re.compile(r"^/api/analysis/([0-9a-f]{6})\.[A-Za-z0-9_-]+$")


class FreshSheetBook(SheetBook):
    """Score sheets read from the store at each request: another process may have changed one since.

    Each change is stored only on top of the version it was planned on (the store's guard), so two
    processes changing one sheet at once store one change and refuse the other.
    """

    def get(self, sheet_id: str) -> Sheet:
        self.sheets.pop(sheet_id, None)
        return super().get(sheet_id)


class Cluster:
    """This process's part in the group: its leases (:class:`Leases`), its relays both ways
    (:class:`Sockets`, :class:`Requests`), and the two beats that keep them: renewal and takeover."""

    def __init__(self, server: Host, url: str, serve: Serve) -> None:
        self.server = server
        self.bus = Bus(url)
        self.tasks: set[asyncio.Task[Any]] = set()
        self.leases = Leases(server, self.bus, self._spawn)
        self.sockets = Sockets(self.bus, self.leases, serve, self._spawn)
        self.requests = Requests(self.bus)
        self._sweeper: asyncio.Task[None] | None = None
        self._beater: asyncio.Task[None] | None = None
        self.stopping = False  # the beats end at their next turn, even if their cancel was lost below

    @property
    def job_prefix(self) -> str:
        """The start of the ids of the analyses this process runs: its bus id's random part."""
        return self.bus.proc.rsplit("-", 1)[1] + "."

    async def job_owner(self, tag: str) -> str | None:
        """The live process whose analyses' ids start with ``tag`` (None: this one, or none)."""
        if self.job_prefix == tag + ".":
            return None
        return next((p for p in await self.bus.live_procs() if p.endswith("-" + tag)), None)

    @property
    def lobby(self) -> ClusterLobby:
        return self.leases.lobby

    async def start(self) -> None:
        await self.bus.start(self.on_message)
        await self.keep_alive()
        await self.leases.take_orphans(recent=True)
        loop = asyncio.get_running_loop()
        self._beater = loop.create_task(self._forever(self.keep_alive))
        self._sweeper = loop.create_task(self._forever(self.leases.take_orphans))

    async def stop(self) -> None:
        """Close our readers with 1012 so that they come back elsewhere; the leases stay (see leave)."""
        self.stopping = True
        beats = [task for task in (self._sweeper, self._beater) if task is not None]
        for task in beats:
            task.cancel()
        if beats:  # wait, not await: a cancel of stop() itself must not be taken for theirs
            await asyncio.wait(beats)
        for table in list(self.lobby.tables.values()):
            close_readers(table, self._spawn)
        self.sockets.close_all()
        await asyncio.sleep(0.05)  # the close frames go out before the leases do

    async def leave(self) -> None:
        """Give up the leases and leave the bus: only once our last write is stored, or it could land
        after another process took the table."""
        await self.bus.stop()

    def _spawn(self, work: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    # -- the leases, as the server asks of them (see Leases) --------------------------------------

    def current(self, table: Table) -> bool:
        """Whether we drive this very copy of the table (an older copy, loaded before a lapse, is dead)."""
        return self.leases.current(table)

    async def place(self, table_id: str) -> str | None:
        """Where a table is driven: None for here (leased and loaded now if no one drove it), else
        the owner's process id; TableError ``no-table`` if there is no such table."""
        return await self.leases.place(table_id)

    def check_held(self, batch: Batch | SheetBatch | PlayerBatch) -> None:
        """Refuse (LeaseLost) a write whose lease may have lapsed by our own clock (in the writer thread)."""
        self.leases.check_held(batch)

    async def guard(self, batch: Batch | SheetBatch | PlayerBatch) -> None:
        """Refuse (LeaseLost) a table's write unless we hold its lease; lease the new tables it makes."""
        await self.leases.guard(batch)

    async def abandon(self, batch: Batch) -> None:
        """Give up the leases a refused write took for the tables it would have made."""
        await self.leases.abandon(batch)

    def refused(self, table_id: str) -> None:
        """Give up a table whose write the database refused: loaded afresh from the store later."""
        self.leases.refused(table_id)

    # -- the beats ---------------------------------------------------------------------------

    async def _forever(self, work: Callable[[], Awaitable[None]]) -> None:
        """Do ``work`` about every second (not in step with the other processes) until stopped.

        Stopping cancels this task, but a cancel can be lost on its way up (an ``except Exception``
        meeting a cancel turned into a TimeoutError, or Python 3.11's wait_for returning a result that
        raced it): the task would then loop on for good and the shutdown wait for it. The flag ends it.
        """
        while not self.stopping:
            await asyncio.sleep(SWEEP_SECONDS * random.uniform(0.8, 1.2))
            if self.stopping:
                return
            try:
                await work()
            except Exception:
                log.exception("the cluster's %s failed (tried again in a second)", work.__name__)

    async def keep_alive(self) -> None:
        """Say we live, keep our leases (forgetting the lost ones), list our tables, drop dead relays.

        Its own task, apart from the takeovers: loading many tables at once must not let our leases lapse.
        """
        await self.leases.renew()
        await self.publish()
        self.sockets.close_dead(set(await self.bus.live_procs()))

    async def publish(self) -> None:
        await self.bus.publish_listing(self.lobby.listing())

    async def listing(self, limit: int = 50) -> list[dict[str, Any]]:
        """Every process's listed tables (ours as they are now), newest move first."""
        ours = {t["id"]: t for t in self.lobby.listing(limit)}
        theirs = [t for t in await self.bus.listings() if t["id"] not in ours and t["id"] not in
                  self.lobby.tables]
        return sorted([*ours.values(), *theirs], key=lambda t: -float(t.get("moved", 0)))[:limit]

    # -- relaying (see Sockets and Requests) ----------------------------------------------------

    async def on_message(self, msg: dict[str, Any]) -> None:
        op = msg.get("op")
        if op == "open":
            self.sockets.open_port(msg)
        elif op in ("text", "close"):
            self.sockets.frame(msg)
        elif op == "http":
            self._spawn(self.requests.answer(msg))
        elif op == "http-reply":
            self.requests.reply(msg)

    async def relay_socket(self, port: Port, owner: str, table_id: str) -> None:
        """A socket connected here whose table ``owner`` drives (see place): its frames go both ways."""
        await self.sockets.relay(port, owner, table_id)

    def router(self, app: ASGIApp) -> ASGIApp:
        """The application in front: a table's request goes to its owner unless we drive the table."""
        self.requests.app = app

        async def route(scope: Scope, receive: Receive, send: Send) -> None:
            path = scope.get("path", "") if scope["type"] == "http" else ""
            match, job = TABLE_PATH.match(path), JOB_PATH.match(path)
            owner = None
            if match is not None:
                with contextlib.suppress(TableError):  # no such table: the application says so
                    owner = await self.place(match[1])
            elif job is not None:
                owner = await self.job_owner(job[1])
            if owner is None:
                await app(scope, receive, send)
            else:
                await self.requests.forward(scope, receive, send, owner)
        return route
