"""Solo play in the browser, served: its lobby (/solo), its table page (/play), the engine's zip and Pyodide.

The game itself runs in the browser (barbu.solo, static/solo.js): the server only hands out files, the
same ones `barbu static` writes into a folder. Pyodide is served from its cache folder
(barbu.solo.pyodide) when it was fetched there; without it /solo.json says so and the lobby offers no game.
"""

from __future__ import annotations

import functools

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

from barbu.solo import bundle, pyodide
from barbu.web.core.errors import TableError
from barbu.web.http.assets import LONG, compressed_once
from barbu.web.http.endpoints import refusals, static_page

ENGINE = "/solo/{name}"  # the engine's zip, named by its hash: never changes at its address
TYPES = {".mjs": "text/javascript", ".wasm": "application/wasm", ".zip": "application/zip",
         ".json": "application/json"}


@functools.cache
def engine() -> tuple[str, bytes]:
    """The engine's zip, built once per process: its file name and its bytes."""
    data = bundle.build()
    return bundle.name(data), data


def config() -> dict[str, object]:
    """What /solo.json tells the solo pages: where the engine is, and whether Pyodide is here."""
    return {"engine": ENGINE.format(name=engine()[0]), "pyodide": pyodide.PATH if pyodide.present() else None}


async def lobby(request: Request) -> Response:
    return static_page("solo.html")


async def table(request: Request) -> Response:
    return static_page("index.html")


async def solo_json(request: Request) -> Response:
    return JSONResponse(config(), headers={"Cache-Control": "no-cache"})


async def engine_zip(request: Request) -> Response:
    name, data = engine()
    if request.path_params["name"] != name:
        raise TableError("not-found", "no such engine file: the page is older than the server, load it again",
                         404)
    return Response(data, media_type=TYPES[".zip"], headers={"Cache-Control": LONG})


async def runtime(request: Request) -> Response:
    """A file of the pinned Pyodide release, from its cache folder (404 when it is not there)."""
    name = request.path_params["name"]
    if name not in pyodide.FILES or not pyodide.present():
        raise TableError("not-found", "no such file: Pyodide is not installed on this server", 404)
    suffix = name[name.rindex("."):]
    sent = FileResponse(pyodide.folder() / name, media_type=TYPES[suffix], headers={"Cache-Control": LONG})
    return compressed_once(request.headers, sent)


def routes() -> list[BaseRoute]:
    return [
        Route("/solo", lobby, methods=["GET"]),
        Route("/play", table, methods=["GET"]),
        Route("/solo.json", solo_json, methods=["GET"]),
        Route(ENGINE, refusals(engine_zip), methods=["GET"]),
        Route(pyodide.PATH + "{name}", refusals(runtime), methods=["GET"]),
    ]
