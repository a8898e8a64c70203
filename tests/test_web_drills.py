"""The practice drills' HTTP API: a drill's view (never its key), an answer for a guest and for a
signed-in person (whose record the profile keeps), the limit per person and address, and refusals."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests.test_web_ws import app_for
from tests.web_helpers import fresh_db, query

from barbu.engine.cards import card_str, sorted_cards
from barbu.learn import drills as d
from barbu.learn.positions import game_for

ID = "classic-no-queens-1"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(app_for(fresh_db(tmp_path, "drills.db"), drills_per_minute=6)) as c:
        yield c


def text(x: d.Drill, action: int) -> str:
    return game_for(x.rules, x.players).action_str(action)


def profile(client: TestClient, name: str) -> dict[str, str]:
    res = client.post("/api/players", json={"name": name})
    assert res.status_code == 201, res.text
    return {"X-Barbu-Player": res.json()["credential"]}


def test_a_drill_is_shown_as_its_seats_view_with_its_choices_and_not_its_key(client: TestClient) -> None:
    x = d.drills()[ID]
    view = client.get(f"/api/drills/{ID}").json()
    assert view["hand"] == [card_str(c) for c in sorted_cards(x.observation().hand)]
    assert view["choices"] == [text(x, a) for a in x.shown()] and view["kind"] == x.kind
    assert "key" not in view and "values" not in view and "reasons" not in view
    listing = client.get("/api/drills").json()
    assert len(listing["contracts"]) == 14 and min(c["drills"] for c in listing["contracts"]) >= 30
    assert listing["figures"]["checked"] >= listing["figures"]["agreed"] > 0
    picked = client.get("/api/drills/next", params={"rules": "family", "contract": "salad"}).json()
    assert picked["rules"] == "family" and picked["contract"] == "salad"


def test_the_next_drill_for_a_guest_is_none_of_the_ids_it_sent(client: TestClient) -> None:
    ids = [i for i, x in d.drills().items() if x.category == "classic:no-king"]
    first, left = ids[:d.RECENT + 1], ids[1]
    sent = ",".join(i for i in first if i != left)  # the last RECENT done: none of them again
    for _ in range(5):
        asked = {"rules": "classic", "contract": "no-king", "recent": sent}
        res = client.get("/api/drills/next", params=asked)
        assert res.json()["id"] not in sent.split(","), res.json()["id"]


def test_a_guests_answer_is_told_right_or_wrong_with_its_cost_and_reasons(client: TestClient) -> None:
    x = d.drills()[ID]
    right = client.post(f"/api/drills/{ID}/answer", json={"choice": text(x, x.key)}).json()
    assert right["right"] and right["cost"] == 0 and right["against"] == text(x, x.tempting())
    assert "record" not in right and right["reasons"]
    wrong = client.post(f"/api/drills/{ID}/answer", json={"choice": text(x, x.choices[1])}).json()
    assert not wrong["right"] and wrong["key"] == text(x, x.key) and wrong["cost"] > 0
    assert [r["key"] for r in wrong["reasons"]] == [r.key for r in x.reasons[x.choices[1]]]


def test_a_signed_in_persons_answers_are_kept_in_their_profile(client: TestClient) -> None:
    ann, ben = profile(client, "Ann"), profile(client, "Ben")
    x = d.drills()[ID]
    for choice in (x.key, x.choices[1], x.choices[2]):
        res = client.post(f"/api/drills/{ID}/answer", json={"choice": text(x, choice)}, headers=ann)
        assert res.status_code == 200, res.text
    record = res.json()["record"]
    assert record["contracts"] == {"classic:no-queens": [1, 3, record["contracts"]["classic:no-queens"][2]]}
    assert record["weakest"] == "classic:no-queens"
    assert client.get("/api/me/drills", headers=ann).json() == record
    empty: dict[str, Any] = {"contracts": {}, "recent": [], "weakest": None}
    assert client.get("/api/me/drills", headers=ben).json() == empty
    stored = query(client.app.state.server.store, "SELECT COUNT(*) FROM drill_records")  # type: ignore[attr-defined]
    assert stored == [(1,)]


def test_answers_past_the_limit_are_refused_per_person_and_address(client: TestClient) -> None:
    x = d.drills()[ID]
    codes = [client.post(f"/api/drills/{ID}/answer", json={"choice": text(x, x.key)}).status_code
             for _ in range(7)]
    assert codes == [200] * 6 + [429]
    refused = client.post(f"/api/drills/{ID}/answer", json={"choice": text(x, x.key)}).json()["error"]
    assert refused["code"] == "too-many-answers" and refused["args"]["n"] == 6


@pytest.mark.parametrize(("method", "url", "body", "status", "code"), [
    ("POST", f"/api/drills/{ID}/answer", {"choice": "2C"}, 400, "bad-choice"),
    ("POST", f"/api/drills/{ID}/answer", {"choice": 3}, 400, "bad-choice"),
    ("POST", f"/api/drills/{ID}/answer", [1], 400, "bad-choice"),
    ("POST", "/api/drills/nope-1/answer", {"choice": "2C"}, 404, "no-such-drill"),
    ("GET", "/api/drills/nope-1", None, 404, "no-such-drill"),
    ("GET", "/api/drills/next?rules=bridge", None, 400, "no-such-rules"),
    ("GET", "/api/drills/next?rules=classic&contract=salad", None, 400, "no-such-contract"),
    ("GET", "/api/drills/next?recent=" + "x" * 1200, None, 414, "bad-drill-query"),
    ("GET", "/api/me/drills", None, 401, "no-profile"),
])
def test_malformed_questions_are_refused(client: TestClient, method: str, url: str, body: Any, status: int,
                                         code: str) -> None:
    res = client.request(method, url, json=body)
    assert res.status_code == status and res.json()["error"]["code"] == code, res.text


def test_a_wrong_credential_is_refused_not_taken_for_a_guest(client: TestClient) -> None:
    res = client.get("/api/me/drills", headers={"X-Barbu-Player": "nobody:secret"})
    assert res.status_code == 403
    x = d.drills()[ID]
    res = client.post(f"/api/drills/{ID}/answer", json={"choice": text(x, x.key)},
                      headers={"X-Barbu-Player": "nobody:secret"})
    assert res.status_code == 403
