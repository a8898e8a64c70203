"""How one server behaves: the database, the computer players' pace, and the limits of a public server."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from barbu.bots import levels, make_bot
from barbu.web.http.mail import Smtp
from barbu.web.tables.lobby import Limits


def cheap_levels() -> tuple[str, ...]:
    """The computer levels that do not search: the only ones a computer-only table gets by default."""
    return tuple(lv for lv in levels() if not make_bot(lv, 0).searches)


@dataclass
class Config:
    """How the server behaves, and the limits that keep a public one usable; tests shorten them."""

    db_path: str  # an SQLite file, or a postgresql:// URL
    bot_delay: float = 0.6  # seconds before each computer play, so people can follow
    idle_seconds: float = 60.0  # a person's turn may be handed to a computer after this
    db_timeout: float = 5.0  # seconds a write waits for the database before it is refused
    retry_delay: float = 2.0  # seconds before a computer player tries again after a failed write
    tables_per_minute: int = 10  # tables one client (IP address) may create in a minute
    max_open_tables: int = 200  # unfinished tables still played, in all
    max_bot_tables: int = 10  # computer-only tables running at once (0: none may be created)
    bot_table_levels: tuple[str, ...] = field(default_factory=cheap_levels)  # levels they may use
    sockets_per_client: int = 16  # WebSockets open at once from one client (IP address)
    hello_timeout: float = 10.0  # seconds a new socket has to say hello before it is closed
    listed_after_over: float = 600.0  # seconds a finished table stays in the lobby's list
    abandoned_after: float = 3600.0  # seconds without a change before a computers' table leaves the list
    quiet_after: float = 86400.0  # the same for a table with a person at it
    sheets_per_minute: int = 10  # score sheets one client (IP address) may start in a minute
    profiles_per_minute: int = 10  # profiles one client (IP address) may make in a minute
    chat_per_minute: int = 30  # chat messages one person and one address may send in a minute, all tables
    hints_per_minute: int = 40  # hints and warnings of the coach one person and one address, a minute
    lessons_per_minute: int = 30  # lessons of the tutorial one person and one address may mark done, a minute
    drills_per_minute: int = 60  # drill answers one person and one address may send in a minute
    rematch_per_minute: int = 12  # rematch answers (offer, withdraw…) one person and one address, a minute
    signin_failures: int = 3  # failed sign-ins per name and client before each next one waits (1 s, doubling)
    signin_per_client: int = 20  # failed sign-ins from one client, all names together, in signin_window
    signin_window: float = 900.0  # seconds a failed sign-in is remembered
    max_analyses: int = 2  # analyses of a player's cards (worker processes) running at once
    analysis_budget: float = 0.5  # the expert's seconds a decision in an analysis (barbu analyze --seconds)
    analysis_seconds: float = 900.0  # an analysis still running after this long is stopped
    reads_per_minute: int = 60  # timelines and PDFs one person and one address may ask for in a minute
    analysis_queue: int = 8  # analyses waiting for a place (past it they are refused)
    push_per_minute: int = 10  # Web Push subscriptions one person and one address may add or end, a minute
    invites_per_minute: int = 10  # invitations by name one person and one address may send, a minute
    vapid_key: str | None = None  # the VAPID private key's PEM file: Web Push is on (--vapid-private-key)
    push_any_endpoint: bool = False  # tests: an endpoint may be any address, not a push service's
    push_subject: str = "mailto:barbu@localhost"  # the operator's contact a push service sees (--public-url)
    public_url: str | None = None  # the site's public address: the links of mails (--public-url)
    smtp: Smtp | None = None  # the SMTP server mails go through: e-mail is on (--smtp)
    mail_from: str = ""  # the From address of mails (--mail-from)
    mails_per_hour: int = 3  # confirmation mails one address may be sent in an hour (no mail-bombing)
    digest_every: float = 600.0  # seconds between two rounds of the daily digest
    # The wall clock of play at your own pace (a turn's stored time, deadlines, banks, away, the digest's
    # day): one clock for all of them, so a test can move it by days without waiting.
    wall: Callable[[], float] = time.time
    bus: str | None = None  # redis://… : one process of a group sharing the database (web.cluster)

    @property
    def limits(self) -> Limits:
        return Limits(self.listed_after_over, self.abandoned_after, self.quiet_after)
