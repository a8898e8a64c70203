"""The rules of each rule set: their page (``/rules/RULESET``) and what the pages show of them."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from barbu.web.http.endpoints import refusals, ruleset_of, static_page
from barbu.web.tables.rules import rules_info


async def page(request: Request) -> Response:
    ruleset_of(request)
    return static_page("rules.html")


async def api(request: Request) -> Response:
    return JSONResponse(rules_info(ruleset_of(request)))


def routes() -> list[BaseRoute]:
    return [
        Route("/rules/{ruleset}", refusals(page)),
        Route("/api/rules/{ruleset}", refusals(api)),
    ]
