"""Helpers of the web tests: their databases, a client that records what it is sent, the hidden-card check.

Every web test takes its database from :func:`fresh_db`: an SQLite file, or with BARBU_TEST_DB=postgres
a new PostgreSQL database, so that the same tests check both stores.
"""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from tests.pg_helpers import new_database, on_postgres

from barbu.engine.cards import card_str, parse_card
from barbu.web.core.ports import TableStore
from barbu.web.storage.sqlite import Store, is_postgres
from barbu.web.tables.table import Table

# A page of the browser tests that shows a hand in seconds, not half a minute (an init script): a trick
# pause of 0.05 s (the page keeps any number saved; its settings offer 0.6 s and more) and each card's
# travel and trick's gathering played ten times faster: still played, awaited and counted, only shorter
# (tests/test_web_lobby_quick.py measures their true lengths, without it).
SWIFT_MOTION = ("(() => { const animate = Element.prototype.animate;"
                " Element.prototype.animate = function (frames, options) {"
                " const quick = options && typeof options === 'object' && options.duration > 0"
                " ? { ...options, duration: Math.max(1, options.duration / 10) } : options;"
                " return animate.call(this, frames, quick); }; })();")
FAST = ("if (!localStorage.getItem('barbu.settings')) "
        "localStorage.setItem('barbu.settings', JSON.stringify({trickPause: 0.05, watchPause: 0.05}));"
        + SWIFT_MOTION)

# A test about SQLite's files themselves (its lock file, WAL, another program's file): not run on PostgreSQL.
sqlite_only = pytest.mark.skipif(on_postgres(), reason="about SQLite files themselves")


def fresh_db(tmp_path: Path, name: str = "tables.db") -> str:
    """A new database for a test: ``tmp_path/name`` (SQLite), or PostgreSQL's if BARBU_TEST_DB=postgres."""
    return new_database() if on_postgres() else str(tmp_path / name)


def store_class(target: str | None = None) -> type[Any]:
    """The store class of ``target`` (or of this run), for the tests' stores that fail or wait on purpose."""
    if on_postgres() if target is None else is_postgres(target):
        from barbu.web.storage.postgres import PgStore

        return PgStore
    return Store


def query(target: str | Path | TableStore, sql: str, *params: object) -> list[tuple[Any, ...]]:
    """Run SQL on a test's database behind the server's back, as a person with a database client would.

    ``sql`` has ``?`` for its parameters, as sqlite3 writes them; on PostgreSQL they become ``%s``.
    """
    where = target if isinstance(target, str | Path) else getattr(target, "url", target.path)
    if isinstance(where, str) and is_postgres(where):
        from barbu.web.storage.postgres import connect

        conn = connect(where, 5.0)
        try:
            cur = conn.execute(sql.replace("?", "%s"), params)
            return cur.fetchall() if cur.description else []
        finally:
            conn.close()
    db = sqlite3.connect(where)
    try:
        with db:
            return db.execute(sql, params).fetchall()
    finally:
        db.close()


def dump(target: str | Path) -> str:
    """Every value stored in a test's database, as text (to look for what must never be stored)."""
    if not (isinstance(target, str) and is_postgres(target)):
        db = sqlite3.connect(target)
        try:
            return "\n".join(db.iterdump())
        finally:
            db.close()
    from barbu.web.storage.dbtool import MOVED

    return "\n".join(repr(row) for table in MOVED for row in query(target, f"SELECT * FROM {table}"))


def hold_writes(target: str | Path) -> Any:
    """Another process takes the database's write lock and keeps it; call the answer to let go of it."""
    if isinstance(target, str) and is_postgres(target):
        from barbu.web.storage.postgres import connect

        conn = connect(target, 5.0)
        conn.execute("BEGIN")
        conn.execute("LOCK TABLE events, seats, tables IN EXCLUSIVE MODE")  # reads still go on, as in WAL

        def release() -> None:
            conn.execute("ROLLBACK")
            conn.close()
        return release
    other = sqlite3.connect(target, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")

    def release_file() -> None:
        other.execute("ROLLBACK")
        other.close()
    return release_file

CARD_RE = re.compile(r"^(?:[2-9TJQKA][SHDC])$")
# A card anywhere in a JSON text: found even in a field nobody thought of. Not inside a word
# of URL-safe base64 (table ids, seat tokens), where "-QD_" is two random letters.
CARD_IN_TEXT = re.compile(r"(?<![A-Za-z0-9_-])[2-9TJQKA][SHDC](?![A-Za-z0-9_-])")


def cards_in(obj: Any) -> set[str]:
    """Every card named anywhere in a JSON value (as a string, or a word of an action text)."""
    return set(CARD_IN_TEXT.findall(json.dumps(obj, ensure_ascii=False)))


def mask_cards(mask: int) -> set[str]:
    return {card_str(c) for c in range(52) if mask >> c & 1}


@dataclass
class Recorder:
    """A table client that keeps every message, checking each against the table at the moment it is sent."""

    table: Table
    seat: int | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)

    def send_text(self, text: str) -> None:
        msg = json.loads(text)
        check_hidden(msg, self.seat, self.table.state.hands, text)
        self.messages.append(msg)

    @property
    def last_state(self) -> dict[str, Any]:
        return next(m for m in reversed(self.messages) if m["type"] == "state")

    def errors(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["type"] == "error"]


def check_hidden(msg: dict[str, Any], seat: int | None, hands: list[int], text: str | None = None) -> None:
    """No card held now by another seat appears in a message to ``seat``; its own hand is exact.

    ``text`` is the message as sent (searched as is); ``msg`` is what it decodes to.
    """
    hidden: set[str] = set()
    for s, h in enumerate(hands):
        if s != seat:
            hidden |= mask_cards(h)
    found = CARD_IN_TEXT.findall(json.dumps(msg) if text is None else text)
    last = msg.get("last")
    if last and msg.get("type") == "state" and last["hand_no"] != msg["view"]["hand_no"] and \
            CARD_RE.match(last["action"]):
        found.remove(last["action"])  # played face up in an earlier hand: that one mention is fine
    leaked = hidden & set(found)
    assert not leaked, f"seat {seat} was sent cards it may not see: {sorted(leaked)}"
    if msg.get("type") == "state":
        own = {parse_card(c) for c in msg["view"]["hand"]}
        expected = {c for c in range(52) if seat is not None and hands[seat] >> c & 1}
        if msg["view"]["phase"] not in ("deal", "game_over"):
            assert own == expected


def check_received(msg: dict[str, Any], dealt: set[str]) -> None:
    """Receiver-side check: a message holds only the reader's own dealt cards and cards shown face up."""
    if msg.get("type") != "state":
        return
    view = msg["view"]
    public = set(view["set_aside"]) | {a for _, a in view["history"] if CARD_RE.match(a)}
    for trick in (view["trick"], view["last_trick"]):
        public |= {c for _, c in trick}
    extra = cards_in(msg) - dealt - public
    last = msg.get("last")
    if last and last["hand_no"] != view["hand_no"]:
        extra -= {last["action"]}  # the card that ended the previous hand, played face up
    assert not extra, f"a message showed cards that were neither the reader's nor played: {sorted(extra)}"
