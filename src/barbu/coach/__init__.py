"""The coach: the expert's advice at a seat's view, with reasons that are true, for learners.

An adapter over the engine and the bots, used by the front ends only: :func:`hint` (the expert's
choice and every choice's value), :func:`advise` and :func:`warn` (the gain over another choice and
the reasons), :func:`explain` (the facts that set two choices apart), :mod:`barbu.coach.doubles`
(doubling explained), :func:`illegal_reason` (the engine's refusal as a catalogue key) and
:func:`coach_allowed` (never against people). docs/coach.md says what it does and what it costs.
"""

from barbu.coach.access import coach_allowed, coach_refusal
from barbu.coach.advice import BIG, BUDGET, STOP, Hint, Level, hint
from barbu.coach.explained import Advice, advise, warn
from barbu.coach.illegal import illegal_reason
from barbu.coach.reasons import TEMPLATES, Reason, explain, reasons_for
from barbu.coach.words import Speaker

__all__ = ["BIG", "BUDGET", "STOP", "TEMPLATES", "Advice", "Hint", "Level", "Reason", "Speaker", "advise",
           "coach_allowed", "coach_refusal", "explain", "hint", "illegal_reason", "reasons_for", "warn"]
