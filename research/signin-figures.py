#!/usr/bin/env python3
"""Figures of sign-in and profiles: lockouts strangers can cause, memory per refused sign-in, devices, timing.

Runs the server in-process (Starlette's test client, each request from the address it names) on a
fresh SQLite file and prints one line per figure:

    .venv/bin/python research/signin-figures.py            # everything
    .venv/bin/python research/signin-figures.py --timing 9  # more sign-ins timed per kind

The memory figure drives ``Profiles.plan_signin`` directly with a cheap argon2 setting (what is kept
per refused name does not depend on the hash's cost); everything else uses the server's real hasher.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from argon2 import PasswordHasher
from starlette.testclient import TestClient

from barbu.web.core.errors import TableError
from barbu.web.http.app import Config, build_app
from barbu.web.people.players import Profiles

PASSWORD = "correct horse battery"


def at(app: Any, address: str) -> TestClient:
    """A client of the running app whose requests come from ``address``."""
    return TestClient(app, client=(address, 50000))


def make(app: Any, name: str, password: str | None = PASSWORD) -> dict[str, str]:
    res = at(app, "10.9.0.1").post("/api/players", json={"name": name})
    assert res.status_code == 201, res.text
    auth = {"X-Barbu-Player": res.json()["credential"]}
    if password is not None:
        res = at(app, "10.9.0.1").post("/api/me/password", headers=auth, json={"password": password})
        assert res.is_success, res.text
    return auth


def signin(app: Any, address: str, name: str, password: str, **headers: str) -> int:
    return at(app, address).post("/api/signin", json={"name": name, "password": password},
                                 headers=headers).status_code


def lockouts(app: Any) -> None:
    make(app, "Owner1")
    for i in range(5):
        signin(app, f"10.1.0.{i}", "Owner1", "wrong guess")
    print("owner's right password after 5 wrong ones from 5 addresses:",
          signin(app, "10.1.1.1", "Owner1", PASSWORD))
    make(app, "Owner2")
    for _ in range(5):
        signin(app, "10.2.0.1", "Owner2", "wrong guess")
    print("owner's right password after 5 wrong ones from one stranger:",
          signin(app, "10.2.1.1", "Owner2", PASSWORD))
    make(app, "Owner3")
    codes = []
    for _ in range(6):
        codes.append(signin(app, "10.3.0.1", "Owner3", "typo typo"))
        codes.append(signin(app, "10.3.0.1", "Owner3", PASSWORD))
    print(f"owner alternating typo and right password from one address: {codes}")
    auth = make(app, "Owner4")
    for i in range(60):
        signin(app, f"10.4.{i // 250}.{i % 250}", "Owner4", "wrong guess")
    known = signin(app, "10.4.9.9", "Owner4", PASSWORD, **auth)
    print(f"owner's known device, right password, after 60 wrong ones from 60 addresses: {known}")


def devices(app: Any) -> None:
    auth = make(app, "Carrier", password=None)
    code = at(app, "10.5.0.1").post("/api/me/transfer", headers=auth).json()["code"]
    claimed = at(app, "10.5.0.2").post("/api/players/claim", json={"code": code}).json()["credential"]
    other = {"X-Barbu-Player": claimed}
    at(app, "10.5.0.1").post("/api/me/password", headers=auth, json={"password": PASSWORD})
    print("transferred device's /api/me after the password is set:",
          at(app, "10.5.0.2").get("/api/me", headers=other).status_code)
    code = at(app, "10.5.0.1").post("/api/me/transfer", headers=auth).json()["code"]
    claimed = at(app, "10.5.0.3").post("/api/players/claim", json={"code": code}).json()["credential"]
    other = {"X-Barbu-Player": claimed}
    at(app, "10.5.0.1").post("/api/me/password", headers=auth, json={"password": None, "current": PASSWORD})
    print("... another transferred device's, after it is removed:",
          at(app, "10.5.0.3").get("/api/me", headers=other).status_code)
    server = app.state.server
    player_id = auth["X-Barbu-Player"].split(":")[0]
    start, made = time.perf_counter(), 0
    for _ in range(300):
        made += at(app, "10.5.0.1").post("/api/me/transfer", headers=auth).status_code == 200
    took = time.perf_counter() - start
    live = server.profiles.store.db.execute("SELECT COUNT(*) FROM transfers WHERE player_id = ?",
                                            (player_id,)).fetchone()[0]
    print(f"300 transfer-code requests: {made} made in {took:.2f} s, live codes afterwards: {live}")


def memory(app: Any, n: int) -> None:
    server = app.state.server
    profiles: Profiles = Profiles(server.profiles.store)
    profiles.hasher = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)

    def drive(start: int, count: int) -> None:
        for i in range(start, start + count):
            with contextlib.suppress(TableError):
                address = f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}"
                profiles.plan_signin(f"nobody {i}", "wrong guess", address)
    tracemalloc.start()  # before the first ones: what the next ones replace is counted as freed
    drive(0, n)  # first n: the one-off allocations, and the tables filled up to any cap they have
    gc.collect()
    before = tracemalloc.take_snapshot()
    drive(n, n)
    gc.collect()
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(s.size_diff for s in after.compare_to(before, "filename"))
    print(f"memory kept by the next {n} refused sign-ins with new names (from as many addresses), after {n} "
          f"of them: {grown} bytes, {grown / n:.0f} bytes a request")
    throttle = getattr(profiles, "throttle", None)
    sizes = throttle.sizes() if throttle is not None else {"failures": len(getattr(profiles, "failures", ()))}
    print(f"entries of the failure tables after {2 * n} of them: {sizes}")


def timing(app: Any, runs: int) -> None:
    make(app, "Timed")
    make(app, "Open", password=None)
    kinds: dict[str, Callable[[int], tuple[str, str]]] = {
             "name with a password (wrong one)": lambda i: ("Timed", "wrong guess"),
             "unknown name": lambda i: (f"ghost {i}", "wrong guess"),
             "name without a password": lambda i: ("Open", "wrong guess")}
    for label, ask in kinds.items():
        took: list[float] = []
        for i in range(runs):
            name, password = ask(i)
            start = time.perf_counter()
            signin(app, f"10.7.{len(took)}.{i}", name, password)
            took.append(time.perf_counter() - start)
        print(f"sign-in time, {label}: median {statistics.median(took) * 1000:.0f} ms over {runs}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timing", type=int, default=5, help="sign-ins timed per kind")
    parser.add_argument("--names", type=int, default=20000, help="refused names (twice): memory")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        app = build_app(Config(str(Path(tmp) / "figures.db"), profiles_per_minute=1000))
        with TestClient(app):
            lockouts(app)
            devices(app)
            timing(app, args.timing)
            memory(app, args.names)


if __name__ == "__main__":
    main()
