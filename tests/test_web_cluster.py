"""Several ``barbu serve --bus`` processes on one database: one table seen alike, takeover after a kill."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from tests.cluster_helpers import Group, flush_bus, services
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from barbu.engine.record import replay

BOTS = [{"kind": "bot", "level": "random"}]


def http(url: str, path: str, body: Any = None, method: str | None = None,
         headers: dict[str, str] | None = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url + path, data=data, method=method or ("GET" if body is None else "POST"),
                                 headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            return res.status, json.load(res)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


def create(url: str, seats: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    status, out = http(url, "/api/tables", {"seats": seats, **more})
    assert status == 201, out
    return out


def owners(group: Group, table_ids: list[str]) -> dict[str, str | None]:
    import redis

    client = redis.Redis.from_url(group.bus, decode_responses=True)
    try:
        return {t: client.get(f"barbu:owner:{t}") for t in table_ids}
    finally:
        client.close()


def proc_ids(group: Group) -> list[str]:
    import redis

    client = redis.Redis.from_url(group.bus, decode_responses=True)
    try:
        return [k.split(":", 2)[2] for k in client.scan_iter("barbu:proc:*")]
    finally:
        client.close()


@pytest.fixture
def group(tmp_path: Path) -> Iterator[Group]:
    db, bus = services(tmp_path)
    flush_bus(bus)
    g = Group(db, bus, tmp_path, ("--idle", "600"))
    try:
        yield g
    finally:
        g.stop()


# -- clients ----------------------------------------------------------------------------------

@dataclass
class Reader:
    """A scripted reader of one table: a person playing random legal actions (with a token), or a watcher.

    It connects to the processes in turn and connects again whenever its socket closes, as the page
    does, until it has seen the game end.
    """

    table: str
    urls: list[str]
    token: str | None = None
    seed: int = 0
    seen: list[tuple[int, int, str]] = field(default_factory=list)  # each new "last" action
    acked: list[tuple[int, int, str]] = field(default_factory=list)  # own actions the server confirmed
    closes: list[int] = field(default_factory=list)
    over: bool = False
    seat: int | None = None
    states: int = 0  # state messages received, over every connection

    async def run(self, deadline: float) -> None:
        rng = random.Random(self.seed)
        turn = self.seed
        while not self.over and time.monotonic() < deadline:
            url = self.urls[turn % len(self.urls)].replace("http", "ws", 1)
            turn += 1
            try:
                async with connect(f"{url}/ws/{self.table}", open_timeout=5) as ws:
                    try:  # the deadline holds inside a connection too: a game that never ends fails
                        await asyncio.wait_for(self._follow(ws, rng), max(0.1, deadline - time.monotonic()))
                    except TimeoutError:
                        return  # the test reports this table as unfinished, with the servers' logs
                    if ws.close_code is not None:
                        self.closes.append(ws.close_code)
            except (OSError, ConnectionClosed, TimeoutError) as e:
                code = getattr(getattr(e, "rcvd", None), "code", None)
                self.closes.append(code or 1006)
                await asyncio.sleep(0.2)

    async def _follow(self, ws: Any, rng: random.Random) -> None:
        await ws.send(json.dumps({"type": "hello", "token": self.token}))
        sent: tuple[int, int, str] | None = None
        async for text in ws:
            msg = json.loads(text)
            if msg["type"] == "welcome":
                self.seat = msg.get("you")
                self.token = msg.get("token", self.token)  # a seat taken now gets a fresh token
            if msg["type"] != "state":
                continue
            self.states += 1
            last = msg["last"]
            if last is not None:
                step = (last["hand_no"], last["seat"], last["action"])
                if not self.seen or self.seen[-1] != step:
                    self.seen.append(step)
                if step == sent:
                    self.acked.append(step)
                    sent = None
            if msg["table"]["over"]:
                self.over = True
                return
            view = msg["view"]
            if self.token is not None and view["current"] == self.seat and view["legal"] and sent is None:
                action = rng.choice(view["legal"])
                sent = (view["hand_no"], self.seat, action)
                await ws.send(json.dumps({"type": "act", "action": action}))


def check_record(doc: dict[str, Any], readers: list[Reader]) -> None:
    """The stored game replays, and every action a reader saw is in it once, in the order seen."""
    replay(doc)  # raises at the first action the rules refuse: one applied twice would be
    for r in readers:
        for hand in {h for h, _, _ in r.seen}:
            stored = doc["hands"][hand]["actions"]
            plays = [a for h, _, a in r.seen if h == hand and a in stored]
            it = iter(stored)
            assert all(a in it for a in plays), f"table {r.table} hand {hand}: {plays} not in {stored}"
        # What the server confirmed to a player is among what it stored: a card or pass in the hand's
        # actions (a contract or a double is checked by the replay, which every later play rests on).
        for hand, _seat, action in r.acked:
            if action in doc["hands"][hand]["actions"] or len(action) == 2:
                assert action in doc["hands"][hand]["actions"], (r.table, hand, action)


async def until(done: Callable[[], bool], seconds: float) -> None:
    """Wait until ``done()`` holds, at most ``seconds`` (the caller's assertion then says what is missing)."""
    deadline = time.monotonic() + seconds
    while not done() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)


def in_order(run: list[Any], seen: list[Any]) -> bool:
    """Whether ``seen`` holds every step of ``run``, one after another in the same order."""
    return any(seen[i:i + len(run)] == run for i in range(len(seen) - len(run) + 1))


# -- two processes ------------------------------------------------------------------------------

def test_two_processes_show_one_table_alike(group: Group) -> None:
    a, b = group.start(2).urls
    made = create(a, [{"kind": "human", "you": True}, *BOTS * 3], name="Ann")
    table, token = made["id"], made["you"]["token"]
    assert owners(group, [table])[table] is not None

    async def both() -> tuple[Reader, Reader]:
        watcher = Reader(table, [b])
        player = Reader(table, [a], token=token, seed=1)
        deadline = time.monotonic() + 40
        watching = asyncio.ensure_future(watcher.run(deadline))
        await until(lambda: watcher.states > 0, 20)  # the watcher follows the table before play begins
        with contextlib.suppress(TimeoutError):  # a whole game is not needed: a good part of it is
            await asyncio.wait_for(player.run(deadline), 8)
        # The player's last actions reach the watcher through the other process a moment later.
        await until(lambda: in_order(player.seen, watcher.seen), 20)
        watching.cancel()
        return watcher, player

    watcher, player = asyncio.run(both())
    assert len(player.acked) > 20, player.closes
    # The watcher, on the other process, saw the same actions in the same order.
    # (The computers may play on after the player stops: the watcher then saw more, after them.)
    assert in_order(player.seen, watcher.seen), (player.seen, watcher.seen)
    status, info = http(b, f"/api/tables/{table}")
    assert status == 200 and info["summary"]["hand_no"] >= 1


def test_a_seat_is_taken_over_http_on_the_process_that_does_not_drive_the_table(group: Group) -> None:
    a, b = group.start(2).urls
    made = create(a, [{"kind": "human", "you": True}, {"kind": "human"}, *BOTS * 2], name="Ann")
    table = made["id"]
    status, joined = http(b, f"/api/tables/{table}/join", {"name": "Bea"})
    assert status == 200, joined
    assert joined["seat"] == 1 and joined["token"]
    for url in (a, b):
        assert http(url, f"/api/tables/{table}")[1]["table"]["seats"][1]["name"] == "Bea"
    # The seat is taken once: a second join finds no free seat, whichever process it reaches.
    status, again = http(b, f"/api/tables/{table}/join", {"name": "Cy"})
    assert status == 409 and again["error"]["code"] == "no-free-seat", again
    status, record = http(b, f"/api/tables/{table}/record", headers={"X-Barbu-Token": joined["token"]})
    assert status == 200 and record["seat"] == 1


def test_the_lobby_of_either_process_lists_every_table(group: Group) -> None:
    a, b = group.start(2).urls
    ids = {create(a, BOTS * 4)["id"], create(b, BOTS * 4)["id"], create(b, BOTS * 4)["id"]}
    assert len(set(owners(group, list(ids)).values())) == 2  # both processes drive some
    # Each process publishes its tables' entries once a second: the other's lobby has them within
    # a few seconds, not at once.
    deadline = time.monotonic() + 10
    for url in (a, b):
        while not ids <= (listed := {t["id"] for t in http(url, "/api/tables")[1]["tables"]}):
            assert time.monotonic() < deadline, (url, ids - listed)
            time.sleep(0.2)


# -- a process killed mid-game ----------------------------------------------------------------

def test_a_killed_process_s_tables_play_on_elsewhere_and_nothing_is_lost(group: Group) -> None:
    urls = group.start(3).urls
    bot_tables = [create(urls[i % 3], BOTS * 4)["id"] for i in range(24)]
    people: list[Reader] = []
    for i in range(3):
        made = create(urls[i], [{"kind": "human", "you": True}, {"kind": "human"}, *BOTS * 2], name="Ann")
        joined = http(urls[(i + 1) % 3], f"/api/tables/{made['id']}/join", {"name": "Bea"})[1]
        people += [Reader(made["id"], urls, token=made["you"]["token"], seed=10 * i),
                   Reader(made["id"], urls, token=joined["token"], seed=10 * i + 1)]
    watchers = [Reader(t, urls, seed=i) for i, t in enumerate(bot_tables)]
    readers = people + watchers
    victim = proc_ids(group)
    before = owners(group, [r.table for r in readers])

    async def play() -> None:
        deadline = time.monotonic() + 150
        running = [asyncio.ensure_future(r.run(deadline)) for r in readers]
        await until(lambda: all(r.seen for r in readers), 60)  # every table under way
        group.kill(1)  # kill -9 mid-game
        await asyncio.gather(*running)

    asyncio.run(play())
    after = owners(group, [r.table for r in readers])
    dead = {p for p in victim if p not in proc_ids(group)}
    assert len(dead) == 1, (victim, proc_ids(group))
    moved = [t for t, o in before.items() if o in dead]
    assert moved, "the killed process drove none of the tables"
    assert all(after[t] not in dead for t in moved)
    unfinished = [r.table for r in readers if not r.over]
    assert not unfinished, f"{len(unfinished)} tables unfinished: {group.logs()}"
    assert any(1012 in r.closes or 1006 in r.closes for r in readers if r.table in moved)
    live = [u for i, u in enumerate(group.urls) if i != 1]
    for table in {r.table for r in readers}:
        status, doc = http(live[0], f"/api/tables/{table}/record")
        assert status == 200, doc
        check_record(doc, [r for r in readers if r.table == table])
