"""Four friends play one game at their own pace over a simulated week, as issue #40 ends, end to end.

At the HTTP and WebSocket level: invitations by name told by push (decrypted) and mail (read from a local
SMTP server), each turn told only to who is away, Dan away two days, Cleo's deadline drawing her bank then
waiting, a restart midway on the same database, an evening played live, and the game's end told with its
places. The server's clock (Config.wall) jumps hours and days: nothing sleeps. ``pytest -s`` prints the
week's diary."""

from __future__ import annotations

import random
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pywebpush")
pytest.importorskip("aiosmtpd")
from aiosmtpd.controller import Controller
from py_vapid import Vapid
from starlette.testclient import TestClient
from tests.test_web_mail import Inbox, confirmed, parts
from tests.test_web_notify import Browser, PushService
from tests.test_web_ws import app_for, server_of
from tests.web_helpers import fresh_db

from barbu.web.http.mail import Smtp

H = 3600.0
DAY = 24 * H
SITE = "https://barbu.example"
FRIENDS = ("Ben", "Cleo", "Dan")
BOTS = [{"kind": "bot", "level": "random"}] * 3
GAME = {"ruleset": "family", "rounds": 4, "own_pace": 24,
        "seats": [{"kind": "you"}, *[{"kind": "friend"}] * 3]}


class Clock:
    """The server's wall clock (Config.wall), moved by the test: Monday 08:00 UTC of some week ahead."""

    def __init__(self) -> None:
        self.now = 2_000_000_000.0 - 2_000_000_000.0 % (7 * DAY) + 4 * DAY + 8 * H  # a Monday, 08:00 UTC

    def __call__(self) -> float:
        return self.now

    def at(self, day: int, hour: float) -> None:
        """Move to ``hour`` o'clock of day ``day`` (0: Monday), never back."""
        start = self.now - (self.now - 4 * DAY) % (7 * DAY)
        target = start + day * DAY + hour * H
        assert target >= self.now
        self.now = target


class Week:
    """The four friends, what each was told, and the diary."""

    def __init__(self, push: PushService, box: Inbox, clock: Clock) -> None:
        self.push, self.box, self.clock = push, box, clock
        self.who: dict[str, dict[str, str]] = {}  # profile header of each
        self.browser: dict[str, Browser] = {}
        self.diary: list[str] = []
        self.rng = random.Random(40)
        self.pushes: dict[str, int] = {}  # pushes read so far, per person
        self.mails: dict[str, int] = {}
        self.over: list[tuple[str, str, Any]] = []  # "the game is over": (person, push or mail, what came)

    def note(self, text: str) -> None:
        day = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")[int((self.clock.now - 4 * DAY) // DAY) % 7]
        hour = int((self.clock.now % DAY) // H)
        self.diary.append(f"{day} {hour:02d}:{int(self.clock.now % H // 60):02d}  {text}")

    def new_pushes(self, name: str) -> list[dict[str, Any]]:
        """The pushes to ``name``'s browser since last asked, decrypted with its keys."""
        end = len(self.push.received)  # appended to by the push service's threads
        mine = [b for p, _, b in self.push.received[self.pushes.get(name, 0):end] if p == f"/push/{name}"]
        self.pushes[name] = end
        return [self.browser[name].read(b) for b in mine]

    def new_mails(self, name: str) -> list[Any]:
        """The mails to ``name`` since last asked (only the new ones are looked at: headers parse slowly)."""
        with self.box.lock:
            fresh = self.box.mails[self.mails.get(name, 0):]
            self.mails[name] = len(self.box.mails)
        return [m for m in fresh if m["To"] == f"{name.lower()}@example.org"]


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[PushService, Inbox, int, Path]]:
    push, box = PushService(), Inbox()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    smtp = Controller(box, hostname="127.0.0.1", port=port)
    smtp.start()
    yield push, box, port, tmp_path_factory.mktemp("week")
    smtp.stop()
    push.http.shutdown()


def until(done: Any, seconds: float = 10.0) -> None:
    """Poll (finely: it runs after each of some 200 moves) until ``done()``, or fail."""
    end = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < end, "not in time"
        time.sleep(0.002)


def serve(where: Path, port: int, clock: Clock, name: str = "week.db") -> TestClient:
    if not (where / "vapid.pem").exists():
        key = Vapid()
        key.generate_keys()
        key.save_key(str(where / "vapid.pem"))
    db = where / name if (where / name).exists() else Path(fresh_db(where, name))
    return TestClient(app_for(db, vapid_key=str(where / "vapid.pem"), push_any_endpoint=True,
                              smtp=Smtp("smtp", "127.0.0.1", port, None, None),
                              mail_from="barbu@barbu.example",
                              public_url=SITE, push_per_minute=100, digest_every=1e6, wall=clock,
                              reads_per_minute=1000, invites_per_minute=100, profiles_per_minute=100))


def looked_at(client: TestClient, table_id: str) -> None:
    """The table's computers and forced passes have acted, and its new turn (if any) was looked at."""
    server = server_of(client)
    table = server.tables.get(table_id)
    until(lambda: table.auto_seat() is None and (server.computers.told.get(table_id) == table.moves
                                                 or table.deadlines.deadline() is None))


def settle(client: TestClient, table_id: str | None = None) -> None:
    """Every push and mail handed over is sent (after the table's new turn, if any, was looked at)."""
    server = server_of(client)
    if table_id is not None:
        looked_at(client, table_id)
    notices = server.notices
    assert notices is not None
    until(lambda: not any(s is not None and s.tasks for s in (notices.pusher, notices.mailer)))


def play_one(client: TestClient, week: Week, name: str, table_id: str) -> None:
    """``name`` reads their move list, opens the table it links and plays a legal card or choice."""
    res = client.post("/api/your-move", headers=week.who[name], json={})
    assert res.status_code == 200, res.text
    [entry] = res.json()["tables"]
    assert entry["id"] == table_id and (entry["own_pace"]["due"] is None) == entry["own_pace"]["live"], entry
    act(client, week, entry["token"], table_id)


def act(client: TestClient, week: Week, token: str, table_id: str) -> None:
    with client.websocket_connect(f"/ws/{table_id}") as ws:
        ws.send_json({"type": "hello", "token": token})
        while (msg := ws.receive_json())["type"] != "state":
            pass
        view = msg["view"]
        assert view["current"] == view["seat"] and view["legal"], view
        ws.send_json({"type": "act", "action": week.rng.choice(view["legal"])})
        while (msg := ws.receive_json())["type"] not in ("state", "error"):
            pass
        assert msg["type"] == "state", msg
        # The page stays until the server has looked at the turn its move began (a turn of the same
        # person's, told or not, depends on it: on a busy machine the socket closed first, now and then).
        looked_at(client, table_id)


def to_act(client: TestClient, table_id: str) -> str:
    table = server_of(client).tables.get(table_id)
    return str(table.seats[table.state.current].row.name)


def test_four_friends_play_one_game_over_a_week(services: tuple[PushService, Inbox, int, Path]) -> None:
    push, box, port, where = services
    clock = Clock()
    week = Week(push, box, clock)
    try:
        the_week(week, where, port)
    finally:
        print("\n".join(["", "The week's diary:", *week.diary]))


def the_week(week: Week, where: Path, port: int) -> None:
    clock = week.clock
    with serve(where, port, clock) as client:
        table_id = monday(client, week)
        clock.at(0, 12)
        moves(client, week, table_id, 6)
        clock.at(0, 19)
        with open_page(client, table_id, "Ann"):  # Ann keeps the table open all evening: never told
            week.note("Ann keeps the table open all evening: her turns come without a notice")
            moves(client, week, table_id, 6, present={"Ann"})
        due, bank = away(client, week, table_id)
    with serve(where, port, clock) as client:  # Wednesday night the server restarts on the same database
        restarted(client, week, table_id, due, bank)
        cleo_waits(client, week, table_id)
        evening(client, week, table_id)
        clock.at(6, 10)
        table = server_of(client).tables.get(table_id)
        while not table.state.is_over:  # Sunday: a few moves an hour until the game is over
            last = moves(client, week, table_id, 12)
            clock.now += H
        the_end(client, week, table_id, last)


def monday(client: TestClient, week: Week) -> str:
    """Four profiles, each choosing their notices; Ann's table; her friends invited by name, told, and in."""
    for name in ("Ann", *FRIENDS):
        res = client.post("/api/players", json={"name": name})
        assert res.status_code == 201, res.text
        week.who[name] = {"X-Barbu-Player": res.json()["credential"]}
    for name in ("Ann", "Ben", "Dan"):  # push in their browsers
        week.browser[name] = Browser(f"{week.push.url}/push/{name}")
        res = client.post("/api/me/push", headers=week.who[name],
                          json={"subscription": week.browser[name].subscription, "lang": "en"})
        assert res.status_code == 201, res.text
    confirmed(client, week.box, week.who["Cleo"], "cleo@example.org", ["invited", "over", "digest"])
    confirmed(client, week.box, week.who["Dan"], "dan@example.org", ["turn", "invited", "over"])
    week.new_mails("Cleo"), week.new_mails("Dan")  # the confirmation mails
    res = client.put("/api/me/pace", headers=week.who["Cleo"], json={"on_timeout": "wait"})
    assert res.status_code == 200 and res.json()["pace"]["on_timeout"] == "wait", res.text
    week.note("Ann, Ben, Cleo and Dan have profiles; Ann, Ben and Dan allow push, Cleo and Dan confirm their "
              "mail (Cleo: a daily digest instead of each turn; if her time runs out, the table waits)")
    made = client.post("/api/tables", headers=week.who["Ann"], json=GAME)
    assert made.status_code == 201, made.text
    table_id, token = made.json()["id"], {"X-Barbu-Token": made.json()["you"]["token"]}
    for seat, name in enumerate(FRIENDS, 1):
        res = client.post(f"/api/tables/{table_id}/invite", headers=token, json={"seat": seat, "name": name})
        assert res.status_code == 201, res.text
    settle(client)
    for name in ("Ben", "Dan"):
        [told] = week.new_pushes(name)
        assert told["body"].startswith("Ann invited you") and told["url"] == f"/table/{table_id}", told
    for name in ("Cleo", "Dan"):
        [mail] = week.new_mails(name)
        assert mail["Subject"] == "Ann invited you to a Barbu table", mail["Subject"]
        assert f"{SITE}/table/{table_id}" in parts(mail)[0]
    week.note("Ann makes a table at her own pace (24 h a move, a family game of 4 hands) and invites Ben, "
              "Cleo and Dan by name: Ben is told by push, Cleo by mail, Dan by both")
    for name in FRIENDS:
        [waiting] = client.get("/api/me/invitations", headers=week.who[name]).json()["invitations"]
        assert waiting["table"] == table_id and waiting["by"] == "Ann"
        took = client.post(f"/api/tables/{table_id}/invitation", headers=week.who[name],
                           json={"answer": "accept"})
        assert took.status_code == 200, took.text
    first = turn_told(client, week, table_id, set())
    assert first is not None
    week.note("Ben, Cleo and Dan each accept from their list of invitations: the cards are dealt; "
              f"{first} is told it is their turn ({' and '.join(TOLD[first]) or 'kept for the digest'})")
    return str(table_id)


TOLD = {"Ann": ("push",), "Ben": ("push",), "Cleo": (), "Dan": ("push", "mail")}  # "your turn", as each chose


def moves(client: TestClient, week: Week, table_id: str, n: int,
          present: frozenset[str] | set[str] = frozenset()) -> str:
    """``n`` moves, each by whoever is to act (a page of each in ``present`` stays at the table meanwhile);
    one line of the diary says who moved and who was told of their turn, and how."""
    table = server_of(client).tables.get(table_id)
    movers: list[str] = []
    told: dict[str, int] = {}
    for _ in range(n):
        if table.state.is_over:
            break
        name = to_act(client, table_id)
        play_one(client, week, name, table_id)
        movers.append(name)
        nxt = turn_told(client, week, table_id, {*present, name})
        if nxt is not None:
            told[nxt] = told.get(nxt, 0) + 1
    how = [f"{who}{f' ×{k}' if k > 1 else ''} by {' and '.join(TOLD[who])}"
           for who, k in told.items() if TOLD[who]]
    week.note(f"{', '.join(movers)} move{'s' if len(movers) == 1 else ''}"
              + (f"; told of their turn: {', '.join(how)}" if how else "")
              + ("; Cleo's turns wait for her digest" if "Cleo" in told else ""))
    return movers[-1]


def turn_told(client: TestClient, week: Week, table_id: str, here: set[str]) -> str | None:
    """After a move: the person whose turn it now is was told (push, mail, as they chose) unless a page of
    theirs is at the table or the table is played live; nobody else was told anything. Whom it told."""
    settle(client, table_id)
    table = server_of(client).tables.get(table_id)
    nxt = None if table.state.is_over or table.deadlines.live else to_act(client, table_id)
    if nxt in here:
        nxt = None
    for person in ("Ann", *FRIENDS):
        pushed = week.new_pushes(person) if person in week.browser else []
        mailed = week.new_mails(person)
        week.over.extend((person, "push", p) for p in pushed if "is over" in p["body"])
        week.over.extend((person, "mail", m) for m in mailed if m["Subject"] == "Your Barbu game is over")
        pushed = [p for p in pushed if "is over" not in p["body"]]
        mailed = [m for m in mailed if m["Subject"] != "Your Barbu game is over"]
        expected = int(person == nxt)
        assert len(pushed) == (expected if "push" in TOLD[person] else 0), (person, pushed)
        assert len(mailed) == (expected if "mail" in TOLD[person] else 0), person
        assert all(p["body"].startswith("It’s your turn") and p["url"] == f"/table/{table_id}"
                   for p in pushed)
        assert all(m["Subject"] == "Your turn at Barbu" for m in mailed)
    return nxt


class open_page:
    """A person's page kept open at the table (a socket said hello with their seat)."""

    def __init__(self, client: TestClient, table_id: str, name: str) -> None:
        table = server_of(client).tables.get(table_id)
        self.seat = next(s.row.seat for s in table.seats if s.row.name == name)
        self.table, self.ctx = table, client.websocket_connect(f"/ws/{table_id}")
        self.token = table.seats[self.seat].row.token

    def __enter__(self) -> Any:
        self.ws = self.ctx.__enter__()
        self.ws.send_json({"type": "hello", "token": self.token})
        until(lambda: self.table.seats[self.seat].connected >= 1)
        return self.ws

    def __exit__(self, *exc: Any) -> None:
        self.ctx.__exit__(*exc)
        until(lambda: self.table.seats[self.seat].connected == 0)


def until_turn(client: TestClient, week: Week, table_id: str, name: str) -> None:
    """Moves until it is ``name``'s turn."""
    for _ in range(60):
        if to_act(client, table_id) == name:
            return
        moves(client, week, table_id, 1)
    raise AssertionError(f"{name}'s turn never came")


def enforce(client: TestClient, table_id: str) -> str | None:
    """The server looks at the table's deadline now, as its timer does (every ten minutes at most)."""
    server = server_of(client)
    assert client.portal is not None
    done: str | None = client.portal.call(server.computers.enforce, server.tables.get(table_id))
    return done


def left_for(client: TestClient, week: Week, name: str, table_id: str) -> float:
    """The deadline of ``name``'s move as their list says it, checked against the table's own view."""
    [entry] = client.post("/api/your-move", headers=week.who[name], json={}).json()["tables"]
    view = client.get(f"/api/tables/{table_id}").json()["table"]["own_pace"]
    due = server_of(client).tables.get(table_id).deadlines.deadline()
    assert entry["own_pace"]["due"] == view["due"] == due
    return float(view["due"])


def away(client: TestClient, week: Week, table_id: str) -> tuple[float, float]:
    """Dan is away two days: his deadline waits until he is back; back, he does not move and his time bank
    gives him more. Returns his deadline and what is left in his bank."""
    week.clock.at(0, 21)
    back = week.clock.now + 2 * DAY
    res = client.put("/api/me/pace", headers=week.who["Dan"], json={"away_until": back})
    assert res.status_code == 200 and res.json()["pace"]["away_until"] == back, res.text
    week.note("Dan goes away for two days, until Wednesday 21:00")
    until_turn(client, week, table_id, "Dan")
    assert left_for(client, week, "Dan", table_id) == back  # not 24 h after his turn began: when he is back
    week.clock.at(1, 22)
    assert enforce(client, table_id) is None  # more than a day has passed: he is away, the table waits
    week.note("Dan's turn has waited more than a day: he is away, the table waits for him")
    week.clock.now = back + 60
    assert enforce(client, table_id) == "deadline"  # back, and he has not moved: his time bank is drawn
    bank = client.get("/api/me/pace", headers=week.who["Dan"]).json()["pace"]["bank"]
    due = left_for(client, week, "Dan", table_id)
    assert bank < 86400 and due == pytest.approx(back + 60 + 86400 - bank)
    week.note(f"Dan is back but does not move: his time bank gives him {(86400 - bank) / H:.0f} h more")
    return due, bank


def restarted(client: TestClient, week: Week, table_id: str, due: float, bank: float) -> None:
    """After the restart: the seats taken, Dan's deadline and bank, and nothing told again; then his time
    is up and a computer plays his move (he chose that); he plays the next ones himself."""
    table = server_of(client).tables.get(table_id)
    assert [s.row.name for s in table.seats] == ["Ann", *FRIENDS] and all(s.row.player for s in table.seats)
    assert left_for(client, week, "Dan", table_id) == due
    kept = client.get("/api/me/pace", headers=week.who["Dan"]).json()["pace"]["bank"]
    assert kept == pytest.approx(bank, abs=5)  # as stored (the view rounds it; it refills an hour a day)
    assert turn_told(client, week, table_id, {"Dan"}) is None  # Dan was told before the restart: not again
    week.note("the server restarts on the same database: the seats, Dan's deadline and bank and the notices "
              "already sent are kept; nobody is told twice")
    week.clock.now = due + 60
    moves_before = table.moves
    assert enforce(client, table_id) == "computer"
    assert table.moves > moves_before and not table.seats[3].is_bot  # one move; the seat stays his
    nxt = turn_told(client, week, table_id, set())
    week.note(f"Dan's time is up: a computer plays that one move for him, as he chose; {nxt} is told")


def cleo_waits(client: TestClient, week: Week, table_id: str) -> None:
    """Cleo lets a deadline pass: her bank first, then (as she chose) the table waits: a skip. Her daily
    digest lists the table, once that day."""
    until_turn(client, week, table_id, "Cleo")
    table = server_of(client).tables.get(table_id)
    week.clock.now = left_for(client, week, "Cleo", table_id) + 60
    assert enforce(client, table_id) == "deadline"
    week.clock.now = left_for(client, week, "Cleo", table_id) + 60
    assert enforce(client, table_id) == "deadline"
    assert table.meta()["own_pace"]["skips"][2] == 1
    assert client.get("/api/me/pace", headers=week.who["Cleo"]).json()["pace"]["bank"] < 86400
    left_for(client, week, "Cleo", table_id)
    week.note("Cleo's deadline passes: her time bank gives her a day; it passes again: the table waits for "
              "her, as she chose (one skip of 3)")
    notices = server_of(client).notices
    assert notices is not None and client.portal is not None
    yours = lambda p: server_of(client).tables.yours(p, [])  # noqa: E731
    assert client.portal.call(notices.digest, yours, week.clock.now) == 1
    assert client.portal.call(notices.digest, yours, week.clock.now + H) == 0  # one a day, at most
    settle(client)
    [digest] = week.new_mails("Cleo")
    text = parts(digest)[0]
    assert digest["Subject"] == "Barbu: tables waiting for your move (1)" and f"/table/{table_id}" in text
    week.note("Cleo's daily digest lists the one table waiting for her (a second round that day sends "
              "nothing)")


def evening(client: TestClient, week: Week, table_id: str) -> None:
    """Saturday evening all four are at the table: they play live, then go back to their own pace."""
    week.clock.at(5, 21.5)
    table = server_of(client).tables.get(table_id)
    pages = [open_page(client, table_id, n) for n in ("Ann", *FRIENDS)]
    sockets = [p.__enter__() for p in pages]
    try:
        for ws in sockets:
            ws.send_json({"type": "pace", "live": True})
        until(lambda: table.deadlines.live)
        assert table.deadlines.deadline() is None
        week.note("Saturday evening all four open the table: \"we're all here\", they switch to live")
        moves(client, week, table_id, 40, present={"Ann", *FRIENDS})
        sockets[0].send_json({"type": "pace", "live": False})
        until(lambda: not table.deadlines.live)
        assert turn_told(client, week, table_id, {"Ann", *FRIENDS}) is None  # still all there
        week.note("Ann switches back to their own pace; they close the table")
    finally:
        for page in pages:
            page.__exit__(None, None, None)


def the_end(client: TestClient, week: Week, table_id: str, last: str) -> None:
    """Everyone but the last to move (at the table then) is told the game is over, as they chose."""
    table = server_of(client).tables.get(table_id)
    assert table.state.is_over
    settle(client)
    turn_told(client, week, table_id, set())
    got = sorted((who, how) for who, how, _ in week.over)
    chose = {"Ann": ["push"], "Ben": ["push"], "Cleo": ["mail"], "Dan": ["mail", "push"]}
    assert got == sorted((who, how) for who in ("Ann", *FRIENDS) if who != last for how in chose[who])
    for _, how, said in week.over:
        if how == "mail":
            text = parts(said)[0]
            assert "Final places:" in text and all(f". {n}: " in text for n in ("Ann", *FRIENDS)), text
    week.note(f"{last} plays the last card: the game is over; told: "
              + ", ".join(f"{who} by {how}" for who, how, _ in week.over) + " (the mails list the places)")


def test_a_turn_told_before_a_restart_is_not_told_again(
        services: tuple[PushService, Inbox, int, Path]) -> None:
    """A restart arms each table's deadline again: the turn that was told before it is not told twice."""
    push, _, port, where = services
    clock = Clock()
    browser = Browser(f"{push.url}/push/restart")
    with serve(where, port, clock, "restart.db") as client:
        res = client.post("/api/players", json={"name": "Eve"})
        eve = {"X-Barbu-Player": res.json()["credential"]}
        sub = client.post("/api/me/push", headers=eve, json={"subscription": browser.subscription})
        assert sub.status_code == 201, sub.text
        made = client.post("/api/tables", headers=eve, json={**GAME, "seats": [{"kind": "you"}, *BOTS]})
        assert made.status_code == 201, made.text
        until(lambda: sum(p == "/push/restart" for p, _, _ in push.received) == 1)  # Eve's first turn
    with serve(where, port, clock, "restart.db") as client:
        table = server_of(client).tables.get(made.json()["id"])
        settle(client, table.id)
        assert table.deadlines.deadline() is not None  # still her turn, and its deadline runs
    assert sum(p == "/push/restart" for p, _, _ in push.received) == 1
