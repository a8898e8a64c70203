"""What the SQLite and PostgreSQL stores share: every read, written once, and the changes made of one batch.

The SQL is in SQLite's words; the store's :class:`~barbu.web.storage.sql.Dialect` says it in its
database's. A store adds only what truly differs between the databases: how it connects, how a
read is run (:meth:`SqlStore._fetch`), and how a batch is committed (:meth:`SqlStore.commit`).
"""

from __future__ import annotations

import json
import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, Literal

from barbu.web.core.rows import (
    Batch,
    DeviceRow,
    Event,
    HistoryRow,
    MailRow,
    PaceRow,
    PlayerBatch,
    PlayerRow,
    PushRow,
    RatingRow,
    SeatRow,
    SheetBatch,
    SheetRow,
    TableEntry,
)
from barbu.web.storage.sql import RATED, Dialect

Row = tuple[Any, ...]

# The start of both reads of ratings: a profile's name with each of its ratings.
_RATING = ("SELECT r.player_id, p.name, r.ruleset, r.mu, r.sigma, r.games FROM ratings r JOIN players p "
           "ON p.id = r.player_id WHERE ")


class SqlStore(ABC):
    """The tables of one server in one SQL database (the ``TableStore`` of :mod:`barbu.web.core.ports`)."""

    dialect: Dialect
    path: str  # where the tables are, for messages
    _next_seq: dict[str, int]  # each table's next event number, as this process last wrote it

    @abstractmethod
    def _fetch(self, sql: str, params: tuple[Any, ...]) -> list[Row]:
        """Every row ``sql`` (in this database's words) answers, read apart from the writes."""

    @property
    @abstractmethod
    def write_lock(self) -> threading.RLock:
        """Held by a write from start to end (and by anything that changes ``_next_seq``)."""

    @abstractmethod
    def commit(self, batch: Batch | SheetBatch | PlayerBatch) -> list[int]:
        """Store a batch in one transaction and return the sequence numbers of its events."""

    def _rows(self, text: str, params: tuple[Any, ...] = ()) -> list[Row]:
        return self._fetch(self.dialect.sql(text), params)

    def _row(self, text: str, params: tuple[Any, ...] = ()) -> Row | None:
        rows = self._rows(text, params)
        return rows[0] if rows else None

    def forget(self, table_id: str) -> None:
        """Drop this store's count of a table's events (read again at the next write): another process
        may have written some since."""
        with self.write_lock:
            self._next_seq.pop(table_id, None)

    def expect_seq(self, table_id: str, seq: int) -> None:
        """Store this table's next event at ``seq`` or not at all: a process that replayed the events
        up to ``seq - 1`` thereby never writes after one it has not seen (the (table, seq) key refuses it)."""
        with self.write_lock:
            # A seq already further on was written by this store after the replay that gave ``seq``.
            self._next_seq[table_id] = max(seq, self._next_seq.get(table_id, 0))

    # -- tables and seats ------------------------------------------------------

    def create_table(self, table_id: str, setup: dict[str, Any], seats: Sequence[SeatRow]) -> None:
        self.commit(Batch(table_id, seats=list(seats), create=setup))

    def save_seat(self, table_id: str, row: SeatRow) -> None:
        self.commit(Batch(table_id, seats=[row]))

    def mark_over(self, table_id: str) -> None:
        self.commit(Batch(table_id, over=True))

    def is_over(self, table_id: str) -> bool:
        row = self._row("SELECT over FROM tables WHERE id = ?", (table_id,))
        return row is not None and bool(row[0])

    def table_ids(self, *, include_over: bool = True) -> list[str]:
        rows = self._rows("SELECT id FROM tables WHERE over = 0 OR ? ORDER BY created, id", (include_over,))
        return [str(r[0]) for r in rows]

    def table_index(self) -> list[TableEntry]:
        """Every stored table, oldest first: whether it is over, and when it last changed."""
        rows = self._rows("SELECT t.id, t.over, {greatest}(t.created, COALESCE((SELECT MAX(e.at) "
                          "FROM events e WHERE e.table_id = t.id), 0)) FROM tables t "
                          "ORDER BY t.created, t.id")
        return [TableEntry(str(r[0]), bool(r[1]), float(r[2])) for r in rows]

    def load_setup(self, table_id: str) -> dict[str, Any] | None:
        row = self._row("SELECT setup FROM tables WHERE id = ?", (table_id,))
        if row is None:
            return None
        setup = json.loads(row[0])  # ValueError (or RecursionError) when it is not JSON
        if not isinstance(setup, dict):
            raise ValueError("the stored setup is not a JSON object")  # not "no such table"
        return setup

    def origin(self, table_id: str) -> tuple[float, str | None]:
        """When a table was made, and the table it is a rematch of (None: a first game, or no such table)."""
        row = self._row("SELECT created, setup FROM tables WHERE id = ?", (table_id,))
        if row is None:
            return 0.0, None
        try:
            of = json.loads(row[1]).get("rematch_of")
        except (ValueError, AttributeError, RecursionError):  # a damaged setup: still listed, as a first game
            of = None
        return float(row[0]), of if isinstance(of, str) else None

    def load_seats(self, table_id: str) -> list[SeatRow]:
        rows = self._rows("SELECT seat, name, token, kind, level, claimed, player, access, client, invited, "
                          "invited_at FROM seats WHERE table_id = ? ORDER BY seat", (table_id,))
        return [SeatRow(int(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4]), bool(r[5]), str(r[6]),
                        str(r[7]), str(r[8]), str(r[9]), float(r[10])) for r in rows]

    def table_flags(self, table_id: str) -> tuple[bool, int]:
        """Whether a table is private, and its creator's seat (-1: none, as for every older table)."""
        row = self._row("SELECT private, creator FROM tables WHERE id = ?", (table_id,))
        return (False, -1) if row is None else (bool(row[0]), int(row[1]))

    def tables_of_player(self, player_id: str) -> list[str]:
        """The tables where a profile holds a seat, oldest first."""
        rows = self._rows("SELECT t.id FROM tables t WHERE EXISTS (SELECT 1 FROM seats s "
                          "WHERE s.table_id = t.id AND s.player = ?) ORDER BY t.created, t.id", (player_id,))
        return [str(r[0]) for r in rows]

    def invitations_of(self, player_id: str) -> list[tuple[str, int]]:
        """The free seats held for a profile at unfinished tables, as (table id, seat), oldest first."""
        rows = self._rows("SELECT s.table_id, s.seat FROM seats s JOIN tables t ON t.id = s.table_id "
                          "WHERE s.invited = ? AND s.claimed = 0 AND t.over = 0 "
                          "ORDER BY s.invited_at, s.table_id{bytes}", (player_id,))
        return [(str(r[0]), int(r[1])) for r in rows]

    # -- events ------------------------------------------------------------------

    def append_event(self, table_id: str, kind: str, data: dict[str, Any]) -> int:
        """Store one deal or action at once and return its sequence number."""
        return self.commit(Batch(table_id, events=[(kind, data)]))[0]

    def events(self, table_id: str) -> list[Event]:
        rows = self._rows("SELECT seq, kind, data, at FROM events WHERE table_id = ? ORDER BY seq",
                          (table_id,))
        return [event_of(r) for r in rows]

    def last_change(self, table_id: str) -> float | None:
        """When the table last changed (its last event, or its creation); None if there is no such table."""
        row = self._row("SELECT {greatest}(t.created, COALESCE(MAX(e.at), 0)) FROM tables t "
                        "LEFT JOIN events e ON e.table_id = t.id WHERE t.id = ? GROUP BY t.id", (table_id,))
        return None if row is None else float(row[0])

    # -- score sheets ----------------------------------------------------------------

    def load_sheet(self, sheet_id: str) -> SheetRow | None:
        row = self._row("SELECT id, token, doc, version FROM sheets WHERE id = ?", (sheet_id,))
        return None if row is None else SheetRow(str(row[0]), str(row[1]), str(row[2]), int(row[3]))

    def sheet_entry(self, sheet_id: str, entry: str) -> int | None:
        """The version a client's entry made, if it is stored (a resend of it changes nothing)."""
        row = self._row("SELECT version FROM sheet_entries WHERE sheet_id = ? AND entry = ?",
                        (sheet_id, entry))
        return None if row is None else int(row[0])

    def sheet_history(self, sheet_id: str) -> list[dict[str, Any]]:
        """Every stored change of a sheet, oldest first."""
        rows = self._rows("SELECT op FROM sheet_entries WHERE sheet_id = ? ORDER BY version", (sheet_id,))
        return [json.loads(r[0]) for r in rows]

    # -- profiles --------------------------------------------------------------------------

    def load_player(self, player_id: str) -> PlayerRow | None:
        return self._player("id", player_id)

    def player_named(self, name_key: str) -> PlayerRow | None:
        return self._player("name_key", name_key)

    def _player(self, column: Literal["id", "name_key"], value: str) -> PlayerRow | None:
        row = self._row(f"SELECT id, name, name_key, password FROM players WHERE {column} = ?", (value,))
        if row is None:
            return None
        # In the order of SQLite's key (player_id, hash): the same answer from both databases.
        keys = self._rows("SELECT salt, hash FROM player_keys WHERE player_id = ? ORDER BY hash{bytes}",
                          (row[0],))
        return PlayerRow(str(row[0]), str(row[1]), str(row[2]), str(row[3]),
                         tuple((str(k[0]), str(k[1])) for k in keys))

    def devices_of(self, player_id: str) -> list[DeviceRow]:
        rows = self._rows("SELECT hash, created, seen, how FROM player_keys WHERE player_id = ? "
                          "ORDER BY created, hash{bytes}", (player_id,))
        return [DeviceRow(str(r[0]), float(r[1]), float(r[2]), str(r[3])) for r in rows]

    def lessons_of(self, player_id: str) -> list[str]:
        """The tutorial's lessons a profile has done, by id."""
        rows = self._rows("SELECT lesson FROM lessons_done WHERE player_id = ? ORDER BY lesson{bytes}",
                          (player_id,))
        return [str(r[0]) for r in rows]

    def pace_of(self, player_id: str) -> PaceRow | None:
        """A profile's choices for tables at your own pace (None: never set, the defaults hold)."""
        r = self._row("SELECT on_timeout, level, bank, bank_at, away_until FROM player_pace "
                      "WHERE player_id = ?", (player_id,))
        return None if r is None else PaceRow(str(r[0]), str(r[1]), float(r[2]), float(r[3]), float(r[4]))

    def drill_record(self, player_id: str) -> str | None:
        """A profile's record of the practice drills (JSON text), None before its first answer."""
        row = self._row("SELECT record FROM drill_records WHERE player_id = ?", (player_id,))
        return None if row is None else str(row[0])

    def push_of(self, player_id: str) -> list[PushRow]:
        """A profile's Web Push subscriptions, oldest first."""
        rows = self._rows("SELECT endpoint, p256dh, auth, lang FROM push_subscriptions WHERE player_id = ? "
                          "ORDER BY created, endpoint{bytes}", (player_id,))
        return [PushRow(str(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows]

    def push_quiet(self, player_id: str, table_id: str) -> bool:
        """Whether a profile switched the notifications of a table off."""
        return self._row("SELECT 1 FROM push_quiet WHERE player_id = ? AND table_id = ?",
                         (player_id, table_id)) is not None

    def mail_of(self, player_id: str) -> MailRow | None:
        """A profile's e-mail address, if it gave one."""
        return self._mail("player_id = ?", (player_id,))

    def mail_by_code(self, code_hash: str, now: float) -> MailRow | None:
        """The address a confirmation code (by its hash) still confirms at wall time ``now``."""
        return self._mail("code_hash = ? AND code_expires >= ?", (code_hash, now))

    def mail_by_unsubscribe(self, token: str) -> MailRow | None:
        """The address an unsubscribe link's token speaks for."""
        return self._mail("unsubscribe = ?", (token,))

    def digests_due(self, day: str, limit: int) -> list[MailRow]:
        """Confirmed addresses that want a daily digest and have had none on ``day`` (UTC) yet."""
        rows = self._rows(f"SELECT {_MAIL_COLUMNS} FROM mail_addresses WHERE verified = 1 "
                          "AND last_digest < ? AND ',' || events || ',' LIKE ? "
                          "ORDER BY player_id{bytes} LIMIT ?",
                          (day, "%,digest,%", limit))
        return [mail_row(r) for r in rows]

    def _mail(self, where: str, params: tuple[Any, ...]) -> MailRow | None:
        row = self._row(f"SELECT {_MAIL_COLUMNS} FROM mail_addresses WHERE {where}", params)
        return None if row is None else mail_row(row)

    def transfer(self, code_hash: str) -> tuple[str, float] | None:
        """The profile a transfer code opens, and until when (wall time)."""
        row = self._row("SELECT player_id, expires FROM transfers WHERE code_hash = ?", (code_hash,))
        return None if row is None else (str(row[0]), float(row[1]))

    # -- ratings ---------------------------------------------------------------------------

    def leaderboard(self, ruleset: str, limit: int) -> list[RatingRow]:
        """The rated profiles of a rule set, best conservative rating (μ − 3σ) first."""
        rows = self._rows(_RATING + "r.ruleset = ? AND r.games > 0 "
                          "ORDER BY r.mu - 3 * r.sigma DESC, r.games DESC, p.name_key{bytes} LIMIT ?",
                          (ruleset, limit))
        return [rating_row(r) for r in rows]

    def ratings_of(self, player_id: str) -> list[RatingRow]:
        rows = self._rows(_RATING + "r.player_id = ? ORDER BY r.ruleset{bytes}", (player_id,))
        return [rating_row(r) for r in rows]

    def rating_history(self, player_id: str, limit: int) -> list[HistoryRow]:
        """A profile's rated games, oldest first (the newest ``limit`` of them)."""
        rows = self._rows("SELECT h.table_id, h.ruleset, h.seat, h.place, h.total, h.mu_before, "
                          "h.sigma_before, h.mu_after, h.sigma_after, h.contracts, h.at, t.private "
                          "FROM rating_history h "
                          "LEFT JOIN tables t ON t.id = h.table_id WHERE h.player_id = ? "
                          "ORDER BY h.at DESC, h.{written} DESC LIMIT ?", (player_id, limit))
        return [history_row(r) for r in reversed(rows)]

    def rated(self, table_id: str) -> bool:
        return self._row(RATED, (table_id,)) is not None


_MAIL_COLUMNS = "player_id, address, verified, lang, events, last_digest, unsubscribe"


def mail_row(r: Row) -> MailRow:
    return MailRow(str(r[0]), str(r[1]), bool(r[2]), str(r[3]), tuple(e for e in str(r[4]).split(",") if e),
                   str(r[5]), str(r[6]))


def rating_row(r: Row) -> RatingRow:
    return RatingRow(str(r[0]), str(r[1]), str(r[2]), float(r[3]), float(r[4]), int(r[5]))


def history_row(r: Row) -> HistoryRow:
    contracts = {str(k): (int(v[0]), int(v[1])) for k, v in json.loads(r[9]).items()}
    return HistoryRow(str(r[0]), str(r[1]), int(r[2]), int(r[3]), int(r[4]), (float(r[5]), float(r[6])),
                      (float(r[7]), float(r[8])), contracts, float(r[10]), r[11] is not None and not r[11])


def event_of(row: Row) -> Event:
    """A stored event; one whose data is not a JSON object says so in ``problem`` instead of raising."""
    seq, kind, text, at = int(row[0]), str(row[1]), row[2], float(row[3])
    try:
        data = json.loads(text)
    except (ValueError, RecursionError, TypeError) as e:
        return Event(seq, kind, {}, at, f"its data is not JSON ({e})")
    if not isinstance(data, dict):
        return Event(seq, kind, {}, at, "its data is not a JSON object")
    return Event(seq, kind, data, at)
