"""The leases of the cluster's bus and the store's fence: one owner per table, and a stale writer refused."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from pathlib import Path

import pytest
from tests.cluster_helpers import flush_bus, run_within, with_number
from tests.pg_helpers import redis_url

from barbu.engine.game import Game
from barbu.engine.state import State
from barbu.web.cluster.bus import Bus
from barbu.web.core.rows import Batch, SeatRow
from barbu.web.http.limits import Who
from barbu.web.storage.sqlite import open_store
from barbu.web.tables.parts import deal_into
from barbu.web.tables.table import Table


@pytest.fixture
def bus_url() -> str:
    url = with_number(redis_url(), 14)  # a database of its own: the cluster tests flush theirs
    flush_bus(url)
    return url


def test_one_process_holds_a_lease_and_another_takes_it_only_once_it_lapses(bus_url: str) -> None:
    async def run() -> None:
        a, b = Bus(bus_url, lease_seconds=0.6), Bus(bus_url, lease_seconds=0.6)
        try:
            assert await a.acquire("T1") and a.holds("T1")
            assert not await b.acquire("T1") and not b.holds("T1")
            assert await b.owner("T1") == a.proc
            assert await a.renew() == []  # renewed: still ours
            await asyncio.sleep(0.9)  # a stops renewing (paused, or dead)
            assert not a.holds("T1")  # by its own clock it may no longer write, before Redis says so
            assert await b.acquire("T1")
            assert await a.renew() == ["T1"]  # a learns it lost the table and does not take it back
            assert await b.owner("T1") == b.proc and not a.holds("T1")
        finally:
            await a.stop()
            await b.stop()
    run_within(run())


def test_a_stopped_process_gives_its_leases_up_at_once(bus_url: str) -> None:
    async def run() -> None:
        a, b = Bus(bus_url), Bus(bus_url)

        async def ignore(message: dict[str, object]) -> None:
            return None
        await a.start(ignore)
        try:
            assert await a.acquire("T2")
            assert a.proc in await b.live_procs()
            await a.stop()
            assert await b.owner("T2") is None and a.proc not in await b.live_procs()
            assert await b.acquire("T2")
        finally:
            await b.stop()
    run_within(run())


@pytest.mark.parametrize("late_first", [True, False])
def test_of_a_lapsed_owner_and_its_successor_one_write_is_stored_the_other_refused(
        store_target: str, late_first: bool) -> None:
    """Two stores on one database stand for the two processes: whichever writes the next event first
    wins, the other is refused, and the table's history stays a single line."""
    old, new = open_store(store_target), open_store(store_target)
    try:
        state = State(Game(), seed=3)
        rows = [SeatRow(i, f"Computer {i + 1}", "", "bot", "random", True) for i in range(4)]
        made = Batch("T3", seats=rows, create={"ruleset": "classic", "players": 4, "options": [],
                                               "seed": state.seed, "first_declarer": state.first_declarer})
        deal_into(state, made)
        old.commit(made)
        old.commit(Batch("T3", events=[("chat", {"text": "one"})]))
        successor = Table.load(new, "T3")  # the takeover: it replays up to here
        assert successor is not None and successor.damaged is None and successor.last_seq == 2
        new.expect_seq("T3", successor.last_seq + 1)
        writers = [(old, "old owner, late"), (new, "new owner")]
        first, second = writers if late_first else writers[::-1]
        first[0].commit(Batch("T3", events=[("chat", {"text": first[1]})]))
        with pytest.raises(sqlite3.IntegrityError):
            second[0].commit(Batch("T3", events=[("chat", {"text": second[1]})]))
        assert [e.data.get("text") for e in new.events("T3")][1:] == ["one", first[1]]
    finally:
        old.close()
        new.close()


def _computers_table(store_target: str, table_id: str) -> None:
    """A table of four computer players, stored as its creator would: it plays on by itself."""
    store = open_store(store_target)
    try:
        state = State(Game(), seed=5)
        rows = [SeatRow(i, f"Computer {i + 1}", "", "bot", "random", True) for i in range(4)]
        setup = {"ruleset": "classic", "players": 4, "options": [], "seed": state.seed,
                 "first_declarer": state.first_declarer}
        made = Batch(table_id, seats=rows, create=setup)
        deal_into(state, made)
        store.commit(made)
    finally:
        store.close()


def test_a_stopping_process_ends_its_beats_even_when_a_cancel_was_swallowed_below(
        tmp_path: Path, bus_url: str) -> None:
    """A beat's cancel may come back as an ordinary error (or as nothing: Python 3.11's wait_for loses
    a cancel that races its result), leaving the task marked as cancelling but looping on: stopping
    must not wait for it for ever (it did: a shutdown after a refused write hung until the timeout)."""
    from barbu.web.cluster.relay import Cluster
    from barbu.web.http.config import Config
    from barbu.web.http.server import Server
    from barbu.web.http.sockets import serving

    inside = asyncio.Event()

    async def swallowing(recent: bool = False) -> None:
        if recent:  # the start's own sweep: nothing to take
            return
        inside.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:  # what a lost cancel looks like from above
            raise TimeoutError("a cancel that became another error") from None

    async def run() -> None:
        server = Server(Config(db_path=str(tmp_path / "beats.db"), bus=bus_url))
        server.cluster = cluster = Cluster(server, bus_url, serving(server))
        server.open()
        cluster.leases.take_orphans = swallowing  # type: ignore[method-assign]
        await cluster.start()
        try:
            await asyncio.wait_for(inside.wait(), 10)
        finally:
            await asyncio.wait_for(server.close(), 10)
    run_within(run(), 60)


def test_a_table_whose_write_is_refused_is_loaded_afresh_and_plays_on(
        store_target: str, bus_url: str) -> None:
    """Another writer stores an event behind the owner's back: the owner's next write is refused, and
    then the table is dropped, forgotten and released, loaded again with that event, and plays on."""
    from barbu.web.cluster.relay import Cluster
    from barbu.web.http.config import Config
    from barbu.web.http.server import Server
    from barbu.web.http.sockets import serving

    _computers_table(store_target, "T4")

    async def run() -> None:
        server = Server(Config(db_path=store_target, bus=bus_url, bot_delay=0.3, retry_delay=0.05))
        server.cluster = cluster = Cluster(server, bus_url, serving(server))
        server.open()
        await cluster.start()
        other = open_store(store_target)
        try:
            assert await cluster.place("T4") is None
            first = server.tables.tables["T4"]
            other.commit(Batch("T4", events=[("chat", {"text": "behind your back"})]))  # event 2
            for _ in range(200):  # the sweep takes it back within a few seconds
                again = server.tables.tables.get("T4")
                if again is not None and again is not first and len(other.events("T4")) > 4:
                    break
                await asyncio.sleep(0.05)
            assert again is not None and again is not first
            events = other.events("T4")
            assert len(events) > 4  # played on after the other writer's event
            assert [e.kind for e in events].count("chat") == 1 and events[1].kind == "chat"
            assert [e.seq for e in events] == list(range(1, len(events) + 1))
        finally:
            other.close()
            await server.close()
    run_within(run())


def test_a_stopping_process_stores_its_queued_writes_before_it_gives_the_leases_up(
        store_target: str, bus_url: str) -> None:
    """A write queued behind a slow one when the server closes is stored while the lease is still ours;
    and a write whose lease lapsed while it waited is refused in the writer thread, never stored."""
    import threading

    import redis

    from barbu.web.cluster.bus import owner_key
    from barbu.web.cluster.relay import Cluster, LeaseLost
    from barbu.web.http.config import Config
    from barbu.web.http.server import Server
    from barbu.web.http.sockets import serving

    _computers_table(store_target, "T5")
    sync = redis.Redis.from_url(bus_url)

    async def run() -> None:
        server = Server(Config(db_path=store_target, bus=bus_url, bot_delay=60))
        server.cluster = cluster = Cluster(server, bus_url, serving(server))
        server.open()
        await cluster.start()
        loop = asyncio.get_running_loop()
        assert await cluster.place("T5") is None and server.writer is not None
        held, cluster.bus.until["T5"] = cluster.bus.until["T5"], 0.0  # lapsed by our own clock
        with pytest.raises(LeaseLost):  # what the writer thread runs, called here without yielding
            server._commit(Batch("T5", events=[("chat", {"text": "lapsed"})]))
        cluster.bus.until["T5"] = held
        gate, seen = threading.Event(), []
        server.writer.submit(gate.wait, 5)
        queued = loop.create_task(server.store_batch(Batch("T5", events=[("chat", {"text": "last"})])))
        await asyncio.sleep(0.1)
        server.writer.submit(lambda: seen.append(sync.get(owner_key("T5"))))
        threading.Timer(0.3, gate.set).start()  # the loop itself waits in close() for the writer
        await server.close()
        await queued
        assert seen == [cluster.bus.proc.encode()]  # the write was stored while the lease was ours
        assert sync.get(owner_key("T5")) is None  # and given up after
    try:
        run_within(run())
        store = open_store(store_target)
        try:
            assert [e.data.get("text") for e in store.events("T5") if e.kind == "chat"] == ["last"]
        finally:
            store.close()
    finally:
        sync.close()


def test_a_subscription_redis_py_makes_again_by_itself_is_counted(bus_url: str) -> None:
    """Redis drops our subscription's connection: the messages sent meanwhile are lost, so the bus
    counts the new subscription (and the relays made before it are closed), even when redis-py
    subscribes again without a word."""
    import redis

    async def run() -> None:
        bus, got = Bus(bus_url), []

        async def keep(message: dict[str, object]) -> None:
            got.append(message)
        await bus.start(keep)
        sync = redis.Redis.from_url(bus_url)
        try:
            before = bus.generation
            assert sync.client_kill_filter(_type="pubsub") >= 1
            for _ in range(100):
                if bus.generation > before:
                    break
                await asyncio.sleep(0.05)
            assert bus.generation > before
            for n in range(100):  # and it listens again (what it is sent while it subscribes may be lost)
                if got:
                    break
                await bus.send(bus.proc, {"n": n})
                await asyncio.sleep(0.1)
            assert got and all(set(m) == {"n"} for m in got)
        finally:
            sync.close()
            await bus.stop()
    run_within(run())


def test_a_table_stopped_by_a_lapse_plays_on_once_its_lease_is_renewed(
        store_target: str, bus_url: str) -> None:
    """By our own clock the lease may have lapsed, so the computer players stop; the next renewal finds
    the key still ours, and they play on."""
    from barbu.web.cluster.relay import Cluster
    from barbu.web.http.config import Config
    from barbu.web.http.server import Server
    from barbu.web.http.sockets import serving

    _computers_table(store_target, "T6")

    async def run() -> None:
        server = Server(Config(db_path=store_target, bus=bus_url, bot_delay=0.05))
        server.cluster = cluster = Cluster(server, bus_url, serving(server))
        server.open()
        await cluster.start()
        try:
            assert await cluster.place("T6") is None
            table = server.tables.tables["T6"]
            cluster.bus.until["T6"] = 0.0  # a pause past the margin: we stop writing
            driver = server.drivers["T6"]
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(driver), 5)
            moves = table.moves
            for _ in range(100):  # the keep-alive renews within about a second
                if table.moves > moves + 2:
                    break
                await asyncio.sleep(0.05)
            assert server.tables.tables.get("T6") is table and table.moves > moves + 2
        finally:
            await server.close()
    run_within(run())


def test_a_relayed_reader_the_owner_fails_to_serve_is_told_to_connect_again(
        store_target: str, bus_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever goes wrong at the owner's, the relaying process hears a close (1012), never nothing."""
    from barbu.web.cluster.relay import Cluster
    from barbu.web.http import sockets
    from barbu.web.http.config import Config
    from barbu.web.http.server import Server

    _computers_table(store_target, "T7")

    async def broken(*args: object) -> None:
        raise RuntimeError("the owner failed")
    monkeypatch.setattr(sockets, "serve_table", broken)

    async def run() -> None:
        server = Server(Config(db_path=store_target, bus=bus_url, bot_delay=60))
        server.cluster = cluster = Cluster(server, bus_url, sockets.serving(server))
        server.open()
        await cluster.start()
        relaying, heard = Bus(bus_url), []

        async def keep(message: dict[str, object]) -> None:
            heard.append(message)
        await relaying.start(keep)
        try:
            assert await cluster.place("T7") is None
            for conn, table_id in (("c1", "T7"), ("c2", "gone")):
                await relaying.send(cluster.bus.proc, {"op": "open", "conn": conn, "table": table_id,
                                                       "reply": relaying.proc, "client": "?"})
            for _ in range(100):
                if len(heard) == 2:
                    break
                await asyncio.sleep(0.05)
            assert sorted((m["conn"], m["op"], m["code"]) for m in heard) == [
                ("c1", "close", 1012), ("c2", "close", 1012)]
            assert cluster.sockets.ports == {}
        finally:
            await relaying.stop()
            await server.close()
    run_within(run())


def test_relayed_requests_are_answered_whatever_fails_and_a_refused_create_leaves_no_lease(
        store_target: str, bus_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A request to a process that is gone is a 503 at once (not after the relay's wait); one the
    owner's application fails on is a 500; a table whose creation could not be stored is not leased."""
    from barbu.web.cluster import relay, relaying
    from barbu.web.cluster.bus import owner_key
    from barbu.web.core.errors import TableError
    from barbu.web.http.config import Config
    from barbu.web.http.server import Server
    from barbu.web.http.sockets import serving
    from barbu.web.tables.setup import Setup

    monkeypatch.setattr(relaying, "HTTP_TIMEOUT", 3600.0)  # only an answer ends the wait

    async def run() -> None:
        server = Server(Config(db_path=store_target, bus=bus_url, bot_delay=60))
        server.cluster = cluster = relay.Cluster(server, bus_url, serving(server))
        server.open()
        await cluster.start()
        sent: list[dict[str, object]] = []

        async def receive() -> dict[str, object]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict[str, object]) -> None:
            sent.append(message)
        scope = {"type": "http", "method": "GET", "path": "/api/tables/X1", "headers": []}
        try:
            await asyncio.wait_for(cluster.requests.forward(scope, receive, send, "nobody-0000"), 60)
            assert sent[0]["status"] == 503

            async def failing(scope: object, receive: object, send: object) -> None:
                raise RuntimeError("the application failed")
            cluster.requests.app = failing
            sent.clear()
            await asyncio.wait_for(cluster.requests.forward(scope, receive, send, cluster.bus.proc), 60)
            assert sent[0]["status"] == 500

            def refuse(batch: object) -> list[int]:
                raise sqlite3.OperationalError("the database is away")
            assert server.store is not None
            monkeypatch.setattr(server.store, "commit", refuse)
            setup = Setup.parse({"name": "Ann", "seats": [{"kind": "bot", "level": "random"}] * 4})
            with pytest.raises(TableError):
                await server.create(setup, Who("127.0.0.1"))
            leased = [k async for k in cluster.bus.redis.scan_iter(owner_key("*"))]
            assert leased == [] and cluster.bus.until == {}
        finally:
            await server.close()
    run_within(run())


def test_a_table_taken_over_does_not_tell_its_turn_again(store_target: str, bus_url: str) -> None:
    """The process that drove a table at your own pace told its person's turn when it began: the one that
    takes the table over (its lease lapsed) does not tell that turn a second time, as a restart does not."""
    from starlette.testclient import TestClient
    from tests.test_web_ws import app_for

    from barbu.web.cluster.relay import Cluster
    from barbu.web.http.config import Config
    from barbu.web.http.server import Server
    from barbu.web.http.sockets import serving

    with TestClient(app_for(store_target)) as client:  # a process without the bus drives it to Ann's turn
        made = client.post("/api/tables", json={
            "ruleset": "family", "players": 3, "rounds": 3, "own_pace": 24, "name": "Ann",
            "seats": [{"kind": "you"}, *[{"kind": "bot", "level": "random"}] * 2]}).json()
        end = time.monotonic() + 20
        while client.get(f"/api/tables/{made['id']}").json()["table"]["own_pace"]["due"] is None:
            assert time.monotonic() < end, "Ann's turn did not come"
            time.sleep(0.05)
    told: list[str] = []

    async def run() -> None:
        server = Server(Config(db_path=store_target, bus=bus_url, bot_delay=0, retry_delay=0.05))
        server.cluster = cluster = Cluster(server, bus_url, serving(server))
        server.open()
        server.computers.turn_listeners.append(lambda table_id, seat, due: told.append(table_id))
        await cluster.start()
        try:
            assert await cluster.place(made["id"]) is None  # leased and loaded here: its turn is Ann's
            table = server.tables.tables[made["id"]]
            await asyncio.sleep(0.3)  # what kicking the table would do, done
            assert table.deadlines.deadline() is not None and table.state.current == 0
        finally:
            await server.close()
    run_within(run())
    assert told == []
