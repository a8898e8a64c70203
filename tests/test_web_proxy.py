"""Per-address limits count the real peer: X-Forwarded-For is believed only from the proxies ``barbu serve``
is told of, and the shipped nginx.conf says the peer's own address rather than pass a client's header on."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from tests.cluster_helpers import Group, flush_bus, free_port, services, wait_up

LIMIT = 10  # profiles one address may make in a minute (Config.profiles_per_minute)
TRIES = 12


def made_profiles(url: str, tag: str) -> list[int]:
    """The statuses of TRIES new profiles, each request claiming another address in X-Forwarded-For."""
    statuses = []
    for i in range(TRIES):
        req = urllib.request.Request(url + "/api/players", data=json.dumps({"name": f"{tag}{i}"}).encode(),
                                     headers={"Content-Type": "application/json",
                                              "X-Forwarded-For": f"203.0.113.{i + 1}"})
        try:
            with urllib.request.urlopen(req, timeout=30) as res:
                statuses.append(res.status)
        except urllib.error.HTTPError as e:
            statuses.append(e.code)
            assert e.code != 429 or json.load(e)["error"]["code"] == "too-many-profiles"
    return statuses


@contextlib.contextmanager
def serving(tmp: Path, *extra: str) -> Iterator[str]:
    """``barbu serve`` on its own, with ``extra`` flags; its URL."""
    port, log = free_port(), tmp / f"serve-{free_port()}.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "barbu.cli", "serve", "--port", str(port),
                                 "--db", str(tmp / f"t{port}.db"), *extra],
                                stdout=out, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_up(url, proc, log)
        yield url
    finally:
        proc.terminate()
        proc.wait(15)


def test_without_the_flag_a_client_cannot_choose_its_address(tmp_path: Path) -> None:
    """uvicorn's own default believes this machine: a client here (or a proxy here passing its header on)
    would pick a new address for every request."""
    with serving(tmp_path) as url:
        statuses = made_profiles(url, "direct")
    assert statuses == [201] * LIMIT + [429] * (TRIES - LIMIT)


def test_with_the_flag_the_named_proxy_is_believed(tmp_path: Path) -> None:
    with serving(tmp_path, "--forwarded-allow-ips", "127.0.0.1") as url:
        statuses = made_profiles(url, "trusted")
    assert statuses == [201] * TRIES  # each its own address, as the (trusted) proxy said


def test_behind_the_shipped_nginx_a_client_cannot_choose_its_address(tmp_path: Path) -> None:
    """deploy/nginx.conf in front of a process that believes it (as scripts/cluster.sh runs them)."""
    db, bus = services(tmp_path)
    flush_bus(bus)
    group = Group(db, bus, tmp_path, ("--forwarded-allow-ips", "127.0.0.1"))
    try:
        group.add()
        front = group.with_nginx()
        statuses = made_profiles(front, "behind")
    finally:
        group.stop()
    assert statuses == [201] * LIMIT + [429] * (TRIES - LIMIT), group.logs()
