"""A database made by release 0.1.0 opens with this code: every table, event and sheet kept, migrated once."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from tests.web_helpers import sqlite_only

from barbu.engine.record import to_record
from barbu.web.people.players import Profiles
from barbu.web.serve import CannotStart, check_database
from barbu.web.sheets.sheet import SheetBook
from barbu.web.storage.sqlite import SCHEMA_VERSION, NewerDatabase, Store, migrate
from barbu.web.tables.lobby import Lobby

OLD = Path(__file__).with_name("data") / "old-db"
pytestmark = sqlite_only  # the layouts of older releases' SQLite files (PostgreSQL's: test_web_postgres)


@pytest.fixture
def old(tmp_path: Path) -> Path:
    path = tmp_path / "old.db"
    shutil.copy(OLD / "0.1.0.sqlite", path)
    return path


def expected() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((OLD / "0.1.0.expected.json").read_text(encoding="utf-8"))
    return doc


def counts(path: Path) -> dict[str, int]:
    db = sqlite3.connect(path)
    try:
        return {t: int(db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0])
                for t in ("tables", "seats", "events", "sheets", "sheet_entries")}
    finally:
        db.close()


def test_the_old_file_is_of_the_first_layout() -> None:
    db = sqlite3.connect(OLD / "0.1.0.sqlite")
    try:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 0
        columns = {r[1] for r in db.execute("PRAGMA table_info(seats)")}
    finally:
        db.close()
    assert "player" not in columns and expected()["made_by"] == "release 0.1.0 (commit 2ca9f55)"


def test_every_old_table_and_sheet_replays_to_what_it_was(old: Path) -> None:
    before = counts(old)
    store = Store(str(old))
    try:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        lobby = Lobby(store)
        assert {t.id for t in lobby.load_all()} <= set(expected()["tables"])
        for table_id, was in expected()["tables"].items():
            table = lobby.get(table_id)
            assert table.damaged is None
            assert to_record(table.state, table.names()) == was["record"]
            assert (table.state.hand_no, table.state.is_over, table.state.current) == \
                (was["hand_no"], was["over"], was["current"])
            seats = [{"name": s.row.name, "kind": s.row.kind, "level": s.row.level, "claimed": s.row.claimed,
                      "has_token": bool(s.row.token)} for s in table.seats]
            assert seats == was["seats"]
            assert all(s.row.access == "open" and s.row.player == "" for s in table.seats)
            assert not table.private and table.creator == -1
        book = SheetBook(store)
        for sheet_id, was in expected()["sheets"].items():
            sheet = book.get(sheet_id)
            assert sheet.damaged is None and sheet.doc == was["doc"] and sheet.version == was["version"]
            assert sheet.result is not None and sheet.result.to_json()["totals"] == was["totals"]
    finally:
        store.close()
    assert counts(old) == before


def test_reopening_a_migrated_database_changes_nothing(old: Path) -> None:
    Store(str(old)).close()
    db = sqlite3.connect(old)
    try:
        schema = db.execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall()
        assert migrate(db) == 0  # already at the newest layout: no step runs again
        assert db.execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall() == schema
    finally:
        db.close()
    before = counts(old)
    Store(str(old)).close()
    assert counts(old) == before


def test_profiles_and_friends_seats_work_on_an_old_database(old: Path) -> None:
    store = Store(str(old))
    try:
        lobby, people = Lobby(store), Profiles(store)
        fresh = next(i for i, t in expected()["tables"].items() if t["hand_no"] == 0 and not t["over"])
        player_id, secret, batch = people.plan_create("Zoë")
        store.commit(batch)
        zoe = people.authenticate(f"{player_id}:{secret}")
        seat, token = lobby.get(fresh).join(None, zoe)
        assert lobby.get(fresh).seats[seat].row.name == "Zoë"
        mine = lobby.yours(zoe, None)
        assert [(t["id"], t["seat"], t["link"]) for t in mine] == [(fresh, seat, f"/table/{fresh}#t={token}")]
    finally:
        store.close()
    store = Store(str(old))  # and after a restart
    try:
        assert [t["id"] for t in Lobby(store).yours(Profiles(store).authenticate(f"{player_id}:{secret}"),
                                                    None)] == [fresh]
    finally:
        store.close()


def test_a_database_of_a_newer_release_is_left_alone(old: Path) -> None:
    db = sqlite3.connect(old)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(NewerDatabase, match="newer than this barbu"):
        Store(str(old))
    with pytest.raises(CannotStart, match=r"was made by a newer barbu \(its layout is version \d+, newer"):
        check_database(old, 1.0)  # barbu serve says so in one line, before anything is announced
    assert counts(old)["events"] > 0


# -- ratings on the older layouts: 0.1.0 (user_version 0) and the profiles one (2) ------------------

@pytest.mark.parametrize(("release", "layout"), [("0.1.0", 0), ("0.2.0", 2)])
def test_an_older_database_keeps_everything_and_rates_new_games(tmp_path: Path, release: str,
                                                                layout: int) -> None:
    from tests.test_web_ladder import RANDOMS, attach, person, play_out, sit

    path = tmp_path / "older.db"
    shutil.copy(OLD / f"{release}.sqlite", path)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == layout
    db.close()
    before = counts(path)
    was = json.loads((OLD / f"{release}.expected.json").read_text(encoding="utf-8"))
    store = Store(str(path))
    try:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        lobby = Lobby(store)
        lobby.load_all()
        for table_id, then in was["tables"].items():
            assert to_record(lobby.get(table_id).state, lobby.get(table_id).names()) == then["record"]
        # A game finished before ratings existed is not rated on being replayed.
        assert store.db.execute("SELECT COUNT(*) FROM rated_games").fetchone()[0] == 0
        zoe = person(store, "Zoë")
        table = sit(lobby, [{"kind": "you"}, *RANDOMS], zoe, ruleset="family", players=3)
        play_out(table, {0: attach(table, 0)})
        assert [(r.ruleset, r.games) for r in store.ratings_of(zoe.id)] == [("family", 1)]
    finally:
        store.close()
    after = counts(path)
    assert after["tables"] == before["tables"] + 1 and after["sheets"] == before["sheets"]
    assert after["sheet_entries"] == before["sheet_entries"] and after["events"] > before["events"]
