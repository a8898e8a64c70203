"""The lobby's HTTP API: the tables listed, one created or joined, a seat tied to a profile, a record."""

from __future__ import annotations

import json

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from barbu.bots import levels
from barbu.engine.contracts import CLASSIC_OPTIONS, OPTION_HELP
from barbu.web.core.errors import TableError
from barbu.web.http.clientid import CLIENT_HEADER, client_key
from barbu.web.http.endpoints import (
    PROFILE_HEADER,
    TOKEN_HEADER,
    json_body,
    refusals,
    server_of,
    static_page,
    who_of,
)
from barbu.web.http.guard import secret_header
from barbu.web.tables.parts import Change
from barbu.web.tables.setup import Setup, default_level


async def page(request: Request) -> Response:
    return static_page("index.html")


async def info(request: Request) -> Response:
    return JSONResponse({"levels": levels(), "default_level": default_level(),
                         "options": [{"id": o, "help": OPTION_HELP.get(o, "")} for o in CLASSIC_OPTIONS]})


async def list_tables(request: Request) -> Response:
    server = server_of(request)
    if server.cluster is not None:
        return JSONResponse({"tables": await server.cluster.listing()})
    return JSONResponse({"tables": server.tables.listing()})


async def create_table(request: Request) -> Response:
    server = server_of(request)
    setup = Setup.parse(await json_body(request))
    setup.player = server.profiles.optional(secret_header(request, PROFILE_HEADER))
    setup.client = client_key(request.headers.get(CLIENT_HEADER))
    if setup.seed is not None and sum(s["kind"] == "human" for s in setup.seats) > 1:
        raise TableError("bad-setup", "a chosen seed tells whoever chose it every hand: it is only "
                         "for a game of one person against computer players", args={"variant": "seed"})
    table = await server.create(setup, who_of(server, request))
    links = {s: {"seat": s, "token": t, "link": f"/table/{table.id}#t={t}"} for s, t in table.tokens()}
    mine = links.get(table.creator)  # the creator's seat, named or still to be taken with its link
    return JSONResponse({"id": table.id, "seats": list(links.values()), "you": mine}, status_code=201)


async def table_info(request: Request) -> Response:
    table = server_of(request).tables.get(request.path_params["table_id"])
    return JSONResponse({"table": table.meta(), "summary": table.summary()})


async def join_table(request: Request) -> Response:
    server = server_of(request)
    table = server.tables.get(request.path_params["table_id"])
    body = await json_body(request)
    name = body.get("name") if isinstance(body, dict) else None
    player = server.profiles.optional(secret_header(request, PROFILE_HEADER))
    browser = client_key(request.headers.get(CLIENT_HEADER))
    seat, token = -1, ""

    def plan() -> Change:
        nonlocal seat, token
        change, seat, token = table.plan_join(name, player, browser)
        return change
    await server.change(table, plan)
    return JSONResponse({"seat": seat, "token": token, "link": f"/table/{table.id}#t={token}"})


async def tie_seat(request: Request) -> Response:
    """A guest's seat (its token) tied to the profile of the request: rated and listed for it."""
    server = server_of(request)
    table = server.tables.get(request.path_params["table_id"])
    player = server.profiles.authenticate(secret_header(request, PROFILE_HEADER))
    token = secret_header(request, TOKEN_HEADER)
    seat = -1

    def plan() -> Change:
        nonlocal seat
        change, seat = table.plan_tie(token, player)
        return change
    await server.change(table, plan)
    return JSONResponse({"seat": seat, "table": table.meta()["seats"][seat]})


async def record(request: Request) -> Response:
    table = server_of(request).tables.get(request.path_params["table_id"])
    if "token" in request.query_params:  # a secret in a URL ends up in logs and histories
        raise TableError("secret-in-url", f"send the seat's token in the {TOKEN_HEADER} header, not in "
                         "the address")
    token = secret_header(request, TOKEN_HEADER)
    seat = None
    if token:
        seat = table.seat_of_token(token)
        if seat is None:
            raise TableError("bad-token", "this token gives no seat at this table", 403,
                             args={"variant": "record"})
    body = json.dumps(table.public_record(seat), indent=1, ensure_ascii=False)
    return Response(body + "\n", media_type="application/json", headers={
        "Content-Disposition": f'attachment; filename="barbu-{table.id}.json"'})


def routes() -> list[BaseRoute]:
    """The lobby's and the table's pages, and their API (a table's socket is sockets.routes)."""
    return [
        Route("/", page),
        Route("/table/{table_id}", page),
        Route("/api/info", info),
        Route("/api/tables", refusals(list_tables), methods=["GET"]),
        Route("/api/tables", refusals(create_table), methods=["POST"]),
        Route("/api/tables/{table_id}", refusals(table_info)),
        Route("/api/tables/{table_id}/join", refusals(join_table), methods=["POST"]),
        Route("/api/tables/{table_id}/tie", refusals(tie_seat), methods=["POST"]),
        Route("/api/tables/{table_id}/record", refusals(record)),
    ]
