"""A table's side of a rematch: who answers it, each step stored before it is told, each person's new link."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from barbu.web.core.rows import Batch
from barbu.web.tables.parts import Change, Client, Host

log = logging.getLogger("barbu.web")

H = TypeVar("H", bound=Host)


class Rematches:
    """The offer of a new game at a table whose game is over, as its people answer it."""

    def __init__(self, table: Host) -> None:
        self.table = table

    def people(self) -> list[int]:
        """The seats people have taken (also those a computer plays for them now): they answer a rematch."""
        return [s.row.seat for s in self.table.seats if s.row.token and s.row.claimed]

    def plan_rematch(self, client: Client, op: object, make: Callable[[], tuple[H, Batch]],
                     add: Callable[[H], object]) -> Change:
        """A person offers a new game, accepts, declines or withdraws the offer; stored as a
        ``rematch`` event first. The last acceptance stores the new table (``make``: it and its batch)
        in the same transaction, and ``add`` puts it in the lobby once stored."""
        t = self.table
        t.writable()
        people = self.people()
        step = t.rematch.check(op, client.seat, people, t.state.is_over)
        data = {"op": step, "seat": client.seat}
        after = t.rematch.after(data)
        events: list[tuple[str, dict[str, Any]]] = [("rematch", data)]
        new: H | None = None
        batch = Batch(t.id, events=events)
        if after.complete(people):  # computers accept at once: the last person's yes makes the table
            new, created = make()
            events.append(("rematch", {"op": "made", "table": new.id}))
            after.apply(events[-1][1])
            batch.also.append(created)

        def commit() -> None:
            t.rematch = after
            t.active_at = time.time()
            if new is not None:
                add(new)
                log.info("table %s: rematch accepted by all, new table %s", t.id, new.id)
                for other in list(t.clients):
                    self.send_rematch_link(other)
            t.broadcast()
        return Change(batch, commit)

    def rematch_link(self, seat: int) -> str | None:
        """A person's link to their seat at the rematch once it is made (None: no rematch yet)."""
        t = self.table
        if t.rematch.table is None or seat not in self.people():
            return None
        rows = t.store.load_seats(t.rematch.table)
        token = rows[seat].token if seat < len(rows) else ""
        return f"/table/{t.rematch.table}#t={token}" if token else None

    def send_rematch_link(self, client: Client) -> None:
        """Each person's own new link, to their pages only: a token never reaches anyone else."""
        link = None if client.seat is None else self.rematch_link(client.seat)
        if link is not None:
            self.table.send(client, {"type": "rematch-link", "table": self.table.rematch.table, "link": link})
