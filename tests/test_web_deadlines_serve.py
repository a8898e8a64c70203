"""Tables at your own pace served: the API, "your move", the switch by socket, and a deadline kept across a
restart and a takeover (the time that passed while no process ran is set in the store, never slept)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests.test_web_ws import app_for, server_of
from tests.web_helpers import fresh_db, query

from barbu.web.storage.sqlite import open_store
from barbu.web.tables.setup import Setup
from barbu.web.tables.table import Table

BOTS = [{"kind": "bot", "level": "random"}] * 3


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(app_for(fresh_db(tmp_path, "pace.db"), reads_per_minute=6)) as c:
        yield c


def profile(client: TestClient, name: str) -> dict[str, str]:
    res = client.post("/api/players", json={"name": name})
    assert res.status_code == 201, res.text
    return {"X-Barbu-Player": res.json()["credential"]}


def until(done: Any, seconds: float = 10.0) -> None:
    end = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < end, "not in time"
        time.sleep(0.02)


def test_a_table_at_your_own_pace_is_listed_as_your_move_with_its_deadline(client: TestClient) -> None:
    ann = profile(client, "Ann")
    made = client.post("/api/tables", headers=ann, json={"own_pace": 24, "seats": [{"kind": "you"}, *BOTS]})
    assert made.status_code == 201, made.text
    table = server_of(client).tables.get(made.json()["id"])
    until(lambda: table.state.current == 0 and table.auto_seat() is None)
    listed = client.get("/api/tables").json()["tables"]
    assert [t["own_pace"] for t in listed] == [{"hours": 24, "live": False}]
    mine = client.post("/api/your-move", headers=ann, json={})
    assert mine.status_code == 200, mine.text
    body = mine.json()
    assert body["count"] == 1 and body["tables"][0]["id"] == table.id
    pace = body["tables"][0]["own_pace"]
    assert pace["hours"] == 24 and 23 * 3600 < pace["left"] <= 24 * 3600
    assert body["tables"][0]["link"].startswith(f"/table/{table.id}#t=")
    # A browser without a profile asks by the seats it holds; another's token shows nothing.
    token = table.seats[0].row.token
    held = client.post("/api/your-move", json={"seats": [{"table": table.id, "token": token}]})
    assert held.json()["count"] == 1
    other = client.post("/api/your-move", json={"seats": [{"table": table.id, "token": "x" * 24}]})
    assert other.json() == {"count": 0, "tables": []}
    assert client.post("/api/your-move", json={"seats": "nope"}).status_code == 400


def test_your_move_is_counted_like_the_other_costly_reads(client: TestClient) -> None:
    codes = [client.post("/api/your-move", json={}).status_code for _ in range(8)]
    assert codes[:6] == [200] * 6 and codes[6:] == [429, 429]


def test_a_profile_s_choices_are_read_and_changed(client: TestClient) -> None:
    ann = profile(client, "Ann")
    assert client.get("/api/me/pace").status_code == 403
    got = client.get("/api/me/pace", headers=ann).json()["pace"]
    assert got["on_timeout"] == "computer" and got["away_until"] is None and got["bank"] == 86400
    away = time.time() + 3 * 86400
    res = client.put("/api/me/pace", headers=ann, json={"on_timeout": "wait", "away_until": away})
    assert res.status_code == 200, res.text
    assert res.json()["pace"]["on_timeout"] == "wait" and res.json()["pace"]["away_until"] == away
    bad = client.put("/api/me/pace", headers=ann, json={"away_until": time.time() + 30 * 86400})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad-pace"
    assert client.get("/api/me/pace", headers=ann).json()["pace"]["on_timeout"] == "wait"  # unchanged


def test_a_bad_own_pace_is_refused_in_words(client: TestClient) -> None:
    res = client.post("/api/tables", json={"name": "Ann", "own_pace": 2})
    assert res.status_code == 400 and "1, 12, 24, 72" in res.json()["error"]["message"]


def test_the_people_at_a_table_switch_it_to_live_and_back_by_socket(client: TestClient) -> None:
    made = client.post("/api/tables", json={"name": "Ann", "own_pace": 1, "seats": [{"kind": "you"}, *BOTS]})
    table_id, token = made.json()["id"], made.json()["you"]["token"]
    with client.websocket_connect(f"/ws/{table_id}") as ws:
        ws.send_json({"type": "hello", "token": token})
        ws.send_json({"type": "pace", "live": True})
        ws.send_json({"type": "pace", "live": True})
        seen: list[dict[str, Any]] = []
        while not any(m.get("type") == "error" for m in seen):
            seen.append(ws.receive_json())
        states = [m for m in seen if m["type"] == "state"]
        assert states[-1]["table"]["own_pace"]["live"] is True
        assert seen[-1]["code"] == "same-pace"
    kinds = [e.kind for e in open_store(str(server_of(client).config.db_path)).events(table_id)]
    assert kinds.count("pace") == 1


# -- the deadline across a restart and a takeover -----------------------------------------------

def stale_table(db: str) -> str:
    """A guest's table at your own pace (1 h a move), at the guest's turn, whose every stored time is
    moved two hours back: as if the server had been down since. Its deadline passed an hour ago."""
    store = open_store(db)
    try:
        table = Table.create(store, Setup.parse({"name": "Gus", "seed": 5, "own_pace": 1,
                                                 "seats": [{"kind": "you"}, *BOTS]}))
        while table.auto_step():
            pass
        assert table.state.current == 0
        query(store, "UPDATE events SET at = at - 7200 WHERE table_id = ?", table.id)
        query(store, "UPDATE tables SET created = created - 7200 WHERE id = ?", table.id)
        again = Table.load(store, table.id)
        assert again is not None and again.deadlines.deadline() == pytest.approx(time.time() - 3600, abs=60)
        return table.id
    finally:
        store.close()


def computer_played_for_the_guest(db: str, table_id: str) -> bool:
    store = open_store(db)
    try:
        return any(e.kind == "act" and e.data.get("seat") == 0 and e.data.get("by")
                   for e in store.events(table_id))
    finally:
        store.close()


def test_a_deadline_that_passed_while_the_server_was_down_is_kept_when_it_starts(tmp_path: Path) -> None:
    db = fresh_db(tmp_path, "restart.db")
    table_id = stale_table(db)
    assert not computer_played_for_the_guest(db, table_id)
    with TestClient(app_for(db)):
        until(lambda: computer_played_for_the_guest(db, table_id))


def test_the_process_that_takes_a_table_over_keeps_its_deadline(store_target: str) -> None:
    from tests.cluster_helpers import flush_bus, run_within, with_number
    from tests.pg_helpers import redis_url

    from barbu.web.cluster.relay import Cluster
    from barbu.web.http.config import Config
    from barbu.web.http.server import Server
    from barbu.web.http.sockets import serving

    bus_url = with_number(redis_url(), 13)
    flush_bus(bus_url)
    table_id = stale_table(store_target)

    async def run() -> None:
        server = Server(Config(db_path=store_target, bus=bus_url, bot_delay=0.0))
        server.cluster = cluster = Cluster(server, bus_url, serving(server))
        server.open()
        await cluster.start()
        try:
            assert await cluster.place(table_id) is None  # this process takes the table's lease
            for _ in range(200):
                if computer_played_for_the_guest(store_target, table_id):
                    break
                await asyncio.sleep(0.05)
            assert computer_played_for_the_guest(store_target, table_id)
        finally:
            await server.close()
    run_within(run(), 60)


def test_a_notifier_hears_once_when_a_person_s_turn_begins(client: TestClient) -> None:
    heard: list[tuple[str, int, float]] = []
    server_of(client).computers.turn_listeners.append(lambda *told: heard.append(told))
    made = client.post("/api/tables", json={"name": "Ann", "own_pace": 1, "seats": [{"kind": "you"}, *BOTS]})
    table = server_of(client).tables.get(made.json()["id"])
    until(lambda: bool(heard))
    assert heard == [(table.id, 0, table.deadlines.deadline())]
    client.portal.call(server_of(client).revive, table)  # armed again for the same turn: not told again
    assert len(heard) == 1
