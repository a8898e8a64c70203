"""What a new table is asked for: its game, who sits where, its chat and turn clock, checked in words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from barbu.bots import levels
from barbu.engine.contracts import CLASSIC_OPTIONS
from barbu.engine.game import Game
from barbu.engine.state import State
from barbu.learn.lessons import lesson as lesson_named
from barbu.web.core.errors import TableError
from barbu.web.core.names import clean_name
from barbu.web.core.rows import PlayerRow
from barbu.web.tables.chat import rights_of


def default_level() -> str:
    """The computer level offered first: ``basic`` when it exists."""
    known = levels()
    return "basic" if "basic" in known else known[0]


# The computers' pace a table's creator may choose: each scales the server's wait before a computer plays.
PACES = {"slow": 2.0, "normal": 1.0, "fast": 0.25}


def parse_pace(value: object) -> str:
    """A setup's ``pace`` (``"slow"``, ``"normal"`` or ``"fast"``), checked."""
    if not isinstance(value, str) or value not in PACES:
        raise TableError("bad-setup", f'"pace" is one of {", ".join(map(repr, PACES))}: how quickly the '
                         "computers play")
    return value


def parse_game(body: dict[str, Any]) -> Game:
    """The game of a create-table request: its rule set, players, options and rounds."""
    ruleset = body.get("ruleset", "classic")
    players = body.get("players", 4)
    options = body.get("options", [])
    if ruleset not in ("classic", "family"):
        raise TableError("bad-setup", "the rule set is 'classic' or 'family'")
    if not isinstance(players, int) or isinstance(players, bool):
        raise TableError("bad-setup", "the number of players must be a whole number")
    if not isinstance(options, list) or not all(o in CLASSIC_OPTIONS for o in options):
        raise TableError("bad-setup", f"options are a list of: {', '.join(CLASSIC_OPTIONS)}")
    try:
        game = Game(ruleset, players, frozenset(options))
        if body.get("rounds") is not None:
            game = Game(ruleset, players, rounds=parse_rounds(body["rounds"], game))
    except ValueError as e:
        raise TableError("bad-setup", str(e)) from e
    return game


def parse_rounds(value: object, game: Game) -> int:
    """A setup's ``rounds``: a shorter family game, of a whole number of turns round the table (each
    player chooses as often), checked against the whole ``game``."""
    n, whole = game.players, game.num_hands
    if game.ruleset != "family":
        raise TableError("bad-setup", '"rounds" shortens a family game only; a classic game has its 28 hands')
    if not isinstance(value, int) or isinstance(value, bool) or not n <= value <= whole or value % n:
        raise TableError("bad-setup", f'"rounds" is {n}, {2 * n}, … or {whole} with {n} players (each '
                         "chooses as often), or null for the whole game")
    return value


@dataclass
class Setup:
    """What a new table is asked for: the game (rules, players, options), and who sits where."""

    game: Game
    seats: list[dict[str, Any]]
    creator: str | None = None
    seed: int | None = None
    chat: str = "players"  # who may write in the table's chat (barbu.web.tables.chat.CHAT_RIGHTS)
    turn_clock: TurnClock | None = None  # a time per decision, after which a computer plays the seat
    private: bool = False  # left out of the lobby's list: reachable by its links only
    player: PlayerRow | None = None  # the creator's profile, when the request came with one
    pace: str = "normal"  # how quickly the computers play (PACES)
    client: str = ""  # a digest of the creator's browser's client id (clientid.client_key), if sent
    lesson: str | None = None  # the tutorial's lesson whose real hand this table is (barbu.learn)
    first_declarer: int | None = None  # who declares first (None: drawn from the seed)
    own_pace: int | None = None  # at your own pace: the hours each move may take (None: a live table)

    @property
    def ruleset(self) -> str:
        return self.game.ruleset

    @property
    def players(self) -> int:
        return self.game.players

    @classmethod
    def parse(cls, body: object) -> Setup:
        """Check a create-table request (JSON object) and say what is wrong in words."""
        if not isinstance(body, dict):
            raise TableError("bad-setup", "the table setup must be a JSON object")
        if body.get("lesson") is not None:
            return cls.for_lesson(body)
        game = parse_game(body)
        players = game.players
        seats = body.get("seats")
        if seats is None:
            seats = [{"kind": "human"}] + [{"kind": "bot"}] * (players - 1)
        if not isinstance(seats, list) or len(seats) != players:
            raise TableError("bad-setup", f"give one entry in 'seats' for each of the {players} players")
        creator = body.get("name")
        seed = body.get("seed")
        private = body.get("private", False)
        if not isinstance(private, bool):
            raise TableError("bad-setup", "\"private\" is true (only those with a link find the table) "
                             "or false")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)
                                 or not 0 <= seed < 2**63):
            raise TableError("bad-setup", "the seed must be a whole number from 0 to 2**63 - 1")
        specs = [_seat_spec(s) for s in seats]
        if sum(s["you"] for s in specs) > 1:
            raise TableError("bad-setup", "only one seat is yours")
        if not any(s["you"] for s in specs):  # as before seat kinds: the first person's seat is the creator's
            first = next((s for s in specs if s["kind"] == "human" and s["access"] == "open"), None)
            if first is not None:
                first["you"] = True
        own_pace = body.get("own_pace")
        if own_pace is not None and body.get("turn_clock") is not None:
            raise TableError("bad-setup", 'a table at your own pace ("own_pace") has a deadline per move, '
                             'not a turn clock of seconds ("turn_clock"): choose one',
                             args={"variant": "own-pace"})
        return cls(game, specs, clean_name(creator) if creator is not None else None, seed,
                   chat=rights_of(body.get("chat")), turn_clock=TurnClock.parse(body.get("turn_clock")),
                   private=private, pace=parse_pace(body.get("pace", "normal")),
                   own_pace=None if own_pace is None else parse_own_pace(own_pace))

    @classmethod
    def for_lesson(cls, body: dict[str, Any]) -> Setup:
        """The table of a lesson's real hand: one hand of its contract, the learner (seat 0) against
        computers, declaring (at the doubling lesson the computer on the left declares, so that the
        learner doubles); private, and unrated as every shorter game is. Only a name and a pace go
        with it."""
        name = body["lesson"]
        try:
            x = lesson_named(name if isinstance(name, str) else "")
        except KeyError as e:
            raise TableError("bad-setup", f'"lesson" is the id of a lesson: {e.args[0]}') from e
        extra = sorted(set(body) - {"lesson", "name", "pace"})
        if extra:
            raise TableError("bad-setup", f'a lesson\'s table takes only "name" and "pace", '
                             f'not "{extra[0]:.40}"')
        seats = [_seat_spec({"kind": "you"})] + [_seat_spec({"kind": "bot"})] * (x.players - 1)
        creator = body.get("name")
        return cls(x.table_game(), seats, clean_name(creator) if creator is not None else None, private=True,
                   pace=parse_pace(body.get("pace", "normal")), lesson=x.id,
                   first_declarer=0 if x.contract is not None else 1)

    @property
    def creator_seat(self) -> int | None:
        return next((i for i, s in enumerate(self.seats) if s["you"]), None)

    def record(self, state: State, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        """The stored setup of a new table of ``state`` (``extra``: more of its record)."""
        game = state.game
        record: dict[str, Any] = {"ruleset": game.ruleset, "players": game.players,
                                  "options": sorted(game.options), "seed": state.seed,
                                  "first_declarer": state.first_declarer, **(extra or {})}
        if self.seed is not None:
            record["seed_chosen"] = True
        if self.chat != "players":
            record["chat"] = self.chat
        if self.turn_clock is not None:
            record["turn_clock"] = self.turn_clock.stored()
        if self.pace != "normal":
            record["pace"] = self.pace
        if game.rounds:
            record["rounds"] = game.rounds
        if game.contract_ids:
            record["contracts"] = list(game.contract_ids)
        if self.lesson is not None:
            record["lesson"] = self.lesson
        if self.own_pace is not None:
            record["own_pace"] = self.own_pace
        return record


OWN_PACE_HOURS = (1, 12, 24, 72)  # the deadlines per move a table at your own pace may have


def parse_own_pace(value: object) -> int:
    """A setup's ``own_pace`` (hours each move may take: 1, 12, 24 or 72), checked."""
    if not isinstance(value, int) or isinstance(value, bool) or value not in OWN_PACE_HOURS:
        raise TableError("bad-setup", f'"own_pace" is the hours each move may take: one of '
                         f'{", ".join(map(str, OWN_PACE_HOURS))}, or null for a live table',
                         args={"variant": "own-pace"})
    return value


SEAT_KINDS = ("you", "friend", "open", "human", "bot")


@dataclass(frozen=True)
class TurnClock:
    """A table's turn clock: each decision of a person has ``seconds``; then a computer of ``level``
    plays the seat until its person takes it back."""

    seconds: int
    level: str

    LIMITS = (10, 600)

    @classmethod
    def parse(cls, value: object) -> TurnClock | None:
        """A setup's ``turn_clock`` (``{"seconds": 30, "level": "basic"}``, or null for none), checked."""
        if value is None:
            return None
        lo, hi = cls.LIMITS
        why = f'"turn_clock" is {{"seconds": {lo} to {hi}, "level": a computer level}}, or null'
        if not isinstance(value, dict):
            raise TableError("bad-setup", why)
        seconds, level = value.get("seconds"), value.get("level") or default_level()
        if not isinstance(seconds, int) or isinstance(seconds, bool) or not lo <= seconds <= hi:
            raise TableError("bad-setup", why)
        if level not in levels():
            raise TableError("bad-setup", f"unknown computer level {str(level)[:40]!r} "
                             f"(one of {', '.join(levels())})")
        return cls(seconds, level)

    def stored(self) -> dict[str, Any]:
        return {"seconds": self.seconds, "level": self.level}


def _seat_spec(spec: object) -> dict[str, Any]:
    """A seat asked for: yours, a friend's (by invitation only), open to anyone, or a computer's.

    ``human`` is the kind of the first release: a person's seat open to anyone.
    """
    if not isinstance(spec, dict) or spec.get("kind") not in SEAT_KINDS:
        raise TableError("bad-setup", 'each seat is {"kind": "you"}, "friend", "open" or {"kind": "bot", '
                         '"level": …}')
    if spec["kind"] != "bot":
        return {"kind": "human", "access": "friend" if spec["kind"] == "friend" else "open",
                "you": spec["kind"] == "you"}
    level = spec.get("level") or default_level()
    if level not in levels():
        raise TableError("bad-setup", f"unknown computer level {level!r} (one of {', '.join(levels())})")
    return {"kind": "bot", "level": level, "access": "open", "you": False}
