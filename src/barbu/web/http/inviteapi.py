"""The HTTP API of invitations by name: a creator holds a free seat for a profile, who accepts or declines."""

from __future__ import annotations

import time
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from barbu.web.core.errors import TableError
from barbu.web.core.names import clean_name, name_key
from barbu.web.core.rows import PlayerRow
from barbu.web.http.clientid import CLIENT_HEADER, client_key
from barbu.web.http.endpoints import TOKEN_HEADER, count_read, json_body, refusals, server_of, who_of
from barbu.web.http.guard import secret_header
from barbu.web.http.limits import Rule
from barbu.web.http.profiles import me
from barbu.web.http.server import Server
from barbu.web.tables.named import open_to_invite
from barbu.web.tables.parts import Change
from barbu.web.tables.table import Table

MAX_LISTED = 20  # invitations one profile is shown at once (as many as may wait: named.MAX_WAITING)


def field(body: Any, key: str) -> object:
    return body.get(key) if isinstance(body, dict) else None


async def count(server: Server, request: Request) -> None:
    """An invitation counted for the person and the address sending it, even one refused after (a name
    that is no profile's among them: names are not guessed in bulk); 429 past the limit."""
    n = server.config.invites_per_minute

    def refuse(wait: int) -> TableError:
        return TableError("too-many-invites", f"at most {n} invitations a minute from one person or address: "
                          f"wait {wait} s", 429, args={"n": n, "seconds": wait})
    await server.limiter.take(Rule("invite", n), who_of(server, request), refuse)


def invitee_named(server: Server, value: object) -> PlayerRow:
    """The profile going by this name; 404 ``no-profile`` and nothing more when there is none."""
    row = server.profiles.store.player_named(name_key(clean_name(value)))
    if row is None:
        raise TableError("no-player", "no profile goes by this name", 404)
    return row


def told_invited(server: Server, table: Table, invitee: PlayerRow) -> None:
    """The one place an invitation by name is announced to its person, once stored (push and mail)."""
    if server.notices is not None:
        server.notices.invited(invitee.id, table.id, table.seats[table.creator].row.name)


async def invite(request: Request) -> Response:
    """The creator holds a free seat for a profile (POST {"seat", "name"}) or ends that (DELETE {"seat"})."""
    server = server_of(request)
    table = server.tables.get(request.path_params["table_id"])
    token = secret_header(request, TOKEN_HEADER)
    body = await json_body(request)
    named = table.invitations.named
    named.creator_token(token)
    if request.method == "DELETE":
        await server.change(table, lambda: named.plan_withdraw(token, field(body, "seat")))
        return JSONResponse({"seat": field(body, "seat"), "invited": None})
    named.free_seat(field(body, "seat"))  # a malformed seat is refused before it is counted
    await count(server, request)
    invitee = invitee_named(server, field(body, "name"))
    waiting = len(server.profiles.store.invitations_of(invitee.id))
    already = any(s.row.invited == invitee.id for s in table.seats)
    await server.change(table, lambda: named.plan_invite(token, field(body, "seat"), invitee, time.time(),
                                                         waiting))
    if not already:
        told_invited(server, table, invitee)
    return JSONResponse({"seat": field(body, "seat"), "invited": invitee.name}, status_code=201)


async def answer(request: Request) -> Response:
    """The invited profile accepts (its seat and token, in the answer's body) or declines."""
    server = server_of(request)
    table = server.tables.get(request.path_params["table_id"])
    player = me(request)
    body = await json_body(request)
    said = field(body, "answer")
    if said == "decline":
        await server.change(table, lambda: table.invitations.named.plan_decline(player))
        return JSONResponse({"declined": True})
    if said != "accept":
        raise TableError("bad-answer", "answer \"accept\" or \"decline\"")
    seat, token = -1, ""

    def plan() -> Change:
        nonlocal seat, token
        browser = client_key(request.headers.get(CLIENT_HEADER))
        change, seat, token = table.invitations.named.plan_accept(player, browser)
        return change
    await server.change(table, plan)
    server.kick(table)  # the last seat taken deals: a computer may play first
    return JSONResponse({"seat": seat, "token": token})


def entry(table: Table, seat: int) -> dict[str, Any]:
    """An invitation as its person is shown it: who invited, to what game, how far it has filled."""
    summary = table.summary()
    creator = table.seats[table.creator].row.name if table.creator >= 0 else ""
    taken = sum(1 for s in table.seats if s.row.claimed)
    return {"table": table.id, "seat": seat, "by": creator, "ruleset": summary["ruleset"],
            "players": summary["players"], "taken": taken, "own_pace": summary["own_pace"],
            "names": summary["names"], "link": f"/table/{table.id}"}


async def mine(request: Request) -> Response:
    """The invitations waiting for the signed-in profile, oldest first: counted like the other costly reads
    (each table is opened to know)."""
    server = server_of(request)
    player = me(request)
    await count_read(request)
    out = []
    for table_id, seat in server.profiles.store.invitations_of(player.id)[:MAX_LISTED]:
        try:
            table = server.tables.get(table_id)
        except TableError:
            continue
        if table.seats[seat].row.invited == player.id and open_to_invite(table.seats[seat].row):
            out.append(entry(table, seat))
    return JSONResponse({"count": len(out), "invitations": out})


def routes() -> list[BaseRoute]:
    return [
        Route("/api/tables/{table_id}/invite", refusals(invite), methods=["POST", "DELETE"]),
        Route("/api/tables/{table_id}/invitation", refusals(answer), methods=["POST"]),
        Route("/api/me/invitations", refusals(mine), methods=["GET"]),
    ]
