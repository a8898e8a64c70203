"""SQLite storage of the web server: tables (setup, seats, deals, actions), score sheets, profiles, ratings.

The database is the server's memory across restarts: a table is rebuilt by replaying its stored
events through the engine. WAL mode keeps each write cheap and a crash harmless. Every change of
a table is one :class:`Batch`, written in one transaction: all of it is stored, or none.

>>> from barbu.web.core.rows import SeatRow
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
import os
import sqlite3
import threading
from collections.abc import Iterator
from typing import IO, Any

from barbu.web.core.ports import TableStore
from barbu.web.core.rows import (
    Batch,
    PlayerBatch,
    SheetBatch,
)
from barbu.web.storage.schema import MIGRATIONS, SCHEMA_VERSION, statements
from barbu.web.storage.shared import Row, SqlStore
from barbu.web.storage.sql import SQLITE, NewerDatabase, write_all, written

# What callers import from here, though defined in core (the rows and the port), schema and sql: kept
# for code written before the rows moved to barbu.web.core; the rooms below storage import core.
__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "NewerDatabase"]


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


class Store(SqlStore):
    """The tables of one server in one SQLite file (or ``:memory:`` for tests)."""

    dialect = SQLITE

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

    @property
    def journal_mode(self) -> str:
        row = self.db.execute("PRAGMA journal_mode").fetchone()
        return str(row[0])

    @property
    def write_lock(self) -> threading.RLock:
        return self.wlock

    def _fetch(self, sql: str, params: tuple[Any, ...]) -> list[Row]:
        with self.lock:
            return self.db.execute(sql, params).fetchall()

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
