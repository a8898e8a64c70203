"""The web server against abuse: a table's creator seat, the owner's sign-in under a crowd's guesses, the
current password, the bounded count of tables made per address, secrets kept out of the access log."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient
from tests.test_web_signin import PASSWORD, at, clock, profile, signin
from tests.test_web_signin import client as client
from tests.test_web_ws import app_for, receive, server_of
from tests.web_helpers import fresh_db

from barbu.web.http.guard import redact
from barbu.web.http.limits import LocalCounters


def test_a_stranger_who_joins_never_becomes_the_creator(tmp_path: Path) -> None:
    """A table made through the API without a name or profile for its "you" seat: nobody who joins it
    later is told they are its creator (who is sent the friends' links and may start without them)."""
    with TestClient(app_for(fresh_db(tmp_path, "creator.db"))) as c:
        res = c.post("/api/tables", json={"seats": [{"kind": "you"}, {"kind": "friend"},
                                                    {"kind": "bot"}, {"kind": "bot"}]})
        assert res.status_code == 201, res.text
        tid = res.json()["id"]
        stranger = at(c, "192.0.2.66")
        joined = stranger.post(f"/api/tables/{tid}/join", json={"name": "Mallory"},
                               headers={"X-Barbu-Client": "mallory-browser"})
        assert joined.status_code == 403, "a stranger from the lobby took the creator's seat"
        assert c.get(f"/api/tables/{tid}").json()["summary"]["free_seats"] == 0  # nor is it listed free
        with c.websocket_connect(f"/ws/{tid}") as ws:  # the creator takes it with its link
            ws.send_json({"type": "hello", "token": res.json()["you"]["token"], "name": "Ann"})
            welcome = receive(ws, "welcome")
            assert welcome["you"] == 0 and welcome["creator"]


def test_the_owner_on_a_new_device_gets_in_despite_a_crowd(client: TestClient) -> None:
    """Five addresses guess the name's password in turn, once a second, for 30 minutes: the owner, on a
    new device and address trying every 7 s, still gets in."""
    profile(client, "Ann")
    wall = clock(client)
    crowd = [f"198.51.100.{i}" for i in range(5)]
    owner_in = False
    for second in range(1800):
        signin(client, crowd[second % 5], "Ann", "not the password")
        if second >= 120 and second % 7 == 0:  # once the crowd has made its first ten failures
            wall.now += 0.5
            owner_in = owner_in or signin(client, "203.0.113.7", "Ann", PASSWORD) == 200
            wall.now -= 0.5
        if owner_in:
            break
        wall.now += 1.0
    assert owner_in, "a crowd of five addresses kept the owner's new device out for 30 minutes"


def test_a_password_is_changed_or_removed_only_with_the_current_one(client: TestClient) -> None:
    """Whoever holds one device's key (a shared computer, a transfer code seen over a shoulder) cannot set
    or remove the password (which signs out the owner's other devices): the current one is asked for,
    and guessing it is slowed down like any sign-in."""
    owner = profile(client, "Bea")
    code = client.post("/api/me/transfer", headers=owner).json()["code"]
    shared = at(client, "192.0.2.44")  # the shared computer
    thief = {"X-Barbu-Player": shared.post("/api/players/claim", json={"code": code}).json()["credential"]}
    for change in ({"password": "the thief's own"}, {"password": None},
                   {"password": "the thief's own", "current": 7}):
        res = shared.post("/api/me/password", headers=thief, json=change)
        assert res.status_code == 403 and res.json()["error"]["code"] == "bad-current-password", change
    guesses = [shared.post("/api/me/password", headers=thief,
                           json={"password": None, "current": f"guess {i}"})
               for i in range(30)]
    assert guesses[-1].status_code == 429, "guesses at the current password are not slowed down"
    assert client.get("/api/me", headers=owner).status_code == 200  # nothing changed
    assert signin(client, "198.51.100.9", "Bea", PASSWORD) == 200
    res = client.post("/api/me/password", headers=owner,
                      json={"password": "a new one now", "current": PASSWORD})
    assert res.status_code == 200, res.text
    assert signin(client, "198.51.100.9", "Bea", "a new one now") == 200


def test_refused_tables_leave_no_count_per_address(tmp_path: Path) -> None:
    """A table refused because the server is full leaves no counter behind for its address."""
    with TestClient(app_for(fresh_db(tmp_path, "created.db"), max_open_tables=0)) as c:
        for i in range(0, 300, 10):  # 30 addresses in two networks
            res = at(c, f"10.20.{i // 250}.{i % 250}").post("/api/tables", json={"name": "Ann"})
            assert res.status_code == 429
        counters = server_of(c).limiter.counters
        assert isinstance(counters, LocalCounters)
        assert len(counters) == 0, "refused requests left a key per address"


@pytest.mark.parametrize("path", ["/api/tables/x/record?tok%65n=SECRET", "/table/x?t=SECRET",
                                  "/table/x?access_token=SECRET"])
def test_secrets_in_a_query_are_redacted_from_the_log(path: str) -> None:
    """A secret's name percent-encoded (``tok%65n``, read as ``token``), short (``t``) or a variant
    (``access_token``) is redacted too."""
    assert "SECRET" not in redact(f'127.0.0.1:1 - "GET {path} HTTP/1.1" 400')


def test_unknown_api_addresses_and_wrong_methods_answer_in_json(tmp_path: Path) -> None:
    """Under /api a 404 or 405 has the JSON body of every other refusal; a page keeps plain text."""
    with TestClient(app_for(fresh_db(tmp_path, "routes.db"))) as c:
        missing = c.get("/api/no-such-thing")
        assert missing.status_code == 404
        assert missing.json()["error"]["code"] == "not-found"
        wrong = c.delete("/api/tables")
        assert wrong.status_code == 405 and "GET" in wrong.headers["allow"]
        error = wrong.json()["error"]
        assert error == {"code": "method-not-allowed", "message": error["message"], "field": None,
                         "args": {"allow": wrong.headers["allow"]}}
        page = c.get("/no-such-page")
        assert page.status_code == 404 and page.headers["content-type"].startswith("text/plain")
