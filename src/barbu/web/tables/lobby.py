"""The lobby: every table of one server, loaded from the store at start-up or on first ask, and listed."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from barbu.web.core.errors import TableError
from barbu.web.core.names import valid_id
from barbu.web.core.ports import TableStore
from barbu.web.core.rows import Batch, PlayerRow
from barbu.web.tables.history import setup_problem
from barbu.web.tables.setup import Setup
from barbu.web.tables.table import Table
from barbu.wording import plural

log = logging.getLogger("barbu.web")


@dataclass(frozen=True)
class Limits:
    """How long a table stays in the lobby's list once nothing happens at it any more."""

    listed_after_over: float = 600.0  # seconds a finished table stays listed
    abandoned_after: float = 3600.0  # seconds without a change after which a computers' table is abandoned
    quiet_after: float = 86400.0  # the same for a table with a person at it: they may come back tomorrow


class Lobby:
    """Every table of one server, backed by one store."""

    def __init__(self, store: TableStore, *, idle_seconds: float = 60.0, limits: Limits | None = None,
                 wall: Callable[[], float] = time.time) -> None:
        self.store = store
        self.idle_seconds = idle_seconds
        self.limits = limits or Limits()
        self.wall = wall
        self.tables: dict[str, Table] = {}

    def load_all(self) -> list[Table]:
        """Rebuild, at start-up, every table the lobby lists or counts; check the others' setups.

        The unfinished tables and the finished ones still listed are replayed, so that any damage
        in them is known (and logged) now. A table finished longer ago is only checked for an
        unreadable setup here, which is cheap; its events are replayed when it is first opened.
        """
        loaded, unread, later = [], 0, 0
        since = self.wall() - self.limits.listed_after_over
        for entry in self.store.table_index():
            if entry.over and entry.last_change < since:
                later += 1
                problem = setup_problem(self.store, entry.id)
                if problem is not None:
                    unread += 1
                    log.error("table %s is damaged: its stored setup cannot be read (%s); it is kept, "
                              "but cannot be played on and has no record", entry.id, problem)
                continue
            table = self._load(entry.id)
            if table is not None:
                loaded.append(table)
        damaged = sum(1 for t in loaded if t.damaged is not None)
        log.info("%s restored from %s (%d damaged); %s finished longer ago checked (%d with an unreadable "
                 "setup), each rebuilt when first opened", plural(len(loaded), "table"), self.store.path,
                 damaged, plural(later, "table"), unread)
        return loaded

    def _load(self, table_id: str) -> Table | None:
        """One stored table, rebuilt (damaged, if its history or its setup cannot be replayed)."""
        table = Table.load(self.store, table_id, idle_seconds=self.idle_seconds, wall=self.wall)
        if table is not None:
            self.tables[table_id] = table
        return table

    def plan(self, setup: Setup) -> tuple[Table, Batch]:
        """A new table and its batch: :meth:`add` it once the batch is stored."""
        return Table.plan(self.store, setup, idle_seconds=self.idle_seconds, wall=self.wall)

    def add(self, table: Table) -> Table:
        self.tables[table.id] = table
        table.created()
        return table

    def create(self, setup: Setup) -> Table:
        table = Table.create(self.store, setup, idle_seconds=self.idle_seconds, wall=self.wall)
        self.tables[table.id] = table
        return table

    def get(self, table_id: str) -> Table:
        table = None
        if valid_id(table_id):
            table = self.tables.get(table_id) or self._load(table_id)
        if table is None:
            raise TableError("no-table", f"there is no table {table_id[:40]!r}", 404)
        return table

    def abandoned(self, table: Table) -> bool:
        if table.deadlines.running:  # at your own pace a quiet day is normal: its deadlines move it on
            return False
        after = self.limits.abandoned_after if table.computers_only else self.limits.quiet_after
        return not table.state.is_over and self.wall() - table.active_at >= after

    def is_open(self, table: Table) -> bool:
        """Unfinished, still played (not abandoned) and sound: counts against the open-table limits."""
        return not table.state.is_over and table.damaged is None and not self.abandoned(table)

    def listed(self, table: Table) -> bool:
        if table.private:
            return False
        if table.state.is_over:
            return self.wall() - table.active_at < self.limits.listed_after_over
        return not self.abandoned(table)

    def listing(self, limit: int = 50) -> list[dict[str, Any]]:
        """The tables the lobby shows, newest first: open ones, and finished ones for a while."""
        shown = [t for t in self.tables.values() if self.listed(t)]
        return [t.summary() for t in reversed(shown[-limit:])]

    def yours(self, player: PlayerRow | None, held: object, limit: int = 50) -> list[dict[str, Any]]:
        """Every table where a profile, or the seat tokens a browser holds, has a seat: newest move first.

        ``held`` is the browser's list of ``{"table", "token"}``; one that opens no seat is left
        out (it lapsed, or never was), so a guessed token shows nothing.
        """
        found: dict[tuple[str, int], Table] = {}
        ids = self.store.tables_of_player(player.id)[-limit:] if player is not None else []
        for table_id in ids:
            table = self.get(table_id)
            for s in table.seats:
                if s.row.player == player.id:  # type: ignore[union-attr]
                    found[(table.id, s.row.seat)] = table
        for table_id, token in _held_seats(held, limit):
            try:
                table = self.get(table_id)
            except TableError:
                continue
            seat = table.seat_of_token(token)
            if seat is not None:
                found[(table.id, seat)] = table
        out = [t.yours(seat) for (_, seat), t in found.items()]
        return sorted(out, key=lambda x: -x["moved"])[:limit]

    def open_tables(self, computers_only: bool = False) -> int:
        return sum(1 for t in self.tables.values()
                   if self.is_open(t) and (t.computers_only or not computers_only))


def _held_seats(held: object, limit: int) -> list[tuple[str, str]]:
    """The (table id, token) pairs of a browser's list; TableError ``bad-held`` if it is not one."""
    if held is None:
        return []
    if not isinstance(held, list) or len(held) > limit:
        raise TableError("bad-held", f"\"seats\" is a list of at most {limit} {{\"table\", \"token\"}} "
                         "objects", args={"n": limit})
    out = []
    for item in held:
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in ("table", "token")):
            raise TableError("bad-held", "each held seat is {\"table\": ID, \"token\": SECRET}",
                             args={"n": limit})
        out.append((str(item["table"])[:40], str(item["token"])[:60]))
    return out
