"""A rematch offered at the end of a game: who offered it, who has accepted, and how it ended.

The offer lives in the old table's events (kind ``rematch``, passed over by the game's replay like
``chat``), so a restart keeps it: ``offer``, ``accept``, ``decline``, ``withdraw`` and ``made`` (the
new table's id, stored in the same transaction as that table). Only people answer: computers
accept at once. Nothing here touches the tables; :class:`Offer` only says what a step would store.

>>> o = Offer()
>>> o.apply({"op": "offer", "seat": 0})
>>> o.check("accept", 0, [0, 2], True)
Traceback (most recent call last):
...
barbu.web.core.errors.TableError: you have already accepted this rematch
>>> o.apply({"op": "accept", "seat": 2})
>>> o.complete([0, 2]), o.public()["accepted"]
(True, [0, 2])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from barbu.web.core.errors import TableError

MAX_OFFERS = 20  # rematches offered at one table: each stores a handful of events
OPS = ("offer", "accept", "decline", "withdraw")  # what a person may ask; "made" is the server's


@dataclass
class Offer:
    """The table's rematch as it stands: an open offer, the last one's end, or the new table made."""

    number: int = 0  # offers made so far at this table (a new one may follow a declined one)
    open: bool = False
    by: int = -1  # the seat that made the open (or last) offer
    accepted: set[int] = field(default_factory=set)
    ended: dict[str, Any] | None = None  # how the last offer ended: {"op": "decline"/"withdraw", "seat"}
    table: str | None = None  # the new table, once every person accepted

    def apply(self, data: dict[str, Any]) -> None:
        """One stored step (as :meth:`step` made it) applied to the offer."""
        op, seat = data.get("op"), data.get("seat", -1)
        if op == "offer":
            self.number, self.open, self.by = self.number + 1, True, int(seat)
            self.accepted, self.ended = {int(seat)}, None
        elif op == "accept":
            self.accepted.add(int(seat))
        elif op in ("decline", "withdraw"):
            self.open, self.ended = False, {"op": op, "seat": int(seat)}
        elif op == "made":
            self.open, self.table = False, str(data["table"])

    def check(self, op: object, seat: int | None, people: list[int], over: bool) -> str:
        """The step ``op`` by ``seat`` if it may be taken now; TableError with its precise code if not."""
        if not isinstance(op, str) or op not in OPS:
            raise TableError("bad-rematch", "\"op\" is one of: " + ", ".join(OPS))
        if seat is None or seat not in people:
            raise TableError("not-seated", "only the people seated at this table answer its rematch",
                             args={"variant": "rematch"})
        if not over:
            raise TableError("rematch-too-early", "a rematch can be offered once the game is over", 409)
        if self.table is not None:
            raise TableError("rematch-made", "this rematch is already made: open your seat at the new "
                             "table", 409)
        if op == "offer":
            if self.open:
                raise TableError("rematch-open", "a rematch is already offered: accept or decline it", 409)
            if self.number >= MAX_OFFERS:
                raise TableError("rematch-limit", f"at most {MAX_OFFERS} rematches may be offered at one "
                                 "table: start a new table instead", 409, args={"n": MAX_OFFERS})
            return op
        if not self.open:
            raise TableError("rematch-none", "there is no rematch on offer now (it was withdrawn or "
                             "declined)", 409)
        if op == "accept" and seat in self.accepted:
            raise TableError("rematch-accepted", "you have already accepted this rematch", 409)
        if op == "withdraw" and seat != self.by:
            raise TableError("rematch-not-yours", "only whoever offered the rematch can withdraw it", 403)
        return op

    def after(self, data: dict[str, Any]) -> Offer:
        """A copy with one more step: what a change would make, worked out before it is stored."""
        copy = Offer(self.number, self.open, self.by, set(self.accepted), self.ended, self.table)
        copy.apply(data)
        return copy

    def complete(self, people: list[int]) -> bool:
        """Every person has accepted the open offer."""
        return self.open and set(people) <= self.accepted

    def public(self) -> dict[str, Any]:
        """What everyone at the table (watchers too) sees: never a token."""
        return {"number": self.number, "open": self.open, "by": self.by if self.number else None,
                "accepted": sorted(self.accepted) if self.open else [], "ended": self.ended,
                "made": self.table is not None}
