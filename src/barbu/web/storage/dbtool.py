"""``barbu db``: bring a database's layout up to date, or copy an SQLite database into PostgreSQL."""

from __future__ import annotations

import argparse
import contextlib
import sqlite3
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from barbu.web.storage import sqlite as sqlite_store
from barbu.web.storage.sqlite import DatabaseInUse, NewerDatabase, exclusive, is_postgres

if TYPE_CHECKING:
    import psycopg

T = TypeVar("T")

HELP = "bring a database's layout up to date, or move an SQLite database into PostgreSQL"

# Every table of the SQLite layout with the columns a move copies, parents before children (the
# foreign keys hold at every row). rating_history is copied in the order it was written: its
# PostgreSQL column ``n`` (SQLite's rowid) numbers the rows anew in that order.
MOVED = {
    "tables": ("id", "created", "setup", "over", "private", "creator"),
    "seats": ("table_id", "seat", "name", "token", "kind", "level", "claimed", "player", "access", "client",
              "invited", "invited_at"),
    "events": ("table_id", "seq", "kind", "data", "at"),
    "sheets": ("id", "created", "token", "doc", "version", "updated"),
    "sheet_entries": ("sheet_id", "entry", "version", "op", "at"),
    "players": ("id", "name", "name_key", "created", "password"),
    "player_keys": ("player_id", "salt", "hash", "created", "how", "seen"),
    "transfers": ("code_hash", "player_id", "expires"),
    "lessons_done": ("player_id", "lesson", "at"),
    "player_pace": ("player_id", "on_timeout", "level", "bank", "bank_at", "away_until"),
    "ratings": ("player_id", "ruleset", "mu", "sigma", "games", "updated"),
    "rated_games": ("table_id", "ruleset", "at"),
    "rating_history": ("table_id", "player_id", "ruleset", "seat", "place", "total", "mu_before",
                       "sigma_before", "mu_after", "sigma_after", "contracts", "at"),
    "drill_records": ("player_id", "record", "updated"),
    "push_subscriptions": ("endpoint", "player_id", "p256dh", "auth", "lang", "created"),
    "push_quiet": ("player_id", "table_id"),
    "mail_addresses": ("player_id", "address", "verified", "lang", "events", "code_hash", "code_expires",
                       "unsubscribe", "last_digest", "created"),
}


class Refused(Exception):
    """Why the command did nothing, in one line for its user."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.description = ("Bring a database's layout up to date (as barbu serve does when it starts), or copy "
                     "every table, record, score sheet, profile and rating of an SQLite database into "
                     "PostgreSQL, in one transaction. PostgreSQL needs barbu[cluster].")
    sub = p.add_subparsers(dest="db_command", required=True, metavar="COMMAND",
                           help="migrate (bring a layout up to date) or move (SQLite into PostgreSQL)")
    mig = sub.add_parser("migrate", help="bring a database's layout up to date",
                         description="Bring the layout of a database (a postgresql:// URL or an SQLite "
                         "file) up to this barbu's version, and say which version it found and left.")
    mig.add_argument("target", metavar="DATABASE", help="postgresql://USER@HOST:PORT/NAME or an SQLite file")
    move = sub.add_parser("move", help="copy an SQLite database into PostgreSQL",
                          description="Copy everything an SQLite database holds into a PostgreSQL "
                          "database, in one transaction, then check that every table's rows are all "
                          "there. Stop the server of the SQLite file first.")
    move.add_argument("source", metavar="SQLITE_FILE")
    move.add_argument("target", metavar="POSTGRES_URL")
    move.add_argument("--into-used", action="store_true",
                      help="copy even into a database that already holds tables, profiles or sheets "
                      "(the ids must not clash)")
    move.add_argument("--timeout", type=float, default=30.0, metavar="SECS",
                      help="seconds to wait for a busy database (default 30)")


def run(args: argparse.Namespace) -> int:
    try:
        if args.db_command == "migrate":
            print(migrate_target(args.target))
        else:
            print(move(args.source, args.target, into_used=args.into_used, timeout=args.timeout))
    except Refused as e:
        print(f"barbu db: {e}", file=sys.stderr, flush=True)
        return 1
    return 0


def migrate_target(target: str) -> str:
    """Migrate a database; what was found and left, as printed."""
    if is_postgres(target):
        _need_psycopg()
        from barbu.web.storage import postgres as pg

        with _postgres(target, 30.0) as conn:
            found, left = _guarded(lambda: pg.migrate(conn))
        return f"{pg.shown(target)}: found layout version {found}, left version {left}"
    path = Path(target)
    if not path.is_file():
        raise Refused(f"there is no SQLite file {target}")
    found = _sqlite_version(path)
    _guarded(lambda: sqlite_store.Store(target).close())
    return f"{target}: found layout version {found}, left version {sqlite_store.SCHEMA_VERSION}"


def move(source: str, target: str, *, into_used: bool = False, timeout: float = 30.0) -> str:
    """Copy an SQLite database into PostgreSQL in one transaction; what was moved, as printed."""
    if not is_postgres(target):
        raise Refused(f"the target must be a postgresql:// URL, not {target!r}")
    if not Path(source).is_file():
        raise Refused(f"there is no SQLite file {source}")
    _need_psycopg()
    from barbu.web.storage import postgres as pg

    try:
        with exclusive(source):  # no server writes the file while it is copied
            _guarded(lambda: sqlite_store.Store(source).close())  # the layout the copy expects
            with _postgres(target, timeout) as conn:
                _guarded(lambda: pg.migrate(conn))
                moved = _guarded(lambda: _copy(source, conn, into_used))
    except DatabaseInUse as e:
        pid = f" (pid {e.pid})" if e.pid else ""
        raise Refused(f"{source} is in use by a barbu serve{pid}: stop it first") from e
    summary = ", ".join(f"{n} {table}" for table, n in moved.items())
    return f"moved from {source} to {pg.shown(target)}: {summary}"


def _copy(source: str, conn: psycopg.Connection[tuple[Any, ...]], into_used: bool) -> dict[str, int]:
    """Every row of every table, in one transaction on each side; the counts moved (checked)."""
    src = sqlite3.connect(source)
    try:
        src.execute("BEGIN")  # one snapshot of the file
        with conn.transaction():
            before = _pg_counts(conn)
            if not into_used and any(before.values()):
                used = ", ".join(f"{n} {t}" for t, n in before.items() if n)
                raise Refused(f"the target already holds {used}: give --into-used to add to them")
            moved = {table: _copy_table(src, conn, table, cols) for table, cols in MOVED.items()}
            after = _pg_counts(conn)
            wrong = [t for t in MOVED if after[t] - before[t] != moved[t]]
            if wrong:  # raised inside the transaction: nothing is kept
                raise Refused(f"the copy of {', '.join(wrong)} does not add up: nothing was moved")
    finally:
        src.close()
    return moved


def _copy_table(src: sqlite3.Connection, conn: psycopg.Connection[tuple[Any, ...]], table: str,
                cols: tuple[str, ...]) -> int:
    from psycopg import sql

    names = sql.SQL(", ").join(sql.Identifier(c) for c in cols)
    rows = src.execute(f"SELECT {', '.join(cols)} FROM {table} ORDER BY rowid")  # names of ours only
    n = 0
    with conn.cursor() as cur, cur.copy(sql.SQL("COPY {} ({}) FROM STDIN").format(
            sql.Identifier(table), names)) as copy:
        for row in rows:
            copy.write_row(row)
            n += 1
    return n


def _pg_counts(conn: psycopg.Connection[tuple[Any, ...]]) -> dict[str, int]:
    from psycopg import sql

    counts = {}
    for table in MOVED:
        row = conn.execute(sql.SQL("SELECT COUNT(*) FROM {}").format(sql.Identifier(table))).fetchone()
        counts[table] = int(row[0]) if row else 0
    return counts


def _sqlite_version(path: Path) -> int:
    try:
        db = sqlite3.connect(path)
        try:
            return int(db.execute("PRAGMA user_version").fetchone()[0])
        finally:
            db.close()
    except sqlite3.Error as e:
        raise Refused(f"{path} is not an SQLite database: {e}") from e


@contextlib.contextmanager
def _postgres(url: str, timeout: float) -> Iterator[psycopg.Connection[tuple[Any, ...]]]:
    from barbu.web.storage import postgres as pg

    conn = _guarded(lambda: pg.connect(url, timeout))
    try:
        yield conn
    finally:
        conn.close()


def _guarded(work: Callable[[], T]) -> T:
    """``work()``, its database errors (SQLite's or PostgreSQL's) told as a refusal."""
    try:
        with _translated():
            return work()
    except NewerDatabase as e:
        raise Refused(f"the database was made by a newer barbu ({e}): run that one") from e
    except sqlite3.Error as e:
        raise Refused(f"the database refused: {e}") from e


def _translated() -> contextlib.AbstractContextManager[None]:
    """PostgreSQL's errors as sqlite3's (nothing to do without psycopg: then there are none)."""
    try:
        from barbu.web.storage.postgres import dbapi_errors
    except ImportError:
        return contextlib.nullcontext()
    return dbapi_errors()


def _need_psycopg() -> None:
    """A refusal telling how to install psycopg, when it is not."""
    try:
        import psycopg  # noqa: F401
    except ImportError as e:
        raise Refused(f"PostgreSQL needs psycopg: pip install 'barbu[cluster]' ({e})") from e
