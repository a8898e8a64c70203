#!/usr/bin/env python3
"""Load check of ``barbu serve``: K tables of four computer players, watched over real WebSockets.

Starts a server on 127.0.0.1 (or targets one given with --url, which must be on this machine;
or, with --processes N, starts N ``barbu serve --bus`` processes behind nginx with
scripts/cluster.sh, on the PostgreSQL and Redis of $BARBU_DB and $BARBU_BUS or on throwaway ones),
creates K tables whose four seats are computer players, connects W watchers to each table and
follows them until each has seen --hands hands end or --seconds have passed. Reports the actions
played per second and the delivery latency of the server's events (the time from the server making
an event to a watcher reading it) as percentiles.

With --hint-tables H, H more tables each seat one person (this script) against three computers,
where the coach may help: at each of its turns the person asks the coach for a hint over the socket
(the ``hint`` message, docs/web-api.md), times the answer, and plays the hint's choice, for as long
as the watched tables play. The hints' latency (question sent, answer read) is reported beside the
usual figures.

    .venv/bin/python scripts/loadtest.py --tables 50 --seconds 60
    .venv/bin/python scripts/loadtest.py --tables 20 --hands 28 --hint-tables 4 --seconds 120
    .venv/bin/python scripts/loadtest.py --processes 3 --tables 200 --hands 28 --seconds 40
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from websockets.asyncio.client import connect

ROOT = Path(__file__).resolve().parent.parent
CLUSTER = ROOT / "scripts" / "cluster.sh"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
# Every table and watcher comes from this one address: the server's per-client limits are lifted.
UNLIMITED = ["--tables-per-minute", "100000", "--max-open-tables", "100000", "--max-bot-tables", "100000",
             "--sockets-per-client", "100000", "--hints-per-minute", "100000"]


@dataclass
class Watch:
    """What one watcher saw of its table."""

    table: str
    events: int = 0
    actions: int = 0
    hands_seen: int = 0
    latencies: list[float] = field(default_factory=list)
    leaks: int = 0
    errors: int = 0
    first: float = 0.0  # when the first and the last event arrived
    last: float = 0.0


@dataclass
class Learner:
    """What the person at one hint-asking table saw: each hint's latency, and what went wrong."""

    table: str = ""
    latencies: list[float] = field(default_factory=list)
    hands_seen: int = 0
    errors: list[str] = field(default_factory=list)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(port: int, db: Path, log: Path, bot_delay: float) -> subprocess.Popen[bytes]:
    out = open(log, "wb")  # noqa: SIM115 - kept open for the server's whole life
    return subprocess.Popen([sys.executable, "-m", "barbu.cli", "serve", "--port", str(port), "--db", str(db),
                             "--bot-delay", str(bot_delay), *UNLIMITED], stdout=out, stderr=subprocess.STDOUT)


def free_ports(count: int) -> int:
    """A port P with P … P+count−1 free: cluster.sh puts nginx on P and the processes after it."""
    for _ in range(100):
        base = free_port()
        if base + count <= 65535 and all(_is_free(base + i) for i in range(1, count)):
            return base
    raise SystemExit(f"loadtest: found no {count} free ports in a row")


def _is_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def start_cluster(folder: Path, processes: int, bot_delay: float) -> str:
    """N server processes behind nginx (scripts/cluster.sh); returns nginx's address."""
    if not CLUSTER.is_file():
        raise SystemExit(f"loadtest: --processes needs {CLUSTER.relative_to(ROOT)}, which is missing")
    port = free_ports(processes + 1)
    # As root, PostgreSQL's throwaway cluster belongs to the user postgres, who must get through.
    folder.parent.chmod(0o755)
    env = dict(os.environ, BARBU_PYTHON=sys.executable,
               BARBU_SERVE_ARGS=" ".join(["--bot-delay", str(bot_delay), *UNLIMITED]))
    try:
        subprocess.run(["bash", str(CLUSTER), "start", str(folder), str(processes), str(port)],
                       env=env, check=True, stdout=subprocess.DEVNULL)
    except subprocess.CalledProcessError:
        stop_cluster(folder)
        raise SystemExit("loadtest: scripts/cluster.sh could not start the processes") from None
    return f"http://127.0.0.1:{port}"


def stop_cluster(folder: Path) -> None:
    subprocess.run(["bash", str(CLUSTER), "stop", str(folder)], check=False, stdout=subprocess.DEVNULL)


def wait_until_up(url: str, proc: subprocess.Popen[bytes] | None, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            urllib.request.urlopen(url + "/api/info", timeout=1).close()
            return
        except OSError:
            if (proc is not None and proc.poll() is not None) or time.monotonic() > deadline:
                raise SystemExit(f"loadtest: no server answers at {url}") from None
            time.sleep(0.1)


def create_table(url: str, level: str, seed: int) -> str:
    table_id: str = post_table(url, {"seats": [{"kind": "bot", "level": level}] * 4, "seed": seed})["id"]
    return table_id


def post_table(url: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(url + "/api/tables", data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as res:
        made: dict[str, Any] = json.load(res)
        return made


def create_person_table(url: str, level: str, seed: int) -> tuple[str, str]:
    """A table of one person (seat 0, this script) and three computers: the coach may help there.
    Returns the table and the person's seat token."""
    bots = [{"kind": "bot", "level": level}] * 3
    made = post_table(url, {"name": "Learner", "seats": [{"kind": "you"}, *bots], "seed": seed})
    return made["id"], made["you"]["token"]


async def learn(url: str, index: int, args: argparse.Namespace, stop: asyncio.Event,
                time_up: asyncio.Event) -> Learner:
    """Sit at a table against computers; at every turn ask the coach, time its answer and play it,
    until the watched tables are done (``stop``; but not before a first answer) or time is up, or
    this game ends."""
    table, token = await asyncio.to_thread(create_person_table, url, args.level, args.seed + 10_000 + index)
    learner = Learner(table)
    answered: str | None = None  # the turn last answered: a repeated state of it asks nothing again
    async with connect(url.replace("http", "ws", 1) + f"/ws/{table}", max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        while not time_up.is_set() and not (stop.is_set() and learner.latencies):
            msg = await _next(ws, time_up)
            if msg is None:
                return learner
            if msg["type"] == "error":
                learner.errors.append(msg.get("code", "?"))
            elif msg["type"] == "state":
                view = msg["view"]
                learner.hands_seen = view["hands_done"]
                if msg["table"]["over"]:
                    return learner
                turn = json.dumps([view[k] for k in ("hand_no", "phase", "history", "trick", "hand")])
                # A person's only move "pass" the server plays itself (Dominoes): nothing to ask.
                mine = view["current"] == view["seat"] and view["legal"] not in ([], ["pass"])
                if mine and turn != answered:
                    answered = turn
                    await _hint_and_play(ws, view, learner, time_up)
    return learner


async def _next(ws: Any, stop: asyncio.Event) -> dict[str, Any] | None:
    """The socket's next message, or None once time is up."""
    while not stop.is_set():
        try:
            msg: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), timeout=1.0))
            return msg
        except TimeoutError:
            continue
    return None


async def _hint_and_play(ws: Any, view: dict[str, Any], learner: Learner, stop: asyncio.Event) -> None:
    """Ask the coach at this turn, time the answer (states arriving meanwhile are skipped: nothing
    moves at the table until the person plays), then play the hint's choice."""
    start = time.monotonic()
    await ws.send(json.dumps({"type": "hint"}))
    while True:
        msg = await _next(ws, stop)
        if msg is None:
            return
        if msg["type"] == "error":
            learner.errors.append(msg.get("code", "?"))
            return
        if msg["type"] == "hint":
            learner.latencies.append(time.monotonic() - start)
            choice = msg["choice"] if msg["choice"] in view["legal"] else view["legal"][0]
            await ws.send(json.dumps({"type": "act", "action": choice}))
            return


async def watch(url: str, watch_: Watch, hands: int, stop: asyncio.Event) -> None:
    """Follow one table as a spectator until it has finished ``hands`` hands or time is up."""
    ws_url = url.replace("http", "ws", 1) + f"/ws/{watch_.table}"
    async with connect(ws_url, max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "hello"}))
        last: Any = None
        first_results: int | None = None
        while not stop.is_set():
            try:
                text = await asyncio.wait_for(ws.recv(), timeout=1.0)
            except TimeoutError:
                continue
            now = time.time()
            msg = json.loads(text)
            watch_.events += 1
            watch_.first = watch_.first or now
            watch_.last = now
            if msg["type"] == "error":
                watch_.errors += 1
                continue
            if msg["type"] != "state":
                continue
            watch_.latencies.append(now - msg["ts"])
            view = msg["view"]
            if view["hand"] or view["legal"]:
                watch_.leaks += 1  # a spectator must never be shown a hand
            if msg["last"] is not None and msg["last"] != last:
                watch_.actions += 1
                last = msg["last"]
            results = view["hands_done"]
            first_results = results if first_results is None else first_results
            watch_.hands_seen = results - first_results
            if watch_.hands_seen >= hands or msg["table"]["over"]:
                return


async def run_table(url: str, index: int, args: argparse.Namespace, stop: asyncio.Event) -> list[Watch]:
    table = await asyncio.to_thread(create_table, url, args.level, args.seed + index)
    watches = [Watch(table) for _ in range(args.watchers)]
    await asyncio.gather(*(watch(url, w, args.hands, stop) for w in watches))
    return watches


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]


async def run(url: str, args: argparse.Namespace) -> tuple[list[Watch], float]:
    stop = asyncio.Event()
    start = time.monotonic()
    tasks = [asyncio.create_task(run_table(url, i, args, stop)) for i in range(args.tables)]
    time_up = asyncio.Event()
    learners = [asyncio.create_task(learn(url, i, args, stop, time_up)) for i in range(args.hint_tables)]
    await asyncio.wait(tasks, timeout=args.seconds)
    stop.set()  # every watcher stops within a second, and every hint-asking person who had an answer
    results = await asyncio.gather(*tasks, return_exceptions=True)
    if learners:
        await asyncio.wait(learners, timeout=max(0.0, args.seconds - (time.monotonic() - start)))
    time_up.set()
    elapsed = time.monotonic() - start
    watches: list[Watch] = []
    for r in results:
        if isinstance(r, BaseException):
            print(f"loadtest: a table failed: {r!r}", file=sys.stderr)
        else:
            watches.extend(r)
    for done in await asyncio.gather(*learners, return_exceptions=True):
        if isinstance(done, BaseException):
            print(f"loadtest: a hint-asking table failed: {done!r}", file=sys.stderr)
            args.learners.append(Learner(errors=[repr(done)]))
        else:
            args.learners.append(done)
    return watches, elapsed


def report(watches: list[Watch], elapsed: float, args: argparse.Namespace) -> bool:
    per_table: dict[str, int] = {}
    for w in watches:
        per_table[w.table] = max(per_table.get(w.table, 0), w.actions)
    actions = sum(per_table.values())
    events = sum(w.events for w in watches)
    lat = [x * 1000 for w in watches for x in w.latencies]
    finished = sum(1 for w in watches if w.hands_seen >= args.hands)
    # Throughput over the time the tables were watched (they start playing the moment they are made).
    seen = [w for w in watches if w.events]
    window = max(w.last for w in seen) - min(w.first for w in seen) if seen else 0.0
    window = max(window, 1e-3)
    where = (f"{args.processes} server process(es) behind nginx" if args.processes
             else "a server started here" if args.url is None else args.url)
    print(f"barbu load check: {args.tables} tables x 4 computer players ({args.level}), "
          f"{args.watchers} watcher(s) each, bot delay {args.bot_delay:g} s; {where}")
    print(f"ran {elapsed:.1f} s ({window:.2f} s watched); {finished}/{len(watches)} watchers saw "
          f"{args.hands} hand(s) end")
    print(f"actions: {actions} watched, {actions / window:.0f} actions per second")
    print(f"events delivered: {events}, {events / window:.0f} per second")
    if lat:
        print(f"delivery latency (server event -> watcher): p50 {percentile(lat, 50):.1f} ms, "
              f"p95 {percentile(lat, 95):.1f} ms, p99 {percentile(lat, 99):.1f} ms, "
              f"max {max(lat):.1f} ms, mean {statistics.fmean(lat):.1f} ms")
    leaks = sum(w.leaks for w in watches)
    errors = sum(w.errors for w in watches)
    print(f"hidden cards shown to watchers: {leaks}; error events: {errors}")
    hints_ok = report_hints(args.learners) if args.hint_tables else True
    return bool(watches) and actions > 0 and leaks == 0 and errors == 0 and len(watches) == \
        args.tables * args.watchers and hints_ok


def report_hints(learners: list[Learner]) -> bool:
    """The hints' latency at the tables of one person against computers; False if none came or
    any was refused."""
    lat = [x * 1000 for p in learners for x in p.latencies]
    errors = [e for p in learners for e in p.errors]
    print(f"hints: {len(lat)} at {len(learners)} table(s) of one person against 3 computers, "
          f"{sum(p.hands_seen for p in learners)} hand(s) finished there")
    if lat:
        print(f"hint latency (question -> answer): p50 {percentile(lat, 50):.0f} ms, "
              f"p95 {percentile(lat, 95):.0f} ms, max {max(lat):.0f} ms, mean {statistics.fmean(lat):.0f} ms")
    print(f"hint errors: {len(errors)}{' (' + ', '.join(sorted(set(errors))) + ')' if errors else ''}")
    return bool(lat) and not errors


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", type=int, default=50, help="number of tables K (default 50)")
    p.add_argument("--watchers", type=int, default=1, help="WebSocket spectators per table (default 1)")
    p.add_argument("--hands", type=int, default=1, help="stop a table after this many hands (default 1)")
    p.add_argument("--seconds", type=float, default=60.0, help="stop everything after this (default 60)")
    p.add_argument("--level", default="basic", help="computer level (default basic)")
    p.add_argument("--hint-tables", type=int, default=0, metavar="H",
                   help="also H tables of one person against 3 computers who asks the coach at every "
                        "turn (default 0)")
    p.add_argument("--seed", type=int, default=1, help="seed of the first table's deals")
    p.add_argument("--bot-delay", type=float, default=0.0,
                   help="computer players' delay of the server started here (default 0: flat out)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--url", default=None, help="a running server on this machine (default: start one)")
    where.add_argument("--processes", type=int, default=0, metavar="N",
                       help="start N server processes behind nginx (scripts/cluster.sh) and load them")
    args = p.parse_args(argv)
    if not 1 <= args.tables <= 500 or not 1 <= args.watchers <= 20 or not 0 < args.seconds <= 600:
        p.error("keep it bounded: 1-500 tables, 1-20 watchers, at most 600 s")
    if not 0 <= args.processes <= 8:
        p.error("keep it bounded: at most 8 processes")
    if not 0 <= args.hint_tables <= 50:
        p.error("keep it bounded: at most 50 hint-asking tables")
    args.learners = []
    proc = None
    with tempfile.TemporaryDirectory(prefix="barbu-load-") as tmp:
        if args.processes:
            url = start_cluster(Path(tmp) / "cluster", args.processes, args.bot_delay)
        elif args.url:
            url = args.url.rstrip("/")
            if urlparse(url).hostname not in LOOPBACK:
                p.error("the load check only targets a server on this machine (127.0.0.1)")
        else:
            port = free_port()
            url = f"http://127.0.0.1:{port}"
            proc = start_server(port, Path(tmp) / "load.db", Path(tmp) / "server.log", args.bot_delay)
        try:
            wait_until_up(url, proc)
            watches, elapsed = asyncio.run(run(url, args))
        finally:
            if proc is not None:
                proc.terminate()
                proc.wait(15)
            if args.processes:
                stop_cluster(Path(tmp) / "cluster")
        ok = report(watches, elapsed, args)
        if proc is not None and os.environ.get("BARBU_LOAD_LOG"):
            print((Path(tmp) / "server.log").read_text()[-4000:])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
