"""Text for people shared by the front ends: counting from 1, plurals, where a record went wrong.

Machine formats (records, ``--json`` output) count hands, actions and seats from 0;
everything a person reads counts them from 1 (docs/play.md, "Numbering").

>>> plural(1, "trick"), plural(2, "trick"), plural(0, "hand")
('1 trick', '2 tricks', '0 hands')
>>> where(RecordError("x", hand=3, action=17, seat=2), ["Ann", "Ben", "Cleo", "Dan"])
'hand 4, action 18, seat 3 (Cleo)'
>>> from barbu.engine.errors import Phrase, Seat
>>> say(Phrase("the declarer ({d}) is compulsory", d=Seat(1)), ["Ann", "Ben"])
'the declarer (seat 2 (Ben)) is compulsory'
>>> say(Phrase("{t} has already doubled you", t=Seat(1)), ["Ann", "Ben"], by_name=True)
'Ben has already doubled you'
>>> say("there is no seat 6: seats are 1 to 4", ["Ann", "Ben"])
'there is no seat 6: seats are 1 to 4'
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from barbu.engine.errors import Phrase, RecordError, Seat


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``1 trick``, ``3 tricks``: the count and the noun in the number it calls for."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


def seat_label(seat: int, names: Sequence[str]) -> str:
    """``seat 3 (Cleo)``: a 0-based seat as a person counts it, with the name when known."""
    name = f" ({names[seat]})" if 0 <= seat < len(names) else ""
    return f"seat {seat + 1}{name}"


def say(text: str | Phrase, names: Sequence[str], by_name: bool = False) -> str:
    """A message for people: its seats (carried as data) counted from 1, or the players' names.

    Plain text is said as it is: it has no seat of the engine in it (a message built from what
    a person typed counts from 1 already), and no number in it is ever rewritten.
    """
    if isinstance(text, str):
        return text

    def person(s: Seat) -> str:
        if by_name and 0 <= s.seat < len(names):
            return names[s.seat]
        return s.plain or seat_label(s.seat, names)

    return text.render(person)


_SEAT = re.compile(r"\bseat (\d{1,3})\b")  # a longer number is no seat of a table


def renumber(message: str, names: Sequence[str], by_name: bool = False) -> str:
    """The engine's own text of a message (``seat N`` from 0) for people; prefer :func:`say`.

    Only for text that is known to be the engine's (``e.message`` of an engine error), where
    every ``seat N`` is a seat of the table counted from 0; numbers that are no seat of the
    table are left alone. :func:`say` needs no such care: it gets the seats as data.
    """
    def person(m: re.Match[str]) -> str:
        seat = int(m.group(1))
        if not seat < len(names):
            return m.group(0)
        return names[seat] if by_name else seat_label(seat, names)

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
    return f"barbu {command}: {path}: {at + ': ' if at else ''}{say(err.said, names)}"


def report_refusal(command: str, path: str, err: RecordError, doc: dict[str, Any], as_json: bool) -> int:
    """Refuse a record as replay and analyze do: words on stderr, the error object with --json.

    stderr is for a person (counted from 1); the --json object keeps the record's 0-based numbers.
    """
    print(refusal(command, path, err, record_names(doc)), file=sys.stderr)
    if as_json:
        print(json.dumps(err.to_json(), ensure_ascii=False))
    return 1


def at_least(least: int) -> Callable[[str], int]:
    """An argparse ``type``: a whole number no smaller than ``least``, refused in words otherwise."""
    def whole(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be {least} or more, not {value}")
        return value

    whole.__name__ = "whole number"
    return whole


def positive_seconds(text: str) -> float:
    """An argparse ``type``: a length of time in seconds, more than none."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of seconds above 0, not {text}")
    return value


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
