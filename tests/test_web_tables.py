"""The web tables without the web: setup checks, seats and tokens, acting, computer players, storage."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest
from tests.web_helpers import Recorder, cards_in, mask_cards, sqlite_only

from barbu.engine.record import replay, to_record
from barbu.engine.state import Phase
from barbu.web.core.errors import TableError
from barbu.web.storage.sqlite import Store, open_store
from barbu.web.tables.lobby import Limits, Lobby
from barbu.web.tables.setup import Setup
from barbu.web.tables.table import Table

HUMANS4 = {"seats": [{"kind": "human"}] * 4}


def make(store: Store, body: dict[str, Any], **kw: Any) -> Table:
    return Table.create(store, Setup.parse(body), **kw)


def attach_all(table: Table) -> tuple[list[Recorder], Recorder]:
    """A recorder on every human seat (by its token, taking it with a name) and one spectator."""
    players = []
    for s in table.seats:
        if s.row.token:
            r = Recorder(table)
            table.attach(r, s.row.token, f"P{s.row.seat}")
            players.append(r)
    watcher = Recorder(table)
    table.attach(watcher, None)
    return players, watcher


def play_by_views(table: Table, players: list[Recorder], rng: random.Random, hands: int) -> int:
    """People at every seat play random legal actions taken from their own last view."""
    steps = 0
    by_seat = {p.seat: p for p in players}
    while not table.state.is_over and table.state.hand_no < hands:
        while table.auto_step():
            steps += 1
        if table.state.is_over or table.state.hand_no >= hands:
            break
        client = by_seat[table.state.current]
        view = client.last_state["view"]
        assert view["current"] == client.seat and view["legal"]
        table.act(client, rng.choice(view["legal"]))
        steps += 1
    return steps


def code(e: pytest.ExceptionInfo[TableError]) -> str:
    return e.value.code


@pytest.fixture
def store(store_target: str) -> Store:
    s = open_store(store_target)
    yield s  # type: ignore[misc]
    s.close()


# -- setup -------------------------------------------------------------------------

@pytest.mark.parametrize("body, words", [
    ([], "JSON object"),
    ({"ruleset": "poker"}, "classic' or 'family"),
    ({"ruleset": "classic", "players": 5}, "exactly 4"),
    ({"ruleset": "family", "players": 7}, "3 to 6"),
    ({"players": "4"}, "whole number"),
    ({"options": ["speedy"]}, "options are a list"),
    ({"ruleset": "family", "players": 3, "options": ["overtrump"]}, "classic rules"),
    ({"seats": [{"kind": "human"}]}, "each of the 4"),
    ({"seats": [{"kind": "human"}, {"kind": "robot"}, {"kind": "bot"}, {"kind": "bot"}]}, "each seat"),
    ({"seats": [{"kind": "human"}] + [{"kind": "bot", "level": "godlike"}] * 3}, "unknown computer level"),
    ({"seed": "x"}, "seed"),
    ({"name": "   "}, "give a name"),
])
def test_bad_setups_are_refused_with_a_reason(body: Any, words: str) -> None:
    with pytest.raises(TableError) as e:
        Setup.parse(body)
    assert e.value.code in ("bad-setup", "bad-name") and words in e.value.message


def test_default_setup_is_one_person_against_the_default_computer() -> None:
    setup = Setup.parse({"name": "Ann"})
    assert (setup.ruleset, setup.players, setup.creator) == ("classic", 4, "Ann")
    assert [s["kind"] for s in setup.seats] == ["human", "bot", "bot", "bot"]
    assert setup.seats[1]["level"] == "basic"


@sqlite_only
def test_an_sqlite_file_keeps_its_journal_apart_so_that_reads_go_on_during_a_write(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "wal.db"))
    assert store.journal_mode == "wal"
    store.close()


def test_a_new_table_is_stored_dealt_and_its_creator_seated(store: Store) -> None:
    table = make(store, {"name": "Ann", "seed": 4})
    assert table.state.phase == Phase.CHOOSE  # dealt at once
    assert [e.kind for e in store.events(table.id)] == ["deal"]
    rows = store.load_seats(table.id)
    assert rows[0].name == "Ann" and rows[0].claimed and len(rows[0].token) >= 20
    assert all(r.kind == "bot" and not r.token for r in rows[1:])


# -- seats ------------------------------------------------------------------------

def test_seats_are_taken_by_token_and_a_free_seat_needs_a_name(store: Store) -> None:
    table = make(store, {"seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}]})
    token = table.seats[1].row.token
    client = Recorder(table)
    with pytest.raises(TableError) as e:
        table.attach(client, "not-a-token")
    assert code(e) == "bad-token" and e.value.status == 403
    with pytest.raises(TableError) as e:
        table.attach(client, token)
    assert code(e) == "name-required"
    assert client not in table.clients
    table.attach(client, token, " Ben\x07  Smith ")
    assert client.seat == 1 and table.seats[1].row.name == "Ben Smith"
    assert store.load_seats(table.id)[1].name == "Ben Smith"
    welcome = client.messages[0]
    assert welcome["type"] == "welcome" and welcome["you"] == 1
    assert token not in str(client.messages)  # no message carries a seat token


def test_joining_from_the_lobby_gives_a_fresh_token_and_the_old_link_lapses(store: Store) -> None:
    table = make(store, {"name": "Ann", "seats": [{"kind": "you"}, {"kind": "human"}, {"kind": "bot"},
                                                  {"kind": "bot"}]})
    old = table.seats[1].row.token
    seat, token = table.join("Cleo")
    assert seat == 1 and token != old and table.seat_of_token(old) is None
    assert table.seat_of_token(token) == 1
    with pytest.raises(TableError) as e:
        table.join("Dan")
    assert code(e) == "no-free-seat" and e.value.status == 409


def test_the_lobby_lists_open_tables_and_refuses_unknown_ones(store: Store) -> None:
    now = [1000.0]
    limits = Limits(listed_after_over=60, abandoned_after=600, quiet_after=600)
    lobby = Lobby(store, limits=limits, wall=lambda: now[0])
    t = lobby.create(Setup.parse({"name": "Ann"}))
    done = lobby.create(Setup.parse({"seats": [{"kind": "bot", "level": "random"}] * 4}))
    while done.auto_step():
        pass
    t.active_at = done.active_at = now[0]
    assert [x["id"] for x in lobby.listing()] == [done.id, t.id]  # a finished table, for a while
    assert lobby.listing()[1]["names"][0] == "Ann" and lobby.listing()[0]["over"]
    now[0] += 60
    assert [x["id"] for x in lobby.listing()] == [t.id] and lobby.open_tables() == 1
    now[0] += 540  # nothing happened at Ann's table for 600 s: abandoned, no longer listed or open
    assert lobby.listing() == [] and lobby.open_tables() == 0
    assert lobby.get(t.id) is t and lobby.get(done.id).public_record()["seed"] == done.state.seed
    # After a restart the unfinished tables and the finished ones still listed are rebuilt at
    # once; one finished longer ago when asked for.
    # (Both made at the lobby's clock's same second: which comes first is the ids' order.)
    assert sorted(x.id for x in Lobby(store).load_all()) == sorted([t.id, done.id])
    later = time.time() + 61
    again = Lobby(store, limits=limits, wall=lambda: later)
    assert [x.id for x in again.load_all()] == [t.id] and list(again.tables) == [t.id]
    assert again.get(done.id).state.is_over and again.get(done.id).state.totals == done.state.totals
    for bad in ("nope", "../etc", "x" * 100):
        with pytest.raises(TableError) as e:
            lobby.get(bad)
        assert code(e) == "no-table" and e.value.status == 404


# -- acting ------------------------------------------------------------------------

def test_every_bad_action_is_refused_and_changes_nothing(store: Store) -> None:
    table = make(store, {**HUMANS4, "seed": 11})
    players, watcher = attach_all(table)
    declarer = table.state.declarer
    other = players[(declarer + 1) % 4]
    before = (len(store.events(table.id)), table.state.observe(declarer).to_json())

    cases = [
        (watcher, "no-queens", "not-seated"),
        (other, "no-queens", "not-your-turn"),
        (players[declarer], 42, "bad-action"),
        (players[declarer], "x" * 100, "bad-action"),
        (players[declarer], "flibber", "bad-action"),
        (players[declarer], "QS", "illegal:wrong-phase"),
    ]
    for client, action, expected in cases:
        with pytest.raises(TableError) as e:
            table.act(client, action)
        assert code(e) == expected, (action, e.value.message)
        assert e.value.message
    assert (len(store.events(table.id)), table.state.observe(declarer).to_json()) == before

    table.act(players[declarer], "no-hearts")
    with pytest.raises(TableError) as e:
        table.act(players[declarer], "no-hearts")
    assert code(e) == "not-your-turn"


def test_an_illegal_card_gets_the_rule_that_forbids_it(store: Store) -> None:
    table = make(store, {**HUMANS4, "seed": 3})
    players, _ = attach_all(table)
    rng = random.Random(1)
    table.act(players[table.state.declarer], "no-tricks")
    while table.state.phase != Phase.PLAY:
        table.act(players[table.state.current], "double none")
    leader = players[table.state.current]
    table.act(leader, rng.choice(leader.last_state["view"]["legal"]))
    seat = table.state.current
    view = players[seat].last_state["view"]
    not_mine = sorted(mask_cards(table.state.hands[(seat + 1) % 4]))[0]
    with pytest.raises(TableError) as e:
        table.act(players[seat], not_mine)
    assert code(e) == "illegal:not-your-card"
    off_suit = [c for c in view["hand"] if c not in view["legal"]]
    if off_suit:
        with pytest.raises(TableError) as e:
            table.act(players[seat], off_suit[0])
        assert code(e) == "illegal:follow-suit" and "follow suit" in e.value.message


def test_computer_players_finish_a_whole_game_and_it_replays(store: Store) -> None:
    table = make(store, {"seats": [{"kind": "bot", "level": "random"}] * 4, "seed": 8})
    steps = 0
    while table.auto_step():
        steps += 1
    assert table.state.is_over and table.auto_seat() is None
    assert store.table_ids(include_over=False) == []
    kinds = [e.kind for e in store.events(table.id)]
    assert kinds.count("deal") == 28 and kinds.count("act") == steps
    result = replay(table.public_record())
    assert result.state.totals == table.state.totals and result.state.is_over


def test_a_computer_decision_taken_off_the_loop_is_dropped_once_the_table_moved_on(store: Store) -> None:
    """The server lets a bot think in a worker thread; its answer must not land on a newer position."""
    table = make(store, {"seats": [{"kind": "bot", "level": "basic"}] * 4, "seed": 9})
    move = table.auto_move()
    assert move is not None and move.obs == table.state.observe(move.seat)
    action = move.decide()
    assert table.auto_step()  # meanwhile the table went on without this decision
    before = table.state.observe(0)
    assert not table.auto_apply(move, action)
    assert table.state.observe(0) == before
    fresh = table.auto_move()
    assert fresh is not None and table.auto_apply(fresh, fresh.decide())


def test_a_forced_pass_is_played_for_a_person(store: Store) -> None:
    """In Dominoes a player with no card to place passes without being asked."""
    table = make(store, {**HUMANS4, "seed": 5})
    players, _ = attach_all(table)
    table.act(players[table.state.declarer], "dominoes")
    table.act(players[table.state.declarer], "rank 2")
    while table.state.phase != Phase.PLAY:
        table.act(players[table.state.current], "double none")
    passes = 0
    for _ in range(200):
        if table.auto_seat() is not None:
            assert table.state.legal_actions() == [52]
            table.auto_step()
            passes += 1
        elif table.state.phase == Phase.PLAY:
            player = players[table.state.current]
            table.act(player, player.last_state["view"]["legal"][0])
        else:
            break
    assert passes > 0


# -- idle seats --------------------------------------------------------------------

def test_an_idle_seat_can_be_handed_to_the_computer_and_taken_back(store: Store) -> None:
    now = [1000.0]
    table = make(store, {"seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}],
                         "seed": 2}, idle_seconds=30, clock=lambda: now[0])
    players, watcher = attach_all(table)
    while table.auto_step():
        pass
    idle = table.state.current
    other = players[1 - idle]
    with pytest.raises(TableError) as e:
        table.takeover(watcher, idle)
    assert code(e) == "not-seated"
    with pytest.raises(TableError) as e:
        table.takeover(other, other.seat)
    assert code(e) == "bad-seat"
    with pytest.raises(TableError) as e:
        table.takeover(other, 9)
    assert code(e) == "bad-seat"
    with pytest.raises(TableError) as e:
        table.takeover(other, idle)
    assert code(e) == "not-idle" and "30 s" in e.value.message
    now[0] += 31
    with pytest.raises(TableError) as e:
        table.takeover(other, idle, "wizard")
    assert code(e) == "bad-level"
    table.takeover(other, idle, "random")
    assert table.seats[idle].is_bot and store.load_seats(table.id)[idle].kind == "bot"
    with pytest.raises(TableError) as e:
        table.act(players[idle], "no-tricks")
    assert code(e) == "seat-is-bot"
    assert table.auto_step()  # the computer acts for the idle seat
    table.reclaim(players[idle])
    assert not table.seats[idle].is_bot and store.load_seats(table.id)[idle].kind == "human"
    with pytest.raises(TableError) as e:
        table.reclaim(players[idle])
    assert code(e) == "not-bot"


# -- what each reader sees ---------------------------------------------------------

# On SQLite alone: what a reader is sent is made from the engine's views, whichever store keeps the events
# (both stores' round trips are tested on their own); whole games on each store took a minute.
@pytest.mark.parametrize("store_target", ["sqlite"], indirect=True)
@pytest.mark.parametrize("body, seed", [
    ({**HUMANS4, "ruleset": "classic"}, 21),
    ({"ruleset": "family", "players": 5, "seats": [{"kind": "human"}] * 5}, 22),
    ({"ruleset": "family", "players": 3,
      "seats": [{"kind": "human"}, {"kind": "bot", "level": "basic"}, {"kind": "human"}]}, 23),
])
def test_no_message_ever_shows_a_card_its_reader_may_not_see(store: Store, body: dict[str, Any],
                                                            seed: int) -> None:
    """Whole games: every message to every seat and spectator is checked the moment it is sent."""
    table = make(store, {**body, "seed": seed})
    players, watcher = attach_all(table)  # Recorder checks each message against the hands as they are
    steps = play_by_views(table, players, random.Random(seed), hands=table.game.num_hands)
    assert table.state.is_over and steps > 100
    assert all(not p.errors() for p in [*players, watcher])
    assert watcher.last_state["view"]["hand"] == [] and watcher.last_state["view"]["seat"] is None
    assert all(len(p.messages) > steps for p in players)
    sheets = [m for m in watcher.messages if m["type"] == "sheet"]
    assert len(sheets) == table.game.num_hands + 1  # one on arrival, then one per hand
    assert [len(s["results"]) for s in sheets] == list(range(table.game.num_hands + 1))
    assert sheets[-1]["winners"] == table.state.winners() and sheets[-1]["totals"] == table.state.totals
    # Each player's view is exactly its own observation.
    for p in players:
        assert p.last_state["view"]["totals"] == table.state.totals


def test_the_record_during_play_shows_no_dealt_card_nobody_saw_played(store: Store) -> None:
    table = make(store, {**HUMANS4, "seed": 31})
    players, _ = attach_all(table)
    play_by_views(table, players, random.Random(2), hands=1)
    table.act(players[table.state.declarer], table.state.observe(table.state.declarer).to_json()["legal"][0])
    while table.state.phase != Phase.PLAY:
        table.act(players[table.state.current], players[table.state.current].last_state["view"]["legal"][0])
    doc = table.public_record()
    assert "seed" not in doc and len(doc["hands"]) == 1  # to_record would add the hand in play
    assert len(to_record(table.state, table.names())["hands"]) == 2
    hand = doc["hands"][0]
    assert "deal" not in hand and hand["contract"] and hand["doubles"] is not None
    played = cards_in(hand["actions"])
    assert played and cards_in(doc) == played  # every card named was played face up
    full = to_record(table.state, table.names())["hands"][0]
    assert {k: v for k, v in full.items() if k != "deal"} == hand
    # A seated reader also gets its own dealt cards of each finished hand, nobody else's.
    mine = table.public_record(seat=2)
    assert mine["seat"] == 2 and mine["hands"][0]["own_deal"] == full["deal"][2]
    assert cards_in(mine) == played | set(full["deal"][2].split())


def test_the_whole_record_with_every_deal_and_the_seed_once_the_game_is_over(store: Store) -> None:
    table = make(store, {"seats": [{"kind": "bot", "level": "random"}] * 4, "seed": 5})
    while table.auto_step():
        pass
    doc = table.public_record()
    assert doc == to_record(table.state, table.names()) and doc["seed"] == 5
    assert replay(doc).state.totals == table.state.totals


# -- restart -------------------------------------------------------------------------

def test_a_table_is_rebuilt_from_the_store_exactly(store_target: str) -> None:
    path = store_target
    store = open_store(path)
    table = make(store, {"seats": [{"kind": "human"}, {"kind": "bot"}, {"kind": "human"}, {"kind": "bot"}],
                         "seed": 41, "name": "Ann"})
    players, _ = attach_all(table)
    play_by_views(table, players, random.Random(3), hands=2)
    for _ in range(7):
        while table.auto_step():
            pass
        seat = table.state.current
        table.act(players[[p.seat for p in players].index(seat)],
                  table.state.observe(seat).to_json()["legal"][0])
    views = [table.state.observe(s).to_json() for s in range(4)]
    record, meta = table.public_record(), table.meta()
    store.close()

    store2 = open_store(path)
    again = Table.load(store2, table.id)
    assert again is not None
    assert [again.state.observe(s).to_json() for s in range(4)] == views
    assert again.public_record() == record
    assert again.state.seed == table.state.seed and again.state.hands == table.state.hands
    rebuilt = again.meta()
    # Only the moment-to-moment facts differ: nobody is connected yet, and the turn clock restarted.
    assert {**rebuilt, "turn_age": 0, "seats": None} == {**meta, "turn_age": 0, "seats": None}
    assert [{**s, "connected": False} for s in rebuilt["seats"]] == \
        [{**s, "connected": False} for s in meta["seats"]]
    assert Table.load(store2, "missing") is None
    # Play goes on from there.
    players2, _ = attach_all(again)
    play_by_views(again, players2, random.Random(4), hands=3)
    assert again.state.hand_no == 3
    store2.close()


def test_a_refusal_names_the_players_it_speaks_of(store: Store) -> None:
    """The engine's text counts seats from 0: the page gets the players' names instead."""
    table = make(store, {**HUMANS4, "seed": 11})
    players, _ = attach_all(table)
    declarer = table.state.declarer
    table.act(players[declarer], "trumps")
    table.act(players[declarer], "trump S")
    doubler = table.state.current
    bystander = next(s for s in range(4) if s not in (declarer, doubler))
    with pytest.raises(TableError) as e:
        table.act(players[doubler], f"double {bystander}")
    assert code(e) == "illegal:double-positive"
    assert table.names()[declarer] in e.value.message and "seat" not in e.value.message


def play_to_next_hand(table: Table, person: Recorder, rng: random.Random) -> None:
    """The person plays random legal cards (the computers theirs) until the first hand ends."""
    while table.state.hand_no == 0:
        if not table.auto_step():
            table.act(person, rng.choice(person.last_state["view"]["legal"]))


def test_the_computers_wait_after_a_hand_for_the_pages_that_asked_until_ready(store: Store) -> None:
    clock = [0.0]
    body = {"name": "Ann", "seed": 3, "seats": [{"kind": "human"}, {"kind": "human"}] + [{"kind": "bot"}] * 2}
    table = make(store, body, idle_seconds=30.0, clock=lambda: clock[0])
    ann, ben = Recorder(table), Recorder(table)
    table.attach(ann, table.seats[0].row.token, pace=True)
    table.attach(ben, table.seats[1].row.token, "Ben")  # a page that did not ask: not waited for
    with pytest.raises(TableError) as e:
        table.attach(Recorder(table), None, pace="yes")
    assert code(e) == "bad-pace"
    rng = random.Random(5)
    by_seat = {0: ann, 1: ben}
    while table.state.hand_no == 0:
        if not table.auto_step():
            who = by_seat[table.state.current]
            table.act(who, rng.choice(who.last_state["view"]["legal"]))
    meta = ann.last_state["table"]
    assert meta["waiting"] == [0] and meta["pause_left"] == 30.0 and meta["ready"] == []
    if table.seats[table.state.current].is_bot:
        assert not table.auto_step()  # held: Ann has not said she is ready
    for wrong, why in ((0, "not-this-hand"), (True, "bad-hand"), ("1", "bad-hand")):
        with pytest.raises(TableError) as e:
            table.run(table.plan_ready(ann, wrong))
        assert code(e) == why
    watcher = Recorder(table)
    table.attach(watcher, None)
    with pytest.raises(TableError) as e:
        table.run(table.plan_ready(watcher, 1))
    assert code(e) == "not-seated"
    table.run(table.plan_ready(ann, 1))
    assert table.waiting() == [] and ann.last_state["table"]["ready"] == []  # no pause left to show
    assert table.auto_seat() == (table.state.current if table.seats[table.state.current].is_bot else None)


def test_the_pause_after_a_hand_lapses_after_the_idle_limit_and_when_the_person_leaves(store: Store) -> None:
    clock = [0.0]
    table = make(store, {"name": "Ann", "seed": 3, "seats": [{"kind": "human"}] + [{"kind": "bot"}] * 3},
                 idle_seconds=30.0, clock=lambda: clock[0])
    ann = Recorder(table)
    table.attach(ann, table.seats[0].row.token, pace=True)
    play_to_next_hand(table, ann, random.Random(2))
    assert table.waiting() == [0]
    clock[0] += 29.0
    assert table.waiting() == [0] and table.pause_left() == pytest.approx(1.0)
    clock[0] += 1.0
    assert table.waiting() == []  # nobody holds the table longer than the idle limit
    clock[0] = 0.0
    table.hand_ended_at = 0.0
    assert table.waiting() == [0]
    table.detach(ann)
    assert table.waiting() == []  # gone: not waited for


# -- the turn clock --------------------------------------------------------------

def test_a_turn_clock_is_checked_when_the_table_is_set_up(store: Store) -> None:
    for bad in ({"seconds": 9}, {"seconds": 601}, {"seconds": "30"}, {"seconds": True}, [30],
                {"seconds": 30, "level": "wizard"}):
        with pytest.raises(TableError) as e:
            Setup.parse({"name": "Ann", "turn_clock": bad})
        assert code(e) == "bad-setup"
    assert Setup.parse({"name": "Ann"}).turn_clock is None
    assert Setup.parse({"name": "Ann", "turn_clock": {"seconds": 30}}).turn_clock is not None


def test_a_person_out_of_time_is_played_by_the_stated_computer_until_taking_the_seat_back(
        store: Store) -> None:
    now = [0.0]
    body = {"name": "Ann", "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}],
            "turn_clock": {"seconds": 20, "level": "random"}}
    table = make(store, body, idle_seconds=60.0, clock=lambda: now[0])
    players, _ = attach_all(table)
    while table.auto_step():
        pass
    seat, moves = table.state.current, table.moves
    assert table.meta()["turn_clock"] == {"seconds": 20, "level": "random"}
    assert table.clock_left() == 20.0 and table.meta()["clock_left"] == 20.0
    now[0] += 19.0
    assert table.plan_time_out(moves) is None  # one second still to go
    now[0] += 1.0
    assert table.plan_time_out(moves - 1) is None  # a stale timer changes nothing
    change = table.plan_time_out(moves)
    assert change is not None
    table.run(change)
    assert table.seats[seat].row.kind == "bot" and table.seats[seat].row.level == "random"
    assert Table.load(store, table.id).seats[seat].row.level == "random"  # stored, like any hand-over
    assert table.clock_left() is None  # a computer is to act: no clock runs
    assert table.auto_step() and table.moves == moves + 1
    owner = next(p for p in players if p.seat == seat)
    table.reclaim(owner)
    assert table.seats[seat].row.kind == "human"
    reloaded = Table.load(store, table.id)
    assert reloaded.turn_clock == table.turn_clock  # the clock is part of the stored setup


def test_no_clock_runs_during_the_pause_between_hands_and_it_starts_when_the_pause_ends(
        store: Store) -> None:
    now = [0.0]
    body = {"name": "Ann", "seed": 3, "turn_clock": {"seconds": 15, "level": "basic"}}
    table = make(store, body, idle_seconds=40.0, clock=lambda: now[0])
    ann = Recorder(table)
    table.attach(ann, table.seats[0].row.token, pace=True)
    rng = random.Random(4)
    while table.state.hand_no == 0:
        if not table.auto_step():
            table.act(ann, rng.choice(ann.last_state["view"]["legal"]))
    assert table.waiting() == [0] and table.clock_left() is None
    now[0] += 30.0  # longer than the clock: the pause does not count
    table.run(table.plan_ready(ann, 1))
    while table.auto_step():
        pass
    # Ann declares the first seven hands: her choice of the next contract has a whole clock from
    # the end of the pause, not from the end of the hand.
    assert table.state.current == 0 and table.clock_left() == 15.0


def test_a_free_seat_taken_on_its_turn_has_the_whole_clock(store: Store) -> None:
    now = [0.0]
    body = {"name": "Ann", "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}],
            "turn_clock": {"seconds": 15, "level": "random"}}
    for seed in range(40):  # a deal where the free seat (Ben's) acts first
        table = make(store, {**body, "seed": seed}, idle_seconds=60.0, clock=lambda: now[0])
        while table.auto_step():
            pass
        if table.state.current == 1:
            break
    assert table.state.current == 1 and table.clock_left() is None  # no clock for a free seat
    now[0] += 10.0
    ben = Recorder(table)
    table.attach(ben, table.seats[1].row.token, "Ben")
    assert table.clock_left() == 15.0
