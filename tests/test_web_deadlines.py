"""Tables at your own pace: the deadline and skip rules, the time bank, away, the switch to live, stored."""

from __future__ import annotations

import time
from typing import Any

import pytest
from tests.web_helpers import Recorder

from barbu.web.core.errors import TableError
from barbu.web.core.rows import PaceRow, PlayerBatch, PlayerRow
from barbu.web.people.pace import BANK_CAP, bank_now, plan_pace
from barbu.web.people.players import Profiles
from barbu.web.storage.sqlite import open_store
from barbu.web.tables.deadlines import AWAY_MAX, MAX_SKIPS, Turn, effective_due, on_deadline
from barbu.web.tables.setup import Setup
from barbu.web.tables.table import Table

H = 3600.0


def test_a_passed_deadline_draws_the_bank_then_skips_then_a_computer_plays() -> None:
    turn = Turn(0, 1000.0, 1000.0 + 24 * H, 0)
    assert on_deadline(turn, PaceRow(), 24, 1000.0 + 24 * H - 1) is None  # not yet
    full = on_deadline(turn, PaceRow(bank=BANK_CAP, bank_at=1000.0), 24, 1000.0 + 24 * H)
    assert full is not None and full.kind == "bank" and full.due == 1000.0 + 48 * H and full.left == 0.0
    small = on_deadline(turn, PaceRow(bank=2 * H, bank_at=1000.0 + 24 * H), 24, 1000.0 + 24 * H)
    assert small is not None and (small.kind, small.due, small.used) == ("bank", 1000.0 + 26 * H, 2 * H)
    empty = PaceRow(on_timeout="wait", level="random", bank=0.0, bank_at=1000.0 + 24 * H)
    skip = on_deadline(turn, empty, 24, 1000.0 + 24 * H)
    assert skip is not None and (skip.kind, skip.due) == ("skip", 1000.0 + 48 * H)
    used_up = on_deadline(Turn(0, 1000.0, 1000.0 + 24 * H, MAX_SKIPS), empty, 24, 1000.0 + 24 * H)
    assert used_up is not None and (used_up.kind, used_up.level) == ("computer", "random")
    no_wait = on_deadline(turn, PaceRow(bank=0.0, bank_at=1e12), 24, 1000.0 + 24 * H)
    assert no_wait is not None and no_wait.kind == "computer" and no_wait.level  # the default level


def test_the_bank_refills_an_hour_a_day_up_to_its_cap() -> None:
    assert bank_now(PaceRow(bank=0.0, bank_at=0.0), 24 * H) == pytest.approx(H)
    assert bank_now(PaceRow(bank=BANK_CAP - 10, bank_at=0.0), 30 * 24 * H) == BANK_CAP


def test_away_holds_a_deadline_until_the_return_but_not_beyond_the_bound() -> None:
    turn = Turn(0, 0.0, 24 * H, 0)
    assert effective_due(turn, PaceRow(away_until=5 * 24 * H)) == 5 * 24 * H
    assert effective_due(turn, PaceRow(away_until=60 * 24 * H)) == AWAY_MAX
    assert effective_due(turn, PaceRow(away_until=H)) == 24 * H  # back before the deadline: no change


def test_a_profile_s_choices_are_checked() -> None:
    row = PlayerRow("p1", "Ann", "ann", "", ())
    batch = plan_pace(row, None, {"on_timeout": "wait", "level": "random", "away_until": 2000.0}, 1000.0)
    assert batch.pace == PaceRow("wait", "random", BANK_CAP, 1000.0, 2000.0)
    for bad in ({"on_timeout": "never"}, {"level": "nobody"}, {"away_until": 1000.0 + 15 * 24 * H},
                {"away_until": "soon"}, {"away_until": True}, []):
        with pytest.raises(TableError):
            plan_pace(row, None, bad, 1000.0)


def test_a_profile_s_choices_and_bank_are_stored_alike_by_both_stores(store_target: str) -> None:
    store = open_store(store_target)
    try:
        pid, _, made = Profiles(store).plan_create("Ann")
        store.commit(made)
        assert store.pace_of(pid) is None
        store.commit(PlayerBatch(pid, pace=PaceRow("wait", "random", 1234.5, 99.25, 1e9 + 0.125)))
        assert store.pace_of(pid) == PaceRow("wait", "random", 1234.5, 99.25, 1e9 + 0.125)
        other, _, made = Profiles(store).plan_create("Bob")
        store.commit(made)
        table, batch = Table.plan(store, Setup.parse({"name": "Cy", "own_pace": 12}))
        batch.bank = (other, 10.5, 77.0)  # a bank drawn by a profile that never chose: the defaults kept
        store.commit(batch)
        assert store.pace_of(other) == PaceRow("computer", "", 10.5, 77.0, 0.0)
        assert store.load_setup(table.id)["own_pace"] == 12  # type: ignore[index]
    finally:
        store.close()


# -- at a table ------------------------------------------------------------------------------------

BOTS = [{"kind": "bot", "level": "random"}] * 3


class Wall:
    """The deadlines' clock, moved by the test: it starts now, as the stored times of the events do."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def person(store: Any, name: str, pace: PaceRow | None = None) -> PlayerRow:
    pid, _, made = Profiles(store).plan_create(name)
    store.commit(made)
    if pace is not None:
        store.commit(PlayerBatch(pid, pace=pace))
    row = store.load_player(pid)
    assert row is not None
    return row


def pace_table(store: Any, wall: Wall, player: PlayerRow, hours: int = 24) -> tuple[Table, Recorder]:
    """Ann (``player``) and three computers at a table at your own pace, played up to Ann's first decision."""
    setup = Setup.parse({"name": player.name, "seed": 5, "own_pace": hours,
                         "seats": [{"kind": "you"}, *BOTS]})
    setup.player = player
    table = Table.create(store, setup, wall=wall)
    ann = Recorder(table)
    table.attach(ann, table.seats[0].row.token, player=player)
    while table.auto_step():
        pass
    assert table.state.current == 0
    return table, ann


@pytest.fixture
def store(tmp_path: Any) -> Any:
    s = open_store(str(tmp_path / "pace.db"))
    yield s
    s.close()


def test_a_deadline_passes_bank_skips_then_a_computer_and_each_is_stored(store: Any) -> None:
    wall = Wall()
    ann = person(store, "Ann", PaceRow("wait", "random", 2 * H, wall.now, 0.0))
    table, _ = pace_table(store, wall, ann)
    due = table.deadlines.deadline()
    assert due is not None and due == pytest.approx(wall.now + 24 * H, abs=5)
    assert table.deadlines.step(wall.now) is None  # not yet
    wall.now = due
    assert table.deadlines.step(wall.now) == "bank"
    assert table.deadlines.deadline() == pytest.approx(due + 3 * H)  # 2 h, and 1 h refilled in the day
    assert store.pace_of(ann.id).bank == pytest.approx(0.0)  # drawn, stored with the table's event
    for n in range(MAX_SKIPS):
        due = table.deadlines.deadline()
        assert due is not None
        wall.now = due
        assert table.deadlines.step(wall.now) == "skip"
        assert table.deadlines.skips == {0: n + 1}
    moves = table.moves
    wall.now = table.deadlines.deadline()  # type: ignore[assignment]
    assert table.deadlines.step(wall.now) == "computer"
    assert table.moves > moves and not table.seats[0].is_bot  # one move played; the seat stays Ann's
    acts = [e for e in store.events(table.id) if e.kind == "act" and e.data["seat"] == 0]
    assert acts[-1].data["by"] == "random"
    kinds = [e.data["outcome"] for e in store.events(table.id) if e.kind == "deadline"]
    assert kinds == ["bank"] + ["skip"] * MAX_SKIPS


def test_the_deadline_is_the_same_instant_after_a_restart(store: Any, tmp_path: Any) -> None:
    wall = Wall()
    ann = person(store, "Ann", PaceRow("wait", "random", 0.0, wall.now + 1e6, 0.0))  # an empty bank
    table, _ = pace_table(store, wall, ann, hours=1)
    first = table.deadlines.deadline()
    assert first is not None
    again = Table.load(open_store(str(tmp_path / "pace.db")), table.id, wall=wall)
    assert again is not None and again.deadlines.deadline() == first
    wall.now = first + 5
    assert table.deadlines.step(wall.now) == "skip"
    moved = table.deadlines.deadline()
    assert moved == first + 5 + H
    again = Table.load(open_store(str(tmp_path / "pace.db")), table.id, wall=wall)
    assert again is not None and again.deadlines.deadline() == moved and again.deadlines.skips == {0: 1}


def test_away_extends_the_deadlines_of_that_person_s_seats(store: Any) -> None:
    wall = Wall()
    ann = person(store, "Ann", PaceRow("computer", "random", 0.0, wall.now, wall.now + 5 * 24 * H))
    table, _ = pace_table(store, wall, ann, hours=1)
    assert table.deadlines.deadline() == wall.now + 5 * 24 * H
    wall.now += 2 * H
    assert table.deadlines.step(wall.now) is None  # still away: nothing happens


def test_a_guest_has_no_bank_and_a_computer_plays_at_once(store: Any) -> None:
    wall = Wall()
    table = Table.create(store, Setup.parse({"name": "Guest", "seed": 5, "own_pace": 1,
                                             "seats": [{"kind": "you"}, *BOTS]}), wall=wall)
    table.attach(Recorder(table), table.seats[0].row.token)
    while table.auto_step():
        pass
    wall.now = table.deadlines.deadline()  # type: ignore[assignment]
    assert table.deadlines.step(wall.now) == "computer"


def test_a_live_table_and_a_bad_setup_have_no_deadline(store: Any) -> None:
    table = Table.create(store, Setup.parse({"name": "Ann", "seats": [{"kind": "you"}, *BOTS]}))
    assert table.deadlines.deadline() is None and table.meta()["own_pace"] is None
    for bad in (5, 0, True, "24", [24]):
        with pytest.raises(TableError):
            Setup.parse({"own_pace": bad})
    with pytest.raises(TableError):
        Setup.parse({"own_pace": 24, "turn_clock": {"seconds": 30}})


def test_everyone_agrees_to_play_live_and_anyone_goes_back(store: Any, tmp_path: Any) -> None:
    wall = Wall()
    body = {"name": "Ann", "own_pace": 12, "seats": [{"kind": "you"}, {"kind": "open"}, *BOTS[:2]]}
    table = Table.create(store, Setup.parse(body), wall=wall)
    ann, bob, watcher = Recorder(table), Recorder(table), Recorder(table)
    table.attach(ann, table.seats[0].row.token)
    _, token = table.join("Bob")
    table.attach(bob, token)
    table.attach(watcher, None)
    with pytest.raises(TableError) as refused:
        table.run(table.deadlines.plan_switch(watcher, True))
    assert refused.value.code == "not-seated"
    with pytest.raises(TableError):
        table.run(table.deadlines.plan_switch(ann, "yes"))
    table.run(table.deadlines.plan_switch(ann, True))
    assert table.deadlines.votes == {0} and not table.deadlines.live
    assert table.meta()["own_pace"]["votes"] == [0]
    assert not [e for e in store.events(table.id) if e.kind == "pace"]  # a wish is not stored
    table.run(table.deadlines.plan_switch(bob, True))
    assert table.deadlines.live and table.deadlines.deadline() is None
    with pytest.raises(TableError) as same:
        table.run(table.deadlines.plan_switch(ann, True))
    assert same.value.code == "same-pace"
    reloaded = Table.load(open_store(str(tmp_path / "pace.db")), table.id)
    assert reloaded is not None and reloaded.deadlines.live
    table.run(table.deadlines.plan_switch(bob, False))  # back at your own pace: one person is enough
    assert not table.deadlines.live and table.deadlines.votes == set()
    reloaded = Table.load(open_store(str(tmp_path / "pace.db")), table.id)
    assert reloaded is not None and not reloaded.deadlines.live and reloaded.deadlines.hours == 12


def test_at_your_own_pace_nobody_hands_a_slow_seat_over_and_the_table_stays_listed(store: Any) -> None:
    from barbu.web.tables.lobby import Limits, Lobby

    wall = Wall()
    body = {"name": "Ann", "own_pace": 72, "seats": [{"kind": "you"}, {"kind": "open"}, *BOTS[:2]]}
    lobby = Lobby(store, limits=Limits(quiet_after=60.0), wall=lambda: wall.now + 3 * 86400)
    table = lobby.create(Setup.parse(body))
    ann, bob = Recorder(table), Recorder(table)
    table.attach(ann, table.seats[0].row.token)
    table.attach(bob, table.join("Bob")[1])
    table.turn_since -= 3600.0  # an hour on the turn, far past the idle seconds of a live table
    target = 0 if bob.seat != 0 else 1
    with pytest.raises(TableError) as refused:
        table.run(table.plan_takeover(bob if target == 0 else ann, target))
    assert (refused.value.code, refused.value.slots) == ("not-idle", {"variant": "own-pace"})
    assert lobby.listed(table)  # three quiet days are normal at your own pace
    table.run(table.deadlines.plan_switch(ann, True))
    table.run(table.deadlines.plan_switch(bob, True))
    assert not lobby.listed(table)  # played live, it is quiet like any live table
