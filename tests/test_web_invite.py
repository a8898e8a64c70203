"""Invitations by a profile's name: a free seat held for that person, listed for them, accepted, declined,
withdrawn; refusals and limits; kept across a restart; the invited person told by Web Push (decrypted)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pywebpush")
from py_vapid import Vapid
from starlette.testclient import TestClient
from tests.cluster_helpers import Group, flush_bus, services
from tests.test_web_cluster import http
from tests.test_web_notify import Browser, PushService, profile, until
from tests.test_web_ws import app_for, server_of
from tests.web_helpers import fresh_db

from barbu.web.tables import named

SEATS = [{"kind": "you"}, {"kind": "open"}, {"kind": "friend"}, {"kind": "bot", "level": "random"}]
LIMIT = 40  # invitations a minute from one person and address, in this module's server


@pytest.fixture(scope="module")
def push() -> Iterator[PushService]:
    service = PushService()
    yield service
    service.http.shutdown()


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    where = tmp_path_factory.mktemp("invite")
    key = Vapid()
    key.generate_keys()
    key.save_key(str(where / "vapid.pem"))
    app = app_for(fresh_db(where, "invite.db"), vapid_key=str(where / "vapid.pem"), push_any_endpoint=True,
                  invites_per_minute=LIMIT, profiles_per_minute=100, tables_per_minute=100)
    with TestClient(app) as c:
        yield c


def table(client: TestClient, creator: dict[str, str]) -> tuple[str, dict[str, str]]:
    """A new table of the creator's (seat 0), an open seat 1, a friend's seat 2 and a computer."""
    res = client.post("/api/tables", headers=creator, json={"seats": SEATS, "own_pace": 24})
    assert res.status_code == 201, res.text
    return res.json()["id"], {"X-Barbu-Token": res.json()["you"]["token"]}


def invite(client: TestClient, tid: str, token: dict[str, str], seat: Any, name: Any) -> Any:
    return client.post(f"/api/tables/{tid}/invite", headers=token, json={"seat": seat, "name": name})


def waiting(client: TestClient, who: dict[str, str]) -> list[dict[str, Any]]:
    res = client.get("/api/me/invitations", headers=who)
    assert res.status_code == 200, res.text
    return list(res.json()["invitations"])


def test_an_invited_profile_sees_it_and_takes_its_held_seat_which_nobody_else_can(client: TestClient) -> None:
    ann, ben, cat = profile(client, "Ann"), profile(client, "Ben"), profile(client, "Cat")
    tid, token = table(client, ann)
    res = invite(client, tid, token, 1, "ben")  # a name is found whatever its case
    assert res.status_code == 201 and res.json() == {"seat": 1, "invited": "Ben"}, res.text
    assert waiting(client, cat) == []
    [seen] = waiting(client, ben)
    assert seen["table"] == tid and seen["by"] == "Ann" and seen["taken"] == 2 and seen["players"] == 4
    assert seen["link"] == f"/table/{tid}" and seen["own_pace"]["hours"] == 24
    held = server_of(client).tables.get(tid)
    assert held.invites()["seats"][0]["invited"] == "Ben"
    # The held seat is nobody else's from the lobby: the only other free seat is a friend's.
    joined = client.post(f"/api/tables/{tid}/join", headers=cat, json={})
    assert joined.status_code == 403 and joined.json()["error"]["code"] == "invite-only", joined.text
    assert held.summary()["free_seats"] == 0 and held.summary()["invited_seats"] == 2  # the lobby: kept
    wrong = client.post(f"/api/tables/{tid}/invitation", headers=cat, json={"answer": "accept"})
    assert wrong.status_code == 404 and wrong.json()["error"]["code"] == "no-invitation"
    took = client.post(f"/api/tables/{tid}/invitation", headers=ben, json={"answer": "accept"})
    assert took.status_code == 200 and took.json()["seat"] == 1, took.text
    assert held.seat_of_token(took.json()["token"]) == 1
    row = held.seats[1].row
    assert row.claimed and row.name == "Ben" and row.player and not row.invited
    assert waiting(client, ben) == []
    assert server_of(client).store.load_seats(tid)[1] == row  # stored as it is in memory


def test_a_declined_or_withdrawn_invitation_frees_the_seat_and_the_creator_learns_only_declined(
        client: TestClient) -> None:
    ann, dan = profile(client, "Ann2"), profile(client, "Dan")
    tid, token = table(client, ann)
    held = server_of(client).tables.get(tid)
    assert invite(client, tid, token, 2, "Dan").status_code == 201
    no = client.post(f"/api/tables/{tid}/invitation", headers=dan, json={"answer": "decline"})
    assert no.status_code == 200 and no.json() == {"declined": True}
    seat = held.invites()["seats"][1]
    assert seat["invited"] is None and seat["declined"] is True and not held.seats[2].row.invited
    assert waiting(client, dan) == []
    assert invite(client, tid, token, 1, "Dan").status_code == 201  # asked again, elsewhere
    assert held.invites()["seats"][0]["invited"] == "Dan"
    assert held.summary()["free_seats"] == 0
    gone = client.request("DELETE", f"/api/tables/{tid}/invite", headers=token, json={"seat": 1})
    assert gone.status_code == 200, gone.text
    assert waiting(client, dan) == [] and held.summary()["free_seats"] == 1
    again = client.request("DELETE", f"/api/tables/{tid}/invite", headers=token, json={"seat": 1})
    assert again.status_code == 409 and again.json()["error"]["code"] == "not-invited"
    # Whoever comes by the seat's link (the creator sent it by hand) takes it: the invitation ends.
    assert invite(client, tid, token, 1, "Dan").status_code == 201
    with client.websocket_connect(f"/ws/{tid}") as ws:
        ws.send_json({"type": "hello", "token": held.seats[1].row.token, "name": "Zoe"})
        while ws.receive_json()["type"] != "welcome":
            pass
    assert held.seats[1].row.name == "Zoe" and not held.seats[1].row.invited and waiting(client, dan) == []


def test_invitations_are_refused_with_a_precise_code_and_change_nothing(client: TestClient) -> None:
    ann, eve = profile(client, "Ann3"), profile(client, "Eve")
    tid, token = table(client, ann)
    other = {"X-Barbu-Token": "not-a-token"}
    cases = [
        (invite(client, tid, token, 1, "Nobody-Here"), 404, "no-player"),
        (invite(client, tid, other, 1, "Eve"), 403, "not-creator"),
        (invite(client, tid, token, 0, "Eve"), 409, "seat-not-free"),  # the creator's own
        (invite(client, tid, token, 3, "Eve"), 409, "seat-not-free"),  # a computer's
        (invite(client, tid, token, 9, "Eve"), 400, "bad-seat"),
        (invite(client, tid, token, True, "Eve"), 400, "bad-seat"),
        (invite(client, tid, token, 1, ["Eve"]), 400, "bad-name"),
        (invite(client, tid, token, 1, "Ann3"), 409, "already-seated"),
        (client.post(f"/api/tables/{tid}/invitation", headers=eve, json={"answer": "maybe"}), 400,
         "bad-answer"),
        (client.post(f"/api/tables/{tid}/invitation", json={"answer": "accept"}), 403, "bad-profile"),
        (client.get("/api/me/invitations"), 403, "bad-profile"),
    ]
    for res, status, code in cases:
        assert (res.status_code, res.json()["error"]["code"]) == (status, code), res.text
    assert res.json()["error"]["message"] and "Eve" not in invite(client, tid, token, 1, "Zed").text
    assert invite(client, tid, token, 1, "Ann3").json()["error"]["args"] == {"variant": "invitee"}
    assert invite(client, tid, token, 1, "Eve").status_code == 201
    twice = invite(client, tid, token, 2, "Eve")
    assert twice.status_code == 409 and twice.json()["error"]["code"] == "already-invited"
    assert invite(client, tid, token, 1, "Eve").status_code == 201  # asked twice: already so
    assert len(waiting(client, eve)) == 1
    begun = client.post("/api/tables", headers=ann, json={"seats": [*SEATS[:2], SEATS[3], SEATS[3]]})
    assert begun.status_code == 201  # no friend's seat to wait for: dealt at once
    assert [e.kind for e in server_of(client).store.events(begun.json()["id"])][:1] == ["deal"]
    late = invite(client, begun.json()["id"], {"X-Barbu-Token": begun.json()["you"]["token"]}, 1, "Eve")
    assert late.status_code == 201, late.text  # an open seat of a game begun: a computer keeps it meanwhile


def test_an_invitee_has_a_bounded_number_waiting_and_the_refusal_says_no_more(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(named, "MAX_WAITING", 2)
    fay = profile(client, "Fay")
    hosts = [table(client, profile(client, f"Host{i}")) for i in range(3)]
    for tid, token in hosts[:2]:
        assert invite(client, tid, token, 1, "Fay").status_code == 201
    full = invite(client, *hosts[2], 1, "Fay")
    assert full.status_code == 409 and full.json()["error"]["code"] == "invitations-full"
    assert [w["table"] for w in waiting(client, fay)] == [hosts[0][0], hosts[1][0]]  # oldest first


def test_the_invited_person_is_pushed_a_notice_without_a_token_but_not_for_a_quiet_table(
        client: TestClient, push: PushService) -> None:
    ann, gus = profile(client, "Ann4"), profile(client, "Gus")
    browser = Browser(f"{push.url}/push/gus")
    sub = client.post("/api/me/push", headers=gus, json={"subscription": browser.subscription, "lang": "fr"})
    assert sub.status_code == 201, sub.text
    tid, token = table(client, ann)
    assert invite(client, tid, token, 1, "Gus").status_code == 201
    until(lambda: any(p == "/push/gus" for p, _, _ in push.received))
    [said] = [browser.read(body) for p, _, body in push.received if p == "/push/gus"]
    assert said["body"].startswith("Ann4 vous invite à la table de Ann4") and said["url"] == f"/table/{tid}"
    quiet, qtoken = table(client, ann)
    off = client.put(f"/api/me/push/tables/{quiet}", headers=gus, json={"on": False})
    assert off.status_code == 200 and off.json() == {"on": False}
    assert invite(client, quiet, qtoken, 1, "Gus").status_code == 201
    here, htoken = table(client, ann)
    with client.websocket_connect(f"/ws/{here}") as ws:  # a page of Gus's watches that table already
        ws.send_json({"type": "hello", "token": None, "profile": gus["X-Barbu-Player"]})
        while ws.receive_json()["type"] != "welcome":
            pass
        assert invite(client, here, htoken, 1, "Gus").status_code == 201
    server = server_of(client)
    assert server.pusher is not None
    client.portal.call(server.pusher.drain)  # type: ignore[union-attr]
    assert sum(p == "/push/gus" for p, _, _ in push.received) == 1


def test_invitations_go_to_the_table_s_owner_and_survive_its_takeover(tmp_path: Path) -> None:
    db, bus = services(tmp_path)  # skipped without Redis
    flush_bus(bus)
    group = Group(db, bus, tmp_path, ("--idle", "600"))
    try:
        a, b = group.start(2).urls
        ann, ivy = (http(a, "/api/players", {"name": n})[1]["credential"] for n in ("Ann", "Ivy"))
        _, made = http(a, "/api/tables", {"seats": SEATS}, headers={"X-Barbu-Player": ann})
        creator = {"X-Barbu-Token": made["you"]["token"]}
        path = f"/api/tables/{made['id']}"
        # Asked of the process that does not drive the table: relayed to its owner, which stores it.
        status, said = http(b, path + "/invite", {"seat": 1, "name": "Ivy"}, headers=creator)
        assert status == 201, said
        group.kill(0)  # the owner dies: the other process takes the table over from the store
        mine = {"X-Barbu-Player": ivy}
        assert [w["table"] for w in http(b, "/api/me/invitations", headers=mine)[1]["invitations"]] == \
            [made["id"]]
        end = time.monotonic() + 30
        while (took := http(b, path + "/invitation", {"answer": "accept"}, headers=mine))[0] != 200:
            assert time.monotonic() < end and took[0] == 503, took
            time.sleep(0.2)
        assert took[1]["seat"] == 1
    finally:
        group.stop()


def test_invitations_are_counted_per_person_and_address(client: TestClient) -> None:
    tid, token = table(client, profile(client, "Ann5"))
    for _ in range(LIMIT + 1):
        res = invite(client, tid, token, 1, "Nobody-Here")  # a name that is nobody's counts too
        if res.status_code == 429:
            break
        assert res.status_code == 404
    assert res.status_code == 429 and res.json()["error"]["code"] == "too-many-invites", res.text


def test_an_invitation_is_kept_across_a_restart(tmp_path: Path) -> None:
    db = fresh_db(tmp_path, "restart.db")
    with TestClient(app_for(db)) as first:
        ann, hal = profile(first, "Ann"), profile(first, "Hal")
        tid, token = table(first, ann)
        assert invite(first, tid, token, 1, "Hal").status_code == 201
    with TestClient(app_for(db)) as again:
        [seen] = waiting(again, hal)
        assert seen["table"] == tid and seen["by"] == "Ann"
        assert server_of(again).tables.get(tid).summary()["free_seats"] == 0
        took = again.post(f"/api/tables/{tid}/invitation", headers=hal, json={"answer": "accept"})
        assert took.status_code == 200 and took.json()["seat"] == 1, took.text
