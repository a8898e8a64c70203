"""The coach at a table: who may ask it, from which view, and its answer as a socket event.

The coach (:mod:`barbu.coach`) is never on against people nor at a table that will be rated: a seat
held or kept for a person counts as a person's, and a seat tied to a profile makes the game rated
(:func:`barbu.web.people.ladder.rated_setup`, the ladder's own rule). A hint is computed from the
asking seat's own observation, the view a computer player gets, so it reveals nothing of the others' hands.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from barbu.coach import Advice, Level, Reason, advise, coach_refusal, warn
from barbu.engine.game import Game
from barbu.engine.observation import Observation
from barbu.web.core.errors import TableError
from barbu.web.people.ladder import rated_setup
from barbu.web.tables.parts import Client, Host

LEVELS = {"big": Level.BIG, "always": Level.ALWAYS}  # a warning's level; "off" asks nothing
ACTIONS = ("choice", "alternative")  # slots that hold an engine action: sent as the page's text


def refusal(table: Host) -> Reason | None:
    """Why the coach is refused at ``table`` (None: allowed): another person, or a rated game."""
    people = [s.row.kind == "human" or bool(s.row.token or s.row.player) for s in table.seats]
    rated = rated_setup(table.game, [s.row for s in table.seats], table.seed_chosen)
    return coach_refusal(people, rated)


def coach_meta(table: Host) -> dict[str, Any]:
    """The coach as a table's public facts say it: allowed, or the key of its refusal."""
    why = refusal(table)
    return {"allowed": why is None, "refusal": None if why is None else why.key}


@dataclass(frozen=True)
class Question:
    """A seat's request for the coach: its view, the choice it means to make (for a warning), and
    the table's move count when the view was taken (the page drops an answer to an older one)."""

    obs: Observation
    moves: int
    intended: int | None = None
    level: Level | None = None  # set for a warning: only the cost that level warns about is said


def question(table: Host, client: Client, intended: object = None, level: object = "always") -> Question:
    """The coach's question of ``client`` at ``table``: a hint, or with ``intended`` (a choice's text)
    a warning at ``level`` ("big" or "always"); TableError saying why when it is refused."""
    if intended is not None and (not isinstance(level, str) or level not in LEVELS):
        raise TableError("bad-level", "a warning's level is \"big\" or \"always\"")
    seat = client.seat
    if seat is None:
        raise TableError("not-seated", "you are watching this table: only players ask the coach",
                         args={"variant": "hint"})
    why = refusal(table)
    if why is not None:
        raise TableError("coach-refused", "the coach is not on at this table", 403,
                         args={"reason": why.key})
    s = table.state
    if s.is_over or s.current != seat or table.seats[seat].is_bot or table.waiting():
        raise TableError("coach-not-your-turn", "the coach answers only the player to act, at their turn")
    obs = s.observe(seat)  # the seat's own view, as a computer player gets it: no other hand
    if intended is None:
        return Question(obs, table.moves)
    return Question(obs, table.moves, legal_choice(table.game, obs, intended), LEVELS[str(level)])


def legal_choice(game: Game, obs: Observation, text: object) -> int:
    """The engine action of a choice's text, when it is legal at ``obs``."""
    if not isinstance(text, str) or len(text) > 40:
        raise TableError("bad-action", "an action is a short text such as \"QS\" or \"no-queens\"")
    try:
        action = game.parse_action(text)
    except ValueError as e:
        raise TableError("bad-action", f"'{text}' is not an action: {e}") from e
    if action not in obs.legal:
        raise TableError("coach-illegal", f"'{text}' is not a legal choice now")
    return action


def answer(game: Game, q: Question) -> dict[str, Any]:
    """The coach's answer to ``q`` as the asking socket's event (a search: run it off the event loop)."""
    event: dict[str, Any] = {"type": "hint", "moves": q.moves}
    if q.level is not None and q.intended is not None:
        warned = warn(q.obs, q.intended, q.level)
        event["intended"] = game.action_str(q.intended)
        event["warn"] = warned is not None
        if warned is None:
            return event
        return event | advice_fields(game, warned)
    return event | advice_fields(game, advise(q.obs))


def advice_fields(game: Game, a: Advice) -> dict[str, Any]:
    """An advice's choice, the choice it is weighed against, the gain, the reasons and every legal
    choice's estimated value, for a page."""
    return {"choice": game.action_str(a.hint.choice), "forced": a.hint.forced,
            "against": None if a.against is None else game.action_str(a.against),
            "gain": round(a.gain, 1), "reasons": [reason_of(game, r) for r in a.reasons],
            "values": {game.action_str(k): round(v, 1) for k, v in a.hint.values.items()}}


def reason_of(game: Game, r: Reason) -> dict[str, Any]:
    """A reason as data for the page: its key and its slots, an action said as the page's text."""
    slots = {k: game.action_str(v) if k in ACTIONS and isinstance(v, int) else v for k, v in r.slots.items()}
    return {"key": r.key, "slots": slots}
