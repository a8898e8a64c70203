"""What the HTTP routes share: the server behind a request, its body within a limit, who asks, refusals."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response

from barbu.engine.game import RULESETS
from barbu.web.core.errors import TableError
from barbu.web.http.assets import Assets
from barbu.web.http.clientid import CLIENT_HEADER
from barbu.web.http.guard import parse_json
from barbu.web.http.limits import Rule, Who, client_id, profile_person
from barbu.web.http.server import Server

log = logging.getLogger("barbu.web")

STATIC = Path(__file__).resolve().parents[1] / "static"
ASSETS = Assets(STATIC)  # the files' stamps, taken once when the server starts
MAX_BODY = 16384  # bytes of an HTTP request body
PROFILE_HEADER = "x-barbu-player"  # "ID:SECRET", the profile this browser keeps
TOKEN_HEADER = "x-barbu-token"  # a seat's token, or a score sheet's write secret

Handler = Callable[[Request], Awaitable[Response]]


def server_of(conn: HTTPConnection) -> Server:
    """The server of the application answering this request or socket (build_app keeps it in its state)."""
    server: Server = conn.app.state.server
    return server


def static_page(name: str) -> Response:
    """One of the pages in the static folder (its files' addresses stamped), which the browser asks again
    about each time it loads it."""
    return ASSETS.page_response(name)


def client_of(conn: HTTPConnection) -> str:
    """Who is asking, for the per-client limits: the IP address (as uvicorn's proxy settings give it)."""
    return conn.client.host if conn.client is not None else "?"


def who_of(server: Server, request: Request) -> Who:
    """Who asks, for the limits: the address, and the person (the profile it proves, else the page's id)."""
    person = None
    credential = request.headers.get(PROFILE_HEADER)
    if credential:
        with contextlib.suppress(TableError):  # a wrong profile is refused where it matters, not here
            person = profile_person(server.profiles.authenticate(credential).id)
    return Who(client_of(request), person or client_id(request.headers.get(CLIENT_HEADER)))


async def count_read(request: Request) -> None:
    """TableError (429) past the costly reads (timelines, PDFs) one person or address may ask for."""
    server = server_of(request)
    n = server.config.reads_per_minute

    def refuse(wait: int) -> TableError:
        return TableError("too-many-reads", f"at most {n} replays and prints a minute from one person or "
                          f"address: wait {wait} s", 429, args={"n": n, "seconds": wait})
    await server.limiter.take(Rule("reads", n), who_of(server, request), refuse)


def ruleset_of(request: Request) -> str:
    ruleset = str(request.path_params["ruleset"])
    if ruleset not in RULESETS:
        raise TableError("no-such-rules", "there are two rule sets: classic and family", 404)
    return ruleset


def error(e: TableError) -> JSONResponse:
    log.info("refused (%d %s): %s", e.status, e.code, e.message)
    return JSONResponse(e.body(), status_code=e.status)


async def json_body(request: Request) -> Any:
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise TableError("too-large", f"a request body is at most {MAX_BODY} bytes", 413)
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise TableError("too-large", f"a request body is at most {MAX_BODY} bytes", 413)
    return parse_json(body, "the request body")


def refusals(fn: Handler) -> Handler:
    """The route ``fn``, whose TableError is answered as JSON with its status (and logged)."""
    async def wrapped(request: Request) -> Response:
        try:
            return await fn(request)
        except TableError as e:
            return error(e)
    return wrapped
