"""Who sits where at a table: seat links (tokens), taking a seat, joining from the lobby, one seat each."""

from __future__ import annotations

import dataclasses
import hmac
import logging
import secrets
import time
from collections.abc import Callable

from barbu.bots import levels
from barbu.engine.state import Phase, State
from barbu.web.core.errors import TableError
from barbu.web.core.names import clean_name, name_key
from barbu.web.core.ports import TableStore
from barbu.web.core.rows import Batch, PlayerRow, SeatRow
from barbu.web.tables.parts import Change, Client, Host, Seat, awaited, deal_into
from barbu.web.tables.setup import Setup, default_level

log = logging.getLogger("barbu.web")


def bare_name(store: TableStore, value: object) -> str:
    """A name-only seat's name, cleaned; TableError ``profile-name`` when a profile goes by it,
    so that nobody without that profile passes for its (rated, registered) player."""
    name = clean_name(value)
    if store.player_named(name_key(name)) is not None:
        raise TableError("profile-name", f"the name {name} belongs to a profile: sign in with it, or pick "
                         "another", 409, args={"name": name})
    return name


def seat_rows(store: TableStore, setup: Setup) -> list[SeatRow]:
    """The seats of a new table: computers', the creator's (named, or tied to their profile), and free
    ones, each person's with its own unguessable token."""
    rows = []
    creator_seat = setup.creator_seat
    you = setup.player
    if you is None and setup.creator is not None:
        bare_name(store, setup.creator)
    for i, spec in enumerate(setup.seats):
        if spec["kind"] == "bot":
            rows.append(SeatRow(i, f"Computer {i + 1}", "", "bot", spec["level"], True))
        else:
            creator = (you.name if you else setup.creator) if i == creator_seat else None
            player = you.id if you and i == creator_seat else ""
            rows.append(SeatRow(i, creator or f"Seat {i + 1}", secrets.token_urlsafe(18), "human", "",
                                creator is not None, player, spec["access"],
                                setup.client if creator is not None else ""))
    return rows


class Seating:
    """A table's seats as people take them: by a link, from the lobby, or tied to a profile later."""

    def __init__(self, table: Host) -> None:
        self.table = table

    def seat_of_token(self, token: object) -> int | None:
        if not isinstance(token, str) or not token:
            return None
        for s in self.table.seats:
            if s.row.token and hmac.compare_digest(s.row.token.encode(), token.encode()):
                return s.row.seat
        return None

    def plan_attach(self, client: Client, token: object, name: object = None, pace: object = False,
                    player: PlayerRow | None = None, browser: str = "") -> Change:
        """Seat a client by its token (None: watch). A seat nobody has taken yet needs a name (or a
        profile, whose name it takes and to which it is tied), and whoever takes it through its
        link gets a fresh token: the link it came by lapses."""
        t = self.table
        if name is not None and not isinstance(name, str):
            raise TableError("bad-name", "\"name\" must be a string: the player's name")
        if not isinstance(pace, bool):
            raise TableError("bad-pace", "\"pace\" is true (wait for me between hands) or false")
        if token is None:
            return Change(Batch(t.id), lambda: self.welcome(client, None))  # a watcher is not waited for
        seat = self.seat_of_token(token)
        if seat is None:
            raise TableError("bad-token", "this link does not give a seat at this table", 403,
                             args={"variant": "link"})
        row = t.seats[seat].row
        if row.claimed:
            return Change(Batch(t.id), lambda: self.welcome(client, seat, None, pace))
        t.writable()  # before asking for a name: a damaged table's free seat cannot be taken
        if name is None and player is None:
            # The seat the link opens goes with it: the invitation page marks it among the others.
            raise TableError("name-required", "this seat is free: give your name to take it",
                             args={"seat": seat})
        self.one_seat_each(player, browser)
        taken_as = player.name if player else bare_name(t.store, name)
        # Taken by its link: an invitation by name that held the seat ends (the creator gives the link).
        fresh = dataclasses.replace(row, name=taken_as, claimed=True, token=secrets.token_urlsafe(18),
                                    player=player.id if player else "", client=browser, invited="",
                                    invited_at=0.0)

        def taken() -> None:
            log.info("table %s: seat %d taken by %s", t.id, seat, fresh.name)
            self.welcome(client, seat, fresh.token, pace)
        return self.seat_change(fresh, taken)

    def welcome(self, client: Client, seat: int | None, token: str | None = None,
                pace: bool = False) -> None:
        t = self.table
        client.seat = seat
        if seat is not None:
            t.seats[seat].connected += 1
            if pace:
                t.pacers.append(client)
        t.clients.append(client)
        welcome = {"type": "welcome", "you": seat, "levels": levels(), "default_level": default_level(),
                   "table": t.meta()}
        if token is not None:
            welcome["token"] = token  # the seat's fresh token: from now on the only one that opens it
        welcome["creator"] = t.is_creator(client)
        t.send(client, welcome)
        if t.is_creator(client):
            t.send(client, t.invites())
        t.send(client, t.sheet_event())
        t.send(client, t.chat.log_event())
        if seat is not None:
            t.send_rematch_link(client)
        t.broadcast()

    def detach(self, client: Client) -> None:
        t = self.table
        if client in t.pacers:
            t.pacers.remove(client)
        if client in t.clients:
            t.clients.remove(client)
            if client.seat is not None:
                t.seats[client.seat].connected -= 1
            t.broadcast()

    def plan_join(self, name: object, player: PlayerRow | None = None,
                  browser: str = "") -> tuple[Change, int, str]:
        t = self.table
        clean = player.name if player is not None else bare_name(t.store, name)
        t.writable()
        self.one_seat_each(player, browser)
        for s in t.seats:
            if self.joinable(s):
                fresh = dataclasses.replace(s.row, name=clean, claimed=True, token=secrets.token_urlsafe(18),
                                            player=player.id if player else "", client=browser)

                def joined(seat: int = s.row.seat) -> None:
                    log.info("table %s: seat %d joined from the lobby by %s", t.id, seat, clean)
                    t.broadcast()
                return self.seat_change(fresh, joined), fresh.seat, fresh.token
        if any(s.free for s in t.seats):
            raise TableError("invite-only", "the free seats of this table are kept for invited friends: "
                             "only a seat's own link opens it", 403)
        raise TableError("no-free-seat", "every seat at this table is taken", 409)

    def joinable(self, s: Seat) -> bool:
        """Whether anyone may take seat ``s`` from the lobby: a free open seat, not the creator's (one
        created without a name waits for its creator's link, else whoever took it would be the creator;
        one held for an invited profile waits for that person: named.py)."""
        return s.free and s.row.access == "open" and s.row.seat != self.table.creator and not s.row.invited

    def one_seat_each(self, player: PlayerRow | None, browser: str = "") -> None:
        """One person, one seat of a table: a profile, and a browser (its client id's digest), take at most
        one, so that nobody sees two hands and what is kept about a player (ratings) stays theirs alone."""
        for s in self.table.seats:
            r = s.row
            if (player is not None and r.player == player.id) or (browser and r.client == browser):
                raise TableError("already-seated", f"you already hold seat {r.seat + 1} ({r.name}) at this "
                                 "table: open it from your tables", 409,
                                 args={"variant": "seat", "seat": r.seat + 1, "name": r.name})

    def plan_tie(self, token: object, player: PlayerRow) -> tuple[Change, int]:
        """A guest ties the seat they hold (its token) to their profile, made since they sat down: the
        seat then goes by the profile's name, and the game is rated and listed for it."""
        t = self.table
        seat = self.seat_of_token(token)
        if seat is None:
            raise TableError("bad-token", "this token gives no seat at this table", 403,
                             args={"variant": "tie"})
        t.writable()
        row = t.seats[seat].row
        if not row.claimed:
            raise TableError("not-taken", f"seat {seat + 1} has not been taken yet: take it first", 409,
                             args={"variant": "tie", "seat": seat + 1})
        if row.player == player.id:
            return Change(Batch(t.id), lambda: None), seat  # already so: asked twice
        if row.player:
            raise TableError("seat-tied", f"seat {seat + 1} is already tied to a profile", 409,
                             args={"seat": seat + 1})
        if t.state.is_over:
            raise TableError("game-over", "this game is over: its ratings are settled, so a seat can no "
                             "longer be tied to a profile", 409, args={"variant": "tie"})
        self.one_seat_each(player)
        tied = dataclasses.replace(row, name=player.name, player=player.id)

        def done() -> None:
            log.info("table %s: seat %d tied to a profile (%s)", t.id, seat, player.name)
            t.broadcast()
        return self.seat_change(tied, done), seat

    def seat_change(self, row: SeatRow, then: Callable[[], None]) -> Change:
        """Replace a seat's row (a copy, changed) once it is stored, then do ``then``. The last invited
        seat taken deals the first hand in the same transaction."""
        t = self.table
        batch = Batch(t.id, seats=[row])
        dealt = self.plan_start_deal(batch, [row])

        def commit() -> None:
            if not t.seats[row.seat].row.claimed and row.claimed and t.state.current == row.seat:
                t.turn_since = t.clock()  # taken on its turn: its person has the whole clock
            t.seats[row.seat].row = row
            t.active_at = time.time()
            self.started(dealt)
            then()
            t.tell_creator()
        return Change(batch, commit)

    def plan_start_deal(self, batch: Batch, changed: list[SeatRow]) -> State | None:
        """The game dealt on a copy (its deal added to ``batch``) when these seat changes take the last
        invited seat of a table that waits; None when it does not start now."""
        t = self.table
        if t.state.phase != Phase.DEAL or t.state.hand_no or t.damaged is not None:
            return None
        rows = {r.seat: r for r in [s.row for s in t.seats] + changed}
        if not awaited([s.row for s in t.seats]) or awaited(list(rows.values())):
            return None
        state = t.state.copy()
        deal_into(state, batch)
        return state

    def started(self, dealt: State | None) -> None:
        t = self.table
        if dealt is not None:
            t.state = dealt
            t.turn_since = t.clock()
            log.info("table %s: every invited seat is filled; the first hand is dealt", t.id)

    def awaited(self) -> list[int]:
        """The invited seats the game waits for (none once it has begun)."""
        t = self.table
        return awaited([s.row for s in t.seats]) if t.state.phase == Phase.DEAL else []

    def tokens(self) -> list[tuple[int, str]]:
        """The invitation tokens of the seats that people play (for the table's creator)."""
        return [(s.row.seat, s.row.token) for s in self.table.seats if s.row.token]


def rematch_rows(rows: list[SeatRow]) -> list[SeatRow]:
    """The seats of a rematch: each person in the same seat with a new token, tied to the same profile
    (a seat nobody took stays free), and each computer in its own."""
    out = []
    for r in rows:
        if r.token:
            out.append(SeatRow(r.seat, r.name if r.claimed else f"Seat {r.seat + 1}",
                               secrets.token_urlsafe(18), "human", "", r.claimed, r.player, r.access,
                               r.client))
        else:
            out.append(SeatRow(r.seat, r.name, "", "bot", r.level, True))
    return out
