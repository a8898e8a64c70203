"""The practice drills in the browser: their page (``/learn/drills``) and API (``/api/drills``…).

A drill is shown as its seat's view and its choices; an answer is said right or wrong with its cost
and the coach's reasons. A signed-in person's record is kept in their profile (written before the
answer is given back); a guest's stays in the browser, which sends the last drills' ids and its
weakest contract when it asks for the next drill. Answers are counted per person and address.
"""

from __future__ import annotations

import json
import random
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from barbu.engine.cards import card_str, sorted_cards
from barbu.engine.game import RULESETS, Game
from barbu.learn import drills as learn
from barbu.learn.positions import game_for
from barbu.web.core.errors import TableError
from barbu.web.core.rows import PlayerBatch, PlayerRow
from barbu.web.http.endpoints import (
    PROFILE_HEADER,
    json_body,
    refusals,
    server_of,
    static_page,
    who_of,
)
from barbu.web.http.guard import secret_header
from barbu.web.http.limits import Rule
from barbu.web.tables.coaching import reason_of

MAX_RECENT = 20  # ids a guest's page may send as its last drills
MAX_QUERY = 1000  # characters of a query string the drills' reads accept


async def page(request: Request) -> Response:
    return static_page("drills.html")


def _drill(request: Request) -> learn.Drill:
    found = learn.drills().get(str(request.path_params["drill"]))
    if found is None:
        raise TableError("no-such-drill", "there is no drill of that id", 404)
    return found


def view(d: learn.Drill) -> dict[str, Any]:
    """What the page draws of a drill: the seat's view at the decision and the choices, in the order
    offered; the key is not in it."""
    obs = d.observation()
    g = obs.game
    return {
        "id": d.id, "rules": d.rules, "players": d.players, "contract": d.contract, "kind": d.kind,
        "seat": d.seat, "declarer": obs.declarer, "leader": obs.leader,
        "playing": obs.contract.id if obs.contract is not None else None,
        "hand": [card_str(c) for c in sorted_cards(obs.hand)], "hand_sizes": list(obs.hand_sizes),
        "trick": [[s, card_str(c)] for s, c in obs.trick],
        "trump": "SHDC"[obs.trump] if obs.trump is not None else None,
        "start_rank": "23456789TJQKA"[obs.start_rank] if obs.start_rank is not None else None,
        "lines": [list(x) for x in obs.lines], "tricks_won": list(obs.tricks_won),
        "points": list(obs.points), "doubles": [list(p) for p in obs.doubles],
        "choices": [g.action_str(a) for a in d.shown()],
    }


def answered(g: Game, a: learn.Answer) -> dict[str, Any]:
    """An answer for the page: right or not, the key, the cost in points and the reasons (against the
    choice made, or against the most tempting wrong one when it was right)."""
    d = a.drill
    against = d.tempting() if a.right else a.choice
    return {"id": d.id, "right": a.right, "choice": g.action_str(a.choice), "key": g.action_str(d.key),
            "cost": a.cost, "against": g.action_str(against),
            "reasons": [reason_of(g, r) for r in d.reasons[against]],
            "values": {g.action_str(c): d.values[c] for c in d.choices}}


def person(request: Request) -> PlayerRow | None:
    """The signed-in person asking (a wrong credential is refused), or None for a guest."""
    credential = secret_header(request, PROFILE_HEADER)
    return None if credential is None else server_of(request).profiles.authenticate(credential)


def record_of(request: Request, row: PlayerRow) -> learn.Record:
    text = server_of(request).profiles.store.drill_record(row.id)
    return learn.Record.from_json(json.loads(text)) if text else learn.Record()


def record_json(rec: learn.Record) -> dict[str, Any]:
    return {**rec.to_json(), "weakest": rec.weakest()}


def _query(request: Request) -> tuple[str | None, str | None, list[str], str | None]:
    """The next drill's question: rules, contract, a guest's last ids and weakest contract."""
    if len(request.url.query) > MAX_QUERY:
        raise TableError("bad-drill-query", f"a drills' query is at most {MAX_QUERY} characters", 414)
    q = request.query_params
    rules = q.get("rules") or None
    if rules is not None and rules not in RULESETS:
        raise TableError("no-such-rules", "there are two rule sets: classic and family", 400)
    contract = q.get("contract") or None
    if contract is not None and not any(c.endswith(f":{contract}") for c in learn.categories(rules)):
        raise TableError("no-such-contract", "no drills of that contract in those rules", 400)
    recent = [i for i in (q.get("recent") or "").split(",") if i][:MAX_RECENT]
    weak = q.get("weak") or None
    return rules, contract, recent, weak if weak in learn.categories() else None


async def next_drill(request: Request) -> Response:
    rules, contract, recent, weak = _query(request)
    row = person(request)
    rec = record_of(request, row) if row is not None else learn.Record()
    if row is None and weak is not None:  # a guest's record lives in the browser: its weakest, as sent
        rec.tallies[weak] = learn.Tally(0, 3, 0.0)
    d = learn.pick(rec, random.Random(), rules=rules, contract=contract, recent=recent)
    return JSONResponse(view(d))


async def one(request: Request) -> Response:
    return JSONResponse(view(_drill(request)))


async def answer(request: Request) -> Response:
    server = server_of(request)
    d = _drill(request)
    body = await json_body(request)
    choice = body.get("choice") if isinstance(body, dict) else None
    g = game_for(d.rules, d.players)
    offered = {g.action_str(c): c for c in d.choices}
    if not isinstance(choice, str) or choice not in offered:
        raise TableError("bad-choice", "send {\"choice\": TEXT}, one of the drill's choices", 400,
                         args={"choices": ", ".join(offered)})
    n = server.config.drills_per_minute

    def refuse(wait: int) -> TableError:
        return TableError("too-many-answers", f"at most {n} drill answers a minute from one person or "
                          f"address: wait {wait} s", 429, args={"n": n, "seconds": wait})
    row = person(request)
    await server.limiter.take(Rule("drills", n), who_of(server, request), refuse)
    a = learn.answer(d, offered[choice])
    out = answered(g, a)
    if row is not None:
        rec = record_of(request, row)
        rec.add(a)
        await server.store_player(PlayerBatch(row.id, drills=json.dumps(rec.to_json())))
        out["record"] = record_json(rec)
    return JSONResponse(out)


async def mine(request: Request) -> Response:
    row = person(request)
    if row is None:
        raise TableError("no-profile", "a record of drills is kept for a profile: send its credential", 401)
    return JSONResponse(record_json(record_of(request, row)))


async def catalogue(request: Request) -> Response:
    """The contracts that have drills, with how many each, and the mining run's figures."""
    counts = dict.fromkeys(learn.categories(), 0)
    for d in learn.drills().values():
        counts[d.category] += 1
    return JSONResponse({"contracts": [{"rules": c.split(":")[0], "contract": c.split(":")[1], "drills": n}
                                       for c, n in counts.items()], "figures": learn.figures()})


def routes() -> list[BaseRoute]:
    return [
        Route("/learn/drills", page),
        Route("/api/drills", refusals(catalogue), methods=["GET"]),
        Route("/api/drills/next", refusals(next_drill), methods=["GET"]),
        Route("/api/drills/{drill}", refusals(one), methods=["GET"]),
        Route("/api/drills/{drill}/answer", refusals(answer), methods=["POST"]),
        Route("/api/me/drills", refusals(mine), methods=["GET"]),
    ]

