"""A game state as the table page reads it: a seat's view and the score sheet, the same JSON whether
`barbu serve`'s socket sends it or the browser's own worker (barbu.solo) makes it."""

from __future__ import annotations

import dataclasses
from typing import Any

from barbu.engine.cards import SUITS, card_pretty
from barbu.engine.game import Game
from barbu.engine.state import Phase, State
from barbu.web.tables.rules import figures


def contract_facts(game: Game) -> list[dict[str, Any]]:
    """The game's contracts as the table's facts show them to the page."""
    return [{"id": c.id, "name": c.name, "positive": c.positive, "kind": c.kind.name.lower(),
             "description": c.description, "figures": figures(c)} for c in game.contracts]


def seat_view(state: State, seat: int | None) -> dict[str, Any]:
    """The game as ``seat`` sees it (None: a spectator sees no hand), from an observation only."""
    obs = state.observe(0 if seat is None else seat)
    # The finished hands go out once, in a "sheet" event, not again with every card played.
    out = dataclasses.replace(obs, results=()).to_json()
    del out["results"]
    out["hands_done"] = len(obs.results)
    if seat is None:
        out["seat"] = None
        out["hand"] = []
        out["legal"] = []
    return out


def sheet_event(state: State) -> dict[str, Any]:
    """The score sheet: every finished hand (from an observation: no cards), and the winners."""
    obs = state.observe(0)
    return {"type": "sheet", "results": [r.to_json() for r in obs.results], "totals": list(obs.totals),
            "winners": state.winners()}


def illegal_args(state: State, names: list[str], seat: int, action: int, rule: str | None) -> dict[str, Any]:
    """What a refused action's message names, as values a page puts into its own words.

    ``contract`` is an id and ``led``/``trump`` suit letters: the page says them in its language;
    an action out of its phase names the phase (``variant``: what it is time to do).
    """
    s = state
    args: dict[str, Any] = {"ruleset": s.game.ruleset, "declarer": names[s.declarer]}
    if rule == "wrong-phase":
        args["variant"] = s.phase.name.lower()
    if 0 <= action < 52:
        args["card"] = card_pretty(action)
    if s.contract is not None:
        args["contract"] = s.contract.id
        if s.trick:
            args["led"] = SUITS[s.trick[0] // 13]
        if s.trump >= 0:
            args["trump"] = SUITS[s.trump]
    if s.phase == Phase.DOUBLE:
        args["owed"], args["left"] = s.owed_doubles(seat), s.hands_left_for_declarer()
    if s.start_rank >= 0:
        args["rank"] = card_pretty(s.start_rank)[:-1]
    return args
