"""Chat and rematch messages are limited per person and address (across sockets and reconnects), and
what one table stores of them is capped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests.test_web_rematch import BODY, finished_over_sockets, seated
from tests.test_web_ws import app_for, create, receive
from tests.web_helpers import Recorder, fresh_db

from barbu.web.core.errors import TableError
from barbu.web.storage.sqlite import open_store
from barbu.web.tables import chat as chatmod
from barbu.web.tables import rematch as rematchmod
from barbu.web.tables.lobby import Lobby
from barbu.web.tables.setup import Setup


def answers_until_pong(ws: Any, payloads: list[dict[str, Any]], echo: str) -> tuple[int, list[str]]:
    """Send ``payloads`` then a ping; how many ``echo`` events came back, and the errors' codes."""
    for payload in payloads:
        ws.send_json(payload)
    ws.send_json({"type": "ping"})
    echoes, errors = 0, []
    while (msg := receive(ws))["type"] != "pong":
        if msg["type"] == echo:
            echoes += 1
        elif msg["type"] == "error":
            errors.append(msg["code"])
    return echoes, errors


def test_chat_from_one_address_is_counted_across_sockets_and_reconnects(tmp_path: Path) -> None:
    with TestClient(app_for(fresh_db(tmp_path, "c.db"), chat_per_minute=8, bot_delay=5.0)) as client:
        made = create(client, name="Ann", chat="everyone")
        said, refused = 0, []
        for n in range(6):  # a watcher who reconnects after each burst that a socket is allowed
            with client.websocket_connect(f"/ws/{made['id']}") as ws:
                ws.send_json({"type": "hello"})
                receive(ws, "welcome")
                echoes, errors = answers_until_pong(ws, [{"type": "chat", "text": f"hi {n}.{i}"}
                                                         for i in range(5)], "chat")
                said, refused = said + echoes, refused + errors
        assert said == 8 and refused == ["chat-too-fast"] * 22
        events = server_events(client, made["id"], "chat")
        assert events == 8


def server_events(client: TestClient, table_id: str, kind: str) -> int:
    server = client.app.state.server  # type: ignore[attr-defined]
    return sum(1 for ev in server.store.events(table_id) if ev.kind == kind)


def test_rematch_steps_are_counted_per_person(tmp_path: Path) -> None:
    with TestClient(app_for(fresh_db(tmp_path, "r.db"), idle=0.0, rematch_per_minute=6)) as client:
        made = client.post("/api/tables", json={**BODY, "turn_clock": None}).json()
        url = f"/ws/{made['id']}"
        with client.websocket_connect(url) as ann, client.websocket_connect(url) as ben:
            ann.send_json({"type": "hello", "token": made["you"]["token"]})
            ben.send_json({"type": "hello", "token": made["seats"][1]["token"], "name": "Ben"})
            receive(ann, "welcome")
            receive(ben, "welcome")
            finished_over_sockets(client, made, ann, ben)
            steps = [{"type": "rematch", "op": op} for _ in range(10) for op in ("offer", "withdraw")]
            _, errors = answers_until_pong(ann, steps, "rematch")
        assert errors == ["rematch-too-fast"] * 14
        assert server_events(client, made["id"], "rematch") == 6


def test_a_table_stores_at_most_so_many_chat_lines_even_after_a_restart(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chatmod, "MAX_STORED", 3)
    db = fresh_db(tmp_path, "cap.db")
    store = open_store(db)
    try:
        table = Lobby(store).create(Setup.parse({"name": "Ann", "chat": "everyone"}))
        ann = Recorder(table)
        table.attach(ann, table.seats[0].row.token)
        for i in range(3):
            table.run(table.plan_chat(ann, f"line {i}"))
        with pytest.raises(TableError) as e:
            table.plan_chat(ann, "one too many")
        assert e.value.code == "chat-full" and e.value.status == 409
    finally:
        store.close()
    store = open_store(db)
    try:
        again = Lobby(store).get(table.id)
        with pytest.raises(TableError) as e:
            again.plan_chat(Recorder(again), "after a restart")
        assert e.value.code == "chat-full"
        assert sum(1 for ev in store.events(table.id) if ev.kind == "chat") == 3
    finally:
        store.close()


def test_a_table_takes_at_most_so_many_rematch_offers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rematchmod, "MAX_OFFERS", 3)
    store = open_store(fresh_db(tmp_path, "offers.db"))
    try:
        lobby = Lobby(store)
        table, ann, _, _ = seated(lobby)
        for _ in range(3):
            table.run(table.plan_rematch(ann, "offer", lobby))
            table.run(table.plan_rematch(ann, "withdraw", lobby))
        with pytest.raises(TableError) as e:
            table.plan_rematch(ann, "offer", lobby)
        assert e.value.code == "rematch-limit" and e.value.status == 409
        assert sum(1 for ev in store.events(table.id) if ev.kind == "rematch") == 6
    finally:
        store.close()



def test_a_tables_chat_forgets_the_senders_whose_window_has_passed() -> None:
    limit = chatmod.RateLimit(2, 10.0)
    for n in range(100):  # watchers who came, wrote once or were only checked, and left
        limit.check(f"watcher {n}", 0.0)
        if n % 2:
            limit.note(f"watcher {n}", 0.0)
    assert len(limit.sent) <= 50
    for _ in range(13):  # each check forgets a few of those whose window has passed
        limit.check("watcher new", 11.0)
    assert list(limit.sent) == []
