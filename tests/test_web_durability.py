"""A web table never loses or forks a game: changes are told only once stored, writes run off the loop,
a table whose history does not replay is kept damaged and read-only, and a link's token lapses once used."""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests.test_web_ws import app_for, create, people_to_act, receive, server_of
from tests.web_helpers import Recorder, fresh_db, hold_writes, query, store_class

from barbu.web.core.errors import TableError
from barbu.web.core.rows import Batch
from barbu.web.http import server as web_server
from barbu.web.storage.sqlite import open_store
from barbu.web.tables.lobby import Lobby
from barbu.web.tables.setup import Setup
from barbu.web.tables.table import Table

ONE_PERSON = [{"kind": "human"}, {"kind": "bot", "level": "random"}, {"kind": "bot", "level": "random"},
              {"kind": "bot", "level": "random"}]


def failing_store(target: str) -> Any:
    """A store of ``target`` whose writes fail (as with a full disk) while its ``failing`` is set."""

    class FailingStore(store_class(target)):  # type: ignore[misc]
        failing = False

        def commit(self, batch: Batch) -> list[int]:
            if self.failing:
                raise sqlite3.OperationalError("disk I/O error")
            return super().commit(batch)  # type: ignore[no-any-return]

    return FailingStore(target)


def snapshot(table: Table) -> Any:
    """Everything a reader can learn of the table, and what is stored of it."""
    meta = {**table.meta(), "turn_age": None}
    return ([table.view(s) for s in range(len(table.seats))], meta, table.public_record(),
            [(e.seq, e.kind, e.data) for e in table.store.events(table.id)], table.store.load_seats(table.id))


def seated(table: Table) -> list[Recorder]:
    """A recorder at every human seat, taking it by its link."""
    out = []
    for s in table.seats:
        if s.row.kind == "human":
            r = Recorder(table)
            table.attach(r, s.row.token, f"P{s.row.seat}")
            out.append(r)
    return out


def legal_of(table: Table) -> str:
    legal: list[str] = table.state.observe(table.state.current).to_json()["legal"]
    return legal[0]


# -- 1. acknowledged only once stored ------------------------------------------------------

def test_a_change_that_cannot_be_stored_is_refused_and_changes_nothing(store_target: str) -> None:
    path = store_target
    store = failing_store(path)
    table = Table.create(store, Setup.parse({"seats": [{"kind": "human"}] * 4, "name": "Ann", "seed": 3}))
    players = seated(table)
    for _ in range(6):
        table.act(players[table.state.current], legal_of(table))
    free = Table.create(store, Setup.parse({"seats": [{"kind": "human"}] * 4}))
    table.idle_seconds = 0  # the seat to act may be handed to the computer
    before, free_before = snapshot(table), snapshot(free)
    sent = [len(p.messages) for p in players]
    store.failing = True
    attempts = [
        lambda: table.act(players[table.state.current], legal_of(table)),
        lambda: table.takeover(players[(table.state.current + 1) % 4], table.state.current),
        lambda: free.attach(Recorder(free), free.seats[0].row.token, "Zoe"),
        lambda: free.join("Yan"),
    ]
    for attempt in attempts:
        with pytest.raises(TableError) as e:
            attempt()
        assert e.value.code == "storage" and e.value.status == 503
        assert "nothing was changed" in e.value.message
    assert snapshot(table) == before and snapshot(free) == free_before
    assert [len(p.messages) for p in players] == sent  # nobody was told of anything
    assert free.clients == [] and free.seat_of_token(free.seats[0].row.token) == 0
    store.failing = False
    table.act(players[table.state.current], legal_of(table))  # and play goes on once it can store
    after = snapshot(table)
    store.close()
    again = Table.load(open_store(path), table.id)
    assert again is not None and snapshot(again)[0] == after[0] and snapshot(again)[2] == after[2]


def test_a_database_locked_by_another_process_gets_a_storage_error(tmp_path: Path) -> None:
    db = fresh_db(tmp_path, "locked.db")
    with TestClient(app_for(db, db_timeout=0.1)) as client:
        made = create(client, name="Ann", seats=ONE_PERSON, seed=4)
        people_to_act(client, made["id"])
        table = server_of(client).tables.get(made["id"])
        with client.websocket_connect(f"/ws/{made['id']}") as ws, \
                client.websocket_connect(f"/ws/{made['id']}") as watcher:
            ws.send_json({"type": "hello", "token": made["you"]["token"]})
            state = receive(ws, "state")
            watcher.send_json({"type": "hello"})
            receive(watcher, "state")
            ws.send_json({"type": "ping"})
            receive(ws, "pong")  # the state the watcher's arrival sent is read
            before = snapshot(table)
            release = hold_writes(db)  # another process holds the database
            ws.send_json({"type": "act", "action": state["view"]["legal"][0]})
            err = receive(ws)
            assert err["type"] == "error" and err["code"] == "storage"
            assert snapshot(table) == before
            ws.send_json({"type": "sync"})
            receive(ws, "sheet")
            assert receive(ws)["view"] == state["view"]  # the next thing sent is the unchanged state
            watcher.send_json({"type": "ping"})
            assert receive(watcher) == {"type": "pong"}  # no state event came before: none was broadcast
            release()
            ws.send_json({"type": "act", "action": state["view"]["legal"][0]})
            assert receive(ws, "state")["last"]["seat"] == state["view"]["seat"]
        people_to_act(client, made["id"])
        views = [table.view(s) for s in range(4)]
    with TestClient(app_for(db)) as client:
        assert [server_of(client).tables.get(made["id"]).view(s) for s in range(4)] == views


def test_computer_players_wait_out_a_failed_write_and_carry_on(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    failures = [3]

    class Flaky(store_class()):  # type: ignore[misc]
        def commit(self, batch: Batch) -> list[int]:
            if batch.events and batch.events[0][0] == "act" and failures[0] > 0:
                failures[0] -= 1
                raise sqlite3.OperationalError("database is locked")
            return super().commit(batch)

    monkeypatch.setattr(web_server, "open_store", Flaky)
    with TestClient(app_for(fresh_db(tmp_path, "flaky.db"), retry_delay=0.01)) as client:
        made = create(client, seats=[{"kind": "bot", "level": "random"}] * 4, seed=9)
        server = server_of(client)
        task = server.drivers[made["id"]]
        while not task.done():
            threading.Event().wait(0.02)
        table = server.tables.get(made["id"])
        assert failures == [0] and table.state.is_over  # three refused writes, then the whole game
        assert len(server.store.events(made["id"])) == table.moves + table.game.num_hands  # type: ignore[union-attr]


# -- 2. writes off the event loop -------------------------------------------------------------

class GatedStore(store_class()):  # type: ignore[misc]
    """A store whose writes of actions wait at a gate (as behind another process's lock)."""

    gate: threading.Event
    entered: threading.Event
    pending = False

    def commit(self, batch: Batch) -> list[int]:
        if batch.events and batch.events[0][0] == "act" and not self.gate.is_set():
            self.pending = True
            self.entered.set()
            self.gate.wait(10)  # bounded: a blocked event loop shows as a late pong, not a hang
            self.pending = False
        return super().commit(batch)


@pytest.fixture
def gated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[TestClient, GatedStore]]:
    GatedStore.gate, GatedStore.entered = threading.Event(), threading.Event()
    GatedStore.gate.set()
    monkeypatch.setattr(web_server, "open_store", GatedStore)
    with TestClient(app_for(fresh_db(tmp_path, "gated.db"))) as client:
        store = server_of(client).store
        assert isinstance(store, GatedStore)
        yield client, store
        GatedStore.gate.set()


def test_another_table_answers_while_a_write_is_blocked(gated: tuple[TestClient, GatedStore]) -> None:
    client, store = gated
    a = create(client, name="Ann", seats=ONE_PERSON, seed=4)
    b = create(client, name="Bob", seats=ONE_PERSON, seed=5)
    people_to_act(client, a["id"])
    with client.websocket_connect(f"/ws/{a['id']}") as wa, client.websocket_connect(f"/ws/{b['id']}") as wb:
        wa.send_json({"type": "hello", "token": a["you"]["token"]})
        state = receive(wa, "state")
        wb.send_json({"type": "hello", "token": b["you"]["token"]})
        receive(wb, "state")
        table_a_events = len(store.events(a["id"]))
        store.gate.clear()
        wa.send_json({"type": "act", "action": state["view"]["legal"][0]})
        assert store.entered.wait(10)
        wb.send_json({"type": "ping"})
        assert receive(wb, "pong") and store.pending  # answered while table A's write is still waiting
        wb.send_json({"type": "sync"})
        assert receive(wb, "state") and store.pending
        with client.websocket_connect(f"/ws/{a['id']}") as other:  # another socket at table A
            other.send_json({"type": "hello"})
            receive(other, "state")
            other.send_json({"type": "ping"})
            assert receive(other, "pong") and store.pending
        wa.send_json({"type": "ping"})  # A's own socket: answered in order, after its action
        assert table_a_events == len(store.events(a["id"]))  # A's action is not stored yet
        store.gate.set()
        heard = []  # the watcher's coming and going, then the action once it is stored, then the pong
        while (msg := receive(wa))["type"] != "pong":
            heard.append(msg)
        assert heard[-1]["type"] == "state" and heard[-1]["last"]["seat"] == 0
        before = state["view"]["history"]
        assert all(m["type"] == "state" and m["view"]["history"] == before for m in heard[:-1])
        assert len(store.events(a["id"])) > table_a_events


def test_a_tables_changes_are_made_one_after_another(gated: tuple[TestClient, GatedStore]) -> None:
    """Two sockets of one seat send the same card while the first write waits: it is played once."""
    client, store = gated
    a = create(client, name="Ann", seats=ONE_PERSON, seed=4)
    people_to_act(client, a["id"])
    table = server_of(client).tables.get(a["id"])
    stored = len(store.events(a["id"]))
    with client.websocket_connect(f"/ws/{a['id']}") as w1, client.websocket_connect(f"/ws/{a['id']}") as w2:
        for ws in (w1, w2):
            ws.send_json({"type": "hello", "token": a["you"]["token"]})
            state = receive(ws, "state")
        action = state["view"]["legal"][0]
        store.gate.clear()
        w1.send_json({"type": "act", "action": action})
        assert store.entered.wait(10)
        w2.send_json({"type": "act", "action": action})
        with client.websocket_connect(f"/ws/{a['id']}") as watcher:
            watcher.send_json({"type": "hello"})
            assert receive(watcher, "state")["view"]["history"] == state["view"]["history"]
            assert store.pending
        store.gate.set()
        while (last := receive(w1, "state")["last"]) is None:  # the states of the arrivals first
            pass
        assert last == {"seat": 0, "action": action, "hand_no": 0}
        w2.send_json({"type": "ping"})  # answered after its action: all that came before is its outcome
        heard = []
        while (msg := receive(w2))["type"] != "pong":
            heard.append(msg)
        errors = [m["code"] for m in heard if m["type"] == "error"]
        assert len(errors) == 1  # planned on the state the first one left: refused
        assert errors[0] in ("not-your-turn", "seat-is-bot") or errors[0].startswith("illegal")
        acts = [e for e in store.events(a["id"])[stored:] if e.kind == "act" and e.data["seat"] == 0]
        assert len(acts) == 1
        # The computers play on meanwhile: one of their moves may be stored and not yet made at the
        # instant of looking, so the two counts are compared once they have met (or the wait ends),
        # while the sockets are open: the test client's event loop, which makes the moves, may stop
        # once the last one closes.
        # The counts compared are the pair read together, not a second reading after the wait.
        until = time.monotonic() + 10
        while (pair := (table.moves, len(store.events(a["id"])[stored:])))[0] != pair[1] and (
                time.monotonic() < until):
            time.sleep(0.01)
        assert pair[0] == pair[1], pair


# -- 4. a stored history that does not replay -------------------------------------------------

def edit_by_hand(path: Path, sql: str, *params: object) -> None:
    """Change the database behind the server's back, as a person with a database client would."""
    query(path, sql, *params)


def corrupt(path: Path, table_id: str, seq: int, data: str) -> None:
    edit_by_hand(path, "UPDATE events SET data = ? WHERE table_id = ? AND seq = ?", data, table_id, seq)


@pytest.mark.parametrize("data", ['{"seat": 0, "action": 9999}', "not json {", '{"seat": 0}'])
def test_a_table_whose_stored_action_fails_is_kept_damaged_and_read_only(
        store_target: str, caplog: pytest.LogCaptureFixture, data: str) -> None:
    path = store_target
    store = open_store(path)
    table = Table.create(store, Setup.parse({"seats": [{"kind": "bot", "level": "random"}] * 3
                                             + [{"kind": "human"}], "name": "Ann", "seed": 2}))
    ann = Recorder(table)
    table.attach(ann, table.seats[3].row.token)
    views = {len(store.events(table.id)): [table.view(s) for s in range(4)]}
    for _ in range(10):
        if not table.auto_step():
            table.act(ann, legal_of(table))
        views[len(store.events(table.id))] = [table.view(s) for s in range(4)]
    bad = 7
    assert store.events(table.id)[bad - 1].kind == "act"
    store.close()
    corrupt(path, table.id, bad, data)

    caplog.set_level(logging.ERROR, "barbu.web")
    store = open_store(path)
    lobby = Lobby(store)
    assert [t.id for t in lobby.load_all()] == [table.id]
    again = lobby.get(table.id)
    assert [again.view(s) for s in range(4)] == views[bad - 1]  # up to the last good event
    assert again.damaged is not None and again.damaged["seq"] == bad and again.damaged["reason"]
    assert lobby.listing()[0]["damaged"] == again.damaged == again.meta()["damaged"]
    logged = [r.getMessage() for r in caplog.records if r.name == "barbu.web"]
    assert any(table.id in m and f"event {bad}" in m and "damaged" in m for m in logged), logged
    assert again.auto_seat() is None and not again.auto_step()  # the computers do not play on
    ann = Recorder(again)
    again.attach(ann, again.seats[3].row.token)
    with pytest.raises(TableError) as e:
        again.takeover(ann, 0)
    assert e.value.code == "damaged" and f"event {bad}" in e.value.message
    assert len(store.events(table.id)) == max(views)  # nothing more was stored
    assert again.public_record()["players"][3] == "Ann"  # its record can still be downloaded


def test_a_damaged_table_is_shown_as_such_over_http_and_refuses_play(tmp_path: Path) -> None:
    db = fresh_db(tmp_path, "dh.db")
    with TestClient(app_for(db)) as client:
        made = create(client, name="Ann", seats=ONE_PERSON, seed=4)
        people_to_act(client, made["id"])
    corrupt(db, made["id"], 1, '{"hands": [1, 2, 3, 4], "set_aside": 0}')  # the first deal
    with TestClient(app_for(db)) as client:
        info = client.get(f"/api/tables/{made['id']}").json()
        assert info["table"]["damaged"]["seq"] == 1 and info["summary"]["damaged"]["seq"] == 1
        assert client.get("/api/tables").json()["tables"][0]["damaged"]["seq"] == 1
        with client.websocket_connect(f"/ws/{made['id']}") as ws:
            ws.send_json({"type": "hello", "token": made["you"]["token"]})
            state = receive(ws, "state")
            ws.send_json({"type": "act", "action": (state["view"]["legal"] or ["pass"])[0]})
            assert receive(ws, "error")["code"] == "damaged"


# -- 5. a link's token lapses once its seat is taken -------------------------------------------

def test_taking_a_seat_by_its_link_gives_a_fresh_token(store_target: str) -> None:
    store = open_store(store_target)
    table = Table.create(store, Setup.parse({"name": "Ann", "seats": [{"kind": "human"}] * 2
                                             + [{"kind": "bot"}] * 2}))
    link = dict(table.tokens())[1]
    host = Recorder(table)
    table.attach(host, table.seats[0].row.token)
    assert host.last_state["table"]["seats"][1]["claimed"] is False  # the creator sees it still free
    ben = Recorder(table)
    table.attach(ben, link, "Ben")
    fresh = ben.messages[0]["token"]
    assert ben.messages[0]["type"] == "welcome" and fresh != link and "token" not in host.messages[0]
    assert table.seat_of_token(link) is None and table.seat_of_token(fresh) == 1
    assert store.load_seats(table.id)[1].token == fresh
    assert host.last_state["table"]["seats"][1]["claimed"] is True  # and then that it is taken
    with pytest.raises(TableError) as e:
        table.attach(Recorder(table), link, "Eve")
    assert e.value.code == "bad-token"
    again = Recorder(table)
    table.attach(again, fresh)  # Ben comes back with his fresh token, no name needed
    assert again.seat == 1 and "token" not in again.messages[0]
    # The creator was sent the link while the seat was free (to copy it); never after, nor Ben.
    invites = [m for m in host.messages if m["type"] == "invites"]
    assert link in json.dumps(invites[0]) and link not in json.dumps(invites[-1])
    assert invites[-1]["seats"][0] == {"seat": 1, "access": "open", "claimed": True, "name": "Ben",
                                       "link": None, "invited": None, "declined": False}
    assert link not in json.dumps(ben.messages + [m for m in host.messages if m["type"] != "invites"])


def played_table(path: Path, steps: int = 10) -> Table:
    """A stored table of Ann (seat 4) and three computers, some actions into its first hand."""
    store = open_store(path)
    table = Table.create(store, Setup.parse({"seats": [{"kind": "bot", "level": "random"}] * 3
                                             + [{"kind": "human"}], "name": "Ann", "seed": 2}))
    ann = Recorder(table)
    table.attach(ann, table.seats[3].row.token)
    for _ in range(steps):
        if not table.auto_step():
            table.act(ann, legal_of(table))
    store.close()
    return table


def test_a_damaged_tables_reason_counts_seats_from_1_and_says_where_it_stopped(
        store_target: str, caplog: pytest.LogCaptureFixture) -> None:
    path = store_target
    table = played_table(path)
    events = open_store(path).events(table.id)
    bad = next(e for e in events if e.kind == "act" and e.seq > 4)
    wrong = (bad.data["seat"] + 1) % 4
    corrupt(path, table.id, bad.seq, json.dumps({"seat": wrong, "action": bad.data["action"]}))
    caplog.set_level(logging.ERROR, "barbu.web")
    again = Lobby(open_store(path)).get(table.id)
    names = again.names()
    due = f"seat {bad.data['seat'] + 1} ({names[bad.data['seat']]})"
    assert again.damaged is not None
    assert again.damaged["reason"] == f"is an action by seat {wrong + 1} ({names[wrong]}) out of turn: " \
        f"{due} was to act"
    acts_before = sum(1 for e in events if e.kind == "act" and e.seq < bad.seq)
    assert again.damaged["hand_no"] == 0 and again.damaged["action_no"] == acts_before  # from 0
    logged = [r.getMessage() for r in caplog.records if table.id in r.getMessage()]
    assert any(f'"seat": {wrong}' in m and "seats from 0" in m for m in logged), logged


def test_an_illegal_stored_action_is_told_of_its_player_not_to_them(store_target: str) -> None:
    path = store_target
    table = played_table(path)
    bad = next(e for e in open_store(path).events(table.id) if e.kind == "act" and e.seq > 4)
    corrupt(path, table.id, bad.seq, json.dumps({"seat": bad.data["seat"], "action": 9999}))
    again = Lobby(open_store(path)).get(table.id)
    assert again.damaged is not None
    reason = again.damaged["reason"]
    who = f"seat {bad.data['seat'] + 1} ({again.names()[bad.data['seat']]})"
    assert reason.startswith(f"is an action the rules refuse: {who} ") and "you" not in reason


def break_setup(path: Path, table_id: str, setup: str) -> None:
    edit_by_hand(path, "UPDATE tables SET setup = ? WHERE id = ?", setup, table_id)


@pytest.mark.parametrize("setup", ["not json", "null", '{"ruleset": "poker", "players": 4, "options": []}'])
def test_a_table_whose_setup_is_unreadable_is_kept_damaged_not_dropped(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, setup: str) -> None:
    db = fresh_db(tmp_path, "s.db")
    with TestClient(app_for(db)) as client:
        made = create(client, name="Ann", seats=ONE_PERSON, seed=4)
    break_setup(db, made["id"], setup)
    caplog.set_level(logging.ERROR, "barbu.web")
    with TestClient(app_for(db)) as client:
        logged = [r.getMessage() for r in caplog.records]  # at start-up, before anyone asks
        assert any(made["id"] in m and "setup cannot be read" in m for m in logged), logged
        info = client.get(f"/api/tables/{made['id']}")
        assert info.status_code == 200
        damaged = info.json()["table"]["damaged"]
        assert damaged["kind"] == "setup" and "setup cannot be read" in damaged["reason"]
        assert [t["damaged"] for t in client.get("/api/tables").json()["tables"]] == [damaged]
        record = client.get(f"/api/tables/{made['id']}/record")
        assert record.status_code == 409 and "no record" in record.json()["error"]["message"]
        with client.websocket_connect(f"/ws/{made['id']}") as ws:  # Ann's link still opens, to watch
            ws.send_json({"type": "hello", "token": made["you"]["token"]})
            assert receive(ws, "welcome")["table"]["damaged"] == damaged
            ws.send_json({"type": "act", "action": "pass"})
            assert receive(ws, "error")["code"] == "damaged"


def finished_table(db: Path) -> str:
    with TestClient(app_for(db, listed_after_over=0)) as client:
        made = create(client, seats=[{"kind": "bot", "level": "random"}] * 4)
        table = server_of(client).tables.get(made["id"])
        while not table.state.is_over:
            threading.Event().wait(0.05)
    return str(made["id"])


def test_finished_tables_are_checked_for_an_unreadable_setup_at_start_up(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db = fresh_db(tmp_path, "f.db")
    old = finished_table(db)
    break_setup(db, old, "{")
    caplog.set_level(logging.INFO, "barbu.web")
    with TestClient(app_for(db, listed_after_over=0)) as client:
        logged = [r.getMessage() for r in caplog.records]
        assert any(old in m and "setup cannot be read" in m for m in logged), logged
        assert any("0 tables restored" in m and "1 table finished longer ago checked (1 with an unreadable"
                   in m for m in logged), logged
        assert server_of(client).tables.tables == {}  # not rebuilt yet
        assert client.get(f"/api/tables/{old}").json()["table"]["damaged"]["kind"] == "setup"


def test_a_finished_table_still_listed_is_rebuilt_and_its_damage_logged_at_start_up(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db = fresh_db(tmp_path, "l.db")
    done = finished_table(db)
    corrupt(db, done, 3, '{"seat": 0}')
    caplog.set_level(logging.INFO, "barbu.web")
    with TestClient(app_for(db)) as client:  # finished just now: still in the list
        logged = [r.getMessage() for r in caplog.records]
        assert any(done in m and "stored event 3" in m for m in logged), logged
        assert any("1 table restored" in m and "(1 damaged)" in m for m in logged), logged
        assert client.get("/api/tables").json()["tables"][0]["damaged"]["seq"] == 3


def test_a_free_seats_link_at_a_damaged_table_says_so_before_asking_a_name(tmp_path: Path) -> None:
    db = fresh_db(tmp_path, "fs.db")
    with TestClient(app_for(db)) as client:
        made = create(client, name="Ann", seats=[{"kind": "human"}] * 2 + [{"kind": "bot"}] * 2)
    corrupt(db, made["id"], 1, '{"hands": [1, 2, 3, 4], "set_aside": 0}')
    with TestClient(app_for(db)) as client, client.websocket_connect(f"/ws/{made['id']}") as ws:
        ws.send_json({"type": "hello", "token": made["seats"][1]["token"]})
        assert receive(ws)["code"] == "damaged"  # not "name-required": the seat cannot be taken
        ws.send_json({"type": "hello", "token": None})  # the page then watches
        assert receive(ws)["type"] == "welcome"
