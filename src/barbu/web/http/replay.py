"""The replay of finished games in the browser: timelines of records, and analyses of a seat's play.

A record is turned into a step-by-step timeline by the engine; an analysis of one seat's play
(``barbu analyze``) runs in a worker process, its progress told as it goes.

Only a finished game is ever shown this way, every hand face up: a table still being played is
refused (409 ``in-progress``), and so is a record without its deals (the public record of a game in
progress). A record is checked by replaying it through the engine's :class:`State`; one that breaks
a rule is refused with where (hand, action, player) and why.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import multiprocessing
import queue
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from barbu.engine.cards import bits, card_str, parse_card, sorted_cards
from barbu.engine.contracts import Kind
from barbu.engine.errors import IllegalActionError, RecordError
from barbu.engine.game import PASS, Game
from barbu.engine.hand import HandRecord
from barbu.engine.layout import place_card
from barbu.engine.record import game_of, replay
from barbu.engine.state import State
from barbu.engine.tricks import trick_winner
from barbu.tools.analyze import Verdict, analyze, decisions
from barbu.web.core.errors import TableError
from barbu.web.http.endpoints import count_read, refusals, server_of, static_page, who_of
from barbu.web.http.guard import has_lone_surrogate, secret_header
from barbu.web.http.heavy import Answer
from barbu.web.http.limits import Rule
from barbu.web.tables.lobby import Lobby
from barbu.wording import record_names, say

MAX_RECORD = 262144  # bytes of a record sent to the server: a whole classic game is about 20 KiB
COSTLY = 2.0  # points: a decision costing this much is marked (as ``barbu analyze`` counts them)


# -- the timeline ------------------------------------------------------------------------------

def timeline(doc: dict[str, Any]) -> dict[str, Any]:
    """Every hand of a record, face up, with the table as it stands after each of its actions.

    Raises TableError ``bad-record`` (with the place and the rule) for a record the engine refuses.
    """
    frames: dict[int, list[dict[str, Any]]] = {}

    def look(hand: int, index: int, state: State, action: int) -> None:
        frames.setdefault(hand, []).append(frame_after(state, action))

    try:
        game, names = game_of(doc)
        result = replay(doc, on_action=look)
    except RecordError as e:
        raise refused(e, doc) from e
    if not result.hands:
        why = "it holds no hand to replay"
        raise TableError("bad-record", why, 422, args={"variant": "whole", "reason": why})
    hands, running = [], [0] * game.players
    for h in result.hands:
        if h.finished:
            running = [a + b for a, b in zip(running, h.scores, strict=True)]
        hands.append(hand_json(h, game, frames.get(h.hand_no, []), running))
    state = result.state
    return {"ruleset": game.ruleset, "options": sorted(game.options), "names": names,
            "num_hands": game.num_hands, "hands": hands, "totals": list(state.totals),
            "complete": state.is_over, "winners": state.winners()}


def hand_json(h: HandRecord, game: Game, steps: list[dict[str, Any]], totals: list[int]) -> dict[str, Any]:
    """One hand: how it was set up, every seat's cards as dealt, its steps and what it scored."""
    # Each double once, its doubler first: the engine lists the doubles before the redoubles.
    pairs, doubles, seen = set(h.doubles), [], set()
    for a, b in h.doubles:
        if (b, a) not in seen:
            doubles.append([a, b, (b, a) in pairs])
        seen.add((a, b))
    return {"hand_no": h.hand_no, "declarer": h.declarer, "contract": h.contract,
            "layout": game.contracts[game.contract_index(h.contract)].kind != Kind.TRICKS,
            "trump": "SHDC"[h.trump] if h.trump is not None else None,
            "start_rank": "23456789TJQKA"[h.start_rank] if h.start_rank is not None else None,
            "doubles": doubles, "deal": [[card_str(c) for c in sorted_cards(m)] for m in h.deal],
            "set_aside": [card_str(c) for c in bits(h.set_aside)],
            "contract_scores": list(h.contract_scores), "scores": list(h.scores),
            "totals": list(totals), "finished": h.finished, "steps": steps}


def frame_after(before: State, action: int) -> dict[str, Any]:
    """The table just after ``action``: the trick (a full one with its taker), counts, layout."""
    after = before.copy()
    after.apply(action)
    seat = before.current
    step: dict[str, Any] = {"seat": seat, "action": "pass" if action == PASS else card_str(action),
                            "trick_no": before.trick_no}
    c = before.contract
    assert c is not None, "a play action comes after the contract"
    ended = after.hand_no != before.hand_no
    if c.kind == Kind.TRICKS:
        step.update(_trick_after(before, after, action, ended))
    else:
        step.update(_layout_after(before, after, action, ended))
    return step


def _trick_after(before: State, after: State, action: int, ended: bool) -> dict[str, Any]:
    n = before.game.players
    cards = [*before.trick, action]
    seats = [(before.leader + i) % n for i in range(len(cards))]
    tricks, points = list(before.tricks_won), list(before.points)
    won_by = None
    if len(cards) == n:
        won_by = (before.leader + trick_winner(cards, before.trump)) % n
        tricks[won_by] += 1
        points = list(after.history[-1].contract_scores) if ended else list(after.points)
    return {"trick": [[s, card_str(x)] for s, x in zip(seats, cards, strict=True)], "won_by": won_by,
            "tricks": tricks, "points": points, "ended": ended}


def _layout_after(before: State, after: State, action: int, ended: bool) -> dict[str, Any]:
    lo, hi = before.lo[:], before.hi[:]
    if action != PASS:
        place_card(lo, hi, action, before.start_rank, before.set_aside)
    out = list(after.out_order) if not ended else [*before.out_order, before.current]
    return {"lines": [list(x) for x in zip(lo, hi, strict=True)], "out": out, "ended": ended,
            "points": list(after.history[-1].contract_scores) if ended else after.contract_scores()}


def refused(e: RecordError, doc: dict[str, Any]) -> TableError:
    """A record the engine refuses, said with its place counted from 1 and its players by name.

    ``reason`` is the engine's English; ``rule`` (the rule an action broke, if one did) and ``card``
    (the card of that action) let a page say it in its reader's words instead.
    """
    names = record_names(doc)
    reason = say(e.said, names, by_name=True)
    who = names[e.seat] if e.seat is not None and 0 <= e.seat < len(names) else ""
    cause = e.__cause__
    rule = cause.rule if isinstance(cause, IllegalActionError) else ""
    if e.hand is not None and e.action is not None:
        return TableError("bad-record", f"hand {e.hand + 1}, action {e.action + 1}: {reason}", 422,
                          args={"variant": "action", "hand": e.hand + 1, "action": e.action + 1,
                                "name": who, "reason": reason, "rule": rule, "card": _card_at(doc, e)})
    if e.hand is not None:
        return TableError("bad-record", f"hand {e.hand + 1}: {reason}", 422,
                          args={"variant": "hand", "hand": e.hand + 1, "reason": reason, "name": who,
                                "rule": rule})
    return TableError("bad-record", reason, 422, args={"variant": "whole", "reason": reason})


def _card_at(doc: dict[str, Any], e: RecordError) -> str:
    """The card of the action a refusal names, in the record's notation ("" for a pass or no card)."""
    try:
        text = doc["hands"][e.hand]["actions"][e.action]
        return card_str(parse_card(text))
    except (KeyError, IndexError, TypeError, ValueError):
        return ""


# -- the analyses ------------------------------------------------------------------------------

def analyse_elsewhere(doc: dict[str, Any], seat: int, budget: float, out: Any) -> None:
    """In a worker process: ``barbu analyze``'s verdicts, each put on ``out`` as it is made."""
    try:
        analyze(doc, seat, budget, on_verdict=lambda v: out.put(("verdict", verdict_json(v))))
        out.put(("done", None))
    except Exception as e:  # the parent says it failed: a worker has nobody else to tell
        out.put(("failed", str(e)[:300]))


def verdict_json(v: Verdict) -> dict[str, Any]:
    code = "pass" if v.best == PASS else card_str(v.best)
    played = "pass" if v.played == PASS else card_str(v.played)
    out: dict[str, Any] = {"hand": v.hand, "action": v.index, "played": played, "best": code,
                           "cost": round(v.cost, 2)}
    if v.by:
        out["by"] = v.by  # a computer played it in the seat's stead: shown, not judged
    return out


@dataclass
class Job:
    """One analysis of one seat of one record: its worker, progress and verdicts."""

    id: str
    key: str
    seat: int
    total: int
    verdicts: list[dict[str, Any]] = field(default_factory=list)
    status: str = "running"  # or queued (waiting for a place); then done, failed, cancelled or timed-out
    reason: str = ""
    started: float = field(default_factory=time.monotonic)
    process: Any = None
    inbox: Any = None
    owners: frozenset[str] = frozenset()  # who asked (address, person): one analysis under way each
    doc: dict[str, Any] | None = None  # the record, while the job waits for its worker
    position: int = 0  # its place in the queue (1: next), while queued

    def to_json(self) -> dict[str, Any]:
        own = [v for v in self.verdicts if not v.get("by")]  # the person's decisions, not a stand-in's
        costly = sorted((v for v in own if v["cost"] >= COSTLY), key=lambda v: -v["cost"])
        return {"id": self.id, "seat": self.seat, "status": self.status, "done": len(self.verdicts),
                "total": self.total, "position": self.position, "verdicts": self.verdicts,
                "costly": costly[:10],
                "judged": len(own), "cost": round(sum(v["cost"] for v in own), 2),
                "stand_ins": len(self.verdicts) - len(own), "threshold": COSTLY, "reason": self.reason}


class Analyses:
    """A server's analyses: at most ``running`` at once and ``queued`` waiting for a place, one under way
    per person and per address, each bounded in time, kept per (record, seat)."""

    def __init__(self, running: int = 2, budget: float = 0.5, seconds: float = 600.0, kept: int = 64,
                 prefix: str = "", queued: int = 8) -> None:
        self.running = running
        self.queued = queued
        self.queue: list[Job] = []
        self.prefix = prefix  # of the jobs' ids: with several processes, says which one runs the job
        self.budget = budget  # the expert's seconds a decision
        self.seconds = seconds
        self.kept = kept
        self.jobs: OrderedDict[str, Job] = OrderedDict()
        self.by_key: dict[str, str] = {}
        self.context = multiprocessing.get_context("spawn")
        self.watchers: set[asyncio.Task[None]] = set()

    def busy(self) -> int:
        return sum(1 for j in self.jobs.values() if j.status == "running")

    def key(self, doc: dict[str, Any], seat: int) -> str:
        return hashlib.sha256(json.dumps([doc, seat, self.budget], sort_keys=True).encode()).hexdigest()

    def known(self, key: str) -> Job | None:
        """The job already made or running for this key (a cached analysis), if any."""
        job = self.jobs.get(self.by_key.get(key, ""))
        return job if job is not None and job.status in ("running", "queued", "done") else None

    def check_room(self, owners: frozenset[str] = frozenset()) -> None:
        """TableError when a new analysis may neither start nor wait: none allowed (403), one of these
        owners' under way already (429), or every place taken and the queue full (429)."""
        if self.running <= 0:
            raise TableError("too-many-analyses", "this server runs no analyses", 403,
                             args={"variant": "none"})
        under_way = (j for j in self.jobs.values() if j.status in ("running", "queued"))
        mine = next((j for j in under_way if j.owners & owners), None)
        if mine is not None:
            raise TableError("analysis-under-way", "you have an analysis under way already: wait for its end "
                             "or stop it", 429, args={"id": mine.id})
        if self.busy() >= self.running and len(self.queue) >= self.queued:
            raise TableError("too-many-analyses", f"{self.running} analyses are running already: "
                             "please try again in a minute", 429, args={"n": self.running})

    def start(self, doc: dict[str, Any], seat: int, total: int, owners: frozenset[str] = frozenset()) -> Job:
        """A new analysis of this record and seat (``total``: the decisions it will judge): run at once
        when a place is free, else queued (its ``position`` said); TableError as :meth:`check_room`."""
        key = self.key(doc, seat)
        job = self.known(key)
        if job is not None:
            return job
        if total <= 0:
            why = f"seat {seat + 1} has no decision to judge in this record (no finished hand of its own)"
            raise TableError("nothing-to-analyse", why, 400, args={"seat": seat + 1})
        self.check_room(owners)  # checked again: the count of decisions was awaited meanwhile
        job = Job(self.prefix + secrets.token_urlsafe(12), key, seat, total, status="queued", owners=owners,
                  doc=doc)
        self._keep(job)
        self.queue.append(job)
        self._next()
        return job

    def _next(self) -> None:
        """Start the queued jobs that now have a place; tell the others their position."""
        while self.queue and self.busy() < self.running:
            self._launch(self.queue.pop(0))
        for n, job in enumerate(self.queue, 1):
            job.position = n

    def _launch(self, job: Job) -> None:
        job.status, job.position, job.started = "running", 0, time.monotonic()
        job.inbox = self.context.Queue()
        job.process = self.context.Process(target=analyse_elsewhere, daemon=True,
                                           args=(job.doc, job.seat, self.budget, job.inbox))
        job.doc = None
        job.process.start()
        task = asyncio.get_running_loop().create_task(self._watch(job))
        self.watchers.add(task)
        task.add_done_callback(self.watchers.discard)

    def _keep(self, job: Job) -> None:
        self.jobs[job.id] = job
        self.by_key[job.key] = job.id
        while len(self.jobs) > self.kept:
            old = next((j for j in self.jobs.values() if j.status not in ("running", "queued")), None)
            if old is None:
                break
            del self.jobs[old.id]
            self.by_key.pop(old.key, None)

    async def _watch(self, job: Job) -> None:
        """Read the worker's verdicts as they come, without ever waiting on the event loop."""
        while job.status == "running":
            self._drain(job)
            if job.status != "running":
                break
            if not job.process.is_alive():
                self._drain(job)
                if job.status == "running":
                    self._end(job, "failed", "the analysing process stopped before the end")
            elif time.monotonic() - job.started > self.seconds:
                self._end(job, "timed-out", f"an analysis may take at most {self.seconds:g} s")
            await asyncio.sleep(0.1)

    def _drain(self, job: Job) -> None:
        with contextlib.suppress(queue.Empty, OSError, ValueError):
            while job.status == "running":
                kind, data = job.inbox.get_nowait()
                if kind == "verdict":
                    job.verdicts.append(data)
                elif kind == "done":
                    self._end(job, "done")
                else:
                    self._end(job, "failed", str(data))

    def _end(self, job: Job, status: str, reason: str = "") -> None:
        if job in self.queue:
            self.queue.remove(job)
        job.status, job.reason, job.position, job.doc = status, reason, 0, None
        if job.process is not None and job.process.is_alive():
            job.process.terminate()
        if job.inbox is not None:
            with contextlib.suppress(OSError, ValueError):
                job.inbox.close()  # what a stopped worker left in it is not wanted
        if status != "done":
            self.by_key.pop(job.key, None)  # asked again, it is run again
        self._next()  # its place goes to the next in the queue

    def get(self, job_id: str) -> Job:
        job = self.jobs.get(job_id)
        if job is None:
            raise TableError("no-analysis", "there is no such analysis (it may be forgotten: ask again)",
                             404)
        return job

    def cancel(self, job_id: str) -> Job:
        job = self.get(job_id)
        if job.status in ("running", "queued"):
            self._end(job, "cancelled")
        return job

    def close(self) -> None:
        self.running = 0  # nothing queued starts now
        for job in self.jobs.values():
            if job.status in ("running", "queued"):
                self._end(job, "cancelled")
        for task in self.watchers:
            task.cancel()


# -- HTTP --------------------------------------------------------------------------------------

async def read_record_body(request: Request) -> Any:
    """A JSON body of at most MAX_RECORD bytes (a record is bigger than the other requests)."""
    return parse_record(await read_record_bytes(request))


async def read_record_bytes(request: Request) -> bytes:
    """A body of at most MAX_RECORD bytes, as it came."""
    length = request.headers.get("content-length")
    too_big = TableError("record-too-large", f"a record sent to the server is at most {MAX_RECORD} bytes",
                         413, args={"n": MAX_RECORD // 1024})
    if length is not None and (not length.isdigit() or int(length) > MAX_RECORD):
        raise too_big
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_RECORD:
            raise too_big
    return body


def parse_record(body: bytes) -> Any:
    """A record's JSON; TableError ``not-json`` saying where it is not."""
    try:
        doc = json.loads(body)
    except json.JSONDecodeError as e:
        raise TableError("not-json", f"this is not a JSON document: {e.msg} at line {e.lineno}",
                         args={"line": e.lineno}) from None
    except RecursionError:
        raise TableError("not-json", "this is not a JSON document we accept: it is nested too deeply",
                         args={"variant": "deep"}) from None
    except (ValueError, UnicodeDecodeError):
        raise TableError("not-json", "this is not a JSON document we accept: it is not UTF-8 text or holds "
                         "a number too long", args={"variant": "text"}) from None
    if has_lone_surrogate(doc):
        raise TableError("not-json", "this is not a JSON document we accept: it holds a lone surrogate "
                         "(\\ud800 to \\udfff), which is not UTF-8 text", args={"variant": "text"})
    return doc


def finished_record(lobby: Lobby, table_id: str, token: object = None) -> tuple[dict[str, Any], int | None]:
    """A finished table's whole record, and the seat ``token`` opens there (None without one).

    Nothing of a game still being played is given: its deals are hidden until the end.
    """
    table = lobby.get(table_id)
    if not table.state.is_over:
        raise TableError("in-progress", "this game is still being played: it can be replayed once it is over",
                         409)
    seat = None
    if token is not None:
        seat = table.seat_of_token(token)
        if seat is None:
            raise TableError("bad-token", "this token gives no seat at this table", 403,
                             args={"variant": "record"})
    return table.public_record(), seat


def analysis_request(lobby: Lobby, body: Any) -> tuple[dict[str, Any], int]:
    """What an analysis is asked for: a finished table and a seat's token, or a record and a seat."""
    if isinstance(body, dict) and isinstance(body.get("table"), str):
        whole, mine = finished_record(lobby, body["table"], body.get("token") or "")
        assert mine is not None, "a token was checked"
        return whole, mine
    if not isinstance(body, dict) or not isinstance(body.get("record"), dict):
        raise TableError("bad-analysis", 'an analysis is asked with {"record": {...}, "seat": N} or '
                         '{"table": ID, "token": SECRET}')
    doc: dict[str, Any] = body["record"]
    seat = body.get("seat")
    names = record_names(doc)
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(names):
        raise TableError("bad-seat", f"choose a seat of this record, 0 to {len(names) - 1}",
                         args={"variant": "analysis", "n": len(names)})
    return doc, seat


def count_decisions(doc: dict[str, Any], seat: int) -> int:
    try:
        return decisions(doc, seat)
    except RecordError as e:
        raise refused(e, doc) from e


def counted(doc: dict[str, Any], seat: int) -> tuple[int, dict[str, Any] | None]:
    """:func:`count_decisions` in a worker process: the count, or the refusal's parts (a TableError
    does not cross a process: its constructor's arguments are not its ``args``)."""
    try:
        return count_decisions(doc, seat), None
    except TableError as e:
        return 0, {"code": e.code, "message": e.message, "status": e.status, "args": e.slots}


def timeline_answer(doc: Any) -> Answer:
    """A record's timeline as JSON, or its refusal (in a worker process: see barbu.web.http.heavy)."""
    try:
        if isinstance(doc, bytes):
            doc = parse_record(doc)
        if not isinstance(doc, dict):
            raise TableError("bad-record", "a record is a JSON object", 422,
                             args={"variant": "whole", "reason": "a record is a JSON object"})
        return 200, json.dumps(timeline(doc), ensure_ascii=False).encode()
    except TableError as e:
        return e.status, json.dumps(e.body(), ensure_ascii=False).encode()


def analyses_of(request: Request) -> Analyses:
    """The analyses of the application answering this request (build_app keeps them in its state)."""
    analyses: Analyses = request.app.state.analyses
    return analyses


def owners(request: Request) -> frozenset[str]:
    """Who asks for an analysis: their address and person, each holding at most so many running."""
    return frozenset(who_of(server_of(request), request).keys(Rule("analysis", 1)))


async def page(request: Request) -> Response:
    return static_page("replay.html")


async def table_timeline(request: Request) -> Response:
    server = server_of(request)
    table_id = request.path_params["table_id"]
    # A finished game's record no longer changes: its timeline is worked out once while it is kept
    # (and its record, which takes milliseconds to make, is not made again either).
    key = "table:" + table_id
    kept = server.heavy.cached(key) if server.tables.get(table_id).state.is_over else None
    doc = finished_record(server.tables, table_id)[0] if kept is None else {}  # refuses a game in progress
    await count_read(request)
    status, body = kept or await server.heavy.answer(key, timeline_answer, doc)
    if status == 200:
        # The seat this browser's token opens, for "Analyse my play"; a lapsed token is no refusal here.
        token = secret_header(request, "x-barbu-token")
        you = server.tables.get(table_id).seat_of_token(token) if token else None
        body = body[:-1] + b', "you": ' + json.dumps(you).encode() + b"}"  # the object's last member
    return Response(body, status, media_type="application/json")


async def record_timeline(request: Request) -> Response:
    raw = await read_record_bytes(request)
    await count_read(request)
    key = "record:" + hashlib.sha256(raw).hexdigest()
    status, body = await server_of(request).heavy.answer(key, timeline_answer, raw)
    return Response(body, status, media_type="application/json")


async def start(request: Request) -> Response:
    analyses = analyses_of(request)
    doc, seat = analysis_request(server_of(request).tables, await read_record_body(request))
    job = analyses.known(analyses.key(doc, seat))
    if job is None:
        asking = owners(request)
        analyses.check_room(asking)  # said before the record is replayed to count its decisions
        total, refusal = await server_of(request).heavy.run(counted, doc, seat)
        if refusal is not None:
            raise TableError(refusal["code"], refusal["message"], refusal["status"], args=refusal["args"])
        job = analyses.start(doc, seat, total, asking)
    return JSONResponse(job.to_json(), status_code=202)


async def progress(request: Request) -> Response:
    return JSONResponse(analyses_of(request).get(request.path_params["job_id"]).to_json())


async def cancel(request: Request) -> Response:
    return JSONResponse(analyses_of(request).cancel(request.path_params["job_id"]).to_json())


def routes() -> list[BaseRoute]:
    """The replay's page, ``/api/tables/ID/timeline``, ``/api/timeline`` (a record as the body) and
    ``/api/analysis``."""
    return [
        Route("/replay", page),
        Route("/replay/{table_id}", page),
        Route("/api/tables/{table_id}/timeline", refusals(table_timeline)),
        Route("/api/timeline", refusals(record_timeline), methods=["POST"]),
        Route("/api/analysis", refusals(start), methods=["POST"]),
        Route("/api/analysis/{job_id}", refusals(progress), methods=["GET"]),
        Route("/api/analysis/{job_id}", refusals(cancel), methods=["DELETE"]),
    ]
