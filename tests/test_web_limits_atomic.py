"""The per-client limits hold when the requests come all at once, per address and per person, in one
process or counted in Redis by a group of them."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from tests.pg_helpers import redis_url
from tests.test_web_ws import app_for
from tests.web_helpers import fresh_db

from barbu.web.http.clientid import CLIENT_HEADER
from barbu.web.http.limits import LocalCounters, RedisCounters, Rule, Who

NAMES = ["Ann", "Ben", "Cleo", "Dan"]


@asynccontextmanager
async def serving(db: str, **config: Any) -> AsyncIterator[Any]:
    """The application, started (its lifespan entered), for clients made with :func:`client`."""
    app = app_for(db, **config)
    async with app.router.lifespan_context(app):
        yield app


def client(app: Any, address: str = "10.0.0.1", person: str | None = None) -> httpx2.AsyncClient:
    headers = {CLIENT_HEADER: person} if person else {}
    transport = httpx2.ASGITransport(app=app, client=(address, 40000))
    return httpx2.AsyncClient(transport=transport, base_url="http://barbu.test", headers=headers)


async def at_once(n: int, post: Any) -> list[int]:
    """Send ``n`` requests together; their status codes."""
    return [r.status_code for r in await asyncio.gather(*(post(i) for i in range(n)))]


def test_tables_sheets_and_profiles_at_once_from_one_address_count_each_one(tmp_path: Path) -> None:
    async def run() -> None:
        async with serving(fresh_db(tmp_path), tables_per_minute=5, sheets_per_minute=4,
                           profiles_per_minute=3, max_open_tables=500) as app, client(app) as c:
            tables = await at_once(30, lambda i: c.post("/api/tables", json={"name": "Ann"}))
            sheets = await at_once(30, lambda i: c.post("/api/sheets", json={"names": NAMES,
                                                                              "first_declarer": 0}))
            people = await at_once(30, lambda i: c.post("/api/players", json={"name": f"Player {i}"}))
        assert sorted(tables) == [201] * 5 + [429] * 25
        assert sorted(sheets) == [201] * 4 + [429] * 26
        assert sorted(people) == [201] * 3 + [429] * 27
    asyncio.run(run())


def test_one_person_is_counted_across_addresses_and_one_address_across_people(tmp_path: Path) -> None:
    async def run() -> None:
        async with serving(fresh_db(tmp_path), tables_per_minute=4, max_open_tables=500) as app, \
                AsyncExitStack() as stack:
            roaming = [await stack.enter_async_context(client(app, f"10.0.1.{i}", "roaming-person-1"))
                       for i in range(8)]
            made = await at_once(8, lambda i: roaming[i].post("/api/tables", json={"name": "Ann"}))
            assert sorted(made) == [201] * 4 + [429] * 4
            crowd = [await stack.enter_async_context(client(app, "10.0.2.1", f"crowd-person-{i}"))
                     for i in range(8)]
            made = await at_once(8, lambda i: crowd[i].post("/api/tables", json={"name": "Ann"}))
            assert sorted(made) == [201] * 4 + [429] * 4
            other = await stack.enter_async_context(client(app, "10.0.3.1", "someone-else-1"))
            assert (await other.post("/api/tables", json={"name": "Bo"})).status_code == 201
    asyncio.run(run())


def test_a_signed_in_person_is_counted_by_profile_whatever_client_id_the_page_sends(tmp_path: Path) -> None:
    async def run() -> None:
        async with serving(fresh_db(tmp_path), tables_per_minute=2, max_open_tables=500) as app:
            async with client(app, "10.0.4.1") as c:
                made = (await c.post("/api/players", json={"name": "Roamer"})).json()
            headers = {"x-barbu-player": made["credential"]}
            statuses = []
            for i in range(4):
                async with client(app, f"10.0.5.{i}", f"fresh-client-{i}") as c:
                    res = await c.post("/api/tables", json={"name": "Roamer"}, headers=headers)
                    statuses.append(res.status_code)
            assert statuses == [201, 201, 429, 429]
    asyncio.run(run())


def test_a_client_id_that_is_not_well_formed_is_not_a_person(tmp_path: Path) -> None:
    assert Who("a", None).keys(Rule("x", 1)) == ["x:a:a"]
    from barbu.web.http.limits import client_id

    assert client_id("short") is None and client_id("x" * 65) is None and client_id("bad id here") is None
    assert client_id("Good_id-123") == "c:Good_id-123"


def test_a_failed_creation_gives_its_place_back(tmp_path: Path) -> None:
    async def run() -> None:
        async with serving(fresh_db(tmp_path), tables_per_minute=2, max_open_tables=500) as app:
            server = app.state.server
            real, failures = server.store_batch, [3]

            async def failing(batch: Any) -> None:
                if failures[0]:
                    failures[0] -= 1
                    raise OSError("the disk is full")
                await real(batch)
            server.store_batch = failing
            async with client(app) as c:
                lost = await at_once(3, lambda i: c.post("/api/tables", json={"name": "Ann"}))
                assert lost == [503] * 3
                made = await at_once(4, lambda i: c.post("/api/tables", json={"name": "Ann"}))
                assert sorted(made) == [201, 201, 429, 429]
    asyncio.run(run())


def test_local_counters_are_bounded_and_expire() -> None:
    now = [0.0]
    counters = LocalCounters(cap=3, clock=lambda: now[0])
    rule = Rule("t", 2, 10.0)

    async def run() -> None:
        for i in range(10):
            assert await counters.take(rule, [f"k{i}"], "a") == 0
            assert len(counters) <= 3
        assert "k9" in counters.windows and "k0" not in counters.windows  # the oldest went first
        assert await counters.take(rule, ["k9"], "b") == 0
        assert await counters.take(rule, ["k9"], "c") > 0
        now[0] = 10.0  # the window has passed: the counts are gone, and so are their keys
        assert await counters.take(rule, ["k9"], "d") == 0
        assert len(counters) == 1
    asyncio.run(run())


def test_redis_counts_one_limit_for_a_group_of_processes() -> None:
    import redis.asyncio as aioredis

    url, prefix = redis_url(), f"barbu:test-limit:{secrets.token_hex(4)}:"  # keys no other test uses

    async def run() -> None:
        links = [aioredis.Redis.from_url(url, decode_responses=True) for _ in range(3)]
        try:
            groups = [RedisCounters(r, prefix) for r in links]  # as three processes would
            rule, keys = Rule("tables", 7, 60.0), Who("10.9.9.9", "c:person-one").keys(Rule("tables", 7))
            waits = await asyncio.gather(*(groups[i % 3].take(rule, keys, f"t{i}") for i in range(40)))
            assert sum(1 for w in waits if w == 0) == 7
            assert all(0 < w <= 60 for w in waits if w)
            await groups[1].give_back(keys, "t0" if waits[0] == 0 else f"t{waits.index(0)}")
            assert await groups[2].take(rule, keys, "again") == 0
            assert await groups[0].take(rule, keys, "once more") > 0
            other = Who("10.9.9.10", "c:person-one").keys(rule)  # the same person from elsewhere
            assert await groups[0].take(rule, other, "elsewhere") > 0
            assert 0 < await links[0].pttl(prefix + keys[0]) <= 60000  # it expires
        finally:
            for key in await links[0].keys(prefix + "*"):
                await links[0].delete(key)
            for r in links:
                await r.aclose()
    asyncio.run(run())


def test_the_new_limits_have_serve_flags_with_the_configs_defaults(tmp_path: Path) -> None:
    import argparse

    from barbu.web.http.config import Config
    from barbu.web.serve import add_arguments, config_of

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    fields = ("chat_per_minute", "rematch_per_minute", "reads_per_minute", "analysis_queue")
    default = config_of(parser.parse_args([]), tmp_path / "t.db")
    assert [getattr(default, f) for f in fields] == [getattr(Config("x"), f) for f in fields]
    flags = ["--chat-per-minute", "3", "--rematch-per-minute", "4", "--reads-per-minute", "5",
             "--analysis-queue", "0"]
    given = config_of(parser.parse_args(flags), tmp_path / "t.db")
    assert [getattr(given, f) for f in fields] == [3, 4, 5, 0]
    with pytest.raises(SystemExit):
        parser.parse_args(["--reads-per-minute", "-1"])


def test_a_group_of_processes_holds_one_limit_between_them(tmp_path: Path) -> None:
    from tests.cluster_helpers import Group, services

    db, bus = services(tmp_path)
    flags = ("--tables-per-minute", "4", "--forwarded-allow-ips", "127.0.0.1")
    group = Group(db, bus, tmp_path, flags).start(2)
    # An address of this test's own (the servers are told to believe X-Forwarded-For from this
    # machine): the counts in Redis are not another test's, nor an earlier run's.
    address = "10.{}.{}.{}".format(*secrets.token_bytes(3))

    async def run() -> list[int]:
        async with httpx2.AsyncClient(timeout=60) as c:
            return await at_once(12, lambda i: c.post(f"{group.urls[i % 2]}/api/tables", json={"name": "Ann"},
                                                      headers={"X-Forwarded-For": address}))
    try:
        assert sorted(asyncio.run(run())) == [201] * 4 + [429] * 8
    finally:
        group.stop()
