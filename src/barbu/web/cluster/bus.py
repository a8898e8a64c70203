"""The bus between the ``barbu serve`` processes of one site: table leases, liveness and messages in Redis.

Each table is driven by one process, its owner, which holds the table's lease: the Redis key
``barbu:owner:TABLE`` whose value is the owner's process id, set with ``NX`` and an expiry that the
owner renews every second. Why a Redis lock rather than a PostgreSQL advisory lock on the writer's
connection: the lease then works the same whichever store holds the tables, and it is a key others
read to find the owner, so the lock and the directory are one thing and cannot disagree. A Redis lock
alone does not fence a process that was paused past its expiry (a long GC, a frozen VM); two things
close that gap:

- the owner stops writing a table once its own clock says the lease may have lapsed (the time of
  the last renewal that Redis confirmed, plus the expiry, minus a margin): it never needs Redis to
  answer to know it must stop (:meth:`Bus.holds`);
- the store's events are unique by (table, seq), and a process that loads a table expects its next
  event at the seq after the last one it replayed (``Store.expect_seq``). A late write of a former
  owner and the first write of the new one ask for the same seq: one is stored, the other is refused
  by the database, so no table can fork and no action is applied twice.

Every process keeps a heartbeat key ``barbu:proc:ID`` (expiring) and listens on the channel of the
same name: relayed sockets and HTTP requests reach the owner there, and the owner's answers go back
on the relaying process's channel (see :mod:`barbu.web.cluster.relay`). Each process also keeps the lobby
entries of its tables under ``barbu:listing:ID``, so that any process can list every table.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import redis.asyncio as aioredis

log = logging.getLogger("barbu.web.cluster.bus")

PREFIX = "barbu:"
# Renew only a lease we hold: a process whose lease lapsed and was taken must not take it back.
RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""

Handler = Callable[[dict[str, Any]], Awaitable[None]]


def new_proc_id() -> str:
    """This process's name on the bus: host, pid and a random part (a pid is reused after a restart)."""
    return f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"


def owner_key(table_id: str) -> str:
    return f"{PREFIX}owner:{table_id}"


def proc_key(proc: str) -> str:
    return f"{PREFIX}proc:{proc}"


def listing_key(proc: str) -> str:
    return f"{PREFIX}listing:{proc}"


class Bus:
    """One process's link to Redis: its heartbeat, its channel, and the leases of the tables it drives."""

    def __init__(self, url: str, *, lease_seconds: float = 4.0, beat_seconds: float = 1.0) -> None:
        self.url = url
        self.proc = new_proc_id()
        self.lease_ms = int(lease_seconds * 1000)
        self.beat = beat_seconds
        self.margin = min(1.0, lease_seconds / 4)  # seconds: stop writing this long before Redis would expire
        self.redis: aioredis.Redis = aioredis.Redis.from_url(url, decode_responses=True)
        self.until: dict[str, float] = {}  # each held lease: monotonic time until which we may write
        self._pubsub: Any = None
        self.generation = 0  # how many times we subscribed again after losing the bus
        self._listener: asyncio.Task[None] | None = None

    async def start(self, handler: Handler) -> None:
        """Say we are alive and listen on our channel; ``handler`` gets every message sent to us."""
        await self.redis.ping()
        await self.heartbeat()
        self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await self._pubsub.subscribe(proc_key(self.proc))
        self._watch(self._pubsub)
        self._listener = asyncio.get_running_loop().create_task(self._listen(handler))
        log.info("on the bus %s as %s", self.url, self.proc)

    def _watch(self, pubsub: Any) -> None:
        """Count each time redis-py connects this subscription again by itself (it says nothing else)."""
        if pubsub.connection is not None:
            pubsub.connection.register_connect_callback(self._reconnected)

    async def _reconnected(self, connection: Any) -> None:
        # redis-py subscribes again inside listen(), but what was sent while we were away is lost.
        log.warning("the bus connection was made again: messages sent meanwhile are lost")
        self.generation += 1

    async def _listen(self, handler: Handler) -> None:
        """Hand each message to ``handler``; subscribe again whenever the subscription was lost.

        Messages sent meanwhile are lost: ``generation`` counts the subscriptions, so that the
        relays, which cannot tell what they missed, are closed and their readers connect again.
        """
        while True:
            try:
                async for message in self._pubsub.listen():
                    try:
                        await handler(json.loads(message["data"]))
                    except Exception:
                        log.exception("a bus message could not be handled")
            except Exception as e:  # a lost connection, or a subscription a lost one never made
                log.warning("lost the bus (%s): listening again in a second", e)
            await asyncio.sleep(self.beat)  # listen() also ends at once unsubscribed: never spin
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
            self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            with contextlib.suppress(Exception):
                await self._pubsub.subscribe(proc_key(self.proc))
                self.generation += 1
                self._watch(self._pubsub)

    async def stop(self) -> None:
        """Give up every lease and leave the bus: the other processes take the tables at once."""
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listener
        with contextlib.suppress(Exception):
            await self.release(list(self.until))
            await self.redis.delete(proc_key(self.proc), listing_key(self.proc))
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
        await self.redis.aclose()

    async def heartbeat(self) -> None:
        await self.redis.set(proc_key(self.proc), str(time.time()), px=3 * int(self.beat * 1000))

    async def alive(self, proc: str) -> bool:
        return bool(await self.redis.exists(proc_key(proc)))

    async def live_procs(self) -> list[str]:
        """Every process whose heartbeat has not expired, this one included."""
        found = [key[len(proc_key("")):] async for key in self.redis.scan_iter(proc_key("*"), count=500)]
        return sorted(found)

    async def send(self, proc: str, message: dict[str, Any]) -> bool:
        """Publish a message on a process's channel; False when no one listens there any more."""
        return bool(await self.redis.publish(proc_key(proc), json.dumps(message)))

    # -- leases --------------------------------------------------------------------------

    async def acquire(self, table_id: str) -> bool:
        """Take a table's lease if no process holds it; True if we hold it now."""
        if self.holds(table_id):
            return True
        started = time.monotonic()
        if await self.redis.set(owner_key(table_id), self.proc, nx=True, px=self.lease_ms):
            self.until[table_id] = started + self.lease_ms / 1000 - self.margin
            return True
        return False

    def holds(self, table_id: str) -> bool:
        """Whether we may still write this table: our lease, renewed recently enough by our own clock."""
        return time.monotonic() < self.until.get(table_id, 0.0)

    async def owner(self, table_id: str) -> str | None:
        value = await self.redis.get(owner_key(table_id))
        return None if value is None else str(value)

    async def owners(self, table_ids: list[str]) -> list[str | None]:
        if not table_ids:
            return []
        values = await self.redis.mget([owner_key(t) for t in table_ids])
        return [None if v is None else str(v) for v in values]

    async def renew(self) -> list[str]:
        """Renew every lease we hold; returns the tables whose lease we lost (to forget them at once)."""
        held = list(self.until)
        if not held:
            return []
        started = time.monotonic()
        async with self.redis.pipeline(transaction=False) as pipe:
            for table_id in held:
                pipe.eval(RENEW, 1, owner_key(table_id), self.proc, self.lease_ms)
            answers = await pipe.execute()
        lost = []
        for table_id, ok in zip(held, answers, strict=True):
            if ok:
                self.until[table_id] = started + self.lease_ms / 1000 - self.margin
            else:
                self.until.pop(table_id, None)
                lost.append(table_id)
        return lost

    async def release(self, table_ids: Iterable[str]) -> None:
        ids = list(table_ids)
        for table_id in ids:
            self.until.pop(table_id, None)
        if ids:
            async with self.redis.pipeline(transaction=False) as pipe:
                for table_id in ids:
                    pipe.eval(RELEASE, 1, owner_key(table_id), self.proc)
                await pipe.execute()

    # -- the lobby's list ------------------------------------------------------------------

    async def publish_listing(self, entries: list[dict[str, Any]]) -> None:
        """Our tables' lobby entries, for the other processes' lists; they expire with our heartbeat."""
        await self.redis.set(listing_key(self.proc), json.dumps(entries), px=3 * int(self.beat * 1000))

    async def listings(self) -> list[dict[str, Any]]:
        """The lobby entries of every live process's tables, each table once."""
        keys = [listing_key(p) for p in await self.live_procs()]
        out: dict[str, dict[str, Any]] = {}
        for text in await self.redis.mget(keys) if keys else []:
            for entry in json.loads(text) if text else []:
                out.setdefault(str(entry["id"]), entry)
        return list(out.values())
