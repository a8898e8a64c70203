"""What each reader of a table may see: its public facts, a seat's view, the score sheet, its record."""

from __future__ import annotations

import json
import time
from typing import Any

from barbu.engine.record import to_record
from barbu.solo.shapes import seat_view, sheet_event
from barbu.web.core.errors import TableError
from barbu.web.tables.coaching import coach_meta
from barbu.web.tables.parts import Host


class Views:
    """A table as each reader sees it, from observations only: no card reaches anyone who may not see it."""

    def __init__(self, table: Host) -> None:
        self.table = table

    def meta(self) -> dict[str, Any]:
        """Public facts of the table: rules, seats, whose turn and for how long, the winners."""
        t = self.table
        g = t.game
        return {
            "id": t.id, "ruleset": g.ruleset, "players": g.players, "options": sorted(g.options),
            "contracts": t.contracts,
            "seats": [s.public for s in t.seats], "hand_no": t.state.hand_no,
            "num_hands": g.num_hands, "rounds": g.rounds, "over": t.state.is_over,
            "winners": t.state.winners(),
            "places": g.places(t.state.totals) if t.state.is_over else None,  # the engine's, ties shared
            "idle_seconds": t.idle_seconds,
            "turn_clock": t.turn_clock.stored() if t.turn_clock is not None else None, "pace": t.pace,
            "clock_left": None if (left := t.clock_left()) is None else round(max(0.0, left), 1),
            "turn_age": round(t.clock() - t.turn_since, 1), "damaged": t.damaged,
            "rematch": {**t.rematch.public(), "people": t.people()},
            "awaited": t.awaited(), "filled": t.filled,
            "creator": t.creator if t.creator >= 0 else None,  # a seat: who invited the others
            "coach": coach_meta(t),  # whether the coach may help here (docs/coach.md)
            "lesson": t.lesson,  # the tutorial's lesson whose real hand this is (None: a game)
            "own_pace": t.own_pace(),  # at your own pace: hours per move, live for now, the deadline
            **t.pause(),
        }

    def view(self, seat: int | None) -> dict[str, Any]:
        """The game as ``seat`` sees it (None: a spectator sees no hand), from an observation only."""
        return seat_view(self.table.state, seat)

    def state_event(self, seat: int | None, meta: dict[str, Any] | None = None) -> dict[str, Any]:
        return {"type": "state", "ts": time.time(), "view": self.view(seat),
                "table": self.meta() if meta is None else meta, "last": self.table.last}

    def sheet_event(self) -> dict[str, Any]:
        """The score sheet: every finished hand (from an observation: no cards), and the winners."""
        return sheet_event(self.table.state)

    def broadcast(self, sheet: bool = False) -> None:
        """Send each client its own view of the table as it is now (after the score sheet, if asked)."""
        t = self.table
        if sheet and t.clients:
            sheet_text = json.dumps(self.sheet_event(), ensure_ascii=False)
            for client in list(t.clients):
                client.send_text(sheet_text)
        texts: dict[int | None, str] = {}
        meta = self.meta() if t.clients else None
        for client in list(t.clients):
            text = texts.get(client.seat)
            if text is None:
                event = self.state_event(client.seat, meta)
                text = texts[client.seat] = json.dumps(event, ensure_ascii=False)
            client.send_text(text)

    def public_record(self, seat: int | None = None) -> dict[str, Any]:
        """The game record (RECORD.md) as far as everyone at the table has seen it.

        Once the game is over: the whole record, every deal and the seed. While it runs: the
        finished hands without their ``deal`` (nobody saw the others' hands; the cards played, the
        contracts, doubles and scores are public), no hand in play and no seed. A seated reader
        (``seat``) also gets each finished hand's cards it was dealt, as ``own_deal``.
        """
        t = self.table
        if t.damaged is not None and t.damaged["kind"] == "setup":
            raise TableError("damaged", "this table has no record to download: its stored setup cannot be "
                             "read, so its game cannot be rebuilt", 409, args={"variant": "record"})
        doc = to_record(t.state, t.names(), public=True)
        if t.filled is not None:  # the creator started without some invited people: said in the record
            doc["start_with_computers"] = {k: t.filled[k] for k in ("seats", "level", "by")}
        for i, hand in enumerate(doc["hands"]):
            if t.stand_ins.get(i):
                hand["stand_in"] = [[j, level] for j, level in sorted(t.stand_ins[i].items())]
        if t.state.is_over:
            return doc
        for hand in doc["hands"]:
            deal = hand.pop("deal")
            if seat is not None:
                hand["own_deal"] = deal[seat]
        if seat is not None:
            doc["seat"] = seat
        return doc

    def summary(self) -> dict[str, Any]:
        """What the lobby lists about this table (``free_seats``: those anyone may take)."""
        t = self.table
        free = sum(1 for s in t.seats if t.joinable(s))
        invited = sum(1 for s in t.seats if s.free and (s.row.access == "friend" or s.row.invited))
        return {"id": t.id, "ruleset": t.game.ruleset, "players": t.game.players,
                "options": sorted(t.game.options), "names": t.names(),
                "holders": [s.holder for s in t.seats],
                "stand_ins": [s.stand_in for s in t.seats], "free_seats": free,
                "invited_seats": invited, "hand_no": t.state.hand_no, "num_hands": t.game.num_hands,
                "over": t.state.is_over, "watchers": sum(1 for c in t.clients if c.seat is None),
                "damaged": t.damaged, "moved": round(t.active_at, 1), "private": t.private,
                "own_pace": None if (p := t.own_pace()) is None else {"hours": p["hours"], "live": p["live"]}}

    def standing(self, seat: int) -> str:
        """Where a seat's player stands: ``your-turn``, ``waiting``, ``finished``, ``damaged``."""
        t = self.table
        if t.damaged is not None:
            return "damaged"
        if t.state.is_over:
            return "finished"
        return "your-turn" if t.state.current == seat and not t.seats[seat].is_bot else "waiting"

    def yours(self, seat: int) -> dict[str, Any]:
        """A seat's entry in its player's own list of tables: the table, its state, the way back."""
        t = self.table
        token = t.seats[seat].row.token
        out = {**self.summary(), "seat": seat, "state": self.standing(seat),
               "link": f"/table/{t.id}#t={token}", "token": token}
        pace = t.own_pace()
        if pace is not None:
            out["own_pace"] = pace
        rematch = t.rematch_link(seat)
        if rematch is not None:
            out["rematch"] = rematch  # the way to this seat's place in the new game
        # When it began, and the game it continues: a game and its rematch told apart in the list.
        out["started"], of = t.store.origin(t.id)
        if of is not None:
            out["rematch_of"] = {"id": of, "started": t.store.origin(of)[0]}
        return out
