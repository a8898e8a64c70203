"""A solo table: one person against computers, answering the table page with the messages `barbu serve`
sends over its socket, so that the same page plays it in the browser (in a Web Worker under Pyodide)
with nothing but this package's pure-Python engine and bots.

The page's messages (``hello``, ``act``, ``ready``, ``sync``, ``ping``) go to :meth:`SoloTable.handle`,
which answers with a list of events; the computers move one decision at a time in :meth:`SoloTable.step`,
so that the worker posts each state as it comes. A computer's decision is seeded from the game's seed,
its seat and the move's number: the same game replays the same, in CPython as in the browser, and a
game rebuilt from its actions (:meth:`SoloTable.restore`) goes on as it would have.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from barbu.bots import make_bot
from barbu.engine.errors import IllegalActionError
from barbu.engine.game import PASS, Game
from barbu.engine.record import to_record
from barbu.engine.state import Phase, State
from barbu.solo.shapes import contract_facts, illegal_args, seat_view, sheet_event
from barbu.wording import say

YOU = 0  # the person's seat; the others are the computers'
LEVELS = ("random", "basic", "pimc", "strong", "expert")  # what a solo table offers, weakest first
MAX_ACTION = 40  # an action's text is short: "QS", "no-queens"


class SoloError(Exception):
    """A message the solo table refuses: sent back as the server's ``error`` event is."""

    def __init__(self, code: str, message: str, args: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.args_ = args or {}

    def event(self) -> dict[str, Any]:
        return {"type": "error", "code": self.code, "message": self.message, "args": self.args_}


def bot_seed(seed: int, seat: int, move: int) -> int:
    """A computer's seed for one decision: from the game, the seat and the move, the same everywhere
    (``hash`` of a tuple differs between 64-bit CPython and 32-bit WebAssembly: not used)."""
    return (seed * 1_000_003 + seat * 7_919 + move * 104_729) % 4_294_967_291


class SoloTable:
    """One person (seat 0) and computers at the levels ``levels`` (one per other seat)."""

    def __init__(self, game: Game, seed: int, levels: Sequence[str], name: str = "You",
                 clock: Callable[[], float] = time.time) -> None:
        if len(levels) != game.players - 1:
            raise ValueError(f"{game.players - 1} computer levels are needed, not {len(levels)}")
        for level in levels:
            if level not in LEVELS and not level.startswith("expert:"):
                raise ValueError(f"unknown computer level {level!r} (one of {', '.join(LEVELS)})")
        self.game = game
        self.seed = seed
        self.levels = list(levels)
        self.names = [name, *(f"Computer {i + 1}" for i in range(1, game.players))]
        self.clock = clock
        self.state = State(game, seed=seed, first_declarer=0)
        self.contracts = contract_facts(game)
        self.actions: list[int] = []  # every decision made, in order: the game rebuilt from it
        self.ready = -1  # the hand the person said they are ready for (the pause between hands)
        self.last: dict[str, Any] | None = None
        self._deal()

    # -- the game -------------------------------------------------------------------

    def _deal(self) -> None:
        while self.state.phase == Phase.DEAL:
            self.state.deal_random()

    def apply(self, action: int) -> bool:
        """Apply the action of the seat to act; True when it ended a hand (the sheet grows)."""
        seat, hand_no = self.state.current, self.state.hand_no
        self.state.apply(action)  # IllegalActionError leaves the state as it was
        self.actions.append(action)
        self.last = {"seat": seat, "action": self.game.action_str(action), "hand_no": hand_no}
        self._deal()
        return self.state.hand_no != hand_no or self.state.is_over

    def waiting(self) -> list[int]:
        """The person, while the computers wait for their "ready" after a hand (as `pace` asks)."""
        s = self.state
        if s.is_over or s.hand_no == 0 or self.ready >= s.hand_no:
            return []
        return [YOU]

    def auto(self) -> int | None:
        """The seat that acts without the person now: a computer, or the person's forced pass."""
        s = self.state
        if s.is_over or s.current < 0 or self.waiting():
            return None
        if s.current != YOU:
            return s.current
        return YOU if s.phase == Phase.PLAY and s.legal_actions() == [PASS] else None

    def decide(self) -> int:
        """The action of the seat :meth:`auto` names, decided from its own observation only."""
        seat = self.state.current
        if seat == YOU:
            return PASS
        bot = make_bot(self.levels[seat - 1], seed=bot_seed(self.seed, seat, len(self.actions)))
        return bot.act(self.state.observe(seat))

    def step(self) -> list[dict[str, Any]]:
        """One move of a computer (or a forced pass) and the events it sends; [] when none is due."""
        if self.auto() is None:
            return []
        return self.events(sheet=self.apply(self.decide()))

    # -- what the page reads ----------------------------------------------------------

    def meta(self) -> dict[str, Any]:
        """The table's public facts, with the keys of the server's (barbu.web.tables.views.Views.meta)."""
        s, g = self.state, self.game
        waiting = self.waiting()
        seats = [{"seat": i, "name": self.names[i], "kind": "human" if i == YOU else "bot",
                  "level": None if i == YOU else self.levels[i - 1], "claimed": True,
                  "connected": i == YOU, "has_link": i == YOU, "access": "open", "profile": False,
                  "holder": "guest" if i == YOU else "computer", "stand_in": False} for i in range(g.players)]
        return {
            "id": "solo", "ruleset": g.ruleset, "players": g.players, "options": sorted(g.options),
            "contracts": self.contracts, "seats": seats, "hand_no": s.hand_no, "num_hands": g.num_hands,
            "rounds": g.rounds, "over": s.is_over, "winners": s.winners(),
            "places": g.places(s.totals) if s.is_over else None, "idle_seconds": 0,
            "turn_clock": None, "pace": "normal", "clock_left": None, "turn_age": 0.0, "damaged": None,
            "rematch": {"number": 0, "open": False, "by": None, "accepted": [], "ended": False,
                        "made": False, "people": [YOU]},
            "awaited": [], "filled": None, "creator": None,
            "coach": {"allowed": False, "refusal": "coach.refused.solo"}, "lesson": None,
            "own_pace": None, "waiting": waiting, "ready": [], "pause_left": 0.0,
            "solo": True,
        }

    def state_event(self) -> dict[str, Any]:
        return {"type": "state", "ts": self.clock(), "view": seat_view(self.state, YOU), "table": self.meta(),
                "last": self.last}

    def events(self, sheet: bool = False) -> list[dict[str, Any]]:
        """The state as the person sees it now, after the score sheet when it grew."""
        return [*([sheet_event(self.state)] if sheet else []), self.state_event()]

    def welcome(self) -> list[dict[str, Any]]:
        return [{"type": "welcome", "you": YOU, "levels": list(LEVELS), "default_level": "basic",
                 "table": self.meta(), "creator": False},
                sheet_event(self.state),
                {"type": "chat-log", "rights": "none", "messages": []},
                self.state_event()]

    def record(self) -> str:
        """The game's record (``barbu-record/1``, one JSON line), as `barbu replay` reads it."""
        return json.dumps(to_record(self.state, self.names), ensure_ascii=False)

    def snapshot(self) -> dict[str, Any]:
        """What the browser keeps to rebuild this game after a reload (:meth:`restore`)."""
        g = self.game
        return {"ruleset": g.ruleset, "players": g.players, "options": sorted(g.options), "rounds": g.rounds,
                "seed": self.seed, "levels": self.levels, "name": self.names[YOU],
                "actions": list(self.actions), "ready": self.ready}

    @classmethod
    def restore(cls, kept: dict[str, Any]) -> SoloTable:
        """The game a :meth:`snapshot` describes, its actions applied again (ValueError when one is not
        legal: a snapshot altered or from another version)."""
        game = Game(kept["ruleset"], int(kept["players"]), frozenset(kept["options"]),
                    rounds=int(kept["rounds"]))
        table = cls(game, int(kept["seed"]), [str(x) for x in kept["levels"]], str(kept["name"]))
        try:
            for action in kept["actions"]:
                table.apply(int(action))
        except IllegalActionError as e:
            raise ValueError(f"the kept game cannot be rebuilt: {e}") from e
        table.ready = int(kept["ready"])
        return table

    # -- the page's messages ------------------------------------------------------------

    def handle(self, msg: object) -> list[dict[str, Any]]:
        """The events answering one message of the page (an ``error`` event for a refused one)."""
        try:
            return self._handle(msg)
        except SoloError as e:
            return [e.event()]

    def _handle(self, msg: object) -> list[dict[str, Any]]:
        if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
            raise SoloError("bad-message", "a message is a JSON object with a \"type\"")
        kind = msg["type"]
        if kind == "ping":
            return [{"type": "pong"}]
        if kind == "hello":
            return self.welcome()
        if kind == "sync":
            return self.events(sheet=True)
        if kind == "act":
            return self.act(msg.get("action"))
        if kind == "ready":
            return self.say_ready(msg.get("hand"))
        raise SoloError("solo-only", "this table plays in your browser alone: it has no "
                        f"{kind[:40]!r} (online play needs barbu serve)")

    def act(self, text: object) -> list[dict[str, Any]]:
        s = self.state
        if not isinstance(text, str) or len(text) > MAX_ACTION:
            raise SoloError("bad-action", "an action is a short text such as \"QS\" or \"no-queens\"")
        if s.is_over:
            raise SoloError("game-over", "the game is over")
        if s.current != YOU:
            raise SoloError("not-your-turn", "it is not your turn", {"name": self.names[s.current]}
                            if s.current >= 0 else {"variant": "nobody"})
        try:
            action = self.game.parse_action(text)
        except ValueError as e:
            raise SoloError("bad-action", f"'{text}' is not an action: {e}") from e
        try:
            ended = self.apply(action)
        except IllegalActionError as e:
            raise SoloError(f"illegal:{e.rule or 'illegal'}", say(e.said, self.names, by_name=True),
                            illegal_args(s, self.names, YOU, action, e.rule)) from e
        if not ended:
            self.ready = s.hand_no  # acting in a hand says one is ready for it
        return self.events(sheet=ended)

    def say_ready(self, hand: object) -> list[dict[str, Any]]:
        if not isinstance(hand, int) or isinstance(hand, bool):
            raise SoloError("bad-hand", "\"hand\" is the number of the hand you are ready for, from 0")
        if hand != self.state.hand_no:
            raise SoloError("not-this-hand", f"the table is at hand {self.state.hand_no + 1}, not {hand + 1}",
                            {"hand": self.state.hand_no + 1})
        self.ready = hand
        return self.events()
