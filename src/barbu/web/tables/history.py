"""A table's stored history read back: its setup, its events replayed through the engine, and damage found."""

from __future__ import annotations

import json
import logging
import sqlite3
from typing import Any

from barbu.bots import levels
from barbu.engine.errors import IllegalActionError
from barbu.engine.game import Game
from barbu.engine.state import Phase, State
from barbu.web.core.ports import TableStore
from barbu.web.core.rows import Event, SeatRow
from barbu.web.tables.parts import Decisions, StandIns
from barbu.wording import say, seat_label

log = logging.getLogger("barbu.web")

SETUP_ERRORS = (ValueError, KeyError, TypeError, IndexError, AttributeError, RecursionError, sqlite3.Error)


def read_setup(store: TableStore, table_id: str) -> tuple[Game, State, list[SeatRow]] | None:
    """A stored table's game, its state before any event, and its seats (None: no such table).

    Raises one of ``SETUP_ERRORS`` when they cannot be read or do not fit together.
    """
    setup = store.load_setup(table_id)
    if setup is None:
        return None
    game = Game(setup["ruleset"], setup["players"], frozenset(setup["options"]),
                rounds=setup.get("rounds", 0), contract_ids=tuple(setup.get("contracts", ())))
    state = State(game, seed=setup["seed"], first_declarer=setup["first_declarer"])
    rows = store.load_seats(table_id)
    if [r.seat for r in rows] != list(range(game.players)):
        raise ValueError(f"{len(rows)} seats are stored for {game.players} players")
    unknown = sorted({r.level for r in rows if r.kind == "bot"} - set(levels()))
    if unknown:
        raise ValueError(f"unknown computer level {unknown[0]!r:.40}")
    return game, state, rows


def setup_problem(store: TableStore, table_id: str) -> str | None:
    """What is wrong with a stored table's setup, without replaying its events (None: readable)."""
    try:
        read_setup(store, table_id)
    except SETUP_ERRORS as e:
        return f"{type(e).__name__}: {str(e)[:200]}"
    return None


def damage_text(damaged: dict[str, Any]) -> str:
    """Where a damaged table stopped and why, for people: ``stored event 7 is an action by …``."""
    if damaged["kind"] == "setup":
        return str(damaged["reason"])
    return f"stored event {damaged['seq']} {damaged['reason']}"


def note_decision(decisions: Decisions, seat: int, by: str) -> None:
    """Count one decision of ``seat`` (an action chosen among two or more legal ones) for whoever made it:
    ``by`` is "" for the seat's own player, else the level of the computer standing in."""
    per = decisions.setdefault(seat, {})
    per[by] = per.get(by, 0) + 1


def stand_in_at(state: State, by: str) -> tuple[int, int] | None:
    """Where in the record (hand, index in its ``actions``) the card a stand-in plays now goes; None
    when no computer stands in, or when it decides no card (a contract, a double: not analysed)."""
    if not by or state.phase != Phase.PLAY:
        return None
    return state.hand_no, len(state.actions)


def replay_events(state: State, events: list[Event], names: list[str],
                  stand_ins: StandIns | None = None,
                  decisions: Decisions | None = None) -> dict[str, Any] | None:
    """Replay stored events on ``state`` up to the first that fails; where and why it failed, or None.

    The answer is the table's ``damaged``: ``seq`` (the event's, from 1 as stored), ``kind``,
    ``reason`` (for people: seats counted from 1, with names), and where the game stopped:
    ``hand_no`` and ``action_no``, the refused action's place in its hand (both from 0), and
    ``logged``, the log's line, with the event's data as stored (seats from 0 there).
    """
    action_no = 0
    for ev in events:
        # Talk, a new game's offer, seats filled, a deadline passed, the mode switched: not the game.
        if ev.kind in ("chat", "rematch", "start", "deadline", "pace"):
            continue
        by = ev.data.get("by") if ev.kind == "act" and ev.problem is None else None
        stood_in = stand_in_at(state, by) if isinstance(by, str) else None
        choice = ev.kind == "act" and state.current >= 0 and len(state.legal_actions()) > 1
        problem = ev.problem or replay_event(state, ev, names)
        if problem is None and stood_in is not None and stand_ins is not None:
            stand_ins.setdefault(stood_in[0], {})[stood_in[1]] = str(by)
        if problem is None and choice and decisions is not None:
            note_decision(decisions, ev.data["seat"], by if isinstance(by, str) else "")
        if problem is not None:
            data = json.dumps(ev.data)[:200] if ev.problem is None else "unreadable"
            logged = f"stored event {ev.seq} ({ev.kind}, data {data}, seats from 0) {problem}"
            return {"seq": ev.seq, "kind": ev.kind, "reason": problem, "hand_no": state.hand_no,
                    "action_no": action_no, "logged": logged}
        action_no = 0 if ev.kind == "deal" else action_no + 1
    return None


def replay_event(state: State, ev: Event, names: list[str]) -> str | None:
    """Apply one stored event to ``state``; what is wrong with it (state unchanged), or None.

    The answer is for people: a seat is counted from 1 and named (``names``, one per seat).
    """
    try:
        if ev.kind == "deal":
            hands, set_aside = ev.data["hands"], ev.data["set_aside"]
            if not state.deal(hands, set_aside):
                return "is a deal the rules refuse"
        elif ev.kind == "act":
            seat, action = ev.data["seat"], ev.data["action"]
            if not isinstance(action, int) or isinstance(action, bool):
                return f"holds an action that is not a number ({action!r:.40})"
            if state.current != seat:
                due = f"{seat_label(state.current, names)} was to act" if state.current >= 0 \
                    else "a deal was due"
                return f"is an action by {_seat_text(seat, names)} out of turn: {due}"
            state.apply(action)
        else:
            return "is of an unknown kind"
    except IllegalActionError as e:
        who = _seat_text(ev.data.get("seat"), names)
        return f"is an action the rules refuse: {who} {say(e.said_about, names, by_name=True)}"
    except KeyError as e:
        return f"lacks its field {e}"
    except (ValueError, TypeError, IndexError) as e:
        return f"is refused: {type(e).__name__}: {e}"
    return None


def _seat_text(seat: object, names: list[str]) -> str:
    """A stored seat number (from 0) as people count it, or what it is when it is no seat."""
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(names):
        return seat_label(seat, names)
    return f"a seat that does not exist ({seat!r:.10}, counted from 0)"

