"""Player profiles of the web server: a unique name, a secret per device, transfer codes, optional passwords.

A profile needs no password: the server makes a random 128-bit secret, the browser keeps it
(localStorage) and sends ``ID:SECRET`` with each request that needs it. Only a salted SHA-256 of
each secret is stored, which is enough for random secrets (nothing to guess from a dictionary). A
short-lived, one-time transfer code gives another device its own secret; a password, for those
who want one, is hashed with argon2 and failed sign-ins are slowed down (barbu.web.people.signin). Each
device is listed and can be signed out; changing the password signs out every other one.
The profile's ``id`` never changes: whatever later hangs on a player (ratings) hangs on it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from barbu.web.core.errors import TableError
from barbu.web.core.names import clean_name, name_key
from barbu.web.core.ports import TableStore
from barbu.web.core.rows import DeviceRow, PlayerBatch, PlayerRow
from barbu.web.people.signin import Rate, Throttle, ThrottlePolicy

MAX_CREDENTIAL = 100  # characters of "ID:SECRET"; a real one is about 40
MIN_PASSWORD, MAX_PASSWORD = 8, 128
MAX_CODE = 40


@dataclass(frozen=True)
class Policy:
    """How long a transfer code lasts, how many a profile may have, its devices, and the sign-in throttle."""

    transfer_seconds: float = 600.0
    live_codes: int = 5  # transfer codes of one profile that work at once: a new one replaces the oldest
    codes_per_window: int = 10  # transfer codes one profile may ask for in code_window
    code_window: float = 600.0
    max_devices: int = 20  # devices of one profile: a new one signs out the one least recently seen
    seen_every: float = 300.0  # seconds between two stores of when a device was last seen
    throttle: ThrottlePolicy = field(default_factory=ThrottlePolicy)


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
        self.policy = p = policy or Policy()
        self.wall = wall
        self.hasher = PasswordHasher()
        self.dummy = ""  # a hash of nothing anyone knows: what a sign-in without a real one is checked with
        self.throttle = Throttle(p.throttle, lambda: self.wall())
        self.codes = Rate(p.codes_per_window, p.code_window, p.throttle.cap, lambda: self.wall())
        self.lock = threading.Lock()  # sign-ins are checked in worker threads (argon2 is slow on purpose)

    # -- who is asking ---------------------------------------------------------------

    def authenticate(self, credential: object) -> PlayerRow:
        """The profile of ``ID:SECRET``; TableError ``bad-profile`` (403) for anything else."""
        return self.identify(credential)[0]

    def identify(self, credential: object) -> tuple[PlayerRow, str]:
        """The profile of ``ID:SECRET`` and the stored hash of that device's key (403 ``bad-profile``)."""
        refused = TableError("bad-profile", "this browser's profile is not known here: make a new one or "
                             "sign in", 403)
        if not isinstance(credential, str) or len(credential) > MAX_CREDENTIAL or ":" not in credential:
            raise refused
        player_id, secret = credential.split(":", 1)
        row = self.store.load_player(player_id) if player_id else None
        if row is None:
            raise refused
        for salt, h in row.keys:
            if hmac.compare_digest(digest(salt, secret), h):
                return row, h
        raise refused

    def optional(self, credential: object) -> PlayerRow | None:
        """The profile asked with, or None when none was sent (a wrong one is still refused)."""
        return None if credential is None or credential == "" else self.authenticate(credential)

    def devices(self, player: PlayerRow, current: str) -> list[dict[str, object]]:
        """The profile's devices, as its owner is shown them (an id for each, never its hash)."""
        return [device_view(d, current) for d in self.store.devices_of(player.id)]

    def plan_seen(self, player: PlayerRow, key_hash: str) -> PlayerBatch | None:
        """A batch noting that this device was seen now, unless that was noted a short while ago."""
        last = next((d.seen for d in self.store.devices_of(player.id) if d.hash == key_hash), None)
        now = self.wall()
        if last is None or abs(now - last) < self.policy.seen_every:
            return None
        return PlayerBatch(player.id, seen=(key_hash, now))

    def plan_revoke(self, player: PlayerRow, device: object) -> PlayerBatch:
        """Sign one device out (by the id the list shows); TableError ``no-device`` (404)."""
        found = [d.hash for d in self.store.devices_of(player.id) if device_id(d.hash) == device]
        if not found:
            raise TableError("no-device", "this profile has no such device (signed out already?)", 404)
        return PlayerBatch(player.id, drop_keys=found)

    def plan_sign_out_others(self, player: PlayerRow, key_hash: str) -> PlayerBatch:
        """Sign out every device of the profile but the one asking ("sign out everywhere else")."""
        return PlayerBatch(player.id, keep_only=key_hash)

    # -- changes, planned then stored by the caller ------------------------------------

    def plan_create(self, name: object) -> tuple[str, str, PlayerBatch]:
        """A new profile: its id, device secret and batch; TableError ``name-taken`` (409)."""
        clean = clean_name(name)
        if self.store.player_named(name_key(clean)) is not None:
            raise TableError("name-taken", f"the name {clean} is taken: choose another, or sign in if it is "
                             "yours", 409, args={"name": clean})
        player_id = "p" + secrets.token_urlsafe(9)
        secret, key = new_key()
        return player_id, secret, PlayerBatch(player_id, create=(clean, name_key(clean)), keys=[key],
                                              how="made", max_keys=self.policy.max_devices)

    def plan_transfer(self, player: PlayerRow) -> tuple[str, float, PlayerBatch]:
        """A one-time code that gives another device this profile, and until when it works (429 too often)."""
        p = self.policy
        with self.lock:
            if self.codes.full(player.id):
                minutes = max(1, round(p.code_window / 60))
                raise TableError("too-many-codes", f"{p.codes_per_window} transfer codes were asked for in "
                                 f"{minutes} minutes: use one of them, or wait", 429,
                                 args={"n": p.codes_per_window, "minutes": minutes})
            self.codes.hit(player.id)
        code = secrets.token_urlsafe(12)
        until = self.wall() + p.transfer_seconds
        batch = PlayerBatch(player.id, transfer=(_code_hash(code), until), live_codes=p.live_codes)
        return code, until, batch

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
        return row, secret, PlayerBatch(row.id, keys=[key], used_transfer=_code_hash(code), how="transfer",
                                        max_keys=self.policy.max_devices)

    def plan_password(self, player: PlayerRow, password: object, keep: str = "", current: object = None,
                      client: str = "") -> PlayerBatch:
        """Set (or with ``None``, remove) the profile's password and sign out every device but ``keep``
        (the hash of the one asking); argon2 runs here: not on the event loop.

        A profile that has a password changes or removes it only with ``current`` (OWASP: re-authenticate
        before a sensitive change; a device's key alone does not do), checked as a sign-in from
        ``client``: 403 ``bad-current-password``, slowed down by the same throttle (429).
        """
        if player.password:
            self._reauthenticate(player, current, client)
        if password is None:
            return PlayerBatch(player.id, password="", keep_only=keep)
        if not isinstance(password, str) or not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
            raise TableError("bad-password", f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters",
                             args={"min": MIN_PASSWORD, "max": MAX_PASSWORD})
        return PlayerBatch(player.id, password=self.hasher.hash(password), keep_only=keep)

    def plan_signin(self, name: object, password: object, client: str,
                    device: object = None) -> tuple[PlayerRow, str, PlayerBatch]:
        """Sign in by name and password: a new device secret. Failures are slowed down (429), except for
        ``device``, a credential of this very profile (its owner's browser); the same answer for any name."""
        key = name_key(clean_name(name))
        row = self.store.player_named(key)
        known = row is not None and self._holds(row, device)
        with self.lock:
            self.throttle.admit(key, client, known)
        if not self._verify(row.password if row is not None else "", password) or row is None:
            raise TableError("bad-signin", "this name and password do not match a profile", 403)
        with self.lock:
            self.throttle.succeeded(key, client)
        secret, new = new_key()
        return row, secret, PlayerBatch(row.id, keys=[new], how="password", max_keys=self.policy.max_devices)

    def _reauthenticate(self, player: PlayerRow, current: object, client: str) -> None:
        key = name_key(player.name)
        with self.lock:  # the device holds a key: no name-wide wait, but its address's own limits
            self.throttle.admit(key, client, True)
        if not self._verify(player.password, current):
            raise TableError("bad-current-password", "the current password is wrong: send it as \"current\"",
                             403)
        with self.lock:
            self.throttle.succeeded(key, client)

    def _holds(self, row: PlayerRow, device: object) -> bool:
        try:
            return device is not None and self.identify(device)[0].id == row.id
        except TableError:
            return False

    def _verify(self, stored: str, password: object) -> bool:
        """Whether ``password`` opens ``stored``; without either, the same work against a dummy hash,
        so that how long a refusal takes says nothing of the name."""
        real = bool(stored) and isinstance(password, str) and len(password) <= MAX_PASSWORD
        try:
            return self.hasher.verify(stored if real else self._dummy(),
                                      password if real and isinstance(password, str) else "") and real
        except (VerificationError, InvalidHashError):
            return False

    def _dummy(self) -> str:
        with self.lock:
            if not self.dummy:
                self.dummy = self.hasher.hash(secrets.token_urlsafe(16))
            return self.dummy


def _code_hash(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


def device_id(key_hash: str) -> str:
    """The name a device goes by in its list: derived from its key's hash, which it does not reveal."""
    return hashlib.sha256(("device:" + key_hash).encode()).hexdigest()[:16]


def device_view(d: DeviceRow, current: str) -> dict[str, object]:
    return {"id": device_id(d.hash), "made": d.created, "seen": d.seen or d.created,
            "how": d.how or "earlier", "this": d.hash == current}


def public(row: PlayerRow) -> dict[str, object]:
    """What a profile's owner is shown of it (never a hash)."""
    return {"id": row.id, "name": row.name, "password": bool(row.password)}
