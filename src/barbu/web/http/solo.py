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
from barbu.web.http.endpoints import ASSETS, refusals, static_page

ENGINE = "/solo/{name}"  # the engine's zip, named by its hash: never changes at its address
TYPES = {".mjs": "text/javascript", ".wasm": "application/wasm", ".zip": "application/zip",
         ".json": "application/json"}


@functools.cache
def engine() -> tuple[str, bytes]:
    """The engine's zip, built once per process: its file name and its bytes."""
    data = bundle.build()
    return bundle.name(data), data


def offline_files(engine_path: str) -> list[str]:
    """What a solo game needs from the network besides its pages, which the solo lobby asks the service
    worker to keep, so that a game starts offline after the lobby alone was visited: Pyodide, the
    engine's zip, the card faces and every language's words (to switch language offline too)."""
    return [*(f"{pyodide.PATH}{name}" for name in pyodide.FILES), engine_path, ASSETS.url("cards/cards.svg"),
            *ASSETS.catalogue_urls()]


def config() -> dict[str, object]:
    """What /solo.json tells the solo pages: where the engine is, whether Pyodide is here, and what to
    keep for a game offline."""
    path = ENGINE.format(name=engine()[0])
    here = pyodide.present()
    return {"engine": path, "pyodide": pyodide.PATH if here else None,
            "offline": offline_files(path) if here else []}


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
