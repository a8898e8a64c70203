"""Text for people shared by the front ends: counting from 1, plurals, where a record went wrong.

Machine formats (records, ``--json`` output) count hands, actions and seats from 0;
everything a person reads counts them from 1 (README, "Numbering").

>>> plural(1, "trick"), plural(2, "trick"), plural(0, "hand")
('1 trick', '2 tricks', '0 hands')
>>> where(RecordError("x", hand=3, action=17, seat=2), ["Ann", "Ben", "Cleo", "Dan"])
'hand 4, action 18, seat 3 (Cleo)'
>>> renumber("the declarer (seat 1) is compulsory", ["Ann", "Ben"])
'the declarer (seat 2 (Ben)) is compulsory'
>>> renumber("seat 1 has already doubled you", ["Ann", "Ben"], by_name=True)
'Ben has already doubled you'
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from barbu.engine.errors import RecordError


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``1 trick``, ``3 tricks``: the count and the noun in the number it calls for."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


def seat_label(seat: int, names: Sequence[str]) -> str:
    """``seat 3 (Cleo)``: a 0-based seat as a person counts it, with the name when known."""
    name = f" ({names[seat]})" if 0 <= seat < len(names) else ""
    return f"seat {seat + 1}{name}"


_SEAT = re.compile(r"\bseat (\d+)\b")


def renumber(message: str, names: Sequence[str], by_name: bool = False) -> str:
    """An engine message for people: its 0-based ``seat N`` counted from 1, or the player's name."""
    def person(m: re.Match[str]) -> str:
        seat = int(m.group(1))
        if by_name and 0 <= seat < len(names):
            return names[seat]
        return seat_label(seat, names)

    return _SEAT.sub(person, message)


def where(err: RecordError, names: Sequence[str] = ()) -> str:
    """Where a record fault lies, counted from 1: ``hand 4, action 18, seat 3 (Cleo)``."""
    parts = []
    if err.hand is not None:
        parts.append(f"hand {err.hand + 1}")
    if err.action is not None:
        parts.append(f"action {err.action + 1}")
    if err.seat is not None:
        parts.append(seat_label(err.seat, names))
    return ", ".join(parts)


def record_names(doc: Any) -> list[str]:
    """The players' names of a record that may be malformed (none when they cannot be read)."""
    players = doc.get("players") if isinstance(doc, dict) else None
    if isinstance(players, list) and all(isinstance(p, str) for p in players):
        return players
    return []


def refusal(command: str, path: str, err: RecordError, names: Sequence[str] = ()) -> str:
    """The one-line message of a front end that refuses a record, the place counted from 1."""
    at = where(err, names)
    return f"barbu {command}: {path}: {at + ': ' if at else ''}{renumber(err.message, names)}"


def report_refusal(command: str, path: str, err: RecordError, doc: dict[str, Any], as_json: bool) -> int:
    """Refuse a record as replay and analyze do: words on stderr, the error object with --json.

    stderr is for a person (counted from 1); the --json object keeps the record's 0-based numbers.
    """
    print(refusal(command, path, err, record_names(doc)), file=sys.stderr)
    if as_json:
        print(json.dumps(err.to_json(), ensure_ascii=False))
    return 1


LAUNCHER_ENV = "BARBU_LAUNCHER"  # set by run.sh: how its caller typed it (``./run.sh``)
CALLER_CWD_ENV = "BARBU_CALLER_CWD"  # set by run.sh: the folder it was called from


def command(*args: str | os.PathLike[str]) -> str:
    """A barbu command line that works as printed, from the folder the user is in.

    ``./run.sh …`` when run.sh started us, ``barbu …`` when that is the barbu on PATH,
    else the full path of the script that is running.
    """
    launcher = os.environ.get(LAUNCHER_ENV)
    if not launcher:
        me = Path(sys.argv[0]).resolve()
        on_path = shutil.which("barbu")
        launcher = "barbu" if on_path and Path(on_path).resolve() == me else str(me)
    return " ".join([shlex.quote(launcher), *(shlex.quote(str(a)) for a in args)])
