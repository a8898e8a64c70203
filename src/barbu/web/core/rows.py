"""The stored rows and the batches of changes, as the rooms and the storage both speak of them.

The storage port (:class:`barbu.web.core.ports.TableStore`) reads these rows and commits these
batches; what a database makes of them is the storage room's business.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class SeatRow:
    """One seat as stored: who sits there and whether a person or a computer plays it."""

    seat: int
    name: str
    token: str  # the secret of the seat's invitation link
    kind: str  # "human" or "bot"
    level: str  # bot level when kind is "bot", or the level that took over an idle human
    claimed: bool  # a person has taken the seat (by its link or from the lobby)
    player: str = ""  # the profile the seat is tied to ("" for none)
    access: str = "open"  # "open": anyone may take it from the lobby; "friend": only with its link
    client: str = ""  # a digest of the browser's client id that took the seat ("" for none: clientid.py)
    invited: str = ""  # the profile a free seat is held for by its creator's invitation ("" for none)
    invited_at: float = 0.0  # when that invitation was made (wall time)


@dataclass(frozen=True)
class TableEntry:
    """A stored table as the start-up sees it before rebuilding it."""

    id: str
    over: bool
    last_change: float  # wall time of its last event, or of its creation


@dataclass(frozen=True)
class Event:
    """One stored step of a table: a deal or an action (``problem``: why its data cannot be read)."""

    seq: int
    kind: str
    data: dict[str, Any]
    at: float = 0.0
    problem: str | None = None


@dataclass(frozen=True)
class GameResult:
    """A finished game to rate: who sat where ("person:ID", "computer:LEVEL" or "" for a newcomer
    who is not stored), each seat's place and total, and per seat each contract's (sum, hands)."""

    ruleset: str
    entrants: tuple[str, ...]
    places: tuple[int, ...]
    totals: tuple[int, ...]
    contracts: tuple[dict[str, tuple[int, int]], ...]


@dataclass(frozen=True)
class RatingRow:
    """A stored rating: a profile's skill under a rule set and how many rated games made it."""

    player_id: str
    name: str
    ruleset: str
    mu: float
    sigma: float
    games: int


@dataclass(frozen=True)
class HistoryRow:
    """One rated game of one profile: where and when, its place and total, its skill before and after."""

    table_id: str
    ruleset: str
    seat: int
    place: int
    total: int
    before: tuple[float, float]
    after: tuple[float, float]
    contracts: dict[str, tuple[int, int]]
    at: float
    listed: bool = False  # its table is still stored and was in the lobby's list (not private)


@dataclass
class Batch:
    """One change of one table, stored in one transaction: new events, seats, the end of the game."""

    table_id: str
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    seats: list[SeatRow] = field(default_factory=list)
    over: bool = False
    create: dict[str, Any] | None = None  # the setup of a new table (its seats are in ``seats``)
    private: bool = False  # a new table left out of the lobby's list
    creator: int = -1  # a new table's seat of its creator (-1: none)
    also: list[Batch] = field(default_factory=list)  # more tables' changes in one transaction (rematch)
    result: GameResult | None = None  # the game this change ends, rated in the same transaction
    bank: tuple[str, float, float] | None = None  # a profile's time bank drawn: (id, seconds left, when)
    # The wall time its events (and a new table) are stored with: a deadline counted from it is the
    # same instant in memory and when the table is read back after a restart or by another process.
    at: float = field(default_factory=time.time)

    def __bool__(self) -> bool:
        return bool(self.events or self.seats or self.over or self.create is not None or self.also)


@dataclass
class SheetBatch:
    """One change of a score sheet, in one transaction: the whole new document and the entry that made it.

    ``entry`` is the client's id of the change: stored with it, so that a resend is known as one.
    ``token`` is set only for a new sheet. ``op`` is what was asked (kept as the sheet's history).
    """

    sheet_id: str
    doc: dict[str, Any]
    version: int
    entry: str | None = None
    op: dict[str, Any] = field(default_factory=dict)
    token: str | None = None

    def __bool__(self) -> bool:
        return True


@dataclass
class PlayerBatch:
    """One change of a profile, in one transaction: made, a device's key added, a code given or used."""

    player_id: str
    create: tuple[str, str] | None = None  # a new profile's name and its case-folded key
    keys: list[tuple[str, str]] = field(default_factory=list)  # (salt, hash) of a device's secret
    password: str | None = None  # the password's argon2 hash ("" removes it)
    transfer: tuple[str, float] | None = None  # a new transfer code's hash and its expiry (wall time)
    used_transfer: str | None = None  # the hash of a transfer code now used up
    how: str = ""  # how the new keys came: "made", "transfer" or "password"
    max_keys: int = 0  # keys the profile keeps at most, the least recently seen dropped (0: no cap)
    live_codes: int = 0  # transfer codes the profile keeps at most, the oldest dropped (0: no cap)
    drop_keys: list[str] = field(default_factory=list)  # hashes of keys signed out
    keep_only: str | None = None  # sign out every key but this hash's ("" signs out none)
    seen: tuple[str, float] | None = None  # the hash of a key seen, and when (wall time)
    lesson_done: str | None = None  # a lesson of the tutorial the profile has done (a known id)
    pace: PaceRow | None = None  # the profile's choices for tables at your own pace
    drills: str | None = None  # the learner's record of the practice drills, as JSON text, replaced whole
    push: PushRow | None = None  # a browser's Web Push subscription, added (or replaced: same endpoint)
    max_push: int = 0  # subscriptions the profile keeps at most, the oldest dropped (0: no cap)
    drop_push: list[str] = field(default_factory=list)  # endpoints of subscriptions ended
    quiet: tuple[str, bool] | None = None  # a table, and whether its notifications are off for the profile
    mail: MailChange | None = None  # a new e-mail address, not yet confirmed (replaces the one there)
    drop_mail: bool = False  # the e-mail address removed
    mail_confirm: tuple[str, float] | None = None  # a confirmation code's hash, used at this wall time
    mail_events: tuple[str, ...] | None = None  # the kinds of mail the profile now wants
    digest_day: str | None = None  # the UTC day (YYYY-MM-DD) whose digest this process claims

    def __bool__(self) -> bool:
        return True


@dataclass(frozen=True)
class MailChange:
    """A new e-mail address of a profile: its confirmation code's hash (the code itself is only in the mail)
    and expiry, and the random token of its mails' unsubscribe links (kept as it is: every mail carries it,
    and all it can do is turn mail off)."""

    address: str
    lang: str
    code_hash: str
    code_expires: float
    unsubscribe: str


@dataclass(frozen=True)
class MailRow:
    """A profile's e-mail address: confirmed or not, the kinds of mail it wants, its last digest's day."""

    player_id: str
    address: str
    verified: bool
    lang: str
    events: tuple[str, ...]
    last_digest: str
    unsubscribe: str  # the token of its mails' unsubscribe links


@dataclass(frozen=True)
class PushRow:
    """A browser's Web Push subscription: where the push service takes a message, its keys (base64url)."""

    endpoint: str
    p256dh: str
    auth: str
    lang: str


@dataclass(frozen=True)
class PlayerRow:
    """A stored profile: its id (what ratings will hang on), name, password hash and device keys."""

    id: str
    name: str
    name_key: str
    password: str  # argon2 hash, or "" for a profile without a password
    keys: tuple[tuple[str, str], ...]  # (salt, sha-256 of salt and secret), one per device


@dataclass(frozen=True)
class DeviceRow:
    """One device's key of a profile: its hash, when it was made and last seen, and how it came."""

    hash: str
    created: float
    seen: float  # 0 until first noted
    how: str  # "made", "transfer", "password", or "" for a key older than the list of devices


@dataclass(frozen=True)
class SheetRow:
    """A stored score sheet: its write secret, its document (as text) and how many changes made it."""

    id: str
    token: str
    doc: str
    version: int


@dataclass(frozen=True)
class PaceRow:
    """A profile's choices for tables at your own pace: what happens when its deadline passes (a computer
    of ``level`` plays the move, or the table ``wait``s for a few skips), its time bank (seconds at
    ``bank_at``, refilled since), and the wall time it is away until (0: not away)."""

    on_timeout: str = "computer"
    level: str = ""
    bank: float = 86400.0
    bank_at: float = 0.0
    away_until: float = 0.0
