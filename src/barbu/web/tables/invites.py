"""The creator's side of a table: the seats' links (invitations), a link made anew, a start with computers."""

from __future__ import annotations

import dataclasses
import json
import logging
import secrets
import time
from typing import Any

from barbu.bots import levels
from barbu.web.core.errors import TableError
from barbu.web.core.rows import Batch, SeatRow
from barbu.web.tables.named import Named
from barbu.web.tables.parts import Change, Client, Host
from barbu.web.tables.setup import default_level

log = logging.getLogger("barbu.web")


class Invitations:
    """What only a table's creator sees and does: the links of its seats, and the start with computers."""

    def __init__(self, table: Host) -> None:
        self.table = table
        self.named = Named(table)  # the seats held for a profile invited by name

    def is_creator(self, client: Client) -> bool:
        return client.seat is not None and client.seat == self.table.creator

    def invites(self) -> dict[str, Any]:
        """The seats' links as the creator sees them: a free seat's link, who took the others."""
        t = self.table
        seats = []
        for s in t.seats:
            if not s.row.token or s.row.seat == t.creator:  # a computer's seat from the start has no link
                continue
            # Still free while a computer holds it for whoever comes (a seat handed over before anyone came).
            link = f"/table/{t.id}#t={s.row.token}" if not s.row.claimed else None
            seats.append({"seat": s.row.seat, "access": s.row.access, "claimed": s.row.claimed,
                          "name": s.row.name if s.row.claimed else None, "link": link,
                          **self.named.shown(s.row)})
        return {"type": "invites", "seats": seats}

    def tell_creator(self) -> None:
        """Send the invitations, as they are now, to the creator's pages only (they carry links)."""
        t = self.table
        if t.creator < 0:
            return
        text = json.dumps(self.invites(), ensure_ascii=False)
        for client in list(t.clients):
            if self.is_creator(client):
                client.send_text(text)

    def plan_invites(self, client: Client) -> Change:
        """The creator asks for the links; anyone else is refused (a link opens a seat)."""
        self.creator_only(client)
        return Change(Batch(self.table.id), lambda: self.table.send(client, self.invites()))

    def plan_reissue(self, client: Client, target: object) -> Change:
        """The creator gets a new link for a free seat: the old one lapses at once."""
        t = self.table
        self.creator_only(client)
        if not isinstance(target, int) or isinstance(target, bool) or not 0 <= target < len(t.seats):
            raise TableError("bad-seat", "no such seat")
        t.writable()
        seat = t.seats[target]
        if seat.row.claimed or not seat.row.token or target == t.creator:
            raise TableError("seat-taken", "only the link of a free seat can be made again", 409)
        fresh = dataclasses.replace(seat.row, token=secrets.token_urlsafe(18))

        def reissued() -> None:
            log.info("table %s: seat %d has a new link; the old one lapsed", t.id, target)
        return t.seat_change(fresh, reissued)

    def creator_only(self, client: Client, what: str = "invites") -> None:
        if self.is_creator(client):
            return
        if what == "start":
            raise TableError("not-creator", "only whoever created this table starts its game without the "
                             "invited people", 403, args={"variant": "start"})
        raise TableError("not-creator", "only whoever created this table manages its invitations", 403)

    def plan_start(self, client: Client, level: object = None) -> Change:
        """The creator starts without the invited people who have not come: their seats become computer
        players' (of ``level``) for the whole game, their links lapse, and a ``start`` event says so."""
        t = self.table
        self.creator_only(client, "start")
        lvl = default_level() if level is None else level
        if not isinstance(lvl, str) or lvl not in levels():
            raise TableError("bad-level", f"unknown computer level {str(lvl)[:40]!r}")
        t.writable()
        missing = t.awaited()
        if not missing:
            raise TableError("not-waiting", "this table waits for nobody: its game has begun", 409)
        rows = [SeatRow(i, f"Computer {i + 1}", "", "bot", lvl, True) for i in missing]
        data = {"seats": missing, "level": lvl, "by": t.creator, "names": [t.seats[i].row.name
                                                                         for i in missing]}
        batch = Batch(t.id, events=[("start", data)], seats=rows)
        dealt = t.plan_start_deal(batch, rows)

        def commit() -> None:
            for r in rows:
                t.seats[r.seat].row = r
            t.make_bots()
            t.filled = data
            t.active_at = time.time()
            t.started(dealt)
            log.info("table %s: started by its creator with computers (%s) in seats %s", t.id, lvl,
                     missing)
            self.tell_creator()
            t.broadcast()
        return Change(batch, commit)
