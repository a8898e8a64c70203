#!/usr/bin/env python3
"""How long another table's ``ping`` takes while one table's database write is held by another connection.

Runs the server in-process (Starlette's test client), holds an exclusive SQLite lock from a second
connection for ``--hold`` seconds while table A's player acts, and times pings on table B meanwhile.

    .venv/bin/python research/blocked_write.py --pings 200 --hold 1.0
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from barbu.web.http.app import Config, build_app

ONE_PERSON = [{"kind": "human"}] + [{"kind": "bot", "level": "random"}] * 3


def until(ws: Any, kind: str) -> dict[str, Any]:
    while True:
        msg: dict[str, Any] = json.loads(ws.receive_text())
        if msg["type"] == kind:
            return msg


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pings", type=int, default=200)
    p.add_argument("--hold", type=float, default=1.0, help="seconds the other connection holds the lock")
    args = p.parse_args()
    db = Path(tempfile.mkdtemp()) / "blocked.db"
    with TestClient(build_app(Config(str(db), bot_delay=0.0, db_timeout=30))) as client:
        tables = [client.post("/api/tables", json={"name": n, "seats": ONE_PERSON}).json() for n in "AB"]
        time.sleep(0.5)  # the computers play up to the person's turn
        with client.websocket_connect(f"/ws/{tables[0]['id']}") as wa, \
                client.websocket_connect(f"/ws/{tables[1]['id']}") as wb:
            for ws, t in ((wa, tables[0]), (wb, tables[1])):
                ws.send_json({"type": "hello", "token": t["you"]["token"]})
            state = until(wa, "state")
            while not state["view"]["legal"]:
                state = until(wa, "state")
            until(wb, "state")
            other = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
            other.execute("BEGIN EXCLUSIVE")
            released = threading.Timer(args.hold, lambda: other.execute("ROLLBACK"))
            start = time.perf_counter()
            released.start()
            wa.send_json({"type": "act", "action": state["view"]["legal"][0]})
            times = []
            for _ in range(args.pings):
                t0 = time.perf_counter()
                wb.send_json({"type": "ping"})
                until(wb, "pong")
                times.append(time.perf_counter() - t0)
            pinged = time.perf_counter() - start
            msg = until(wa, "state")
            acked = time.perf_counter() - start
            released.join()
            other.close()
    times.sort()
    print(f"lock held {args.hold:.2f} s; table A's action acknowledged after {acked:.3f} s "
          f"({'state' if msg['last'] else 'other'} event)")
    median = statistics.median(times) * 1000
    print(f"{args.pings} pings on table B in {pinged:.3f} s: median {median:.2f} ms, "
          f"p99 {times[int(len(times) * 0.99) - 1] * 1000:.2f} ms, max {times[-1] * 1000:.2f} ms")


if __name__ == "__main__":
    main()
