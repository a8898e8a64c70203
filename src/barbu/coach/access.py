"""Where the coach may help: never against people (it would be cheating), never at a rated table."""

from __future__ import annotations

from collections.abc import Sequence

from barbu.coach.reasons import Reason


def coach_refusal(people: Sequence[bool], rated: bool = False) -> Reason | None:
    """Why the coach is refused at a table whose seats hold a person where ``people`` is true (the
    others computers), or None where it is allowed: one person at most, and the table not rated."""
    if rated:
        return Reason("coach.refused.rated")
    if sum(people) > 1:
        return Reason("coach.refused.people")
    return None


def coach_allowed(people: Sequence[bool], rated: bool = False) -> bool:
    """Whether the coach may help at this table (see :func:`coach_refusal`)."""
    return coach_refusal(people, rated) is None
