"""The app people install: its web app manifest, its service worker (/sw.js) and the page shown offline.

The worker's script is static/sw.js with two lines written here: the release's version (a stamp of
what it keeps, so that a release installs a new worker, whose cache replaces the old one) and the
list it keeps at install, the app shell: the stamped addresses of every file the pages name, the
offline page and the score keeper's page. It is served from the site's root, since a worker controls
only the pages under its own path, and ``no-cache``, so that a release is seen at the next visit.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from barbu.web.http.assets import FRESH, stamp_of
from barbu.web.http.endpoints import ASSETS, STATIC, static_page

MANIFEST = "/manifest.webmanifest"
WORKER = "/sw.js"
OFFLINE = "/offline"  # the page the worker answers a page with when the network does not
KEEPER = "/score"  # the score keeper's page (the same for /score/<id>): it works offline, so it is kept
SOLO, PLAY = "/solo", "/play"  # solo play's lobby and table (http/solo.py): they work offline too
SOLO_FILES = ("/solo.json", "/static/solo-worker.mjs")  # what the solo table reads besides its page's files
THEME = "#0a3b24"  # the top bar's colour (style.css --felt-dark): the window's title bar
BACKGROUND = "#0f5132"  # the pages' felt (style.css --felt): the splash screen while the app opens
# The manifest's icons: file, sizes, purpose ("maskable": full bleed, for the launchers' masks).
ICONS = [("icons/icon.svg", "any", "any"), ("icons/icon-192.png", "192x192", "any"),
         ("icons/icon-512.png", "512x512", "any"), ("icons/icon-maskable-512.png", "512x512", "maskable")]
_VERSION = re.compile(r'^const VERSION = ".*";', re.M)
_SHELL = re.compile(r"^const SHELL = \[\];", re.M)


def manifest() -> dict[str, Any]:
    """The web app manifest: what a phone needs to put Barbu on its home screen, in its own window."""
    return {
        "id": "/", "name": "Barbu", "short_name": "Barbu", "start_url": "/", "scope": "/",
        "display": "standalone", "theme_color": THEME, "background_color": BACKGROUND,
        "description": "The card game Barbu: play at a table in the browser, or keep the score of a game.",
        "icons": [{"src": ASSETS.url(path), "sizes": sizes, "purpose": purpose,
                   "type": "image/svg+xml" if path.endswith(".svg") else "image/png"}
                  for path, sizes, purpose in ICONS],
    }


def app_shell() -> list[str]:
    """What the worker keeps at install: the offline page, the pages that work offline, the pages' files
    and the manifest they name (Pyodide and the engine are kept once a solo game or its lobby loaded
    them: sw.js, sw-register.js)."""
    # An address listed twice would fail the worker's install (Cache.addAll refuses duplicates).
    return list(dict.fromkeys([OFFLINE, KEEPER, SOLO, PLAY, *SOLO_FILES, MANIFEST, *ASSETS.named()]))


@functools.cache
def worker_script() -> bytes:
    """static/sw.js with this release's version and app shell written in (made once)."""
    shell = app_shell()
    template = (STATIC / "sw.js").read_text(encoding="utf-8")
    version = stamp_of((template + "\n".join(shell)).encode())
    script = _VERSION.sub(f'const VERSION = "{version}";', template, count=1)
    return _SHELL.sub(f"const SHELL = {json.dumps(shell)};", script, count=1).encode()


async def manifest_file(request: Request) -> Response:
    return JSONResponse(manifest(), media_type="application/manifest+json", headers={"Cache-Control": FRESH})


async def worker(request: Request) -> Response:
    return Response(worker_script(), media_type="text/javascript", headers={"Cache-Control": FRESH})


async def offline(request: Request) -> Response:
    return static_page("offline.html")


def routes() -> list[BaseRoute]:
    return [Route(MANIFEST, manifest_file, methods=["GET"]), Route(WORKER, worker, methods=["GET"]),
            Route(OFFLINE, offline, methods=["GET"])]
