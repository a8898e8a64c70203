"""The web server's refusals: a rule code, an English message, and the values a page needs to translate it."""

from __future__ import annotations

from typing import Any


class TableError(Exception):
    """A request the table refuses; ``code`` is a short machine-readable reason.

    ``message`` is English; ``args`` holds the values it names (numbers, names, cards, rules),
    so that a page can say the same in the reader's language from its catalogue's ``error.<code>``.
    """

    def __init__(self, code: str, message: str, status: int = 400, *, field: str | None = None,
                 hand: int | None = None, args: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.field = field  # the part of the request it is about (a score sheet's entry form), if any
        self.hand = hand  # the sheet's hand it is about (from 0), if any
        self.slots = args or {}  # Exception.args is taken: the JSON still calls them args

    def event(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "error", "code": self.code, "message": self.message}
        if self.slots:
            out["args"] = self.slots
        return out

    def body(self) -> dict[str, Any]:
        """The refusal as an HTTP answer's JSON body."""
        error: dict[str, Any] = {"code": self.code, "message": self.message, "field": self.field}
        if self.hand is not None:
            error["hand"] = self.hand
        if self.slots:
            error["args"] = self.slots
        return {"error": error}
