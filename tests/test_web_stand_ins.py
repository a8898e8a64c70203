"""A computer standing in for a person (turn clock, hand-over): stored, recorded, and not judged as theirs."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import pytest
from tests.web_helpers import Recorder, fresh_db, sqlite_only

from barbu.engine.record import replay, to_record
from barbu.engine.state import Phase, State
from barbu.tools.analyze import analyze, format_report, main, person_totals
from barbu.web.http.replay import Job, verdict_json
from barbu.web.storage.sqlite import Store, open_store
from barbu.web.tables.setup import Setup
from barbu.web.tables.table import Table

BODY = {"name": "Ann", "seed": 11, "seats": [{"kind": "human"}] + [{"kind": "bot", "level": "random"}] * 3,
        "turn_clock": {"seconds": 20, "level": "random"}}


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return open_store(fresh_db(tmp_path, "stand.db"))


def first_hand_with_a_time_out(store: Store) -> Table:
    """Ann plays a few cards, runs out of time, the computer plays three of hers, she takes it back."""
    now = [0.0]
    table = Table.create(store, Setup.parse(BODY), idle_seconds=60.0, clock=lambda: now[0])
    ann = Recorder(table)
    table.attach(ann, table.seats[0].row.token)
    rng, timed_out = random.Random(3), False
    while table.state.hand_no == 0:
        while table.auto_step():
            if table.seats[0].is_bot and len(table.stand_ins.get(0, {})) >= 3:
                table.reclaim(ann)
        s = table.state
        if s.hand_no != 0:
            break
        if s.phase == Phase.PLAY and not timed_out and len(s.actions) >= 5:
            now[0] += 21.0
            change = table.plan_time_out(table.moves)
            assert change is not None
            table.run(change)
            timed_out = True
            continue
        table.act(ann, rng.choice(ann.last_state["view"]["legal"]))
    return table


def seats_of(doc: dict[str, object]) -> dict[int, int]:
    """Who played each card of the first hand, by its index."""
    who: dict[int, int] = {}

    def look(hand: int, index: int, state: State, action: int) -> None:
        if hand == 0:
            who[index] = state.current
    replay(doc, on_action=look)  # type: ignore[arg-type]
    return who


def test_a_stand_ins_cards_are_stored_in_the_record_and_survive_a_restart(store: Store) -> None:
    table = first_hand_with_a_time_out(store)
    public = table.public_record()
    marked = public["hands"][0]["stand_in"]
    assert len(marked) == 3 and all(level == "random" for _, level in marked)
    whole = to_record(table.state, table.names())
    who = seats_of({**whole, "hands": whole["hands"][:1]})
    assert all(who[i] == 0 for i, _ in marked)  # each is a card of Ann's seat
    reloaded = Table.load(store, table.id)
    assert reloaded is not None and reloaded.public_record() == public
    old = to_record(table.state, table.names())  # a record without the field still replays the same
    marked_doc = {**old, "hands": [{**h, **({"stand_in": marked} if i == 0 else {})}
                                   for i, h in enumerate(old["hands"])]}
    assert replay(old).state.totals == replay(marked_doc).state.totals


def test_the_analysis_marks_the_stand_ins_cards_and_leaves_them_out_of_the_totals(store: Store) -> None:
    table = first_hand_with_a_time_out(store)
    doc = to_record(table.state, table.names())
    doc["hands"] = doc["hands"][:1]
    doc["hands"][0]["stand_in"] = table.public_record()["hands"][0]["stand_in"]
    stood = {i for i, _ in doc["hands"][0]["stand_in"]}
    verdicts = analyze(doc, 0, budget=0.01)
    by_computer = [v for v in verdicts if v.by]
    assert by_computer and {v.index for v in by_computer} <= stood
    assert all(v.by == "random" for v in by_computer)
    own = [v for v in verdicts if not v.by]
    assert own and not {v.index for v in own} & stood
    judged, _, cost = person_totals(verdicts)
    assert (judged, cost) == (len(own), sum(v.cost for v in own))
    report = format_report(doc, 0, verdicts)
    assert "played by the computer (random) standing in: not judged" in report
    assert f"{judged} decision" in report and "left out:" in report
    job = Job("j", "k", 0, len(verdicts), verdicts=[verdict_json(v) for v in verdicts])
    shown = job.to_json()
    assert shown["judged"] == len(own) and shown["stand_ins"] == len(by_computer)
    assert shown["cost"] == pytest.approx(sum(round(v.cost, 2) for v in own))
    assert all("by" not in v for v in shown["costly"])


def test_barbu_analyze_marks_a_stand_ins_cards_and_refuses_a_bad_field(
        store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = first_hand_with_a_time_out(store)
    doc = to_record(table.state, table.names())
    doc["hands"] = doc["hands"][:1]
    marked = table.public_record()["hands"][0]["stand_in"]
    doc["hands"][0]["stand_in"] = marked
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert main([str(path), "--seat", "1", "--seconds", "0.01", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    stood = {i for i, _ in marked}
    assert all(v["by"] == "random" and "cost" not in v for v in out if v["action"] in stood)
    assert all("by" not in v and "cost" in v for v in out if v["action"] not in stood)
    doc["hands"][0]["stand_in"] = [["3", "basic"]]
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert main([str(path), "--seat", "1", "--seconds", "0.01"]) == 1
    assert "stand_in" in capsys.readouterr().err


@sqlite_only
def test_a_table_stored_before_by_was_kept_loads_and_plays_on_with_nothing_marked(store: Store,
                                                                                  tmp_path: Path) -> None:
    table = first_hand_with_a_time_out(store)
    path = store.path  # only SQLite databases were written by servers that stored no "by"
    with sqlite3.connect(path) as db:  # as an older server stored its actions: no "by"
        db.execute("UPDATE events SET data = json_remove(data, '$.by') WHERE kind = 'act'")
    older = Table.load(open_store(path), table.id)
    assert older is not None and older.damaged is None
    record = older.public_record()
    assert all("stand_in" not in h for h in record["hands"])
    assert record == {**table.public_record(), "hands": [{k: v for k, v in h.items() if k != "stand_in"}
                                                         for h in table.public_record()["hands"]]}
