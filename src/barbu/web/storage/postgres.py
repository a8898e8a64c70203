"""PostgreSQL storage of the web server: the same tables, batches and answers as the SQLite :class:`Store`.

Several server processes may share one PostgreSQL database. Each batch is one transaction, and the
key (table, seq) of the events keeps a table's history a single line: a process that writes an
event another has already written under that number is refused (an IntegrityError), never forked.

Errors are raised as the standard library's DB-API classes (``sqlite3.IntegrityError``,
``sqlite3.OperationalError``, ``sqlite3.DatabaseError``), the ones the server already catches for
SQLite, so that a refused write means the same whichever database refused it.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import urllib.parse
from collections.abc import Iterator
from typing import Any

import psycopg
import psycopg.errors

from barbu.web.core.rows import Batch, PlayerBatch, SheetBatch
from barbu.web.storage.schema import (
    PG_FIRST_STEP,
    SCHEMA_VERSION,
    STEPS,
    pg_step,
    pg_stored,
    statements,
)
from barbu.web.storage.shared import Row, SqlStore
from barbu.web.storage.sql import POSTGRES, NewerDatabase, write_all, written

Conn = psycopg.Connection[tuple[Any, ...]]  # rows as tuples, as sqlite3 gives them

# The key of the advisory lock that lets one process at a time migrate (the others wait, then find it done).
_MIGRATION_LOCK = 0x6261726275  # "barbu"


def shown(url: str) -> str:
    """The URL without its password, fit for logs and messages."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rsplit("@", 1)[1]
    user = urllib.parse.quote(parts.username or "", safe="")
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


@contextlib.contextmanager
def dbapi_errors() -> Iterator[None]:
    """Raise psycopg's errors as the sqlite3 classes the server catches (see the module's docstring)."""
    try:
        yield
    except psycopg.errors.IntegrityError as e:
        raise sqlite3.IntegrityError(_one_line(e)) from e
    except psycopg.OperationalError as e:
        raise sqlite3.OperationalError(_one_line(e)) from e
    except psycopg.Error as e:
        raise sqlite3.DatabaseError(_one_line(e)) from e


def _one_line(e: BaseException) -> str:
    """libpq's message (often several lines, with a hint) as one line, for logs and error events."""
    return " ".join(str(e).split())


def connect(url: str, timeout: float) -> Conn:
    """A connection in autocommit mode (reads see the last commit); a write waits ``timeout`` for locks."""
    with dbapi_errors():
        conn = psycopg.connect(url, autocommit=True, connect_timeout=max(1, round(timeout)))
        conn.execute("SELECT set_config('lock_timeout', %s, false)", (f"{max(1, round(timeout * 1000))}ms",))
    return conn


def schema_version(conn: Conn) -> int:
    """The step the layout is at (see :mod:`barbu.web.storage.schema`): 0 for one barbu never migrated."""
    row = conn.execute("SELECT to_regclass('barbu_schema') IS NOT NULL").fetchone()
    if row is None or not row[0]:
        return 0
    row = conn.execute("SELECT version FROM barbu_schema").fetchone()
    return 0 if row is None else pg_step(int(row[0]))


def migrate(conn: Conn) -> tuple[int, int]:
    """Bring a database up to :data:`SCHEMA_VERSION`, each step in one transaction: (found, left) versions.

    Processes starting at once take turns (an advisory lock, held by the session, so that each one
    reads the layout only once the one before has committed it); a database made by a newer barbu is
    refused (:class:`NewerDatabase`) and left alone.
    """
    with dbapi_errors():
        conn.execute("SELECT pg_advisory_lock(%s)", (_MIGRATION_LOCK,))
        try:
            found = schema_version(conn)
            if found > SCHEMA_VERSION:
                raise NewerDatabase(f"its layout is version {found}, newer than this barbu's "
                                    f"{SCHEMA_VERSION}")
            for step in range(max(found, PG_FIRST_STEP - 1), SCHEMA_VERSION):
                with conn.transaction():
                    _run_step(conn, step + 1)
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_MIGRATION_LOCK,))
    return found, SCHEMA_VERSION


def _run_step(conn: Conn, step: int) -> None:
    """Run step ``step`` (counted from 1); the first of PostgreSQL's also makes the table of its version."""
    script = STEPS[step - 1].postgres
    if script is None:
        raise ValueError(f"step {step} has no PostgreSQL script: it is made by step {PG_FIRST_STEP}")
    if step == PG_FIRST_STEP:
        conn.execute("CREATE TABLE barbu_schema (version INTEGER NOT NULL)")
        conn.execute("INSERT INTO barbu_schema (version) VALUES (0)")
    for statement in statements(script):
        conn.execute(statement)  # a script of ours, without parameters
    conn.execute("UPDATE barbu_schema SET version = %s", (pg_stored(step),))


class _Link:
    """One thread's connection and its lock, made again when the server lost it (PostgreSQL restarted)."""

    def __init__(self, url: str, timeout: float) -> None:
        self.url = url
        self.timeout = timeout
        self.lock = threading.RLock()
        self.conn = connect(url, timeout)

    def get(self) -> Conn:
        if self.conn.closed or self.conn.broken:
            self.conn = connect(self.url, self.timeout)
        return self.conn

    def close(self) -> None:
        with self.lock:
            self.conn.close()


class PgStore(SqlStore):
    """The tables of one site in one PostgreSQL database, which any number of server processes may share."""

    dialect = POSTGRES

    def __init__(self, url: str, *, timeout: float = 5.0) -> None:
        self.url = url
        self.path = shown(url)
        # As with SQLite: the writer thread and the event loop's reads each have their connection,
        # so that a write waiting on a lock never holds up a read.
        self.reader = _Link(url, timeout)
        try:
            migrate(self.reader.conn)
            self.writer = _Link(url, timeout)
        except BaseException:
            self.reader.close()
            raise
        # The next event number of each table this process wrote, kept after a refused write: then
        # another process wrote that number, this one's view of the table is stale, and each later
        # write of the table must fail too, until it is loaded afresh (see :meth:`forget`).
        self._next_seq: dict[str, int] = {}

    def close(self) -> None:
        self.writer.close()
        self.reader.close()

    @property
    def write_lock(self) -> threading.RLock:
        return self.writer.lock

    def _fetch(self, sql: str, params: tuple[Any, ...]) -> list[Row]:
        if any(isinstance(p, str) and "\x00" in p for p in params):
            # PostgreSQL's text holds no NUL, so no stored key has one: every read looks up by key.
            return []
        with self.reader.lock, dbapi_errors():
            conn = self.reader.get()
            try:
                return conn.execute(sql, params).fetchall()
            except psycopg.OperationalError:
                if not conn.broken:
                    raise
            # The server dropped the connection (restarted, or the link cut): a read may be asked again.
            return self.reader.get().execute(sql, params).fetchall()

    def commit(self, batch: Batch | SheetBatch | PlayerBatch) -> list[int]:
        """Store a batch in one transaction and return the sequence numbers of its events.

        Any failure (another process wrote the same event number, a lock waited on too long, the
        connection lost) rolls it all back and is raised as a sqlite3.Error, the store unchanged.
        """
        with self.writer.lock, dbapi_errors():
            conn = self.writer.get()
            with conn.transaction():
                seqs, more = write_all(conn, POSTGRES, batch, self._next_seq)
            written(self._next_seq, batch, seqs, more)
        return seqs
