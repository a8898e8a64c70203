"""A group of ``barbu serve --bus`` processes for tests: the services they need, starting and stopping it."""

from __future__ import annotations

import asyncio
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from tests.conftest import ROOT
from tests.pg_helpers import PG_ENV, REQUIRE_ENV, new_database, redis_url

from barbu.web.storage.sqlite import is_postgres

T = TypeVar("T")

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
# Every table and socket of a test comes from 127.0.0.1: the per-client limits are lifted.
UNLIMITED = ["--tables-per-minute", "100000", "--max-open-tables", "100000", "--max-bot-tables", "100000",
             "--sockets-per-client", "100000", "--bot-delay", "0"]


def services(tmp: Path) -> tuple[str, str]:
    """The database (a new PostgreSQL one) and the Redis URL (an emptied database of this test
    worker's, :func:`next_bus`) for one group of processes.

    Without the services the test is skipped, unless BARBU_REQUIRE_SERVICES=1 (./test.sh starts
    them and sets it), where it fails. With Redis but no PostgreSQL outside ./test.sh, the group
    shares one SQLite file (processes on one machine may), so that the bus can be tried alone.
    """
    bus = with_number(redis_url(), next_bus())
    if os.environ.get(PG_ENV) or os.environ.get(REQUIRE_ENV) == "1":
        return new_database(), bus
    return str(tmp / "tables.db"), bus


def flush_bus(url: str) -> None:
    """Forget what an earlier group left in Redis (leases, heartbeats): each test starts alone."""
    import redis

    client = redis.Redis.from_url(url)
    try:
        client.flushdb()
    finally:
        client.close()


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_up(url: str, proc: subprocess.Popen[bytes], log: Path, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            urllib.request.urlopen(url + "/api/info", timeout=1).close()
            return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"{url} did not start: " + log.read_text()) from None
            time.sleep(0.1)


@dataclass
class Group:
    """Server processes sharing one database and one bus, and nginx in front of them if asked."""

    db: str
    bus: str
    tmp: Path
    extra: tuple[str, ...] = ()
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)
    nginx: subprocess.Popen[bytes] | None = None
    front: str = ""  # nginx's address, once started

    def start(self, n: int) -> Group:
        for _ in range(n):
            self.add()
        return self

    def add(self) -> str:
        """One more process; started after the others are up, so that one at a time migrates the schema."""
        port, i = free_port(), len(self.procs)
        log = self.tmp / f"serve-{i}.log"
        out = open(log, "ab")  # noqa: SIM115 - the process writes to it for its whole life
        proc = subprocess.Popen([sys.executable, "-m", "barbu.cli", "serve", "--port", str(port),
                                 "--db", self.db, "--bus", self.bus, *UNLIMITED, *self.extra],
                                stdout=out, stderr=subprocess.STDOUT)
        out.close()
        url = f"http://127.0.0.1:{port}"
        wait_up(url, proc, log)
        self.procs.append(proc)
        self.urls.append(url)
        return url

    def with_nginx(self, port: int = 0) -> str:
        """nginx on ``port`` (0: any free one) before every process (deploy/nginx.conf, with our ports)."""
        port = port or free_port()
        conf = nginx_conf([u.rsplit(":", 1)[1] for u in self.urls], port, self.tmp / "nginx")
        self.nginx = subprocess.Popen([NGINX, "-p", str(self.tmp / "nginx"), "-c", str(conf),
                                       "-g", "daemon off;"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        self.front = f"http://127.0.0.1:{port}"
        wait_up(self.front, self.nginx, self.tmp / "nginx" / "error.log")
        return self.front

    def kill(self, i: int) -> None:
        self.procs[i].kill()  # SIGKILL: no goodbye, its leases lapse by themselves
        self.procs[i].wait(10)

    def stop(self) -> None:
        if self.nginx is not None:
            self.nginx.terminate()
            self.nginx.wait(10)
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()

    def logs(self) -> str:
        return "\n".join(p.read_text(errors="replace")[-3000:] for p in sorted(self.tmp.glob("serve-*.log")))


def nginx_conf(ports: list[str], listen: int, prefix: Path) -> Path:
    """deploy/nginx.conf with these upstream ports, this port to listen on, its files under ``prefix``."""
    prefix.mkdir(parents=True, exist_ok=True)
    (prefix / "logs").mkdir(exist_ok=True)
    text = (ROOT / "deploy" / "nginx.conf").read_text()
    servers = "".join(f"    server 127.0.0.1:{p};\n" for p in ports)
    text = re.sub(r"(upstream barbu \{\n)(?:\s*server [^\n]*\n)+", lambda m: m[1] + servers, text)
    text = re.sub(r"listen 127\.0\.0\.1:\d+;", f"listen 127.0.0.1:{listen};", text)
    text = text.replace("/var/log/nginx/barbu-", str(prefix) + "/").replace("/run/barbu-nginx.pid",
                                                                               str(prefix / "nginx.pid"))
    text = text.replace("/var/lib/nginx/barbu", str(prefix))
    conf = prefix / "nginx.conf"
    conf.write_text(text)
    return conf


# -- the browser tests against a group (BARBU_TEST_CLUSTER=1) -----------------------------------

CLUSTER_ENV = "BARBU_TEST_CLUSTER"
_databases: dict[str, tuple[str, int]] = {}  # a browser test's database -> the group's database, bus


def on_cluster() -> bool:
    """Whether the browser tests' servers are groups of two processes behind nginx."""
    return os.environ.get(CLUSTER_ENV) == "1"


def group_database(db: Path | str) -> tuple[str, int]:
    """The database and the Redis database number of the group standing for a browser test's database.

    A PostgreSQL one is used as it is; an SQLite file gets a new PostgreSQL database of its own when
    there is PostgreSQL. The same one gets the same again (a test that restarts its server finds its
    tables). Each group has its own Redis database, so that two groups running at once never list
    each other's tables.
    """
    key = str(db)
    if key not in _databases:
        target = key
        if not is_postgres(key) and (os.environ.get(PG_ENV) or os.environ.get(REQUIRE_ENV) == "1"):
            target = new_database()
        _databases[key] = (target, next_bus())
    return _databases[key]


_given = [0]  # how many Redis databases this test process has given out (next_bus)


def next_bus() -> int:
    """The number of a Redis database of this test process's own, emptied: the next of
    :func:`bus_numbers` in turn, so that a group still running (a module's server) keeps its own
    while the next test's group starts on another."""
    numbers = bus_numbers()
    number = numbers[_given[0] % len(numbers)]
    _given[0] += 1
    flush_bus(with_number(redis_url(), number))
    return number


def bus_numbers() -> list[int]:
    """The Redis database numbers this test process may give its groups.

    0 is left to people trying things by hand, 14 and 15 are the bus tests'; the rest are shared out
    among pytest-xdist's workers (PYTEST_XDIST_WORKER gwN of PYTEST_XDIST_WORKER_COUNT), so that no
    worker flushes a database another worker's group is using (the cluster, proxy and limit tests
    start groups in one stage at once). ./test.sh starts Redis with more than the usual 16.
    """
    import redis

    client = redis.Redis.from_url(redis_url(), decode_responses=True)
    try:
        count = int(client.config_get("databases").get("databases", 16))
    finally:
        client.close()
    free = [n for n in range(1, count) if n not in (14, 15)]
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    mine = free[int(worker) % workers::workers]
    if not mine:
        raise RuntimeError(f"Redis has {count} databases: too few for {workers} test workers")
    return mine


def with_number(url: str, number: int) -> str:
    """The same Redis server's URL, naming its database ``number``."""
    return re.sub(r"(redis://[^/]+)(/\d*)?$", lambda m: f"{m[1]}/{number}", url)


class Running:
    """A started group as the browser tests hold a server process: terminate, wait, poll, kill."""

    def __init__(self, group: Group) -> None:
        self.group = group

    def terminate(self) -> None:
        self.group.stop()

    def wait(self, timeout: float | None = None) -> int:
        return 0

    def poll(self) -> int | None:
        return None if all(p.poll() is None for p in self.group.procs) else 1

    def kill(self) -> None:
        for proc in self.group.procs:
            proc.kill()
        if self.group.nginx is not None:
            self.group.nginx.kill()


def start_group(port: int, db: Path | str, *extra: str, processes: int = 2) -> Running:
    """Two ``barbu serve --bus`` processes on the database standing for ``db``, nginx in front on ``port``."""
    target, number = group_database(db)
    tmp = Path(tempfile.gettempdir()) / f"barbu-group-{target.rsplit('/', 1)[-1].replace('.', '-')}"
    if not is_postgres(str(db)):
        tmp = Path(db).parent / f"group-{Path(db).stem}"
    tmp.mkdir(exist_ok=True)
    group = Group(target, with_number(redis_url(), number), tmp, extra).start(processes)
    group.with_nginx(port)
    return Running(group)


def run_within(work: Coroutine[Any, Any, T], seconds: float = 120) -> T:
    """``asyncio.run(work)``, failed after ``seconds`` with the stack of every task still waiting.

    A cluster test that never ends would otherwise wait for pytest's own timeout and say only that
    the event loop was idle: this says which await never returned. Past the time the tasks are left
    as they are (one that swallows its cancel would hang asyncio.run's own clean-up as well).
    """
    async def guarded() -> T:
        task = asyncio.ensure_future(work)
        await asyncio.wait({task}, timeout=seconds)
        if task.done():
            return task.result()
        stacks = io.StringIO()
        for waiting in asyncio.all_tasks():
            if waiting is not asyncio.current_task():
                waiting.print_stack(file=stacks)
        raise AssertionError(f"still waiting after {seconds:.0f} s; the tasks:\n{stacks.getvalue()}")

    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(guarded())
    finally:
        if not any(not t.done() for t in asyncio.all_tasks(loop)):
            loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
