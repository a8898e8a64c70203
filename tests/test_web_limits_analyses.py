"""Analyses are shared fairly: nothing to analyse is refused, one under way per person and address,
and a request that finds every place taken waits in a bounded queue that says its position."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from tests.test_web_limits_atomic import client, serving
from tests.test_web_replay import golden
from tests.web_helpers import fresh_db


async def status_of(c: Any, job: str) -> dict[str, Any]:
    state: dict[str, Any] = (await c.get(f"/api/analysis/{job}")).json()
    return state


async def until(c: Any, job: str, check: Any, seconds: float = 60.0) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while not check(state := await status_of(c, job)):
        assert time.monotonic() < deadline, state
        await asyncio.sleep(0.05)
    return state


def test_the_public_record_of_a_game_in_progress_is_refused_and_starts_nothing(tmp_path: Path) -> None:
    async def run() -> None:
        async with serving(fresh_db(tmp_path), max_analyses=2) as app, client(app) as c:
            seats = [{"kind": "human"}] * 4
            made = (await c.post("/api/tables", json={"name": "Ann", "seats": seats})).json()
            public = (await c.get(f"/api/tables/{made['id']}/record")).json()
            for _ in range(3):
                res = await c.post("/api/analysis", json={"record": public, "seat": 0})
                assert res.status_code == 400 and res.json()["error"]["code"] == "nothing-to-analyse"
                assert "seat 1" in res.json()["error"]["message"]
            assert app.state.analyses.jobs == {}
    asyncio.run(run())


def test_one_analysis_under_way_per_address_and_the_others_queue_in_order(tmp_path: Path) -> None:
    async def run() -> None:
        config = {"max_analyses": 1, "analysis_queue": 2, "analysis_budget": 5.0}
        async with serving(fresh_db(tmp_path), **config) as app, \
                client(app, "10.1.0.1") as a, client(app, "10.1.0.2") as b, client(app, "10.1.0.3") as d, \
                client(app, "10.1.0.4") as e:
            first = await a.post("/api/analysis", json={"record": golden(), "seat": 0})
            assert first.status_code == 202 and first.json()["status"] == "running"
            again = await a.post("/api/analysis", json={"record": golden(), "seat": 1})  # the same address
            assert again.status_code == 429 and again.json()["error"]["code"] == "analysis-under-way"
            waiting = [(await x.post("/api/analysis", json={"record": golden(), "seat": s})).json()
                       for x, s in ((b, 1), (d, 2))]
            assert [(w["status"], w["position"]) for w in waiting] == [("queued", 1), ("queued", 2)]
            full = await e.post("/api/analysis", json={"record": golden(), "seat": 3})
            assert full.status_code == 429 and full.json()["error"]["code"] == "too-many-analyses"
            await a.delete(f"/api/analysis/{first.json()['id']}")
            await until(b, waiting[0]["id"], lambda s: s["status"] == "running")
            assert (await status_of(d, waiting[1]["id"]))["position"] == 1
            await d.delete(f"/api/analysis/{waiting[1]['id']}")  # a queued one can be withdrawn
            assert (await status_of(d, waiting[1]["id"]))["status"] == "cancelled"
            await b.delete(f"/api/analysis/{waiting[0]['id']}")
    asyncio.run(run())


def test_one_person_is_counted_across_addresses(tmp_path: Path) -> None:
    async def run() -> None:
        async with serving(fresh_db(tmp_path), max_analyses=2, analysis_budget=5.0) as app, \
                client(app, "10.2.0.1", "analyst-one") as a, client(app, "10.2.0.2", "analyst-one") as b:
            first = await a.post("/api/analysis", json={"record": golden(), "seat": 0})
            assert first.status_code == 202
            second = await b.post("/api/analysis", json={"record": golden(), "seat": 1})
            assert second.status_code == 429 and second.json()["error"]["code"] == "analysis-under-way"
            await a.delete(f"/api/analysis/{first.json()['id']}")
    asyncio.run(run())
