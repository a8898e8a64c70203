"""The ASGI application: the routes of every area, the guard before them, the static files, and its life.

Each area's routes live in a module of their own (tables, sockets, profiles, sheets, rules, replay,
ladder) and find the :class:`~barbu.web.http.server.Server` in the application's state.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import DEFAULT_EXCLUDED_CONTENT_TYPES, GZipMiddleware
from starlette.routing import Mount

from barbu.web.http import (
    assets,
    drills,
    inviteapi,
    ladder,
    learn,
    mailapi,
    profiles,
    pushapi,
    replay,
    rules,
    sheets,
    shell,
    sockets,
    solo,
    tables,
)
from barbu.web.http.config import Config
from barbu.web.http.endpoints import ASSETS
from barbu.web.http.guard import Guard, http_refusal
from barbu.web.http.limits import Limiter, RedisCounters
from barbu.web.http.replay import Analyses
from barbu.web.http.server import Server

log = logging.getLogger("barbu.web")

# Compressed when the client accepts gzip: pages, scripts, styles, catalogues, JSON (a replay's timeline is
# large). Not what is compressed already (Starlette's list, and the PDFs), nor the WebSockets (HTTP only).
# No BREACH here: the secrets a response may hold answer requests that carry a secret header, which
# another site cannot make a browser send.
UNCOMPRESSED = (*DEFAULT_EXCLUDED_CONTENT_TYPES, "application/pdf")


def build_app(config: Config) -> Starlette:
    """The whole web application for one database."""
    server = Server(config)
    if config.bus is not None:
        from barbu.web.cluster.relay import Cluster  # redis-py is needed only by a group of processes

        server.cluster = Cluster(server, config.bus, sockets.serving(server))
        server.limiter = Limiter(RedisCounters(server.cluster.bus.redis))  # one count for the group
    # With several processes a job's id names the one running it, where its progress is asked for.
    prefix = server.cluster.job_prefix if server.cluster is not None else ""
    analyses = Analyses(config.max_analyses, config.analysis_budget, config.analysis_seconds, prefix=prefix,
                        queued=config.analysis_queue)
    routes = [
        *tables.routes(),
        *sockets.routes(),
        *profiles.routes(),
        *pushapi.routes(),
        *mailapi.routes(),
        *inviteapi.routes(),
        *sheets.routes(),
        *rules.routes(),
        *replay.routes(),
        *ladder.routes(),
        *learn.routes(),
        *drills.routes(),
        *assets.routes(),
        *shell.routes(),
        *solo.routes(),
        Mount("/static", assets.StampedFiles(ASSETS), name="static"),
    ]
    middleware = [Middleware(GZipMiddleware, minimum_size=500, compresslevel=6,
                             exclude_content_types=UNCOMPRESSED), Middleware(Guard)]
    app = Starlette(routes=routes, lifespan=lifespan, middleware=middleware,
                    exception_handlers={HTTPException: http_refusal})
    app.state.server = server
    app.state.analyses = analyses
    return app


@contextlib.asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    """Open the server (and join its group) before the first request; close it after the last."""
    server: Server = app.state.server
    analyses: Analyses = app.state.analyses
    server.open()
    if server.cluster is not None:
        await server.cluster.start()
    log.info("serving tables from %s", server.store.path if server.store else server.config.db_path)
    try:
        yield
    finally:
        analyses.close()
        await server.close()
