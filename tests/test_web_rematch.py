"""The rematch without the web: offered at the end of a game, accepted by every person, stored first."""

from __future__ import annotations

import dataclasses
import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests.test_web_friends import profile
from tests.test_web_tables import play_by_views
from tests.test_web_ws import app_for, error_of, people_to_act, receive, server_of
from tests.web_helpers import Recorder, check_hidden, fresh_db

from barbu.web.core.errors import TableError
from barbu.web.storage.sqlite import Store, open_store
from barbu.web.tables.lobby import Lobby
from barbu.web.tables.setup import Setup
from barbu.web.tables.table import Table

# A shorter game (a hand each) is played to its end in each test: the rematch is of the game as it was set up.
BODY = {"ruleset": "family", "players": 3, "rounds": 3, "name": "Ann", "chat": "everyone", "private": True,
        "turn_clock": {"seconds": 30, "level": "random"},
        "seats": [{"kind": "you"}, {"kind": "friend"}, {"kind": "bot", "level": "random"}]}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return fresh_db(tmp_path, "t.db")


@pytest.fixture
def lobby(db: Path) -> Iterator[Lobby]:
    store = open_store(db)
    yield Lobby(store)
    store.close()


def seated(lobby: Lobby, finish: bool = True) -> tuple[Table, Recorder, Recorder, Recorder]:
    """Ann's table of three (Ben by his link, a computer), played to its end; Ann, Ben and a watcher."""
    table = lobby.create(Setup.parse(BODY))
    ann, ben, watcher = Recorder(table), Recorder(table), Recorder(table)
    table.attach(ann, table.seats[0].row.token)
    table.attach(ben, table.seats[1].row.token, "Ben")
    table.attach(watcher, None)
    if finish:
        play_by_views(table, [ann, ben], random.Random(5), hands=10**6)
        assert table.state.is_over
    return table, ann, ben, watcher


def rematch(table: Table, client: Recorder, op: object, lobby: Lobby) -> None:
    table.run(table.plan_rematch(client, op, lobby))


def refused(table: Table, client: Recorder, op: object, lobby: Lobby) -> str:
    with pytest.raises(TableError) as e:
        rematch(table, client, op, lobby)
    return e.value.code


def links(r: Recorder) -> list[str]:
    return [m["link"] for m in r.messages if m["type"] == "rematch-link"]


def test_accepted_by_all_makes_one_table_with_the_same_setup_and_seats(lobby: Lobby) -> None:
    table, ann, ben, watcher = seated(lobby)
    rematch(table, ann, "offer", lobby)
    offer = ben.last_state["table"]["rematch"]
    assert offer["open"] and offer["by"] == 0 and offer["accepted"] == [0] and offer["people"] == [0, 1]
    assert watcher.last_state["table"]["rematch"]["accepted"] == [0]
    before = set(lobby.tables)
    rematch(table, ben, "accept", lobby)
    (new_id,) = set(lobby.tables) - before
    new = lobby.tables[new_id]
    game = (new.game.ruleset, new.game.players, new.game.options, new.game.rounds)
    assert game == ("family", 3, frozenset(), 3)
    assert [(s.row.kind, s.row.level, s.row.name, s.row.access, s.row.claimed) for s in new.seats] == \
        [("human", "", "Ann", "open", True), ("human", "", "Ben", "friend", True),
         ("bot", "random", "Computer 3", "open", True)]
    assert new.chat.rights == "everyone" and new.turn_clock == table.turn_clock and new.private
    assert new.creator == 0 and new.state.first_declarer == (table.state.first_declarer + 1) % 3
    assert links(ann) == [f"/table/{new_id}#t={new.seats[0].row.token}"]
    assert links(ben) == [f"/table/{new_id}#t={new.seats[1].row.token}"] and links(watcher) == []
    for reader, others in ((ann, [1]), (ben, [0]), (watcher, [0, 1])):
        text = json.dumps(reader.messages)
        assert not any(new.seats[s].row.token in text for s in others)
    assert table.meta()["rematch"]["made"] and not table.meta()["rematch"]["open"]


def test_a_decline_or_a_withdrawal_ends_the_offer_for_all(lobby: Lobby) -> None:
    table, ann, ben, watcher = seated(lobby)
    rematch(table, ann, "offer", lobby)
    assert refused(table, ben, "withdraw", lobby) == "rematch-not-yours"
    rematch(table, ben, "decline", lobby)
    assert watcher.last_state["table"]["rematch"]["ended"] == {"op": "decline", "seat": 1}
    assert refused(table, ann, "accept", lobby) == "rematch-none"
    rematch(table, ben, "offer", lobby)  # a new offer may follow
    rematch(table, ben, "withdraw", lobby)
    assert ann.last_state["table"]["rematch"] == {"number": 2, "open": False, "by": 1, "accepted": [],
                                                  "ended": {"op": "withdraw", "seat": 1}, "made": False,
                                                  "people": [0, 1]}
    assert refused(table, ben, "accept", lobby) == "rematch-none"
    assert links(ann) == links(ben) == []


BAD = [("watcher", "offer", "not-seated"), ("ann", "rematch", "bad-rematch"), ("ann", 1, "bad-rematch"),
       ("ann", None, "bad-rematch"), ("ann", ["offer"], "bad-rematch"), ("ben", "accept", "rematch-none"),
       ("ann", "withdraw", "rematch-none")]


def test_bad_input_is_refused_with_its_own_code(lobby: Lobby) -> None:
    table, ann, ben, watcher = seated(lobby)
    for who, op, code in BAD:
        assert refused(table, {"ann": ann, "ben": ben, "watcher": watcher}[who], op, lobby) == code, (who, op)
    assert table.store.events(table.id)[-1].kind == "act"  # nothing stored


def test_not_before_the_end_not_twice_and_not_once_made(lobby: Lobby) -> None:
    table, ann, ben, _ = seated(lobby, finish=False)
    assert refused(table, ann, "offer", lobby) == "rematch-too-early"
    play_by_views(table, [ann, ben], random.Random(2), hands=10**6)
    rematch(table, ann, "offer", lobby)
    assert refused(table, ben, "offer", lobby) == "rematch-open"
    assert refused(table, ann, "accept", lobby) == "rematch-accepted"
    rematch(table, ben, "accept", lobby)
    for client, op in ((ben, "accept"), (ann, "offer"), (ben, "decline"), (ann, "withdraw")):
        assert refused(table, client, op, lobby) == "rematch-made"


def test_alone_with_computers_the_offer_is_the_rematch(lobby: Lobby) -> None:
    table = lobby.create(Setup.parse({**BODY, "seed": 7, "seats": [{"kind": "you"}, {"kind": "bot"},
                                                                  {"kind": "bot", "level": "random"}]}))
    ann = Recorder(table)
    table.attach(ann, table.seats[0].row.token)
    play_by_views(table, [ann], random.Random(3), hands=10**6)
    rematch(table, ann, "offer", lobby)  # the computers accept at once
    (link,) = links(ann)
    new = lobby.get(link.split("/")[2].split("#")[0])
    assert [(s.row.kind, s.row.level) for s in new.seats] == [(s.row.kind, s.row.level) for s in table.seats]
    assert [ev.data["op"] for ev in table.store.events(table.id) if ev.kind == "rematch"] == ["offer", "made"]
    assert new.state.seed != table.state.seed  # a practice game's chosen seed is not dealt again


def made_from(store: Store, table_id: str) -> list[str]:
    return [t for t in store.table_ids() if (store.load_setup(t) or {}).get("rematch_of") == table_id]


def test_a_restart_keeps_the_offer_and_a_made_rematch_is_never_made_twice(db: Path) -> None:
    store = open_store(db)
    first = Lobby(store)
    table, ann, _, _ = seated(first)
    rematch(table, ann, "offer", first)
    store.close()

    store = open_store(db)
    again = Lobby(store)
    back = again.get(table.id)
    assert back.rematch.open and back.rematch.accepted == {0} and back.rematch.by == 0
    ben = Recorder(back)
    back.attach(ben, back.seats[1].row.token)
    assert refused(back, ben, "offer", again) == "rematch-open"
    rematch(back, ben, "accept", again)
    assert len(made_from(store, table.id)) == 1 and links(ben)
    store.close()

    store = open_store(db)
    third = Lobby(store)
    old = third.get(table.id)
    late = Recorder(old)  # Ann was away: she finds her new seat's link on the old table
    old.attach(late, old.seats[0].row.token)
    (new_id,) = made_from(store, table.id)
    assert links(late) == [f"/table/{new_id}#t={store.load_seats(new_id)[0].token}"]
    assert refused(old, late, "offer", third) == "rematch-made"
    assert third.yours(None, [{"table": table.id, "token": old.seats[0].row.token}])[0]["rematch"] == \
        links(late)[0]
    # "your tables" tells the two apart: the new one names the game it continues, and when that began.
    held = [{"table": table.id, "token": old.seats[0].row.token},
            {"table": new_id, "token": store.load_seats(new_id)[0].token}]
    first, second = sorted(third.yours(None, held), key=lambda x: x["id"] != table.id)
    assert "rematch_of" not in first and second["rematch_of"] == {"id": table.id, "started": first["started"]}
    assert 0 < first["started"] <= second["started"]
    assert len(made_from(store, table.id)) == 1
    store.close()


def test_the_last_acceptance_and_the_new_table_are_stored_together_or_not_at_all(lobby: Lobby) -> None:
    table, ann, ben, _ = seated(lobby)
    rematch(table, ann, "offer", lobby)
    change = table.plan_rematch(ben, "accept", lobby)
    (created,) = change.batch.also
    lobby.store.commit(dataclasses.replace(created))  # another table takes that id first
    with pytest.raises(TableError) as e:
        table.run(change)  # so storing the new table fails, and the acceptance with it
    assert e.value.code == "storage"
    assert [ev.data["op"] for ev in lobby.store.events(table.id) if ev.kind == "rematch"] == ["offer"]
    assert table.rematch.open and table.rematch.table is None and links(ben) == []


# -- over the socket ---------------------------------------------------------------------

def finished_over_sockets(client: Any, made: dict[str, Any], ann: Any, ben: Any) -> Table:
    """Each person hands the other's seat to a computer on its turn, and the computers finish."""
    table = server_of(client).tables.get(made["id"])
    deadline = time.monotonic() + 120
    while not table.state.is_over:
        assert time.monotonic() < deadline, "the game never ended"
        people_to_act(client, made["id"])
        current = table.state.current
        if 0 <= current < 2 and not table.seats[current].is_bot:
            (ben if current == 0 else ann).send_json({"type": "takeover", "seat": current, "level": "random"})
            receive(ben if current == 0 else ann, "state")
        time.sleep(0.01)
    return table


def test_over_the_socket_a_rematch_accepted_by_both_opens_each_person_their_own_seat(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from barbu.web.http import sockets

    sent: list[tuple[int | None, str]] = []
    original = sockets.Connection.send_text

    def checking(self: Any, text: str) -> None:
        for table in server_of(client).tables.tables.values():
            if table.clients and self in table.clients:
                check_hidden(json.loads(text), self.seat, table.state.hands, text)
        sent.append((self.seat, text))
        original(self, text)

    monkeypatch.setattr(sockets.Connection, "send_text", checking)
    with TestClient(app_for(fresh_db(tmp_path, "ws.db"), idle=0.0)) as client:
        ann_profile = profile(client, "Ann")
        res = client.post("/api/tables", headers=ann_profile, json={**BODY, "turn_clock": None})
        made = res.json()
        tid = made["id"]
        with client.websocket_connect(f"/ws/{tid}") as ann, client.websocket_connect(f"/ws/{tid}") as ben, \
                client.websocket_connect(f"/ws/{tid}") as watcher:
            ann.send_json({"type": "hello", "token": made["you"]["token"]})
            ben.send_json({"type": "hello", "token": made["seats"][1]["token"], "name": "Ben"})
            watcher.send_json({"type": "hello"})
            for ws in (ann, ben, watcher):
                receive(ws, "welcome")
            early = error_of(ann, json.dumps({"type": "rematch", "op": "offer"}))
            assert early["code"] == "rematch-too-early"
            finished_over_sockets(client, made, ann, ben)
            assert error_of(watcher, json.dumps({"type": "rematch", "op": "offer"}))["code"] == "not-seated"
            assert error_of(ben, json.dumps({"type": "rematch", "op": {"x": 1}}))["code"] == "bad-rematch"
            ann.send_json({"type": "rematch", "op": "offer"})
            while not receive(watcher, "state")["table"]["rematch"]["open"]:
                pass
            server_of(client).config.max_open_tables = 0  # the last acceptance would make a table: refused
            assert error_of(ben, json.dumps({"type": "rematch", "op": "accept"}))["code"] == "server-full"
            server_of(client).config.max_open_tables = 200
            ben.send_json({"type": "rematch", "op": "accept"})
            mine, his = receive(ann, "rematch-link"), receive(ben, "rematch-link")
            while not receive(watcher, "state")["table"]["rematch"]["made"]:
                pass
        new = server_of(client).tables.get(mine["table"])
        assert his["table"] == new.id and mine["link"] != his["link"]
        for seat, link in ((0, mine["link"]), (1, his["link"])):
            with client.websocket_connect(f"/ws/{new.id}") as ws:
                ws.send_json({"type": "hello", "token": link.split("#t=")[1]})
                welcome = receive(ws, "welcome")
                assert welcome["you"] == seat and not welcome["table"]["over"]
                assert welcome["table"]["seats"][seat]["kind"] == "human"
        for seat in (0, 1):  # each new token went once, to its own person's page only
            token = new.seats[seat].row.token
            assert [to for to, text in sent if token in text] == [seat]
        old_row = server_of(client).tables.get(tid).seats[0].row
        assert new.seats[0].row.player and new.seats[0].row.player == old_row.player  # the same profile
        anns = client.post("/api/mine", headers=ann_profile, json={}).json()["tables"]  # by her profile
        assert {(t["id"], t.get("rematch")) for t in anns} == {(tid, mine["link"]), (new.id, None)}
        held = [{"table": tid, "token": made["seats"][1]["token"]}]  # Ben's first link had lapsed
        assert client.post("/api/mine", json={"seats": held}).json()["tables"] == []
        public = json.dumps([client.get("/api/tables").json(), client.get(f"/api/tables/{tid}").json(),
                             client.get(f"/api/tables/{new.id}").json()])
        assert new.seats[0].row.token not in public and new.seats[1].row.token not in public


def test_a_rematch_event_edited_by_hand_neither_damages_the_game_nor_makes_a_table(db: Path) -> None:
    store = open_store(db)
    table, *_ = seated(Lobby(store), finish=False)
    store.append_event(table.id, "rematch", {"op": "made"})  # no table named
    store.append_event(table.id, "rematch", {"op": "accept", "seat": "x"})
    store.close()
    store = open_store(db)
    back = Lobby(store).get(table.id)
    assert back.damaged is None and back.rematch.table is None and back.state.hand_no == table.state.hand_no
    store.close()
