"""Invitations by name: a free seat the creator holds for one profile, accepted, declined or withdrawn.

An invitation holds the seat for that profile: nobody else takes it from the lobby; its link still
opens it (the creator may send it by hand, and whoever comes by it takes the seat, which ends the
invitation). The invited person accepts (takes the seat as their profile: one person, one seat) or
declines (the seat is free again); the creator withdraws it or invites someone else in its place.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
from typing import Any

from barbu.web.core.errors import TableError
from barbu.web.core.rows import Batch, PlayerRow, SeatRow
from barbu.web.tables.parts import Change, Host
from barbu.web.tables.seats import Seating

log = logging.getLogger("barbu.web")

MAX_WAITING = 20  # invitations waiting for one profile at once: a further one is refused


def open_to_invite(row: SeatRow) -> bool:
    """A person's seat nobody has taken yet (its link opens it), as the creator's box lists them."""
    return bool(row.token) and not row.claimed


class Named:
    """A table's invitations by name, as its creator makes them and the invited person answers them."""

    def __init__(self, table: Host) -> None:
        self.table = table
        self.declined: set[int] = set()  # seats whose invitation was declined since (told to the creator)

    def creator_token(self, token: object) -> None:
        """TableError unless ``token`` opens the creator's seat."""
        t = self.table
        if t.creator < 0 or t.seat_of_token(token) != t.creator:
            raise TableError("not-creator", "only whoever created this table manages its invitations", 403)

    def free_seat(self, target: object) -> SeatRow:
        """A seat its link still opens (nobody has taken it: a computer may keep it meanwhile), not the
        creator's, of a game not over."""
        t = self.table
        if not isinstance(target, int) or isinstance(target, bool) or not 0 <= target < len(t.seats):
            raise TableError("bad-seat", "no such seat")
        t.writable()
        row = t.seats[target].row
        if not open_to_invite(row) or target == t.creator or t.state.is_over:
            raise TableError("seat-not-free", "only a free seat of a game not over is held for an invited "
                             "person", 409)
        return row

    def plan_invite(self, token: object, target: object, invitee: PlayerRow, now: float,
                    waiting: int) -> Change:
        """The creator holds a free seat for ``invitee`` (who has ``waiting`` invitations already)."""
        t = self.table
        self.creator_token(token)
        row = self.free_seat(target)
        if any(s.row.player == invitee.id for s in t.seats):  # one person, one seat: said of them, not "you"
            raise TableError("already-seated", "this person already holds a seat at this table", 409,
                             args={"variant": "invitee"})
        if any(s.row.invited == invitee.id and s.row.seat != row.seat for s in t.seats):
            raise TableError("already-invited", "this person is already invited to another seat of this "
                             "table", 409)
        if row.invited == invitee.id:
            return Change(Batch(t.id), lambda: None)  # already so: asked twice
        if waiting >= MAX_WAITING:
            raise TableError("invitations-full", f"this person has {MAX_WAITING} invitations waiting "
                             "already: try again later", 409, args={"n": MAX_WAITING})
        held = dataclasses.replace(row, invited=invitee.id, invited_at=now)

        def done() -> None:
            self.declined.discard(row.seat)
            log.info("table %s: seat %d held for an invited profile", t.id, row.seat)
            t.broadcast()
        return t.seat_change(held, done)

    def plan_withdraw(self, token: object, target: object) -> Change:
        """The creator ends the invitation of a seat: free for anyone again."""
        t = self.table
        self.creator_token(token)
        row = self.free_seat(target)
        if not row.invited:
            raise TableError("not-invited", "this seat is held for nobody", 409)
        return t.seat_change(dataclasses.replace(row, invited="", invited_at=0.0), t.broadcast)

    def held_for(self, player: PlayerRow) -> SeatRow:
        """The free seat held for this profile; 404 when there is none (withdrawn, or never made)."""
        for s in self.table.seats:
            if s.row.invited == player.id and open_to_invite(s.row):
                return s.row
        raise TableError("no-invitation", "you have no invitation waiting at this table", 404)

    def plan_accept(self, player: PlayerRow, browser: str) -> tuple[Change, int, str]:
        """The invited person takes the seat held for them, as their profile, with a fresh token."""
        t = self.table
        t.writable()
        row = self.held_for(player)
        Seating(t).one_seat_each(player, browser)
        fresh = dataclasses.replace(row, name=player.name, claimed=True, token=secrets.token_urlsafe(18),
                                    player=player.id, client=browser, invited="", invited_at=0.0)

        def taken() -> None:
            log.info("table %s: seat %d taken by its invited person", t.id, row.seat)
            t.broadcast()
        return t.seat_change(fresh, taken), row.seat, fresh.token

    def plan_decline(self, player: PlayerRow) -> Change:
        """The invited person says no: the seat is free again, and the creator sees only that."""
        t = self.table
        t.writable()
        row = self.held_for(player)

        def declined() -> None:
            self.declined.add(row.seat)
            log.info("table %s: the invitation to seat %d was declined", t.id, row.seat)
            t.broadcast()
        return t.seat_change(dataclasses.replace(row, invited="", invited_at=0.0), declined)

    def shown(self, row: SeatRow) -> dict[str, Any]:
        """What the creator's panel says of a seat's invitation by name."""
        who = self.table.store.load_player(row.invited) if row.invited else None
        return {"invited": who.name if who is not None else None,
                "declined": not row.invited and row.seat in self.declined}
