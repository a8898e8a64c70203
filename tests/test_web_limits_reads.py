"""The costly reads (timelines, a sheet's PDF) are limited per person and address, cached, and worked out
in a worker process so that the event loop keeps answering the other tables."""

from __future__ import annotations

import asyncio
import json
import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests.test_web_limits_atomic import client, serving
from tests.test_web_replay import golden
from tests.test_web_sheets import KING, add, start
from tests.test_web_tables import play_by_views
from tests.test_web_ws import app_for, create, server_of
from tests.web_helpers import Recorder, fresh_db


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A database with one game of four people played to its end."""
    db = fresh_db(tmp_path_factory.mktemp("reads"), "r.db")
    with TestClient(app_for(db)) as c:
        made = create(c, name="P1", seats=[{"kind": "human"}] * 4)
        table = server_of(c).tables.get(made["id"])
        tokens = dict(table.tokens())
        players = []
        for s in table.seats:
            rec = Recorder(table, s.row.seat)
            table.attach(rec, tokens[s.row.seat], f"P{s.row.seat + 1}")
            players.append(rec)
        play_by_views(table, players, random.Random(3), hands=table.game.num_hands)
        assert table.state.is_over
        return {"db": db, "id": made["id"], "token": table.seats[1].row.token}


def test_timelines_and_prints_are_limited_per_address_and_person(finished: dict[str, Any]) -> None:
    with TestClient(app_for(finished["db"], reads_per_minute=3)) as c:
        url = f"/api/tables/{finished['id']}/timeline"
        assert [c.get(url).status_code for _ in range(3)] == [200] * 3
        res = c.get(url)
        assert res.status_code == 429 and res.json()["error"]["code"] == "too-many-reads"
        assert res.json()["error"]["args"]["n"] == 3
        assert c.post("/api/timeline", content=json.dumps(golden())).status_code == 429
        sid, _ = start(c)
        assert c.get(f"/api/sheets/{sid}/pdf").status_code == 429


def test_a_finished_games_timeline_is_worked_out_once(finished: dict[str, Any]) -> None:
    with TestClient(app_for(finished["db"])) as c:
        heavy = server_of(c).heavy
        url = f"/api/tables/{finished['id']}/timeline"
        first = c.get(url).json()
        second = c.get(url, headers={"X-Barbu-Token": finished["token"]}).json()
        assert heavy.calls == 1
        assert first["you"] is None and second["you"] == 1  # the seat is said per request, not cached
        assert {**first, "you": 1} == second and first["complete"]
        for _ in range(2):
            assert c.post("/api/timeline", content=json.dumps(golden())).status_code == 200
        assert heavy.calls == 2
        bad = c.post("/api/timeline", content="[1, 2]")  # a refusal made in the worker comes back as one
        assert bad.status_code == 422 and bad.json()["error"]["code"] == "bad-record"


def test_a_sheets_pdf_is_made_once_per_version_and_language(tmp_path: Path) -> None:
    with TestClient(app_for(fresh_db(tmp_path))) as c:
        heavy = server_of(c).heavy
        sid, auth = start(c)
        pdfs = [c.get(f"/api/sheets/{sid}/pdf").content for _ in range(2)]
        assert pdfs[0] == pdfs[1] and pdfs[0].startswith(b"%PDF") and heavy.calls == 1
        c.get(f"/api/sheets/{sid}/pdf?lang=fr")
        assert heavy.calls == 2
        assert add(c, sid, auth, KING, 0).status_code == 200
        assert c.get(f"/api/sheets/{sid}/pdf").content != pdfs[0] and heavy.calls == 3


def test_the_work_is_done_in_another_process_once_for_requests_at_once(tmp_path: Path) -> None:
    async def run() -> None:
        async with serving(fresh_db(tmp_path)) as app, client(app) as c:
            heavy = app.state.server.heavy
            assert await heavy.run(os.getpid) != os.getpid()  # the pool is of processes, not threads
            body = json.dumps(golden())
            answers = await asyncio.gather(*(c.post("/api/timeline", content=body) for _ in range(6)))
            assert {a.status_code for a in answers} == {200} and heavy.calls == 2
    asyncio.run(run())


@pytest.fixture
def heavy_pool() -> Iterator[Any]:
    from barbu.web.http.heavy import Heavy

    heavy = Heavy(kept=2)
    yield heavy
    heavy.close()


def test_the_cache_is_bounded(heavy_pool: Any) -> None:
    async def run() -> None:
        for n in range(4):
            await heavy_pool.answer(f"k{n}", divmod, n, 1)
        assert list(heavy_pool.cache) == ["k2", "k3"] and heavy_pool.calls == 4
        assert await heavy_pool.answer("k3", divmod, 99, 1) == (3, 0)  # kept: not worked out again
        assert heavy_pool.calls == 4
    asyncio.run(run())
