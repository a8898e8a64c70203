"""The HTTP API of the score keeper (``/api/sheets``): small JSON, refusals as 4xx with a field."""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from barbu.web.core.errors import TableError
from barbu.web.core.words import words
from barbu.web.http.endpoints import (
    TOKEN_HEADER,
    count_read,
    json_body,
    refusals,
    server_of,
    static_page,
    who_of,
)
from barbu.web.http.guard import secret_header
from barbu.web.sheets import sheet as sheetmod
from barbu.web.sheets.sheet import Sheet


def sheet_of(request: Request, *, write: bool) -> tuple[Sheet, bool]:
    """The sheet of the request's path, and whether its link's secret opens it for writing."""
    sheet = server_of(request).sheets.get(request.path_params["sheet_id"])
    token = secret_header(request, TOKEN_HEADER)
    if token and not sheet.may_write(token):
        raise TableError("bad-token", "this link's secret does not open this sheet for writing", 403,
                         args={"variant": "sheet"})
    if write and not token:
        raise TableError("read-only", "this link only shows the sheet: open the link with its secret "
                         "(#k=…) to enter hands", 403)
    return sheet, bool(token)


async def page(request: Request) -> Response:
    return static_page("score.html")


async def create(request: Request) -> Response:
    server = server_of(request)
    doc = sheetmod.parse_setup(await json_body(request))
    sheet = await server.create_sheet(doc, who_of(server, request))
    link = f"/score/{sheet.id}#k={sheet.token}"
    return JSONResponse({"id": sheet.id, "token": sheet.token, "link": link,
                         "view": sheetmod.view(sheet, True)}, status_code=201)


async def show(request: Request) -> Response:
    sheet, writable = sheet_of(request, write=False)
    return JSONResponse(sheetmod.view(sheet, writable))


async def check(request: Request) -> Response:
    sheet, _ = sheet_of(request, write=False)
    body = await json_body(request)
    if not isinstance(body, dict):
        raise TableError("bad-hand", "a check is a JSON object with the \"data\" of a hand")
    return JSONResponse(sheet.check(body.get("hand"), body.get("data")))


async def change(request: Request, kind: str, k: object, body: Any) -> Response:
    sheet, _ = sheet_of(request, write=True)
    entry, op = sheetmod.parse_op(kind, k, body)
    made = await server_of(request).change_sheet(sheet, entry, op)
    return JSONResponse({**sheetmod.view(sheet, True), "repeat": not made})


async def add(request: Request) -> Response:
    body = await json_body(request)
    return await change(request, "add", body.get("hand") if isinstance(body, dict) else None, body)


async def edit(request: Request) -> Response:
    return await change(request, "edit", request.path_params["k"], await json_body(request))


async def undo(request: Request) -> Response:
    body = await json_body(request)
    return await change(request, "undo", body.get("hand") if isinstance(body, dict) else None, body)


async def hand_frame(request: Request) -> Response:
    sheet, _ = sheet_of(request, write=False)
    return JSONResponse(sheet.frame_at(request.path_params["k"]))


async def export(request: Request) -> Response:
    sheet, _ = sheet_of(request, write=False)
    kind = request.path_params["kind"]
    if kind not in ("json", "csv", "pdf"):
        raise TableError("not-found", "a sheet's exports are json, csv and pdf", 404)
    name = f"barbu-sheet-{sheet.id}.{kind}"
    disposition = {"Content-Disposition": f'attachment; filename="{name}"'}
    if kind == "json":
        body = json.dumps(sheet.doc, indent=1, ensure_ascii=False) + "\n"
        return Response(body, media_type="application/json", headers=disposition)
    w = words(request.query_params.get("lang"))  # the reader's language; English if unknown
    if kind == "csv":
        return Response(sheetmod.csv_text(sheet, w), media_type="text/csv; charset=utf-8",
                        headers=disposition)
    await count_read(request)
    key = f"pdf:{sheet.id}:{sheet.version}:{w.lang}"  # a sheet's version changes with each hand
    _, pdf = await server_of(request).heavy.answer(key, sheetmod.pdf_answer, sheet.id, sheet.doc,
                                                   sheet.version, w.lang)
    return Response(pdf, media_type="application/pdf", headers=disposition)


def routes() -> list[BaseRoute]:
    """The score keeper's pages and its API."""
    return [
        Route("/score", page),
        Route("/score/{sheet_id}", page),
        Route("/api/sheets", refusals(create), methods=["POST"]),
        Route("/api/sheets/{sheet_id}", refusals(show), methods=["GET"]),
        Route("/api/sheets/{sheet_id}/check", refusals(check), methods=["POST"]),
        Route("/api/sheets/{sheet_id}/hands", refusals(add), methods=["POST"]),
        Route("/api/sheets/{sheet_id}/hands/{k:int}", refusals(edit), methods=["PUT"]),
        Route("/api/sheets/{sheet_id}/hands/{k:int}", refusals(hand_frame), methods=["GET"]),
        Route("/api/sheets/{sheet_id}/undo", refusals(undo), methods=["POST"]),
        Route("/api/sheets/{sheet_id}/{kind:str}", refusals(export), methods=["GET"]),
    ]
