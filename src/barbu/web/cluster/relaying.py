"""Relaying to a table's owner: a socket's frames both ways, and an HTTP request answered there whole.

A socket connected here whose table another process drives sends its frames to the owner on the owner's
channel; the owner runs the same table code with a :class:`RelayPort` standing in for the socket, and its
frames come back on our channel. A relayed HTTP request is run by the owner's own application and its
answer sent back whole. A relay whose other end goes is closed with 1012 (service restart): the page
connects again, and its new socket lands on the table's new owner.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from barbu.web.cluster.bus import Bus
from barbu.web.cluster.leases import CLOSE_RESTART, Leases, Spawn
from barbu.web.cluster.ports import Port, Serve
from barbu.web.core.errors import TableError
from barbu.web.tables.parts import storage_error

log = logging.getLogger("barbu.web.cluster.relay")

SWEEP_SECONDS = 1.0
HTTP_TIMEOUT = 15.0  # seconds a relayed request waits for its owner's answer

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


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


class Sockets:
    """The sockets relayed both ways: ours to their tables' owners, and other processes' to our tables."""

    def __init__(self, bus: Bus, leases: Leases, serve: Serve, spawn: Spawn) -> None:
        self.bus, self.leases, self.spawn = bus, leases, spawn
        self.serve = serve  # the server's way to answer a reader relayed to us, at a table we drive
        self.relays: dict[str, RelayEnd] = {}  # sockets connected here, by relay id
        self.ports: dict[str, RelayPort] = {}  # readers relayed to us, by relay id
        self.generation = 0  # the bus's subscription our relays were made under

    def close_all(self) -> None:
        """Close (1012) every socket connected here whose table another process drives."""
        for end in self.relays.values():
            end.inbox.put_nowait({"op": "close", "code": CLOSE_RESTART})

    def close_dead(self, live: set[str]) -> None:
        """Close (1012) the relays to and from processes no longer ``live``, or all if frames may be lost."""
        lost = self.bus.generation != self.generation  # frames may have been missed: start afresh
        self.generation = self.bus.generation
        for end in list(self.relays.values()):
            if lost or end.owner not in live:
                end.inbox.put_nowait({"op": "close", "code": CLOSE_RESTART})
        for conn, port in list(self.ports.items()):
            if lost or port.relay not in live:
                self.spawn(port.close(CLOSE_RESTART))
                self.ports.pop(conn, None)

    def frame(self, msg: dict[str, Any]) -> None:
        """A text frame or a close from another process, to the relay it names (either way)."""
        conn = str(msg.get("conn", ""))
        end = self.relays.get(conn)
        if end is not None:  # to a socket connected here
            end.inbox.put_nowait(msg)
        port = self.ports.get(conn)
        if port is not None:  # from a socket relayed to us
            port.inbox.put_nowait(msg.get("text") if msg.get("op") == "text" else None)

    def open_port(self, msg: dict[str, Any]) -> None:
        """Serve a reader another process relays to us, at a table we drive (else it is told to retry)."""
        conn, relay, table_id = str(msg["conn"]), str(msg["reply"]), str(msg["table"])
        port = RelayPort(self.bus, conn, relay, str(msg.get("client", "?")))
        table = self.leases.lobby.tables.get(table_id) if self.leases.drives(table_id) else None
        if table is None:  # handed over meanwhile: the reader tries again
            self.spawn(port.close(CLOSE_RESTART))
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
        self.spawn(serve())

    async def relay(self, port: Port, owner: str, table_id: str) -> None:
        """A socket connected here whose table ``owner`` drives: its frames go both ways."""
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


class Requests:
    """HTTP requests relayed both ways: ours sent to a table's owner, and other processes' run here."""

    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        self.app: ASGIApp | None = None  # the application the owner runs relayed requests through
        self.replies: dict[str, asyncio.Future[dict[str, Any]]] = {}

    def reply(self, msg: dict[str, Any]) -> None:
        """The owner's answer to a request we sent it, to the request waiting for it."""
        future = self.replies.pop(str(msg.get("id")), None)
        if future is not None and not future.done():
            future.set_result(msg)

    async def forward(self, scope: Scope, receive: Receive, send: Send, owner: str) -> None:
        """Have ``owner`` answer a request (a 5xx refusal if it cannot: gone, or no answer in time)."""
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

    async def answer(self, msg: dict[str, Any]) -> None:
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
