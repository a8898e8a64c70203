"""A table's talk: a chat message checked and limited, stored as an event, then sent to everyone there."""

from __future__ import annotations

import json
import time

from barbu.web.core.rows import Batch
from barbu.web.tables.parts import Change, Client, Host


class Talk:
    """The chat of a table as its people (and watchers, when it lets them) write in it."""

    def __init__(self, table: Host) -> None:
        self.table = table

    def plan_chat(self, client: Client, text: object) -> Change:
        """A message for everyone at the table (players, and watchers when the table lets them),
        stored as a ``chat`` event before it is sent to anyone."""
        t = self.table
        seat = client.seat
        t.writable()
        name = t.seats[seat].row.name if seat is not None else ""
        message = t.chat.message(seat, name, text, time.time())
        sender, now = f"seat {seat}" if seat is not None else f"watcher {id(client)}", t.clock()
        t.chat.limit.check(sender, now)

        def said() -> None:
            t.chat.limit.note(sender, now)
            t.chat.messages.append(message)
            t.chat.stored += 1
            t.active_at = time.time()
            out = json.dumps({"type": "chat", "message": message}, ensure_ascii=False)
            for other in list(t.clients):
                other.send_text(out)
        return Change(Batch(t.id, events=[("chat", message)]), said)
