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
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, Protocol

from barbu.web.ratings import PERSON, Skill, rate_game

# The layout of release 0.1.0, the first step of every database: a new one is made by the steps in order.
_SCHEMA_0_1 = """
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
CREATE TABLE IF NOT EXISTS sheets (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    token TEXT NOT NULL,
    doc TEXT NOT NULL,
    version INTEGER NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS sheet_entries (
    sheet_id TEXT NOT NULL REFERENCES sheets(id),
    entry TEXT NOT NULL,
    version INTEGER NOT NULL,
    op TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (sheet_id, entry)
);
"""

# Profiles, seats tied to them, friends' seats and private tables. Every older row keeps its meaning:
# a seat of 0.1.0 is open to anyone, tied to no profile; a table is public, its creator unknown.
_PROFILES = """
ALTER TABLE tables ADD COLUMN private INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tables ADD COLUMN creator INTEGER NOT NULL DEFAULT -1;
ALTER TABLE seats ADD COLUMN player TEXT NOT NULL DEFAULT '';
ALTER TABLE seats ADD COLUMN access TEXT NOT NULL DEFAULT 'open';
CREATE INDEX seats_by_player ON seats(player) WHERE player != '';
CREATE TABLE players (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,
    created REAL NOT NULL,
    password TEXT NOT NULL DEFAULT ''
);
CREATE TABLE player_keys (
    player_id TEXT NOT NULL REFERENCES players(id),
    salt TEXT NOT NULL,
    hash TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (player_id, hash)
);
CREATE TABLE transfers (
    code_hash TEXT PRIMARY KEY,
    player_id TEXT NOT NULL REFERENCES players(id),
    expires REAL NOT NULL
);
"""

# Ratings: each profile's skill per rule set, and one row per rated game and person (the history
# the player's page draws). ``rated_games`` says a finished table was rated: never twice.
_RATINGS = """
CREATE TABLE ratings (
    player_id TEXT NOT NULL REFERENCES players(id),
    ruleset TEXT NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    games INTEGER NOT NULL,
    updated REAL NOT NULL,
    PRIMARY KEY (player_id, ruleset)
);
CREATE TABLE rated_games (
    table_id TEXT PRIMARY KEY REFERENCES tables(id),
    ruleset TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE TABLE rating_history (
    table_id TEXT NOT NULL REFERENCES rated_games(table_id),
    player_id TEXT NOT NULL REFERENCES players(id),
    ruleset TEXT NOT NULL,
    seat INTEGER NOT NULL,
    place INTEGER NOT NULL,
    total INTEGER NOT NULL,
    mu_before REAL NOT NULL,
    sigma_before REAL NOT NULL,
    mu_after REAL NOT NULL,
    sigma_after REAL NOT NULL,
    contracts TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (table_id, player_id)
);
CREATE INDEX rating_history_by_player ON rating_history(player_id, at);
CREATE INDEX ratings_by_ruleset ON ratings(ruleset, games);
"""

# Devices: how each key of a profile came (made, transfer, password; "" before this step) and when
# it was last seen, for the list its owner may sign devices out of.
_DEVICES = """
ALTER TABLE player_keys ADD COLUMN how TEXT NOT NULL DEFAULT '';
ALTER TABLE player_keys ADD COLUMN seen REAL NOT NULL DEFAULT 0;
CREATE INDEX transfers_by_player ON transfers(player_id, expires);
"""

# The browser that took each seat (a digest of its client id), so that it holds one seat of a table.
_CLIENTS = """
ALTER TABLE seats ADD COLUMN client TEXT NOT NULL DEFAULT '';
"""

# The migrations, in order: a database at version k (PRAGMA user_version) runs the steps after k.
MIGRATIONS = (_SCHEMA_0_1, _PROFILES, _RATINGS, _DEVICES, _CLIENTS)
SCHEMA_VERSION = len(MIGRATIONS)


class NewerDatabase(sqlite3.DatabaseError):
    """The database was made by a newer barbu: this one does not know its layout and leaves it alone."""


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
            for statement in _statements(MIGRATIONS[step]):
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {step + 1}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    return SCHEMA_VERSION - version


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


@dataclass
class SeatRow:
    """One seat as stored: who sits there and whether a person or a computer plays it."""

    seat: int
    name: str
    token: str  # the secret of the seat's invitation link
    kind: str  # "human" or "bot"
    level: str  # bot level when kind is "bot", or the level that took over an idle human
    claimed: bool  # a person has taken the seat (by its link or from the lobby)
    player: str = ""  # the profile the seat is tied to ("" for none)
    access: str = "open"  # "open": anyone may take it from the lobby; "friend": only with its link
    client: str = ""  # a digest of the browser's client id that took the seat ("" for none: clientid.py)


@dataclass(frozen=True)
class TableEntry:
    """A stored table as the start-up sees it before rebuilding it."""

    id: str
    over: bool
    last_change: float  # wall time of its last event, or of its creation


@dataclass(frozen=True)
class Event:
    """One stored step of a table: a deal or an action (``problem``: why its data cannot be read)."""

    seq: int
    kind: str
    data: dict[str, Any]
    at: float = 0.0
    problem: str | None = None


@dataclass(frozen=True)
class GameResult:
    """A finished game to rate: who sat where ("person:ID", "computer:LEVEL" or "" for a newcomer
    who is not stored), each seat's place and total, and per seat each contract's (sum, hands)."""

    ruleset: str
    entrants: tuple[str, ...]
    places: tuple[int, ...]
    totals: tuple[int, ...]
    contracts: tuple[dict[str, tuple[int, int]], ...]


@dataclass(frozen=True)
class RatingRow:
    """A stored rating: a profile's skill under a rule set and how many rated games made it."""

    player_id: str
    name: str
    ruleset: str
    mu: float
    sigma: float
    games: int


@dataclass(frozen=True)
class HistoryRow:
    """One rated game of one profile: where and when, its place and total, its skill before and after."""

    table_id: str
    ruleset: str
    seat: int
    place: int
    total: int
    before: tuple[float, float]
    after: tuple[float, float]
    contracts: dict[str, tuple[int, int]]
    at: float


@dataclass
class Batch:
    """One change of one table, stored in one transaction: new events, seats, the end of the game."""

    table_id: str
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    seats: list[SeatRow] = field(default_factory=list)
    over: bool = False
    create: dict[str, Any] | None = None  # the setup of a new table (its seats are in ``seats``)
    private: bool = False  # a new table left out of the lobby's list
    creator: int = -1  # a new table's seat of its creator (-1: none)
    also: list[Batch] = field(default_factory=list)  # more tables' changes in one transaction (rematch)
    result: GameResult | None = None  # the game this change ends, rated in the same transaction

    def __bool__(self) -> bool:
        return bool(self.events or self.seats or self.over or self.create is not None or self.also)


@dataclass
class SheetBatch:
    """One change of a score sheet, in one transaction: the whole new document and the entry that made it.

    ``entry`` is the client's id of the change: stored with it, so that a resend is known as one.
    ``token`` is set only for a new sheet. ``op`` is what was asked (kept as the sheet's history).
    """

    sheet_id: str
    doc: dict[str, Any]
    version: int
    entry: str | None = None
    op: dict[str, Any] = field(default_factory=dict)
    token: str | None = None

    def __bool__(self) -> bool:
        return True


@dataclass
class PlayerBatch:
    """One change of a profile, in one transaction: made, a device's key added, a code given or used."""

    player_id: str
    create: tuple[str, str] | None = None  # a new profile's name and its case-folded key
    keys: list[tuple[str, str]] = field(default_factory=list)  # (salt, hash) of a device's secret
    password: str | None = None  # the password's argon2 hash ("" removes it)
    transfer: tuple[str, float] | None = None  # a new transfer code's hash and its expiry (wall time)
    used_transfer: str | None = None  # the hash of a transfer code now used up
    how: str = ""  # how the new keys came: "made", "transfer" or "password"
    max_keys: int = 0  # keys the profile keeps at most, the least recently seen dropped (0: no cap)
    live_codes: int = 0  # transfer codes the profile keeps at most, the oldest dropped (0: no cap)
    drop_keys: list[str] = field(default_factory=list)  # hashes of keys signed out
    keep_only: str | None = None  # sign out every key but this hash's ("" signs out none)
    seen: tuple[str, float] | None = None  # the hash of a key seen, and when (wall time)

    def __bool__(self) -> bool:
        return True


@dataclass(frozen=True)
class PlayerRow:
    """A stored profile: its id (what ratings will hang on), name, password hash and device keys."""

    id: str
    name: str
    name_key: str
    password: str  # argon2 hash, or "" for a profile without a password
    keys: tuple[tuple[str, str], ...]  # (salt, sha-256 of salt and secret), one per device


@dataclass(frozen=True)
class DeviceRow:
    """One device's key of a profile: its hash, when it was made and last seen, and how it came."""

    hash: str
    created: float
    seen: float  # 0 until first noted
    how: str  # "made", "transfer", "password", or "" for a key older than the list of devices


@dataclass(frozen=True)
class SheetRow:
    """A stored score sheet: its write secret, its document (as text) and how many changes made it."""

    id: str
    token: str
    doc: str
    version: int


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
        from barbu.web.pgstore import PgStore

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
        return [_event(r) for r in rows]

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
        return [_rating_row(r) for r in rows]

    def ratings_of(self, player_id: str) -> list[RatingRow]:
        with self.lock:
            rows = self.db.execute(
                "SELECT r.player_id, p.name, r.ruleset, r.mu, r.sigma, r.games FROM ratings r "
                "JOIN players p ON p.id = r.player_id WHERE r.player_id = ? ORDER BY r.ruleset",
                (player_id,)).fetchall()
        return [_rating_row(r) for r in rows]

    def rating_history(self, player_id: str, limit: int) -> list[HistoryRow]:
        """A profile's rated games, oldest first (the newest ``limit`` of them)."""
        with self.lock:
            rows = self.db.execute(
                "SELECT table_id, ruleset, seat, place, total, mu_before, sigma_before, mu_after, "
                "sigma_after, contracts, at FROM rating_history WHERE player_id = ? "
                "ORDER BY at DESC, rowid DESC LIMIT ?", (player_id, limit)).fetchall()
        return [_history_row(r) for r in reversed(rows)]

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
                seqs = self._write(self.wdb, batch)
                also = batch.also if isinstance(batch, Batch) else []
                more = [(b.table_id, self._write(self.wdb, b)) for b in also]
                self.wdb.execute("COMMIT")
            except BaseException:
                if self.wdb.in_transaction:
                    self.wdb.execute("ROLLBACK")
                raise
            if seqs and isinstance(batch, Batch):
                self._next_seq[batch.table_id] = seqs[-1] + 1
            for table_id, written in more:
                if written:
                    self._next_seq[table_id] = written[-1] + 1
        return seqs

    def _write(self, db: sqlite3.Connection, batch: Batch | SheetBatch | PlayerBatch) -> list[int]:
        if isinstance(batch, SheetBatch):
            _write_sheet(db, batch)
            return []
        if isinstance(batch, PlayerBatch):
            _write_player(db, batch)
            return []
        tid = batch.table_id
        if batch.create is not None:
            db.execute("INSERT INTO tables (id, created, setup, private, creator) VALUES (?, ?, ?, ?, ?)",
                       (tid, time.time(), json.dumps(batch.create), int(batch.private), batch.creator))
            db.executemany(
                "INSERT INTO seats (table_id, seat, name, token, kind, level, claimed, player, access, "
                "client) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(tid, s.seat, s.name, s.token, s.kind, s.level, int(s.claimed), s.player, s.access,
                  s.client) for s in batch.seats])
        else:
            for row in batch.seats:
                db.execute("UPDATE seats SET name = ?, token = ?, kind = ?, level = ?, claimed = ?, "
                           "player = ?, access = ?, client = ? WHERE table_id = ? AND seat = ?",
                           (row.name, row.token, row.kind, row.level, int(row.claimed), row.player,
                            row.access, row.client, tid, row.seat))
        seq = 1 if batch.create is not None else self._seq_after(db, tid)
        seqs = []
        for kind, data in batch.events:
            db.execute("INSERT INTO events (table_id, seq, kind, data, at) VALUES (?, ?, ?, ?, ?)",
                       (tid, seq, kind, json.dumps(data), time.time()))
            seqs.append(seq)
            seq += 1
        if batch.over:
            db.execute("UPDATE tables SET over = 1 WHERE id = ?", (tid,))
        if batch.result is not None:
            _write_rating(db, tid, batch.result)
        return seqs

    def expect_seq(self, table_id: str, seq: int) -> None:
        """Store this table's next event at ``seq`` or not at all: a process that replayed the events
        up to ``seq - 1`` thereby never writes after one it has not seen (the (table, seq) key refuses it)."""
        with self.wlock:
            # A seq already further on was written by this store after the replay that gave ``seq``.
            self._next_seq[table_id] = max(seq, self._next_seq.get(table_id, 0))

    def _seq_after(self, db: sqlite3.Connection, table_id: str) -> int:
        seq = self._next_seq.get(table_id)
        if seq is None:
            row = db.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE table_id = ?",
                             (table_id,)).fetchone()
            seq = int(row[0]) + 1
        return seq


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


def _write_sheet(db: sqlite3.Connection, b: SheetBatch) -> None:
    now, doc = time.time(), json.dumps(b.doc, ensure_ascii=False)
    if b.token is not None:
        db.execute("INSERT INTO sheets (id, created, token, doc, version, updated) VALUES (?, ?, ?, ?, ?, ?)",
                   (b.sheet_id, now, b.token, doc, b.version, now))
    else:
        # Only on top of the version it was planned on: a change never lands on a state it did not see.
        cur = db.execute("UPDATE sheets SET doc = ?, version = ?, updated = ? WHERE id = ? AND version = ?",
                         (doc, b.version, now, b.sheet_id, b.version - 1))
        if cur.rowcount != 1:
            raise sqlite3.IntegrityError(f"sheet {b.sheet_id} is not at version {b.version - 1}")
    if b.entry is not None:
        db.execute("INSERT INTO sheet_entries (sheet_id, entry, version, op, at) VALUES (?, ?, ?, ?, ?)",
                   (b.sheet_id, b.entry, b.version, json.dumps(b.op, ensure_ascii=False), now))


def _write_player(db: sqlite3.Connection, b: PlayerBatch) -> None:
    now = time.time()
    if b.create is not None:
        db.execute("INSERT INTO players (id, name, name_key, created) VALUES (?, ?, ?, ?)",
                   (b.player_id, b.create[0], b.create[1], now))
    if b.password is not None:
        db.execute("UPDATE players SET password = ? WHERE id = ?", (b.password, b.player_id))
    if b.keep_only is not None:
        db.execute("DELETE FROM player_keys WHERE player_id = ? AND hash != ?", (b.player_id, b.keep_only))
    for gone in b.drop_keys:
        db.execute("DELETE FROM player_keys WHERE player_id = ? AND hash = ?", (b.player_id, gone))
    if b.seen is not None:
        db.execute("UPDATE player_keys SET seen = ? WHERE player_id = ? AND hash = ?",
                   (b.seen[1], b.player_id, b.seen[0]))
    for salt, digest in b.keys:
        db.execute("INSERT INTO player_keys (player_id, salt, hash, created, how, seen) "
                   "VALUES (?, ?, ?, ?, ?, ?)",
                   (b.player_id, salt, digest, now, b.how, now))
    if b.keys and b.max_keys:  # the least recently seen beyond the cap are signed out
        db.execute("DELETE FROM player_keys WHERE player_id = ? AND hash NOT IN (SELECT hash "
                   "FROM player_keys WHERE player_id = ? ORDER BY MAX(seen, created) DESC, hash LIMIT ?)",
                   (b.player_id, b.player_id, b.max_keys))
    db.execute("DELETE FROM transfers WHERE expires < ?", (now,))
    # Deleted only if still there: a code used twice at once opens the profile once.
    if b.used_transfer is not None and \
            db.execute("DELETE FROM transfers WHERE code_hash = ?", (b.used_transfer,)).rowcount != 1:
        raise sqlite3.IntegrityError("this transfer code was used already")
    if b.transfer is not None:
        db.execute("INSERT INTO transfers (code_hash, player_id, expires) VALUES (?, ?, ?)",
                   (b.transfer[0], b.player_id, b.transfer[1]))
    if b.transfer is not None and b.live_codes:  # a new code replaces the oldest beyond the cap
        db.execute("DELETE FROM transfers WHERE player_id = ? AND code_hash NOT IN (SELECT code_hash FROM "
                   "transfers WHERE player_id = ? ORDER BY expires DESC, code_hash LIMIT ?)",
                   (b.player_id, b.player_id, b.live_codes))


def _write_rating(db: sqlite3.Connection, table_id: str, result: GameResult) -> None:
    """Rate a finished game inside its final action's transaction, once: a table already rated is left."""
    if db.execute("SELECT 1 FROM rated_games WHERE table_id = ?", (table_id,)).fetchone() is not None:
        return
    now, rs = time.time(), result.ruleset
    people = {e: _skill(db, e.removeprefix(PERSON), rs) for e in result.entrants if e.startswith(PERSON)}
    newcomers = [e if e else f"newcomer:{s}" for s, e in enumerate(result.entrants)]  # rated, not kept
    after = rate_game(rs, newcomers, result.places, {k: v[0] for k, v in people.items()})
    db.execute("INSERT INTO rated_games (table_id, ruleset, at) VALUES (?, ?, ?)", (table_id, rs, now))
    for seat, entrant in enumerate(result.entrants):
        if entrant not in people:
            continue
        pid, (was, games) = entrant.removeprefix(PERSON), people[entrant]
        new = after[entrant]
        db.execute("INSERT INTO ratings (player_id, ruleset, mu, sigma, games, updated) "
                   "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (player_id, ruleset) DO UPDATE SET "
                   "mu = excluded.mu, sigma = excluded.sigma, games = excluded.games, "
                   "updated = excluded.updated",
                   (pid, rs, new.mu, new.sigma, games + 1, now))
        db.execute("INSERT INTO rating_history (table_id, player_id, ruleset, seat, place, total, mu_before, "
                   "sigma_before, mu_after, sigma_after, contracts, at) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (table_id, pid, rs, seat, result.places[seat], result.totals[seat], was.mu, was.sigma,
                    new.mu, new.sigma, json.dumps(result.contracts[seat], sort_keys=True), now))


def _rating_row(r: tuple[Any, ...]) -> RatingRow:
    return RatingRow(str(r[0]), str(r[1]), str(r[2]), float(r[3]), float(r[4]), int(r[5]))


def _history_row(r: tuple[Any, ...]) -> HistoryRow:
    contracts = {str(k): (int(v[0]), int(v[1])) for k, v in json.loads(r[9]).items()}
    return HistoryRow(str(r[0]), str(r[1]), int(r[2]), int(r[3]), int(r[4]), (float(r[5]), float(r[6])),
                      (float(r[7]), float(r[8])), contracts, float(r[10]))


def _skill(db: sqlite3.Connection, player_id: str, ruleset: str) -> tuple[Skill, int]:
    row = db.execute("SELECT mu, sigma, games FROM ratings WHERE player_id = ? AND ruleset = ?",
                     (player_id, ruleset)).fetchone()
    return (Skill.new(), 0) if row is None else (Skill(float(row[0]), float(row[1])), int(row[2]))


def _event(row: tuple[Any, ...]) -> Event:
    """A stored event; one whose data is not a JSON object says so in ``problem`` instead of raising."""
    seq, kind, text, at = int(row[0]), str(row[1]), row[2], float(row[3])
    try:
        data = json.loads(text)
    except (ValueError, RecursionError, TypeError) as e:
        return Event(seq, kind, {}, at, f"its data is not JSON ({e})")
    if not isinstance(data, dict):
        return Event(seq, kind, {}, at, "its data is not a JSON object")
    return Event(seq, kind, data, at)


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
