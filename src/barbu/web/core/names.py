"""Names and ids as every room reads them: a player's name cleaned, its profile key, a table's id checked."""

from __future__ import annotations

import re

from barbu.web.core.errors import TableError

MAX_NAME = 24
_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


def clean_name(value: object) -> str:
    """A player's name as shown at the table; TableError when it is empty or not text."""
    if not isinstance(value, str):
        raise TableError("bad-name", "a name is a piece of text")
    name = " ".join("".join(ch for ch in value if ch.isprintable()).split())[:MAX_NAME]
    if not name:
        raise TableError("bad-name", "please give a name", args={"variant": "empty"})
    return name


def name_key(name: str) -> str:
    """What makes two names the same profile's: case does not count."""
    return name.casefold()


def valid_id(table_id: str) -> bool:
    return bool(_ID_RE.match(table_id))
