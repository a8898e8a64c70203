"""The leaderboards and the players' pages (``/leaderboard``, ``/player/NAME``) and their API."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from barbu.web.core.names import name_key
from barbu.web.http.endpoints import refusals, ruleset_of, server_of, static_page
from barbu.web.people import ladder


async def page(request: Request) -> Response:
    return static_page("leaderboard.html")


async def board(request: Request) -> Response:
    top = ladder.top_of(request.query_params.get("top"))
    return JSONResponse(ladder.leaderboard(server_of(request).profiles.store, ruleset_of(request), top))


async def player(request: Request) -> Response:
    # Stored names are cleaned (one space between words): another spelling of one finds it too.
    key = name_key(" ".join(str(request.path_params["name"]).split()))
    return JSONResponse(ladder.player_page(server_of(request).profiles.store, key))


def routes() -> list[BaseRoute]:
    return [
        Route("/leaderboard", page),
        Route("/player/{name:path}", page),  # a name may hold a slash
        Route("/api/leaderboard/{ruleset}", refusals(board), methods=["GET"]),
        Route("/api/players/{name:path}", refusals(player), methods=["GET"]),
    ]
