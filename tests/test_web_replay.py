"""The replay of finished games: the timeline builder, its endpoints, the analyses and what they refuse."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient
from tests.conftest import ROOT
from tests.test_web_tables import play_by_views
from tests.test_web_ws import app_for, create, receive, server_of
from tests.web_helpers import Recorder, cards_in, fresh_db

from barbu.engine.cards import card_str, parse_card, parse_cards
from barbu.engine.game import PASS, Game
from barbu.engine.hand import Phase
from barbu.engine.record import apply_setup, replay, to_record
from barbu.engine.state import State
from barbu.tools.analyze import analyze
from barbu.web.core.errors import TableError
from barbu.web.http.replay import MAX_RECORD, timeline

GOLDEN = ROOT / "tests" / "data" / "classic_no_queens_golden_doubling.json"


def golden() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(GOLDEN.read_text(encoding="utf-8"))
    return doc


# -- the timeline builder ----------------------------------------------------------------------

def test_the_golden_hand_step_by_step() -> None:
    """RULES 1.5's example: the queens fall at tricks 3, 5, 7 and 8 and the hand stops at card 32."""
    tl = timeline(golden())
    hand = tl["hands"][0]
    steps = hand["steps"]
    assert len(steps) == 32 and [s["ended"] for s in steps] == [False] * 31 + [True]
    actions = golden()["hands"][0]["actions"]
    assert [s["action"] for s in steps] == actions
    # Each card lies in the trick beside the cards before it, and a full trick names its taker.
    for i, s in enumerate(steps):
        start = i - i % 4
        assert [c for _, c in s["trick"]] == actions[start:i + 1]
        assert (s["won_by"] is not None) == (i % 4 == 3)
    takers = {(i + 1) // 4: s["won_by"] for i, s in enumerate(steps) if s["won_by"] is not None}
    assert (takers[3], takers[5], takers[7], takers[8]) == (0, 3, 3, 2)
    points = {(i + 1) // 4: s["points"] for i, s in enumerate(steps) if s["won_by"] is not None}
    assert points[2] == [0, 0, 0, 0] and points[3] == [-6, 0, 0, 0] and points[5] == [-6, 0, 0, -6]
    assert steps[-1]["points"] == [-6, 0, -6, -12] == hand["contract_scores"]
    assert hand["scores"] == [-12, 24, -12, -24] == hand["totals"]
    # B doubles A, C and D; C doubles A, who redoubles: three plain doubles and one redoubled pair.
    assert sorted(map(tuple, hand["doubles"])) == [(1, 0, False), (1, 2, False), (1, 3, False), (2, 0, True)]
    assert hand["deal"][0] == ["AS", "KS", "QS", "5H", "4H", "3H", "2H", "8D", "7D", "6D", "JC", "TC", "9C"]


def test_a_layout_hand_shows_the_rows_as_they_grow() -> None:
    doc = json.loads((ROOT / "tests" / "data" / "family_reussite_ace_extra.json").read_text(encoding="utf-8"))
    hand = timeline(doc)["hands"][0]
    assert hand["layout"] is True
    first = hand["steps"][0]  # the 7♥ opens hearts' row (Réussite: the rank of the first card)
    assert first["action"] == "7H" and first["lines"][1] == [5, 5] and first["lines"][0] == [-1, -1]
    passes = [i for i, s in enumerate(hand["steps"]) if s["action"] == "pass"]
    assert passes and all(hand["steps"][i]["lines"] == hand["steps"][i - 1]["lines"] for i in passes)
    assert hand["steps"][-1]["ended"] and hand["steps"][-1]["points"] == hand["contract_scores"]


def random_record(rules: str, players: int, seed: int, hands: int) -> dict[str, Any]:
    state = State(Game(rules, players), seed=seed)
    rng = random.Random(seed)
    while not state.is_over and state.hand_no < hands:
        if state.phase == Phase.DEAL:
            state.deal_random(rng)
        else:
            state.apply(rng.choice(state.legal_actions()))
    return to_record(state, [f"P{i + 1}" for i in range(players)])


def replay_timeline(tl: dict[str, Any]) -> State:
    """Play a timeline's deals, setups and actions through the engine, checking each card was held."""
    first = tl["hands"][0]["declarer"] if tl["hands"] else 0
    state = State(Game(tl["ruleset"], len(tl["names"]), frozenset(tl["options"])), first_declarer=first)
    for i, hand in enumerate(tl["hands"]):
        held = [parse_cards(" ".join(cards)) for cards in hand["deal"]]
        assert state.deal(held, parse_cards(" ".join(hand["set_aside"])))
        pairs = [[a, b] for a, b, _ in hand["doubles"]] + [[b, a] for a, b, re in hand["doubles"] if re]
        apply_setup(state, {"contract": hand["contract"], "trump": hand["trump"],
                            "start_rank": hand["start_rank"], "doubles": pairs}, i)
        for step in hand["steps"]:
            assert state.current == step["seat"]
            action = PASS if step["action"] == "pass" else parse_card(step["action"])
            assert action == PASS or held[step["seat"]] >> action & 1
            state.apply(action)
    return state


@settings(max_examples=12, deadline=None)
@given(st.sampled_from([("classic", 4), ("family", 3), ("family", 5), ("family", 6)]),
       st.integers(0, 10**6), st.integers(1, 8))
def test_replaying_a_timeline_gives_the_records_scores(table: tuple[str, int], seed: int, hands: int) -> None:
    doc = random_record(*table, seed, hands)
    tl = timeline(doc)
    state = replay_timeline(tl)
    expected = replay(doc).to_json()
    assert state.totals == expected["totals"] == tl["totals"]
    assert [h["scores"] for h in tl["hands"]] == [h["scores"] for h in expected["hands"]]
    for hand in tl["hands"]:
        if hand["steps"]:
            assert hand["steps"][-1]["points"] == hand["contract_scores"]


def test_a_record_that_breaks_a_rule_is_refused_with_its_place() -> None:
    doc = golden()
    doc["hands"][0]["actions"][1] = "AS"  # Ben does not hold it
    with pytest.raises(TableError) as e:
        timeline(doc)
    assert e.value.code == "bad-record" and e.value.status == 422
    assert e.value.slots == {"variant": "action", "hand": 1, "action": 2, "name": "Ben",
                             "rule": "not-your-card", "card": "AS", "reason": e.value.slots["reason"]}
    assert "Ben" in e.value.slots["reason"] and "A♠" in e.value.slots["reason"]


def test_a_compulsory_double_left_out_is_said_of_the_seat_that_owed_it() -> None:
    """The seventh hand of a declarer with the doubles on him taken out: someone owed one."""
    for seed in range(40):
        doc = random_record("classic", 4, seed, 7)
        last = doc["hands"][6]
        last["doubles"] = [p for p in last["doubles"] if last["declarer"] not in p]
        try:
            timeline(doc)
        except TableError as e:
            assert e.slots["variant"] == "hand" and e.slots["hand"] == 7
            assert e.slots["rule"] == "compulsory-double" and e.slots["name"] in doc["players"]
            return
    raise AssertionError("no game of 40 had a compulsory double in its seventh hand")


# -- the endpoints -----------------------------------------------------------------------------

Tables = dict[str, Any]


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Tables:
    """A database with a finished game of four people (their tokens known) and a game just begun."""
    db = fresh_db(tmp_path_factory.mktemp("replay"), "r.db")
    with TestClient(app_for(db)) as client:
        done = create(client, name="P1", seats=[{"kind": "human"}] * 4)
        begun = create(client, name="Q1", seats=[{"kind": "human"}] * 4)
        table = server_of(client).tables.get(done["id"])
        players = []
        tokens = {s["seat"]: s["token"] for s in done["seats"]}
        for s in table.seats:
            rec = Recorder(table, s.row.seat)
            table.attach(rec, tokens[s.row.seat], f"P{s.row.seat + 1}")
            players.append(rec)
        play_by_views(table, players, random.Random(8), hands=table.game.num_hands)
        assert table.state.is_over
        tokens = {s.row.seat: s.row.token for s in table.seats}
        return {"db": db, "done": done["id"], "begun": begun["id"], "tokens": tokens,
                "begun_token": begun["you"]["token"], "totals": list(table.state.totals)}


@pytest.fixture
def client(tables: Tables) -> Iterator[TestClient]:
    with TestClient(app_for(tables["db"], analysis_budget=0.01)) as c:
        yield c


def error(res: Any, status: int, code: str) -> dict[str, Any]:
    assert res.status_code == status, res.text
    err: dict[str, Any] = res.json()["error"]
    assert err["code"] == code, err
    return err


def test_a_finished_game_has_its_timeline_and_the_token_names_its_seat(client: TestClient,
                                                                        tables: Tables) -> None:
    url = f"/api/tables/{tables['done']}/timeline"
    tl = client.get(url).json()
    assert tl["complete"] and len(tl["hands"]) == 28 and tl["totals"] == tables["totals"]
    assert tl["you"] is None and all(len(h["deal"][0]) == 13 for h in tl["hands"])
    mine = client.get(url, headers={"X-Barbu-Token": tables["tokens"][2]})
    assert mine.json()["you"] == 2
    lapsed = client.get(url, headers={"X-Barbu-Token": "nope"})
    assert lapsed.json()["you"] is None


def test_a_game_in_progress_is_never_shown(client: TestClient, tables: Tables) -> None:
    with client.websocket_connect(f"/ws/{tables['begun']}") as ws:  # its first hand is dealt
        ws.send_json({"type": "hello", "token": tables["begun_token"]})
        hand = receive(ws, "state")["view"]["hand"]
        assert len(hand) == 13
    for headers in ({}, {"X-Barbu-Token": tables["begun_token"]}):
        res = client.get(f"/api/tables/{tables['begun']}/timeline", headers=headers)
        error(res, 409, "in-progress")
        assert cards_in(res.json()) == set()
    res = client.post("/api/analysis", json={"table": tables["begun"], "token": tables["begun_token"]})
    error(res, 409, "in-progress")
    assert cards_in(res.json()) == set()
    # Its public record, downloaded and sent back, shows nothing either: no hand is over yet.
    public = client.get(f"/api/tables/{tables['begun']}/record").json()
    res = client.post("/api/timeline", content=json.dumps(public))
    assert error(res, 422, "bad-record")["args"]["variant"] == "whole" and cards_in(res.json()) == set()
    # Nor a public record with finished hands: it holds no deals.
    shown = golden()
    del shown["hands"][0]["deal"]
    res = client.post("/api/timeline", content=json.dumps(shown))
    assert error(res, 422, "bad-record")["args"]["variant"] == "whole" and "'deal' is missing" in res.text


def test_bad_requests_are_refused_precisely(client: TestClient, tables: Tables) -> None:
    error(client.get("/api/tables/nosuch/timeline"), 404, "no-table")
    big = client.post("/api/timeline", content=b" " * (MAX_RECORD + 1))
    assert error(big, 413, "record-too-large")["args"] == {"n": MAX_RECORD // 1024}
    error(client.post("/api/analysis", content=b"[" * (MAX_RECORD + 1)), 413, "record-too-large")
    not_json = client.post("/api/timeline", content=b'{"format": \n nope')
    assert error(not_json, 400, "not-json")["args"] == {"line": 2}
    error(client.post("/api/timeline", content="[1, 2]"), 422, "bad-record")
    damaged = golden()
    damaged["hands"][0]["deal"][1] = damaged["hands"][0]["deal"][0]
    err = error(client.post("/api/timeline", content=json.dumps(damaged)), 422, "bad-record")
    assert err["args"]["variant"] == "hand" and err["args"]["hand"] == 1
    error(client.post("/api/analysis", json={"seat": 0}), 400, "bad-analysis")
    assert error(client.post("/api/analysis", json={"record": golden(), "seat": 4}), 400,
                 "bad-seat")["args"] == {"variant": "analysis", "n": 4}
    error(client.post("/api/analysis", json={"table": tables["done"], "token": "nope"}), 403, "bad-token")
    error(client.post("/api/analysis", json={"table": tables["done"]}), 403, "bad-token")
    error(client.post("/api/analysis", json={"table": "nosuch", "token": "x"}), 404, "no-table")
    error(client.get("/api/analysis/nosuch"), 404, "no-analysis")
    error(client.delete("/api/analysis/nosuch"), 404, "no-analysis")


def wait_for(client: TestClient, job: str, until: Any, seconds: float = 120.0) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        state: dict[str, Any] = client.get(f"/api/analysis/{job}").json()
        if until(state) or time.monotonic() > deadline:
            return state
        time.sleep(0.1)


def test_an_analysis_reports_progress_and_gives_barbu_analyzes_verdicts(client: TestClient) -> None:
    started = client.post("/api/analysis", json={"record": golden(), "seat": 1})
    assert started.status_code == 202
    job = started.json()
    assert job["status"] == "running" and job["total"] > 0 and job["done"] == 0
    done = wait_for(client, job["id"], lambda s: s["status"] != "running")
    assert done["status"] == "done" and done["done"] == done["total"] == job["total"]
    made = analyze(golden(), 1, budget=0.01)
    expected = [(v.hand, v.index, "pass" if v.played == PASS else card_str(v.played), round(v.cost, 2))
                for v in made]
    assert [(v["hand"], v["action"], v["played"], v["cost"]) for v in done["verdicts"]] == expected
    costly = [v for v in done["verdicts"] if v["cost"] >= 2.0]
    assert done["costly"] == sorted(costly, key=lambda v: -v["cost"])
    again = client.post("/api/analysis", json={"record": golden(), "seat": 1}).json()
    assert again["id"] == job["id"] and again["status"] == "done"  # kept per (record, seat)
    other = client.post("/api/analysis", json={"record": golden(), "seat": 2}).json()
    assert other["id"] != job["id"]
    client.delete(f"/api/analysis/{other['id']}")


def test_the_tables_answer_while_an_analysis_runs_and_it_can_be_stopped(tables: Tables) -> None:
    with TestClient(app_for(tables["db"], analysis_budget=0.01, max_analyses=1)) as client:
        mine = {"table": tables["done"], "token": tables["tokens"][0]}
        job = client.post("/api/analysis", json=mine).json()
        assert job["seat"] == 0 and job["total"] > 100
        running = wait_for(client, job["id"], lambda s: s["done"] > 0)
        assert running["status"] == "running"  # the worker is judging decisions now
        with client.websocket_connect(f"/ws/{tables['begun']}") as ws:
            ws.send_json({"type": "ping"})
            assert receive(ws)["type"] == "pong"
        assert client.get(f"/api/tables/{tables['begun']}").status_code == 200
        assert client.get(f"/api/analysis/{job['id']}").json()["status"] == "running"  # answered meanwhile
        busy = client.post("/api/analysis", json={"record": golden(), "seat": 0})  # one at a time each
        assert error(busy, 429, "analysis-under-way")["args"] == {"id": job["id"]}
        stopped = client.delete(f"/api/analysis/{job['id']}").json()
        assert stopped["status"] == "cancelled"
        assert client.post("/api/analysis", json={"record": golden(), "seat": 0}).status_code == 202


def test_no_replay_endpoint_shows_a_hidden_card_of_a_game_in_progress(client: TestClient) -> None:
    """Mid-way through hand 2: nothing any seat, or a watcher, can ask of the replay shows a card."""
    made = create(client, name="Ann", seats=[{"kind": "human"}] * 4)
    table = server_of(client).tables.get(made["id"])
    players = {}
    for s, token in table.tokens():
        players[s] = Recorder(table)
        table.attach(players[s], token, None if table.seats[s].row.claimed else f"P{s}")
    while table.state.hand_no < 1 or len(table.state.actions) < 9:
        seat = table.state.current
        table.act(players[seat], table.state.observe(seat).to_json()["legal"][0])
    answers = []
    for token in [None, *(t for _, t in table.tokens())]:
        headers = {"X-Barbu-Token": token} if token else {}
        answers.append(client.get(f"/api/tables/{made['id']}/timeline", headers=headers))
        answers.append(client.post("/api/analysis", json={"table": made["id"], "token": token}))
        public = client.get(f"/api/tables/{made['id']}/record", headers=headers).json()
        answers.append(client.post("/api/timeline", content=json.dumps(public)))
        answers.append(client.post("/api/analysis", json={"record": public, "seat": 0}))
    assert {a.status_code for a in answers} <= {403, 409, 422}
    for a in answers:
        assert cards_in(a.json()) == set(), a.text


def test_a_server_that_runs_no_analyses_says_so(tables: Tables) -> None:
    with TestClient(app_for(tables["db"], max_analyses=0)) as client:
        res = client.post("/api/analysis", json={"record": golden(), "seat": 0})
        assert error(res, 403, "too-many-analyses")["args"] == {"variant": "none"}
