"""Player profiles of the web server: a unique name, a secret per device, transfer codes, optional passwords.

A profile needs no password: the server makes a random 128-bit secret, the browser keeps it
(localStorage) and sends ``ID:SECRET`` with each request that needs it. Only a salted SHA-256 of
each secret is stored, which is enough for random secrets (nothing to guess from a dictionary). A
short-lived, one-time transfer code gives another device its own secret; a password, for those
who want one, is hashed with argon2 and failed sign-ins are rate limited per name and per client.
The profile's ``id`` never changes: whatever later hangs on a player (ratings) hangs on it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from barbu.web.errors import TableError
from barbu.web.store import PlayerBatch, PlayerRow, TableStore
from barbu.web.tables import clean_name, name_key

MAX_CREDENTIAL = 100  # characters of "ID:SECRET"; a real one is about 40
MIN_PASSWORD, MAX_PASSWORD = 8, 128
MAX_CODE = 40


@dataclass(frozen=True)
class Policy:
    """How long a transfer code lasts and how many failed sign-ins are allowed, per name and client."""

    transfer_seconds: float = 600.0
    max_failures: int = 5
    failure_window: float = 900.0


def digest(salt: str, secret: str) -> str:
    return hashlib.sha256(bytes.fromhex(salt) + secret.encode()).hexdigest()


def new_key() -> tuple[str, tuple[str, str]]:
    """A device's fresh secret, and the (salt, hash) that is all the store keeps of it."""
    secret, salt = secrets.token_urlsafe(16), secrets.token_hex(16)
    return secret, (salt, digest(salt, secret))


class Profiles:
    """Every profile of one server, read from its store; each change is a :class:`PlayerBatch`."""

    def __init__(self, store: TableStore, policy: Policy | None = None,
                 wall: Callable[[], float] = time.time) -> None:
        self.store = store
        self.policy = policy or Policy()
        self.wall = wall
        self.hasher = PasswordHasher()
        self.failures: dict[str, deque[float]] = {}  # failed sign-ins by "name:KEY" and "client:ADDR"
        self.lock = threading.Lock()  # sign-ins are checked in worker threads (argon2 is slow on purpose)

    # -- who is asking ---------------------------------------------------------------

    def authenticate(self, credential: object) -> PlayerRow:
        """The profile of ``ID:SECRET``; TableError ``bad-profile`` (403) for anything else."""
        refused = TableError("bad-profile", "this browser's profile is not known here: make a new one or "
                             "sign in", 403)
        if not isinstance(credential, str) or len(credential) > MAX_CREDENTIAL or ":" not in credential:
            raise refused
        player_id, secret = credential.split(":", 1)
        row = self.store.load_player(player_id) if player_id else None
        if row is None or not any(hmac.compare_digest(digest(salt, secret), h) for salt, h in row.keys):
            raise refused
        return row

    def optional(self, credential: object) -> PlayerRow | None:
        """The profile asked with, or None when none was sent (a wrong one is still refused)."""
        return None if credential is None or credential == "" else self.authenticate(credential)

    # -- changes, planned then stored by the caller ------------------------------------

    def plan_create(self, name: object) -> tuple[str, str, PlayerBatch]:
        """A new profile: its id, device secret and batch; TableError ``name-taken`` (409)."""
        clean = clean_name(name)
        if self.store.player_named(name_key(clean)) is not None:
            raise TableError("name-taken", f"the name {clean} is taken: choose another, or sign in if it is "
                             "yours", 409, args={"name": clean})
        player_id = "p" + secrets.token_urlsafe(9)
        secret, key = new_key()
        return player_id, secret, PlayerBatch(player_id, create=(clean, name_key(clean)), keys=[key])

    def plan_transfer(self, player: PlayerRow) -> tuple[str, float, PlayerBatch]:
        """A one-time code that gives another device this profile, and until when it works."""
        code = secrets.token_urlsafe(12)
        until = self.wall() + self.policy.transfer_seconds
        return code, until, PlayerBatch(player.id, transfer=(_code_hash(code), until))

    def plan_claim(self, code: object) -> tuple[PlayerRow, str, PlayerBatch]:
        """The profile a transfer code opens, a new device secret for it, and the batch using the code up."""
        refused = TableError("bad-transfer", "this transfer code is unknown, used already or expired: show "
                             "a new one on the other device", 403)
        if not isinstance(code, str) or not 0 < len(code) <= MAX_CODE:
            raise refused
        found = self.store.transfer(_code_hash(code))
        row = self.store.load_player(found[0]) if found is not None and found[1] >= self.wall() else None
        if row is None:
            raise refused
        secret, key = new_key()
        return row, secret, PlayerBatch(row.id, keys=[key], used_transfer=_code_hash(code))

    def plan_password(self, player: PlayerRow, password: object) -> PlayerBatch:
        """Set (or with ``None``, remove) the profile's password; argon2 runs here: not on the event loop."""
        if password is None:
            return PlayerBatch(player.id, password="")
        if not isinstance(password, str) or not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
            raise TableError("bad-password", f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters",
                             args={"min": MIN_PASSWORD, "max": MAX_PASSWORD})
        return PlayerBatch(player.id, password=self.hasher.hash(password))

    def plan_signin(self, name: object, password: object, client: str) -> tuple[PlayerRow, str, PlayerBatch]:
        """Sign in by name and password: a new device secret; failures counted (429 past the limit)."""
        clean = clean_name(name)
        keys = ("name:" + name_key(clean), "client:" + client)
        self._check_attempts(keys)
        row = self.store.player_named(name_key(clean))
        if row is None or not self._verify(row.password, password):
            self._failed(keys)
            raise TableError("bad-signin", "this name and password do not match a profile", 403)
        secret, key = new_key()
        return row, secret, PlayerBatch(row.id, keys=[key])

    def _verify(self, stored: str, password: object) -> bool:
        if not stored or not isinstance(password, str) or len(password) > MAX_PASSWORD:
            return False
        try:
            return self.hasher.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return False

    # -- rate limiting of failed sign-ins ----------------------------------------------

    def _recent(self, key: str) -> deque[float]:
        times = self.failures.setdefault(key, deque())
        while times and self.wall() - times[0] >= self.policy.failure_window:
            times.popleft()
        return times

    def _check_attempts(self, keys: tuple[str, ...]) -> None:
        with self.lock:
            if any(len(self._recent(k)) >= self.policy.max_failures for k in keys):
                minutes = max(1, round(self.policy.failure_window / 60))
                raise TableError("too-many-attempts", f"too many failed sign-ins: try again in {minutes} "
                                 "minutes", 429, args={"minutes": minutes})

    def _failed(self, keys: tuple[str, ...]) -> None:
        with self.lock:
            for k in keys:
                self._recent(k).append(self.wall())


def _code_hash(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


def public(row: PlayerRow) -> dict[str, object]:
    """What a profile's owner is shown of it (never a hash)."""
    return {"id": row.id, "name": row.name, "password": bool(row.password)}
