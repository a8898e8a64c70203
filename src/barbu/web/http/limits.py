"""The counts behind the server's limits, per person and per address: taken atomically, bounded, expiring.

A limit is a :class:`Rule`: at most ``limit`` actions in any ``window`` seconds. An action is counted
against its address and, when known, its person (a profile, or the page's own client id): it is
refused when either is over. A place is *taken* before the action awaits anything and *given back*
if the action fails, so that a hundred requests at once count as a hundred (a check before an await
and a count after it let them all through).

In one process the counts live here (:class:`LocalCounters`: a sliding window per key, a bounded
number of keys, the least recently used forgotten first). A group of processes (``--bus``) counts in
Redis (:class:`RedisCounters`: a sorted set per key, checked and added to in one Lua script), so the
limit holds across the group.

>>> import asyncio
>>> rule = Rule("demo", 2, 60.0)
>>> who = Who("10.0.0.1", "p1")
>>> counters = LocalCounters()
>>> async def three() -> list[float]:
...     return [(await counters.take(rule, who.keys(rule), "t%d" % i)) for i in range(3)]
>>> [w > 0 for w in asyncio.run(three())]
[False, False, True]
"""

from __future__ import annotations

import contextlib
import logging
import math
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from barbu.web.core.errors import TableError
from barbu.web.http.clientid import CLIENT_RE

log = logging.getLogger("barbu.web.http.limits")

MAX_KEYS = 50_000  # counters kept in one process; the least recently used go first


@dataclass(frozen=True)
class Rule:
    """At most ``limit`` of an action in any ``window`` seconds, per address and per person."""

    name: str
    limit: int
    window: float = 60.0


def profile_person(player_id: str) -> str:
    """The person a proven profile is, for the limits and for "is this person at the table": "p:" and its
    id, never mistaken for a page's own id (clientid)."""
    return "p:" + player_id


@dataclass(frozen=True)
class Who:
    """Who acts: the address (as ``client_of`` gives it) and the person, if known."""

    address: str
    person: str | None = None

    def keys(self, rule: Rule) -> list[str]:
        keys = [f"{rule.name}:a:{self.address}"]
        if self.person:
            keys.append(f"{rule.name}:p:{self.person}")
        return keys


def client_id(value: str | None) -> str | None:
    """The page's client id from its header, when it is well formed (8 to 64 of A-Z a-z 0-9 _ -)."""
    if value is not None and CLIENT_RE.fullmatch(value):
        return "c:" + value
    return None


class Counters(Protocol):
    """Where the counts live: ``take`` returns 0 when counted, else the seconds to wait."""

    async def take(self, rule: Rule, keys: list[str], token: str) -> float: ...

    async def give_back(self, keys: list[str], token: str) -> None: ...


class LocalCounters:
    """Sliding windows in this process, at most ``cap`` keys (the least recently used evicted)."""

    def __init__(self, cap: int = MAX_KEYS, clock: Callable[[], float] = time.monotonic) -> None:
        self.cap = cap
        self.clock = clock
        self.windows: OrderedDict[str, tuple[float, deque[tuple[float, str]]]] = OrderedDict()

    def __len__(self) -> int:
        return len(self.windows)

    def _recent(self, key: str, window: float, now: float) -> deque[tuple[float, str]]:
        _, times = self.windows.get(key, (window, deque()))
        while times and now - times[0][0] >= window:
            times.popleft()
        return times

    async def take(self, rule: Rule, keys: list[str], token: str) -> float:
        # No await from the check to the count: the event loop runs nothing else in between.
        now = self.clock()
        self._expire(now)
        wait = 0.0
        for key in keys:
            times = self._recent(key, rule.window, now)
            if len(times) >= rule.limit:
                wait = max(wait, rule.window - (now - times[0][0]) if times else rule.window)
        if wait > 0 or rule.limit <= 0:
            return max(wait, 1.0)
        for key in keys:
            times = self._recent(key, rule.window, now)
            times.append((now, token))
            self.windows[key] = (rule.window, times)
            self.windows.move_to_end(key)
        while len(self.windows) > self.cap:
            self.windows.popitem(last=False)
        return 0.0

    def _expire(self, now: float, at_most: int = 4) -> None:
        """Forget a few of the least recently used keys whose window has passed (spread over calls)."""
        for key in list(self.windows)[:at_most]:
            window = self.windows[key][0]
            if not self._recent(key, window, now):
                del self.windows[key]

    async def give_back(self, keys: list[str], token: str) -> None:
        for key in keys:
            entry = self.windows.get(key)
            if entry is not None:
                for item in entry[1]:
                    if item[1] == token:
                        entry[1].remove(item)
                        break
                if not entry[1]:  # a refused action leaves no key behind
                    del self.windows[key]


# Each key a sorted set of (member: the action's token, score: when, in ms by Redis's clock). Checked
# and added to in one script: Redis runs a script alone, so no two processes count the same place.
TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
local wait = 0
for _, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  if redis.call('ZCARD', key) >= limit then
    local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    local w = window
    if first[2] then w = tonumber(first[2]) + window - now end
    if w > wait then wait = w end
  end
end
if wait > 0 or limit <= 0 then return math.max(wait, 1) end
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, ARGV[3])
  redis.call('PEXPIRE', key, window)
end
return 0
"""


class RedisCounters:
    """Sliding windows in Redis, shared by a group of processes; in this process if Redis fails."""

    def __init__(self, redis: Any, prefix: str = "barbu:limit:") -> None:
        self.redis = redis
        self.prefix = prefix
        self.script = redis.register_script(TAKE)
        self.fallback = LocalCounters()

    async def take(self, rule: Rule, keys: list[str], token: str) -> float:
        try:
            wait_ms = await self.script(keys=[self.prefix + k for k in keys],
                                        args=[max(1, int(rule.window * 1000)), rule.limit, token])
        except Exception as e:  # the bus is down: a limit still holds, counted here for the while
            log.warning("limits counted in this process only: Redis failed (%s)", e)
            return await self.fallback.take(rule, keys, token)
        return float(wait_ms) / 1000

    async def give_back(self, keys: list[str], token: str) -> None:
        await self.fallback.give_back(keys, token)
        with contextlib.suppress(Exception):
            async with self.redis.pipeline(transaction=True) as pipe:
                for key in keys:
                    pipe.zrem(self.prefix + key, token)
                await pipe.execute()


Refusal = Callable[[int], TableError]  # the refusal to raise, given the seconds to wait


class Limiter:
    """The server's limits: take a place before acting, give it back when the action fails."""

    def __init__(self, counters: Counters | None = None) -> None:
        self.counters: Counters = counters if counters is not None else LocalCounters()

    async def take(self, rule: Rule, who: Who, refuse: Refusal) -> tuple[list[str], str]:
        """Count one action of ``who`` under ``rule`` (a ticket to give back), or raise ``refuse(wait)``."""
        keys, token = who.keys(rule), secrets.token_hex(8)
        wait = await self.counters.take(rule, keys, token)
        if wait > 0:
            raise refuse(math.ceil(wait))
        return keys, token

    async def give_back(self, ticket: tuple[list[str], str]) -> None:
        await self.counters.give_back(*ticket)

    @contextlib.asynccontextmanager
    async def hold(self, rule: Rule, who: Who, refuse: Refusal) -> AsyncIterator[None]:
        """Count the action done in the ``with`` block; given back if it raises."""
        ticket = await self.take(rule, who, refuse)
        try:
            yield
        except BaseException:
            await self.give_back(ticket)
            raise
