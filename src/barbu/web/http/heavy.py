"""The server's costly reads (timelines, PDFs): worked out in a worker process, at most so many waiting,
and the answers kept in a small cache.

A thread would not do: the engine's replay and reportlab are pure Python, and a thread holds the
interpreter lock that the event loop needs to answer every other table. A worker process leaves the
loop free; only the finished bytes come back to it.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from barbu.web.core.errors import TableError

Answer = tuple[int, bytes]  # an HTTP status and its JSON (or PDF) body


class Heavy:
    """Run costly pure functions in ``workers`` processes; keep the last ``kept`` answers by key.

    Asked again while it is being worked out, an answer is waited for, not worked out twice. At most
    ``waiting`` may be under way at once: more is refused (503) rather than queued without end.
    """

    def __init__(self, workers: int = 1, kept: int = 64, waiting: int = 32) -> None:
        self.workers = workers
        self.kept = kept
        self.waiting = waiting
        self.pool: ProcessPoolExecutor | None = None
        self.cache: OrderedDict[str, Answer] = OrderedDict()
        self.under_way: dict[str, asyncio.Future[Answer]] = {}
        self.calls = 0  # answers worked out (not taken from the cache): the tests count them

    def cached(self, key: str) -> Answer | None:
        """The answer kept for this key, if any (so that its arguments need not even be made)."""
        if key in self.cache:
            self.cache.move_to_end(key)
            return self.cache[key]
        return None

    async def answer(self, key: str, work: Callable[..., Answer], *args: Any) -> Answer:
        """``work(*args)``'s answer, from the cache when this key was answered lately."""
        if key in self.cache:
            self.cache.move_to_end(key)
            return self.cache[key]
        if key in self.under_way:
            return await asyncio.shield(self.under_way[key])
        if len(self.under_way) >= self.waiting:
            raise TableError("too-many-reads", "the server is busy with other replays and prints: try again "
                             "in a moment", 503, args={"variant": "busy"})
        future: asyncio.Future[Answer] = asyncio.ensure_future(self.run(work, *args))
        self.under_way[key] = future
        try:
            out: Answer = await asyncio.shield(future)
        finally:
            self.under_way.pop(key, None)
        self.cache[key] = out
        while len(self.cache) > self.kept:
            self.cache.popitem(last=False)
        return out

    async def run(self, work: Callable[..., Any], *args: Any) -> Any:
        """``work(*args)`` in a worker process (``work`` is pickled by name: a module's function)."""
        if self.pool is None:
            self.pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"))
        self.calls += 1
        return await asyncio.get_running_loop().run_in_executor(self.pool, work, *args)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None
