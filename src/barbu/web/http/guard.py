"""What keeps bad input from hurting the server: strict JSON, checked secret headers, no secret in a log,
and a JSON answer (never a traceback) for whatever else goes wrong."""

from __future__ import annotations

import json
import logging
import re
import sqlite3
from typing import Any
from urllib.parse import unquote_plus

from starlette.exceptions import HTTPException
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from barbu.web.core.errors import TableError

log = logging.getLogger("barbu.web")

MAX_SECRET = 256  # characters of a secret header; the real ones are under 100
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")  # a pair decodes to one character: these stand alone
_PRINTABLE_ASCII = re.compile(r"[\x21-\x7e]+")


def parse_json(text: str | bytes, what: str) -> Any:
    """Decode a client's JSON; TableError ``bad-json`` for anything Python's json refuses, and more.

    Nesting deeper than the interpreter's recursion limit (RecursionError), integers of more than
    4300 digits (ValueError) and strings holding a lone surrogate (``"\\ud800"``: valid JSON, but
    no text, and a crash wherever it is encoded) are refused too.
    """
    try:
        value = json.loads(text)
    except RecursionError:
        raise TableError("bad-json", f"{what} is nested too deeply") from None
    except (ValueError, UnicodeDecodeError) as e:  # JSONDecodeError is a ValueError
        raise TableError("bad-json", f"{what} is not JSON we accept: {str(e)[:120]}") from None
    if has_lone_surrogate(value):
        raise TableError("bad-json", f"{what} holds a lone surrogate (\\ud800 to \\udfff): it is not text")
    return value


def has_lone_surrogate(value: Any) -> bool:
    """Whether a decoded JSON value has a string (or key) with a lone surrogate, at any depth."""
    stack = [value]
    while stack:  # a loop, not recursion: the value may be nested as deeply as the parser allows
        item = stack.pop()
        if isinstance(item, str):
            if _LONE_SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def secret_header(conn: HTTPConnection, name: str) -> str | None:
    """The secret a request carries in header ``name`` (None when absent or empty).

    A secret is printable ASCII without spaces, at most MAX_SECRET characters: anything else is
    refused here (400 ``bad-secret``) rather than met by a comparison that cannot take it.
    """
    value = conn.headers.get(name)
    if not value:
        return None
    if len(value) > MAX_SECRET or not _PRINTABLE_ASCII.fullmatch(value):
        raise TableError("bad-secret", f"the {name} header is not a secret this server gives: it is "
                         f"printable ASCII without spaces, at most {MAX_SECRET} characters")
    return value


# -- the unexpected ------------------------------------------------------------------------------

def is_outage(e: BaseException) -> bool:
    """Whether ``e`` says a service is out of reach (the database, Redis, the network), not a bug."""
    if isinstance(e, (sqlite3.OperationalError, OSError)):  # psycopg's are raised as sqlite3's (pgstore)
        return True
    try:
        from redis.exceptions import ConnectionError as RedisDown
        from redis.exceptions import TimeoutError as RedisSlow
    except ImportError:  # without the cluster extra there is no Redis to be out of reach
        return False
    return isinstance(e, (RedisDown, RedisSlow))


def refusal_of(e: BaseException) -> TableError:
    """The answer to an exception nothing else caught: 503 ``storage`` for an outage, else 500 ``internal``;
    logged here, with the traceback only for a bug (an outage is said in one line)."""
    if is_outage(e):
        log.error("a service is out of reach, the request is refused: %s: %s", type(e).__name__, e)
        return TableError("storage", "the server could not store this just now, so nothing was changed: "
                          "please try again in a moment", 503)
    log.error("the server failed to answer a request", exc_info=e)
    return TableError("internal", "the server failed to answer this request", 500)


class Guard:
    """ASGI middleware: an HTTP request whose handler raised gets a JSON 500 or 503, never a bare one."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as e:
            refusal = refusal_of(e)
            if started:  # half an answer went out: only dropping the connection can say it failed
                raise
            await JSONResponse(refusal.body(), status_code=refusal.status)(scope, receive, send)


async def http_refusal(request: Request, exc: Exception) -> Response:
    """Starlette's own refusals (an unknown address, a method a route does not take): under /api in the
    JSON of every other refusal (404 ``not-found``, 405 ``method-not-allowed``), elsewhere plain text."""
    if not isinstance(exc, HTTPException):
        raise exc
    headers = dict(exc.headers or {})
    if request.url.path != "/api" and not request.url.path.startswith("/api/"):
        return PlainTextResponse(exc.detail, exc.status_code, headers=headers)
    if exc.status_code == 405:
        allowed = headers.get("allow") or headers.get("Allow") or ""
        error = TableError("method-not-allowed", f"this address takes {allowed or 'other methods'}", 405,
                           args={"allow": allowed})
    elif exc.status_code == 404:
        error = TableError("not-found", "there is nothing at this address", 404)
    else:
        error = TableError("bad-request", str(exc.detail), exc.status_code)
    return JSONResponse(error.body(), status_code=exc.status_code, headers=headers)


# -- logs ------------------------------------------------------------------------------------------

_PARAM = re.compile(r"(^|[?&;#\s])([^=?&;#\s\"']+)=([^&;#\s\"']+)")
_SECRET_WORDS = ("token", "secret", "code", "password", "credential", "key")
_SECRET_NAMES = ("t", "k")


def secret_name(name: str) -> bool:
    """Whether a query parameter of this (still percent-encoded) name may carry a secret: its decoded,
    lower-cased name contains a secret's word (``access_token``, ``tok%65n``) or is ``t`` or ``k``."""
    plain = unquote_plus(name).lower()
    return plain in _SECRET_NAMES or any(w in plain for w in _SECRET_WORDS)


def redact(text: str) -> str:
    """``text`` with the values of secret-like query parameters (``token=…``, ``code=…``) blotted out."""
    return _PARAM.sub(lambda m: f"{m[1]}{m[2]}=[redacted]" if secret_name(m[2]) else m[0], text)


class RedactSecrets(logging.Filter):
    """A logging filter that blots secrets out of a record's message and arguments (uvicorn's access log
    gives the path with its query string as an argument)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {k: redact(v) if isinstance(v, str) else v for k, v in record.args.items()}
        if record.name != "uvicorn.access":  # its formatter reads the arguments, not the message
            try:
                text = record.getMessage()
            except Exception:  # a broken format is logging's to report, not ours
                return True
            clean = redact(text)
            if clean != text:
                record.msg, record.args = clean, None
        return True


def redact_logs(*names: str) -> None:
    """Put RedactSecrets on every handler of the root logger and of the loggers ``names`` (a handler's
    filter sees every record it writes, including those of child loggers)."""
    for name in ("", *names):
        for handler in logging.getLogger(name).handlers:
            if not any(isinstance(f, RedactSecrets) for f in handler.filters):
                handler.addFilter(RedactSecrets())
