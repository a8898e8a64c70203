"""The tutorial's pages (``/learn``, ``/learn/LESSON``) and their API: the lessons with what is done,
a lesson's positions and answers in a language, and a lesson marked done in the profile.

A guest's progress stays in the browser (the page keeps it); a signed-in person's is stored with the
profile. A lesson's real hand is a table made by ``POST /api/tables`` with ``{"lesson": ID}``.
"""

from __future__ import annotations

import asyncio

from starlette.convertors import Convertor, register_url_convertor
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from barbu.learn.lessons import lessons
from barbu.learn.pages import lesson_page
from barbu.learn.progress import lesson_ids
from barbu.web.core.errors import TableError
from barbu.web.core.rows import PlayerBatch, PlayerRow
from barbu.web.core.words import languages
from barbu.web.http.endpoints import PROFILE_HEADER, refusals, server_of, static_page, who_of
from barbu.web.http.guard import secret_header
from barbu.web.http.limits import Rule
from barbu.web.tables.rules import figures


class LessonId(Convertor[str]):
    """A path part that is a lesson's id, and nothing else: the other pages under /learn (the drills')
    are not caught by the lessons' route."""

    regex = "|".join(sorted(lesson_ids(), key=len, reverse=True))

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("lesson", LessonId())


async def page(request: Request) -> Response:
    return static_page("learn.html")


def _profile(request: Request) -> PlayerRow | None:
    """The profile the request proves (None without one; a wrong one is refused)."""
    return server_of(request).profiles.optional(secret_header(request, PROFILE_HEADER))


def _lesson_id(request: Request) -> str:
    lesson_id = str(request.path_params["lesson"])
    if lesson_id not in lesson_ids():
        raise TableError("no-such-lesson", f"no lesson {lesson_id[:40]!r}: GET /api/learn lists them", 404)
    return lesson_id


def _lang(request: Request) -> str:
    lang = request.query_params.get("lang", "en")
    if lang not in languages():
        raise TableError("bad-lang", f"lang is one of {', '.join(languages())}")
    return lang


async def listing(request: Request) -> Response:
    """Every lesson (id, rule set, contract, positions, the contract's figures) and which are done."""
    player = _profile(request)
    done = set(server_of(request).profiles.store.lessons_of(player.id)) if player is not None else set()
    out = []
    for x in lessons():
        scoring = x.scoring()
        out.append({"id": x.id, "ruleset": x.ruleset, "contract": x.contract, "positions": len(x.positions),
                    "figures": figures(scoring) if scoring is not None else {}, "done": x.id in done})
    return JSONResponse({"lessons": out, "signed_in": player is not None,
                         "left": sum(not x["done"] for x in out), "total": len(out)})


async def one(request: Request) -> Response:
    """A lesson's positions as its learner's seat sees them, with every choice's answer in ``lang``."""
    lesson_id, lang = _lesson_id(request), _lang(request)
    # Made once per lesson and language (the computers play each choice's hand on): off the event loop.
    return JSONResponse(await asyncio.to_thread(lesson_page, lesson_id, lang))


async def done(request: Request) -> Response:
    """The lesson marked done in the profile of the request, once stored: the lessons done."""
    server = server_of(request)
    lesson_id = _lesson_id(request)
    player = server.profiles.authenticate(secret_header(request, PROFILE_HEADER))
    n = server.config.lessons_per_minute

    def refuse(wait: int) -> TableError:
        return TableError("too-many-lessons", f"at most {n} lessons marked done a minute from one person or "
                          f"address: wait {wait} s", 429, args={"n": n, "seconds": wait})
    async with server.limiter.hold(Rule("lessons", n), who_of(server, request), refuse):
        await server.store_player(PlayerBatch(player.id, lesson_done=lesson_id))
    return JSONResponse({"done": server.profiles.store.lessons_of(player.id)})


def routes() -> list[BaseRoute]:
    return [
        Route("/learn", page),
        Route("/learn/{lesson:lesson}", page),
        Route("/api/learn", refusals(listing), methods=["GET"]),
        Route("/api/learn/{lesson}", refusals(one), methods=["GET"]),
        Route("/api/learn/{lesson}/done", refusals(done), methods=["POST"]),
    ]
