"""The table's WebSocket: one per reader of a table, its messages answered, the table's events sent back.

Client to server, each a JSON object with a ``type``: ``hello`` (first, with the seat ``token`` or
none to watch, and a ``name`` for a free seat), ``act`` (``action``: "QS", "no-queens",
"trump H", "rank J", "double 0,2", "redouble none", "pass"), ``takeover`` (``seat``, ``level``),
``reclaim``, ``sync``, ``ping``, ``hint`` (the coach's advice to the seat to act, or with ``intended``
and ``level`` a warning before that choice; see docs/coach.md), ``rematch`` (``op``: offer, accept,
decline, withdraw, once the game is over), and the creator's ``invites`` and ``reissue`` (``seat``).
Server to client: ``welcome``, ``state`` (the reader's own view), ``sheet`` (the finished hands,
when one ends), ``invites`` (to the creator only: the free seats' links), ``rematch-link`` (to each
person only: their seat at the new game), ``hint`` (the coach's answer, to the asker only),
``error`` (``code``, ``message``), ``pong``.
A hello may carry ``profile`` ("ID:SECRET") to tie the seat it takes to a profile (see profiles).
Anything malformed gets an ``error`` and changes nothing. A change is told to anyone only once it
is stored: the database is written in one writer thread, so a slow write holds up only its table.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import time
from typing import TYPE_CHECKING, Any

from starlette.routing import BaseRoute, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from barbu.web.cluster.ports import Port, Serve
from barbu.web.core.errors import TableError
from barbu.web.http.clientid import client_key
from barbu.web.http.endpoints import client_of, server_of
from barbu.web.http.guard import parse_json, refusal_of
from barbu.web.http.limits import Rule, Who, profile_person
from barbu.web.http.server import Server
from barbu.web.tables import coaching
from barbu.web.tables.parts import Change
from barbu.web.tables.table import Table
from barbu.wording import plural

if TYPE_CHECKING:
    from barbu.web.cluster.relay import Cluster

log = logging.getLogger("barbu.web")

MAX_MESSAGE = 4096  # bytes of one client message; a real one is under 100
MAX_QUEUE = 2000  # events waiting for one slow client before it is cut off
CLOSE_NO_TABLE = 4404
CLOSE_BAD_TOKEN = 4403
CLOSE_TOO_SLOW = 4408
CLOSE_NO_HELLO = 4400
CLOSE_TOO_MANY = 4429


class SocketPort:
    """A reader's own WebSocket, connected to this process."""

    def __init__(self, ws: WebSocket) -> None:
        self.ws = ws
        self.address = client_of(ws)

    async def receive(self, within: float | None = None) -> str | None:
        return await receive(self.ws, within)

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


def routes() -> list[BaseRoute]:
    return [WebSocketRoute("/ws/{table_id}", endpoint)]


async def endpoint(ws: WebSocket) -> None:
    await serve_socket(server_of(ws), ws)


def serving(server: Server) -> Serve:
    """How a group's Cluster serves a reader another process relays to this one: as any other reader."""
    return functools.partial(serve_table, server)


async def serve_socket(server: Server, ws: WebSocket) -> None:
    await ws.accept()
    who = client_of(ws)
    if server.sockets[who] >= server.config.sockets_per_client:
        most = plural(server.config.sockets_per_client, "connection")
        await refuse(ws, TableError("too-many-sockets", f"at most {most} at once from one address", 429,
                                    args={"n": server.config.sockets_per_client}),
                     CLOSE_TOO_MANY)
        return
    server.sockets[who] += 1
    try:
        if server.cluster is not None:
            await _serve_in_group(server, server.cluster, ws)
            return
        try:
            table = server.tables.get(ws.path_params["table_id"])
        except TableError as e:
            await refuse(ws, e, CLOSE_NO_TABLE)
            return
        await serve_table(server, table, SocketPort(ws))
    finally:
        server.sockets[who] -= 1
        if not server.sockets[who]:
            del server.sockets[who]


async def _serve_in_group(server: Server, cluster: Cluster, ws: WebSocket) -> None:
    """A socket of one process of a group: served here if we drive its table, else relayed to the owner."""
    from barbu.web.cluster.relay import CLOSE_RESTART

    try:
        table_id = str(ws.path_params["table_id"])
        try:
            owner = await cluster.place(table_id)
        except TableError as e:
            await refuse(ws, e, CLOSE_NO_TABLE if e.code == "no-table" else CLOSE_RESTART)
            return
        if owner is None:
            await serve_table(server, cluster.lobby.tables[table_id], SocketPort(ws))
        else:
            await cluster.relay_socket(SocketPort(ws), owner, table_id)
    except Exception as e:  # Redis out of reach, say: the page is told, and connects again
        await refuse(ws, refusal_of(e), CLOSE_RESTART)


async def refuse(ws: WebSocket, e: TableError, code: int) -> None:
    log.info("websocket refused: %s", e.message)
    with contextlib.suppress(Exception):
        await ws.send_text(json.dumps(e.event()))
        await ws.close(code)


async def serve_table(server: Server, table: Table, ws: Port) -> None:
    """Read one reader's messages and answer them until it goes (the same for a relayed reader)."""
    conn = Connection(ws)
    pump = asyncio.get_running_loop().create_task(conn.pump())
    attached = False
    close_code = 1000
    deadline = time.monotonic() + server.config.hello_timeout
    try:
        while True:
            try:
                # A new socket must say hello in time (see handle for the refused one that counts).
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
                attached = await handle(server, table, conn, text, attached)
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


async def receive(ws: WebSocket, within: float | None = None) -> str | None:
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


# -- the messages ------------------------------------------------------------------------------

async def handle(server: Server, table: Table, conn: Connection, text: str, attached: bool) -> bool:
    """Answer one client message; returns whether the client is attached to the table."""
    msg = _message(text)
    kind = msg["type"]
    if kind == "ping":
        conn.send_text(json.dumps({"type": "pong"}))
        return attached
    if kind == "hello":
        if attached:
            raise TableError("already-joined", "you are already at this table")
        await _hello(server, table, conn, msg)
        return True
    if kind not in ("act", "takeover", "reclaim", "sync", "ready", "chat", "invites", "reissue", "rematch",
                    "start", "hint", "pace"):
        raise TableError("unknown-type", f"unknown message type {kind[:40]!r}")
    if not attached:
        raise TableError("hello-first", "say hello (with your seat's token, or none to watch) first")
    if kind == "chat":
        async with event_limit(server, "chat", table, conn):
            await server.change(table, lambda: table.plan_chat(conn, msg.get("text")))
        return True  # a message moves no player: nothing for the computers to do
    if kind == "rematch":
        await _rematch(server, table, conn, msg.get("op"))
        return True
    if kind == "hint":
        await _hint(server, table, conn, msg)
        return True
    if kind == "sync":
        table.send(conn, table.sheet_event())
        table.send(conn, table.state_event(conn.seat))
    else:
        await server.change(table, lambda: _plan(table, conn, kind, msg))
    server.kick(table)
    return True


def _message(text: str) -> dict[str, Any]:
    """A client's message: a JSON object with a ``type``, of at most MAX_MESSAGE bytes."""
    if len(text.encode()) > MAX_MESSAGE:
        raise TableError("too-large", f"a message is at most {MAX_MESSAGE} bytes")
    msg = parse_json(text, "a message")
    if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
        raise TableError("bad-message", "a message is a JSON object with a \"type\"")
    return msg


async def _hello(server: Server, table: Table, conn: Connection, msg: dict[str, Any]) -> None:
    """Attach the reader to the table: to the seat its token opens, or as a watcher."""
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
    conn.person = profile_person(player.id) if player is not None else None
    server.kick(table)  # a seat taken on its turn starts its turn clock


def _plan(table: Table, conn: Connection, kind: str, msg: dict[str, Any]) -> Change:
    """The change a message of an attached reader asks of the table; TableError if it is refused."""
    if kind == "act":
        return table.plan_act(conn, msg.get("action"))
    if kind == "takeover":
        return table.plan_takeover(conn, msg.get("seat"), msg.get("level"))
    if kind == "reclaim":
        return table.plan_reclaim(conn)
    if kind == "ready":
        return table.plan_ready(conn, msg.get("hand"))
    if kind == "invites":  # the creator's: the links of the free seats, to copy or send again
        return table.plan_invites(conn)
    if kind == "reissue":
        return table.plan_reissue(conn, msg.get("seat"))
    if kind == "pace":  # at your own pace: play live now (once everyone asked), or back
        return table.deadlines.plan_switch(conn, msg.get("live"))
    # The creator's "start": the invited seats nobody took become computers', and it deals.
    assert kind == "start", kind
    return table.plan_start(conn, msg.get("level"))


async def _rematch(server: Server, table: Table, conn: Connection, op: object) -> None:
    async with event_limit(server, "rematch", table, conn):
        await server.change(table, lambda: server.room_for(table.plan_rematch(conn, op, server.tables)))
    if table.rematch.table is not None:  # its computers may have the first move
        server.kick(server.tables.get(table.rematch.table))


async def _hint(server: Server, table: Table, conn: Connection, msg: dict[str, Any]) -> None:
    """The coach's answer, to this socket only: asked of the seat's own view, in a worker process (a
    search of up to a second of CPU, which in a thread would hold up every table of this process)."""
    # Refused before it counts: a watcher, a table with people, not this seat's turn.
    q = coaching.question(table, conn, msg.get("intended"), msg.get("level", "always"))
    async with event_limit(server, "hint", table, conn):
        workers = server.computers.workers()
        event = await asyncio.get_running_loop().run_in_executor(workers, coaching.answer, table.game, q)
    conn.send_text(json.dumps(event, ensure_ascii=False))


def event_limit(server: Server, kind: str, table: Table,
                conn: Connection) -> contextlib.AbstractAsyncContextManager[None]:
    """Counts a chat message or rematch step of ``conn``'s person and address, on any socket or table.

    The person: the profile its hello proved, else its seat at this table (a seat's token outlives
    a socket); a watcher without a profile is counted by address only.
    """
    n = {"chat": server.config.chat_per_minute, "hint": server.config.hints_per_minute}.get(
        kind, server.config.rematch_per_minute)
    seat = f"s:{table.id}:{conn.seat}" if conn.seat is not None else None
    who = Who(conn.ws.address, conn.person or seat)

    def refuse(wait: int) -> TableError:
        if kind == "chat":
            return TableError("chat-too-fast", f"at most {n} messages a minute from one person or "
                              f"address: wait {wait} s", 429, args={"n": n, "seconds": wait})
        if kind == "hint":
            return TableError("hint-too-fast", f"at most {n} questions to the coach a minute from one person "
                              f"or address: wait {wait} s", 429, args={"n": n, "seconds": wait})
        return TableError("rematch-too-fast", f"at most {n} rematch answers a minute from one person or "
                          f"address: wait {wait} s", 429, args={"n": n, "seconds": wait})
    return server.limiter.hold(Rule(kind, n), who, refuse)
