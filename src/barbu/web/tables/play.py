"""Play at a table: a person's action checked by the engine and refused in words, and any action applied."""

from __future__ import annotations

import time
from typing import Any

from barbu.engine.errors import IllegalActionError
from barbu.solo.shapes import illegal_args
from barbu.web.core.errors import TableError
from barbu.web.core.rows import Batch
from barbu.web.people.ladder import game_result
from barbu.web.tables.history import note_decision, stand_in_at
from barbu.web.tables.parts import Change, Client, Host, deal_into
from barbu.wording import say


class Play:
    """The moves of a table's game: a person's checked, each one (a person's or a computer's) applied."""

    def __init__(self, table: Host) -> None:
        self.table = table

    def plan_act(self, client: Client, text: object) -> Change:
        t = self.table
        seat = client.seat
        if seat is None:
            raise TableError("not-seated", "you are watching this table: only players act",
                             args={"variant": "act"})
        if not isinstance(text, str) or len(text) > 40:
            raise TableError("bad-action", "an action is a short text such as \"QS\" or \"no-queens\"")
        t.writable()
        if t.state.is_over:
            raise TableError("game-over", "the game is over")
        if t.seats[seat].is_bot:
            raise TableError("seat-is-bot", "a computer plays your seat now: take it back first")
        if t.state.current != seat:
            who = t.state.current
            raise TableError("not-your-turn", f"it is not your turn: {t.seats[who].row.name} is to act"
                             if who >= 0 else "it is not your turn",
                             args={"name": t.seats[who].row.name} if who >= 0 else {"variant": "nobody"})
        try:
            action = t.game.parse_action(text)
        except ValueError as e:
            raise TableError("bad-action", f"'{text}' is not an action: {e}") from e
        try:
            return self.plan_apply(seat, action)
        except IllegalActionError as e:
            # Told to the player who tried it, other seats by name (the engine's text counts from 0).
            raise TableError(f"illegal:{e.rule or 'illegal'}", say(e.said, t.names(), by_name=True),
                             args=self.illegal_args(seat, action, e.rule)) from e

    def illegal_args(self, seat: int, action: int, rule: str | None) -> dict[str, Any]:
        """What a refused action's message names (barbu.solo.shapes.illegal_args)."""
        return illegal_args(self.table.state, self.table.names(), seat, action, rule)

    def plan_apply(self, seat: int, action: int, by: str = "") -> Change:
        """An action applied to a copy of the game (raises before anything is stored or sent);
        ``by``: the level of a computer standing in for the person of ``seat``, who did not decide it."""
        t = self.table
        state = t.state.copy()
        hand_no = state.hand_no
        stood_in = stand_in_at(state, by)
        decisions = {k: dict(v) for k, v in t.decisions.items()}
        if len(state.legal_actions()) > 1:  # a choice, not a forced pass or a single legal card
            note_decision(decisions, seat, by)
        state.apply(action)
        data: dict[str, Any] = {"seat": seat, "action": action}
        if by:
            data["by"] = by
        batch = Batch(t.id, events=[("act", data)])
        deal_into(state, batch)
        batch.over = state.is_over  # only an action ends the game
        if batch.over:  # rated with the action that ends it: stored together, or neither
            batch.result = game_result(t.game, state, [s.row for s in t.seats], decisions,
                                       seed_chosen=t.seed_chosen)
        ended = state.hand_no != hand_no

        def commit() -> None:
            now = t.clock()
            if ended:
                t.ready = set()
                t.hand_ended_at = now
            elif not t.seats[seat].is_bot:
                t.ready.add(seat)  # a person who acts in the new hand is ready for it
            t.state = state
            t.decisions = decisions
            if stood_in is not None:
                t.stand_ins.setdefault(stood_in[0], {})[stood_in[1]] = by
            t.moves += 1
            t.last = {"seat": seat, "action": t.game.action_str(action), "hand_no": hand_no}
            t.turn_since = now
            t.pause_held = ended and bool(t.waiting())
            t.active_at = time.time()
            t.broadcast(sheet=state.hand_no != hand_no or state.is_over)
        return Change(batch, commit)
