"""CSV that a spreadsheet opens without running anything a player typed (OWASP's advice on CSV injection)."""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import Any, Protocol

# What makes a spreadsheet read a cell as a formula (or, for tab and carriage return, hide where one starts).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


class _Text(Protocol):
    def write(self, text: str, /) -> int: ...


def cell(value: Any) -> Any:
    """``value`` made inert: text that could start a formula gets a leading ``'`` (shown by no
    spreadsheet, and the text is kept whole); a number stays a number (-12 is a score, not a formula)."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


class SafeWriter:
    """A csv writer whose every text cell is quoted (quotes doubled) and made inert by ``cell``."""

    def __init__(self, out: _Text) -> None:
        self.out = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)

    def writerow(self, row: Iterable[Any]) -> None:
        self.out.writerow([cell(v) for v in row])
