"""The coach at the browser table's socket: a hint to the seat to act, from its own view, refused where
it may not help (another person, a rated game, a watcher, not your turn) and limited per person."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests.test_web_ws import TWO_PEOPLE, app_for, create, error_of, receive, server_of, until_my_turn
from tests.web_helpers import check_hidden, fresh_db

from barbu.engine.cards import card_pretty, card_str
from barbu.web.tables.coaching import refusal

ALONE = [{"kind": "human"}, {"kind": "bot", "level": "basic"}, {"kind": "bot", "level": "basic"},
         {"kind": "bot", "level": "basic"}]
PRETTY = {card_pretty(c): card_str(c) for c in range(52)}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(app_for(fresh_db(tmp_path, "coach.db"))) as c:
        yield c


def hello(client: TestClient, table_id: str, token: str | None) -> Any:
    ws = client.websocket_connect(f"/ws/{table_id}").__enter__()
    ws.send_json({"type": "hello", "token": token})
    assert receive(ws)["type"] == "welcome"
    return ws


def ask(ws: Any, **extra: Any) -> dict[str, Any]:
    ws.send_json({"type": "hint", **extra})
    while True:
        msg: dict[str, Any] = json.loads(ws.receive_text())
        if msg["type"] in ("hint", "error"):
            return msg


def named_cards(event: dict[str, Any]) -> set[str]:
    """Every card an event names, written either way ("QS" or "Q♠"), as ids."""
    text = json.dumps(event, ensure_ascii=False)
    return {PRETTY[p] for p in PRETTY if p in text} | {c for c in PRETTY.values() if c in text.split('"')}


def test_a_person_against_computers_gets_a_hint_naming_a_legal_action(client: TestClient) -> None:
    made = create(client, name="Ann", seats=ALONE, seed=3)
    table = server_of(client).tables.get(made["id"])
    ws = hello(client, made["id"], made["you"]["token"])
    try:
        state = until_my_turn(ws, 0)
        assert state["table"]["coach"] == {"allowed": True, "refusal": None}
        hint = ask(ws)
        assert hint["type"] == "hint", hint
        assert hint["choice"] in state["view"]["legal"] and hint["moves"] == table.moves
        assert hint["gain"] >= 0 and all(r["key"].startswith("coach.") for r in hint["reasons"])
        assert set(hint["values"]) == set(state["view"]["legal"])
        # Nothing of the others' hands: only this seat's cards and cards already played face up.
        check_hidden(hint, 0, table.state.hands)
        view = state["view"]
        public = {c for _, c in view["trick"]} | {a for _, a in view["history"]} | set(view["hand"])
        assert named_cards(hint) <= public, named_cards(hint) - public
        # A warning before a choice: none before the expert's own; any other is weighed against it.
        same = ask(ws, intended=hint["choice"], level="always")
        assert same["type"] == "hint" and same["warn"] is False and same["intended"] == hint["choice"]
        assert ask(ws, intended="nonsense", level="always")["code"] == "bad-action"
        assert ask(ws, intended=hint["choice"], level="sometimes")["code"] == "bad-level"
        # A level that is not text (once a TypeError the server answered "internal"): refused too.
        for odd in ([], {}, 3, None):
            assert ask(ws, intended=hint["choice"], level=odd)["code"] == "bad-level"
    finally:
        ws.__exit__(None, None, None)


def test_a_table_with_two_people_refuses_the_coach_with_its_reason(client: TestClient) -> None:
    made = create(client, name="Ann", seats=TWO_PEOPLE)
    ws = hello(client, made["id"], made["you"]["token"])
    try:
        assert receive(ws, "state")["table"]["coach"] == {"allowed": False, "refusal": "coach.refused.people"}
        refused = error_of(ws, json.dumps({"type": "hint"}))
        assert refused["code"] == "coach-refused" and refused["args"] == {"reason": "coach.refused.people"}
    finally:
        ws.__exit__(None, None, None)


def test_a_rated_table_refuses_the_coach(client: TestClient) -> None:
    made = create(client, name="Ann", seats=ALONE)
    table = server_of(client).tables.get(made["id"])
    assert refusal(table) is None
    row = table.seats[0].row
    table.seats[0].row = dataclasses.replace(row, player="someone")  # tied to a profile: rated at the end
    assert refusal(table) is not None and refusal(table).key == "coach.refused.rated"  # type: ignore[union-attr]
    table.seed_chosen = True  # a practice game whose seed its creator chose is never rated
    assert refusal(table) is None


def test_a_watcher_and_a_seat_not_to_act_are_refused(tmp_path: Path) -> None:
    # The computers wait 5 s before each play: once the person has played, it is not their turn.
    with TestClient(app_for(fresh_db(tmp_path, "slow.db"), bot_delay=5.0)) as client:
        made = create(client, name="Ann", seats=ALONE, seed=3)
        watcher = hello(client, made["id"], None)
        ws = hello(client, made["id"], made["you"]["token"])
        try:
            refused = error_of(watcher, json.dumps({"type": "hint"}))
            assert refused["code"] == "not-seated" and refused["args"] == {"variant": "hint"}
            view = receive(ws, "state")["view"]
            if view["current"] == 0:
                ws.send_json({"type": "act", "action": view["legal"][0]})
                while receive(ws, "state")["view"]["current"] == 0:
                    pass
            assert error_of(ws, json.dumps({"type": "hint"}))["code"] == "coach-not-your-turn"
        finally:
            ws.__exit__(None, None, None)
            watcher.__exit__(None, None, None)


def test_hints_are_limited_per_person(tmp_path: Path) -> None:
    with TestClient(app_for(fresh_db(tmp_path, "few.db"), hints_per_minute=2)) as client:
        made = create(client, name="Ann", seats=ALONE, seed=3)
        ws = hello(client, made["id"], made["you"]["token"])
        try:
            until_my_turn(ws, 0)
            assert ask(ws)["type"] == "hint"
            assert ask(ws)["type"] == "hint"
            fast = ask(ws)
            assert fast["code"] == "hint-too-fast" and fast["args"]["n"] == 2 and fast["args"]["seconds"] >= 1
        finally:
            ws.__exit__(None, None, None)


def test_no_hint_names_a_card_of_another_hand(client: TestClient) -> None:
    """A whole hand of a trick contract, a hint at each of the person's turns: every card a hint or
    a warning names is the reader's own or one played face up (the coach sees the seat's view only)."""
    made = create(client, name="Ann", seats=ALONE, seed=8)
    table = server_of(client).tables.get(made["id"])
    ws = hello(client, made["id"], made["you"]["token"])
    hints = 0
    try:
        while not (state := until_my_turn(ws, 0))["view"]["hands_done"]:
            view = state["view"]
            hint = ask(ws)
            check_hidden(hint, 0, table.state.hands)
            public = {c for _, c in view["trick"]} | {c for _, c in view["last_trick"]} | set(view["hand"])
            public |= {a for _, a in view["history"]}
            assert named_cards(hint) <= public, named_cards(hint) - public
            hints += 1
            choice = hint["choice"]
            if choice == "dominoes":  # it names the cards it lets the others place: a trick contract
                choice = next(a for a in view["legal"] if a != "dominoes")
            ws.send_json({"type": "act", "action": choice})
    finally:
        ws.__exit__(None, None, None)
    assert hints >= 10  # its cards (the last one forced: a hint all the same), a contract or a double


def test_the_hint_limit_has_a_serve_flag_with_the_configs_default(tmp_path: Path) -> None:
    import argparse

    from barbu.web.http.config import Config
    from barbu.web.serve import add_arguments, config_of

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    db = tmp_path / "t.db"
    assert config_of(parser.parse_args([]), db).hints_per_minute == Config("x").hints_per_minute
    assert config_of(parser.parse_args(["--hints-per-minute", "3"]), db).hints_per_minute == 3
