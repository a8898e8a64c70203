"""The web server over HTTP and WebSockets (Starlette's test client): every event, bad input, restarts."""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from tests.web_helpers import check_hidden, check_received, fresh_db, mask_cards

from barbu.engine.game import Game
from barbu.engine.state import State
from barbu.web.http.app import build_app
from barbu.web.http.config import Config
from barbu.web.http.server import Server
from barbu.web.http.sockets import CLOSE_BAD_TOKEN, CLOSE_NO_TABLE, MAX_MESSAGE

Session = Any  # starlette's WebSocketTestSession
TWO_PEOPLE = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}]


def app_for(db: Path, **kw: Any) -> Any:
    return build_app(Config(str(db), bot_delay=kw.pop("bot_delay", 0.0), idle_seconds=kw.pop("idle", 60.0),
                            **kw))


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(app_for(fresh_db(tmp_path, "ws.db"))) as c:
        yield c


def server_of(client: TestClient) -> Server:
    server: Server = client.app.state.server  # type: ignore[attr-defined]
    return server


def create(client: TestClient, **body: Any) -> dict[str, Any]:
    res = client.post("/api/tables", json=body)
    assert res.status_code == 201, res.text
    data: dict[str, Any] = res.json()
    return data


def receive(ws: Session, kind: str | None = None) -> dict[str, Any]:
    """The next message (of type ``kind``, skipping others when given)."""
    while True:
        msg: dict[str, Any] = json.loads(ws.receive_text())
        if kind is None or msg["type"] == kind:
            return msg


def error_of(ws: Session, payload: str) -> dict[str, Any]:
    ws.send_text(payload)
    msg = receive(ws, "error")
    assert msg["message"]
    return msg


def people_to_act(client: TestClient, table_id: str, timeout: float = 20.0) -> None:
    """Wait until the computer players have played up to a person's turn (they think in threads)."""
    table = server_of(client).tables.get(table_id)
    deadline = time.monotonic() + timeout
    while table.auto_seat() is not None or server_busy(client, table_id):
        assert time.monotonic() < deadline, "the computer players never reached a person's turn"
        time.sleep(0.01)


def server_busy(client: TestClient, table_id: str) -> bool:
    task = server_of(client).drivers.get(table_id)
    return task is not None and not task.done()


def events_count(client: TestClient, table_id: str) -> int:
    store = server_of(client).store
    assert store is not None
    return len(store.events(table_id))


def until_my_turn(ws: Session, seat: int) -> dict[str, Any]:
    """Read states until this seat is to act (or the first hand is over)."""
    while True:
        msg = receive(ws, "state")
        v = msg["view"]
        if (v["current"] == seat and v["legal"] and msg["table"]["seats"][seat]["kind"] == "human") \
                or v["hands_done"]:
            return msg


# -- HTTP --------------------------------------------------------------------------

def test_the_page_and_its_files_are_served(client: TestClient) -> None:
    for path in ("/", "/table/whatever", "/static/table.js", "/static/style.css"):
        res = client.get(path)
        assert res.status_code == 200, path
    assert "<script src=\"/static/table.js?v=" in client.get("/").text  # stamped (test_web_assets)
    assert "http" not in client.get("/static/table.js").text.replace("https:", "").replace(
        "location.protocol", "")  # nothing is fetched from another site
    info = client.get("/api/info").json()
    assert "basic" in info["levels"] and info["default_level"] == "basic"


def test_bad_http_requests_get_a_status_and_a_reason(client: TestClient,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "barbu.web")
    cases = [
        (client.post("/api/tables", content=b"{not json"), 400, "bad-json"),
        (client.post("/api/tables", content=b"x" * 20000), 413, "too-large"),
        (client.post("/api/tables", json={"ruleset": "chess"}), 400, "bad-setup"),
        (client.get("/api/tables/nosuchtable"), 404, "no-table"),
        (client.get("/api/tables/nosuchtable/record"), 404, "no-table"),
        (client.post("/api/tables/nosuchtable/join", json={"name": "Al"}), 404, "no-table"),
    ]
    for res, status, code in cases:
        assert res.status_code == status, res.text
        assert res.json()["error"]["code"] == code and res.json()["error"]["message"]
    assert client.get("/api/tables").json() == {"tables": []}  # nothing was made
    assert sum("refused" in r.getMessage() for r in caplog.records) == len(cases)


def test_create_list_join_and_download_the_record(client: TestClient) -> None:
    made = create(client, name="Ann", seats=[{"kind": "human"}, {"kind": "human"},
                                             {"kind": "bot", "level": "random"}, {"kind": "bot"}])
    assert made["you"]["seat"] == 0 and len(made["seats"]) == 2
    assert made["seats"][1]["link"] == f"/table/{made['id']}#t={made['seats'][1]['token']}"
    listed = client.get("/api/tables").json()["tables"]
    assert [t["id"] for t in listed] == [made["id"]] and listed[0]["free_seats"] == 1
    assert client.post(f"/api/tables/{made['id']}/join", json={"name": ""}).status_code == 400
    joined = client.post(f"/api/tables/{made['id']}/join", json={"name": "Ben"}).json()
    assert joined["seat"] == 1 and joined["token"] != made["seats"][1]["token"]
    assert client.post(f"/api/tables/{made['id']}/join", json={"name": "Cy"}).status_code == 409
    res = client.get(f"/api/tables/{made['id']}/record")
    assert res.status_code == 200 and "attachment" in res.headers["content-disposition"]
    doc = res.json()
    assert doc["format"] == "barbu-record/1" and doc["players"][:2] == ["Ann", "Ben"]
    assert doc["hands"] == [] and "seed" not in doc
    info = client.get(f"/api/tables/{made['id']}").json()
    assert info["table"]["seats"][3]["level"] == "basic"
    assert "token" not in json.dumps(info)


# -- WebSocket: bad input ----------------------------------------------------------

def test_a_socket_to_no_table_is_told_and_closed(client: TestClient) -> None:
    with client.websocket_connect("/ws/nosuchtable") as ws:
        msg = receive(ws)
        assert msg == {"type": "error", "code": "no-table", "message": "there is no table 'nosuchtable'"}
        with pytest.raises(WebSocketDisconnect) as e:
            ws.receive_text()
        assert e.value.code == CLOSE_NO_TABLE


def test_a_wrong_token_is_refused_and_closed(client: TestClient) -> None:
    made = create(client, name="Ann")
    with client.websocket_connect(f"/ws/{made['id']}") as ws:
        ws.send_json({"type": "hello", "token": "guess"})
        assert receive(ws)["code"] == "bad-token"
        with pytest.raises(WebSocketDisconnect) as e:
            ws.receive_text()
        assert e.value.code == CLOSE_BAD_TOKEN


def test_every_bad_message_gets_an_error_and_changes_nothing(client: TestClient,
                                                            caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "barbu.web")
    made = create(client, name="Ann", seats=TWO_PEOPLE)
    tid = made["id"]
    people_to_act(client, tid)
    before = events_count(client, tid)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        assert error_of(ws, json.dumps({"type": "act", "action": "QS"}))["code"] == "hello-first"
        assert error_of(ws, "{oops")["code"] == "bad-json"
        assert error_of(ws, "[1, 2]")["code"] == "bad-message"
        assert error_of(ws, json.dumps({"kind": "act"}))["code"] == "bad-message"
        assert error_of(ws, json.dumps({"type": "dance"}))["code"] == "unknown-type"
        assert error_of(ws, json.dumps({"type": "act", "pad": "x" * MAX_MESSAGE}))["code"] == "too-large"
        ws.send_bytes(b"\xff\xfe")
        assert receive(ws, "error")["code"] == "bad-json"
        # The free seat's link needs a name; then the player is in.
        assert error_of(ws, json.dumps({"type": "hello", "token": made["seats"][1]["token"]}))["code"] \
            == "name-required"
        ws.send_json({"type": "hello", "token": made["seats"][1]["token"], "name": "Ben"})
        welcome = receive(ws, "welcome")
        assert welcome["you"] == 1 and welcome["table"]["seats"][1]["name"] == "Ben"
        state = receive(ws, "state")
        assert error_of(ws, json.dumps({"type": "hello", "token": None}))["code"] == "already-joined"
        current = state["view"]["current"]
        if current != 1:
            assert error_of(ws, json.dumps({"type": "act", "action": "no-queens"}))["code"] == "not-your-turn"
        assert error_of(ws, json.dumps({"type": "act"}))["code"] in ("bad-action", "not-your-turn")
        assert error_of(ws, json.dumps({"type": "takeover", "seat": 1}))["code"] == "bad-seat"
        assert error_of(ws, json.dumps({"type": "takeover", "seat": 0}))["code"] == "not-idle"
        assert error_of(ws, json.dumps({"type": "takeover", "seat": "0"}))["code"] == "bad-seat"
        assert error_of(ws, json.dumps({"type": "reclaim"}))["code"] == "not-bot"
        assert error_of(ws, json.dumps({"type": "rematch", "op": "offer"}))["code"] == "rematch-too-early"
        assert error_of(ws, json.dumps({"type": "rematch", "op": 7}))["code"] == "bad-rematch"
        ws.send_json({"type": "ping"})
        assert receive(ws, "pong") == {"type": "pong"}
        ws.send_json({"type": "sync"})
        assert receive(ws, "state")["view"]["seat"] == 1
    with client.websocket_connect(f"/ws/{tid}") as ws:
        ws.send_json({"type": "hello"})
        assert receive(ws, "welcome")["you"] is None
        assert error_of(ws, json.dumps({"type": "act", "action": "no-queens"}))["code"] == "not-seated"
        assert error_of(ws, json.dumps({"type": "takeover", "seat": 0}))["code"] == "not-seated"
        assert error_of(ws, json.dumps({"type": "rematch", "op": "accept"}))["code"] == "not-seated"
    assert events_count(client, tid) == before
    refusals = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert len(refusals) >= 15 and any("unknown-type" in r for r in refusals)


def test_an_illegal_action_gets_the_rule_and_a_legal_one_is_broadcast(client: TestClient) -> None:
    made = create(client, name="Ann", seed=12)
    tid = made["id"]
    with client.websocket_connect(f"/ws/{tid}") as a, client.websocket_connect(f"/ws/{tid}") as w:
        a.send_json({"type": "hello", "token": made["you"]["token"]})
        w.send_json({"type": "hello"})
        v = until_my_turn(a, 0)["view"]
        count = events_count(client, tid)
        wrong = "no-queens" if v["phase"] == "trump" else "trump S"
        err = error_of(a, json.dumps({"type": "act", "action": wrong}))
        assert err["code"] == "illegal:wrong-phase" and "it is time to" in err["message"]
        assert events_count(client, tid) == count
        a.send_json({"type": "act", "action": v["legal"][0]})
        expected = {"seat": 0, "action": v["legal"][0], "hand_no": v["hand_no"]}
        while receive(w, "state")["last"] != expected:
            pass
        assert events_count(client, tid) > count


# -- WebSocket: playing ------------------------------------------------------------

def play_hand(ws: Session, seat: int, rng: random.Random, dealt: Any = None) -> dict[str, Any]:
    """Play this seat's turns with random legal actions until the first hand is scored; its sheet."""
    sheet: dict[str, Any] = {}
    while True:
        msg = receive(ws)
        if msg["type"] == "error":
            raise AssertionError(msg)
        if msg["type"] == "sheet":
            sheet = msg
        if msg["type"] != "state":
            continue
        if dealt is not None:
            dealt(msg)
        v = msg["view"]
        if v["hands_done"]:
            assert len(sheet["results"]) == v["hands_done"] and sheet["totals"] == v["totals"]
            return sheet
        if v["current"] == seat and v["legal"]:
            ws.send_json({"type": "act", "action": rng.choice(v["legal"])})


def test_a_whole_hand_against_three_computers_over_the_socket(client: TestClient) -> None:
    made = create(client, name="Ann", seed=3)
    tid = made["id"]
    store = server_of(client).store
    assert store is not None
    seen = []

    def check(msg: dict[str, Any]) -> None:
        deals = [e.data for e in store.events(tid) if e.kind == "deal"]
        dealt = mask_cards(deals[msg["view"]["hand_no"]]["hands"][0])
        check_received(msg, dealt)
        seen.append(msg)

    with client.websocket_connect(f"/ws/{tid}") as ws:
        ws.send_json({"type": "hello", "token": made["you"]["token"]})
        final = play_hand(ws, 0, random.Random(1), check)
    result = final["results"][0]
    assert sum(result["scores"]) == sum(result["contract_scores"])
    assert len(seen) > 13


def test_four_people_and_a_watcher_see_only_their_own_cards(client: TestClient,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Every message is checked the moment the server queues it, against the hands as they are then."""
    from barbu.web.http import sockets

    made = create(client, name="P0", seats=[{"kind": "human"}] * 4)
    tid = made["id"]
    server = server_of(client)
    checked = [0]
    original = sockets.Connection.send_text

    def checking_send(self: Any, text: str) -> None:
        msg = json.loads(text)
        check_hidden(msg, self.seat, server.tables.get(tid).state.hands)
        checked[0] += 1
        original(self, text)

    monkeypatch.setattr(sockets.Connection, "send_text", checking_send)
    rng = random.Random(5)
    socks = [client.websocket_connect(f"/ws/{tid}") for _ in range(5)]
    entered = [s.__enter__() for s in socks]
    try:
        for i, ws in enumerate(entered):
            ws.send_json({"type": "hello", "token": made["seats"][i]["token"] if i < 4 else None,
                          "name": f"P{i}"})
            assert receive(ws)["type"] == "welcome"
        # Each attach is broadcast to everyone already there.
        latest = [[receive(ws, "state") for _ in range(5 - i)][-1] for i, ws in enumerate(entered)]
        acted = 0
        while not latest[4]["view"]["hands_done"]:
            seat = latest[4]["view"]["current"]
            legal = latest[seat]["view"]["legal"]
            if latest[seat]["view"]["phase"] == "choose":
                legal = [a for a in legal if a not in ("dominoes", "trumps")]  # no automatic passes
            entered[seat].send_json({"type": "act", "action": rng.choice(legal)})
            acted += 1
            latest = [receive(ws, "state") for ws in entered]  # one per action, to every reader
            for i, msg in enumerate(latest[:4]):
                assert msg["type"] == "state" and msg["view"]["seat"] == i
    finally:
        for s in socks:
            s.__exit__(None, None, None)
    assert latest[4]["view"]["hand"] == [] and acted > 4 and checked[0] >= 5 * acted


# -- restart -----------------------------------------------------------------------

def test_a_game_survives_a_server_restart(tmp_path: Path) -> None:
    db = fresh_db(tmp_path, "restart.db")
    rng = random.Random(9)
    with TestClient(app_for(db)) as c1:
        made = create(c1, name="Ann", seed=19)
        tid, token = made["id"], made["you"]["token"]
        with c1.websocket_connect(f"/ws/{tid}") as ws:
            ws.send_json({"type": "hello", "token": token})
            for _ in range(3):  # a few of this seat's own actions
                v = until_my_turn(ws, 0)["view"]
                ws.send_json({"type": "act", "action": rng.choice(v["legal"])})
            v = until_my_turn(ws, 0)["view"]
        server = server_of(c1)
        table = server.tables.get(tid)
        views = [table.view(s) for s in range(4)] + [table.view(None)]
        record = table.public_record()
        actions = list(table.state.actions)

    with TestClient(app_for(db)) as c2:
        again = server_of(c2).tables.get(tid)
        assert [again.view(s) for s in range(4)] + [again.view(None)] == views
        assert again.public_record() == record and again.state.actions == actions
        with c2.websocket_connect(f"/ws/{tid}") as ws:
            ws.send_json({"type": "hello", "token": token})
            assert receive(ws, "welcome")["you"] == 0
            msg = receive(ws, "state")
            assert msg["view"]["hand"] == v["hand"] and msg["view"]["legal"] == v["legal"]
            if v["legal"]:  # play goes on where it stopped: this seat was to act
                ws.send_json({"type": "act", "action": rng.choice(v["legal"])})
            final = play_hand(ws, 0, rng)
        assert final["results"][0]["hand_no"] == 0


def test_an_idle_seat_is_handed_to_the_computer_and_taken_back_over_the_socket(tmp_path: Path) -> None:
    with TestClient(app_for(fresh_db(tmp_path, "idle.db"), idle=0.0)) as c:
        made = create(c, name="Ann", seats=TWO_PEOPLE)
        tid = made["id"]
        rng = random.Random(4)
        with c.websocket_connect(f"/ws/{tid}") as ann, c.websocket_connect(f"/ws/{tid}") as ben:
            ann.send_json({"type": "hello", "token": made["you"]["token"]})
            ben.send_json({"type": "hello", "token": made["seats"][1]["token"], "name": "Ben"})
            while True:  # Ben plays his turns until Ann keeps the table waiting
                v = receive(ben, "state")["view"]
                if v["current"] == 1 and v["legal"]:
                    ben.send_json({"type": "act", "action": rng.choice(v["legal"])})
                elif v["current"] == 0:
                    break
            ben.send_json({"type": "takeover", "seat": 0, "level": "random"})
            msg = receive(ann, "state")
            while msg["table"]["seats"][0]["kind"] != "bot":
                msg = receive(ann, "state")
            assert msg["table"]["seats"][0]["level"] == "random"
            ann.send_json({"type": "act", "action": "no-queens"})
            assert receive(ann, "error")["code"] in ("seat-is-bot", "not-your-turn")
            store = server_of(c).store
            assert store is not None
            deadline = time.monotonic() + 30  # the computer acts on its own task: wait for its stored move
            while not any(e.kind == "act" and e.data["seat"] == 0 for e in store.events(tid)):
                assert time.monotonic() < deadline, "the computer never acted for the idle seat"
                time.sleep(0.01)
            ann.send_json({"type": "reclaim"})
            while receive(ann, "state")["table"]["seats"][0]["kind"] != "human":
                pass
        table = server_of(c).tables.get(tid)
        assert not table.seats[0].is_bot


def test_a_chosen_seed_is_only_for_a_game_against_the_computer(client: TestClient) -> None:
    res = client.post("/api/tables", json={"seed": 3, "seats": [{"kind": "human"}, {"kind": "human"},
                                                                   {"kind": "bot"}, {"kind": "bot"}]})
    assert res.status_code == 400 and "only for a game of one person" in res.json()["error"]["message"]
    assert create(client, seed=3)["id"]


def test_searching_computer_players_think_in_worker_processes(tmp_path: Path) -> None:
    """pimc and strong decide in a process pool, so that a search never blocks the event loop."""
    with TestClient(app_for(fresh_db(tmp_path, "pimc.db"), bot_table_levels=("pimc",))) as client:
        searching_players_progress(client)


def searching_players_progress(client: TestClient) -> None:
    made = create(client, seats=[{"kind": "bot", "level": "pimc"}] * 4)
    tid = made["id"]
    deadline = time.monotonic() + 60
    while events_count(client, tid) < 12:  # the deal, the contract, the doubles, some cards
        assert time.monotonic() < deadline, "the computer players made no progress"
        time.sleep(0.05)
        res = client.get("/api/tables")  # the event loop keeps answering meanwhile
        assert res.status_code == 200
    assert server_of(client).computers.pool is not None
    kinds = [e.kind for e in server_of(client).store.events(tid)]  # type: ignore[union-attr]
    assert kinds[0] == "deal" and kinds.count("act") >= 11


def test_the_computers_wait_after_a_hand_until_the_paced_person_is_ready(client: TestClient) -> None:
    seed = next(s for s in range(200) if State(Game.classic(), seed=s).first_declarer == 1)
    made = create(client, name="Ann", seed=seed)  # Computer 2 declares the second hand too
    tid = made["id"]
    with client.websocket_connect(f"/ws/{tid}") as ws:
        ws.send_json({"type": "hello", "token": made["you"]["token"], "pace": True})
        play_hand(ws, 0, random.Random(4))
        people_to_act(client, tid)  # the computers have stopped: they wait for Ann
        table = server_of(client).tables.get(tid)
        assert table.state.hand_no == 1 and table.state.current == 1 and table.waiting() == [0]
        moves = table.moves
        assert error_of(ws, json.dumps({"type": "ready", "hand": 0}))["code"] == "not-this-hand"
        assert error_of(ws, json.dumps({"type": "ready", "hand": "1"}))["code"] == "bad-hand"
        assert table.moves == moves
        ws.send_json({"type": "ready", "hand": 1})
        deadline = time.monotonic() + 20
        while table.moves == moves:  # ready: Computer 2 chooses the next contract
            assert time.monotonic() < deadline, "the computers did not go on after the ready"
            time.sleep(0.01)
    with client.websocket_connect(f"/ws/{tid}") as watcher:
        watcher.send_json({"type": "hello", "token": None})
        receive(watcher, "state")
        assert error_of(watcher, json.dumps({"type": "ready", "hand": 1}))["code"] == "not-seated"
