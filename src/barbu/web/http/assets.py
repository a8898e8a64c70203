"""The static files and pages, cache-busted: each file's address carries a stamp of its content.

At startup every file of the static folder gets a stamp (the start of its SHA-256). The pages the
server serves name their files as ``/static/style.css?v=<stamp>``: such an address never changes
content, so the browser keeps it a year without asking again (``immutable``); a new release
changes the stamp, hence the address. The pages themselves, the unstamped addresses and a stamp
that is not the file's current one are ``no-cache``: asked again each time (a static file is
answered 304 when unchanged). The service worker (shell.py) keeps the stamped addresses the pages
name, so that the app opens without a connection.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import os
import re
from pathlib import Path

from starlette.datastructures import Headers, QueryParams
from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

LONG = "public, max-age=31536000, immutable"  # a year: a stamped address never changes content
FRESH = "no-cache"  # kept, but checked with the server (ETag) before each use
CATALOGUES = "i18n"  # the folder of the pages' word lists, which i18n.js fetches itself
# A file named by a page, in an attribute (src="/static/table.js", href="/static/style.css"), or in a
# data- attribute of the tag of the script that fetches it (cards.js's data-sprite): stamped alike.
_NAMED = re.compile(r'(?P<attr>(?:src|href|data-[\w-]+)=")/static/(?P<path>[\w./-]+)"')
# Crawlers may read every page, not the API nor the sockets.
ROBOTS = """User-agent: *
Disallow: /api/
Disallow: /ws/
"""


def stamp_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


class Assets:
    """The stamps of the static folder's files, and its pages with stamped addresses (made once)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.stamps = {p.relative_to(folder).as_posix(): stamp_of(p.read_bytes())
                       for p in sorted(folder.rglob("*")) if p.is_file()}
        # One stamp for every catalogue: i18n.js adds it to the address of the one it fetches.
        words = "".join(v for k, v in self.stamps.items() if k.startswith(CATALOGUES + "/"))
        self.catalogues = stamp_of(words.encode())
        self.pages: dict[str, bytes] = {}

    def stamp(self, path: str) -> str | None:
        """A file's stamp: the catalogues' one for a catalogue; None for a file the folder does not hold."""
        if path not in self.stamps:
            return None
        return self.catalogues if path.startswith(CATALOGUES + "/") else self.stamps[path]

    def url(self, path: str) -> str:
        """The stamped address of a static file (the bare one for a file the folder does not hold)."""
        stamp = self.stamp(path)
        return f"/static/{path}?v={stamp}" if stamp else f"/static/{path}"

    def page(self, name: str) -> bytes:
        """A page of the static folder with every file it names stamped."""
        if name not in self.pages:
            html = (self.folder / name).read_text(encoding="utf-8")
            html = _NAMED.sub(lambda m: f'{m["attr"]}{self.url(m["path"])}"', html)
            # i18n.js learns the catalogues' stamp from its own tag.
            html = html.replace(f'<script src="{self.url("i18n.js")}"',
                                f'<script src="{self.url("i18n.js")}" data-catalogues="{self.catalogues}"')
            self.pages[name] = html.encode()
        return self.pages[name]

    def named(self) -> list[str]:
        """The stamped addresses of the files the pages load (scripts, styles, icons), not those a script
        fetches when it needs them (the card faces: large, and only for a table or a replay)."""
        found: set[str] = set()
        for html in sorted(self.folder.glob("*.html")):
            found.update(m["path"] for m in _NAMED.finditer(html.read_text(encoding="utf-8"))
                         if not m["attr"].startswith("data-"))
        return sorted(self.url(path) for path in found if path in self.stamps)

    def page_response(self, name: str) -> Response:
        """The page, ``no-cache``: the browser asks again each time, so that a release is seen at once."""
        return Response(self.page(name), media_type="text/html", headers={"Cache-Control": FRESH})

    def catalogue_urls(self) -> list[str]:
        """Every language's words, at the stamped address i18n.js fetches them from."""
        return [self.url(path) for path in self.stamps if path.startswith(CATALOGUES + "/")]

    def is_current(self, path: str, stamp: str | None) -> bool:
        return stamp is not None and self.stamp(path) == stamp


BIG = 64 * 1024  # a file past this size is compressed once per process, not at every request
GAIN = 0.9  # ...and sent compressed only when that saves a tenth at least (a zip is compressed already)


@functools.lru_cache(maxsize=32)
def _gzipped(path: Path, size: int, mtime_ns: int) -> bytes | None:
    """A large file's gzip, made once for a given version of the file (size and time name it); None
    when it would not gain enough."""
    data = path.read_bytes()
    packed = gzip.compress(data, compresslevel=6, mtime=0)
    return packed if len(packed) <= GAIN * len(data) else None


def compressed_once(request: Headers, response: Response) -> Response:
    """A large file's response, compressed from the copy made once when the client accepts gzip (the
    compression middleware would compress it again at every request: 0.45 s of a core for Pyodide's
    9.6 MB, which anyone could ask for in a loop); any other response as it is."""
    if not isinstance(response, FileResponse) or response.status_code != 200 or "range" in request:
        return response
    if "gzip" not in request.get("accept-encoding", ""):
        return response
    st = os.stat(response.path)
    packed = _gzipped(Path(response.path), st.st_size, st.st_mtime_ns) if st.st_size > BIG else None
    if packed is None:
        return response
    headers = {k: v for k, v in response.headers.items() if k not in ("content-length", "accept-ranges")}
    headers |= {"content-encoding": "gzip", "vary": "Accept-Encoding"}
    if "etag" in headers:  # another representation of the same file: a weak tag (a 304 still matches it)
        headers["etag"] = "W/" + headers["etag"].removeprefix("W/")
    return Response(packed, status_code=200, headers=headers)


class StampedFiles(StaticFiles):
    """The static folder, kept a year by the browser when asked by its current stamp (?v=)."""

    def __init__(self, assets: Assets) -> None:
        super().__init__(directory=assets.folder)
        self.assets = assets

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = compressed_once(Headers(scope=scope), await super().get_response(path, scope))
        if response.status_code in (200, 304):
            stamp = QueryParams(scope.get("query_string", b"")).get("v")
            current = self.assets.is_current(path.replace("\\", "/"), stamp)
            response.headers["Cache-Control"] = LONG if current else FRESH
        return response


async def robots(request: Request) -> Response:
    return PlainTextResponse(ROBOTS, headers={"Cache-Control": "public, max-age=86400"})


def routes() -> list[BaseRoute]:
    return [Route("/robots.txt", robots, methods=["GET"])]
