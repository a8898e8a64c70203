"""The sign-in throttle and the bounded, expiring tables of counters that profiles keep in memory.

Following OWASP's Authentication Cheat Sheet, failed sign-ins slow guessing down rather than lock
a name: a stranger's failures delay that stranger, never the name's owner. Failures are counted
per (name, address) with a delay that doubles past a few of them, per address across every name
(credential stuffing), and per name across every address (a spread-out attack), where the delay
is short, holds back only addresses that already failed on that name (so that a crowd cannot shut
the owner's new device out), and a device that already holds a key of the profile is not held back.
"""

from __future__ import annotations

import math
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from barbu.web.core.errors import TableError

V = TypeVar("V")


class Expiring(Generic[V]):
    """A dict of at most ``cap`` entries, each forgotten ``ttl`` seconds after it was last put.

    Entries are kept in the order they were last put, so the stale ones are at the front: each
    put drops those, then the oldest ones past the cap (a flood of new keys evicts old ones, it
    never grows the table).
    """

    def __init__(self, cap: int, ttl: float, clock: Callable[[], float]) -> None:
        if cap < 1 or ttl <= 0:
            raise ValueError("a table needs a cap of at least 1 and a positive lifetime")
        self.cap, self.ttl, self.clock = cap, ttl, clock
        self.items: OrderedDict[str, tuple[float, V]] = OrderedDict()

    def __len__(self) -> int:
        return len(self.items)

    def get(self, key: str) -> V | None:
        found = self.items.get(key)
        if found is None:
            return None
        if self.clock() - found[0] >= self.ttl:
            del self.items[key]
            return None
        return found[1]

    def put(self, key: str, value: V) -> None:
        now = self.clock()
        self.items[key] = (now, value)
        self.items.move_to_end(key)
        while self.items:
            when, _ = next(iter(self.items.values()))
            if now - when < self.ttl and len(self.items) <= self.cap:
                break
            self.items.popitem(last=False)

    def pop(self, key: str) -> None:
        self.items.pop(key, None)


class Rate:
    """At most ``limit`` events per ``window`` seconds for each key, in a bounded table of keys."""

    def __init__(self, limit: int, window: float, cap: int, clock: Callable[[], float]) -> None:
        self.limit, self.window, self.clock = limit, window, clock
        self.table: Expiring[deque[float]] = Expiring(cap, window, clock)

    def recent(self, key: str) -> deque[float]:
        times = self.table.get(key) or deque(maxlen=max(1, self.limit))
        now = self.clock()
        while times and now - times[0] >= self.window:
            times.popleft()
        return times

    def full(self, key: str) -> bool:
        return len(self.recent(key)) >= self.limit

    def wait(self, key: str) -> float:
        """Seconds until ``key`` may have another event (0 when it may now)."""
        times = self.recent(key)
        return 0.0 if len(times) < self.limit else max(0.0, times[0] + self.window - self.clock())

    def hit(self, key: str) -> None:
        times = self.recent(key)
        times.append(self.clock())
        self.table.put(key, times)

    def undo(self, key: str) -> None:
        """Take back the last event of ``key`` (one that turned out not to count)."""
        times = self.table.get(key)
        if times:
            times.pop()


@dataclass(frozen=True)
class ThrottlePolicy:
    """How failed sign-ins are slowed down (the defaults are the server's; each is a field of ``Config``)."""

    free: int = 3  # failures per name and address before each next try waits
    base_delay: float = 1.0  # seconds of the first wait; each further failure doubles it
    max_delay: float = 900.0  # the longest wait of one name and address
    per_address: int = 20  # failures from one address, all names together, in a window
    name_free: int = 10  # failures of one name from all addresses before unknown devices wait
    name_max_delay: float = 60.0  # the longest such wait: a crowd of strangers only slows the owner
    window: float = 900.0  # seconds a failure is remembered
    cap: int = 10_000  # entries of each table (names and addresses), the oldest evicted first


@dataclass
class Streak:
    """The failures of one key since it was last cleared, and when the last one was."""

    count: int
    last: float


class Throttle:
    """Counts failed sign-ins and says who must wait; every table is bounded and expires.

    A sign-in is counted as failed when it is let through (:meth:`admit`), before its password is
    checked, and taken back if it succeeds: guesses sent at once cannot all slip past the count.
    Not thread-safe by itself: its owner holds a lock around each call.
    """

    def __init__(self, policy: ThrottlePolicy, clock: Callable[[], float]) -> None:
        p = self.policy = policy
        self.clock = clock
        self.pairs: Expiring[Streak] = Expiring(p.cap, p.window, clock)  # by name and address
        self.names: Expiring[Streak] = Expiring(p.cap, p.window, clock)  # by name, all addresses
        self.addresses = Rate(p.per_address, p.window, p.cap, clock)  # by address, all names

    def admit(self, name: str, address: str, known_device: bool) -> None:
        """Let a sign-in through, counted as failed until :meth:`succeeded` says otherwise; TableError
        ``too-many-attempts`` (429) when it must wait, in the same words for any name."""
        self._check(name, address, known_device)
        self._failed(name, address)

    def _check(self, name: str, address: str, known_device: bool) -> None:
        p = self.policy
        pair = self.pairs.get(f"{name}\n{address}")
        waits = [self.addresses.wait(address), self._wait(pair, p.free, p.max_delay)]
        # The name-wide wait holds back only addresses that failed on this name within the window:
        # a crowd's guesses restart it, so a first try from elsewhere (the owner's new device) must
        # pass it; each address's own limits still slow any guessing down. A device that holds a
        # key is not held back by it (a stolen key still guesses no faster than its address allows).
        if not known_device and pair is not None:
            waits.append(self._wait(self.names.get(name), p.name_free, p.name_max_delay))
        wait = max(waits)
        if wait > 0:
            minutes = max(1, math.ceil(wait / 60))
            raise TableError("too-many-attempts", f"too many failed sign-ins: try again in {minutes} "
                             f"minute{'s' if minutes > 1 else ''}", 429, args={"minutes": minutes})

    def _wait(self, streak: Streak | None, free: int, longest: float) -> float:
        if streak is None or streak.count < free:
            return 0.0
        delay = min(longest, self.policy.base_delay * 2.0 ** min(streak.count - free, 60))
        return max(0.0, streak.last + delay - self.clock())

    def _failed(self, name: str, address: str) -> None:
        now = self.clock()
        for table, key in ((self.pairs, f"{name}\n{address}"), (self.names, name)):
            streak = table.get(key) or Streak(0, now)
            table.put(key, Streak(streak.count + 1, now))
        self.addresses.hit(address)

    def succeeded(self, name: str, address: str) -> None:
        """The owner got in from here: this try and their own typos no longer count (a crowd's still do)."""
        self.pairs.pop(f"{name}\n{address}")
        streak = self.names.get(name)
        if streak is not None:
            self.names.put(name, Streak(max(0, streak.count - 1), streak.last))
        self.addresses.undo(address)

    def sizes(self) -> dict[str, int]:
        return {"pairs": len(self.pairs), "names": len(self.names), "addresses": len(self.addresses.table)}
