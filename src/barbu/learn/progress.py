"""A learner's progress in the tutorial: which lessons are done, checked against the lessons there are.

The terminal keeps it in a file under the user's XDG state folder; the web server keeps it in the
profile (its storage) or leaves it to the browser for a guest. Both check lesson ids here.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from barbu.learn.lessons import lessons


def lesson_ids() -> tuple[str, ...]:
    """Every lesson's id, in the tutorial's order."""
    return tuple(x.id for x in lessons())


def known(done: Iterable[str]) -> list[str]:
    """The ids of ``done`` that name lessons, once each, in the tutorial's order (others dropped:
    a lesson removed since, or anything that is not an id)."""
    wanted = set(done)
    return [i for i in lesson_ids() if i in wanted]


def state_home() -> Path:
    """The user's XDG state folder (``$XDG_STATE_HOME``, else ``~/.local/state``)."""
    home = os.environ.get("XDG_STATE_HOME", "")
    return Path(home) if os.path.isabs(home) else Path.home() / ".local" / "state"


class FileProgress:
    """The lessons done, kept as JSON in a file (``barbu/learn.json`` under the XDG state folder)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or state_home() / "barbu" / "learn.json"

    def done(self) -> list[str]:
        """The lessons done (none when the file is missing or unreadable)."""
        try:
            doc = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        items = doc.get("done") if isinstance(doc, dict) else None
        return known(i for i in items if isinstance(i, str)) if isinstance(items, list) else []

    def mark(self, lesson_id: str) -> list[str]:
        """Record ``lesson_id`` as done (written whole, then moved into place); the lessons done."""
        if lesson_id not in lesson_ids():
            raise KeyError(f"no lesson {lesson_id!r}")
        done = known([*self.done(), lesson_id])
        self.path.parent.mkdir(parents=True, exist_ok=True)
        part = self.path.with_suffix(".part")
        part.write_text(json.dumps({"done": done}) + "\n", encoding="utf-8")
        part.replace(self.path)
        return done
