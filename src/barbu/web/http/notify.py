"""Web Push notifications (RFC 8030, VAPID): a profile's browsers told of their turn and of a game's end."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from barbu.web.core.errors import TableError
from barbu.web.core.ports import TableStore
from barbu.web.core.rows import PlayerBatch, PushRow
from barbu.web.core.words import languages, words
from barbu.web.tables.table import Table

log = logging.getLogger("barbu.web")

ATTEMPTS = 3  # sends of one message to one browser before it is given up (logged)
RETRY_DELAY = 2.0  # seconds before the second attempt, doubled before each next one
TTL = 86400  # seconds a push service keeps a message for a browser that is offline
MAX_SUBSCRIPTIONS = 10  # browsers of one profile told at once, the oldest dropped beyond
MAX_FIELD = 1024  # characters of an endpoint or a key, at most
# The push services of the browsers: a subscription elsewhere is refused, so that nobody makes the server
# post to an address of their choosing (OWASP: server-side request forgery).
PUSH_SERVICES = ("fcm.googleapis.com", "updates.push.services.mozilla.com", "push.services.mozilla.com",
                 "notify.windows.com", "push.apple.com")
GONE = (404, 410)  # the push service's word that a subscription has ended: it is removed

StorePlayer = Callable[[PlayerBatch], Awaitable[None]]


def load_key(path: str) -> Any:
    """The operator's VAPID private key (a PEM file, e.g. made by ``vapid --gen``)."""
    from py_vapid import Vapid

    return Vapid.from_file(private_key_file=path)


def public_key(vapid: Any) -> str:
    """The applicationServerKey a browser subscribes with: the public key's point, base64url."""
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    raw = vapid.public_key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def known_service(endpoint: str, services: tuple[str, ...]) -> bool:
    """Whether an endpoint is an https address of one of these push services (or of a subdomain)."""
    parts = urlsplit(endpoint)
    host = parts.hostname or ""
    return parts.scheme == "https" and any(host == s or host.endswith("." + s) for s in services)


def subscription(body: Any, lang: Any, services: tuple[str, ...] | None) -> PushRow:
    """A browser's PushSubscription (its toJSON()) checked: an endpoint at a push service (``services``;
    None: any http(s) address, for tests) and its two keys."""
    if not isinstance(body, dict) or not isinstance(body.get("keys"), dict):
        raise TableError("bad-subscription", "a subscription is an object with an endpoint and keys", 400)
    endpoint, keys = body.get("endpoint"), body["keys"]
    p256dh, auth = keys.get("p256dh"), keys.get("auth")
    for value in (endpoint, p256dh, auth):
        if not isinstance(value, str) or not 0 < len(value) <= MAX_FIELD:
            raise TableError("bad-subscription", "the endpoint and the keys p256dh and auth are texts of "
                             f"1 to {MAX_FIELD} characters", 400)
    assert isinstance(endpoint, str) and isinstance(p256dh, str) and isinstance(auth, str)
    if services is not None and not known_service(endpoint, services):
        raise TableError("bad-subscription", "the endpoint is not a known push service's https address", 400)
    if urlsplit(endpoint).scheme not in ("https", "http") or not urlsplit(endpoint).hostname:
        raise TableError("bad-subscription", "the endpoint is a push service's http(s) address", 400)
    chosen = lang if isinstance(lang, str) and lang in languages() else "en"
    return PushRow(endpoint, p256dh, auth, chosen)


class Pusher:
    """Sends Web Push messages to a profile's browsers, in threads off the event loop, a few tries each."""

    def __init__(self, vapid: Any, subject: str, store: TableStore, store_player: StorePlayer) -> None:
        self.vapid = vapid
        self.subject = subject  # the operator's contact (mailto: or https:), the JWT's "sub"
        self.store = store
        self.store_player = store_player
        self.tasks: set[asyncio.Task[None]] = set()

    def tell(self, player_id: str, table_id: str, key: str, **args: object) -> None:
        """Tell each browser of a profile (in the language it subscribed in) of a table whose notifications
        it has not switched off: never waits, never raises."""
        url = f"/table/{table_id}"
        try:
            subs = [] if self.store.push_quiet(player_id, table_id) else self.store.push_of(player_id)
        except Exception:  # a lost database must not stop a move: the notice is lost, and said so
            log.exception("the push subscriptions of a profile could not be read")
            return
        for sub in subs:
            text = words(sub.lang).t(key, **args)
            data = json.dumps({"title": "Barbu", "body": text, "url": url}, ensure_ascii=False)
            task = asyncio.get_running_loop().create_task(self.send(player_id, sub, data))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    async def send(self, player_id: str, sub: PushRow, data: str) -> None:
        """One message to one browser: retried after a failure, the subscription removed when gone."""
        where = urlsplit(sub.endpoint).hostname  # the endpoint's path is a secret of its browser
        for attempt in range(ATTEMPTS):
            status = await asyncio.to_thread(self._post, sub, data)
            if status is None:
                return
            if status in GONE:
                await self.store_player(PlayerBatch(player_id, drop_push=[sub.endpoint]))
                log.info("a push subscription at %s has ended (%d): removed", where, status)
                return
            log.warning("a push to %s failed (%s), attempt %d of %d", where, status, attempt + 1, ATTEMPTS)
            if attempt + 1 < ATTEMPTS:
                await asyncio.sleep(RETRY_DELAY * 2 ** attempt)

    def _post(self, sub: PushRow, data: str) -> int | str | None:
        """Encrypt and post (in a worker thread): None when delivered, else the status or the error's kind."""
        from pywebpush import WebPushException, webpush

        info = {"endpoint": sub.endpoint, "keys": {"p256dh": sub.p256dh, "auth": sub.auth}}
        try:
            webpush(info, data, vapid_private_key=self.vapid, vapid_claims={"sub": self.subject},
                    ttl=TTL, timeout=10)
        except WebPushException as e:
            return e.response.status_code if e.response is not None else type(e).__name__
        except Exception as e:  # a refused connection, a timeout: tried again
            return type(e).__name__
        return None

    async def drain(self) -> None:
        """Wait for the messages being sent (the server's end, and tests)."""
        while self.tasks:
            await asyncio.gather(*list(self.tasks), return_exceptions=True)


def names(table: Table) -> str:
    """The people at a table, as a notice names it."""
    return ", ".join(s.row.name for s in table.seats)


def turn_notice(pusher: Pusher, tables: Callable[[str], Table]) -> Callable[[str, int, float], None]:
    """A turn listener (Computers.turn_listeners): the seat's profile is told, unless it is at the table."""
    def told(table_id: str, seat: int, deadline: float) -> None:
        table = tables(table_id)
        row = table.seats[seat]
        if row.row.player and row.connected == 0:
            pusher.tell(row.row.player, table_id, "notify.your-turn", table=names(table))
    return told


def over_notice(pusher: Pusher, tables: Callable[[str], Table]) -> Callable[[str], None]:
    """A game's end told to each seated profile not at the table."""
    def told(table_id: str) -> None:
        table = tables(table_id)
        for s in table.seats:
            if s.row.player and s.connected == 0:
                pusher.tell(s.row.player, table_id, "notify.game-over", table=names(table))
    return told


def invited_notice(pusher: Pusher, table: Table, player_id: str, by: str) -> None:
    """A profile invited by name to ``table`` (by its creator ``by``) is told, unless a page of theirs is
    at that table already (its notifications switched off are checked by :meth:`Pusher.tell`)."""
    if any(getattr(c, "person", None) == "p:" + player_id for c in table.clients):
        return
    pusher.tell(player_id, table.id, "notify.invited", by=by)
