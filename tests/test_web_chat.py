"""The table's chat over the socket: stored before it is told, cleaned, limited, watchers by rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.testclient import TestClient
from tests.test_web_ws import TWO_PEOPLE, app_for, create, error_of, events_count, people_to_act, receive
from tests.web_helpers import fresh_db

from barbu.web.core.errors import TableError
from barbu.web.tables.chat import BURST, MAX_CHARS, RateLimit, clean_text


def hello(ws: object, token: str | None) -> dict[str, object]:
    ws.send_json({"type": "hello", "token": token})  # type: ignore[attr-defined]
    welcome = receive(ws, "welcome")
    return welcome


def test_a_message_reaches_everyone_and_comes_back_after_a_restart(tmp_path: Path) -> None:
    db = fresh_db(tmp_path, "chat.db")
    with TestClient(app_for(db)) as c:
        made = create(c, name="Ann", seats=TWO_PEOPLE)
        tid = made["id"]
        people_to_act(c, tid)
        with c.websocket_connect(f"/ws/{tid}") as ann, c.websocket_connect(f"/ws/{tid}") as ben:
            hello(ann, made["you"]["token"])
            assert receive(ann, "chat-log") == {"type": "chat-log", "rights": "players", "messages": []}
            ben.send_json({"type": "hello", "token": made["seats"][1]["token"], "name": "Ben"})
            receive(ben, "chat-log")
            before = events_count(c, tid)
            ben.send_json({"type": "chat", "text": "  good <b>luck</b>\n\x07all "})
            said = receive(ann, "chat")["message"]
            assert said["seat"] == 1 and said["name"] == "Ben" and said["text"] == "good <b>luck</b> all"
            assert receive(ben, "chat")["message"] == said  # the writer sees it once it is stored
            assert events_count(c, tid) == before + 1
    with TestClient(app_for(db)) as c2, c2.websocket_connect(f"/ws/{tid}") as watcher:
        hello(watcher, None)
        assert receive(watcher, "chat-log")["messages"] == [said]
        # A game with talk in its events replays as before: the chat is not part of the game.
        assert c2.get(f"/api/tables/{tid}").json()["table"]["damaged"] is None


def test_watchers_read_and_write_only_where_the_table_lets_them(tmp_path: Path) -> None:
    with TestClient(app_for(fresh_db(tmp_path, "w.db"))) as c:
        closed = create(c, name="Ann")
        open_ = create(c, name="Ann", chat="everyone")
        for made, may in ((closed, False), (open_, True)):
            people_to_act(c, made["id"])
            with c.websocket_connect(f"/ws/{made['id']}") as watcher:
                hello(watcher, None)
                assert receive(watcher, "chat-log")["rights"] == ("everyone" if may else "players")
                watcher.send_json({"type": "chat", "text": "hello from the rail"})
                got = receive(watcher)
                while got["type"] == "state":
                    got = receive(watcher)
                if may:
                    assert got["type"] == "chat" and got["message"]["seat"] is None
                else:
                    assert got["type"] == "error" and got["code"] == "chat-players-only"


def test_bad_messages_are_refused_and_nothing_is_stored(tmp_path: Path) -> None:
    with TestClient(app_for(fresh_db(tmp_path, "b.db"))) as c:
        made = create(c, name="Ann")
        tid = made["id"]
        people_to_act(c, tid)
        before = events_count(c, tid)
        with c.websocket_connect(f"/ws/{tid}") as ws:
            assert error_of(ws, json.dumps({"type": "chat", "text": "hi"}))["code"] == "hello-first"
            hello(ws, made["you"]["token"])
            assert error_of(ws, json.dumps({"type": "chat"}))["code"] == "bad-chat"
            assert error_of(ws, json.dumps({"type": "chat", "text": 7}))["code"] == "bad-chat"
            assert error_of(ws, json.dumps({"type": "chat", "text": " \n\t"}))["code"] == "empty-chat"
            long = error_of(ws, json.dumps({"type": "chat", "text": "x" * (MAX_CHARS + 1)}))
            assert long["code"] == "chat-too-long" and long["args"] == {"n": MAX_CHARS}
            assert events_count(c, tid) == before
            for i in range(BURST):
                ws.send_json({"type": "chat", "text": f"message {i}"})
                assert receive(ws, "chat")["message"]["text"] == f"message {i}"
            fast = error_of(ws, json.dumps({"type": "chat", "text": "one more"}))
            assert fast["code"] == "chat-too-fast" and fast["args"]["seconds"] >= 1
        assert events_count(c, tid) == before + BURST


@given(st.text(max_size=400))
def test_clean_text_keeps_printable_words_only(raw: str) -> None:
    try:
        text = clean_text(raw)
    except TableError as e:
        assert e.code in ("empty-chat", "chat-too-long")
        return
    assert text == text.strip() and "  " not in text and 0 < len(text) <= MAX_CHARS
    assert all(ch.isprintable() for ch in text)
    assert text.split() == " ".join("".join(ch if ch.isprintable() else " " for ch in raw).split()).split()


def test_the_rate_limit_forgets_old_messages() -> None:
    limit = RateLimit(2, 10.0)
    for _ in range(3):
        limit.check("a", 0.0)  # checking counts nothing
    for now in (0.0, 5.0):
        limit.check("a", now)
        limit.note("a", now)
    limit.check("b", 5.0)  # each sender has its own count
    with pytest.raises(TableError) as e:
        limit.check("a", 9.0)
    assert e.value.slots == {"n": 2, "seconds": 1}
    limit.check("a", 10.0)  # the first has left the window
