"""Web Push end to end: a browser's subscription kept, "your turn" pushed to a local push endpoint, which
decrypts it with the subscription's own keys (RFC 8291) and checks the VAPID JWT's signature; a
subscription the push service says is gone is removed; nothing is pushed to a person at the table."""

from __future__ import annotations

import base64
import json
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pywebpush")
import http_ece
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from py_vapid import Vapid
from starlette.testclient import TestClient
from tests.test_web_ws import app_for, server_of
from tests.web_helpers import fresh_db

BOTS = [{"kind": "bot", "level": "random"}] * 3


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class PushService:
    """A push service on this machine: keeps what it is sent; answers 410 (gone) at /gone/…."""

    def __init__(self) -> None:
        self.received: list[tuple[str, dict[str, str], bytes]] = []
        got = self.received

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                got.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(410 if self.path.startswith("/gone/") else 201)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()


class Browser:
    """A browser's side of a subscription: its P-256 key pair and auth secret (RFC 8291)."""

    def __init__(self, endpoint: str) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = b"0123456789abcdef"
        point = self.key.public_key().public_bytes(serialization.Encoding.X962,
                                                   serialization.PublicFormat.UncompressedPoint)
        self.subscription = {"endpoint": endpoint, "keys": {"p256dh": b64(point), "auth": b64(self.auth)}}

    def read(self, body: bytes) -> dict[str, Any]:
        return dict(json.loads(http_ece.decrypt(body, private_key=self.key, auth_secret=self.auth,
                                                version="aes128gcm")))


def check_vapid(headers: dict[str, str], endpoint: str, server_key: str) -> dict[str, Any]:
    """The VAPID header's JWT, its ES256 signature checked with the key the browser subscribed with."""
    scheme, _, params = headers["authorization"].partition(" ")
    assert scheme == "vapid"
    fields = dict(p.strip().split("=", 1) for p in params.split(","))
    assert fields["k"] == server_key
    head, claims, signature = fields["t"].split(".")
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(server_key))
    raw = unb64(signature)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public.verify(der, f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))  # raises when forged
    said = json.loads(unb64(claims))
    assert said["aud"] == endpoint.rsplit("/", 2)[0] and said["exp"] > time.time()
    return dict(said)


@pytest.fixture
def push() -> Iterator[PushService]:
    service = PushService()
    yield service
    service.http.shutdown()


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    key = Vapid()
    key.generate_keys()
    key.save_key(str(tmp_path / "vapid.pem"))
    app = app_for(fresh_db(tmp_path, "push.db"), vapid_key=str(tmp_path / "vapid.pem"),
                  push_subject="https://barbu.example", push_per_minute=5, push_any_endpoint=True)
    with TestClient(app) as c:
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


def test_your_turn_is_pushed_encrypted_and_signed_and_read_with_the_browser_s_keys(
        client: TestClient, push: PushService) -> None:
    ann = profile(client, "Ann")
    server_key = client.get("/api/push/key").json()["key"]
    browser = Browser(f"{push.url}/push/ann-browser")
    res = client.post("/api/me/push", headers=ann, json={"subscription": browser.subscription, "lang": "fr"})
    assert res.status_code == 201 and res.json() == {"subscribed": True, "count": 1}, res.text
    made = client.post("/api/tables", headers=ann, json={"own_pace": 24, "seats": [{"kind": "you"}, *BOTS]})
    assert made.status_code == 201, made.text
    until(lambda: len(push.received) == 1)
    path, headers, body = push.received[0]
    assert path == "/push/ann-browser" and headers["content-encoding"] == "aes128gcm"
    said = browser.read(body)
    assert said["url"] == f"/table/{made.json()['id']}" and said["body"].startswith("C’est votre tour")
    assert "Ann" in said["body"]
    assert check_vapid(headers, browser.subscription["endpoint"], server_key)["sub"] == "https://barbu.example"
    endpoint = browser.subscription["endpoint"]
    ended = client.request("DELETE", "/api/me/push", headers=ann, json={"endpoint": endpoint})
    assert ended.status_code == 200 and ended.json()["count"] == 0


def test_a_subscription_the_push_service_says_is_gone_is_removed(
        client: TestClient, push: PushService) -> None:
    ann = profile(client, "Ann")
    browser = Browser(f"{push.url}/gone/ann")
    res = client.post("/api/me/push", headers=ann, json={"subscription": browser.subscription})
    assert res.status_code == 201
    server = server_of(client)
    player = client.get("/api/me", headers=ann).json()["profile"]["id"]
    client.post("/api/tables", headers=ann, json={"own_pace": 24, "seats": [{"kind": "you"}, *BOTS]})
    until(lambda: push.received and not server.profiles.store.push_of(player))
    assert len(push.received) == 1  # a gone subscription is not tried again


def test_nothing_is_pushed_to_a_person_whose_page_is_at_the_table(
        client: TestClient, push: PushService) -> None:
    ann = profile(client, "Ann")
    browser = Browser(f"{push.url}/push/ann")
    client.post("/api/me/push", headers=ann, json={"subscription": browser.subscription})
    made = client.post("/api/tables", headers=ann, json={"own_pace": 24, "seats": [{"kind": "you"}, *BOTS]})
    until(lambda: len(push.received) == 1)  # told once: Ann was away
    server = server_of(client)
    table = server.tables.get(made.json()["id"])
    assert server.pusher is not None
    until(lambda: not server.pusher.tasks if server.pusher else False)
    with client.websocket_connect(f"/ws/{table.id}") as ws:
        ws.send_json({"type": "hello", "token": made.json()["you"]["token"]})
        until(lambda: table.seats[0].connected == 1)
        server.computers.told.pop(table.id)  # as if her turn began anew: she is there, nothing is sent
        assert client.portal is not None
        client.portal.call(server.computers.arm_deadline, table)
        assert not server.pusher.tasks and len(push.received) == 1
    server.computers.told.pop(table.id)  # and once she has left, it is sent again
    client.portal.call(server.computers.arm_deadline, table)
    until(lambda: len(push.received) == 2)


def test_a_subscription_is_checked_and_the_changes_are_counted(client: TestClient, push: PushService) -> None:
    ann = profile(client, "Ann")
    good = Browser(f"{push.url}/push/a").subscription
    assert client.post("/api/me/push", json={"subscription": good}).status_code == 403
    bad = [{"endpoint": "ftp://x/y", "keys": good["keys"]}, {"endpoint": good["endpoint"]},
           {"endpoint": good["endpoint"], "keys": {"p256dh": "", "auth": "a"}}, "nope"]
    for sub in bad:
        res = client.post("/api/me/push", headers=ann, json={"subscription": sub})
        assert res.status_code == 400 and res.json()["error"]["code"] == "bad-subscription", sub
    server = server_of(client)
    server.config.push_any_endpoint = False  # as served: only a push service's https address
    for endpoint in (good["endpoint"], "https://127.0.0.1/x", "https://evil.example/fcm.googleapis.com",
                     "http://fcm.googleapis.com/fcm/send/x", "https://notfcm.googleapis.com.evil.example/x"):
        res = client.post("/api/me/push", headers=ann, json={"subscription": {**good, "endpoint": endpoint}})
        assert res.status_code == 400 and res.json()["error"]["code"] == "bad-subscription", endpoint
    fcm = {**good, "endpoint": "https://fcm.googleapis.com/fcm/send/abc"}
    assert client.post("/api/me/push", headers=ann, json={"subscription": fcm}).status_code == 201
    server.config.push_any_endpoint = True
    codes = [client.post("/api/me/push", headers=ann, json={"subscription": good}).status_code
             for _ in range(6)]
    assert codes == [201] * 4 + [429, 429]


def test_a_table_s_notifications_are_switched_off_for_one_profile(
        client: TestClient, push: PushService) -> None:
    ann = profile(client, "Ann")
    browser = Browser(f"{push.url}/push/ann")
    client.post("/api/me/push", headers=ann, json={"subscription": browser.subscription})
    made = client.post("/api/tables", headers=ann, json={"own_pace": 24, "seats": [{"kind": "you"}, *BOTS]})
    until(lambda: len(push.received) == 1)
    table_id = made.json()["id"]
    where = f"/api/me/push/tables/{table_id}"
    assert client.get(where, headers=ann).json() == {"on": True}
    assert client.put(where, headers=ann, json={"on": "no"}).json()["error"]["code"] == "bad-switch"
    assert client.get(f"/api/me/push/tables/{'x' * 8}", headers=ann).status_code == 404
    assert client.put(where, headers=ann, json={"on": False}).json() == {"on": False}
    server = server_of(client)
    assert server.pusher is not None
    until(lambda: not server.pusher.tasks if server.pusher else False)
    server.computers.told.pop(table_id)  # her turn anew: this table is quiet for her
    assert client.portal is not None
    client.portal.call(server.computers.arm_deadline, server.tables.get(table_id))
    assert not server.pusher.tasks and len(push.received) == 1
    assert client.put(where, headers=ann, json={"on": True}).json() == {"on": True}
    server.computers.told.pop(table_id)
    client.portal.call(server.computers.arm_deadline, server.tables.get(table_id))
    until(lambda: len(push.received) == 2)



def test_a_game_s_end_is_told_to_the_seated_profiles_away_from_it(
        client: TestClient, push: PushService) -> None:
    """The notice only: the listener Server.change calls once a stored batch ends a game (the hook
    itself is not played through to a game's end here)."""
    ann = profile(client, "Ann")
    browser = Browser(f"{push.url}/push/ann")
    client.post("/api/me/push", headers=ann, json={"subscription": browser.subscription, "lang": "en"})
    made = client.post("/api/tables", headers=ann, json={"own_pace": 24, "seats": [{"kind": "you"}, *BOTS]})
    until(lambda: len(push.received) == 1)  # her turn
    server = server_of(client)
    assert client.portal is not None and len(server.over_listeners) == 1
    client.portal.call(server.over_listeners[0], made.json()["id"])
    until(lambda: len(push.received) == 2)
    said = browser.read(push.received[1][2])
    assert said == {"title": "Barbu", "url": f"/table/{made.json()['id']}",
                    "body": "The game at the table of Ann, Computer 2, Computer 3, Computer 4 is over."}


def test_serve_says_before_serving_why_a_vapid_key_cannot_be_used(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from barbu.web.serve import vapid_problem

    good = tmp_path / "key.pem"
    vapid = Vapid()
    vapid.generate_keys()
    vapid.save_key(str(good))
    assert vapid_problem(str(good)) is None
    bad = tmp_path / "bad.pem"
    bad.write_text("not a key\n")
    said = vapid_problem(str(bad))
    assert said is not None and said.startswith(f"the VAPID key {bad} cannot be read")
    absent = tmp_path / "absent.pem"
    assert vapid_problem(str(absent)) == (f"the VAPID key {absent} is not a file "
                                          "(make a key pair with: vapid --gen)")
    assert not absent.exists()  # and none was made there
    monkeypatch.setitem(sys.modules, "pywebpush", None)  # as without the notify extra
    assert vapid_problem(str(good)) == ("--vapid-private-key needs the notify extra: pip install "
                                        "'barbu[notify]' (pywebpush is not installed)")
