"""Ratings on the server: a finished game of profiles is rated once with its final action, and shown."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests.test_web_ws import app_for, server_of
from tests.web_helpers import fresh_db, query

from barbu.engine.game import Game
from barbu.engine.state import Phase, State
from barbu.web.core.errors import TableError
from barbu.web.core.ports import TableStore
from barbu.web.core.rows import PlayerRow, SeatRow
from barbu.web.people.ladder import entrant, game_result
from barbu.web.people.players import Profiles
from barbu.web.people.ratings import Skill, rate_game
from barbu.web.storage.sqlite import Store, open_store
from barbu.web.tables.lobby import Lobby
from barbu.web.tables.setup import Setup
from barbu.web.tables.table import Table


class Quiet:
    """A client that keeps nothing it is sent: a seat to act from."""

    def __init__(self) -> None:
        self.seat: int | None = None

    def send_text(self, text: str) -> None:
        pass


def person(store: Store, name: str) -> PlayerRow:
    player_id, secret, batch = Profiles(store).plan_create(name)
    store.commit(batch)
    return Profiles(store).authenticate(f"{player_id}:{secret}")


def sit(lobby: Lobby, seats: list[dict[str, Any]], me: PlayerRow | None, **body: Any) -> Table:
    setup = Setup.parse({"name": "Ann", "seats": seats, **body})
    setup.player = me
    return lobby.create(setup)


def play_out(table: Table, people: dict[int, Quiet], seed: int = 5, stop: int | None = None) -> None:
    """Computers play their seats and each person a random legal action, to the end or hand ``stop``."""
    rng = random.Random(seed)
    while not table.state.is_over and (stop is None or table.state.hand_no < stop):
        if table.auto_step():
            continue
        client = people[table.state.current]
        table.act(client, rng.choice(table.view(client.seat)["legal"]))


def attach(table: Table, seat: int) -> Quiet:
    client = Quiet()
    table.attach(client, table.seats[seat].row.token, f"P{seat}")
    return client


RANDOMS = [{"kind": "bot", "level": "random"}] * 2


def count(store: Store, sql: str) -> int:
    return int(query(store, sql)[0][0])


def test_a_finished_game_rates_its_profiles_once(store_target: str) -> None:
    db = store_target
    store = open_store(db)
    ann, ben = person(store, "Ann"), person(store, "Ben")
    lobby = Lobby(store)
    seats = [{"kind": "you"}, {"kind": "open"}, {"kind": "open"}]
    table = sit(lobby, seats, ann, ruleset="family", players=3)
    table.join("Ben", ben)
    people = {0: attach(table, 0), 1: attach(table, 1), 2: attach(table, 2)}
    play_out(table, people, stop=table.game.num_hands - 1)
    assert count(store, "SELECT COUNT(*) FROM ratings") == 0  # not before the last action
    play_out(table, people)
    rows = {r.player_id: r for r in store.ratings_of(ann.id) + store.ratings_of(ben.id)}
    assert set(rows) == {ann.id, ben.id}
    assert all(r.games == 1 and r.ruleset == "family" for r in rows.values())
    places = table.game.places(table.state.totals)
    # The plain name at seat 2 is a newcomer at the default skill, and nothing of it is kept.
    want = rate_game("family", [f"person:{ann.id}", f"person:{ben.id}", "newcomer"], places, {})
    assert rows[ann.id].mu == pytest.approx(want[f"person:{ann.id}"].mu)
    assert rows[ben.id].sigma == pytest.approx(want[f"person:{ben.id}"].sigma)
    assert count(store, "SELECT COUNT(*) FROM rating_history") == 2
    store.close()
    again = open_store(db)  # a restart replays the finished game: it is not rated again
    Lobby(again).load_all()
    assert Lobby(again).get(table.id).state.is_over
    assert count(again, "SELECT COUNT(*) FROM rating_history") == 2
    assert [r.games for r in again.ratings_of(ann.id)] == [1]


def test_a_family_game_ranks_the_lowest_total_first(store_target: str) -> None:
    store = open_store(store_target)
    ann = person(store, "Ann")
    table = sit(Lobby(store), [{"kind": "you"}, *RANDOMS], ann, ruleset="family", players=3)
    play_out(table, {0: attach(table, 0)})
    history = store.rating_history(ann.id, 10)
    totals = table.state.totals
    assert [h.total for h in history] == [totals[0]]
    assert history[0].place == 1 + sum(t < totals[0] for t in totals)
    if history[0].place == 1 and totals.count(totals[0]) == 1:
        # Alone in first place it gains; a first place shared with a weaker computer can cost.
        assert history[0].after[0] > history[0].before[0]
    # Per contract: the engine's hand scores of the seat, summed, one entry per hand played.
    assert sum(n for _, n in history[0].contracts.values()) == table.game.num_hands
    assert sum(t for t, _ in history[0].contracts.values()) == totals[0]


def test_a_game_without_profiles_changes_nothing(store_target: str) -> None:
    store = open_store(store_target)
    table = sit(Lobby(store), [{"kind": "you"}, *RANDOMS], None, ruleset="family", players=3)
    play_out(table, {0: attach(table, 0)})
    assert table.state.is_over
    assert [count(store, f"SELECT COUNT(*) FROM {t}") for t in ("ratings", "rated_games", "rating_history")] \
        == [0, 0, 0]


def test_who_each_seat_is_for_the_ratings() -> None:
    assert entrant(SeatRow(0, "Ann", "tok", "human", "", True, "p1")) == "person:p1"
    assert entrant(SeatRow(0, "Ann", "tok", "bot", "basic", True, "p1")) == "person:p1"  # handed over
    assert entrant(SeatRow(1, "Ben", "tok", "bot", "basic", True)) == ""  # a plain name, handed over
    assert entrant(SeatRow(2, "Computer 3", "", "bot", "pimc", True)) == "computer:pimc"


def refuse_history(store: TableStore, refused: bool) -> None:
    """Make every write of a rating's history fail (as on a full disk), or no longer."""
    if not isinstance(store, Store):
        query(store, "CREATE OR REPLACE FUNCTION no_history() RETURNS trigger LANGUAGE plpgsql AS "
              "$$ BEGIN RAISE EXCEPTION 'disk full'; END $$")
        query(store, "CREATE TRIGGER no_history BEFORE INSERT ON rating_history FOR EACH ROW "
              "EXECUTE FUNCTION no_history()" if refused else "DROP TRIGGER no_history ON rating_history")
    elif refused:
        query(store, "CREATE TRIGGER no_history BEFORE INSERT ON rating_history "
              "BEGIN SELECT RAISE(ABORT, 'disk full'); END")
    else:
        query(store, "DROP TRIGGER no_history")


def test_a_crash_in_the_final_write_rates_nothing(store_target: str) -> None:
    store = open_store(store_target)
    ann = person(store, "Ann")
    table = sit(Lobby(store), [{"kind": "you"}, *RANDOMS], ann, ruleset="family", players=3)
    client = attach(table, 0)
    play_out(table, {0: client}, stop=table.game.num_hands - 1)
    refuse_history(store, True)
    with pytest.raises(TableError) as refused:
        play_out(table, {0: client})
    assert refused.value.code == "storage"
    # The final action was not stored either: the game is not over, and nothing was rated.
    assert not table.state.is_over and not store.is_over(table.id)
    assert count(store, "SELECT COUNT(*) FROM rated_games") == 0
    refuse_history(store, False)
    play_out(table, {0: client})  # tried again, it ends the game and rates it, once
    assert table.state.is_over and [r.games for r in store.ratings_of(ann.id)] == [1]


# -- the API ------------------------------------------------------------------------------------


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(app_for(fresh_db(tmp_path, "api.db"))) as c:
        yield c


def rated_game(client: TestClient, name: str, **body: Any) -> dict[str, str]:
    """A profile, and one finished family game of it against two random computers."""
    res = client.post("/api/players", json={"name": name})
    assert res.status_code == 201
    credential = res.json()["credential"]
    server = server_of(client)
    # Played on a lobby of its own over the server's store, so that the server's computers do not
    # play it at the same time: what is stored is what the server would have stored.
    me = server.profiles.authenticate(credential)
    table = sit(Lobby(server.profiles.store), [{"kind": "you"}, *RANDOMS], me, ruleset="family", players=3,
                **body)
    play_out(table, {0: attach(table, 0)})
    return {"X-Barbu-Player": credential}


def test_a_name_with_a_slash_has_its_page(client: TestClient) -> None:
    rated_game(client, "A/B")
    assert client.get("/api/players/a%2Fb").json()["name"] == "A/B"
    assert client.get("/player/A%2FB").status_code == 200


def test_the_leaderboard_and_a_players_page(client: TestClient) -> None:
    rated_game(client, "Zoë")
    board = client.get("/api/leaderboard/family").json()
    assert [(p["rank"], p["name"], p["games"]) for p in board["players"]] == [(1, "Zoë", 1)]
    row = board["players"][0]
    assert row["rating"] == round(Skill(row["mu"], row["sigma"]).ordinal, 1)
    assert client.get("/api/leaderboard/classic").json()["players"] == []
    page = client.get("/api/players/zoË").json()  # names compare as profiles do: case does not count
    assert page["name"] == "Zoë" and [g["ruleset"] for g in page["games"]] == ["family"]
    assert page["games"][0]["rating"] == page["ratings"]["family"]["rating"]
    assert sum(c["hands"] for c in page["contracts"]["family"].values()) == 21


def test_a_players_page_links_each_listed_game_to_its_replay(client: TestClient) -> None:
    rated_game(client, "Zoë")
    store = server_of(client).profiles.store
    [table_id] = [str(r[0]) for r in query(store, "SELECT table_id FROM rating_history")]
    [game] = client.get("/api/players/Zoë").json()["games"]
    assert game["replay"] == f"/replay/{table_id}"
    assert client.get(game["replay"]).status_code == 200
    timeline = client.get(f"/api/tables/{table_id}/timeline")
    assert timeline.status_code == 200 and timeline.json()["complete"]


def test_a_private_tables_game_has_no_link_on_the_players_page(client: TestClient) -> None:
    rated_game(client, "Yan", private=True)
    store = server_of(client).profiles.store
    [table_id] = [str(r[0]) for r in query(store, "SELECT table_id FROM rating_history")]
    res = client.get("/api/players/Yan")
    [game] = res.json()["games"]
    assert game["replay"] is None and table_id not in res.text


@pytest.mark.parametrize(("url", "status", "code"), [
    ("/api/leaderboard/bridge", 404, "no-such-rules"),
    ("/api/leaderboard/family?top=0", 400, "bad-top"),
    ("/api/leaderboard/family?top=201", 400, "bad-top"),
    ("/api/leaderboard/family?top=-1", 400, "bad-top"),
    ("/api/leaderboard/family?top=1e3", 400, "bad-top"),
    ("/api/leaderboard/family?top=" + "9" * 5000, 400, "bad-top"),
    ("/api/leaderboard/family?top=%EF%BC%95", 400, "bad-top"),  # a full-width digit
    ("/api/players/Nobody", 404, "no-player"),
    ("/api/players/" + "x" * 5000, 404, "no-player"),
    ("/api/players/%00", 404, "no-player"),
])
def test_bad_requests_are_refused(client: TestClient, url: str, status: int, code: str) -> None:
    res = client.get(url)
    assert (res.status_code, res.json()["error"]["code"]) == (status, code)


def test_no_new_answer_carries_a_secret(client: TestClient) -> None:
    auth = rated_game(client, "Yan")
    credential = auth["X-Barbu-Player"]
    store = server_of(client).profiles.store
    secrets = {credential, credential.split(":")[1]}
    secrets |= {str(r[0]) for r in query(store, "SELECT token FROM seats WHERE token != ''")}
    secrets |= {str(r[0]) for r in query(store, "SELECT hash FROM player_keys")}
    secrets |= {str(r[0]) for r in query(store, "SELECT salt FROM player_keys")}
    # A private table is found by its id; a listed one's is public (the lobby showed it), and its
    # replay is linked from the player's page.
    secrets |= {str(r[0]) for r in query(store, "SELECT id FROM tables WHERE private = 1")}
    client.post("/api/me/password", headers=auth, json={"password": "correct horse"})
    secrets |= {str(r[0]) for r in query(store, "SELECT password FROM players WHERE password != ''")}
    for url in ("/api/leaderboard/family", "/api/players/Yan", "/leaderboard", "/player/Yan"):
        text = client.get(url, headers=auth).text
        assert not [s for s in secrets if s and s in text], url
    assert "correct horse" not in client.get("/api/players/Yan").text


def test_one_profile_is_never_two_entrants() -> None:
    with pytest.raises(ValueError, match="two seats"):
        rate_game("classic", ["person:a", "person:a", "computer:basic", "computer:basic"], [1, 2, 3, 4], {})
    rows = [SeatRow(0, "Ann", "t0", "human", "", True, "a"), SeatRow(1, "Ann", "t1", "human", "", True, "a"),
            SeatRow(2, "C", "", "bot", "random", True)]
    game = Game.family(3)
    state = State(game, seed=1)
    rng = random.Random(1)
    while not state.is_over:
        if state.phase == Phase.DEAL:
            state.deal_random()
        else:
            state.apply(rng.choice(state.legal_actions()))
    result = game_result(game, state, rows)  # a profile at two seats (never stored so) is one person
    assert result is not None and result.entrants == ("person:a", "", "computer:random")


def test_a_seat_handed_to_a_computer_still_rates_its_person(store_target: str) -> None:
    store = open_store(store_target)
    ann = person(store, "Ann")
    lobby = Lobby(store, idle_seconds=0.0)  # a person may be handed over at once
    table = sit(lobby, [{"kind": "you"}, {"kind": "open"}, RANDOMS[0]], ann, ruleset="family", players=3)
    people = {0: attach(table, 0), 1: attach(table, 1)}
    rng = random.Random(3)
    last = table.game.num_hands - 1  # she made most of her decisions: the last hand is the computer's
    while table.state.hand_no < last or table.state.current != 0:  # into the last hand, on Ann's turn
        if not table.auto_step():
            client = people[table.state.current]
            table.act(client, rng.choice(table.view(client.seat)["legal"]))
    table.takeover(people[1], 0, "random")  # Ben hands Ann's idle seat to a computer
    assert table.seats[0].is_bot
    play_out(table, {1: people[1]})
    history = store.rating_history(ann.id, 10)
    assert [(h.seat, h.total) for h in history] == [(0, table.state.totals[0])]


def test_a_classic_game_rates_against_the_computers_anchors(store_target: str) -> None:
    store = open_store(store_target)
    ann = person(store, "Ann")
    seats = [{"kind": "you"}, RANDOMS[0], {"kind": "bot", "level": "basic"}, RANDOMS[0]]
    table = sit(Lobby(store), seats, ann)
    play_out(table, {0: attach(table, 0)})
    places = table.game.places(table.state.totals)
    want = rate_game("classic", [f"person:{ann.id}", "computer:random", "computer:basic", "computer:random"],
                     places, {})[f"person:{ann.id}"]
    [row] = store.ratings_of(ann.id)
    assert (row.ruleset, row.games) == ("classic", 1)
    assert (row.mu, row.sigma) == (pytest.approx(want.mu), pytest.approx(want.sigma))


def test_a_game_with_a_chosen_seed_is_never_rated(store_target: str) -> None:
    """Whoever chose the seed knows every deal: such a practice game is not rated, even after a restart."""
    db = store_target
    store = open_store(db)
    ann = person(store, "Ann")
    table = sit(Lobby(store), [{"kind": "you"}, *RANDOMS], ann, ruleset="family", players=3, seed=7)
    play_out(table, {0: attach(table, 0)})
    assert table.state.is_over
    assert store.ratings_of(ann.id) == []
    assert count(store, "SELECT COUNT(*) FROM rating_history") == 0
    store.close()
    again = open_store(db)
    Lobby(again).load_all()
    assert count(again, "SELECT COUNT(*) FROM rating_history") == 0
