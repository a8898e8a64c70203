"""A shorter family game chosen in the lobby (issue #37 item 18c): checked, stored, shown, ended on time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests.test_web_ladder import RANDOMS, attach, person, play_out, sit
from tests.test_web_ws import app_for
from tests.web_helpers import fresh_db

from barbu.engine.game import Game
from barbu.engine.record import replay
from barbu.web.core.errors import TableError
from barbu.web.storage.sqlite import Store, open_store
from barbu.web.tables.lobby import Lobby
from barbu.web.tables.setup import Setup
from barbu.web.tables.table import Table


@pytest.fixture
def store(store_target: str) -> Any:
    s = open_store(store_target)
    yield s
    s.close()


@pytest.mark.parametrize("bad", [0, -3, 2, 4, 22, 24, 2**70, True, "6", 6.0, [6], {"n": 6}])
def test_rounds_other_than_whole_turns_round_a_family_table_are_refused_in_words(bad: object) -> None:
    with pytest.raises(TableError) as e:
        Setup.parse({"name": "Ann", "ruleset": "family", "players": 3, "rounds": bad})
    assert e.value.code == "bad-setup" and "3, 6, … or 21" in e.value.message


def test_a_classic_game_cannot_be_shortened() -> None:
    with pytest.raises(TableError) as e:
        Setup.parse({"name": "Ann", "rounds": 8})
    assert e.value.code == "bad-setup" and "family game only" in e.value.message


@pytest.mark.parametrize(("players", "rounds"), [(3, 3), (4, 8), (5, 35), (6, 12)])
def test_whole_turns_round_the_table_are_a_shorter_game(players: int, rounds: int) -> None:
    game = Setup.parse({"ruleset": "family", "players": players, "rounds": rounds}).game
    assert (game.rounds, game.num_hands) == (rounds, rounds)
    whole = Setup.parse({"ruleset": "family", "players": players, "rounds": None}).game
    assert whole.num_hands == 7 * players


def test_the_server_answers_bad_rounds_with_a_400_and_shows_good_ones_at_the_table(tmp_path: Path) -> None:
    with TestClient(app_for(fresh_db(tmp_path, "rounds.db"))) as client:
        res = client.post("/api/tables", json={"name": "Ann", "ruleset": "family", "players": 4, "rounds": 9})
        assert res.status_code == 400 and res.json()["error"]["code"] == "bad-setup"
        assert client.get("/api/tables").json()["tables"] == []
        made = client.post("/api/tables", json={"name": "Ann", "ruleset": "family", "players": 4,
                                                "rounds": 8})
        assert made.status_code == 201, made.text
        table = client.get(f"/api/tables/{made.json()['id']}").json()["table"]
        assert (table["rounds"], table["num_hands"]) == (8, 8)
        [listed] = client.get("/api/tables").json()["tables"]
        assert listed["num_hands"] == 8


def test_a_shorter_game_ends_after_its_rounds_with_the_lowest_total_winning(store: Store) -> None:
    ann = person(store, "Ann")
    table = sit(Lobby(store), [{"kind": "you"}, *RANDOMS], ann, ruleset="family", players=3, rounds=6)
    assert store.load_setup(table.id)["rounds"] == 6
    play_out(table, {0: attach(table, 0)})
    state = table.state
    assert state.is_over and state.hand_no == 6 and len(state.history) == 6
    totals = [sum(h.scores[s] for h in state.history) for s in range(3)]
    assert list(state.totals) == totals
    assert state.winners() == [s for s in range(3) if totals[s] == min(totals)]
    # Each player chose twice, and the record says how long the game was: it replays as complete.
    assert sorted(h.declarer for h in state.history) == [0, 0, 1, 1, 2, 2]
    doc = table.public_record()
    assert doc["rounds"] == 6
    again = replay(doc)
    assert again.state.is_over and list(again.state.totals) == totals
    # Read back from the store, the table is the same finished shorter game.
    loaded = Table.load(store, table.id)
    assert loaded.game == Game("family", 3, rounds=6) and loaded.state.is_over
    # The ladder compares whole games: a shorter one is not rated.
    assert store.rating_history(ann.id, 10) == []
