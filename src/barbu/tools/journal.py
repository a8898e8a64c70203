"""An append-only JSON-lines journal that lets a long run (``barbu arena --journal``) resume.

Line 1 is the header: what the run is (its arguments). Every further line is one finished piece
of work, written and flushed to the disk as soon as it is done. Opening the journal again with the
same header gives back the entries already there; another header is refused, so that a journal
never mixes two runs.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import TracebackType
from typing import IO, Any


class JournalError(Exception):
    """The journal belongs to another run, or cannot be read."""


def _differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    keys = sorted(old.keys() | new.keys())
    return [f"{k} {json.dumps(old.get(k))} there, {json.dumps(new.get(k))} now"
            for k in keys if old.get(k) != new.get(k)]


def _lock(file: IO[str], path: Path) -> None:
    """Hold the journal for this run alone: two runs appending to one journal would mix it."""
    try:
        import fcntl
    except ImportError:  # not on POSIX: go without the guard
        return
    try:
        fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise JournalError(f"journal {path} is in use by another run") from None


class Journal:
    """The journal at ``path`` for the run described by ``header``; None keeps no journal."""

    def __init__(self, path: str | os.PathLike[str] | None, header: dict[str, Any]) -> None:
        self.path = None if path is None else Path(path)
        self.header = header
        self.entries: list[dict[str, Any]] = []
        self._file: IO[str] | None = None

    def __enter__(self) -> Journal:
        if self.path is None:
            return self
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = self.path.open("a+", encoding="utf-8")
        try:
            _lock(self._file, self.path)
            found = self._read(self.path)
        except BaseException:
            self._file.close()
            raise
        if found is None:
            self._file.truncate(0)
            self._write(self.header)
        else:
            self.entries = found
        return self

    def _read(self, path: Path) -> list[dict[str, Any]] | None:
        """The entries after a matching header, None for a journal without one (start afresh);
        a last line cut by a crash is dropped from the file."""
        data = path.read_bytes()
        complete = data[:data.rfind(b"\n") + 1]
        if len(complete) < len(data):
            with path.open("r+b") as f:  # so that the next entry starts on a line of its own
                f.truncate(len(complete))
        return _parse(complete, path, self.header)

    def append(self, entry: dict[str, Any]) -> None:
        """Add one entry and make sure it is on the disk before going on."""
        if self._file is not None:
            self._write(entry)

    def _write(self, obj: dict[str, Any]) -> None:
        assert self._file is not None
        self._file.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._file is not None:
            self._file.close()


def read_entries(path: str | os.PathLike[str], header: dict[str, Any]) -> list[dict[str, Any]]:
    """The entries of the journal at ``path`` for the run ``header`` describes, read without
    taking it (a run may be writing it: a last line being written is left out)."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise JournalError(f"cannot read journal {p}: {e.strerror}") from None
    found = _parse(data[:data.rfind(b"\n") + 1], p, header)
    if found is None:
        raise JournalError(f"journal {p} is empty")
    return found


def _parse(complete: bytes, path: Path, header: dict[str, Any]) -> list[dict[str, Any]] | None:
    try:
        lines = [json.loads(line) for line in complete.decode("utf-8").splitlines()]
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise JournalError(f"journal {path} is damaged: {e}") from None
    if not lines:
        return None
    if lines[0] != header:
        diff = "; ".join(_differences(lines[0], header))
        raise JournalError(f"journal {path} was written by another run ({diff}): give the same "
                           "arguments, or another journal file")
    return lines[1:]
