"""The HTTP API of e-mail notices: a profile's address given and confirmed, the kinds of mail it wants, and
the one-click unsubscribe (RFC 8058) its mails link to."""

from __future__ import annotations

import contextlib
import hashlib
import time

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from barbu.web.core.errors import TableError
from barbu.web.core.rows import MailChange, MailRow, PlayerBatch
from barbu.web.core.words import languages
from barbu.web.http.endpoints import json_body, refusals, server_of, static_page, who_of
from barbu.web.http.limits import Rule, Who
from barbu.web.http.mail import address_key, address_of
from barbu.web.http.mails import ALL, KINDS
from barbu.web.http.notices import Notices, new_code
from barbu.web.http.profiles import me
from barbu.web.http.pushapi import counted

CODE_LIFE = 86400.0  # seconds a confirmation link works
HOUR = 3600.0


def digest(code: str) -> str:
    """What the store keeps of a confirmation code: its SHA-256 (the code is 256 random bits)."""
    return hashlib.sha256(code.encode()).hexdigest()


def notices_of(request: Request) -> Notices:
    notices = server_of(request).notices
    if notices is None or notices.mailer is None:
        raise TableError("no-mail", "this server sends no e-mail (no SMTP server)", 404)
    return notices


def shown(row: MailRow | None) -> dict[str, object]:
    """A profile's address as its own profile page sees it (and nobody else)."""
    if row is None:
        return {"enabled": True, "address": None, "verified": False, "events": [], "kinds": list(KINDS)}
    return {"enabled": True, "address": row.address, "verified": row.verified, "events": list(row.events),
            "kinds": list(KINDS)}


async def address(request: Request) -> Response:
    """The signed-in profile's address: read (GET), given anew and a confirmation mailed (PUT), removed
    (DELETE). A server that sends no mail says so to GET ({"enabled": false}), and refuses the others."""
    server = server_of(request)
    row = me(request)
    if request.method == "GET" and (server.notices is None or server.notices.mailer is None):
        return JSONResponse({"enabled": False})
    notices = notices_of(request)
    if request.method == "PUT":
        body = await json_body(request)
        given = address_of(body.get("address") if isinstance(body, dict) else None)
        lang = body.get("lang") if isinstance(body, dict) else None
        lang = lang if isinstance(lang, str) and lang in languages() else "en"
        code, unsubscribe = new_code(), new_code()
        change = MailChange(given, lang, digest(code), time.time() + CODE_LIFE, unsubscribe)
        async with counted(request), per_address(request, given):
            await server.store_player(PlayerBatch(row.id, mail=change))
        notices.confirm(given, lang, row.name, code, unsubscribe)
        return JSONResponse(shown(server.profiles.store.mail_of(row.id)), status_code=202)
    if request.method == "DELETE":
        async with counted(request):
            await server.store_player(PlayerBatch(row.id, drop_mail=True))
    return JSONResponse(shown(server.profiles.store.mail_of(row.id)))


def per_address(request: Request, given: str) -> contextlib.AbstractAsyncContextManager[None]:
    """A confirmation mail counted against the address it goes to, so that nobody makes the server mail a
    stranger again and again (the count keeps a hash of the address, never the address)."""
    server = server_of(request)
    n = server.config.mails_per_hour

    def refuse(wait: int) -> TableError:
        return TableError("too-many-mails", f"at most {n} confirmation mails an hour to one address: wait "
                          f"{wait // 60 + 1} min", 429, args={"n": n, "minutes": wait // 60 + 1})
    return server.limiter.hold(Rule("mail-to", n, HOUR), Who(address_key(given)), refuse)


async def events(request: Request) -> Response:
    """The kinds of mail the signed-in profile wants (PUT {"events": [...]}), once its address is
    confirmed."""
    notices_of(request)
    server = server_of(request)
    row = me(request)
    body = await json_body(request)
    wanted = body.get("events") if isinstance(body, dict) else None
    if not isinstance(wanted, list) or not all(isinstance(k, str) and k in KINDS for k in wanted):
        raise TableError("bad-events", f"say which mails are wanted: a list of {', '.join(KINDS)}", 400)
    mail = server.profiles.store.mail_of(row.id)
    if mail is None or not mail.verified:
        raise TableError("mail-not-confirmed", "confirm the e-mail address first (the link mailed to it)",
                         409)
    chosen = tuple(k for k in KINDS if k in wanted)
    async with counted(request):
        await server.store_player(PlayerBatch(row.id, mail_events=chosen))
    return JSONResponse(shown(server.profiles.store.mail_of(row.id)))


async def confirm(request: Request) -> Response:
    """An address confirmed by the code its mail carried (POST {"token"}: a mail scanner's GET of the
    link confirms nothing); the code works once, for a day."""
    notices_of(request)
    server = server_of(request)
    body = await json_body(request)
    code = body.get("token") if isinstance(body, dict) else None
    if not isinstance(code, str) or not 0 < len(code) <= 128:
        raise TableError("bad-mail-link", "this link is not (or no longer) valid", 400)
    now = time.time()
    async with server.limiter.hold(Rule("mail-links", server.config.push_per_minute), who_of(server, request),
                                   too_many_links):
        row = server.profiles.store.mail_by_code(digest(code), now)
        if row is None:
            raise TableError("bad-mail-link", "this link is not (or no longer) valid", 404)
        await server.store_player(PlayerBatch(row.player_id, mail_confirm=(digest(code), now)))
    return JSONResponse({"confirmed": True})


def too_many_links(wait: int) -> TableError:
    return TableError("too-many-pushes", f"too many notification changes in a minute: wait {wait} s", 429,
                      args={"seconds": wait, "n": 0})


async def unsubscribe(request: Request) -> Response:
    """One kind of mail turned off by its link (POST, RFC 8058's one click; no sign-in: the link's token
    can do this and nothing else); ``kind=all`` removes the address. GET shows the page with its button."""
    if request.method == "GET":
        return static_page("mail.html")
    notices_of(request)
    server = server_of(request)
    kind, token = request.query_params.get("kind"), request.query_params.get("token")
    if kind not in (*KINDS, ALL) or not token or len(token) > 128:
        raise TableError("bad-mail-link", "this link is not (or no longer) valid", 400)
    async with server.limiter.hold(Rule("mail-links", server.config.push_per_minute), who_of(server, request),
                                   too_many_links):
        row = server.profiles.store.mail_by_unsubscribe(token)
        if row is None:
            raise TableError("bad-mail-link", "this link is not (or no longer) valid", 404)
        if kind == ALL:
            batch = PlayerBatch(row.player_id, drop_mail=True)
        else:
            batch = PlayerBatch(row.player_id, mail_events=tuple(k for k in row.events if k != kind))
        await server.store_player(batch)
    return JSONResponse({"off": kind})


async def page(request: Request) -> Response:
    return static_page("mail.html")


def routes() -> list[BaseRoute]:
    return [
        Route("/api/me/mail", refusals(address), methods=["GET", "PUT", "DELETE"]),
        Route("/api/me/mail/events", refusals(events), methods=["PUT"]),
        Route("/api/mail/confirm", refusals(confirm), methods=["POST"]),
        Route("/mail/confirm", page, methods=["GET"]),
        Route("/mail/unsubscribe", refusals(unsubscribe), methods=["GET", "POST"]),
    ]
