"""The notices of play at your own pace, each event told to a person by Web Push and by e-mail as they chose.

One object, :class:`Notices`, is what the server calls when something happens to a person (their turn,
an invitation, a game's end): it hands the event to the push sender and to the mailer, so that a new
event is one method here and one call where it happens.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from barbu.web.core.errors import TableError
from barbu.web.core.ports import TableStore
from barbu.web.core.rows import MailRow, PlayerBatch, PlayerRow
from barbu.web.core.words import Words, words
from barbu.web.http.config import Config
from barbu.web.http.limits import profile_person
from barbu.web.http.mail import Mailer
from barbu.web.http.mails import ALL, Mail, message, unsubscribe_url
from barbu.web.http.notify import Pusher, load_key, names
from barbu.web.tables.table import Table

log = logging.getLogger("barbu.web")

DIGESTS_AT_ONCE = 500  # addresses one round of the digest reads; the rest wait for the next round
StorePlayer = Callable[[PlayerBatch], Awaitable[None]]
Tables = Callable[[str], Table]
Yours = Callable[[PlayerRow], list[dict[str, Any]]]


def today(now: float) -> str:
    """The UTC day of a wall time, as the digest counts days: YYYY-MM-DD."""
    return datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%d")


def notices_for(config: Config, store: TableStore, tables: Tables,
                store_player: StorePlayer) -> Notices | None:
    """The notices of a server: Web Push with a VAPID key, e-mail with an SMTP server (None: neither)."""
    pusher = None if config.vapid_key is None else Pusher(load_key(config.vapid_key), config.push_subject,
                                                          store, store_player)
    mailer = None
    if config.smtp is not None:
        assert config.public_url, "mails need the site's public address for their links"
        mailer = Mailer(config.smtp, config.mail_from, config.public_url)
    if pusher is None and mailer is None:
        return None
    return Notices(store, tables, pusher, mailer, store_player)


class Notices:
    """Tells people what happened at their tables: by push to their browsers, by mail to their confirmed
    address (each kind of mail only when they ticked it), never while they are at that table."""

    def __init__(self, store: TableStore, tables: Tables, pusher: Pusher | None, mailer: Mailer | None,
                 store_player: StorePlayer) -> None:
        self.store = store
        self.tables = tables
        self.pusher = pusher
        self.mailer = mailer
        self.store_player = store_player
        self.digest_task: asyncio.Task[None] | None = None  # the daily digest's rounds, with a mailer
        self.wall: Callable[[], float] = time.time  # the server's clock (Config.wall): the digest's day

    # -- the events ------------------------------------------------------------------------------

    def turn(self, table_id: str, seat: int, deadline: float) -> None:
        """A turn listener (Computers.turn_listeners): the seat's profile is told, unless at the table."""
        table = self.tables(table_id)
        row = table.seats[seat]
        if not row.row.player or row.connected:
            return
        if self.pusher is not None:
            self.pusher.tell(row.row.player, table_id, "notify.your-turn", table=names(table))
        self.mail(row.row.player, table_id, "turn", lambda w: Mail(
            "turn", w.t("mail.subject-turn"), [w.t("notify.your-turn", table=names(table))],
            (w.t("mail.open-table"), self.link(table_id))))

    def over(self, table_id: str) -> None:
        """A game's end told to each seated profile not at the table, the final places in the mail."""
        table = self.tables(table_id)
        places = table.game.places(table.state.totals)
        for s in table.seats:
            if not s.row.player or s.connected:
                continue
            if self.pusher is not None:
                self.pusher.tell(s.row.player, table_id, "notify.game-over", table=names(table))
            self.mail(s.row.player, table_id, "over", lambda w: Mail(
                "over", w.t("mail.subject-over"), [w.t("notify.game-over", table=names(table)),
                                                   w.t("mail.places")],
                (w.t("mail.open-table"), self.link(table_id)),
                [(w.t("mail.place", place=places[i], name=o.row.name, total=table.state.totals[i]), None)
                 for i, o in sorted(enumerate(table.seats), key=lambda p: places[p[0]])]))

    def invited(self, player_id: str, table_id: str, by: str) -> None:
        """A profile invited to a table by ``by`` (a name): told even when not at the table yet. Where an
        invitation is stored (http/inviteapi.py); not when a page of theirs is at that table already."""
        table = self.tables(table_id)
        if any(getattr(c, "person", None) == profile_person(player_id) for c in table.clients):
            return
        if self.pusher is not None:
            self.pusher.tell(player_id, table_id, "notify.invited", name=by, table=names(table))
        self.mail(player_id, table_id, "invited", lambda w: Mail(
            "invited", w.t("mail.subject-invited", name=by),
            [w.t("notify.invited", name=by, table=names(table))],
            (w.t("mail.open-table"), self.link(table_id))))

    # -- mail ------------------------------------------------------------------------------------

    def link(self, table_id: str) -> str:
        assert self.mailer is not None
        return f"{self.mailer.public_url}/table/{table_id}"  # no seat token: the profile opens the seat

    def mail(self, player_id: str, table_id: str | None, kind: str, build: Callable[[Words], Mail]) -> None:
        """Mail a notice of ``kind`` when the person's confirmed address wants it and the table is not
        switched off for them (per-turn mails give way to the daily digest). Never raises."""
        if self.mailer is None:
            return
        try:
            row = self.store.mail_of(player_id)
            wanted = row is not None and row.verified and kind in row.events and \
                not (kind == "turn" and "digest" in row.events)
            if not wanted or (table_id is not None and self.store.push_quiet(player_id, table_id)):
                return
        except Exception:  # a lost database must not stop a move: the notice is lost, and said so
            log.exception("the e-mail address of a profile could not be read")
            return
        assert row is not None
        self.send(row, build(words(row.lang)))

    def send(self, row: MailRow, mail: Mail) -> None:
        assert self.mailer is not None
        base = self.mailer.public_url
        kind = ALL if mail.kind == "confirm" else mail.kind  # a stranger's "stop": the address goes
        unsubscribe = unsubscribe_url(base, row.unsubscribe, kind)
        self.mailer.send(message(mail, row.lang, row.address, base, unsubscribe))

    def confirm(self, address: str, lang: str, name: str, code: str, unsubscribe: str) -> None:
        """The mail that asks an address's owner to confirm it: the only mail an unconfirmed address gets."""
        assert self.mailer is not None
        w = words(lang)
        row = MailRow("", address, False, lang, (), "", unsubscribe)
        self.send(row, Mail("confirm", w.t("mail.subject-confirm"), [w.t("mail.confirm-text", name=name)],
                            (w.t("mail.confirm-button"), f"{self.mailer.public_url}/mail/confirm#{code}")))

    def start_digests(self, yours: Yours, every: float) -> None:
        """Run the daily digest's rounds (with a mailer, in a running event loop: the server's start)."""
        if self.mailer is not None:
            self.digest_task = asyncio.get_running_loop().create_task(self.digests(yours, every))

    def cancel(self) -> None:
        """Stop the digest's rounds and what is being sent (the server's end)."""
        if self.digest_task is not None:
            self.digest_task.cancel()
        for sender in (self.pusher, self.mailer):
            for task in list(sender.tasks if sender is not None else ()):
                task.cancel()

    # -- the daily digest ------------------------------------------------------------------------

    async def digests(self, yours: Yours, every: float) -> None:
        """The digest's rounds, one every ``every`` seconds, for as long as the server runs."""
        while True:
            try:
                await self.digest(yours)
            except Exception:  # a lost database: the next round tries again
                log.exception("a round of the daily digest failed")
            await asyncio.sleep(every)

    async def digest(self, yours: Yours, now: float | None = None) -> int:
        """One round of the daily digest at wall time ``now``: each confirmed address that wants one and
        has had none today (UTC) gets one, when tables wait for its person. Each day is claimed in the
        store first (one row changed or none), so that of several processes only one sends it. Returns
        the mails sent."""
        if self.mailer is None:
            return 0
        day = today(self.wall() if now is None else now)
        sent = 0
        for row in self.store.digests_due(day, DIGESTS_AT_ONCE):
            player = self.store.load_player(row.player_id)
            waiting = [] if player is None else [t for t in yours(player) if t["state"] == "your-turn"]
            if not waiting:
                continue  # nothing waits: no mail, and the day is not taken (a turn may come later today)
            try:
                await self.store_player(PlayerBatch(row.player_id, digest_day=day))
            except TableError:  # another process claimed it, or the store is lost: not sent from here
                continue
            self.send(row, self.digest_mail(row, waiting, self.wall() if now is None else now))
            sent += 1
        return sent

    def digest_mail(self, row: MailRow, waiting: list[dict[str, Any]], now: float) -> Mail:
        w = words(row.lang)
        lines: list[tuple[str, str | None]] = []
        for t in sorted(waiting, key=lambda t: (t.get("own_pace") or {}).get("due") or 0.0):
            due = (t.get("own_pace") or {}).get("due")
            text = ", ".join(str(n) for n in t.get("names", [])) or str(t["id"])
            if due is not None:
                text += " · " + w.t("mail.hours-left", hours=max(0, round((float(due) - now) / 3600)))
            lines.append((text, self.link(str(t["id"]))))
        return Mail("digest", w.t("mail.subject-digest", n=len(waiting)),
                    [w.t("mail.digest-text", n=len(waiting))], None, lines)


def new_code() -> str:
    """A random code for a link (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)
