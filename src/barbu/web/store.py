"""SQLite storage of the web tables: each table's setup, seats and every deal and action, as they happen.

The database is the server's memory across restarts: a table is rebuilt by replaying its stored
events through the engine. WAL mode keeps each write cheap and a crash harmless.

>>> store = Store(":memory:")
>>> store.create_table("t1", {"ruleset": "classic"}, [SeatRow(0, "Ann", "tok", "human", "", True)])
>>> store.append_event("t1", "act", {"seat": 0, "action": 65})
1
>>> [e.kind for e in store.events("t1")], store.load_seats("t1")[0].name
(['act'], 'Ann')
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    setup TEXT NOT NULL,
    over INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS seats (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    token TEXT NOT NULL,
    kind TEXT NOT NULL,
    level TEXT NOT NULL,
    claimed INTEGER NOT NULL,
    PRIMARY KEY (table_id, seat)
);
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (table_id, seq)
);
"""


@dataclass
class SeatRow:
    """One seat as stored: who sits there and whether a person or a computer plays it."""

    seat: int
    name: str
    token: str  # the secret of the seat's invitation link
    kind: str  # "human" or "bot"
    level: str  # bot level when kind is "bot", or the level that took over an idle human
    claimed: bool  # a person has taken the seat (by its link or from the lobby)


@dataclass(frozen=True)
class Event:
    """One stored step of a table: a deal or an action."""

    seq: int
    kind: str
    data: dict[str, Any]


class Store:
    """The tables of one server in one SQLite file (or ``:memory:`` for tests)."""

    def __init__(self, path: str) -> None:
        self.path = path
        # The server runs in one event loop thread; uvicorn may still hand work to others.
        self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self.db.executescript(_SCHEMA)
        self._next_seq: dict[str, int] = {}

    def close(self) -> None:
        self.db.close()

    @property
    def journal_mode(self) -> str:
        row = self.db.execute("PRAGMA journal_mode").fetchone()
        return str(row[0])

    # -- tables and seats ------------------------------------------------------

    def create_table(self, table_id: str, setup: dict[str, Any], seats: Sequence[SeatRow]) -> None:
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute("INSERT INTO tables (id, created, setup) VALUES (?, ?, ?)",
                            (table_id, time.time(), json.dumps(setup)))
            self.db.executemany(
                "INSERT INTO seats (table_id, seat, name, token, kind, level, claimed) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(table_id, s.seat, s.name, s.token, s.kind, s.level, int(s.claimed)) for s in seats])
        self._next_seq[table_id] = 1

    def save_seat(self, table_id: str, row: SeatRow) -> None:
        self.db.execute("UPDATE seats SET name = ?, token = ?, kind = ?, level = ?, claimed = ? "
                        "WHERE table_id = ? AND seat = ?",
                        (row.name, row.token, row.kind, row.level, int(row.claimed), table_id, row.seat))

    def mark_over(self, table_id: str) -> None:
        self.db.execute("UPDATE tables SET over = 1 WHERE id = ?", (table_id,))

    def is_over(self, table_id: str) -> bool:
        row = self.db.execute("SELECT over FROM tables WHERE id = ?", (table_id,)).fetchone()
        return row is not None and bool(row[0])

    def table_ids(self, *, include_over: bool = True) -> list[str]:
        sql = "SELECT id FROM tables" + ("" if include_over else " WHERE over = 0") + " ORDER BY created"
        return [str(r[0]) for r in self.db.execute(sql)]

    def load_setup(self, table_id: str) -> dict[str, Any] | None:
        row = self.db.execute("SELECT setup FROM tables WHERE id = ?", (table_id,)).fetchone()
        if row is None:
            return None
        setup: dict[str, Any] = json.loads(row[0])
        return setup

    def load_seats(self, table_id: str) -> list[SeatRow]:
        rows = self.db.execute("SELECT seat, name, token, kind, level, claimed FROM seats "
                               "WHERE table_id = ? ORDER BY seat", (table_id,))
        return [SeatRow(int(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4]), bool(r[5])) for r in rows]

    # -- events ------------------------------------------------------------------

    def append_event(self, table_id: str, kind: str, data: dict[str, Any]) -> int:
        """Store one deal or action at once (autocommit) and return its sequence number."""
        seq = self._next_seq.get(table_id)
        if seq is None:
            row = self.db.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE table_id = ?",
                                  (table_id,)).fetchone()
            seq = int(row[0]) + 1
        self.db.execute("INSERT INTO events (table_id, seq, kind, data, at) VALUES (?, ?, ?, ?, ?)",
                        (table_id, seq, kind, json.dumps(data), time.time()))
        self._next_seq[table_id] = seq + 1
        return seq

    def events(self, table_id: str) -> list[Event]:
        rows = self.db.execute("SELECT seq, kind, data FROM events WHERE table_id = ? ORDER BY seq",
                               (table_id,))
        return [Event(int(r[0]), str(r[1]), json.loads(r[2])) for r in rows]
