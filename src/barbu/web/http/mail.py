"""E-mail through the operator's SMTP server (--smtp URL): addresses checked, mails sent off the loop."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import smtplib
import ssl
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path
from urllib.parse import unquote, urlsplit

from barbu.web.core.errors import TableError

log = logging.getLogger("barbu.web")

ATTEMPTS = 3  # sends of one mail before it is given up (logged)
RETRY_DELAY = 5.0  # seconds before the second attempt, doubled before each next one
TIMEOUT = 20.0  # seconds an SMTP server has to answer each step
MAX_ADDRESS = 254  # characters of an address (RFC 5321's path of 256, less its angle brackets)
PORTS = {"smtp": 25, "smtps": 465}
LOOPBACK = ("localhost", "127.0.0.1", "::1")


@dataclass(frozen=True)
class Smtp:
    """Where mail goes: ``smtp://`` (STARTTLS when the server offers it, required with a user) or
    ``smtps://`` (TLS from the start), a user and a password when the relay asks for them."""

    scheme: str
    host: str
    port: int
    user: str | None
    password: str | None

    @property
    def local(self) -> bool:
        """A relay on this machine: mail to it never leaves it, so without a user it is spoken to in plain
        (a local Postfix's STARTTLS certificate is seldom one a client can check)."""
        return self.host in LOOPBACK

    @property
    def shown(self) -> str:
        """The server as logs and messages name it: never a password."""
        user = f"{self.user}@" if self.user else ""
        return f"{self.scheme}://{user}{self.host}:{self.port}"


def smtp_of(url: str, password_file: str | None) -> Smtp:
    """The SMTP server of ``--smtp URL``; its password only from a file (``--smtp-password-file``).
    ValueError, in words for the operator, when either cannot be used."""
    parts = urlsplit(url)
    if parts.scheme not in PORTS or not parts.hostname:
        raise ValueError(f"--smtp takes smtp://[USER@]HOST[:PORT] or smtps://[USER@]HOST[:PORT], not {url!r}")
    if parts.password is not None:
        raise ValueError("--smtp takes no password (a command line is seen by every user of the machine): "
                         "put it in a file and give --smtp-password-file")
    password = None
    if password_file is not None:
        try:
            password = Path(password_file).read_text(encoding="utf-8").strip("\r\n")
        except OSError as e:
            raise ValueError(f"cannot read the SMTP password file {password_file}: {e.strerror or e}") from e
    port = parts.port or PORTS[parts.scheme]
    return Smtp(parts.scheme, parts.hostname, port, unquote(parts.username) if parts.username else None,
                password)


def address_of(value: object) -> str:
    """An e-mail address as a person typed it, checked: one line, one @, at most 254 characters, a dot in
    its domain; TableError ``bad-address`` (400) otherwise."""
    if not isinstance(value, str):
        raise TableError("bad-address", "give an e-mail address", 400)
    text = value.strip()
    local, _, domain = text.rpartition("@")
    if not 3 <= len(text) <= MAX_ADDRESS or any(c in text for c in "\r\n\0") or text.count("@") != 1:
        raise TableError("bad-address", f"an e-mail address is one line of at most {MAX_ADDRESS} characters "
                         "with one @", 400)
    odd = any(c.isspace() or c in "<>,;:\"()[]\\" for c in text)
    if odd or not local or len(local) > 64 or "." not in domain.strip("."):
        raise TableError("bad-address", "this is not an e-mail address (name@example.org)", 400)
    return text


def address_key(address: str) -> str:
    """What the limits count an address by: a hash, so that no counter (in Redis either) holds the address."""
    return "m:" + hashlib.sha256(address.lower().encode()).hexdigest()[:32]


class Mailer:
    """Sends mails through the operator's SMTP server in threads off the event loop, a few tries each."""

    def __init__(self, smtp: Smtp, sender: str, public_url: str) -> None:
        self.smtp = smtp
        self.sender = sender  # the From address (--mail-from)
        self.public_url = public_url.rstrip("/")  # the links' base (--public-url)
        self.tasks: set[asyncio.Task[None]] = set()
        self.retry_delay = RETRY_DELAY

    def send(self, message: EmailMessage) -> None:
        """Send a mail: never waits, never raises (a failure is logged, without the address)."""
        message["From"] = self.sender
        task = asyncio.get_running_loop().create_task(self._deliver(message))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _deliver(self, message: EmailMessage) -> None:
        for attempt in range(ATTEMPTS):
            failure = await asyncio.to_thread(self._post, message)
            if failure is None:
                return
            log.warning("a mail through %s failed (%s), attempt %d of %d", self.smtp.shown, failure,
                        attempt + 1, ATTEMPTS)
            if attempt + 1 < ATTEMPTS:
                await asyncio.sleep(self.retry_delay * 2 ** attempt)

    def _post(self, message: EmailMessage) -> str | None:
        """Hand one mail to the SMTP server (in a worker thread): None when taken, else the error's kind."""
        s = self.smtp
        try:
            if s.scheme == "smtps":
                client: smtplib.SMTP = smtplib.SMTP_SSL(s.host, s.port, timeout=TIMEOUT,
                                                        context=ssl.create_default_context())
            else:
                client = smtplib.SMTP(s.host, s.port, timeout=TIMEOUT)
            with client:
                client.ehlo()
                if s.scheme == "smtp" and (s.user or (client.has_extn("starttls") and not s.local)):
                    client.starttls(context=ssl.create_default_context())  # a password never goes in clear
                    client.ehlo()
                if s.user:
                    client.login(s.user, s.password or "")
                client.send_message(message)
        except smtplib.SMTPResponseException as e:
            return f"{type(e).__name__} {e.smtp_code}"  # the server's words may name the address: not logged
        except (OSError, smtplib.SMTPException) as e:
            return type(e).__name__
        return None

    async def drain(self) -> None:
        """Wait for the mails being sent (the server's end, and tests)."""
        while self.tasks:
            await asyncio.gather(*list(self.tasks), return_exceptions=True)
