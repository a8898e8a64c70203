"""A public web server's limits, hostile JSON, the record rules, and the start of ``barbu serve``."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from tests.test_web_browser import free_port
from tests.test_web_ws import app_for, create, receive, server_of
from tests.web_helpers import Recorder, cards_in, fresh_db, mask_cards, sqlite_only

from barbu.cli import build_parser
from barbu.web.http.limits import Limiter
from barbu.web.http.sockets import CLOSE_NO_HELLO, CLOSE_TOO_MANY
from barbu.web.serve import default_db

BOTS = [{"kind": "bot", "level": "random"}] * 4


# -- hostile JSON ---------------------------------------------------------------------------

HOSTILE = [  # each within the 4 KiB of a message
    '{"type": "act", "action": 1e400}',
    '{"type": "act", "action": ' + "7" * 4000 + "}",
    '{"type": "takeover", "seat": ' + "1" * 4000 + "}",
    "[" * 2000 + "]" * 2000,
    '{"type": "hello", "token": ' + "[" * 2000 + "]" * 2000 + "}",
    '{"type": "takeover", "seat": true}',
    '{"type": "act", "action": ["QS"]}',
]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(app_for(fresh_db(tmp_path, "l.db"))) as c:
        yield c


def test_hostile_json_on_the_socket_gets_an_error_and_the_socket_stays(client: TestClient) -> None:
    made = create(client, name="Ann")
    with client.websocket_connect(f"/ws/{made['id']}") as ws:
        ws.send_json({"type": "hello", "token": made["you"]["token"]})
        receive(ws, "state")
        for text in HOSTILE:
            ws.send_text(text)
            msg = receive(ws)
            while msg["type"] == "state":  # the computers may be playing meanwhile
                msg = receive(ws)
            assert msg["type"] == "error" and msg["code"] in ("bad-json", "bad-message", "bad-action",
                                                               "bad-seat", "already-joined"), msg
        ws.send_json({"type": "ping"})
        assert receive(ws, "pong")


def test_hostile_json_over_http_gets_a_4xx(client: TestClient) -> None:
    made = create(client, name="Ann", seats=[{"kind": "human"}] * 4)
    bodies = [b"[" * 16000 + b"]" * 300, b'{"seed": ' + b"9" * 5000 + b"}", b'{"seed": 1e400}',
              b'{"seed": ' + b"9" * 100 + b"}", b'{"players": true}', b'{"options": [["heart-lead"]]}',
              b'{"name": ' + b"[" * 5000 + b"]" * 5000 + b"}"]
    for body in bodies:
        res = client.post("/api/tables", content=body)
        assert 400 <= res.status_code < 500 and res.json()["error"]["message"], body[:30]
        res = client.post(f"/api/tables/{made['id']}/join", content=body)
        assert 400 <= res.status_code < 500 and res.json()["error"]["message"], body[:30]


# -- limits -----------------------------------------------------------------------------------

def refused(res: Any, status: int, code: str) -> None:
    assert res.status_code == status, res.text
    assert res.json()["error"]["code"] == code and res.json()["error"]["message"]


def test_tables_per_client_per_minute_and_open_tables_in_all(tmp_path: Path) -> None:
    with TestClient(app_for(fresh_db(tmp_path, "a.db"), tables_per_minute=2)) as client:
        create(client, name="Ann")
        create(client, name="Ann")
        refused(client.post("/api/tables", json={"name": "Ann"}), 429, "too-many-tables")
        server_of(client).limiter = Limiter()  # as if a minute had passed
        create(client, name="Ann")
    with TestClient(app_for(fresh_db(tmp_path, "b.db"), max_open_tables=1)) as client:
        create(client, name="Ann")
        refused(client.post("/api/tables", json={"name": "Bob"}), 429, "server-full")


def test_computer_only_tables_their_number_and_levels(tmp_path: Path) -> None:
    with TestClient(app_for(fresh_db(tmp_path, "a.db"), max_bot_tables=0)) as client:
        refused(client.post("/api/tables", json={"seats": BOTS}), 403, "no-bot-tables")
        create(client, name="Ann")  # a person's table is still welcome
    with TestClient(app_for(fresh_db(tmp_path, "b.db"), max_bot_tables=1, bot_delay=5.0)) as client:
        refused(client.post("/api/tables", json={"seats": [{"kind": "bot", "level": "strong"}] * 4}),
                403, "bot-level-refused")  # the searching levels are for tables with a person
        create(client, name="Ann", seats=[{"kind": "human"}] + [{"kind": "bot", "level": "strong"}] * 3)
        create(client, seats=BOTS)
        refused(client.post("/api/tables", json={"seats": BOTS}), 429, "too-many-bot-tables")


def message(res: Any) -> str:
    text: str = res.json()["error"]["message"]
    return text


def test_a_limit_of_one_or_none_is_worded_in_the_right_number(tmp_path: Path) -> None:
    names = ["Ann", "Ben", "Cleo", "Dan"]
    one = fresh_db(tmp_path, "one.db")
    with TestClient(app_for(one, tables_per_minute=1, sheets_per_minute=1)) as client:
        create(client, name="Ann")
        assert message(client.post("/api/tables", json={})).startswith("you have created 1 table in the last")
        client.post("/api/sheets", json={"names": names, "first_declarer": 0})
        res = client.post("/api/sheets", json={"names": names, "first_declarer": 0})
        assert message(res).startswith("you have started 1 score sheet in the last")
    opened = fresh_db(tmp_path, "open.db")
    with TestClient(app_for(opened, max_open_tables=2, max_bot_tables=1, bot_delay=5.0)) as c:
        create(c, seats=BOTS)
        assert message(c.post("/api/tables", json={"seats": BOTS})).startswith(
            "1 table of computer players only is already running")
    with TestClient(app_for(fresh_db(tmp_path, "full.db"), max_open_tables=1)) as c:
        create(c, name="Ann")
        assert message(c.post("/api/tables", json={})).startswith("the server already has 1 open table:")
    none = fresh_db(tmp_path, "none.db")
    with TestClient(app_for(none, tables_per_minute=0, sheets_per_minute=0)) as client:
        assert message(client.post("/api/tables", json={})) == "this server creates no new tables"
        res = client.post("/api/sheets", json={"names": names, "first_declarer": 0})
        assert message(res) == "this server starts no score sheets"
    with TestClient(app_for(fresh_db(tmp_path, "s1.db"), sockets_per_client=1)) as client:
        made = create(client, name="Ann")
        url = f"/ws/{made['id']}"
        with client.websocket_connect(url), client.websocket_connect(url) as ws:
            assert receive(ws)["message"] == "at most 1 connection at once from one address"


def test_sockets_per_client(tmp_path: Path) -> None:
    with TestClient(app_for(fresh_db(tmp_path, "s.db"), sockets_per_client=2)) as client:
        made = create(client, name="Ann")
        url = f"/ws/{made['id']}"
        with client.websocket_connect(url) as a, client.websocket_connect(url):
            with client.websocket_connect(f"/ws/{made['id']}") as c:
                assert receive(c)["code"] == "too-many-sockets"
                with pytest.raises(WebSocketDisconnect) as e:
                    c.receive_text()
                assert e.value.code == CLOSE_TOO_MANY
            a.send_json({"type": "ping"})
            assert receive(a, "pong")
        with client.websocket_connect(f"/ws/{made['id']}") as again:  # closed ones no longer count
            again.send_json({"type": "ping"})
            assert receive(again, "pong")


def test_a_socket_that_never_says_hello_is_closed(tmp_path: Path) -> None:
    with TestClient(app_for(fresh_db(tmp_path, "h.db"), hello_timeout=0.2)) as client:
        made = create(client, name="Ann")
        with client.websocket_connect(f"/ws/{made['id']}") as ws:
            ws.send_json({"type": "ping"})  # a ping is not a hello
            assert receive(ws, "pong")
            assert receive(ws)["code"] == "hello-timeout"
            with pytest.raises(WebSocketDisconnect) as e:
                ws.receive_text()
            assert e.value.code == CLOSE_NO_HELLO


@pytest.mark.timeout(20)  # a socket that is never closed would otherwise wait on its next message
@pytest.mark.parametrize("friend", [False, True])
def test_a_hello_whose_name_is_not_a_string_is_refused_and_does_not_count(tmp_path: Path,
                                                                         friend: bool) -> None:
    with TestClient(app_for(fresh_db(tmp_path, "n.db"), hello_timeout=0.3)) as client:
        made = create(client, name="Ann", seats=[{"kind": "human"}] * 2 + [{"kind": "bot"}] * 2)
        token = made["seats"][1]["token"] if friend else None
        with client.websocket_connect(f"/ws/{made['id']}") as ws:
            ws.send_json({"type": "hello", "token": token, "name": {"first": "Ben"}})
            error = receive(ws)
            assert error["code"] == "bad-name" and error["message"].startswith('"name" must be a string')
            assert receive(ws)["code"] == "hello-timeout"  # it was no hello: the deadline still runs
            with pytest.raises(WebSocketDisconnect) as e:
                ws.receive_text()
            assert e.value.code == CLOSE_NO_HELLO


def test_a_friend_asked_for_their_name_is_not_cut_off_while_typing_it(tmp_path: Path) -> None:
    with TestClient(app_for(fresh_db(tmp_path, "t.db"), hello_timeout=0.2)) as client:
        made = create(client, name="Ann", seats=[{"kind": "human"}] * 2 + [{"kind": "bot"}] * 2)
        with client.websocket_connect(f"/ws/{made['id']}") as ws:
            ws.send_json({"type": "hello", "token": made["seats"][1]["token"]})  # as the page does first
            assert receive(ws)["code"] == "name-required"
            time.sleep(0.5)  # longer than the hello timeout: typing
            ws.send_json({"type": "hello", "token": made["seats"][1]["token"], "name": "Ben"})
            assert receive(ws)["type"] == "welcome"


def test_finished_and_abandoned_tables_leave_the_list_but_are_kept(tmp_path: Path) -> None:
    with TestClient(app_for(fresh_db(tmp_path, "f.db"), listed_after_over=0, abandoned_after=0,
                                 quiet_after=0)) as client:
        done = create(client, seats=BOTS)
        waiting = create(client, name="Ann")
        server = server_of(client)
        while not server.drivers[done["id"]].done():
            time.sleep(0.02)
        assert client.get("/api/tables").json()["tables"] == []
        for made in (done, waiting):
            assert client.get(f"/api/tables/{made['id']}").status_code == 200
            assert client.get(f"/api/tables/{made['id']}/record").status_code == 200
        assert "seed" in client.get(f"/api/tables/{done['id']}/record").json()


# -- the record ----------------------------------------------------------------------------

def test_the_record_of_a_running_game_holds_no_hidden_card(client: TestClient) -> None:
    made = create(client, name="Ann", seats=[{"kind": "human"}] * 4)
    table = server_of(client).tables.get(made["id"])
    players = {}
    for s, token in table.tokens():
        players[s] = Recorder(table)
        table.attach(players[s], token, None if table.seats[s].row.claimed else f"P{s}")
    while table.state.hand_no < 1:
        seat = table.state.current
        table.act(players[seat], table.state.observe(seat).to_json()["legal"][0])
    url = f"/api/tables/{made['id']}/record"
    doc = client.get(url).json()
    played = cards_in([h["actions"] for h in doc["hands"]])
    assert len(doc["hands"]) == 1 and "deal" not in doc["hands"][0] and cards_in(doc) == played
    own = table.state.history[0].deal[2]
    token = table.seats[2].row.token
    mine = client.get(url, headers={"X-Barbu-Token": token}).json()
    assert mine["seat"] == 2 and set(mine["hands"][0]["own_deal"].split()) == mask_cards(own)
    assert cards_in(mine) == played | mask_cards(own)
    refused(client.get(url, headers={"X-Barbu-Token": "guess"}), 403, "bad-token")
    refused(client.get(url, params={"token": token}), 400, "secret-in-url")  # it would be logged


# -- barbu serve: one process per database, and a port in use -------------------------------

def serve(db: Path, port: int) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "barbu.cli", "serve", "--db", str(db), "--port", str(port)]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})


def started(proc: subprocess.Popen[str]) -> None:
    assert proc.stdout is not None
    for line in proc.stdout:
        if "open http://" in line:
            return
    raise AssertionError("the server did not start: " + (proc.stderr.read() if proc.stderr else ""))


def refused_to_start(db: Path, port: int) -> tuple[str, str]:
    proc = serve(db, port)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode != 0
    return out, err


@sqlite_only
def test_a_second_server_on_one_database_or_one_port_refuses_to_start(tmp_path: Path) -> None:
    db, port = tmp_path / "one.db", free_port()
    first = serve(db, port)
    try:
        started(first)
        out, err = refused_to_start(db, free_port())
        assert err.strip() == f"barbu serve: the database {db} is in use by another barbu serve " \
            f"(pid {first.pid}); stop it or use --db" and "open http" not in out
        out, err = refused_to_start(tmp_path / "two.db", port)
        assert err.strip() == f"barbu serve: port {port} on 127.0.0.1 is in use; choose another " \
            "with --port" and "open http" not in out
        assert not (tmp_path / "two.db.lock").exists() and not (tmp_path / "two.db").exists()
    finally:
        first.send_signal(signal.SIGKILL)  # dies without a word: the OS lets go of its lock
        first.communicate(timeout=30)
    again = serve(db, free_port())
    try:
        started(again)
    finally:
        again.terminate()
        again.communicate(timeout=30)


@sqlite_only
def test_a_file_that_is_not_a_barbu_database_is_refused_in_one_line(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_text("garbage\n")
    out, err = refused_to_start(junk, free_port())
    assert err.strip() == f"barbu serve: {junk} is not a barbu database (SQLite): file is not a database"
    assert "open http" not in out and not (tmp_path / "junk.db.lock").exists()
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:  # another program's SQLite file: refused, and left as it was
        db.execute("CREATE TABLE tables (x)")
    out, err = refused_to_start(other, free_port())
    assert err.strip().startswith(f"barbu serve: {other} is not a barbu database (SQLite): ")
    with sqlite3.connect(other) as db:
        assert db.execute("SELECT name FROM sqlite_master").fetchall() == [("tables",)]


@sqlite_only
def test_a_lock_file_someone_else_made_is_left_on_a_failed_start(tmp_path: Path) -> None:
    db, port = tmp_path / "kept.db", free_port()
    (tmp_path / "kept.db.lock").write_text("")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", port))
        taken.listen()
        refused_to_start(db, port)
    assert (tmp_path / "kept.db.lock").exists()


@pytest.mark.parametrize("flag", ["--port=99999", "--port=-1", "--bot-delay=-1", "--idle=nan",
                                  "--max-open-tables=-5", "--tables-per-minute=2.5", "--max-bot-tables=-1",
                                  "--sockets-per-client=0", "--hello-timeout=0", "--listed-after-over=-1",
                                  "--abandoned-after=0", "--quiet-after=0", "--quiet-after=x",
                                  "--sheets-per-minute=-1", "--db-timeout=inf",
                                  "--max-analyses=-1", "--analysis-budget=0"])
def test_every_numeric_serve_flag_is_checked_by_argparse(flag: str,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        build_parser().parse_args(["serve", flag])
    name = flag.split("=")[0]
    assert e.value.code == 2 and f"error: argument {name}: " in capsys.readouterr().err


def test_serve_help_says_what_it_does_and_where_tables_are_stored(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "Serve card tables in the browser" in text and f"by default {default_db()} (--db" in text


def test_serve_believes_forwarded_addresses_from_the_balancer_it_is_given() -> None:
    """--forwarded-allow-ips reaches uvicorn; without it no X-Forwarded-For is believed, not even from this
    machine (uvicorn's own default) where a local proxy may pass a client's header on."""
    import argparse

    from barbu.web.serve import add_arguments, uvicorn_config

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    given = uvicorn_config(None, parser.parse_args(["--forwarded-allow-ips", "10.0.0.5,10.0.0.6"]),
                           ws_max_size=1)
    assert given.proxy_headers and given.forwarded_allow_ips == "10.0.0.5,10.0.0.6"
    default = uvicorn_config(None, parser.parse_args([]), ws_max_size=1)
    assert not default.proxy_headers


def test_a_socket_message_up_to_a_mebibyte_reaches_the_app() -> None:
    """uvicorn closes a socket (1009, no event) on a message over ``ws_max_size``: ``barbu serve`` lets
    through up to 1 MiB, so that one far over MAX_MESSAGE still gets the app's ``too-large`` event."""
    import argparse

    from barbu.web.http.sockets import MAX_MESSAGE
    from barbu.web.serve import add_arguments, uvicorn_config

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    config = uvicorn_config(None, parser.parse_args([]))
    assert config.ws_max_size == 1 << 20 > 16 * MAX_MESSAGE


def test_computer_only_tables_take_their_levels_by_either_name(tmp_path: Path) -> None:
    import argparse

    from barbu.web.serve import add_arguments, config_of

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    config = config_of(parser.parse_args(["--bot-table-levels", "easy, random,hard"]), tmp_path / "t.db")
    assert config.bot_table_levels == ("basic", "random", "strong")
