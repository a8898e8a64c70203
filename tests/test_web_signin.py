"""Sign-in and devices over HTTP: no lockout of the owner by strangers, bounded tables, revocable devices.

Requests come from the addresses the tests name (Starlette's test client), and the profiles' wall
clock is the test's, so that a delay passes without waiting for it.
"""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from argon2 import PasswordHasher, extract_parameters
from starlette.testclient import TestClient
from tests.test_web_migrations import OLD
from tests.test_web_ws import app_for, server_of
from tests.web_helpers import fresh_db, query, sqlite_only

from barbu.web.core.errors import TableError
from barbu.web.people.players import Policy, Profiles, new_key
from barbu.web.storage.schema import statements
from barbu.web.storage.sqlite import MIGRATIONS, SCHEMA_VERSION, Store, open_store

PASSWORD = "correct horse battery"


class Clock:
    """A wall clock the test moves."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


class Counting(PasswordHasher):
    """argon2 at its cheapest (the tests are about what is checked, not its cost), counting verifications."""

    def __init__(self) -> None:
        super().__init__(time_cost=1, memory_cost=8, parallelism=1)
        self.verified: list[str] = []

    def verify(self, hash: str | bytes, password: str | bytes) -> Literal[True]:
        self.verified.append(hash if isinstance(hash, str) else hash.decode())
        return super().verify(hash, password)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(app_for(fresh_db(tmp_path, "signin.db"), profiles_per_minute=1000)) as c:
        people = server_of(c).profiles
        people.hasher = Counting()
        people.wall = Clock()
        yield c


def clock(client: TestClient) -> Clock:
    wall = server_of(client).profiles.wall
    assert isinstance(wall, Clock)
    return wall


def at(client: TestClient, address: str) -> TestClient:
    """The same server, asked from ``address``."""
    return TestClient(client.app, client=(address, 50000))


def profile(client: TestClient, name: str, password: str | None = PASSWORD) -> dict[str, str]:
    res = client.post("/api/players", json={"name": name})
    assert res.status_code == 201, res.text
    auth = {"X-Barbu-Player": res.json()["credential"]}
    if password is not None:
        assert client.post("/api/me/password", headers=auth, json={"password": password}).status_code == 200
    return auth


def signin(client: TestClient, address: str, name: str, password: object = PASSWORD,
           auth: dict[str, str] | None = None) -> int:
    body = {"name": name, "password": password}
    return at(client, address).post("/api/signin", json=body, headers=auth or {}).status_code


def error(res: Any) -> tuple[int, str]:
    return res.status_code, res.json()["error"]["code"]


# -- 5. no lockout of the owner by strangers -------------------------------------------------

def test_wrong_passwords_from_five_addresses_do_not_lock_the_owner_out(client: TestClient) -> None:
    profile(client, "Owner")
    assert [signin(client, f"10.0.0.{i}", "Owner", "a wrong guess") for i in range(5)] == [403] * 5
    assert signin(client, "10.0.1.1", "Owner") == 200


def test_one_stranger_does_not_lock_a_name(client: TestClient) -> None:
    profile(client, "Owner")
    codes = [signin(client, "10.6.6.6", "Owner", "a wrong guess") for _ in range(10)]
    assert codes[:3] == [403] * 3 and 429 in codes  # the stranger waits…
    assert signin(client, "10.0.1.1", "Owner") == 200  # …not the owner


def test_a_success_clears_the_count_of_its_name_and_address(client: TestClient) -> None:
    profile(client, "Owner")
    codes = [signin(client, "10.0.0.1", "Owner", pw) for _ in range(6) for pw in ("typo typo", PASSWORD)]
    assert codes == [403, 200] * 6


def test_guesses_from_one_address_wait_longer_and_longer(client: TestClient) -> None:
    profile(client, "Owner")
    wall = clock(client)
    assert [signin(client, "10.6.6.6", "Owner", "guess") for _ in range(3)] == [403] * 3
    for delay in (1.0, 2.0, 4.0, 8.0):  # each failure past the third doubles the wait
        assert signin(client, "10.6.6.6", "Owner") == 429  # even the right password waits
        wall.now += delay - 0.01
        assert signin(client, "10.6.6.6", "Owner", "guess") == 429
        wall.now += 0.02
        assert signin(client, "10.6.6.6", "Owner", "guess") == 403


def test_one_address_is_capped_across_names(client: TestClient) -> None:
    for i in range(3):
        profile(client, f"Someone {i}")
    cap = server_of(client).profiles.policy.throttle.per_address
    assert [signin(client, "10.6.6.6", f"Someone {i}", f"guess {i}") for i in range(cap)] == [403] * cap
    answer = at(client, "10.6.6.6").post("/api/signin", json={"name": "Anyone else", "password": "x" * 8})
    assert error(answer) == (429, "too-many-attempts")
    assert signin(client, "10.0.0.1", "Someone 1") == 200  # others are not held back


def test_the_owners_known_device_gets_through_a_crowd_of_strangers(client: TestClient) -> None:
    auth = profile(client, "Owner")
    for i in range(60):
        signin(client, f"10.{i}.0.1", "Owner", "a wrong guess")
    assert signin(client, "10.5.0.1", "Owner") == 429  # an address that failed on the name waits a little…
    assert signin(client, "10.6.0.1", "Owner", auth=auth) == 200  # …the browser holding the profile does not
    assert signin(client, "10.99.0.1", "Owner") == 200  # nor a first try from elsewhere (a new device)
    clock(client).now += server_of(client).profiles.policy.throttle.name_max_delay
    assert signin(client, "10.5.0.1", "Owner") == 200  # the wait lasts at most a minute
    # The device's key is no licence to guess: from its address it waits as anyone does.
    assert [signin(client, "10.99.0.2", "Owner", "guess", auth=auth) for _ in range(4)] == [403] * 3 + [429]


def test_refusals_say_the_same_for_every_name(client: TestClient) -> None:
    profile(client, "Owner")
    profile(client, "Open", password=None)
    bodies = [at(client, f"10.1.0.{i}").post("/api/signin", json={"name": name, "password": "wrong"}).json()
              for i, name in enumerate(("Owner", "Open", "Nobody here"))]
    assert bodies[0] == bodies[1] == bodies[2]
    assert bodies[0]["error"]["code"] == "bad-signin"


# -- 6. bounded memory -------------------------------------------------------------------------

def test_the_failure_tables_stay_under_their_cap(tmp_path: Path) -> None:
    from barbu.web.people.signin import ThrottlePolicy  # here: before it, the test failed on this line alone

    cap = 64
    store = open_store(fresh_db(tmp_path))
    try:
        wall = Clock()
        people = Profiles(store, Policy(throttle=ThrottlePolicy(cap=cap)), wall=wall)
        people.hasher = Counting()
        for i in range(1000):  # each a new name from a new address: the worst for the tables
            with pytest.raises(TableError):
                people.plan_signin(f"nobody {i}", "a wrong guess", f"10.0.{i // 250}.{i % 250}")
        assert all(0 < n <= cap for n in people.throttle.sizes().values()), people.throttle.sizes()
        wall.now += people.policy.throttle.window
        with pytest.raises(TableError):
            people.plan_signin("one more", "a wrong guess", "10.9.9.9")
        assert people.throttle.sizes() == {"pairs": 1, "names": 1, "addresses": 1}  # the rest expired
    finally:
        store.close()


def test_the_count_of_profiles_made_per_address_stays_bounded(client: TestClient) -> None:
    from barbu.web.http.limits import Limiter, LocalCounters, Who

    server = server_of(client)
    server.limiter = Limiter(LocalCounters(cap=64))

    async def make_many() -> None:
        for i in range(1000):
            async with server.profile_limit(Who(f"10.0.{i // 250}.{i % 250}")):
                pass
    asyncio.run(make_many())
    assert len(server.limiter.counters) <= 64  # type: ignore[arg-type]


# -- 7. devices can be revoked -----------------------------------------------------------------

def carried(client: TestClient, auth: dict[str, str]) -> dict[str, str]:
    code = client.post("/api/me/transfer", headers=auth).json()["code"]
    res = client.post("/api/players/claim", json={"code": code})
    assert res.status_code == 200, res.text
    return {"X-Barbu-Player": res.json()["credential"]}


@pytest.mark.parametrize("password", [PASSWORD, None])
def test_changing_or_removing_the_password_signs_out_the_other_devices(client: TestClient,
                                                                       password: str | None) -> None:
    auth = profile(client, "Carrier", password="an older password")
    other = carried(client, auth)
    assert client.get("/api/me", headers=other).status_code == 200
    change = {"password": password, "current": "an older password"}
    assert client.post("/api/me/password", headers=auth, json=change).status_code == 200
    assert error(client.get("/api/me", headers=other)) == (403, "bad-profile")
    assert client.get("/api/me", headers=auth).status_code == 200  # the device that changed it stays


def test_devices_are_listed_with_how_each_came(client: TestClient) -> None:
    auth = profile(client, "Listed")
    carried(client, auth)
    assert signin(client, "10.0.0.1", "Listed") == 200
    devices = client.get("/api/me/devices", headers=auth).json()["devices"]
    assert sorted(d["how"] for d in devices) == ["made", "password", "transfer"]
    assert [d["this"] for d in devices] == [True, False, False]
    assert all(d["made"] <= d["seen"] for d in devices) and len({d["id"] for d in devices}) == 3
    stored = {str(r[0]) for r in query(server_of(client).profiles.store, "SELECT hash FROM player_keys")}
    assert not [d for d in devices if any(d["id"] in h for h in stored)]  # an id never shows a key's hash


def test_a_device_is_signed_out_by_its_owner(client: TestClient) -> None:
    auth = profile(client, "Owner", password=None)
    other, third = carried(client, auth), carried(client, auth)
    devices = client.get("/api/me/devices", headers=auth).json()["devices"]
    second = next(d["id"] for d in devices if not d["this"] and d["how"] == "transfer")
    assert client.delete(f"/api/me/devices/{second}", headers=auth).status_code == 204
    assert [client.get("/api/me", headers=h).status_code for h in (auth, other, third)].count(403) == 1
    assert error(client.delete(f"/api/me/devices/{second}", headers=auth)) == (404, "no-device")
    stranger = profile(client, "Stranger", password=None)
    mine = client.get("/api/me/devices", headers=auth).json()["devices"][0]["id"]
    assert error(client.delete(f"/api/me/devices/{mine}", headers=stranger)) == (404, "no-device")


def test_sign_out_everywhere_else(client: TestClient) -> None:
    auth = profile(client, "Owner", password=None)
    others = [carried(client, auth) for _ in range(3)]
    left = client.delete("/api/me/devices/others", headers=auth).json()["devices"]
    assert [d["this"] for d in left] == [True]
    assert [client.get("/api/me", headers=h).status_code for h in others] == [403] * 3


def test_transfer_codes_are_capped_and_rate_limited(client: TestClient) -> None:
    auth = profile(client, "Owner", password=None)
    policy = server_of(client).profiles.policy
    codes = []
    for _ in range(policy.codes_per_window + 5):
        clock(client).now += 1.0  # each code made a second after the one before
        codes.append(client.post("/api/me/transfer", headers=auth))
    assert [r.status_code for r in codes].count(200) == policy.codes_per_window
    assert error(codes[-1]) == (429, "too-many-codes")
    live = query(server_of(client).profiles.store, "SELECT COUNT(*) FROM transfers")[0][0]
    assert live == policy.live_codes
    first, last = codes[0].json()["code"], codes[policy.codes_per_window - 1].json()["code"]
    assert error(client.post("/api/players/claim", json={"code": first})) == (403, "bad-transfer")  # replaced
    assert client.post("/api/players/claim", json={"code": last}).status_code == 200
    clock(client).now += policy.code_window
    assert client.post("/api/me/transfer", headers=auth).status_code == 200


def test_a_profile_keeps_a_bounded_number_of_devices(client: TestClient) -> None:
    profile(client, "Busy")
    cap = server_of(client).profiles.policy.max_devices
    for i in range(cap + 5):
        assert signin(client, f"10.0.0.{i}", "Busy") == 200
    keys = query(server_of(client).profiles.store, "SELECT COUNT(*) FROM player_keys")[0][0]
    assert keys == cap


# -- 8. no timing oracle -----------------------------------------------------------------------

@pytest.mark.parametrize(("name", "password"), [("Owner", "a wrong guess"), ("Nobody here", "a wrong guess"),
                                                ("Open", "a wrong guess"), ("Owner", 12345678),
                                                ("Nobody here", "p" * 500)])
def test_every_refused_signin_costs_one_argon2_verification(client: TestClient, name: str,
                                                             password: object) -> None:
    profile(client, "Owner")
    profile(client, "Open", password=None)
    hasher = server_of(client).profiles.hasher
    assert isinstance(hasher, Counting)
    hasher.verified.clear()
    assert signin(client, "10.0.0.1", name, password) == 403
    assert len(hasher.verified) == 1
    real = query(server_of(client).profiles.store, "SELECT password FROM players WHERE password != ''")[0][0]
    assert extract_parameters(hasher.verified[0]) == extract_parameters(str(real))  # the same work


class Held(Counting):
    """A hasher whose verifications wait until the test lets them go: sign-ins that run at once."""

    def __init__(self) -> None:
        super().__init__()
        self.go = threading.Event()

    def verify(self, hash: str | bytes, password: str | bytes) -> Literal[True]:
        self.verified.append(hash if isinstance(hash, str) else hash.decode())
        self.go.wait(timeout=30)
        return PasswordHasher.verify(self, hash, password)


def test_guesses_sent_at_once_are_counted_before_they_are_checked(tmp_path: Path) -> None:
    store = open_store(fresh_db(tmp_path))
    try:
        people = Profiles(store, wall=Clock())
        hasher = people.hasher = Held()
        refused: list[int] = []

        def guess(i: int) -> None:
            try:
                people.plan_signin("Owner", f"guess {i}", "10.6.6.6")
            except TableError as e:
                refused.append(e.status)
        threads = [threading.Thread(target=guess, args=(i,)) for i in range(10)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 30
        while len(hasher.verified) + len(refused) < 10 and time.monotonic() < deadline:
            time.sleep(0.01)  # polling: the ten have either reached argon2 or been turned away
        hasher.go.set()
        for t in threads:
            t.join()
        assert sorted(refused) == [403] * 3 + [429] * 7  # 3 free failures; the rest waited, no race
        assert len(hasher.verified) == people.policy.throttle.free
    finally:
        store.close()


def test_a_device_is_seen_when_it_opens_the_lobby_or_its_profile(client: TestClient) -> None:
    auth = profile(client, "Seen", password=None)
    wall = clock(client)
    for url in ("/api/mine", "/api/me/devices"):
        wall.now += 1000
        res = client.post(url, headers=auth, json={"seats": []}) if url == "/api/mine" else \
            client.get(url, headers=auth)
        assert res.status_code == 200
        assert client.get("/api/me/devices", headers=auth).json()["devices"][0]["seen"] == wall.now
    wall.now += 10  # noted at most every few minutes: not a write per request
    assert client.get("/api/me/devices", headers=auth).json()["devices"][0]["seen"] == wall.now - 10


@sqlite_only
def test_keys_made_before_the_list_of_devices_still_open_their_profile(tmp_path: Path) -> None:
    """A database of the layout before devices (profiles and ratings, 3) with a key in it, migrated."""
    from barbu.web.people.players import device_id  # here: the code before it runs the other tests

    path = tmp_path / "layout3.db"
    shutil.copy(OLD / "0.2.0.sqlite", path)
    db = sqlite3.connect(path, isolation_level=None)
    for step in range(int(db.execute("PRAGMA user_version").fetchone()[0]), 3):
        for statement in statements(MIGRATIONS[step]):
            db.execute(statement)
    db.execute("PRAGMA user_version = 3")
    secret, (salt, digest) = new_key()
    db.execute("INSERT INTO players (id, name, name_key, created) VALUES ('pOld', 'Old', 'old', 1.0e9)")
    db.execute("INSERT INTO player_keys (player_id, salt, hash, created) VALUES ('pOld', ?, ?, 1.0e9)",
               (salt, digest))
    db.close()
    store = Store(str(path))
    try:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        people = Profiles(store)
        row, key_hash = people.identify(f"pOld:{secret}")
        assert people.devices(row, key_hash) == [{"id": device_id(digest), "made": 1.0e9, "seen": 1.0e9,
                                                  "how": "earlier", "this": True}]
    finally:
        store.close()
