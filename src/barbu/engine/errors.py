"""The exceptions of barbu: each names the rule that was broken."""

from __future__ import annotations


class BarbuError(Exception):
    """Base class of barbu's own errors."""


class IllegalActionError(BarbuError, ValueError):
    """An action that the rules do not allow now; the state is left unchanged.

    ``seat`` is the player who tried it and ``rule`` a short rule name. The message says in
    words what was wrong, to that player ("you do not hold 8♠"); ``about`` says it of them to
    anyone else, without its subject ("does not hold 8♠"), for the reader of a record.
    """

    def __init__(self, message: str, *, seat: int | None = None, rule: str = "", about: str = "") -> None:
        super().__init__(message)
        self.seat = seat
        self.rule = rule
        self.about = about or f"broke a rule: {message}"


class IllegalDealError(BarbuError, ValueError):
    """A deal that is not a partition of the deck as the rules require."""


class RecordError(BarbuError, ValueError):
    """A game record that is malformed or breaks a rule.

    ``hand`` and ``action`` count from 0; either may be None when the fault is
    not in a hand or not in an action.
    """

    def __init__(self, message: str, *, hand: int | None = None, action: int | None = None,
                 seat: int | None = None) -> None:
        super().__init__(message)
        self.hand = hand
        self.action = action
        self.seat = seat
        self.message = message

    def to_json(self) -> dict[str, object]:
        return {"error": {"hand": self.hand, "action": self.action, "seat": self.seat,
                          "message": self.message}}


class SheetError(RecordError):
    """A score sheet (RECORD.md, ``barbu-sheet/1``) that is malformed or breaks a rule.

    Refused like a record (same ``to_json``); ``field`` also names the part of the hand at
    fault, for a page to point at: ``contract``, ``trump``, ``start_rank``, ``doubles``,
    ``set_aside``, ``declarer`` or ``result.<count>``, or None.
    """

    def __init__(self, message: str, *, hand: int | None = None, seat: int | None = None,
                 field: str | None = None) -> None:
        super().__init__(message, hand=hand, seat=seat)
        self.field = field


class TallyError(BarbuError, ValueError):
    """A hand's count that cannot have happened at the table; ``field`` names the part that is wrong.

    ``seat`` is the seat the fault is about, when there is one.
    """

    def __init__(self, message: str, *, field: str, seat: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.seat = seat
