"""What a group's process needs of the server it is part of: its readers' ports, its tables, serving a reader.

The cluster never imports the HTTP room: the server hands itself (a :class:`Host`) and the way it
serves a reader at a table (a :data:`Serve`) to the :class:`~barbu.web.cluster.relay.Cluster` it
builds. Nothing here needs redis-py, so the HTTP room may import it whether or not it runs in a group.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Protocol

from barbu.web.tables.lobby import Lobby
from barbu.web.tables.table import Table


class Port(Protocol):
    """Where a reader's frames come from and go to: its WebSocket, or a socket relayed by another process."""

    async def receive(self, within: float | None = None) -> str | None:
        """The next text frame, None once the reader has gone; TimeoutError after ``within`` s."""

    async def send_text(self, text: str) -> None: ...

    async def close(self, code: int) -> None: ...

    @property
    def address(self) -> str:
        """The reader's IP address, for the per-address limits."""


# Answer a reader's messages at a table this process drives, until the reader goes.
Serve = Callable[[Table, Port], Awaitable[None]]


class Host(Protocol):
    """The server a process of the group runs: the tables it drives and their computer players' tasks."""

    @property
    def tables(self) -> Lobby: ...

    @property
    def drivers(self) -> dict[str, asyncio.Task[None]]:
        """The task playing each table's computer players, while it runs."""

    @property
    def clocks(self) -> dict[str, asyncio.TimerHandle]:
        """Each table's turn clock, while it runs."""

    def kick(self, table: Table) -> None:
        """Make sure computer players (and forced passes) get to act at this table."""

    def resume(self, table: Table) -> None:
        """A table loaded from the store (a start, a takeover): its turn was told by whoever drove it
        when it began; its computer players get to act."""

    def revive(self, table: Table) -> None:
        """Kick a table whose computer players or turn clock stopped while its lease looked lapsed."""
