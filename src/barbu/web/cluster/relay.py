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
import base64
import contextlib
import json
import logging
import math
import random
import re
import secrets
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from barbu.web.cluster.bus import Bus
from barbu.web.cluster.ports import Host, Port, Serve
from barbu.web.core.errors import TableError
from barbu.web.core.names import valid_id
from barbu.web.core.rows import Batch, PlayerBatch, SheetBatch
from barbu.web.sheets.sheet import Sheet, SheetBook
from barbu.web.tables.lobby import Lobby
from barbu.web.tables.parts import storage_error
from barbu.web.tables.table import Table

log = logging.getLogger("barbu.web.cluster.relay")

CLOSE_RESTART = 1012  # the WebSocket close code "service restart": the page connects again
SWEEP_SECONDS = 1.0
HTTP_TIMEOUT = 15.0  # seconds a relayed request waits for its owner's answer
# The table's routes whose answer depends on the table's state in memory: answered by its owner.
TABLE_PATH = re.compile(r"^/api/tables/([A-Za-z0-9_-]{1,32})(/join|/record|/tie)?$")
# An analysis runs in the process that started it: its progress is asked of that one.
JOB_PATH = re.compile(r"^/api/analysis/([0-9a-f]{6})\.[A-Za-z0-9_-]+$")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


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
            table = Table.load(self.store, table_id, idle_seconds=self.idle_seconds)
        if table is None:
            raise TableError("no-table", f"there is no table {table_id[:40]!r}", 404)
        return table

    def take(self, table_id: str) -> Table | None:
        """Load a table to drive it (its lease is held), expecting its next event after the last replayed."""
        table = self._load(table_id)
        if table is not None:
            self.store.expect_seq(table_id, table.last_seq + 1)
        return table


class FreshSheetBook(SheetBook):
    """Score sheets read from the store at each request: another process may have changed one since.

    Each change is stored only on top of the version it was planned on (the store's guard), so two
    processes changing one sheet at once store one change and refuse the other.
    """

    def get(self, sheet_id: str) -> Sheet:
        self.sheets.pop(sheet_id, None)
        return super().get(sheet_id)


class RelayPort:
    """A reader connected to another process, as the owner's table code sees it."""

    def __init__(self, bus: Bus, conn: str, relay: str, address: str = "?") -> None:
        self.bus, self.conn, self.relay = bus, conn, relay
        self.address = address  # the reader's, as the relaying process saw it: for the per-address limits
        self.inbox: asyncio.Queue[str | None] = asyncio.Queue()

    async def receive(self, within: float | None = None) -> str | None:
        return await asyncio.wait_for(self.inbox.get(), within)

    async def send_text(self, text: str) -> None:
        if not await self.bus.send(self.relay, {"op": "text", "conn": self.conn, "text": text}):
            self.inbox.put_nowait(None)  # the relaying process is gone, and its reader with it

    async def close(self, code: int) -> None:
        self.inbox.put_nowait(None)
        with contextlib.suppress(Exception):
            await self.bus.send(self.relay, {"op": "close", "conn": self.conn, "code": code})


@dataclass
class RelayEnd:
    """A socket connected here whose table another process drives."""

    owner: str
    table_id: str
    inbox: asyncio.Queue[dict[str, Any]] = field(default_factory=asyncio.Queue)


class Cluster:
    """This process's part in the group: leases, relays both ways, and the sweep that takes tables over."""

    def __init__(self, server: Host, url: str, serve: Serve) -> None:
        self.server = server
        self.serve = serve  # the server's way to answer a reader relayed to us, at a table we drive
        self.bus = Bus(url)
        self.app: ASGIApp | None = None  # the application the owner runs relayed requests through
        self.relays: dict[str, RelayEnd] = {}  # sockets connected here, by relay id
        self.ports: dict[str, RelayPort] = {}  # readers relayed to us, by relay id
        self.replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        self.loading: dict[str, asyncio.Future[Table | None]] = {}  # tables being loaded, by id
        self.generation = 0  # the bus's subscription our relays were made under
        self._sweeper: asyncio.Task[None] | None = None
        self._beater: asyncio.Task[None] | None = None

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
        lobby = self.server.tables
        assert isinstance(lobby, ClusterLobby)
        return lobby

    async def start(self) -> None:
        await self.bus.start(self.on_message)
        await self.keep_alive()
        await self.take_orphans(recent=True)
        loop = asyncio.get_running_loop()
        self._beater = loop.create_task(self._forever(self.keep_alive))
        self._sweeper = loop.create_task(self._forever(self.take_orphans))

    async def stop(self) -> None:
        """Close our readers with 1012 so that they come back elsewhere; the leases stay (see leave)."""
        for task in (self._sweeper, self._beater):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        for table in list(self.lobby.tables.values()):
            self._close_readers(table)
        for end in self.relays.values():
            end.inbox.put_nowait({"op": "close", "code": CLOSE_RESTART})
        await asyncio.sleep(0.05)  # the close frames go out before the leases do

    async def leave(self) -> None:
        """Give up the leases and leave the bus: only once our last write is stored, or it could land
        after another process took the table."""
        await self.bus.stop()

    def check_held(self, batch: Batch | SheetBatch | PlayerBatch) -> None:
        """Refuse (LeaseLost) a table's write whose lease may have lapsed by our own clock.

        Called in the writer thread just before the commit: a write queued behind a slow one may
        otherwise be stored after the lease lapsed and another process took the table.
        """
        if isinstance(batch, Batch):
            for b in (batch, *batch.also):
                if not self.bus.holds(b.table_id):
                    raise LeaseLost(f"this process no longer holds table {b.table_id}'s lease")

    def _spawn(self, work: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

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
            if self.drives(table_id) or await self._take(table_id) is not None:
                return None
            owner = await self.bus.owner(table_id)
            if owner is not None and owner != self.bus.proc and await self.bus.alive(owner):
                return owner
            await asyncio.sleep(0.25)  # a dead owner's lease expires within seconds
        if valid_id(table_id) and self.lobby.store.load_setup(table_id) is not None:
            raise storage_error(table_id, TimeoutError("no process could take the table's lease"))
        raise TableError("no-table", f"there is no table {table_id[:40]!r}", 404)

    async def _take(self, table_id: str) -> Table | None:
        """Lease and load a table no process drives (None: another process holds it); TableError
        ``no-table`` if there is no such table. Loaded in a thread: a long replay keeps the loop going."""
        pending = self.loading.get(table_id)
        if pending is not None:  # already being loaded here: the same table, not a second copy
            return await asyncio.shield(pending)
        if self.drives(table_id):
            return self.lobby.tables[table_id]
        if not valid_id(table_id):
            raise TableError("no-table", f"there is no table {table_id[:40]!r}", 404)
        future: asyncio.Future[Table | None] = asyncio.get_running_loop().create_future()
        self.loading[table_id] = future
        table: Table | None = None
        try:
            if not await self.bus.acquire(table_id):
                return None
            self.drop(table_id)  # a copy kept from before our lease lapsed: its readers start afresh
            try:
                table = await asyncio.to_thread(self.lobby.take, table_id)
            finally:
                if table is None:
                    await self.bus.release([table_id])
            if table is None:
                raise TableError("no-table", f"there is no table {table_id[:40]!r}", 404)
            self.server.kick(table)
            return table
        finally:
            self.loading.pop(table_id, None)
            future.set_result(table)

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
        self._close_readers(table)

    def refused(self, table_id: str) -> None:
        """Give up a table whose write the database refused (another process wrote it behind our back).

        Our copy and our count of its events are stale, and every later write would be refused too:
        the table is dropped, its count forgotten and its lease released, so that the sweep (or the
        next reader) loads it afresh from the store, with the other writer's events.
        """
        log.warning("table %s: a write was refused by the database, loaded afresh", table_id)
        self.drop(table_id)
        self.lobby.store.forget(table_id)
        self._spawn(self.bus.release([table_id]))

    def _close_readers(self, table: Table) -> None:
        for client in list(table.clients):
            port = getattr(client, "ws", None)
            if port is not None:
                self._spawn(port.close(CLOSE_RESTART))

    # -- the sweep ---------------------------------------------------------------------------

    async def _forever(self, work: Callable[[], Awaitable[None]]) -> None:
        """Do ``work`` about every second (not in step with the other processes) until cancelled."""
        while True:
            await asyncio.sleep(SWEEP_SECONDS * random.uniform(0.8, 1.2))
            try:
                await work()
            except Exception:
                log.exception("the cluster's %s failed (tried again in a second)", work.__name__)

    async def keep_alive(self) -> None:
        """Say we live, keep our leases (forgetting the lost ones), list our tables, drop dead relays.

        Its own task, apart from the takeovers: loading many tables at once must not let our leases lapse.
        """
        await self.bus.heartbeat()
        for table_id in await self.bus.renew():
            self.drop(table_id)
        for table in list(self.lobby.tables.values()):  # renewed: play on where a lapse stopped us
            self.server.revive(table)
        await self.publish()
        live = set(await self.bus.live_procs())
        lost = self.bus.generation != self.generation  # frames may have been missed: start afresh
        self.generation = self.bus.generation
        for end in list(self.relays.values()):
            if lost or end.owner not in live:
                end.inbox.put_nowait({"op": "close", "code": CLOSE_RESTART})
        for conn, port in list(self.ports.items()):
            if lost or port.relay not in live:
                self._spawn(port.close(CLOSE_RESTART))
                self.ports.pop(conn, None)

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
                taken += await self._take(table_id) is not None
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

    async def publish(self) -> None:
        await self.bus.publish_listing(self.lobby.listing())

    async def listing(self, limit: int = 50) -> list[dict[str, Any]]:
        """Every process's listed tables (ours as they are now), newest move first."""
        ours = {t["id"]: t for t in self.lobby.listing(limit)}
        theirs = [t for t in await self.bus.listings() if t["id"] not in ours and t["id"] not in
                  self.lobby.tables]
        return sorted([*ours.values(), *theirs], key=lambda t: -float(t.get("moved", 0)))[:limit]

    # -- messages from the other processes ----------------------------------------------------

    async def on_message(self, msg: dict[str, Any]) -> None:
        op, conn = msg.get("op"), str(msg.get("conn", ""))
        if op == "open":
            self._open_port(msg)
        elif op in ("text", "close"):
            end = self.relays.get(conn)
            if end is not None:  # to a socket connected here
                end.inbox.put_nowait(msg)
            port = self.ports.get(conn)
            if port is not None:  # from a socket relayed to us
                port.inbox.put_nowait(msg.get("text") if op == "text" else None)
        elif op == "http":
            self._spawn(self._answer_http(msg))
        elif op == "http-reply":
            future = self.replies.pop(str(msg.get("id")), None)
            if future is not None and not future.done():
                future.set_result(msg)

    def _open_port(self, msg: dict[str, Any]) -> None:
        conn, relay, table_id = str(msg["conn"]), str(msg["reply"]), str(msg["table"])
        port = RelayPort(self.bus, conn, relay, str(msg.get("client", "?")))
        table = self.lobby.tables.get(table_id) if self.drives(table_id) else None
        if table is None:  # handed over meanwhile: the reader tries again
            self._spawn(port.close(CLOSE_RESTART))
            return
        self.ports[conn] = port

        async def serve() -> None:
            try:
                await self.serve(table, port)
            except Exception:  # the relaying side must hear of it, or its reader waits for good
                log.exception("table %s: a relayed reader failed", table_id)
                await port.close(CLOSE_RESTART)
            finally:
                self.ports.pop(conn, None)
        self._spawn(serve())

    # -- sockets -------------------------------------------------------------------------------

    async def relay_socket(self, port: Port, owner: str, table_id: str) -> None:
        """A socket connected here whose table ``owner`` drives (see place): its frames go both ways."""
        conn = secrets.token_urlsafe(12)
        end = self.relays[conn] = RelayEnd(owner, table_id)
        loop = asyncio.get_running_loop()
        watcher = loop.create_task(self._watch_owner(end))
        reader: asyncio.Task[int | None] | None = None
        code = CLOSE_RESTART
        try:
            # "open" first: a frame published before it would find no reader at the owner's.
            if await self.bus.send(owner, {"op": "open", "conn": conn, "table": table_id,
                                           "reply": self.bus.proc, "client": port.address}):
                reader = loop.create_task(self._forward_frames(port, conn, owner))
                code = await self._deliver(port, end, reader)
        finally:
            if reader is not None:
                reader.cancel()
            watcher.cancel()
            self.relays.pop(conn, None)
            with contextlib.suppress(Exception):  # the owner forgets the reader (if it has not already)
                await self.bus.send(owner, {"op": "close", "conn": conn})
        with contextlib.suppress(Exception):
            await port.close(code)

    async def _watch_owner(self, end: RelayEnd) -> None:
        """Close the relay (1012) once the owner's heartbeat is gone: it may die without a word."""
        while True:
            await asyncio.sleep(SWEEP_SECONDS)
            try:
                alive = await self.bus.alive(end.owner)
            except Exception:  # no Redis: no frames either way, so the relay is dead too
                alive = False
            if not alive:
                end.inbox.put_nowait({"op": "close", "code": CLOSE_RESTART})
                return

    async def _deliver(self, port: Port, end: RelayEnd, reader: asyncio.Task[int | None]) -> int:
        """Send the owner's frames to the socket until either side closes; the close code to use."""
        while True:
            getting = asyncio.ensure_future(end.inbox.get())
            await asyncio.wait({getting, reader}, return_when=asyncio.FIRST_COMPLETED)
            if not getting.done():
                getting.cancel()
                if reader.cancelled():
                    return 1000
                if reader.exception() is not None:  # no bus: the page connects again
                    return CLOSE_RESTART
                return reader.result() or 1000  # the reader went (told to the owner by the caller)
            msg = getting.result()
            if msg.get("op") == "close":
                return int(msg.get("code") or 1000)
            try:
                await port.send_text(str(msg.get("text", "")))
            except Exception:  # the reader went while we sent: as if it had closed
                return 1000

    async def _forward_frames(self, port: Port, conn: str, owner: str) -> int | None:
        """Send the reader's frames to the owner; None once the reader went, 1012 once nobody listens
        at the owner's (it is gone: the page connects again rather than lose a move)."""
        while (text := await port.receive()) is not None:
            if not await self.bus.send(owner, {"op": "text", "conn": conn, "text": text}):
                return CLOSE_RESTART
        return None

    # -- HTTP ------------------------------------------------------------------------------------

    def router(self, app: ASGIApp) -> ASGIApp:
        """The application in front: a table's request goes to its owner unless we drive the table."""
        self.app = app

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
                await self._forward_http(scope, receive, send, owner)
        return route

    async def _forward_http(self, scope: Scope, receive: Receive, send: Send, owner: str) -> None:
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        rid = secrets.token_urlsafe(12)
        future = self.replies[rid] = asyncio.get_running_loop().create_future()
        client = scope.get("client")
        request = {"op": "http", "id": rid, "reply": self.bus.proc, "method": scope["method"],
                   "path": scope["path"], "query": scope.get("query_string", b"").decode("latin-1"),
                   "headers": [[k.decode("latin-1"), v.decode("latin-1")] for k, v in scope["headers"]],
                   "body": base64.b64encode(body).decode(), "client": client[0] if client else "?"}
        try:
            if not await self.bus.send(owner, request):  # nobody listens there: the owner is gone
                raise ConnectionError(f"process {owner} no longer listens on the bus")
            answer = await asyncio.wait_for(future, HTTP_TIMEOUT)
        except Exception as e:  # no answer in time, or no Redis: refused as a write that failed
            self.replies.pop(rid, None)
            refusal = storage_error(scope["path"], e)
            answer = {"status": refusal.status, "headers": [["content-type", "application/json"]],
                      "body": base64.b64encode(json.dumps(refusal.body()).encode()).decode()}
        await send({"type": "http.response.start", "status": int(answer["status"]),
                    "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in answer["headers"]]})
        await send({"type": "http.response.body", "body": base64.b64decode(answer["body"])})

    async def _answer_http(self, msg: dict[str, Any]) -> None:
        """Run a relayed request through our own application and send its answer back whole."""
        assert self.app is not None
        body = base64.b64decode(msg["body"])
        scope: Scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": msg["method"],
            "scheme": "http", "path": msg["path"], "raw_path": msg["path"].encode(), "root_path": "",
            "query_string": msg["query"].encode("latin-1"), "client": (msg["client"], 0), "server": None,
            "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in msg["headers"]]}
        sent = False

        async def receive() -> Message:
            nonlocal sent
            if sent:
                await asyncio.Event().wait()  # nothing more comes: the request is whole
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        answer: dict[str, Any] = {"op": "http-reply", "id": msg["id"], "status": 500, "headers": []}
        chunks: list[bytes] = []

        async def send(message: Message) -> None:
            if message["type"] == "http.response.start":
                answer["status"] = message["status"]
                answer["headers"] = [[k.decode("latin-1"), v.decode("latin-1")]
                                     for k, v in message.get("headers", [])]
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        try:
            await self.app(scope, receive, send)
        except Exception:  # answered all the same, or the relaying process waits for nothing
            log.exception("a relayed request %s %s failed", msg["method"], msg["path"])
            answer.update(status=500, headers=[["content-type", "application/json"]])
            failed = TableError("internal", "the server failed to answer this request", 500)
            chunks[:] = [json.dumps(failed.body()).encode()]
        answer["body"] = base64.b64encode(b"".join(chunks)).decode()
        await self.bus.send(str(msg["reply"]), answer)
