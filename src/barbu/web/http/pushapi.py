"""The HTTP API of Web Push: the server's public key, and a profile's browsers subscribed or not."""

from __future__ import annotations

import contextlib

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from barbu.web.core.errors import TableError
from barbu.web.core.rows import PlayerBatch
from barbu.web.http.endpoints import json_body, refusals, server_of, who_of
from barbu.web.http.limits import Rule
from barbu.web.http.notify import MAX_SUBSCRIPTIONS, PUSH_SERVICES, public_key, subscription
from barbu.web.http.profiles import me


def key(request: Request) -> Response:
    """The applicationServerKey browsers subscribe with, or null when this server sends no pushes."""
    pusher = server_of(request).pusher
    return JSONResponse({"key": None if pusher is None else public_key(pusher.vapid)})


def counted(request: Request) -> contextlib.AbstractAsyncContextManager[None]:
    """A change of notifications counted for the person and the address asking; 429 past the limit."""
    server = server_of(request)
    n = server.config.push_per_minute

    def refuse(wait: int) -> TableError:
        return TableError("too-many-pushes", f"at most {n} notification changes a minute from one person or "
                          f"address: wait {wait} s", 429, args={"n": n, "seconds": wait})
    return server.limiter.hold(Rule("push", n), who_of(server, request), refuse)


async def change(request: Request) -> Response:
    """A browser of the signed-in profile subscribed (POST) or no longer (DELETE: its endpoint)."""
    server = server_of(request)
    if server.pusher is None:
        raise TableError("no-push", "this server sends no notifications (no VAPID key)", 404)
    row = me(request)
    body = await json_body(request)
    if request.method == "POST":
        sub = subscription(body.get("subscription") if isinstance(body, dict) else None,
                           body.get("lang") if isinstance(body, dict) else None,
                           None if server.config.push_any_endpoint else PUSH_SERVICES)
        batch = PlayerBatch(row.id, push=sub, max_push=MAX_SUBSCRIPTIONS)
    else:
        endpoint = body.get("endpoint") if isinstance(body, dict) else None
        if not isinstance(endpoint, str):
            raise TableError("bad-subscription", "say which subscription ends: its endpoint", 400)
        batch = PlayerBatch(row.id, drop_push=[endpoint])
    async with counted(request):
        await server.store_player(batch)
    mine = [s.endpoint for s in server.profiles.store.push_of(row.id)]
    return JSONResponse({"subscribed": batch.push is not None and batch.push.endpoint in mine,
                         "count": len(mine)}, status_code=201 if batch.push is not None else 200)


async def table_switch(request: Request) -> Response:
    """The notifications of one table, push and mail, for the signed-in profile: read (GET) or switched
    (PUT {"on"})."""
    server = server_of(request)
    if server.notices is None:  # the switch covers both push and mail
        raise TableError("no-push", "this server sends no notifications (no VAPID key, no SMTP server)", 404)
    row = me(request)
    table_id = str(request.path_params["table_id"])
    server.tables.get(table_id)  # 404 for a table that is not there
    if request.method == "PUT":
        body = await json_body(request)
        on = body.get("on") if isinstance(body, dict) else None
        if not isinstance(on, bool):
            raise TableError("bad-switch", "say whether the notifications are on: true or false", 400)
        async with counted(request):
            await server.store_player(PlayerBatch(row.id, quiet=(table_id, not on)))
    return JSONResponse({"on": not server.profiles.store.push_quiet(row.id, table_id)})


def routes() -> list[BaseRoute]:
    return [
        Route("/api/push/key", key, methods=["GET"]),
        Route("/api/me/push", refusals(change), methods=["POST", "DELETE"]),
        Route("/api/me/push/tables/{table_id}", refusals(table_switch), methods=["GET", "PUT"]),
    ]
