"""Chat at a table: short messages, cleaned and limited in rate, stored with the table's events.

A message is stored as a ``chat`` event of its table before anyone is told of it, so it comes back
after a restart; the game's replay passes over it. The page shows its text as text (never as
markup), so what is cleaned here is only what no reader wants: control characters, runs of
spaces, and length.

>>> clean_text("  hi\\n\\tthere\\x07 ")
'hi there'
>>> limiter = RateLimit(2, 10.0)
>>> for now in (0.0, 1.0):
...     limiter.check("seat 0", now)
...     limiter.note("seat 0", now)
>>> limiter.check("seat 0", 2.0)
Traceback (most recent call last):
...
barbu.web.core.errors.TableError: at most 2 messages in 10 s: wait 8 s
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from barbu.web.core.errors import TableError

MAX_CHARS = 200  # a message's length, in characters, once cleaned
MAX_STORED = 1000  # messages one table stores: then its chat is full
KEEP = 100  # the newest messages a page receives when it opens the table
BURST = 5  # at most BURST messages in any WINDOW seconds from one seat (or one watcher)
WINDOW = 10.0
CHAT_RIGHTS = ("players", "everyone")  # who may write: the seated players, or watchers too


def clean_text(value: object) -> str:
    """A message's text as stored; TableError when it is not text, empty or too long."""
    if not isinstance(value, str):
        raise TableError("bad-chat", "a chat message is a piece of text")
    text = " ".join("".join(ch if ch.isprintable() else " " for ch in value).split())
    if not text:
        raise TableError("empty-chat", "a chat message needs some text")
    if len(text) > MAX_CHARS:
        raise TableError("chat-too-long", f"a chat message is at most {MAX_CHARS} characters",
                         args={"n": MAX_CHARS})
    return text


@dataclass
class RateLimit:
    """At most ``burst`` messages in any ``window`` seconds from each sender."""

    burst: int = BURST
    window: float = WINDOW
    sent: dict[str, deque[float]] = field(default_factory=dict)

    def check(self, sender: str, now: float) -> None:
        """TableError ``chat-too-fast`` when one more message of ``sender`` at ``now`` is too many.

        Checking counts nothing (a change may be planned twice): :meth:`note` counts a message
        once it is stored.
        """
        for old in [*list(self.sent)[:4], sender]:  # senders long gone are forgotten, a few at a time
            self._prune(old, now)
        times = self.sent.get(sender, deque())
        if len(times) >= self.burst:
            wait = math.ceil(self.window - (now - times[0]))
            raise TableError("chat-too-fast", f"at most {self.burst} messages in {self.window:g} s: "
                             f"wait {wait} s", 429, args={"n": self.burst, "seconds": wait})

    def note(self, sender: str, now: float) -> None:
        self.sent.setdefault(sender, deque()).append(now)

    def _prune(self, sender: str, now: float) -> None:
        times = self.sent.get(sender)
        if times is None:
            return
        while times and now - times[0] >= self.window:
            times.popleft()
        if not times:
            del self.sent[sender]


@dataclass
class Chat:
    """A table's chat: who may write, the newest messages, and the senders' rate."""

    rights: str = "players"
    messages: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=KEEP))
    limit: RateLimit = field(default_factory=RateLimit)
    stored: int = 0  # messages the table has stored, all told (at most MAX_STORED)

    def may_write(self, seat: int | None) -> bool:
        return seat is not None or self.rights == "everyone"

    def message(self, seat: int | None, name: str, text: object, at: float) -> dict[str, Any]:
        """The message to store for a sender, checked; TableError when it is refused."""
        if not self.may_write(seat):
            raise TableError("chat-players-only", "only the players write in this table's chat", 403)
        if self.stored >= MAX_STORED:
            raise TableError("chat-full", f"this table's chat is full: it keeps at most {MAX_STORED} "
                             "messages", 409, args={"n": MAX_STORED})
        clean = clean_text(text)
        return {"seat": seat, "name": name, "text": clean, "at": round(at, 3)}

    def log_event(self) -> dict[str, Any]:
        """What a page receives on opening the table: the newest messages and who may write."""
        return {"type": "chat-log", "rights": self.rights, "messages": list(self.messages)}


def rights_of(value: object) -> str:
    """A table setup's ``chat`` entry, checked: ``players`` (the default) or ``everyone``."""
    if value is None:
        return "players"
    if value not in CHAT_RIGHTS:
        raise TableError("bad-setup", "\"chat\" is \"players\" (only they write) or \"everyone\" "
                         "(watchers too)")
    return str(value)
