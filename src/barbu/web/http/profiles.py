"""The HTTP API of the player profiles (``/api/players``, ``/api/me``…) and of a person's own tables."""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from barbu.web.core.errors import TableError
from barbu.web.core.rows import PlayerRow
from barbu.web.http.endpoints import (
    PROFILE_HEADER,
    client_of,
    count_read,
    json_body,
    refusals,
    server_of,
    static_page,
    who_of,
)
from barbu.web.http.guard import secret_header
from barbu.web.people.pace import pace_view, plan_pace
from barbu.web.people.players import public


def me(request: Request) -> PlayerRow:
    return server_of(request).profiles.authenticate(secret_header(request, PROFILE_HEADER))


async def seen(request: Request) -> tuple[PlayerRow, str]:
    """The profile asking and its device's key hash, the device noted as seen now."""
    server = server_of(request)
    row, key_hash = server.profiles.identify(secret_header(request, PROFILE_HEADER))
    batch = server.profiles.plan_seen(row, key_hash)
    if batch is not None:
        await server.store_player(batch)
    return row, key_hash


def signed(row: PlayerRow, secret: str, status: int = 200) -> JSONResponse:
    """A device's new way in: shown once, kept by the browser, never stored by the server."""
    return JSONResponse({"profile": public(row), "credential": f"{row.id}:{secret}"}, status_code=status)


async def page(request: Request) -> Response:
    return static_page("index.html")


async def create(request: Request) -> Response:
    server = server_of(request)
    body = await json_body(request)
    name = body.get("name") if isinstance(body, dict) else None
    async with server.profile_limit(who_of(server, request)):
        player_id, secret, batch = server.profiles.plan_create(name)
        await server.store_player(batch)
    row = server.profiles.store.load_player(player_id)
    assert row is not None
    return signed(row, secret, 201)


async def show(request: Request) -> Response:
    return JSONResponse({"profile": public((await seen(request))[0])})


async def transfer(request: Request) -> Response:
    server = server_of(request)
    code, until, batch = server.profiles.plan_transfer(me(request))
    await server.store_player(batch)
    return JSONResponse({"code": code, "link": f"/profile#code={code}", "expires": until,
                         "seconds": server.profiles.policy.transfer_seconds})


async def claim(request: Request) -> Response:
    server = server_of(request)
    body = await json_body(request)
    row, secret, batch = server.profiles.plan_claim(body.get("code") if isinstance(body, dict) else None)
    await server.store_player(batch)
    return signed(row, secret)


async def password(request: Request) -> Response:
    server = server_of(request)
    row, key_hash = server.profiles.identify(secret_header(request, PROFILE_HEADER))
    body = await json_body(request)
    if not isinstance(body, dict) or "password" not in body:
        raise TableError("bad-password", "send {\"password\": TEXT} (or null to remove it), with "
                         "{\"current\": TEXT} when the profile has one",
                         args={"min": 8, "max": 128})
    batch = await asyncio.to_thread(server.profiles.plan_password, row, body["password"], key_hash,
                                    body.get("current"), client_of(request))
    await server.store_player(batch)
    return JSONResponse({"profile": public(me(request))})


async def signin(request: Request) -> Response:
    server = server_of(request)
    body = await json_body(request)
    if not isinstance(body, dict):
        raise TableError("bad-signin", "this name and password do not match a profile", 403)
    row, secret, batch = await asyncio.to_thread(server.profiles.plan_signin, body.get("name"),
                                                 body.get("password"), client_of(request),
                                                 secret_header(request, PROFILE_HEADER))
    await server.store_player(batch)
    return signed(row, secret)


async def devices(request: Request) -> Response:
    row, key_hash = await seen(request)
    return JSONResponse({"devices": server_of(request).profiles.devices(row, key_hash)})


async def revoke(request: Request) -> Response:
    server = server_of(request)
    row = me(request)
    await server.store_player(server.profiles.plan_revoke(row, request.path_params["device"]))
    return Response(status_code=204)


async def others(request: Request) -> Response:
    server = server_of(request)
    row, key_hash = server.profiles.identify(secret_header(request, PROFILE_HEADER))
    await server.store_player(server.profiles.plan_sign_out_others(row, key_hash))
    return JSONResponse({"devices": server.profiles.devices(row, key_hash)})


async def mine(request: Request) -> Response:
    body = await json_body(request)
    asked = secret_header(request, PROFILE_HEADER)
    player = None if asked is None else (await seen(request))[0]  # the lobby's visit
    held = body.get("seats") if isinstance(body, dict) else "?"
    return JSONResponse({"tables": server_of(request).tables.yours(player, held)})


async def pace_choices(request: Request) -> Response:
    """A profile's choices for tables at your own pace: read (GET) or changed (PUT)."""
    server = server_of(request)
    row = me(request)
    now = server.config.wall()
    if request.method == "PUT":
        body = await json_body(request)
        await server.store_player(plan_pace(row, server.profiles.store.pace_of(row.id), body, now))
    return JSONResponse({"pace": pace_view(server.profiles.store.pace_of(row.id), now)})


async def your_move(request: Request) -> Response:
    """The tables where it is the asking person's (or this browser's seats') turn, soonest deadline first,
    and the way to each: counted like the other costly reads (each table is opened to know)."""
    await count_read(request)
    body = await json_body(request)
    asked = secret_header(request, PROFILE_HEADER)
    player = None if asked is None else me(request)
    held = body.get("seats") if isinstance(body, dict) else "?"
    tables = [t for t in server_of(request).tables.yours(player, held) if t["state"] == "your-turn"]
    tables.sort(key=lambda t: (t.get("own_pace") or {}).get("due") or 0.0)
    return JSONResponse({"count": len(tables), "tables": tables})


def routes() -> list[BaseRoute]:
    """The profile's page and its API, and ``/api/mine`` (the tables of a person or of this browser)."""
    return [
        Route("/profile", page),
        Route("/api/players", refusals(create), methods=["POST"]),
        Route("/api/players/claim", refusals(claim), methods=["POST"]),
        Route("/api/signin", refusals(signin), methods=["POST"]),
        Route("/api/me", refusals(show), methods=["GET"]),
        Route("/api/me/transfer", refusals(transfer), methods=["POST"]),
        Route("/api/me/password", refusals(password), methods=["POST"]),
        Route("/api/me/devices", refusals(devices), methods=["GET"]),
        Route("/api/me/devices/others", refusals(others), methods=["DELETE"]),
        Route("/api/me/devices/{device}", refusals(revoke), methods=["DELETE"]),
        Route("/api/mine", refusals(mine), methods=["POST"]),
        Route("/api/me/pace", refusals(pace_choices), methods=["GET", "PUT"]),
        Route("/api/your-move", refusals(your_move), methods=["POST"]),
    ]
