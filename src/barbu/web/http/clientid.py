"""A browser's own identity (the page's random client id): checked, and kept by a table only as a digest.

Each page keeps a random id in its localStorage and sends it as the header ``X-Barbu-Client`` (HTTP)
or as ``client`` in a socket's ``hello``. It is not a secret and proves nothing: a person may make up
another one, or clear the browser's storage. It lets the server keep an honest browser to one seat
of a table (and count per person, beside the address); a profile is the firmer identity.

>>> client_key("abcdefgh") == client_key("abcdefgh"), len(client_key("abcdefgh")), client_key(None)
(True, 32, '')
"""

from __future__ import annotations

import hashlib
import re

from barbu.web.core.errors import TableError

CLIENT_HEADER = "x-barbu-client"
CLIENT_RE = re.compile(r"[A-Za-z0-9_-]{8,64}")  # what a page makes: 8 to 64 of A-Z a-z 0-9 _ -


def client_id(value: object) -> str | None:
    """A client id as sent (None when none was), checked; TableError ``bad-client`` (400) otherwise."""
    if value is None:
        return None
    if not isinstance(value, str) or not CLIENT_RE.fullmatch(value):
        raise TableError("bad-client", "the client id (header X-Barbu-Client, or \"client\" in a hello) is "
                         "8 to 64 characters of A-Z, a-z, 0-9, _ and -", 400, args={"min": 8, "max": 64})
    return value


def client_key(value: object) -> str:
    """What a table keeps of a client id: a digest ("" for none), so its database holds no raw id."""
    checked = client_id(value)
    if checked is None:
        return ""
    return hashlib.sha256(b"barbu-client:" + checked.encode()).hexdigest()[:32]
