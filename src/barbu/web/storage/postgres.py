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
import json
import sqlite3
import threading
import urllib.parse
from collections.abc import Iterator, Sequence
from typing import Any

import psycopg
import psycopg.errors

from barbu.web.storage.schema import (
    PG_FIRST_STEP,
    SCHEMA_VERSION,
    STEPS,
    pg_step,
    pg_stored,
    statements,
)
from barbu.web.storage.sql import (
    POSTGRES,
    Batch,
    DeviceRow,
    Event,
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


class PgStore:
    """The tables of one site in one PostgreSQL database, which any number of server processes may share."""

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

    def forget(self, table_id: str) -> None:
        """Drop this process's count of a table's events: another process may have written some since."""
        with self.writer.lock:
            self._next_seq.pop(table_id, None)

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
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

    def _row(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        rows = self._rows(sql, params)
        return rows[0] if rows else None

    # -- tables and seats ------------------------------------------------------

    def create_table(self, table_id: str, setup: dict[str, Any], seats: Sequence[SeatRow]) -> None:
        self.commit(Batch(table_id, seats=list(seats), create=setup))

    def save_seat(self, table_id: str, row: SeatRow) -> None:
        self.commit(Batch(table_id, seats=[row]))

    def mark_over(self, table_id: str) -> None:
        self.commit(Batch(table_id, over=True))

    def is_over(self, table_id: str) -> bool:
        row = self._row("SELECT over FROM tables WHERE id = %s", (table_id,))
        return row is not None and bool(row[0])

    def table_ids(self, *, include_over: bool = True) -> list[str]:
        rows = self._rows("SELECT id FROM tables WHERE over = 0 OR %s ORDER BY created, id", (include_over,))
        return [str(r[0]) for r in rows]

    def table_index(self) -> list[TableEntry]:
        """Every stored table, oldest first: whether it is over, and when it last changed."""
        rows = self._rows(
            "SELECT t.id, t.over, GREATEST(t.created, COALESCE((SELECT MAX(e.at) FROM events e "
            "WHERE e.table_id = t.id), 0)) FROM tables t ORDER BY t.created, t.id")
        return [TableEntry(str(r[0]), bool(r[1]), float(r[2])) for r in rows]

    def load_setup(self, table_id: str) -> dict[str, Any] | None:
        row = self._row("SELECT setup FROM tables WHERE id = %s", (table_id,))
        if row is None:
            return None
        setup = json.loads(row[0])  # ValueError (or RecursionError) when it is not JSON
        if not isinstance(setup, dict):
            raise ValueError("the stored setup is not a JSON object")
        return setup

    def origin(self, table_id: str) -> tuple[float, str | None]:
        """When a table was made, and the table it is a rematch of (None: a first game, or no such table)."""
        row = self._row("SELECT created, setup FROM tables WHERE id = %s", (table_id,))
        if row is None:
            return 0.0, None
        try:
            of = json.loads(row[1]).get("rematch_of")
        except (ValueError, AttributeError, RecursionError):
            of = None
        return float(row[0]), of if isinstance(of, str) else None

    def load_seats(self, table_id: str) -> list[SeatRow]:
        rows = self._rows("SELECT seat, name, token, kind, level, claimed, player, access, client "
                          "FROM seats WHERE table_id = %s ORDER BY seat", (table_id,))
        return [SeatRow(int(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4]), bool(r[5]), str(r[6]),
                        str(r[7]), str(r[8])) for r in rows]

    def table_flags(self, table_id: str) -> tuple[bool, int]:
        """Whether a table is private, and its creator's seat (-1: none)."""
        row = self._row("SELECT private, creator FROM tables WHERE id = %s", (table_id,))
        return (False, -1) if row is None else (bool(row[0]), int(row[1]))

    def tables_of_player(self, player_id: str) -> list[str]:
        """The tables where a profile holds a seat, oldest first."""
        rows = self._rows("SELECT t.id FROM tables t WHERE EXISTS (SELECT 1 FROM seats s "
                          "WHERE s.table_id = t.id AND s.player = %s) ORDER BY t.created, t.id", (player_id,))
        return [str(r[0]) for r in rows]

    # -- events ------------------------------------------------------------------

    def append_event(self, table_id: str, kind: str, data: dict[str, Any]) -> int:
        """Store one deal or action at once and return its sequence number."""
        return self.commit(Batch(table_id, events=[(kind, data)]))[0]

    def events(self, table_id: str) -> list[Event]:
        rows = self._rows("SELECT seq, kind, data, at FROM events WHERE table_id = %s ORDER BY seq",
                          (table_id,))
        return [event_of(r) for r in rows]

    def last_change(self, table_id: str) -> float | None:
        """When the table last changed (its last event, or its creation); None if there is no such table."""
        row = self._row("SELECT GREATEST(t.created, COALESCE(MAX(e.at), 0)) FROM tables t "
                        "LEFT JOIN events e ON e.table_id = t.id WHERE t.id = %s GROUP BY t.id", (table_id,))
        return None if row is None else float(row[0])

    # -- score sheets ----------------------------------------------------------------

    def load_sheet(self, sheet_id: str) -> SheetRow | None:
        row = self._row("SELECT id, token, doc, version FROM sheets WHERE id = %s", (sheet_id,))
        return None if row is None else SheetRow(str(row[0]), str(row[1]), str(row[2]), int(row[3]))

    def sheet_entry(self, sheet_id: str, entry: str) -> int | None:
        """The version a client's entry made, if it is stored (a resend of it changes nothing)."""
        row = self._row("SELECT version FROM sheet_entries WHERE sheet_id = %s AND entry = %s",
                        (sheet_id, entry))
        return None if row is None else int(row[0])

    def sheet_history(self, sheet_id: str) -> list[dict[str, Any]]:
        """Every stored change of a sheet, oldest first."""
        rows = self._rows("SELECT op FROM sheet_entries WHERE sheet_id = %s ORDER BY version", (sheet_id,))
        return [json.loads(r[0]) for r in rows]

    # -- profiles --------------------------------------------------------------------------

    def load_player(self, player_id: str) -> PlayerRow | None:
        return self._player(self._row("SELECT id, name, name_key, password FROM players WHERE id = %s",
                                      (player_id,)))

    def player_named(self, name_key: str) -> PlayerRow | None:
        return self._player(self._row("SELECT id, name, name_key, password FROM players WHERE name_key = %s",
                                      (name_key,)))

    def _player(self, row: tuple[Any, ...] | None) -> PlayerRow | None:
        if row is None:
            return None
        # In the order SQLite gives them (by its key's index): the same answer from both databases.
        keys = self._rows("SELECT salt, hash FROM player_keys WHERE player_id = %s "
                          "ORDER BY hash COLLATE \"C\"", (row[0],))
        return PlayerRow(str(row[0]), str(row[1]), str(row[2]), str(row[3]),
                         tuple((str(k[0]), str(k[1])) for k in keys))

    def devices_of(self, player_id: str) -> list[DeviceRow]:
        rows = self._rows("SELECT hash, created, seen, how FROM player_keys WHERE player_id = %s "
                          "ORDER BY created, hash COLLATE \"C\"", (player_id,))
        return [DeviceRow(str(r[0]), float(r[1]), float(r[2]), str(r[3])) for r in rows]

    # -- ratings ---------------------------------------------------------------------------

    def leaderboard(self, ruleset: str, limit: int) -> list[RatingRow]:
        """The rated profiles of a rule set, best conservative rating (μ − 3σ) first."""
        rows = self._rows(
            "SELECT r.player_id, p.name, r.ruleset, r.mu, r.sigma, r.games FROM ratings r JOIN players p "
            "ON p.id = r.player_id WHERE r.ruleset = %s AND r.games > 0 "
            "ORDER BY r.mu - 3 * r.sigma DESC, r.games DESC, p.name_key COLLATE \"C\" LIMIT %s",
            (ruleset, limit))
        return [rating_row(r) for r in rows]

    def ratings_of(self, player_id: str) -> list[RatingRow]:
        rows = self._rows(
            "SELECT r.player_id, p.name, r.ruleset, r.mu, r.sigma, r.games FROM ratings r "
            "JOIN players p ON p.id = r.player_id WHERE r.player_id = %s ORDER BY r.ruleset COLLATE \"C\"",
            (player_id,))
        return [rating_row(r) for r in rows]

    def rating_history(self, player_id: str, limit: int) -> list[HistoryRow]:
        """A profile's rated games, oldest first (the newest ``limit`` of them)."""
        rows = self._rows(
            "SELECT table_id, ruleset, seat, place, total, mu_before, sigma_before, mu_after, "
            "sigma_after, contracts, at FROM rating_history WHERE player_id = %s "
            "ORDER BY at DESC, n DESC LIMIT %s", (player_id, limit))
        return [history_row(r) for r in reversed(rows)]

    def rated(self, table_id: str) -> bool:
        return self._row("SELECT 1 FROM rated_games WHERE table_id = %s", (table_id,)) is not None

    def transfer(self, code_hash: str) -> tuple[str, float] | None:
        """The profile a transfer code opens, and until when (wall time)."""
        row = self._row("SELECT player_id, expires FROM transfers WHERE code_hash = %s", (code_hash,))
        return None if row is None else (str(row[0]), float(row[1]))

    # -- one change, whole or not at all ---------------------------------------------

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

    def expect_seq(self, table_id: str, seq: int) -> None:
        """Store this table's next event at ``seq`` or not at all (see ``Store.expect_seq``)."""
        with self.writer.lock:
            self._next_seq[table_id] = max(seq, self._next_seq.get(table_id, 0))
