"""Illegal choices explained: the engine's refusal as a catalogue key with the values its words name.

The engine already says which rule an action breaks (:class:`~barbu.engine.errors.IllegalActionError`,
``rule``); this gives that rule the key the pages' catalogues hold (``error.illegal:<rule>``) and the
values of its slots, from the seat's view, so a page says it in its reader's language.
"""

from __future__ import annotations

from barbu.coach.reasons import Reason, Slot
from barbu.engine.cards import SUITS, card_pretty
from barbu.engine.errors import IllegalActionError
from barbu.engine.observation import Observation
from barbu.engine.state import Phase


def illegal_reason(obs: Observation, action: int, error: IllegalActionError) -> Reason:
    """Why ``action`` was refused at ``obs``: the engine's rule as ``error.illegal:<rule>`` (with the
    phase as a variant for an action out of its phase) and its slots: the card, the contract, the
    suit led, the trump, the doubles owed and the declarer's hands left, the starting rank."""
    rule = error.rule or "illegal"
    key = f"error.illegal:{rule}"
    if rule == "wrong-phase":
        key += "." + obs.phase.name.lower()
    g = obs.game
    slots: dict[str, Slot] = {"ruleset": g.ruleset, "declarer": obs.declarer}
    if 0 <= action < 52:
        slots["card"] = card_pretty(action)
    if obs.contract is not None:
        slots["contract"] = obs.contract.id
        if obs.trick:
            slots["led"] = SUITS[obs.trick[0][1] // 13]
        if obs.trump is not None:
            slots["trump"] = SUITS[obs.trump]
    if obs.phase == Phase.DOUBLE:
        slots["owed"] = obs.owed[obs.seat]
        slots["left"] = g.hands_per_declarer - obs.hand_no % g.hands_per_declarer
    if obs.start_rank is not None:
        slots["rank"] = card_pretty(obs.start_rank)[:-1]
    return Reason(key, slots)
