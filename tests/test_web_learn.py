"""The tutorial's HTTP API: the lessons with what is done (a profile's, stored; a guest's kept by the
browser), a lesson's positions and answers in a language, a lesson marked done within the limit, the
malformed requests refused; and a lesson's table: one hand of its contract, the coach on, unrated."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests.test_web_tables import play_by_views
from tests.test_web_ws import app_for, server_of
from tests.web_helpers import Recorder, fresh_db

from barbu.engine.contracts import CLASSIC
from barbu.engine.game import Game
from barbu.learn.lessons import lesson
from barbu.web.tables.rules import figures


def profile(client: TestClient, name: str) -> dict[str, str]:
    made = client.post("/api/players", json={"name": name})
    assert made.status_code == 201, made.text
    return {"X-Barbu-Player": made.json()["credential"]}


def error_of(res: Any, status: int) -> str:
    assert res.status_code == status, res.text
    code: str = res.json()["error"]["code"]
    return code


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return Path(fresh_db(tmp_path, "learn.db"))


def test_a_profile_s_lessons_done_are_stored_and_a_guest_s_are_left_to_the_browser(store_target: str) -> None:
    db = store_target  # SQLite, then PostgreSQL
    with TestClient(app_for(db)) as client:
        guest = client.get("/api/learn").json()
        assert guest["signed_in"] is False and guest["left"] == guest["total"] == 15
        queens = next(x for x in guest["lessons"] if x["id"] == "classic-no-queens")
        assert queens["figures"] == figures(CLASSIC[1]) and queens["positions"] >= 2
        assert next(x for x in guest["lessons"] if x["id"] == "classic-doubling")["contract"] is None
        me = profile(client, "Lena")
        for lesson_id in ("family-salad", "classic-no-queens", "family-salad"):  # twice: kept once
            res = client.post(f"/api/learn/{lesson_id}/done", headers=me)
            assert res.status_code == 200, res.text
        assert res.json() == {"done": ["classic-no-queens", "family-salad"]}
        assert error_of(client.post("/api/learn/classic-trumps/done"), 403) == "bad-profile"
    with TestClient(app_for(db)) as client:  # a new server reads them from the database
        mine = client.get("/api/learn", headers=me).json()
        assert mine["signed_in"] is True and mine["left"] == 13
        assert {x["id"] for x in mine["lessons"] if x["done"]} == {"classic-no-queens", "family-salad"}
        assert client.get("/api/learn").json()["left"] == 15  # nobody else's


def test_marking_lessons_done_is_limited_per_person_and_address(db: Path) -> None:
    with TestClient(app_for(db, lessons_per_minute=2)) as client:
        me = profile(client, "Mo")
        for lesson_id in ("classic-no-tricks", "classic-no-hearts"):
            assert client.post(f"/api/learn/{lesson_id}/done", headers=me).status_code == 200
        assert error_of(client.post("/api/learn/classic-trumps/done", headers=me), 429) == "too-many-lessons"
        other = profile(client, "Nia")  # another person at the same address: the address is over too
        refused = client.post("/api/learn/classic-trumps/done", headers=other)
        assert error_of(refused, 429) == "too-many-lessons"
        assert client.get("/api/learn", headers=me).json()["left"] == 13


@pytest.mark.parametrize(("method", "url", "status", "code"), [
    ("GET", "/api/learn/classic-nothing", 404, "no-such-lesson"),
    ("POST", "/api/learn/classic-nothing/done", 404, "no-such-lesson"),
    ("GET", "/api/learn/classic-no-queens?lang=xx", 400, "bad-lang"),
    ("GET", "/api/learn/classic-no-queens?lang=%ED%A0%80", 400, "bad-lang"),
])
def test_malformed_requests_are_refused(db: Path, method: str, url: str, status: int, code: str) -> None:
    with TestClient(app_for(db)) as client:
        assert error_of(client.request(method, url), status) == code


def test_a_lesson_s_page_shows_the_seat_s_view_and_answers_every_legal_choice(db: Path) -> None:
    x = lesson("classic-no-queens")
    with TestClient(app_for(db)) as client:
        page = client.get("/api/learn/classic-no-queens?lang=fr").json()
        assert client.get("/learn/classic-no-queens").status_code == 200
        assert 'class="drills-page"' in client.get("/learn/drills").text  # not a lesson: the drills' page
    assert page["id"] == x.id and len(page["positions"]) == len(x.positions)
    for p, shown in zip(x.positions, page["positions"], strict=True):
        obs = p.state(x.game).observe(p.seat)
        view = shown["view"]
        assert view["seat"] == p.seat and shown["names"][p.seat] == "Vous"
        assert set(view["hand"]) == {x.game.action_str(c) for c in range(52) if obs.hand >> c & 1}
        assert set(shown["answers"]) == set(view["legal"]) == {x.game.action_str(a) for a in obs.legal}
        right = [a for a, said in shown["answers"].items() if said["right"]]
        assert right == [p.answer] and all(said["expert"] == p.answer for said in shown["answers"].values())
        wrong = shown["answers"][p.natural[0]]
        assert "perdrait" in wrong["lines"][0] and len(wrong["lines"]) >= 3


def test_a_lesson_s_table_is_one_hand_of_its_contract_with_the_coach_unrated(db: Path) -> None:
    with TestClient(app_for(db)) as client:
        made = client.post("/api/tables", json={"lesson": "classic-no-queens", "name": "Zed"})
        assert made.status_code == 201, made.text
        server = server_of(client)
        table = server.tables.get(made.json()["id"])
        meta = client.get(f"/api/tables/{table.id}").json()["table"]
        assert meta["lesson"] == "classic-no-queens" and meta["num_hands"] == 1 and meta["rounds"] == 1
        assert meta["coach"]["allowed"] is True and [c["id"] for c in meta["contracts"]] == ["no-queens"]
        assert table.id not in {t["id"] for t in client.get("/api/tables").json()["tables"]}  # private
        assert table.state.first_declarer == 0 and table.seats[0].row.kind == "human"
        you = Recorder(table, 0)
        table.attach(you, made.json()["you"]["token"], "Zed")
        play_by_views(table, [you], random.Random(5), hands=1)
        assert table.state.is_over and len(table.state.history) == 1
        assert table.state.history[0].contract == "no-queens" and table.state.history[0].declarer == 0
        assert not server.store.rated(table.id)
        record = client.get(f"/api/tables/{table.id}/record").json()
        assert record["contracts"] == ["no-queens"] and record["rounds"] == 1
        doubling = client.post("/api/tables", json={"lesson": "classic-doubling"}).json()
        assert server.tables.get(doubling["id"]).state.first_declarer == 1  # the learner doubles
    with TestClient(app_for(db)) as client:  # loaded again from the database: the same game
        again = server_of(client).tables.get(table.id)
        assert again.game == Game("classic", 4, contract_ids=("no-queens",), rounds=1)
        assert again.lesson == "classic-no-queens" and again.state.totals == table.state.totals


@pytest.mark.parametrize(("body", "words"), [
    ({"lesson": "classic-nothing"}, "no lesson"),
    ({"lesson": 7}, "the id of a lesson"),
    ({"lesson": "family-salad", "seed": 3}, 'only "name" and "pace"'),
    ({"lesson": "family-salad", "pace": "warp"}, '"pace"'),
])
def test_a_lesson_s_table_refuses_what_it_does_not_take(db: Path, body: dict[str, Any], words: str) -> None:
    with TestClient(app_for(db)) as client:
        res = client.post("/api/tables", json=body)
        assert error_of(res, 400) == "bad-setup" and words in res.json()["error"]["message"]
