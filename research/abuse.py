#!/usr/bin/env python3
"""How ``barbu serve``'s per-client limits hold against one client that pushes them.

Starts a server on 127.0.0.1 with a fresh SQLite file (``--serve`` adds flags to it) and runs one
scenario, printing its figures:

- ``burst``: 100 requests at once from one address to create tables, score sheets and profiles;
  how many were made (the limits are 10 a minute each by default).
- ``reads``: eight clients (eight addresses, told by X-Forwarded-For, which the server believes from
  this machine) loop over a finished game's timeline, a record's timeline and a sheet's PDF, while
  one watcher of an unrelated table sends pings: the pings' round trip (p50, p95, max).
- ``analyses``: the empty public record of a game in progress sent 30 times for analysis, then two
  real analyses asked by one client: how many were accepted (each a worker process).
- ``chat``: one address writes in a table's chat as a watcher, reconnecting after every five
  messages (the per-socket limit), for ``--seconds``: how many messages were stored.

    .venv/bin/python research/abuse.py burst
    .venv/bin/python research/abuse.py reads --seconds 15
    .venv/bin/python research/abuse.py chat --seconds 20

The figures of an older version are had by running this script with that version first on PYTHONPATH.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx2
from websockets.asyncio.client import connect

NAMES = ["Ann", "Ben", "Cleo", "Dan"]
BOTS = [{"kind": "bot", "level": "random"}] * 4


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start(port: int, folder: Path, extra: list[str]) -> subprocess.Popen[bytes]:
    log = open(folder / "serve.log", "wb")  # noqa: SIM115 - kept open for the server's whole life
    proc = subprocess.Popen([sys.executable, "-m", "barbu.cli", "serve", "--port", str(port), "--db",
                             str(folder / "t.db"), "--bot-delay", "0", *extra], stdout=log,
                            stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/info", timeout=1).close()
            return proc
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"abuse: the server did not start (see {folder / 'serve.log'})") from None
            time.sleep(0.2)


def tally(statuses: list[int]) -> str:
    return ", ".join(f"{n}× {s}" for s, n in sorted({s: statuses.count(s) for s in statuses}.items()))


async def at_once(n: int, ask: Callable[[int], Awaitable[httpx2.Response]]) -> list[int]:
    return [r.status_code for r in await asyncio.gather(*(ask(i) for i in range(n)))]


async def burst(base: str, args: argparse.Namespace) -> None:
    async with httpx2.AsyncClient(base_url=base, timeout=60) as c:
        sheet = {"names": NAMES, "first_declarer": 0}
        for what, url, body in (("tables", "/api/tables", lambda i: {"name": "Ann"}),
                                ("score sheets", "/api/sheets", lambda i: sheet),
                                ("profiles", "/api/players", lambda i: {"name": f"Burst {i}"})):
            statuses = await at_once(100, lambda i, u=url, b=body: c.post(u, json=b(i)))
            print(f"{what}: 100 at once from one address: {statuses.count(201)} made ({tally(statuses)})")


async def finished_table(c: httpx2.AsyncClient) -> str:
    """A game of four computer players, played to its end (they play at once with --bot-delay 0)."""
    made = (await c.post("/api/tables", json={"seats": BOTS}, headers={"X-Forwarded-For": "10.9.0.1"})).json()
    deadline = time.monotonic() + 300
    while not (await c.get(f"/api/tables/{made['id']}")).json()["table"].get("over"):
        if time.monotonic() > deadline:
            raise SystemExit("abuse: the computers' game did not end in 300 s")
        await asyncio.sleep(0.5)
    return str(made["id"])


async def pinger(ws_url: str, stop: asyncio.Event, rtts: list[float]) -> None:
    async with connect(ws_url) as ws:
        await ws.send(json.dumps({"type": "hello"}))
        while not stop.is_set():
            sent = time.perf_counter()
            await ws.send(json.dumps({"type": "ping"}))
            while json.loads(await ws.recv())["type"] != "pong":
                pass
            rtts.append((time.perf_counter() - sent) * 1000)
            await asyncio.sleep(0.02)


async def reader(c: httpx2.AsyncClient, k: int, jobs: list[tuple[str, str, Any]], until: float,
                 statuses: list[int]) -> None:
    headers = {"X-Forwarded-For": f"10.8.0.{k + 1}"}
    i = k
    while time.monotonic() < until:
        method, url, body = jobs[i % len(jobs)]
        res = await c.request(method, url, content=body, headers=headers)
        statuses.append(res.status_code)
        i += 1


def readers(base: str, clients: int, jobs: list[tuple[str, str, Any]], seconds: float, out: Any) -> None:
    """In a process of their own, so that reading the answers does not hold up the pings' loop."""
    async def run() -> list[int]:
        statuses: list[int] = []
        async with httpx2.AsyncClient(base_url=base, timeout=120) as c:
            until = time.monotonic() + seconds
            await asyncio.gather(*(reader(c, k, jobs, until, statuses) for k in range(clients)))
        return statuses
    out.put(asyncio.run(run()))


async def reads(base: str, args: argparse.Namespace) -> None:
    async with httpx2.AsyncClient(base_url=base, timeout=120) as c:
        done = await finished_table(c)
        record = (await c.get(f"/api/tables/{done}/record")).content
        sheet = (await c.post("/api/sheets", json={"names": NAMES, "first_declarer": 0})).json()
        quiet = (await c.post("/api/tables", json={"name": "Quiet"})).json()["id"]
        jobs = [("GET", f"/api/tables/{done}/timeline", None), ("POST", "/api/timeline", record),
                ("GET", f"/api/sheets/{sheet['id']}/pdf", None)]
    stop, rtts = asyncio.Event(), []  # type: ignore[var-annotated]
    ping = asyncio.create_task(pinger(base.replace("http", "ws") + f"/ws/{quiet}", stop, rtts))
    await asyncio.sleep(2)
    calm = len(rtts)
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    work = context.Process(target=readers, args=(base, args.clients, jobs, args.seconds, out))
    work.start()
    statuses = await asyncio.to_thread(out.get, True, args.seconds + 120)  # queue.Empty if they failed
    stop.set()
    await ping
    work.join()
    loaded = sorted(rtts[calm:])
    if not loaded:
        raise SystemExit("abuse: no ping came back while the readers ran")
    p95 = loaded[min(len(loaded) - 1, int(0.95 * len(loaded)))]
    print(f"unloaded ping: p50 {statistics.median(rtts[:calm]):.1f} ms over {calm} pings")
    print(f"ping while {args.clients} clients read for {args.seconds:g} s: "
          f"p50 {statistics.median(loaded):.1f} ms, p95 {p95:.1f} ms, max {loaded[-1]:.1f} ms "
          f"over {len(loaded)} pings")
    print(f"their reads: {tally(statuses)}")


async def analyses(base: str, args: argparse.Namespace) -> None:
    async with httpx2.AsyncClient(base_url=base, timeout=60) as c:
        begun = (await c.post("/api/tables", json={"name": "Ann", "seats": [{"kind": "human"}] * 4})).json()
        public = (await c.get(f"/api/tables/{begun['id']}/record")).json()
        empty = [(await c.post("/api/analysis", json={"record": public, "seat": 0})).status_code
                 for _ in range(30)]
        print(f"the empty record of a game in progress, 30 times: {empty.count(202)} analyses started "
              f"({tally(empty)})")
        done = await finished_table(c)
        whole = (await c.get(f"/api/tables/{done}/record")).json()
        whole["hands"] = [h for h in whole["hands"] if h.get("deal")]
        two = [(await c.post("/api/analysis", json={"record": whole, "seat": s})).status_code for s in (0, 1)]
        print(f"two analyses asked by one client: {two.count(202)} accepted ({tally(two)})")


async def chat(base: str, args: argparse.Namespace) -> None:
    async with httpx2.AsyncClient(base_url=base, timeout=60) as c:
        table = (await c.post("/api/tables", json={"name": "Ann", "chat": "everyone"})).json()["id"]
    said = refused = sockets = 0
    deadline = time.monotonic() + args.seconds
    while time.monotonic() < deadline:
        async with connect(base.replace("http", "ws") + f"/ws/{table}") as ws:
            sockets += 1
            await ws.send(json.dumps({"type": "hello"}))
            for i in range(5):
                await ws.send(json.dumps({"type": "chat", "text": f"message {sockets}.{i}"}))
            await ws.send(json.dumps({"type": "ping"}))
            while (msg := json.loads(await ws.recv()))["type"] != "pong":
                said += msg["type"] == "chat"
                refused += msg["type"] == "error"
    print(f"chat from one address over {sockets} sockets in {args.seconds:g} s: {said} messages stored, "
          f"{refused} refused")


SCENARIOS = {"burst": burst, "reads": reads, "analyses": analyses, "chat": chat}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("scenario", choices=sorted(SCENARIOS))
    p.add_argument("--seconds", type=float, default=15.0, help="how long the reads and chat run (default 15)")
    p.add_argument("--clients", type=int, default=8, help="reading clients (default 8)")
    p.add_argument("--serve", default="", help="more flags for barbu serve, in one string")
    args = p.parse_args(argv)
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="barbu-abuse-") as tmp:
        proc = start(port, Path(tmp), args.serve.split())
        try:
            asyncio.run(SCENARIOS[args.scenario](f"http://127.0.0.1:{port}", args))
        finally:
            proc.terminate()
            proc.wait(30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
