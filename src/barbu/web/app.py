"""The ASGI application: the lobby's HTTP API, the static page, and one WebSocket per reader of a table.

Client to server, each a JSON object with a ``type``: ``hello`` (first, with the seat ``token`` or
none to watch, and a ``name`` for a free seat), ``act`` (``action``: "QS", "no-queens",
"trump H", "rank J", "double 0,2", "redouble none", "pass"), ``takeover`` (``seat``, ``level``),
``reclaim``, ``sync``, ``ping``. Server to client: ``welcome``, ``state`` (the reader's own view),
``sheet`` (the finished hands, when one ends), ``error`` (``code``, ``message``), ``pong``.
Anything malformed gets an ``error`` and changes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import multiprocessing
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from barbu.bots import levels, make_bot
from barbu.engine.contracts import CLASSIC_OPTIONS, OPTION_HELP
from barbu.engine.observation import Observation
from barbu.web.store import Store
from barbu.web.tables import AutoMove, Lobby, Setup, Table, TableError, default_level

log = logging.getLogger("barbu.web")

STATIC = Path(__file__).with_name("static")
MAX_MESSAGE = 4096  # bytes of one client message; a real one is under 100
MAX_BODY = 16384  # bytes of an HTTP request body
MAX_QUEUE = 2000  # events waiting for one slow client before it is cut off
CLOSE_NO_TABLE = 4404
CLOSE_BAD_TOKEN = 4403
CLOSE_TOO_SLOW = 4408


@dataclass
class Config:
    """How the server behaves; tests shorten the delays."""

    db_path: str
    bot_delay: float = 0.6  # seconds before each computer play, so people can follow
    idle_seconds: float = 60.0  # a person's turn may be handed to a computer after this


class Connection:
    """One WebSocket reader of a table: events are queued here and sent by its own task."""

    def __init__(self, ws: WebSocket) -> None:
        self.ws = ws
        self.seat: int | None = None
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.overflowed = False

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
        self.store: Store | None = None
        self.lobby: Lobby | None = None
        self.drivers: dict[str, asyncio.Task[None]] = {}
        self.pool: ProcessPoolExecutor | None = None  # for the searching computer players

    def open(self) -> None:
        self.store = Store(self.config.db_path)
        self.lobby = Lobby(self.store, idle_seconds=self.config.idle_seconds)
        for table in self.lobby.load_all():
            self.kick(table)

    async def close(self) -> None:
        for task in self.drivers.values():
            task.cancel()
        for task in list(self.drivers.values()):
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self.drivers.clear()
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None
        if self.store is not None:
            self.store.close()

    @property
    def tables(self) -> Lobby:
        assert self.lobby is not None, "the server is not open"
        return self.lobby

    def kick(self, table: Table) -> None:
        """Make sure computer players (and forced passes) get to act at this table."""
        if table.auto_seat() is None:
            return
        task = self.drivers.get(table.id)
        if task is None or task.done():
            self.drivers[table.id] = asyncio.get_running_loop().create_task(self._drive(table))

    async def _drive(self, table: Table) -> None:
        while (move := table.auto_move()) is not None:
            await asyncio.sleep(self.config.bot_delay)
            try:
                action = await self._decide(move)
                table.auto_apply(move, action)  # ignored if a person took the seat back meanwhile
            except Exception:
                log.exception("table %s: computer player at seat %d failed", table.id, move.seat)
                return


    async def _decide(self, move: AutoMove) -> int:
        """A computer player's action, decided away from the event loop.

        The quick levels answer in a worker thread. The searching ones (``pimc``, ``strong``)
        think for up to a second, which in a thread would hold the interpreter lock that every
        table shares: they get a worker process, with a seed drawn from the seat's own bot so
        that its play stays reproducible.
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

def _error(e: TableError) -> JSONResponse:
    log.info("refused (%d %s): %s", e.status, e.code, e.message)
    return JSONResponse({"error": {"code": e.code, "message": e.message}}, status_code=e.status)


async def _json_body(request: Request) -> Any:
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise TableError("too-large", f"a request body is at most {MAX_BODY} bytes", 413)
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise TableError("too-large", f"a request body is at most {MAX_BODY} bytes", 413)
    try:
        return json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise TableError("bad-json", f"the request body is not JSON: {e}") from e


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

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        server.open()
        log.info("serving tables from %s", config.db_path)
        try:
            yield
        finally:
            await server.close()

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def info(request: Request) -> Response:
        return JSONResponse({"levels": levels(), "default_level": default_level(),
                             "options": [{"id": o, "help": OPTION_HELP.get(o, "")} for o in CLASSIC_OPTIONS]})

    async def list_tables(request: Request) -> Response:
        return JSONResponse({"tables": server.tables.listing()})

    async def create_table(request: Request) -> Response:
        setup = Setup.parse(await _json_body(request))
        if setup.seed is not None and sum(s["kind"] == "human" for s in setup.seats) > 1:
            raise TableError("bad-setup", "a chosen seed tells whoever chose it every hand: it is only "
                             "for a game of one person against computer players")
        table = server.tables.create(setup)
        server.kick(table)
        links = {s: {"seat": s, "token": t, "link": f"/table/{table.id}#t={t}"} for s, t in table.tokens()}
        mine = next((x for s, x in links.items() if table.seats[s].row.claimed), None)
        return JSONResponse({"id": table.id, "seats": list(links.values()), "you": mine}, status_code=201)

    async def table_info(request: Request) -> Response:
        table = server.tables.get(request.path_params["table_id"])
        return JSONResponse({"table": table.meta(), "summary": table.summary()})

    async def join_table(request: Request) -> Response:
        table = server.tables.get(request.path_params["table_id"])
        body = await _json_body(request)
        name = body.get("name") if isinstance(body, dict) else None
        seat, token = table.join(name)
        return JSONResponse({"seat": seat, "token": token, "link": f"/table/{table.id}#t={token}"})

    async def record(request: Request) -> Response:
        table = server.tables.get(request.path_params["table_id"])
        body = json.dumps(table.public_record(), indent=1, ensure_ascii=False)
        return Response(body + "\n", media_type="application/json", headers={
            "Content-Disposition": f'attachment; filename="barbu-{table.id}.json"'})

    async def ws_endpoint(ws: WebSocket) -> None:
        await _serve_socket(server, ws)

    routes = [
        Route("/", page),
        Route("/table/{table_id}", page),
        Route("/api/info", info),
        Route("/api/tables", _refusals(list_tables), methods=["GET"]),
        Route("/api/tables", _refusals(create_table), methods=["POST"]),
        Route("/api/tables/{table_id}", _refusals(table_info)),
        Route("/api/tables/{table_id}/join", _refusals(join_table), methods=["POST"]),
        Route("/api/tables/{table_id}/record", _refusals(record)),
        WebSocketRoute("/ws/{table_id}", ws_endpoint),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.server = server
    return app


# -- WebSocket -----------------------------------------------------------------------

async def _serve_socket(server: Server, ws: WebSocket) -> None:
    await ws.accept()
    conn = Connection(ws)
    table_id = ws.path_params["table_id"]
    try:
        table = server.tables.get(table_id)
    except TableError as e:
        log.info("websocket refused: %s", e.message)
        await ws.send_text(json.dumps(e.event()))
        await ws.close(CLOSE_NO_TABLE)
        return
    pump = asyncio.get_running_loop().create_task(conn.pump())
    attached = False
    close_code = 1000
    try:
        while True:
            text = await _receive(ws)
            if text is None:
                break
            try:
                attached = _handle(server, table, conn, text, attached)
            except TableError as e:
                log.info("table %s seat %s: refused %s: %s", table.id, conn.seat, e.code, e.message)
                conn.send_text(json.dumps(e.event()))
                if e.code == "bad-token":
                    close_code = CLOSE_BAD_TOKEN
                    break
    finally:
        if attached:
            table.detach(conn)
        conn.queue.put_nowait(None)
        with contextlib.suppress(Exception):
            await pump
    if not conn.overflowed:
        with contextlib.suppress(Exception):
            await ws.close(close_code)


async def _receive(ws: WebSocket) -> str | None:
    """The next text message, or None once the client has gone."""
    try:
        message = await ws.receive()
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


def _handle(server: Server, table: Table, conn: Connection, text: str, attached: bool) -> bool:
    """Answer one client message; returns whether the client is attached to the table."""
    if len(text.encode()) > MAX_MESSAGE:
        raise TableError("too-large", f"a message is at most {MAX_MESSAGE} bytes")
    try:
        msg = json.loads(text)
    except json.JSONDecodeError as e:
        raise TableError("bad-json", f"a message must be a JSON object: {e.msg}") from e
    if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
        raise TableError("bad-message", "a message is a JSON object with a \"type\"")
    kind = msg["type"]
    if kind == "ping":
        conn.send_text(json.dumps({"type": "pong"}))
        return attached
    if kind == "hello":
        if attached:
            raise TableError("already-joined", "you are already at this table")
        table.attach(conn, msg.get("token"), msg.get("name"))
        return True
    if kind not in ("act", "takeover", "reclaim", "sync"):
        raise TableError("unknown-type", f"unknown message type {kind[:40]!r}")
    if not attached:
        raise TableError("hello-first", "say hello (with your seat's token, or none to watch) first")
    if kind == "act":
        table.act(conn, msg.get("action"))
    elif kind == "takeover":
        table.takeover(conn, msg.get("seat"), msg.get("level"))
    elif kind == "reclaim":
        table.reclaim(conn)
    else:
        table.send(conn, table.sheet_event())
        table.send(conn, table.state_event(conn.seat))
    server.kick(table)
    return True
