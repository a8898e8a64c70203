"""The computer players: the tasks that let them act, and the turn clocks that wake for a slow person."""

from __future__ import annotations

import asyncio
import functools
import logging
import multiprocessing
import os
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from barbu.bots import make_bot
from barbu.engine.observation import Observation
from barbu.web.core.errors import TableError
from barbu.web.http.config import Config
from barbu.web.tables.computers import AutoMove
from barbu.web.tables.parts import Change
from barbu.web.tables.setup import PACES
from barbu.web.tables.table import Table

log = logging.getLogger("barbu.web")

DEADLINE_CHECK = 600.0  # seconds between two looks at a far deadline at your own pace

# Plan a change of a table, store it, then make it (Server.change): False when there was nothing to do.
ChangeTable = Callable[[Table, Callable[[], Change | None]], Awaitable[bool]]


class Computers:
    """The tasks that play the computer seats and the turn clocks of the tables this process drives."""

    def __init__(self, config: Config, change: ChangeTable, drives: Callable[[Table], bool]) -> None:
        self.config = config
        self.change = change
        self.drives = drives  # whether this process plays a table on (see Server.drives)
        self.drivers: dict[str, asyncio.Task[None]] = {}
        self.clocks: dict[str, asyncio.TimerHandle] = {}  # each table's turn clock, while it runs
        self.deadlines: dict[str, asyncio.TimerHandle] = {}  # each table's deadline at your own pace
        # Called as (table id, seat, deadline) when a person's turn begins at a table at your own pace:
        # where a notifier (Web Push, e-mail) subscribes. Each turn is told once by the process driving it.
        self.turn_listeners: list[Callable[[str, int, float], None]] = []
        self.told: dict[str, int] = {}  # the move count of each table's turn last told
        self.background: set[asyncio.Task[None]] = set()
        self.pool: ProcessPoolExecutor | None = None  # for the searching computer players

    async def stop(self) -> None:
        """Stop every clock and computer player, and the worker processes of the searching ones."""
        for handle in [*self.clocks.values(), *self.deadlines.values()]:
            handle.cancel()
        for task in self.drivers.values():
            task.cancel()
        if self.drivers:  # wait, not await: a cancel of stop() itself must not be taken for theirs
            done, _ = await asyncio.wait(list(self.drivers.values()))
            for task in done:
                if not task.cancelled() and task.exception() is not None:
                    log.error("a computer player's task had failed", exc_info=task.exception())
        self.drivers.clear()
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None

    def kick(self, table: Table) -> None:
        """Make sure computer players (and forced passes) get to act at this table."""
        if not self.drives(table):
            return
        if table.auto_seat() is None:
            if table.waiting():  # the pause between hands ends by itself after --idle seconds
                asyncio.get_running_loop().call_later(table.pause_left() + 0.05, self.kick, table)
            self.arm_clock(table)
            self.arm_deadline(table)
            return
        task = self.drivers.get(table.id)
        if task is None or task.done():
            self.drivers[table.id] = asyncio.get_running_loop().create_task(self._drive(table))

    def revive(self, table: Table) -> None:
        """Kick a table whose computer players or turn clock stopped (they stop when our lease may have
        lapsed by our own clock; once it is renewed nothing else would start them again)."""
        if not self.drives(table):
            return
        task = self.drivers.get(table.id)
        if table.auto_seat() is not None and (task is None or task.done()):
            self.kick(table)
        clock = self.clocks.get(table.id)
        if clock is not None and clock.when() < asyncio.get_running_loop().time() - 1.0:
            self.arm_clock(table)  # it went off and found the table not ours: the same turn, again
        self.arm_deadline(table)

    def arm_clock(self, table: Table) -> None:
        """Wake up when the person to act runs out of time on the table's turn clock, if it has one."""
        left = table.clock_left()
        if left is None:
            return
        old = self.clocks.pop(table.id, None)
        if old is not None:
            old.cancel()
        moves = table.moves
        self.clocks[table.id] = asyncio.get_running_loop().call_later(
            max(0.0, left) + 0.05, lambda: self.spawn(self._time_out(table, moves)))

    def arm_deadline(self, table: Table) -> None:
        """Wake up when the person to act at a table at your own pace reaches their deadline (checked again
        at least every DEADLINE_CHECK seconds: the wall clock may move, an away date may change)."""
        due = table.deadlines.deadline()
        old = self.deadlines.pop(table.id, None)
        if old is not None:
            old.cancel()
        if due is None:
            self.told.pop(table.id, None)
            return
        if self.told.get(table.id) != table.moves:
            self.told[table.id] = table.moves
            for listener in self.turn_listeners:
                listener(table.id, table.state.current, due)
        wait = min(max(0.0, due - table.wall()), DEADLINE_CHECK) + 0.05
        self.deadlines[table.id] = asyncio.get_running_loop().call_later(
            wait, lambda: self.spawn(self.enforce(table)))

    async def enforce(self, table: Table) -> str | None:
        """Do what a passed deadline does at a table this process drives (bank, skip or a computer's
        move), each stored before it is made; what it did (None: nothing has passed)."""
        if not self.drives(table):
            return None
        moves, now = table.moves, table.wall()
        done = None
        try:
            planned = table.deadlines.plan_deadline(moves, now)
            if isinstance(planned, str):
                level = planned
                action = await self._decide(table.deadlines.computer(level))
                if await self.change(table, lambda: table.deadlines.plan_computer(moves, level, action, now)):
                    done = "computer"
            elif planned is not None and await self.change(table, lambda: bank_or_skip(table, moves, now)):
                done = "deadline"
        except TableError as e:
            log.info("table %s: a passed deadline could not be acted on: %s", table.id, e.message)
        self.kick(table)
        return done

    def spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        """Run ``work`` as a task, held until it is done (the loop keeps only weak references)."""
        task = asyncio.get_running_loop().create_task(work)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    async def _time_out(self, table: Table, moves: int) -> None:
        try:
            if await self.change(table, lambda: table.plan_time_out(moves)):
                self.kick(table)
            else:
                self.arm_clock(table)  # moved on (or the pause began): the new turn's clock
        except TableError as e:
            log.info("table %s: the turn clock could not hand the seat over: %s", table.id, e.message)

    async def _drive(self, table: Table) -> None:
        while self.drives(table) and (move := table.auto_move()) is not None:
            await asyncio.sleep(computer_delay(self.config, table))
            try:
                action = await self._decide(move)
                # Dropped if a person took the seat back, or anything else changed, meanwhile.
                await self.change(table, functools.partial(table.plan_auto, move, action))
            except TableError as e:
                if e.code != "storage":
                    raise
                await asyncio.sleep(self.config.retry_delay)  # the database may be back by then
            except Exception:
                log.exception("table %s: computer player at seat %d failed", table.id, move.seat)
                return
        self.kick(table)  # held for the people after a hand: wake up when the pause is over

    async def _decide(self, move: AutoMove) -> int:
        """A computer player's action, decided away from the event loop.

        The quick levels answer in a worker thread. The searching ones (``pimc``, ``strong``,
        ``expert``) think for up to a second or so, which in a thread would hold the interpreter
        lock that every table shares: they get a worker process, with a seed drawn from the seat's
        own bot so that its play stays reproducible.
        """
        bot = move.bot
        if bot is None or not bot.searches:
            return await asyncio.to_thread(move.decide)
        seed = bot.rng.getrandbits(64)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.workers(), decide_elsewhere, bot.name, seed, move.obs)

    def workers(self) -> ProcessPoolExecutor:
        """The worker processes of the searches (the searching computers', the coach's), started once."""
        if self.pool is None:
            workers = max(1, min(4, os.cpu_count() or 1))
            self.pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
        return self.pool


def bank_or_skip(table: Table, moves: int, now: float) -> Change | None:
    """The stored change of a passed deadline (a time bank drawn, a skip counted), if that is what it does."""
    planned = table.deadlines.plan_deadline(moves, now)
    return planned if isinstance(planned, Change) else None


def computer_delay(config: Config, table: Table) -> float:
    """The wait before each computer play at ``table``: the server's, scaled by the table's pace."""
    return config.bot_delay * PACES.get(table.pace, 1.0)


def decide_elsewhere(level: str, seed: int, obs: Observation) -> int:
    """A fresh bot's action for ``obs``, in a worker process (module level: it is pickled by name)."""
    return make_bot(level, seed).act(obs)
