"""The SQL of the storage, written once for SQLite and PostgreSQL: a small dialect, and a batch's writes.

Every statement is written once, in SQLite's words, and :class:`Dialect` puts it into the other's:
the placeholder, the larger of two values, a text's byte order, the column that numbers rows in
the order written, and the lock that serialises a person's rating. Both databases already agree
on the rest, upserts (``ON CONFLICT ... DO UPDATE``) included; no statement needs ``RETURNING``.
The reads are written once too, in :mod:`barbu.web.storage.shared`.

Why this adapter rather than SQLAlchemy Core: the SQL is some forty plain statements that differ
between the two databases in those five words only, so a query builder would replace a table of
five strings with a dependency of its own for every install (SQLite's too), and a second dialect
layer to learn. What truly differs lies beyond SQL, where Core would not reach either: SQLite's
``BEGIN IMMEDIATE`` and WAL, PostgreSQL's autocommit reads, advisory locks, lock timeout, a dropped
connection read again, ``COPY`` for ``barbu db move``, and each database's errors told as the
sqlite3 classes the server catches (Core wraps them in classes of its own). The migrations stay
DDL written for each database (:mod:`barbu.web.storage.schema`), as they would with Core.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from typing import Any, Protocol

from barbu.web.core.rows import Batch, GameResult, PlayerBatch, SheetBatch
from barbu.web.people.ratings import PERSON, Skill, rate_game


class NewerDatabase(sqlite3.DatabaseError):
    """The database was made by a newer barbu: this one does not know its layout and leaves it alone."""


class Cursor(Protocol):
    """What a write reads back from a statement, in sqlite3's and psycopg's cursors alike."""

    @property
    def rowcount(self) -> int: ...
    def fetchone(self) -> Any: ...


class Conn(Protocol):
    """A DB-API connection's ``execute``, as both sqlite3 and psycopg give it."""

    def execute(self, sql: Any, params: Any = ..., /) -> Any: ...


@dataclass(frozen=True)
class Dialect:
    """The few words in which SQLite and PostgreSQL differ, for SQL written in SQLite's.

    The SQL is written with ``?`` placeholders, ``{greatest}`` for the larger of two values,
    ``{bytes}`` after a text ordered byte by byte (SQLite's default; PostgreSQL's collation "C")
    and ``{written}`` for the column that numbers a table's rows in the order they were written.
    """

    name: str
    param: str  # the placeholder
    greatest: str  # the function giving the larger of its arguments
    bytewise: str  # what orders a text column byte by byte
    written: str  # SQLite's rowid, and the column PostgreSQL's layout keeps in its stead
    rating_lock: str | None  # a statement holding a rating to the transaction's end (None: not needed)

    def sql(self, text: str) -> str:
        """``text`` in this dialect's words (translated once, then remembered)."""
        key = (self.name, text)
        done = _TRANSLATED.get(key)
        if done is None:
            done = text.replace("?", self.param).replace("{greatest}", self.greatest)
            done = done.replace("{bytes}", self.bytewise).replace("{written}", self.written)
            _TRANSLATED[key] = done
        return done

    def run(self, db: Conn, text: str, params: tuple[Any, ...] = ()) -> Cursor:
        """Execute ``text`` (SQLite's words) on ``db`` in this dialect."""
        cursor: Cursor = db.execute(self.sql(text), params)
        return cursor


_TRANSLATED: dict[tuple[str, str], str] = {}

# SQLite has one writer at a time (BEGIN IMMEDIATE), so its ratings need no lock of their own.
SQLITE = Dialect("sqlite", param="?", greatest="MAX", bytewise="", written="rowid", rating_lock=None)
# PostgreSQL's transactions run side by side under READ COMMITTED: a person's rating is locked while rated.
POSTGRES = Dialect("postgres", param="%s", greatest="GREATEST", bytewise=' COLLATE "C"', written="n",
                   rating_lock="SELECT pg_advisory_xact_lock(hashtextextended(?, 0))")

# Whether a table was rated: asked by the rating itself (never twice) and by the pages.
RATED = "SELECT 1 FROM rated_games WHERE table_id = ?"


def write(db: Conn, d: Dialect, batch: Batch | SheetBatch | PlayerBatch,
          next_seq: dict[str, int]) -> list[int]:
    """Write a batch (and the tables in its ``also``) inside the caller's transaction: its events' numbers.

    ``next_seq`` is the caller's count of each table's events, updated only by :func:`written`.
    """
    if isinstance(batch, SheetBatch):
        _write_sheet(db, d, batch)
        return []
    if isinstance(batch, PlayerBatch):
        _write_player(db, d, batch)
        return []
    _write_table(db, d, batch)
    tid = batch.table_id
    seq = 1 if batch.create is not None else _seq_after(db, d, tid, next_seq)
    seqs = list(range(seq, seq + len(batch.events)))
    # One statement per row: a batch holds one or two events (fewer round trips to PostgreSQL).
    for n, (kind, data) in zip(seqs, batch.events, strict=True):
        d.run(db, "INSERT INTO events (table_id, seq, kind, data, at) VALUES (?, ?, ?, ?, ?)",
              (tid, n, kind, json.dumps(data), batch.at))
    if batch.over:
        d.run(db, "UPDATE tables SET over = 1 WHERE id = ?", (tid,))
    if batch.result is not None:
        _write_rating(db, d, tid, batch.result)
    if batch.bank is not None:
        d.run(db, "INSERT INTO player_pace (player_id, on_timeout, level, bank, bank_at, away_until) "
              "VALUES (?, 'computer', '', ?, ?, 0) ON CONFLICT (player_id) DO UPDATE SET "
              "bank = excluded.bank, bank_at = excluded.bank_at", batch.bank)
    return seqs


def write_all(db: Conn, d: Dialect, batch: Batch | SheetBatch | PlayerBatch,
              next_seq: dict[str, int]) -> tuple[list[int], list[tuple[str, list[int]]]]:
    """Write a batch and the more tables of its ``also``: its numbers, and each other table's."""
    seqs = write(db, d, batch, next_seq)
    also = batch.also if isinstance(batch, Batch) else []
    return seqs, [(b.table_id, write(db, d, b, next_seq)) for b in also]


def written(next_seq: dict[str, int], batch: Batch | SheetBatch | PlayerBatch, seqs: list[int],
            more: list[tuple[str, list[int]]]) -> None:
    """Count a committed batch's events: each table's next number follows its last one written."""
    if seqs and isinstance(batch, Batch):
        next_seq[batch.table_id] = seqs[-1] + 1
    for table_id, numbers in more:
        if numbers:
            next_seq[table_id] = numbers[-1] + 1


def _seq_after(db: Conn, d: Dialect, table_id: str, next_seq: dict[str, int]) -> int:
    seq = next_seq.get(table_id)
    if seq is None:
        row = d.run(db, "SELECT COALESCE(MAX(seq), 0) FROM events WHERE table_id = ?",
                    (table_id,)).fetchone()
        seq = int(row[0] if row else 0) + 1
    return seq


def _write_table(db: Conn, d: Dialect, batch: Batch) -> None:
    """A new table and its seats, or the changed seats of one."""
    tid = batch.table_id
    if batch.create is not None:
        d.run(db, "INSERT INTO tables (id, created, setup, private, creator) VALUES (?, ?, ?, ?, ?)",
              (tid, batch.at, json.dumps(batch.create), int(batch.private), batch.creator))
        for s in batch.seats:
            d.run(db, "INSERT INTO seats (table_id, seat, name, token, kind, level, claimed, player, access, "
                  "client, invited, invited_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                  (tid, s.seat, s.name, s.token, s.kind, s.level, int(s.claimed), s.player, s.access,
                   s.client, s.invited, s.invited_at))
        return
    for r in batch.seats:
        d.run(db, "UPDATE seats SET name = ?, token = ?, kind = ?, level = ?, claimed = ?, "
              "player = ?, access = ?, client = ?, invited = ?, invited_at = ? "
              "WHERE table_id = ? AND seat = ?",
              (r.name, r.token, r.kind, r.level, int(r.claimed), r.player, r.access, r.client, r.invited,
               r.invited_at, tid, r.seat))


def _write_sheet(db: Conn, d: Dialect, b: SheetBatch) -> None:
    now, doc = time.time(), json.dumps(b.doc, ensure_ascii=False)
    if b.token is not None:
        d.run(db, "INSERT INTO sheets (id, created, token, doc, version, updated) VALUES (?, ?, ?, ?, ?, ?)",
              (b.sheet_id, now, b.token, doc, b.version, now))
    else:
        # Only on top of the version it was planned on: a change never lands on a state it did not see.
        cur = d.run(db, "UPDATE sheets SET doc = ?, version = ?, updated = ? WHERE id = ? AND version = ?",
                    (doc, b.version, now, b.sheet_id, b.version - 1))
        if cur.rowcount != 1:
            raise sqlite3.IntegrityError(f"sheet {b.sheet_id} is not at version {b.version - 1}")
    if b.entry is not None:
        d.run(db, "INSERT INTO sheet_entries (sheet_id, entry, version, op, at) VALUES (?, ?, ?, ?, ?)",
              (b.sheet_id, b.entry, b.version, json.dumps(b.op, ensure_ascii=False), now))


def _write_player(db: Conn, d: Dialect, b: PlayerBatch) -> None:
    now, pid = time.time(), b.player_id
    if b.create is not None:
        d.run(db, "INSERT INTO players (id, name, name_key, created) VALUES (?, ?, ?, ?)",
              (pid, b.create[0], b.create[1], now))
    if b.password is not None:
        d.run(db, "UPDATE players SET password = ? WHERE id = ?", (b.password, pid))
    if b.keep_only is not None:
        d.run(db, "DELETE FROM player_keys WHERE player_id = ? AND hash <> ?", (pid, b.keep_only))
    for gone in b.drop_keys:
        d.run(db, "DELETE FROM player_keys WHERE player_id = ? AND hash = ?", (pid, gone))
    if b.seen is not None:
        d.run(db, "UPDATE player_keys SET seen = ? WHERE player_id = ? AND hash = ?",
              (b.seen[1], pid, b.seen[0]))
    for salt, digest in b.keys:
        d.run(db, "INSERT INTO player_keys (player_id, salt, hash, created, how, seen) "
              "VALUES (?, ?, ?, ?, ?, ?)",
              (pid, salt, digest, now, b.how, now))
    if b.keys and b.max_keys:  # the least recently seen beyond the cap are signed out
        d.run(db, "DELETE FROM player_keys WHERE player_id = ? AND hash NOT IN (SELECT hash FROM player_keys "
              "WHERE player_id = ? ORDER BY {greatest}(seen, created) DESC, hash{bytes} LIMIT ?)",
              (pid, pid, b.max_keys))
    if b.lesson_done is not None:  # done twice (two pages at once): the first time is kept
        d.run(db, "INSERT INTO lessons_done (player_id, lesson, at) VALUES (?, ?, ?) "
              "ON CONFLICT (player_id, lesson) DO NOTHING", (pid, b.lesson_done, now))
    _write_transfers(db, d, b, now)
    if b.pace is not None:
        p = b.pace
        d.run(db, "INSERT INTO player_pace (player_id, on_timeout, level, bank, bank_at, away_until) "
              "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (player_id) DO UPDATE SET "
              "on_timeout = excluded.on_timeout, level = excluded.level, bank = excluded.bank, "
              "bank_at = excluded.bank_at, away_until = excluded.away_until",
              (pid, p.on_timeout, p.level, p.bank, p.bank_at, p.away_until))
    if b.drills is not None:
        d.run(db, "INSERT INTO drill_records (player_id, record, updated) VALUES (?, ?, ?) "
              "ON CONFLICT (player_id) DO UPDATE SET record = excluded.record, updated = excluded.updated",
              (pid, b.drills, now))
    _write_push(db, d, b, now)
    _write_mail(db, d, b, now)


def _write_mail(db: Conn, d: Dialect, b: PlayerBatch, now: float) -> None:
    pid = b.player_id
    if b.drop_mail:
        d.run(db, "DELETE FROM mail_addresses WHERE player_id = ?", (pid,))
    if b.mail is not None:  # a new address starts unconfirmed, with no kind of mail wanted
        m = b.mail
        d.run(db, "INSERT INTO mail_addresses (player_id, address, verified, lang, events, code_hash, "
              "code_expires, unsubscribe, last_digest, created) VALUES (?, ?, 0, ?, '', ?, ?, ?, '', ?) "
              "ON CONFLICT (player_id) DO UPDATE SET address = excluded.address, verified = 0, "
              "lang = excluded.lang, events = '', code_hash = excluded.code_hash, "
              "code_expires = excluded.code_expires, unsubscribe = excluded.unsubscribe",
              (pid, m.address, m.lang, m.code_hash, m.code_expires, m.unsubscribe, now))
    # Each of these changes one row only if it is still as the request found it: a code used twice at
    # once confirms once, and two processes claiming one day's digest send it once.
    if b.mail_confirm is not None and d.run(
            db, "UPDATE mail_addresses SET verified = 1, code_hash = NULL WHERE player_id = ? "
            "AND code_hash = ? AND code_expires >= ?", (pid, *b.mail_confirm)).rowcount != 1:
        raise sqlite3.IntegrityError("this confirmation code was used already or has expired")
    if b.mail_events is not None:
        d.run(db, "UPDATE mail_addresses SET events = ? WHERE player_id = ?", (",".join(b.mail_events), pid))
    if b.digest_day is not None and d.run(
            db, "UPDATE mail_addresses SET last_digest = ? WHERE player_id = ? AND last_digest < ?",
            (b.digest_day, pid, b.digest_day)).rowcount != 1:
        raise sqlite3.IntegrityError("this day's digest was claimed already")


def _write_push(db: Conn, d: Dialect, b: PlayerBatch, now: float) -> None:
    pid = b.player_id
    if b.quiet is not None:
        d.run(db, "DELETE FROM push_quiet WHERE player_id = ? AND table_id = ?", (pid, b.quiet[0]))
        if b.quiet[1]:
            d.run(db, "INSERT INTO push_quiet (player_id, table_id) VALUES (?, ?)", (pid, b.quiet[0]))
    for gone in b.drop_push:
        d.run(db, "DELETE FROM push_subscriptions WHERE player_id = ? AND endpoint = ?", (pid, gone))
    if b.push is None:
        return
    s = b.push  # an endpoint is one browser's: subscribed again (or by another profile there), it moves
    d.run(db, "INSERT INTO push_subscriptions (endpoint, player_id, p256dh, auth, lang, created) "
          "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (endpoint) DO UPDATE SET player_id = excluded.player_id, "
          "p256dh = excluded.p256dh, auth = excluded.auth, lang = excluded.lang, created = excluded.created",
          (s.endpoint, pid, s.p256dh, s.auth, s.lang, now))
    if b.max_push:
        d.run(db, "DELETE FROM push_subscriptions WHERE player_id = ? AND endpoint NOT IN (SELECT endpoint "
              "FROM push_subscriptions WHERE player_id = ? ORDER BY created DESC, endpoint{bytes} LIMIT ?)",
              (pid, pid, b.max_push))


def _write_transfers(db: Conn, d: Dialect, b: PlayerBatch, now: float) -> None:
    d.run(db, "DELETE FROM transfers WHERE expires < ?", (now,))
    # Deleted only if still there: a code used twice at once opens the profile once.
    if b.used_transfer is not None and \
            d.run(db, "DELETE FROM transfers WHERE code_hash = ?", (b.used_transfer,)).rowcount != 1:
        raise sqlite3.IntegrityError("this transfer code was used already")
    if b.transfer is not None:
        d.run(db, "INSERT INTO transfers (code_hash, player_id, expires) VALUES (?, ?, ?)",
              (b.transfer[0], b.player_id, b.transfer[1]))
    if b.transfer is not None and b.live_codes:  # a new code replaces the oldest beyond the cap
        d.run(db, "DELETE FROM transfers WHERE player_id = ? AND code_hash NOT IN (SELECT code_hash FROM "
              "transfers WHERE player_id = ? ORDER BY expires DESC, code_hash{bytes} LIMIT ?)",
              (b.player_id, b.player_id, b.live_codes))


def _write_rating(db: Conn, d: Dialect, table_id: str, result: GameResult) -> None:
    """Rate a finished game inside its final action's transaction, once: a table already rated is left."""
    _lock_ratings(db, d, result)
    if d.run(db, RATED, (table_id,)).fetchone() is not None:
        return
    now, rs = time.time(), result.ruleset
    people = {e: _skill(db, d, e.removeprefix(PERSON), rs) for e in result.entrants if e.startswith(PERSON)}
    newcomers = [e if e else f"newcomer:{s}" for s, e in enumerate(result.entrants)]  # rated, not kept
    after = rate_game(rs, newcomers, result.places, {k: v[0] for k, v in people.items()})
    d.run(db, "INSERT INTO rated_games (table_id, ruleset, at) VALUES (?, ?, ?)", (table_id, rs, now))
    for seat, entrant in enumerate(result.entrants):
        if entrant not in people:
            continue
        pid, (was, games) = entrant.removeprefix(PERSON), people[entrant]
        new = after[entrant]
        d.run(db, "INSERT INTO ratings (player_id, ruleset, mu, sigma, games, updated) "
              "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (player_id, ruleset) DO UPDATE SET mu = excluded.mu, "
              "sigma = excluded.sigma, games = excluded.games, updated = excluded.updated",
              (pid, rs, new.mu, new.sigma, games + 1, now))
        d.run(db, "INSERT INTO rating_history (table_id, player_id, ruleset, seat, place, total, mu_before, "
              "sigma_before, mu_after, sigma_after, contracts, at) "
              "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
              (table_id, pid, rs, seat, result.places[seat], result.totals[seat], was.mu, was.sigma,
               new.mu, new.sigma, json.dumps(result.contracts[seat], sort_keys=True), now))


def _lock_ratings(db: Conn, d: Dialect, result: GameResult) -> None:
    """Hold each rated person's rating until the transaction ends, in one order (no deadlock).

    Under PostgreSQL's READ COMMITTED two processes ending games of one person at once would both
    read the old rating and the second write would undo the first: the second waits instead.
    """
    if d.rating_lock is None:
        return
    for pid in sorted({e.removeprefix(PERSON) for e in result.entrants if e.startswith(PERSON)}):
        d.run(db, d.rating_lock, (f"barbu:rating:{pid}:{result.ruleset}",))


def _skill(db: Conn, d: Dialect, player_id: str, ruleset: str) -> tuple[Skill, int]:
    row = d.run(db, "SELECT mu, sigma, games FROM ratings WHERE player_id = ? AND ruleset = ?",
                (player_id, ruleset)).fetchone()
    return (Skill.new(), 0) if row is None else (Skill(float(row[0]), float(row[1])), int(row[2]))
