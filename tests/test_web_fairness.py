"""Fair play at a table: invited seats awaited, one seat a person, ratings from play, a guest's seat tied."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests.test_web_friends import error, profile, receive_until
from tests.test_web_ladder import Quiet, attach, person, play_out, sit
from tests.test_web_ws import app_for, server_of
from tests.web_helpers import Recorder, dump, fresh_db, query

from barbu.engine.state import Phase
from barbu.web.core.errors import TableError
from barbu.web.core.rows import SeatRow
from barbu.web.people.ladder import entrant, played_by_person
from barbu.web.people.ratings import rate_game
from barbu.web.storage.sqlite import open_store
from barbu.web.tables.lobby import Lobby
from barbu.web.tables.setup import Setup
from barbu.web.tables.table import Table

FRIENDS = [{"kind": "you"}, {"kind": "friend"}, {"kind": "open"}, {"kind": "bot", "level": "random"}]
RANDOM = {"kind": "bot", "level": "random"}
ME = {"X-Barbu-Client": "browser-one-0001"}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(app_for(fresh_db(tmp_path, "fair.db"))) as c:
        yield c


def deals(target: Any, table_id: str) -> int:
    sql = "SELECT COUNT(*) FROM events WHERE table_id = ? AND kind = 'deal'"
    return int(query(target, sql, table_id)[0][0])


def refused(fn: Any, *args: Any) -> TableError:
    with pytest.raises(TableError) as e:
        fn(*args)
    return e.value


# -- 1. a table with invited seats does not start without them ----------------------------------

def test_a_friends_table_deals_nothing_until_the_friend_sits(client: TestClient) -> None:
    made = client.post("/api/tables", json={"name": "Ann", "seats": FRIENDS}).json()
    tid, friend = made["id"], made["seats"][1]["token"]
    live = server_of(client).tables.get(tid)
    meta = client.get(f"/api/tables/{tid}").json()["table"]
    assert (live.state.phase, live.state.current, meta["awaited"]) == (Phase.DEAL, -1, [1])
    assert deals(server_of(client).store, tid) == 0 and live.auto_seat() is None and live.clock_left() is None
    assert client.post(f"/api/tables/{tid}/join", json={"name": "Ben"}).status_code == 200  # an open seat
    assert live.state.phase == Phase.DEAL  # an open seat is anyone's: only the invited one is awaited
    with client.websocket_connect(f"/ws/{tid}") as ws:
        ws.send_json({"type": "hello", "token": friend, "name": "Cleo"})
        assert receive_until(ws, "welcome")["you"] == 1
        state = receive_until(ws, "state")
        assert state["table"]["awaited"] == [] and len(state["view"]["hand"]) == 13
    assert deals(server_of(client).store, tid) == 1 and live.state.current >= 0


def test_nobody_hands_a_never_taken_invited_seat_to_a_computer(tmp_path: Path) -> None:
    store = open_store(fresh_db(tmp_path))
    table = Table.create(store, Setup.parse({"name": "Ann", "seats": FRIENDS}), idle_seconds=0.0)
    host, ben = Recorder(table), Recorder(table)
    table.attach(host, table.seats[0].row.token)
    table.attach(ben, table.join("Ben")[1])
    for who in (host, ben):
        e = refused(table.takeover, who, 1)
        assert (e.code, e.status, e.slots) == ("not-taken", 409, {"seat": 2})
    assert not table.seats[1].is_bot and table.state.phase == Phase.DEAL
    store.close()


def test_the_creator_starts_with_computers_and_everyone_sees_it(tmp_path: Path) -> None:
    db = fresh_db(tmp_path)
    store = open_store(db)
    table = Table.create(store, Setup.parse({"name": "Ann", "seats": FRIENDS}))
    host, ben, link = Recorder(table), Recorder(table), table.seats[1].row.token
    table.attach(host, table.seats[0].row.token)
    table.attach(ben, table.join("Ben")[1])
    not_creator = refused(table.plan_start, ben, "random")
    assert (not_creator.code, not_creator.status) == ("not-creator", 403)
    table.run(table.plan_start(host, "random"))
    s1 = table.seats[1]
    assert (s1.row.kind, s1.row.level, s1.row.token, s1.holder) == ("bot", "random", "", "computer")
    assert table.seat_of_token(link) is None and table.state.current >= 0  # the link lapsed; dealt
    seen = [m["table"]["filled"] for m in ben.messages if m["type"] == "state"][-1]
    assert seen == {"seats": [1], "level": "random", "by": 0, "names": ["Seat 2"]}
    assert table.public_record()["start_with_computers"] == {"seats": [1], "level": "random", "by": 0}
    again = refused(table.plan_start, host, "random")
    assert (again.code, again.status) == ("not-waiting", 409)
    kinds = [k for (k,) in query(db, "SELECT kind FROM events WHERE table_id = ? ORDER BY seq", table.id)]
    assert kinds[:2] == ["start", "deal"]
    store.close()
    reopened = Lobby(open_store(db)).get(table.id)  # after a restart: the same, dealt once
    assert reopened.filled == table.filled and reopened.state.current == table.state.current
    assert deals(db, table.id) == 1 and reopened.meta()["awaited"] == []


def test_a_waiting_table_is_not_dealt_by_a_restart(tmp_path: Path) -> None:
    db = fresh_db(tmp_path)
    store = open_store(db)
    table = Table.create(store, Setup.parse({"name": "Ann", "seats": FRIENDS}))
    store.close()
    reopened = Lobby(open_store(db)).get(table.id)
    assert reopened.state.phase == Phase.DEAL and deals(db, table.id) == 0 and reopened.awaited() == [1]


def test_starting_is_refused_with_a_bad_level_and_over_the_socket_for_others(client: TestClient) -> None:
    made = client.post("/api/tables", json={"name": "Ann", "seats": FRIENDS}).json()
    tid, mine = made["id"], made["you"]["token"]
    with client.websocket_connect(f"/ws/{tid}") as ws:
        ws.send_json({"type": "hello", "token": mine})
        receive_until(ws, "welcome")
        ws.send_json({"type": "start", "level": "wizard"})
        assert receive_until(ws, "error")["code"] == "bad-level"
        ws.send_json({"type": "start", "level": "random"})
        state = receive_until(ws, "state")
        while not state["table"]["filled"]:
            state = receive_until(ws, "state")
        assert state["table"]["seats"][1]["kind"] == "bot" and len(state["view"]["hand"]) == 13


# -- 2. one person, one seat ------------------------------------------------------------------------

def test_one_browser_holds_one_seat_of_a_table(client: TestClient, tmp_path: Path) -> None:
    seats = [{"kind": "you"}, {"kind": "open"}, {"kind": "friend"}, RANDOM]
    made = client.post("/api/tables", headers=ME, json={"name": "Eve", "seats": seats}).json()
    tid = made["id"]
    res = client.post(f"/api/tables/{tid}/join", headers=ME, json={"name": "Eve2"})
    assert error(res) == (409, "already-seated")
    assert res.json()["error"]["args"] == {"variant": "seat", "seat": 1, "name": "Eve"}
    with client.websocket_connect(f"/ws/{tid}") as ws:  # nor by an invitation's link
        ws.send_json({"type": "hello", "token": made["seats"][2]["token"], "name": "Eve3",
                      "client": ME["X-Barbu-Client"]})
        assert receive_until(ws, "error")["code"] == "already-seated"
        ws.send_json({"type": "hello", "token": made["you"]["token"], "client": ME["X-Barbu-Client"]})
        assert receive_until(ws, "welcome")["you"] == 0  # a second tab opens its own seat again
    other = {"X-Barbu-Client": "browser-two-0002"}
    assert client.post(f"/api/tables/{tid}/join", headers=other, json={"name": "Ben"}).status_code == 200
    assert ME["X-Barbu-Client"] not in dump(server_of(client).config.db_path)  # kept as a digest only


def test_the_client_id_survives_a_restart(tmp_path: Path) -> None:
    db = fresh_db(tmp_path)
    with TestClient(app_for(db)) as c:
        seats = [{"kind": "you"}, {"kind": "open"}, RANDOM, RANDOM]
        tid = c.post("/api/tables", headers=ME, json={"name": "Eve", "seats": seats}).json()["id"]
    with TestClient(app_for(db)) as c:
        assert error(c.post(f"/api/tables/{tid}/join", headers=ME, json={"name": "Eve2"})) == \
            (409, "already-seated")


@pytest.mark.parametrize("bad", ["short", "x" * 65, "has space!", "semi;colon-id", ""])
def test_a_malformed_client_id_is_refused(client: TestClient, bad: str) -> None:
    res = client.post("/api/tables", headers={"X-Barbu-Client": bad}, json={"name": "Eve"})
    assert error(res) == (400, "bad-client") and res.json()["error"]["args"] == {"min": 8, "max": 64}
    tid = client.post("/api/tables", json={"name": "Ann", "seats": FRIENDS}).json()["id"]
    assert error(client.post(f"/api/tables/{tid}/join", headers={"X-Barbu-Client": bad},
                             json={"name": "Ben"})) == (400, "bad-client")
    with client.websocket_connect(f"/ws/{tid}") as ws:
        ws.send_json({"type": "hello", "client": bad})
        assert receive_until(ws, "error")["code"] == "bad-client"
        ws.send_json({"type": "hello", "client": 12345678})
        assert receive_until(ws, "error")["code"] == "bad-client"


def test_a_profile_holds_one_seat_whatever_the_browser(client: TestClient) -> None:
    eve = profile(client, "Eve")
    made = client.post("/api/tables", headers={**eve, **ME}, json={"seats": FRIENDS}).json()
    res = client.post(f"/api/tables/{made['id']}/join", headers={**eve, "X-Barbu-Client": "another-browser"},
                      json={})
    assert error(res) == (409, "already-seated") and res.json()["error"]["args"]["seat"] == 1


# -- 3. ratings come from play ------------------------------------------------------------------------

def test_who_made_most_decisions_is_who_is_rated() -> None:
    row = SeatRow(0, "Ann", "tok", "human", "", True, "p1")
    assert entrant(row, {"": 6, "basic": 5}) == "person:p1"
    assert entrant(row, {"": 5, "basic": 5}) == "computer:basic"  # half is not most
    assert entrant(row, {"": 1, "basic": 2, "random": 3}) == "computer:random"
    assert entrant(row, {}) == ""  # no decision at all: nobody's
    assert entrant(SeatRow(1, "Ben", "tok", "bot", "basic", True), {"basic": 9}) == "computer:basic"
    assert entrant(SeatRow(2, "C", "", "bot", "pimc", True), {"": 9}) == "computer:pimc"
    assert played_by_person({"": 3}) and not played_by_person({"": 3, "random": 1, "basic": 2})


def test_a_creator_who_never_played_is_not_rated(store_target: str) -> None:
    store = open_store(store_target)
    ann = person(store, "Ann")
    table = sit(Lobby(store), [{"kind": "you"}, RANDOM, RANDOM, RANDOM], ann,
                turn_clock={"seconds": 10, "level": "random"})
    now = [0.0]
    table.clock = lambda: now[0]
    table.turn_since = 0.0
    while table.auto_step():  # to Ann's first decision
        pass
    now[0] = 11.0  # she never comes: the clock hands her seat to a computer, which plays it all
    table.run(table.plan_time_out(table.moves))  # type: ignore[arg-type]
    play_out(table, {})
    assert store.ratings_of(ann.id) == [] and int(query(store, "SELECT COUNT(*) FROM rated_games")[0][0]) == 0
    assert table.state.is_over and table.decisions[0].get("", 0) == 0


def test_a_seat_a_computer_mostly_played_counts_as_that_computer(store_target: str) -> None:
    store = open_store(store_target)
    ann, ben = person(store, "Ann"), person(store, "Ben")
    lobby = Lobby(store, idle_seconds=0.0)
    table = sit(lobby, [{"kind": "you"}, {"kind": "open"}, RANDOM], ann, ruleset="family", players=3)
    table.join("Ben", ben)
    people = {0: attach(table, 0), 1: attach(table, 1)}
    rng = random.Random(4)
    while table.state.current != 0 or table.state.phase == Phase.DEAL:  # to Ann's first turn
        if not table.auto_step():
            table.act(people[1], rng.choice(table.view(1)["legal"]))
    table.takeover(people[1], 0, "random")  # Ann went away at once
    play_out(table, {1: people[1]})
    assert store.ratings_of(ann.id) == []  # Ben is rated against the computer that played Ann's seat
    places = table.game.places(table.state.totals)
    want = rate_game("family", ["computer:random", f"person:{ben.id}", "computer:random"], places, {})
    [h] = store.rating_history(ben.id, 5)
    assert h.seat == 1 and h.after[0] == pytest.approx(want[f"person:{ben.id}"].mu)
    store.close()
    again = Lobby(open_store(store_target)).get(table.id)  # the counts are rebuilt from the events
    assert again.decisions == table.decisions


# -- 4. a guest ties their seat to the profile they just made --------------------------------------

def guest_table(client: TestClient, name: str = "Gus") -> tuple[str, str]:
    made = client.post("/api/tables", json={"name": name, "seats": [{"kind": "you"}, *[RANDOM] * 3]})
    return made.json()["id"], made.json()["you"]["token"]


def test_a_guest_ties_their_seat_and_the_game_is_rated_and_listed(client: TestClient) -> None:
    tid, token = guest_table(client)
    gus = profile(client, "Gus Lee")
    assert client.post("/api/mine", headers=gus, json={}).json()["tables"] == []
    res = client.post(f"/api/tables/{tid}/tie", headers={**gus, "X-Barbu-Token": token})
    assert res.status_code == 200, res.text
    assert (res.json()["seat"], res.json()["table"]["holder"], res.json()["table"]["name"]) == (0, "profile",
                                                                                                "Gus Lee")
    assert client.post(f"/api/tables/{tid}/tie", headers={**gus, "X-Barbu-Token": token}).status_code == 200
    [mine] = client.post("/api/mine", headers=gus, json={}).json()["tables"]
    assert (mine["id"], mine["seat"]) == (tid, 0)
    live = server_of(client).tables.get(tid)
    me = Quiet()
    live.attach(me, live.seats[0].row.token)
    play_out(live, {0: me})
    player = client.get("/api/players/Gus Lee").json()
    assert player["ratings"]["classic"]["games"] == 1


def test_tying_a_seat_is_refused_precisely(client: TestClient) -> None:
    tid, token = guest_table(client)
    gus, ivy = profile(client, "Gus"), profile(client, "Ivy")
    assert error(client.post(f"/api/tables/{tid}/tie", headers={"X-Barbu-Token": token})) == \
        (403, "bad-profile")
    assert error(client.post(f"/api/tables/{tid}/tie", headers={**gus, "X-Barbu-Token": "nope"})) == \
        (403, "bad-token")
    assert client.post(f"/api/tables/{tid}/tie", headers={**gus, "X-Barbu-Token": token}).status_code == 200
    assert error(client.post(f"/api/tables/{tid}/tie", headers={**ivy, "X-Barbu-Token": token})) == \
        (409, "seat-tied")
    made = client.post("/api/tables", headers=gus, json={"seats": FRIENDS}).json()  # Gus sits at seat 1
    ben = client.post(f"/api/tables/{made['id']}/join", json={"name": "Ben"}).json()["token"]
    assert error(client.post(f"/api/tables/{made['id']}/tie", headers={**gus, "X-Barbu-Token": ben})) == \
        (409, "already-seated")
    free = made["seats"][1]["token"]
    assert error(client.post(f"/api/tables/{made['id']}/tie", headers={**ivy, "X-Barbu-Token": free})) == \
        (409, "not-taken")
    over_id, over_token = guest_table(client, "Hal")
    live = server_of(client).tables.get(over_id)
    me = Quiet()
    live.attach(me, live.seats[0].row.token)
    play_out(live, {0: me})
    assert error(client.post(f"/api/tables/{over_id}/tie", headers={**ivy, "X-Barbu-Token": over_token})) == \
        (409, "game-over")
