"""SQLite storage of the web server: tables (setup, seats, deals, actions), score sheets, profiles, ratings.

The database is the server's memory across restarts: a table is rebuilt by replaying its stored
events through the engine. WAL mode keeps each write cheap and a crash harmless. Every change of
a table is one :class:`Batch`, written in one transaction: all of it is stored, or none.

>>> store = Store(":memory:")
>>> store.create_table("t1", {"ruleset": "classic"}, [SeatRow(0, "Ann", "tok", "human", "", True)])
>>> store.append_event("t1", "act", {"seat": 0, "action": 65})
1
>>> [e.kind for e in store.events("t1")], store.load_seats("t1")[0].name
(['act'], 'Ann')
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from typing import IO, Any, Protocol

from barbu.web.storage.schema import MIGRATIONS, SCHEMA_VERSION, statements
from barbu.web.storage.sql import (
    SQLITE,
    Batch,
    DeviceRow,
    Event,
    GameResult,
    HistoryRow,
    NewerDatabase,
    PlayerBatch,
    PlayerRow,
    RatingRow,
    SeatRow,
    SheetBatch,
    SheetRow,
    TableEntry,
    event_of,
    history_row,
    rating_row,
    write_all,
    written,
)

# What callers import from here, though defined in schema and storesql.
__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "Batch", "DeviceRow", "Event", "GameResult", "HistoryRow",
           "NewerDatabase", "PlayerBatch", "PlayerRow", "RatingRow", "SeatRow", "SheetBatch", "SheetRow",
           "TableEntry"]


def migrate(db: sqlite3.Connection) -> int:
    """Bring a database up to :data:`SCHEMA_VERSION`, each step in one transaction; the steps it ran.

    A step either runs whole (its version stored with it) or not at all, so an interrupted
    migration starts again where it stopped. Running it again on a database already migrated does nothing.
    """
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    if version > SCHEMA_VERSION:
        raise NewerDatabase(f"its layout is version {version}, newer than this barbu's {SCHEMA_VERSION}")
    for step in range(version, SCHEMA_VERSION):
        db.execute("BEGIN IMMEDIATE")
        try:
            for statement in statements(MIGRATIONS[step]):
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {step + 1}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    return SCHEMA_VERSION - version


class TableStore(Protocol):
    """What the server needs of its storage, as :class:`Store` (SQLite) and ``PgStore`` (PostgreSQL) give it.

    Reads may come from one thread while :meth:`commit` runs in another. A write that cannot be
    made raises a ``sqlite3.Error`` (``IntegrityError`` for a conflict) whichever the database.
    """

    path: str  # where the tables are, for messages (a PostgreSQL URL without its password)

    def close(self) -> None: ...
    def forget(self, table_id: str) -> None: ...
    def create_table(self, table_id: str, setup: dict[str, Any], seats: Sequence[SeatRow]) -> None: ...
    def save_seat(self, table_id: str, row: SeatRow) -> None: ...
    def mark_over(self, table_id: str) -> None: ...
    def is_over(self, table_id: str) -> bool: ...
    def table_ids(self, *, include_over: bool = True) -> list[str]: ...
    def table_index(self) -> list[TableEntry]: ...
    def load_setup(self, table_id: str) -> dict[str, Any] | None: ...
    def origin(self, table_id: str) -> tuple[float, str | None]: ...
    def load_seats(self, table_id: str) -> list[SeatRow]: ...
    def table_flags(self, table_id: str) -> tuple[bool, int]: ...
    def tables_of_player(self, player_id: str) -> list[str]: ...
    def append_event(self, table_id: str, kind: str, data: dict[str, Any]) -> int: ...
    def events(self, table_id: str) -> list[Event]: ...
    def last_change(self, table_id: str) -> float | None: ...
    def load_sheet(self, sheet_id: str) -> SheetRow | None: ...
    def sheet_entry(self, sheet_id: str, entry: str) -> int | None: ...
    def sheet_history(self, sheet_id: str) -> list[dict[str, Any]]: ...
    def load_player(self, player_id: str) -> PlayerRow | None: ...
    def player_named(self, name_key: str) -> PlayerRow | None: ...
    def devices_of(self, player_id: str) -> list[DeviceRow]: ...
    def leaderboard(self, ruleset: str, limit: int) -> list[RatingRow]: ...
    def ratings_of(self, player_id: str) -> list[RatingRow]: ...
    def rating_history(self, player_id: str, limit: int) -> list[HistoryRow]: ...
    def rated(self, table_id: str) -> bool: ...
    def transfer(self, code_hash: str) -> tuple[str, float] | None: ...
    def commit(self, batch: Batch | SheetBatch | PlayerBatch) -> list[int]: ...
    def expect_seq(self, table_id: str, seq: int) -> None: ...


def is_postgres(target: str) -> bool:
    """Whether a ``--db`` names a PostgreSQL database (a URL) rather than an SQLite file."""
    return target.startswith(("postgresql://", "postgres://"))


def open_store(target: str, timeout: float = 5.0) -> TableStore:
    """The store ``target`` names: PostgreSQL for a ``postgresql://`` URL, else an SQLite file.

    PostgreSQL needs the ``cluster`` extra (psycopg), imported only then.
    """
    if is_postgres(target):
        from barbu.web.storage.postgres import PgStore

        return PgStore(target, timeout=timeout)
    return Store(target, timeout=timeout)


class Store:
    """The tables of one server in one SQLite file (or ``:memory:`` for tests)."""

    def __init__(self, path: str, *, timeout: float = 5.0) -> None:
        self.path = path
        # The server writes in its own writer thread and reads in the event loop's. Each has its
        # connection and its lock, so that a write waiting on the database (``timeout``: how long,
        # before it fails with "database is locked") never holds up a read: WAL lets both run.
        self.db = self._connect(timeout)
        _check_schema(self.db)  # before the schema is added to another program's file
        migrate(self.db)
        self.lock = threading.RLock()
        shared = path == ":memory:"  # a second connection would open another, empty, database
        self.wdb = self.db if shared else self._connect(timeout)
        self.wlock = self.lock if shared else threading.RLock()
        self._next_seq: dict[str, int] = {}

    def _connect(self, timeout: float) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=timeout)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA foreign_keys=ON")
        return db

    def close(self) -> None:
        with self.wlock:
            self.wdb.close()
        with self.lock:
            self.db.close()

    def forget(self, table_id: str) -> None:
        """Drop the count of a table's events this store keeps (it reads it again at the next write)."""
        with self.wlock:
            self._next_seq.pop(table_id, None)

    @property
    def journal_mode(self) -> str:
        row = self.db.execute("PRAGMA journal_mode").fetchone()
        return str(row[0])

    # -- tables and seats ------------------------------------------------------

    def create_table(self, table_id: str, setup: dict[str, Any], seats: Sequence[SeatRow]) -> None:
        self.commit(Batch(table_id, seats=list(seats), create=setup))

    def save_seat(self, table_id: str, row: SeatRow) -> None:
        self.commit(Batch(table_id, seats=[row]))

    def mark_over(self, table_id: str) -> None:
        self.commit(Batch(table_id, over=True))

    def is_over(self, table_id: str) -> bool:
        with self.lock:
            row = self.db.execute("SELECT over FROM tables WHERE id = ?", (table_id,)).fetchone()
        return row is not None and bool(row[0])

    def table_ids(self, *, include_over: bool = True) -> list[str]:
        sql = "SELECT id FROM tables" + ("" if include_over else " WHERE over = 0") + " ORDER BY created"
        with self.lock:
            return [str(r[0]) for r in self.db.execute(sql).fetchall()]

    def table_index(self) -> list[TableEntry]:
        """Every stored table, oldest first: whether it is over, and when it last changed."""
        with self.lock:
            rows = self.db.execute(
                "SELECT t.id, t.over, MAX(t.created, COALESCE((SELECT MAX(e.at) FROM events e "
                "WHERE e.table_id = t.id), 0)) FROM tables t ORDER BY t.created").fetchall()
        return [TableEntry(str(r[0]), bool(r[1]), float(r[2])) for r in rows]

    def load_setup(self, table_id: str) -> dict[str, Any] | None:
        with self.lock:
            row = self.db.execute("SELECT setup FROM tables WHERE id = ?", (table_id,)).fetchone()
        if row is None:
            return None
        setup = json.loads(row[0])  # ValueError (or RecursionError) when it is not JSON
        if not isinstance(setup, dict):
            raise ValueError("the stored setup is not a JSON object")  # not "no such table"
        return setup

    def origin(self, table_id: str) -> tuple[float, str | None]:
        """When a table was made, and the table it is a rematch of (None: a first game, or no such table)."""
        with self.lock:
            row = self.db.execute("SELECT created, setup FROM tables WHERE id = ?", (table_id,)).fetchone()
        if row is None:
            return 0.0, None
        try:
            of = json.loads(row[1]).get("rematch_of")
        except (ValueError, AttributeError, RecursionError):  # a damaged setup: still listed, as a first game
            of = None
        return float(row[0]), of if isinstance(of, str) else None

    def load_seats(self, table_id: str) -> list[SeatRow]:
        with self.lock:
            rows = self.db.execute("SELECT seat, name, token, kind, level, claimed, player, access, client "
                                   "FROM seats WHERE table_id = ? ORDER BY seat", (table_id,)).fetchall()
        return [SeatRow(int(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4]), bool(r[5]), str(r[6]),
                        str(r[7]), str(r[8])) for r in rows]

    def table_flags(self, table_id: str) -> tuple[bool, int]:
        """Whether a table is private, and its creator's seat (-1: none, as for every older table)."""
        with self.lock:
            row = self.db.execute("SELECT private, creator FROM tables WHERE id = ?", (table_id,)).fetchone()
        return (False, -1) if row is None else (bool(row[0]), int(row[1]))

    def tables_of_player(self, player_id: str) -> list[str]:
        """The tables where a profile holds a seat, oldest first."""
        with self.lock:
            rows = self.db.execute("SELECT DISTINCT s.table_id FROM seats s JOIN tables t "
                                   "ON t.id = s.table_id WHERE s.player = ? ORDER BY t.created",
                                   (player_id,)).fetchall()
        return [str(r[0]) for r in rows]

    # -- events ------------------------------------------------------------------

    def append_event(self, table_id: str, kind: str, data: dict[str, Any]) -> int:
        """Store one deal or action at once and return its sequence number."""
        return self.commit(Batch(table_id, events=[(kind, data)]))[0]

    def events(self, table_id: str) -> list[Event]:
        with self.lock:
            rows = self.db.execute("SELECT seq, kind, data, at FROM events WHERE table_id = ? ORDER BY seq",
                                   (table_id,)).fetchall()
        return [event_of(r) for r in rows]

    def last_change(self, table_id: str) -> float | None:
        """When the table last changed (its last event, or its creation); None if there is no such table."""
        with self.lock:
            row = self.db.execute("SELECT MAX(t.created, COALESCE(MAX(e.at), 0)) FROM tables t "
                                  "LEFT JOIN events e ON e.table_id = t.id WHERE t.id = ? GROUP BY t.id",
                                  (table_id,)).fetchone()
        return None if row is None else float(row[0])

    # -- score sheets ----------------------------------------------------------------

    def load_sheet(self, sheet_id: str) -> SheetRow | None:
        with self.lock:
            row = self.db.execute("SELECT id, token, doc, version FROM sheets WHERE id = ?",
                                  (sheet_id,)).fetchone()
        return None if row is None else SheetRow(str(row[0]), str(row[1]), str(row[2]), int(row[3]))

    def sheet_entry(self, sheet_id: str, entry: str) -> int | None:
        """The version a client's entry made, if it is stored (a resend of it changes nothing)."""
        with self.lock:
            row = self.db.execute("SELECT version FROM sheet_entries WHERE sheet_id = ? AND entry = ?",
                                  (sheet_id, entry)).fetchone()
        return None if row is None else int(row[0])

    def sheet_history(self, sheet_id: str) -> list[dict[str, Any]]:
        """Every stored change of a sheet, oldest first."""
        with self.lock:
            rows = self.db.execute("SELECT op FROM sheet_entries WHERE sheet_id = ? ORDER BY version",
                                   (sheet_id,)).fetchall()
        return [json.loads(r[0]) for r in rows]

    # -- one change, whole or not at all ---------------------------------------------

    # -- profiles --------------------------------------------------------------------------

    def load_player(self, player_id: str) -> PlayerRow | None:
        return self._player("id = ?", player_id)

    def player_named(self, name_key: str) -> PlayerRow | None:
        return self._player("name_key = ?", name_key)

    def _player(self, where: str, value: str) -> PlayerRow | None:
        with self.lock:
            row = self.db.execute(f"SELECT id, name, name_key, password FROM players WHERE {where}",
                                  (value,)).fetchone()
            if row is None:
                return None
            keys = self.db.execute("SELECT salt, hash FROM player_keys WHERE player_id = ?",
                                   (row[0],)).fetchall()
        return PlayerRow(str(row[0]), str(row[1]), str(row[2]), str(row[3]),
                         tuple((str(k[0]), str(k[1])) for k in keys))

    def devices_of(self, player_id: str) -> list[DeviceRow]:
        with self.lock:
            rows = self.db.execute("SELECT hash, created, seen, how FROM player_keys WHERE player_id = ? "
                                   "ORDER BY created, hash", (player_id,)).fetchall()
        return [DeviceRow(str(r[0]), float(r[1]), float(r[2]), str(r[3])) for r in rows]

    # -- ratings ---------------------------------------------------------------------------

    def leaderboard(self, ruleset: str, limit: int) -> list[RatingRow]:
        """The rated profiles of a rule set, best conservative rating (μ − 3σ) first."""
        with self.lock:
            rows = self.db.execute(
                "SELECT r.player_id, p.name, r.ruleset, r.mu, r.sigma, r.games FROM ratings r JOIN players p "
                "ON p.id = r.player_id WHERE r.ruleset = ? AND r.games > 0 "
                "ORDER BY r.mu - 3 * r.sigma DESC, r.games DESC, p.name_key LIMIT ?",
                (ruleset, limit)).fetchall()
        return [rating_row(r) for r in rows]

    def ratings_of(self, player_id: str) -> list[RatingRow]:
        with self.lock:
            rows = self.db.execute(
                "SELECT r.player_id, p.name, r.ruleset, r.mu, r.sigma, r.games FROM ratings r "
                "JOIN players p ON p.id = r.player_id WHERE r.player_id = ? ORDER BY r.ruleset",
                (player_id,)).fetchall()
        return [rating_row(r) for r in rows]

    def rating_history(self, player_id: str, limit: int) -> list[HistoryRow]:
        """A profile's rated games, oldest first (the newest ``limit`` of them)."""
        with self.lock:
            rows = self.db.execute(
                "SELECT table_id, ruleset, seat, place, total, mu_before, sigma_before, mu_after, "
                "sigma_after, contracts, at FROM rating_history WHERE player_id = ? "
                "ORDER BY at DESC, rowid DESC LIMIT ?", (player_id, limit)).fetchall()
        return [history_row(r) for r in reversed(rows)]

    def rated(self, table_id: str) -> bool:
        with self.lock:
            row = self.db.execute("SELECT 1 FROM rated_games WHERE table_id = ?", (table_id,)).fetchone()
        return row is not None

    def transfer(self, code_hash: str) -> tuple[str, float] | None:
        """The profile a transfer code opens, and until when (wall time)."""
        with self.lock:
            row = self.db.execute("SELECT player_id, expires FROM transfers WHERE code_hash = ?",
                                  (code_hash,)).fetchone()
        return None if row is None else (str(row[0]), float(row[1]))

    def commit(self, batch: Batch | SheetBatch | PlayerBatch) -> list[int]:
        """Store a batch in one transaction and return the sequence numbers of its events.

        Any failure (sqlite3.Error: locked by another process, disk full, I/O error) rolls it all
        back and is raised, with the store as it was before.
        """
        with self.wlock:
            try:
                self.wdb.execute("BEGIN IMMEDIATE")
                seqs, more = write_all(self.wdb, SQLITE, batch, self._next_seq)
                self.wdb.execute("COMMIT")
            except BaseException:
                if self.wdb.in_transaction:
                    self.wdb.execute("ROLLBACK")
                raise
            written(self._next_seq, batch, seqs, more)
        return seqs

    def expect_seq(self, table_id: str, seq: int) -> None:
        """Store this table's next event at ``seq`` or not at all: a process that replayed the events
        up to ``seq - 1`` thereby never writes after one it has not seen (the (table, seq) key refuses it)."""
        with self.wlock:
            # A seq already further on was written by this store after the replay that gave ``seq``.
            self._next_seq[table_id] = max(seq, self._next_seq.get(table_id, 0))


def _check_schema(db: sqlite3.Connection) -> None:
    """sqlite3.DatabaseError if a table barbu writes lacks a column (another program's file, say)."""
    for name, wanted in _COLUMNS.items():
        have = {str(r[1]) for r in db.execute(f"PRAGMA table_info({name})").fetchall()}
        missing = sorted(wanted - have) if have else []  # a table not there yet is made
        if missing:
            raise sqlite3.DatabaseError(f"its table {name!r} has no column {missing[0]!r}")


_COLUMNS = {
    "tables": {"id", "created", "setup", "over"},
    "seats": {"table_id", "seat", "name", "token", "kind", "level", "claimed"},
    "events": {"table_id", "seq", "kind", "data", "at"},
    "sheets": {"id", "created", "token", "doc", "version", "updated"},
    "sheet_entries": {"sheet_id", "entry", "version", "op", "at"},
}


class DatabaseInUse(Exception):
    """Another process serves the same database (``pid`` as it wrote it in the lock file, or None)."""

    def __init__(self, path: str, pid: int | None) -> None:
        super().__init__(path)
        self.path = path
        self.pid = pid


class LockFile:
    """The lock file ``DB.lock`` held by this process (see :func:`exclusive`)."""

    def __init__(self, path: str, handle: IO[str], created: bool) -> None:
        self.path = path
        self.handle = handle
        self.created = created  # this process made the file: nobody else had run on this database

    def discard(self) -> None:
        """Remove the file on a start that failed, if this process made it (and, holding it, owns it).

        Removed while still locked: whoever opened it meanwhile finds it gone once it gets the
        lock (see :func:`exclusive`) and starts again on a new file.
        """
        if self.created:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)


@contextlib.contextmanager
def exclusive(db_path: str) -> Iterator[LockFile]:
    """Hold the lock file ``DB.lock`` for as long as the block runs; DatabaseInUse if another has it.

    An OS lock (flock), not the file's existence, says who holds it: the OS lets go of it when the
    holding process ends, however it ends, so a crash never leaves a stale lock behind.
    """
    path = db_path + ".lock"
    while True:
        created = not os.path.exists(path)
        handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - closed below
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            text = handle.read().strip()
            handle.close()
            raise DatabaseInUse(db_path, int(text) if text.isdigit() else None) from None
        if _same_file(path, handle):
            break
        handle.close()  # removed by a failed start while we waited for it: lock the new one
    try:
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        yield LockFile(path, handle, created)
    finally:
        handle.close()


def _same_file(path: str, handle: IO[str]) -> bool:
    """Whether ``path`` still names the file ``handle`` has open."""
    try:
        return os.stat(path).st_ino == os.fstat(handle.fileno()).st_ino
    except FileNotFoundError:
        return False
