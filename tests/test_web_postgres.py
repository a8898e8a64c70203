"""The tables in PostgreSQL: its layout made and kept by migrations, a newer one refused, an SQLite
database moved into it whole, and a second writer refused rather than let fork a table."""

from __future__ import annotations

import dataclasses
import random
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests.pg_helpers import redis_url
from tests.test_web_ladder import attach, person, play_out, sit
from tests.test_web_ws import app_for, receive, server_of

from barbu.cli import main
from barbu.web.core.ports import TableStore
from barbu.web.core.rows import (
    Batch,
    DeviceRow,
    MailChange,
    PaceRow,
    PlayerBatch,
    PushRow,
    SeatRow,
    SheetBatch,
)
from barbu.web.serve import CannotStart, check_database
from barbu.web.storage import postgres as pgstore
from barbu.web.storage.dbtool import MOVED
from barbu.web.storage.postgres import PgStore
from barbu.web.storage.schema import PG_FIRST_STEP, STEPS, pg_stored, statements
from barbu.web.storage.sqlite import NewerDatabase, Store
from barbu.web.tables.lobby import Lobby

RANDOM = {"kind": "bot", "level": "random"}


def layout_version(url: str) -> int:
    conn = pgstore.connect(url, 5.0)
    try:
        return pgstore.schema_version(conn)
    finally:
        conn.close()


def test_migrating_makes_every_table_once_and_again_changes_nothing(
        pg_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert layout_version(pg_url) == 0
    assert main(["db", "migrate", pg_url]) == 0
    assert f"found layout version 0, left version {pgstore.SCHEMA_VERSION}" in capsys.readouterr().out
    conn = pgstore.connect(pg_url, 5.0)
    try:
        for table in MOVED:
            assert conn.execute("SELECT to_regclass(%s) IS NOT NULL", (table,)).fetchone() == (True,), table
        assert pgstore.migrate(conn) == (pgstore.SCHEMA_VERSION, pgstore.SCHEMA_VERSION)
    finally:
        conn.close()
    assert main(["db", "migrate", pg_url]) == 0
    again = capsys.readouterr().out
    assert f"found layout version {pgstore.SCHEMA_VERSION}, left version {pgstore.SCHEMA_VERSION}" in again
    PgStore(pg_url).close()  # a server's start on it migrates nothing either
    assert layout_version(pg_url) == pgstore.SCHEMA_VERSION


def test_servers_starting_at_once_on_an_empty_database_migrate_it_once(pg_url: str) -> None:
    stores: list[PgStore] = []
    failures: list[BaseException] = []

    def start() -> None:
        try:
            stores.append(PgStore(pg_url))
        except BaseException as e:  # told to the test below, not lost in the thread
            failures.append(e)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == [] and len(stores) == 4
    assert layout_version(pg_url) == pgstore.SCHEMA_VERSION
    for store in stores:
        store.close()


def test_a_database_of_a_newer_barbu_is_refused_and_left_alone(
        pg_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    PgStore(pg_url).close()
    conn = pgstore.connect(pg_url, 5.0)
    conn.execute("UPDATE barbu_schema SET version = %s", (pg_stored(pgstore.SCHEMA_VERSION + 1),))
    conn.close()
    with pytest.raises(NewerDatabase):
        PgStore(pg_url)
    with pytest.raises(CannotStart, match="newer barbu"):
        check_database(pg_url, 5.0)
    assert main(["db", "migrate", pg_url]) == 1
    assert "newer barbu" in capsys.readouterr().err
    assert layout_version(pg_url) == pgstore.SCHEMA_VERSION + 1


def test_the_numbers_postgresql_kept_before_the_steps_were_one_list_are_steps_3_to_5() -> None:
    assert [pg_stored(step) for step in (0, 3, 4, 5)] == [0, 1, 2, 3]
    assert [step.postgres is None for step in STEPS[:PG_FIRST_STEP]] == [True, True, False]


@pytest.mark.parametrize("old", [1, 2, 3])
def test_a_database_at_a_version_of_postgresqls_own_numbering_migrates_on(pg_url: str, old: int) -> None:
    """A database made when PostgreSQL numbered its own steps (1: the first layout, 2: devices, 3:
    clients), with rows in it: opened, it runs only the steps it lacks, and its rows read back."""
    earlier = [step.postgres or "" for step in STEPS[PG_FIRST_STEP - 1:]][:old]  # its steps, as they were
    conn = pgstore.connect(pg_url, 5.0)
    try:
        conn.execute("CREATE TABLE barbu_schema (version INTEGER NOT NULL)")
        conn.execute("INSERT INTO barbu_schema (version) VALUES (%s)", (old,))
        for script in earlier:
            for statement in statements(script):
                conn.execute(statement)
        conn.execute("INSERT INTO tables (id, created, setup) VALUES ('t', 1.0e9, %s)",
                     ('{"ruleset": "classic"}',))
        conn.execute("INSERT INTO seats (table_id, seat, name, token, kind, level, claimed) "
                     "VALUES ('t', 0, 'Ann', 'k', 'human', '', 1)")
        conn.execute("INSERT INTO players (id, name, name_key, created) VALUES ('p', 'Old', 'old', 1.0e9)")
        conn.execute("INSERT INTO player_keys (player_id, salt, hash, created) VALUES ('p', 's', 'h', 1.0e9)")
    finally:
        conn.close()
    assert layout_version(pg_url) == old + 2
    store = PgStore(pg_url)
    try:
        assert [(s.name, s.client) for s in store.load_seats("t")] == [("Ann", "")]
        assert store.devices_of("p") == [DeviceRow("h", 1.0e9, 0.0, "")]
        assert store.append_event("t", "act", {"seat": 0}) == 1
        store.commit(PlayerBatch("p", seen=("h", 2.0e9)))
        assert store.devices_of("p")[0].seen == 2.0e9
    finally:
        store.close()
    assert layout_version(pg_url) == pgstore.SCHEMA_VERSION
    conn = pgstore.connect(pg_url, 5.0)
    try:
        stored = conn.execute("SELECT version FROM barbu_schema").fetchall()
        assert stored == [(pg_stored(pgstore.SCHEMA_VERSION),)]
    finally:
        conn.close()


def test_a_second_writer_of_a_table_is_refused_not_forked(pg_url: str) -> None:
    one, two = PgStore(pg_url), PgStore(pg_url)
    try:
        one.create_table("t", {"ruleset": "classic"}, [SeatRow(0, "Ann", "k", "human", "", True)])
        assert one.append_event("t", "act", {"n": 1}) == 1
        assert two.append_event("t", "act", {"n": 2}) == 2  # the other process writes next
        with pytest.raises(sqlite3.IntegrityError):
            one.append_event("t", "act", {"n": 3})  # planned on a history without event 2
        with pytest.raises(sqlite3.IntegrityError):
            one.commit(Batch("t", events=[("act", {"n": 4})], over=True))  # and so is the next
        assert [(e.seq, e.data) for e in two.events("t")] == [(1, {"n": 1}), (2, {"n": 2})]
        assert not two.is_over("t")  # the refused batch left nothing: not even its end of the game
        one.forget("t")  # once it has taken the table over from the stored events
        assert one.append_event("t", "act", {"n": 3}) == 3
        conn = pgstore.connect(pg_url, 5.0)
        with pytest.raises(Exception, match="duplicate key"):
            conn.execute("INSERT INTO events (table_id, seq, kind, data, at) VALUES (%s, %s, %s, %s, %s)",
                         ("t", 2, "act", "{}", time.time()))
        conn.close()
    finally:
        one.close()
        two.close()


def test_the_store_connects_again_when_postgresql_drops_its_connections(pg_url: str) -> None:
    store = PgStore(pg_url)
    try:
        store.create_table("t", {"ruleset": "classic"}, [SeatRow(0, "Ann", "k", "human", "", True)])
        admin = pgstore.connect(pg_url, 5.0)
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                      "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        admin.close()
        assert store.load_seats("t")[0].name == "Ann"  # a read is simply asked again
        with pytest.raises(sqlite3.OperationalError):
            store.append_event("t", "act", {"n": 1})  # a write is not: it fails as a storage error
        assert store.append_event("t", "act", {"n": 1}) == 1  # and the next one has a new connection
        assert [e.data for e in store.events("t")] == [{"n": 1}]
    finally:
        store.close()


def test_the_test_redis_keeps_nothing_on_disk() -> None:
    import redis

    client = redis.Redis.from_url(redis_url())
    try:
        assert client.config_get("save") == {"save": ""}
        assert client.config_get("appendonly") == {"appendonly": "no"}
    finally:
        client.close()


def test_an_unreachable_server_is_refused_in_one_line_and_a_password_never_shown() -> None:
    with pytest.raises(CannotStart) as refused:
        check_database("postgresql://ann:secret@127.0.0.1:1/x", 1.0)
    said = str(refused.value)
    assert said.startswith("cannot use the database postgresql://ann:***@127.0.0.1:1/x: ")
    assert "secret" not in said and "\n" not in said.strip()
    assert pgstore.shown("postgres://ann:s%40cret@db.example:5432/barbu") == \
        "postgres://ann:***@db.example:5432/barbu"
    assert pgstore.shown("postgresql://ann@db.example/barbu") == "postgresql://ann@db.example/barbu"


# -- barbu db move ------------------------------------------------------------------------------

def filled_sqlite(path: Path) -> tuple[str, str]:
    """An SQLite database with a rated game over, an unfinished one, profiles, a code and a sheet.

    Returns the unfinished table's id and the token of its person's seat.
    """
    store = Store(str(path))
    ann, ben = person(store, "Ann"), person(store, "Ben")
    store.commit(PlayerBatch(ben.id, transfer=("code-hash", time.time() + 3600)))
    store.commit(PlayerBatch(ann.id, lesson_done="family-salad"))  # the tutorial's progress moves too
    # and the choices at your own pace, the time bank and away included
    store.commit(PlayerBatch(ann.id, pace=PaceRow("wait", "expert", 5400.5, 1.9e9, 1.95e9)))
    store.commit(PlayerBatch(ann.id, push=PushRow("https://push.example/ann", "BKey", "auth", "fr"),
                             quiet=("table-x", True)))
    store.commit(PlayerBatch(ann.id, mail=MailChange("ann@example.org", "fr", "code-hash", 1.9e9, "unsub")))
    store.commit(PlayerBatch(ann.id, mail_confirm=("code-hash", 1.8e9), mail_events=("turn", "digest"),
                             digest_day="2026-12-06"))
    lobby = Lobby(store)
    done = sit(lobby, [{"kind": "you"}, {"kind": "open"}, RANDOM], ann, ruleset="family", players=3)
    done.join("Ben", ben)
    play_out(done, {0: attach(done, 0), 1: attach(done, 1)})
    # No chosen seed: a game with one is never rated, and this one must be once it ends after the move.
    going = sit(lobby, [{"kind": "you"}, RANDOM, RANDOM], ann, ruleset="family", players=3)
    play_out(going, {0: attach(going, 0)}, stop=1)
    # A free seat held for a profile by name (its invitation) moves with its table.
    held = sit(lobby, [{"kind": "you"}, {"kind": "open"}, RANDOM], ann, ruleset="family", players=3)
    store.commit(Batch(held.id, seats=[dataclasses.replace(held.seats[1].row, invited=ben.id,
                                                           invited_at=1.9e9)]))
    store.commit(SheetBatch("sheet1", {"ruleset": "classic", "players": ["A", "B", "C", "D"], "hands": []},
                            0, None, {"kind": "create"}, token="write"))
    store.commit(SheetBatch("sheet1", {"ruleset": "classic", "players": ["A", "B", "C", "E"], "hands": []},
                            1, "entry1", {"kind": "edit"}))
    token = going.seats[0].row.token
    store.close()
    return going.id, token


def answers(store: TableStore) -> dict[str, Any]:
    """Everything the store tells of its tables, profiles, ratings and sheets."""
    ids = store.table_ids()
    lobby = Lobby(store)
    people = sorted({s.player for t in ids for s in store.load_seats(t) if s.player})
    return {
        "index": store.table_index(),
        "tables": {t: (store.load_setup(t), store.load_seats(t), store.events(t), store.origin(t),
                       store.table_flags(t), store.is_over(t), store.rated(t), store.last_change(t),
                       lobby.get(t).public_record()) for t in ids},
        "people": {p: (store.load_player(p), store.ratings_of(p), store.rating_history(p, 10),
                       store.tables_of_player(p), store.lessons_of(p), store.pace_of(p),
                       store.push_of(p), store.push_quiet(p, "table-x"),
                       store.mail_of(p), store.invitations_of(p)) for p in people},
        "board": store.leaderboard("family", 10),
        "transfer": store.transfer("code-hash"),
        "sheet": (store.load_sheet("sheet1"), store.sheet_entry("sheet1", "entry1"),
                  store.sheet_history("sheet1")),
    }


def test_a_moved_database_answers_alike_and_its_unfinished_game_plays_on(
        tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "old.db"
    going, token = filled_sqlite(path)
    sqlite = Store(str(path))
    before = answers(sqlite)
    sqlite.close()
    assert main(["db", "move", str(path), pg_url]) == 0
    said = capsys.readouterr().out
    for rows in ("3 tables", "2 players", "1 transfers", "1 rated_games", "2 rating_history", "1 sheets",
                 "1 lessons_done", "1 player_pace", "1 push_subscriptions",
                 "1 push_quiet", "1 mail_addresses"):
        assert rows in said
    moved = PgStore(pg_url)
    assert answers(moved) == before
    moved.close()
    assert main(["db", "move", str(path), pg_url]) == 1  # into a database that holds tables: refused
    assert "--into-used" in capsys.readouterr().err

    with TestClient(app_for(pg_url)) as client:  # type: ignore[arg-type]  # a URL where a path goes
        table = server_of(client).tables.get(going)
        assert not table.state.is_over
        rng = random.Random(3)
        with client.websocket_connect(f"/ws/{going}") as ws:
            ws.send_json({"type": "hello", "token": token})
            while (view := receive(ws, "state")["view"])["phase"] != "game_over":
                if view["current"] == 0 and view["legal"]:
                    ws.send_json({"type": "act", "action": rng.choice(view["legal"])})
        assert table.state.is_over
    again = PgStore(pg_url)
    try:
        assert again.is_over(going) and again.rated(going)
        assert len(again.events(going)) > len(before["tables"][going][2])
    finally:
        again.close()


def test_a_move_into_a_used_database_is_refused_unless_asked(
        tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = tmp_path / "a.db", tmp_path / "b.db"
    one = Store(str(first))
    one.create_table("a", {"ruleset": "classic"}, [SeatRow(0, "Ann", "k", "human", "", True)])
    one.close()
    two = Store(str(second))
    two.create_table("b", {"ruleset": "classic"}, [SeatRow(0, "Bob", "j", "human", "", True)])
    two.append_event("b", "act", {"n": 1})
    two.close()
    assert main(["db", "move", str(first), pg_url]) == 0
    assert main(["db", "move", str(second), pg_url]) == 1
    assert "already holds 1 tables, 1 seats" in capsys.readouterr().err
    assert main(["db", "move", str(second), pg_url, "--into-used"]) == 0
    store = PgStore(pg_url)
    assert store.table_ids() == ["a", "b"] and [e.data for e in store.events("b")] == [{"n": 1}]
    store.close()
    assert main(["db", "move", str(second), pg_url, "--into-used"]) == 1  # its ids are there: nothing kept
    store = PgStore(pg_url)
    assert len(store.events("b")) == 1
    store.close()


def test_a_move_refuses_a_file_a_server_is_serving(
        tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "busy.db"
    Store(str(path)).close()
    from barbu.web.storage.sqlite import exclusive

    with exclusive(str(path)):  # as a running barbu serve holds it
        assert main(["db", "move", str(path), pg_url]) == 1
    assert "stop it first" in capsys.readouterr().err
    assert layout_version(pg_url) == 0  # nothing was done to the target


def test_two_processes_rating_one_person_at_once_both_count() -> None:
    """Two games of one person end at the same moment on two connections: each is counted, none lost."""
    from tests.pg_helpers import new_database
    from tests.test_web_ladder import person

    from barbu.web.core.rows import GameResult

    url = new_database()
    stores = [PgStore(url), PgStore(url)]
    try:
        ann = person(stores[0], "Ann")  # type: ignore[arg-type]  # a Store is asked for; a PgStore will do
        rounds = 6
        for n in range(2 * rounds):
            rows = [SeatRow(i, f"Seat {i}", "", "bot", "random", True) for i in range(4)]
            stores[0].commit(Batch(f"R{n}", seats=rows, create={"ruleset": "classic", "players": 4}))
        entrants = ("person:" + ann.id, "computer:random", "computer:random", "computer:random")
        result = GameResult("classic", entrants, (1, 2, 3, 4), (10, 0, -5, -5), ({}, {}, {}, {}))

        def end(start: threading.Barrier, i: int, table_id: str) -> None:
            start.wait()  # both read the rating at about the same moment
            stores[i].commit(Batch(table_id, events=[("chat", {"text": "over"})], result=result))
        for r in range(rounds):
            start = threading.Barrier(2)
            threads = [threading.Thread(target=end, args=(start, i, f"R{2 * r + i}")) for i in range(2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        rating = stores[0].ratings_of(ann.id)
        assert [row.games for row in rating] == [2 * rounds]
        assert len(stores[0].rating_history(ann.id, 100)) == 2 * rounds
    finally:
        for store in stores:
            store.close()
