"""The exceptions of barbu: each names the rule that was broken.

A message that names a seat carries it as data, not as a number in its text: a
:class:`Phrase` whose template has a slot for each :class:`Seat`. The engine's own
text (``str(e)``, ``e.message``, the ``--json`` error object) fills it as ``seat N``
counted from 0, like the records; a front end fills it for people with
:meth:`Phrase.render` (``barbu.wording.say``), so no number in a message is ever
rewritten afterwards.

>>> p = Phrase("{t} has already doubled you: {why}", t=Seat(1), why="answer {t}")
>>> str(p)
'seat 1 has already doubled you: answer {t}'
>>> p.render(lambda s: ["Ann", "Ben"][s.seat])
'Ben has already doubled you: answer {t}'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Seat:
    """A seat named in a message, counted from 0.

    ``plain`` is what the engine's own text says instead of ``seat N`` (``"the player"``,
    where the place of the fault already names the seat); a front end may still use the name.
    """

    seat: int
    plain: str = ""

    def __str__(self) -> str:
        return self.plain or f"seat {self.seat}"


@dataclass(frozen=True)
class Count:
    """A hand, action or trick named in a message: ``action 35`` counted from 0, 36 for people."""

    kind: str
    number: int

    def __str__(self) -> str:
        return f"{self.kind} {self.number}"

    def from_one(self) -> str:
        return f"{self.kind} {self.number + 1}"


class Phrase:
    """A message with slots for seats, counts and other phrases, filled only when it is said.

    The template is code, never data: values are inserted by :meth:`str.format`, which does
    not read braces inside them, so a name or card typed by anyone is never a slot.
    """

    def __init__(self, template: str, **args: object) -> None:
        self.template = template
        self.args = args

    def render(self, seat: Callable[[Seat], str], from_one: bool = True) -> str:
        """The text, each seat said by ``seat`` and each count from 1 (or from 0, as the engine)."""
        return self.template.format(**{k: _said(v, seat, from_one) for k, v in self.args.items()})

    def __str__(self) -> str:
        return self.render(str, from_one=False)

    def __repr__(self) -> str:
        return f"Phrase({self.template!r}, **{self.args!r})"


def _said(value: object, seat: Callable[[Seat], str], from_one: bool) -> object:
    if isinstance(value, Seat):
        return seat(value)
    if isinstance(value, Count):
        return value.from_one() if from_one else str(value)
    if isinstance(value, Phrase):
        return value.render(seat, from_one)
    return value


class BarbuError(Exception):
    """Base class of barbu's own errors."""


class IllegalActionError(BarbuError, ValueError):
    """An action that the rules do not allow now; the state is left unchanged.

    ``seat`` is the player who tried it and ``rule`` a short rule name. The message says in
    words what was wrong, to that player ("you do not hold 8♠"); ``about`` says it of them to
    anyone else, without its subject ("does not hold 8♠"), for the reader of a record.
    ``said`` and ``said_about`` are the same two with their seats as data (:class:`Phrase`).
    """

    def __init__(self, message: str | Phrase, *, seat: int | None = None, rule: str = "",
                 about: str | Phrase = "") -> None:
        super().__init__(str(message))
        self.seat = seat
        self.rule = rule
        self.message = str(message)
        self.said: str | Phrase = message
        self.said_about: str | Phrase = about or Phrase("broke a rule: {m}", m=message)
        self.about = str(self.said_about)


class IllegalDealError(BarbuError, ValueError):
    """A deal that is not a partition of the deck as the rules require (``said``: as above)."""

    def __init__(self, message: str | Phrase) -> None:
        super().__init__(str(message))
        self.said: str | Phrase = message


class RecordError(BarbuError, ValueError):
    """A game record that is malformed or breaks a rule.

    ``hand`` and ``action`` count from 0; either may be None when the fault is
    not in a hand or not in an action. ``message`` is the engine's text (seats from 0, as in
    the record); ``said`` the same with its seats as data, for a front end to name them.
    """

    def __init__(self, message: str | Phrase, *, hand: int | None = None, action: int | None = None,
                 seat: int | None = None) -> None:
        super().__init__(str(message))
        self.hand = hand
        self.action = action
        self.seat = seat
        self.message = str(message)
        self.said: str | Phrase = message

    def to_json(self) -> dict[str, object]:
        return {"error": {"hand": self.hand, "action": self.action, "seat": self.seat,
                          "message": self.message}}


class SheetError(RecordError):
    """A score sheet (RECORD.md, ``barbu-sheet/1``) that is malformed or breaks a rule.

    Refused like a record (same ``to_json``); ``field`` also names the part of the hand at
    fault, for a page to point at: ``contract``, ``trump``, ``start_rank``, ``doubles``,
    ``set_aside``, ``declarer`` or ``result.<count>``, or None. ``code`` says which refusal it is
    (``tally:<rule>`` for a count, ``illegal:<rule>`` for a contract or double the rules refuse,
    ``sheet:<rule>`` for the sheet's own; ``sheet:record`` for a document of the wrong shape) and
    ``slots`` the values its words name, as for :class:`TallyError`.
    """

    def __init__(self, message: str | Phrase, *, code: str, hand: int | None = None,
                 seat: int | None = None, field: str | None = None,
                 slots: dict[str, object] | None = None) -> None:
        super().__init__(message, hand=hand, seat=seat)
        self.field = field
        self.code = code
        self.slots: dict[str, object] = slots or {}


class TallyError(BarbuError, ValueError):
    """A hand's count that cannot have happened at the table; ``field`` names the part that is wrong.

    ``seat`` is the seat the fault is about, when there is one; ``said`` is the message with
    its seats as data. ``rule`` names the refusal and ``slots`` the values its message names, so
    that a front end can say it in another language: a :class:`Seat` for a player, card numbers
    (0-51) under the keys ``card`` and ``cards`` (a list), contract ids under ``contract``, and
    plain numbers and texts otherwise; ``slots["variant"]``, when
    set, says which of a rule's messages it is.
    """

    def __init__(self, message: str | Phrase, *, field: str, rule: str, seat: int | None = None,
                 slots: dict[str, object] | None = None) -> None:
        super().__init__(str(message))
        self.message = str(message)
        self.said: str | Phrase = message
        self.field = field
        self.seat = seat
        self.rule = rule
        self.slots: dict[str, object] = slots or {}
