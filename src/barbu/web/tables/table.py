"""The card tables of the web server, free of any web framework: seats, tokens, computer players, events.

A :class:`Table` wraps one engine :class:`~barbu.state.State`. People act through
:meth:`Table.act`; computer players (and a forced "pass") through :meth:`Table.auto_step`. After
every change each connected :class:`Client` is sent one JSON ``state`` event built only from its
own seat's observation, so no message ever carries a card its reader may not see. Every change is
first worked out on copies (a :class:`Change`), stored in the :class:`~barbu.web.storage.sqlite.Store`, and
only then made in memory and told to anyone: a write that fails leaves the table as it was.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hmac
import json
import logging
import re
import secrets
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from barbu.bots import Bot, levels, make_bot
from barbu.engine.cards import SUITS, card_pretty
from barbu.engine.contracts import CLASSIC_OPTIONS
from barbu.engine.errors import IllegalActionError
from barbu.engine.game import PASS, Game
from barbu.engine.observation import Observation
from barbu.engine.record import to_record
from barbu.engine.state import Phase, State
from barbu.web.core.errors import TableError
from barbu.web.core.ports import TableStore
from barbu.web.core.rows import Batch, Event, PlayerRow, SeatRow
from barbu.web.people.ladder import game_result
from barbu.web.tables.chat import Chat, rights_of
from barbu.web.tables.rematch import Offer
from barbu.web.tables.rules import figures
from barbu.wording import plural, say, seat_label

log = logging.getLogger("barbu.web")

MAX_NAME = 24
_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


class Client(Protocol):
    """A connection to a table: a seat (or None to watch) and a way to send it text."""

    seat: int | None

    def send_text(self, text: str) -> None: ...


def default_level() -> str:
    """The computer level offered first: ``basic`` when it exists."""
    known = levels()
    return "basic" if "basic" in known else known[0]


def clean_name(value: object) -> str:
    """A player's name as shown at the table; TableError when it is empty or not text."""
    if not isinstance(value, str):
        raise TableError("bad-name", "a name is a piece of text")
    name = " ".join("".join(ch for ch in value if ch.isprintable()).split())[:MAX_NAME]
    if not name:
        raise TableError("bad-name", "please give a name", args={"variant": "empty"})
    return name


def name_key(name: str) -> str:
    """What makes two names the same profile's: case does not count."""
    return name.casefold()


def bare_name(store: TableStore, value: object) -> str:
    """A name-only seat's name, cleaned; TableError ``profile-name`` when a profile goes by it,
    so that nobody without that profile passes for its (rated, registered) player."""
    name = clean_name(value)
    if store.player_named(name_key(name)) is not None:
        raise TableError("profile-name", f"the name {name} belongs to a profile: sign in with it, or pick "
                         "another", 409, args={"name": name})
    return name


def valid_id(table_id: str) -> bool:
    return bool(_ID_RE.match(table_id))


@dataclass(frozen=True)
class AutoMove:
    """A computer player's (or a forced pass's) turn: its seat's view, and who decides."""

    seat: int
    moves: int  # the table's move count when the view was taken
    obs: Observation
    bot: Bot | None  # None: a person whose only legal action is to pass

    def decide(self) -> int:
        """The action; the bot sees only ``obs``, so this may run in another thread."""
        return self.bot.act(self.obs) if self.bot is not None else PASS


@dataclass
class Seat:
    """A seat at a table: its stored row, and its computer player when a computer plays it."""

    row: SeatRow
    bot: Bot | None = None
    connected: int = 0

    @property
    def is_bot(self) -> bool:
        return self.row.kind == "bot"

    @property
    def public(self) -> dict[str, Any]:
        r = self.row
        return {"seat": r.seat, "name": r.name, "kind": r.kind,
                "level": r.level if r.kind == "bot" else None, "claimed": r.claimed,
                "connected": self.connected > 0, "has_link": bool(r.token), "access": r.access,
                "profile": bool(r.player), "holder": self.holder, "stand_in": self.stand_in}

    @property
    def holder(self) -> str:
        """Whose seat it is, as every page shows it: ``profile`` (a registered player), ``guest`` (a
        bare name), ``computer`` (a computer's seat, or one a computer keeps until someone comes) or
        ``free`` (nobody has taken it yet). A person's seat stays theirs while a computer stands in."""
        r = self.row
        if r.player:
            return "profile"
        if r.kind == "bot" and not self.stand_in:
            return "computer"
        return "guest" if r.claimed else "free"

    @property
    def stand_in(self) -> bool:
        """A computer plays, for now, a seat a person has taken."""
        r = self.row
        return r.kind == "bot" and r.claimed and bool(r.token or r.player)

    @property
    def free(self) -> bool:
        """A person's seat nobody has taken yet."""
        return self.row.kind == "human" and not self.row.claimed


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
    client: str = ""  # a digest of the creator's browser's client id (clientid.client_key), if sent

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
        except ValueError as e:
            raise TableError("bad-setup", str(e)) from e
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
        return cls(game, specs, clean_name(creator) if creator is not None else None, seed,
                   chat=rights_of(body.get("chat")), turn_clock=TurnClock.parse(body.get("turn_clock")),
                   private=private)

    @property
    def creator_seat(self) -> int | None:
        return next((i for i, s in enumerate(self.seats) if s["you"]), None)


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


@dataclass
class Change:
    """A change of a table worked out on copies: what to store, and what to do once it is stored.

    Nothing in memory moves and nobody is told until ``batch`` is in the database; if storing it
    fails, the change is dropped whole and the table is exactly as it was.
    """

    batch: Batch
    commit: Callable[[], None]


def storage_error(table_id: str, e: BaseException) -> TableError:
    """The refusal of a change that could not be stored (the table is unchanged), logged."""
    log.error("table %s: a change could not be stored, so it was not made: %s", table_id, e)
    return TableError("storage", "the server could not store this just now, so nothing was changed: "
                      "please try again in a moment", 503)


def deal_into(state: State, batch: Batch) -> None:
    """Deal every hand due now on ``state``, adding each accepted deal to ``batch``."""
    while state.phase == Phase.DEAL:
        if state.deal_random():
            batch.events.append(("deal", {"hands": list(state.dealt), "set_aside": state.set_aside}))


@dataclass
class Table:
    """One game of Barbu being played at the server."""

    id: str
    game: Game
    state: State
    seats: list[Seat]
    store: TableStore
    idle_seconds: float = 60.0
    clock: Callable[[], float] = time.monotonic
    clients: list[Client] = field(default_factory=list)
    turn_since: float = 0.0
    last: dict[str, Any] | None = None
    moves: int = 0  # actions applied since the table was opened: tells a stale decision apart
    active_at: float = field(default_factory=time.time)  # wall time of the last stored change
    damaged: dict[str, Any] | None = None  # why the stored game stopped replaying, and where
    private: bool = False  # not in the lobby's list
    creator: int = -1  # the seat of whoever created the table (-1: unknown, as for older tables)
    # The pause between hands: the pages that asked for it (hello "pace") are waited for.
    pacers: list[Client] = field(default_factory=list)
    ready: set[int] = field(default_factory=set)  # seats that said they are ready for this hand
    hand_ended_at: float | None = None  # clock time the last hand ended, while its pause lasts
    chat: Chat = field(default_factory=Chat)
    turn_clock: TurnClock | None = None
    pause_held: bool = False  # the hand that just began waits for the people (see waiting)
    rematch: Offer = field(default_factory=Offer)  # the offer of a new game once this one is over
    contracts: list[dict[str, Any]] = field(init=False, repr=False)  # the game's, as meta() shows them
    stand_ins: StandIns = field(default_factory=dict)  # cards a computer played in a person's seat
    last_seq: int = 0  # the seq of the last stored event replayed when the table was loaded
    decisions: Decisions = field(default_factory=dict)  # who made each seat's decisions (the ratings')
    filled: dict[str, Any] | None = None  # the creator's "start with computers" (its stored event)
    seed_chosen: bool = False  # a practice game whose creator chose the seed (knows every deal): unrated

    def __post_init__(self) -> None:
        self.contracts = [{"id": c.id, "name": c.name, "positive": c.positive, "kind": c.kind.name.lower(),
                           "description": c.description, "figures": figures(c)} for c in self.game.contracts]

    # -- creating and loading ------------------------------------------------------

    @classmethod
    def plan(cls, store: TableStore, setup: Setup, **kw: Any) -> tuple[Table, Batch]:
        """A new table, dealt, and the batch that stores it: the table exists once that is stored."""
        rows = []
        creator_seat = setup.creator_seat
        you = setup.player
        if you is None and setup.creator is not None:
            bare_name(store, setup.creator)
        for i, spec in enumerate(setup.seats):
            if spec["kind"] == "bot":
                rows.append(SeatRow(i, f"Computer {i + 1}", "", "bot", spec["level"], True))
            else:
                creator = (you.name if you else setup.creator) if i == creator_seat else None
                player = you.id if you and i == creator_seat else ""
                rows.append(SeatRow(i, creator or f"Seat {i + 1}", secrets.token_urlsafe(18), "human", "",
                                    creator is not None, player, spec["access"],
                                    setup.client if creator is not None else ""))
        # The seed decides every deal: unguessable unless a practice game chose its own.
        state = State(setup.game, seed=setup.seed if setup.seed is not None else secrets.randbits(63))
        return cls.plan_seated(store, state, rows, setup, **kw)

    @classmethod
    def plan_seated(cls, store: TableStore, state: State, rows: list[SeatRow], setup: Setup,
                    extra: dict[str, Any] | None = None, **kw: Any) -> tuple[Table, Batch]:
        """A new table of ``state`` with these seats, dealt, and its batch (``extra``: more of its record)."""
        game, table_id = state.game, secrets.token_urlsafe(6)
        record = {"ruleset": game.ruleset, "players": game.players, "options": sorted(game.options),
                  "seed": state.seed, "first_declarer": state.first_declarer, **(extra or {})}
        if setup.seed is not None:
            record["seed_chosen"] = True
        if setup.chat != "players":
            record["chat"] = setup.chat
        if setup.turn_clock is not None:
            record["turn_clock"] = setup.turn_clock.stored()
        creator_seat = setup.creator_seat
        mine = -1 if creator_seat is None else creator_seat
        batch = Batch(table_id, seats=rows, create=record, private=setup.private, creator=mine)
        if not awaited(rows):  # a table with invited seats deals once they are taken (or filled)
            deal_into(state, batch)
        table = cls._open(store, table_id, game, state, rows, private=setup.private, creator=mine, **kw)
        table.chat.rights = setup.chat
        table.turn_clock = setup.turn_clock
        table.seed_chosen = setup.seed is not None
        return table, batch

    @classmethod
    def create(cls, store: TableStore, setup: Setup, **kw: Any) -> Table:
        """A new table, stored at once (in this thread); TableError ``storage`` if that fails."""
        table, batch = cls.plan(store, setup, **kw)
        try:
            store.commit(batch)
        except (sqlite3.Error, OSError) as e:
            raise storage_error(table.id, e) from e
        table.created()
        return table

    def created(self) -> None:
        log.info("table %s created: %s, %d players, seats %s", self.id, self.game.ruleset, self.game.players,
                 [s.row.kind for s in self.seats])

    @classmethod
    def load(cls, store: TableStore, table_id: str, **kw: Any) -> Table | None:
        """Rebuild a stored table by replaying its deals and actions through the engine.

        A stored event the rules refuse (or that cannot be read) stops the replay there: the table
        opens as it was just before it, marked ``damaged``, and refuses every change, so that no
        new play is ever stored after a history that does not hold together. A table whose very
        setup cannot be read is kept too, damaged at its setup (see :meth:`unreadable`).
        """
        try:
            start = read_setup(store, table_id)
        except SETUP_ERRORS as e:
            return cls.unreadable(store, table_id, e, **kw)
        if start is None:
            return None
        game, state, rows = start
        events = store.events(table_id)
        stand_ins: StandIns = {}
        decisions: Decisions = {}
        damaged = replay_events(state, events, [r.name for r in rows], stand_ins, decisions)
        if damaged is not None:
            log.error("table %s is damaged: %s; it is kept as it was before that event and cannot be "
                      "played on", table_id, damaged.pop("logged"))
        if damaged is None and state.is_over and not store.is_over(table_id):  # ended before a crash
            store.mark_over(table_id)
        private, creator = store.table_flags(table_id)
        table = cls._open(store, table_id, game, state, rows, damaged=damaged, private=private,
                          creator=creator, **kw)
        table.active_at = store.last_change(table_id) or table.active_at
        table.stand_ins = stand_ins
        table.decisions = decisions
        table.last_seq = events[-1].seq if events else 0
        stored = store.load_setup(table_id) or {}
        table.chat.rights = rights_of(stored.get("chat"))
        table.seed_chosen = stored.get("seed_chosen") is True
        with contextlib.suppress(TableError):  # a clock no longer valid (an unknown level): none
            table.turn_clock = TurnClock.parse(stored.get("turn_clock"))
        table.chat.messages.extend(ev.data for ev in events if ev.kind == "chat" and ev.problem is None)
        table.chat.stored = sum(1 for ev in events if ev.kind == "chat")
        for ev in events:
            if ev.kind == "rematch" and ev.problem is None:
                with contextlib.suppress(KeyError, TypeError, ValueError):  # edited by hand: not the game's
                    table.rematch.apply(ev.data)
            if ev.kind == "start" and ev.problem is None:
                table.filled = ev.data
        if damaged is None and state.phase == Phase.DEAL and not awaited(rows):  # stored before deals went
            # with their action (a table still waiting for its invited people deals when they come)
            batch = Batch(table_id)
            deal_into(table.state, batch)
            store.commit(batch)
        return table

    @classmethod
    def unreadable(cls, store: TableStore, table_id: str, e: BaseException, **kw: Any) -> Table:
        """A stored table whose setup cannot be read, kept so that its link still says why.

        Its rules are unknown: it stands in as a table of as many seats as are stored (4 when
        that is no number of players), with no deal and no computer player, damaged at its setup.
        """
        reason = f"its stored setup cannot be read ({type(e).__name__}: {str(e)[:200]})"
        log.error("table %s is damaged: %s; it is kept, but cannot be played on and has no record",
                  table_id, reason)
        try:
            rows = store.load_seats(table_id)
        except sqlite3.Error:
            rows = []
        players = len(rows) if 3 <= len(rows) <= 6 else 4
        # Each stored link still opens its seat (to watch from), so that its owner is told why.
        kept = [dataclasses.replace(r, seat=i) for i, r in enumerate(rows[:players])]
        seats = [Seat(r) for r in kept + [SeatRow(i, f"Seat {i + 1}", "", "human", "", True)
                                          for i in range(len(kept), players)]]
        game = Game("classic" if players == 4 else "family", players)
        damaged = {"seq": 0, "kind": "setup", "reason": reason, "hand_no": 0, "action_no": 0}
        table = cls(table_id, game, State(game, seed=0), seats, store, damaged=damaged, **kw)
        with contextlib.suppress(sqlite3.Error, TypeError, ValueError):
            table.active_at = store.last_change(table_id) or table.active_at
        return table

    @classmethod
    def _open(cls, store: TableStore, table_id: str, game: Game, state: State, rows: list[SeatRow],
              **kw: Any) -> Table:
        """The table of a game (new or stored) with its computer players seated."""
        table = cls(table_id, game, state, [Seat(r) for r in rows], store, **kw)
        table._make_bots()
        table.turn_since = table.clock()
        return table

    def _make_bots(self) -> None:
        for s in self.seats:
            if s.is_bot and s.bot is None:
                s.bot = make_bot(s.row.level, seed=hash((self.state.seed, s.row.seat)) & 0xFFFFFFFF)

    # -- changes: planned, stored, then made ------------------------------------------

    def run(self, change: Change) -> None:
        """Store a change here and now, then make it (TableError ``storage``, nothing changed, if
        storing fails). The server does the same with the store's writes in its writer thread."""
        if change.batch:
            try:
                self.store.commit(change.batch)
            except (sqlite3.Error, OSError) as e:
                raise storage_error(self.id, e) from e
        change.commit()

    def _writable(self) -> None:
        if self.damaged is not None:
            raise TableError("damaged", f"this table is damaged ({damage_text(self.damaged)}): it is kept "
                             "as it was before that, and nothing more can be played on it", 409,
                             args={"variant": "table"})

    def _seat_change(self, row: SeatRow, then: Callable[[], None]) -> Change:
        """Replace a seat's row (a copy, changed) once it is stored, then do ``then``. The last invited
        seat taken deals the first hand in the same transaction."""
        batch = Batch(self.id, seats=[row])
        dealt = self._plan_start(batch, [row])

        def commit() -> None:
            if not self.seats[row.seat].row.claimed and row.claimed and self.state.current == row.seat:
                self.turn_since = self.clock()  # taken on its turn: its person has the whole clock
            self.seats[row.seat].row = row
            self.active_at = time.time()
            self._started(dealt)
            then()
            self.tell_creator()
        return Change(batch, commit)

    def _plan_start(self, batch: Batch, changed: list[SeatRow]) -> State | None:
        """The game dealt on a copy (its deal added to ``batch``) when these seat changes take the last
        invited seat of a table that waits; None when it does not start now."""
        if self.state.phase != Phase.DEAL or self.state.hand_no or self.damaged is not None:
            return None
        rows = {r.seat: r for r in [s.row for s in self.seats] + changed}
        if not awaited([s.row for s in self.seats]) or awaited(list(rows.values())):
            return None
        state = self.state.copy()
        deal_into(state, batch)
        return state

    def _started(self, dealt: State | None) -> None:
        if dealt is not None:
            self.state = dealt
            self.turn_since = self.clock()
            log.info("table %s: every invited seat is filled; the first hand is dealt", self.id)

    def awaited(self) -> list[int]:
        """The invited seats the game waits for (none once it has begun)."""
        return awaited([s.row for s in self.seats]) if self.state.phase == Phase.DEAL else []

    def plan_start(self, client: Client, level: object = None) -> Change:
        """The creator starts without the invited people who have not come: their seats become computer
        players' (of ``level``) for the whole game, their links lapse, and a ``start`` event says so."""
        self._creator_only(client, "start")
        lvl = default_level() if level is None else level
        if not isinstance(lvl, str) or lvl not in levels():
            raise TableError("bad-level", f"unknown computer level {str(lvl)[:40]!r}")
        self._writable()
        missing = self.awaited()
        if not missing:
            raise TableError("not-waiting", "this table waits for nobody: its game has begun", 409)
        rows = [SeatRow(i, f"Computer {i + 1}", "", "bot", lvl, True) for i in missing]
        data = {"seats": missing, "level": lvl, "by": self.creator, "names": [self.seats[i].row.name
                                                                               for i in missing]}
        batch = Batch(self.id, events=[("start", data)], seats=rows)
        dealt = self._plan_start(batch, rows)

        def commit() -> None:
            for r in rows:
                self.seats[r.seat].row = r
            self._make_bots()
            self.filled = data
            self.active_at = time.time()
            self._started(dealt)
            log.info("table %s: started by its creator with computers (%s) in seats %s", self.id, lvl,
                     missing)
            self.tell_creator()
            self.broadcast()
        return Change(batch, commit)

    # -- what each reader may see ------------------------------------------------

    def names(self) -> list[str]:
        return [s.row.name for s in self.seats]

    def meta(self) -> dict[str, Any]:
        """Public facts of the table: rules, seats, whose turn and for how long, the winners."""
        g = self.game
        return {
            "id": self.id, "ruleset": g.ruleset, "players": g.players, "options": sorted(g.options),
            "contracts": self.contracts,
            "seats": [s.public for s in self.seats], "hand_no": self.state.hand_no,
            "num_hands": g.num_hands, "over": self.state.is_over, "winners": self.state.winners(),
            "idle_seconds": self.idle_seconds,
            "turn_clock": self.turn_clock.stored() if self.turn_clock is not None else None,
            "clock_left": None if (left := self.clock_left()) is None else round(max(0.0, left), 1),
            "turn_age": round(self.clock() - self.turn_since, 1), "damaged": self.damaged,
            "rematch": {**self.rematch.public(), "people": self.people()},
            "awaited": self.awaited(), "filled": self.filled,
            **self.pause(),
        }

    def pause(self) -> dict[str, Any]:
        """The pause between hands as the pages see it: who is waited for, who is ready, how long."""
        waiting = self.waiting()
        if not waiting:  # no pause (also after a restart: the pause is not stored)
            return {"waiting": [], "ready": [], "pause_left": 0.0}
        return {"waiting": waiting, "ready": sorted(self.ready), "pause_left": round(self.pause_left(), 1)}

    def view(self, seat: int | None) -> dict[str, Any]:
        """The game as ``seat`` sees it (None: a spectator sees no hand), from an observation only."""
        obs = self.state.observe(0 if seat is None else seat)
        # The finished hands go out once, in a "sheet" event, not again with every card played.
        out = dataclasses.replace(obs, results=()).to_json()
        del out["results"]
        out["hands_done"] = len(obs.results)
        if seat is None:
            out["seat"] = None
            out["hand"] = []
            out["legal"] = []
        return out

    def state_event(self, seat: int | None, meta: dict[str, Any] | None = None) -> dict[str, Any]:
        return {"type": "state", "ts": time.time(), "view": self.view(seat),
                "table": self.meta() if meta is None else meta, "last": self.last}

    def sheet_event(self) -> dict[str, Any]:
        """The score sheet: every finished hand (from an observation: no cards), and the winners."""
        obs = self.state.observe(0)
        return {"type": "sheet", "results": [r.to_json() for r in obs.results], "totals": list(obs.totals),
                "winners": self.state.winners()}

    def broadcast(self, sheet: bool = False) -> None:
        """Send each client its own view of the table as it is now (after the score sheet, if asked)."""
        if sheet and self.clients:
            sheet_text = json.dumps(self.sheet_event(), ensure_ascii=False)
            for client in list(self.clients):
                client.send_text(sheet_text)
        texts: dict[int | None, str] = {}
        meta = self.meta() if self.clients else None
        for client in list(self.clients):
            text = texts.get(client.seat)
            if text is None:
                event = self.state_event(client.seat, meta)
                text = texts[client.seat] = json.dumps(event, ensure_ascii=False)
            client.send_text(text)

    def send(self, client: Client, event: dict[str, Any]) -> None:
        client.send_text(json.dumps(event, ensure_ascii=False))

    # -- who comes and goes --------------------------------------------------------

    def seat_of_token(self, token: object) -> int | None:
        if not isinstance(token, str) or not token:
            return None
        for s in self.seats:
            if s.row.token and hmac.compare_digest(s.row.token.encode(), token.encode()):
                return s.row.seat
        return None

    def attach(self, client: Client, token: object, name: object = None, pace: object = False,
               player: PlayerRow | None = None, browser: str = "") -> None:
        """Seat a client by its token (None: watch), storing the claim of a free seat first."""
        self.run(self.plan_attach(client, token, name, pace, player, browser))

    def plan_attach(self, client: Client, token: object, name: object = None, pace: object = False,
                    player: PlayerRow | None = None, browser: str = "") -> Change:
        """Seat a client by its token (None: watch). A seat nobody has taken yet needs a name (or a
        profile, whose name it takes and to which it is tied), and whoever takes it through its
        link gets a fresh token: the link it came by lapses."""
        if name is not None and not isinstance(name, str):
            raise TableError("bad-name", "\"name\" must be a string: the player's name")
        if not isinstance(pace, bool):
            raise TableError("bad-pace", "\"pace\" is true (wait for me between hands) or false")
        if token is None:
            return Change(Batch(self.id), lambda: self._welcome(client, None))  # a watcher is not waited for
        seat = self.seat_of_token(token)
        if seat is None:
            raise TableError("bad-token", "this link does not give a seat at this table", 403,
                             args={"variant": "link"})
        row = self.seats[seat].row
        if row.claimed:
            return Change(Batch(self.id), lambda: self._welcome(client, seat, None, pace))
        self._writable()  # before asking for a name: a damaged table's free seat cannot be taken
        if name is None and player is None:
            raise TableError("name-required", "this seat is free: give your name to take it")
        self._one_seat_each(player, browser)
        taken_as = player.name if player else bare_name(self.store, name)
        fresh = dataclasses.replace(row, name=taken_as, claimed=True, token=secrets.token_urlsafe(18),
                                    player=player.id if player else "", client=browser)

        def taken() -> None:
            log.info("table %s: seat %d taken by %s", self.id, seat, fresh.name)
            self._welcome(client, seat, fresh.token, pace)
        return self._seat_change(fresh, taken)

    def _welcome(self, client: Client, seat: int | None, token: str | None = None,
                 pace: bool = False) -> None:
        client.seat = seat
        if seat is not None:
            self.seats[seat].connected += 1
            if pace:
                self.pacers.append(client)
        self.clients.append(client)
        welcome = {"type": "welcome", "you": seat, "levels": levels(), "default_level": default_level(),
                   "table": self.meta()}
        if token is not None:
            welcome["token"] = token  # the seat's fresh token: from now on the only one that opens it
        welcome["creator"] = self.is_creator(client)
        self.send(client, welcome)
        if self.is_creator(client):
            self.send(client, self.invites())
        self.send(client, self.sheet_event())
        self.send(client, self.chat.log_event())
        if seat is not None:
            self.send_rematch_link(client)
        self.broadcast()

    def detach(self, client: Client) -> None:
        if client in self.pacers:
            self.pacers.remove(client)
        if client in self.clients:
            self.clients.remove(client)
            if client.seat is not None:
                self.seats[client.seat].connected -= 1
            self.broadcast()

    def join(self, name: object, player: PlayerRow | None = None, browser: str = "") -> tuple[int, str]:
        """Give the first free open seat to ``name`` (from the lobby): a fresh token, so old links lapse."""
        change, seat, token = self.plan_join(name, player, browser)
        self.run(change)
        return seat, token

    def plan_join(self, name: object, player: PlayerRow | None = None,
                  browser: str = "") -> tuple[Change, int, str]:
        clean = player.name if player is not None else bare_name(self.store, name)
        self._writable()
        self._one_seat_each(player, browser)
        for s in self.seats:
            if self.joinable(s):
                fresh = dataclasses.replace(s.row, name=clean, claimed=True, token=secrets.token_urlsafe(18),
                                            player=player.id if player else "", client=browser)

                def joined(seat: int = s.row.seat) -> None:
                    log.info("table %s: seat %d joined from the lobby by %s", self.id, seat, clean)
                    self.broadcast()
                return self._seat_change(fresh, joined), fresh.seat, fresh.token
        if any(s.free for s in self.seats):
            raise TableError("invite-only", "the free seats of this table are kept for invited friends: "
                             "only a seat's own link opens it", 403)
        raise TableError("no-free-seat", "every seat at this table is taken", 409)

    def joinable(self, s: Seat) -> bool:
        """Whether anyone may take seat ``s`` from the lobby: a free open seat, not the creator's (one
        created without a name waits for its creator's link, else whoever took it would be the creator)."""
        return s.free and s.row.access == "open" and s.row.seat != self.creator

    def _one_seat_each(self, player: PlayerRow | None, browser: str = "") -> None:
        """One person, one seat of a table: a profile, and a browser (its client id's digest), take at most
        one, so that nobody sees two hands and what is kept about a player (ratings) stays theirs alone."""
        for s in self.seats:
            r = s.row
            if (player is not None and r.player == player.id) or (browser and r.client == browser):
                raise TableError("already-seated", f"you already hold seat {r.seat + 1} ({r.name}) at this "
                                 "table: open it from your tables", 409,
                                 args={"variant": "seat", "seat": r.seat + 1, "name": r.name})

    def plan_tie(self, token: object, player: PlayerRow) -> tuple[Change, int]:
        """A guest ties the seat they hold (its token) to their profile, made since they sat down: the
        seat then goes by the profile's name, and the game is rated and listed for it."""
        seat = self.seat_of_token(token)
        if seat is None:
            raise TableError("bad-token", "this token gives no seat at this table", 403,
                             args={"variant": "tie"})
        self._writable()
        row = self.seats[seat].row
        if not row.claimed:
            raise TableError("not-taken", f"seat {seat + 1} has not been taken yet: take it first", 409,
                             args={"variant": "tie", "seat": seat + 1})
        if row.player == player.id:
            return Change(Batch(self.id), lambda: None), seat  # already so: asked twice
        if row.player:
            raise TableError("seat-tied", f"seat {seat + 1} is already tied to a profile", 409,
                             args={"seat": seat + 1})
        if self.state.is_over:
            raise TableError("game-over", "this game is over: its ratings are settled, so a seat can no "
                             "longer be tied to a profile", 409, args={"variant": "tie"})
        self._one_seat_each(player)
        tied = dataclasses.replace(row, name=player.name, player=player.id)

        def done() -> None:
            log.info("table %s: seat %d tied to a profile (%s)", self.id, seat, player.name)
            self.broadcast()
        return self._seat_change(tied, done), seat

    # -- the creator's invitations ------------------------------------------------------

    def is_creator(self, client: Client) -> bool:
        return client.seat is not None and client.seat == self.creator

    def invites(self) -> dict[str, Any]:
        """The seats' links as the creator sees them: a free seat's link, who took the others."""
        seats = []
        for s in self.seats:
            if not s.row.token or s.row.seat == self.creator:  # a computer's seat from the start has no link
                continue
            # Still free while a computer holds it for whoever comes (a seat handed over before anyone came).
            link = f"/table/{self.id}#t={s.row.token}" if not s.row.claimed else None
            seats.append({"seat": s.row.seat, "access": s.row.access, "claimed": s.row.claimed,
                          "name": s.row.name if s.row.claimed else None, "link": link})
        return {"type": "invites", "seats": seats}

    def tell_creator(self) -> None:
        """Send the invitations, as they are now, to the creator's pages only (they carry links)."""
        if self.creator < 0:
            return
        text = json.dumps(self.invites(), ensure_ascii=False)
        for client in list(self.clients):
            if self.is_creator(client):
                client.send_text(text)

    def plan_invites(self, client: Client) -> Change:
        """The creator asks for the links; anyone else is refused (a link opens a seat)."""
        self._creator_only(client)
        return Change(Batch(self.id), lambda: self.send(client, self.invites()))

    def plan_reissue(self, client: Client, target: object) -> Change:
        """The creator gets a new link for a free seat: the old one lapses at once."""
        self._creator_only(client)
        if not isinstance(target, int) or isinstance(target, bool) or not 0 <= target < len(self.seats):
            raise TableError("bad-seat", "no such seat")
        self._writable()
        seat = self.seats[target]
        if seat.row.claimed or not seat.row.token or target == self.creator:
            raise TableError("seat-taken", "only the link of a free seat can be made again", 409)
        fresh = dataclasses.replace(seat.row, token=secrets.token_urlsafe(18))

        def reissued() -> None:
            log.info("table %s: seat %d has a new link; the old one lapsed", self.id, target)
        return self._seat_change(fresh, reissued)

    def _creator_only(self, client: Client, what: str = "invites") -> None:
        if self.is_creator(client):
            return
        if what == "start":
            raise TableError("not-creator", "only whoever created this table starts its game without the "
                             "invited people", 403, args={"variant": "start"})
        raise TableError("not-creator", "only whoever created this table manages its invitations", 403)

    # -- the rematch -------------------------------------------------------------------

    def people(self) -> list[int]:
        """The seats people have taken (also those a computer plays for them now): they answer a rematch."""
        return [s.row.seat for s in self.seats if s.row.token and s.row.claimed]

    def plan_rematch(self, client: Client, op: object, lobby: Lobby) -> Change:
        """A person offers a new game, accepts, declines or withdraws the offer; stored as a
        ``rematch`` event first. The last acceptance stores the new table in the same transaction."""
        self._writable()
        people = self.people()
        step = self.rematch.check(op, client.seat, people, self.state.is_over)
        data = {"op": step, "seat": client.seat}
        after = self.rematch.after(data)
        events: list[tuple[str, dict[str, Any]]] = [("rematch", data)]
        new: Table | None = None
        batch = Batch(self.id, events=events)
        if after.complete(people):  # computers accept at once: the last person's yes makes the table
            new, created = self._plan_rematch_table(lobby)
            events.append(("rematch", {"op": "made", "table": new.id}))
            after.apply(events[-1][1])
            batch.also.append(created)

        def commit() -> None:
            self.rematch = after
            self.active_at = time.time()
            if new is not None:
                lobby.add(new)
                log.info("table %s: rematch accepted by all, new table %s", self.id, new.id)
                for other in list(self.clients):
                    self.send_rematch_link(other)
            self.broadcast()
        return Change(batch, commit)

    def _plan_rematch_table(self, lobby: Lobby) -> tuple[Table, Batch]:
        """The new game: same rules, options, seats, chat rights and clock; each person in the same
        seat with a new token, tied to the same profile; the first declarer one seat further on."""
        rows = []
        for s in self.seats:
            r = s.row
            if r.token:
                rows.append(SeatRow(r.seat, r.name if r.claimed else f"Seat {r.seat + 1}",
                                    secrets.token_urlsafe(18), "human", "", r.claimed, r.player, r.access,
                                    r.client))
            else:
                rows.append(SeatRow(r.seat, r.name, "", "bot", r.level, True))
        seats = [{"you": r.seat == self.creator} for r in rows]
        setup = Setup(self.game, seats, chat=self.chat.rights, turn_clock=self.turn_clock,
                      private=self.private)
        first = (self.state.first_declarer + 1) % self.game.players
        state = State(self.game, seed=secrets.randbits(63), first_declarer=first)
        return Table.plan_seated(self.store, state, rows, setup, {"rematch_of": self.id},
                                 idle_seconds=lobby.idle_seconds)

    def rematch_link(self, seat: int) -> str | None:
        """A person's link to their seat at the rematch once it is made (None: no rematch yet)."""
        if self.rematch.table is None or seat not in self.people():
            return None
        rows = self.store.load_seats(self.rematch.table)
        token = rows[seat].token if seat < len(rows) else ""
        return f"/table/{self.rematch.table}#t={token}" if token else None

    def send_rematch_link(self, client: Client) -> None:
        """Each person's own new link, to their pages only: a token never reaches anyone else."""
        link = None if client.seat is None else self.rematch_link(client.seat)
        if link is not None:
            self.send(client, {"type": "rematch-link", "table": self.rematch.table, "link": link})

    # -- chat ------------------------------------------------------------------------

    def plan_chat(self, client: Client, text: object) -> Change:
        """A message for everyone at the table (players, and watchers when the table lets them),
        stored as a ``chat`` event before it is sent to anyone."""
        seat = client.seat
        self._writable()
        name = self.seats[seat].row.name if seat is not None else ""
        message = self.chat.message(seat, name, text, time.time())
        sender, now = f"seat {seat}" if seat is not None else f"watcher {id(client)}", self.clock()
        self.chat.limit.check(sender, now)

        def said() -> None:
            self.chat.limit.note(sender, now)
            self.chat.messages.append(message)
            self.chat.stored += 1
            self.active_at = time.time()
            out = json.dumps({"type": "chat", "message": message}, ensure_ascii=False)
            for other in list(self.clients):
                other.send_text(out)
        return Change(Batch(self.id, events=[("chat", message)]), said)

    # -- playing -------------------------------------------------------------------

    def act(self, client: Client, text: object) -> None:
        """A person's action, checked by the engine; TableError (state unchanged) when refused."""
        self.run(self.plan_act(client, text))

    def plan_act(self, client: Client, text: object) -> Change:
        seat = client.seat
        if seat is None:
            raise TableError("not-seated", "you are watching this table: only players act",
                             args={"variant": "act"})
        if not isinstance(text, str) or len(text) > 40:
            raise TableError("bad-action", "an action is a short text such as \"QS\" or \"no-queens\"")
        self._writable()
        if self.state.is_over:
            raise TableError("game-over", "the game is over")
        if self.seats[seat].is_bot:
            raise TableError("seat-is-bot", "a computer plays your seat now: take it back first")
        if self.state.current != seat:
            who = self.state.current
            raise TableError("not-your-turn", f"it is not your turn: {self.seats[who].row.name} is to act"
                             if who >= 0 else "it is not your turn",
                             args={"name": self.seats[who].row.name} if who >= 0 else {"variant": "nobody"})
        try:
            action = self.game.parse_action(text)
        except ValueError as e:
            raise TableError("bad-action", f"'{text}' is not an action: {e}") from e
        try:
            return self._plan_apply(seat, action)
        except IllegalActionError as e:
            # Told to the player who tried it, other seats by name (the engine's text counts from 0).
            raise TableError(f"illegal:{e.rule or 'illegal'}", say(e.said, self.names(), by_name=True),
                             args=self._illegal_args(seat, action, e.rule)) from e

    def _illegal_args(self, seat: int, action: int, rule: str | None) -> dict[str, Any]:
        """What a refused action's message names, as values a page puts into its own words.

        ``contract`` is an id and ``led``/``trump`` suit letters: the page says them in its language;
        an action out of its phase names the phase (``variant``: what it is time to do).
        """
        s, g = self.state, self.game
        args: dict[str, Any] = {"ruleset": g.ruleset, "declarer": self.seats[s.declarer].row.name}
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

    def _plan_apply(self, seat: int, action: int, by: str = "") -> Change:
        """An action applied to a copy of the game (raises before anything is stored or sent);
        ``by``: the level of a computer standing in for the person of ``seat``, who did not decide it."""
        state = self.state.copy()
        hand_no = state.hand_no
        stood_in = stand_in_at(state, by)
        decisions = {k: dict(v) for k, v in self.decisions.items()}
        if len(state.legal_actions()) > 1:  # a choice, not a forced pass or a single legal card
            note_decision(decisions, seat, by)
        state.apply(action)
        data: dict[str, Any] = {"seat": seat, "action": action}
        if by:
            data["by"] = by
        batch = Batch(self.id, events=[("act", data)])
        deal_into(state, batch)
        batch.over = state.is_over  # only an action ends the game
        if batch.over:  # rated with the action that ends it: stored together, or neither
            batch.result = game_result(self.game, state, [s.row for s in self.seats], decisions,
                                       seed_chosen=self.seed_chosen)

        ended = state.hand_no != hand_no

        def commit() -> None:
            now = self.clock()
            if ended:
                self.ready = set()
                self.hand_ended_at = now
            elif not self.seats[seat].is_bot:
                self.ready.add(seat)  # a person who acts in the new hand is ready for it
            self.state = state
            self.decisions = decisions
            if stood_in is not None:
                self.stand_ins.setdefault(stood_in[0], {})[stood_in[1]] = by
            self.moves += 1
            self.last = {"seat": seat, "action": self.game.action_str(action), "hand_no": hand_no}
            self.turn_since = now
            self.pause_held = ended and bool(self.waiting())
            self.active_at = time.time()
            self.broadcast(sheet=state.hand_no != hand_no or state.is_over)
        return Change(batch, commit)

    # -- the pause between hands ----------------------------------------------------

    def pause_left(self) -> float:
        """Seconds the computers may still wait for the people after the last hand (0: none)."""
        if self.hand_ended_at is None or self.state.is_over:
            return 0.0
        return max(0.0, self.idle_seconds - (self.clock() - self.hand_ended_at))

    def waiting(self) -> list[int]:
        """The people the computers wait for before the next hand: seated, connected with a page
        that asked for the pause (hello ``pace``), not ready yet, and for at most ``idle_seconds``."""
        if self.pause_left() <= 0:
            return []
        seats = {c.seat for c in self.pacers if c.seat is not None and not self.seats[c.seat].is_bot}
        return sorted(seats - self.ready)

    def plan_ready(self, client: Client, hand: object) -> Change:
        """A person says they are ready for hand ``hand`` (counted from 0): the computers may go on."""
        if client.seat is None:
            raise TableError("not-seated", "you are watching this table: only players say they are ready",
                             args={"variant": "ready"})
        if not isinstance(hand, int) or isinstance(hand, bool):
            raise TableError("bad-hand", "\"hand\" is the number of the hand you are ready for, from 0")
        if hand != self.state.hand_no:
            raise TableError("not-this-hand",
                             f"the table is at hand {self.state.hand_no + 1}, not {hand + 1}",
                             args={"hand": self.state.hand_no + 1})
        seat = client.seat

        def ready() -> None:
            if seat not in self.ready:
                self.ready.add(seat)
                if self.pause_held and not self.waiting():  # the turn clock starts as the pause ends
                    self.turn_since, self.pause_held = self.clock(), False
                self.broadcast()
        return Change(Batch(self.id), ready)

    def auto_seat(self) -> int | None:
        """The seat that acts without a person now: a computer, or a player whose only move is to pass."""
        s = self.state
        if s.current < 0 or self.damaged is not None or self.waiting():
            return None
        if self.seats[s.current].is_bot:
            return s.current
        if s.phase == Phase.PLAY and s.legal_actions() == [PASS]:
            return s.current
        return None

    def auto_move(self) -> AutoMove | None:
        """The automatic action due now (see :meth:`auto_seat`), to be decided off the event loop."""
        seat = self.auto_seat()
        if seat is None:
            return None
        bot = self.seats[seat].bot if self.seats[seat].is_bot else None
        return AutoMove(seat, self.moves, self.state.observe(seat), bot)

    def plan_auto(self, move: AutoMove, action: int) -> Change | None:
        """A decided automatic action, unless the table has moved on since it was asked for (None)."""
        if self.moves != move.moves or self.auto_seat() != move.seat:
            return None
        row = self.seats[move.seat].row
        # A seat with a token is a person's: a computer playing it now stands in for them.
        by = row.level if move.bot is not None and row.token else ""
        return self._plan_apply(move.seat, action, by)

    def auto_apply(self, move: AutoMove, action: int) -> bool:
        """Store and apply a decided automatic action (see :meth:`plan_auto`); False if it was stale."""
        change = self.plan_auto(move, action)
        if change is None:
            return False
        self.run(change)
        return True

    def auto_step(self) -> bool:
        """Take one automatic action at once; False when nothing is automatic now."""
        move = self.auto_move()
        return move is not None and self.auto_apply(move, move.decide())

    # -- the turn clock -------------------------------------------------------------

    def clock_left(self) -> float | None:
        """Seconds left on the turn clock of the person to act (None: no clock is running now)."""
        s = self.state
        if self.turn_clock is None or s.current < 0 or self.damaged is not None or self.waiting():
            return None
        if self.auto_seat() is not None or not self.seats[s.current].row.claimed:
            return None
        start = self.turn_since
        if self.pause_held and self.hand_ended_at is not None and self.hand_ended_at >= start:
            start = self.hand_ended_at + self.idle_seconds  # the pause ran out by itself
        return self.turn_clock.seconds - (self.clock() - start)

    def plan_time_out(self, moves: int) -> Change | None:
        """When the person to act has used up the turn clock, a computer takes the seat (None: not
        now, or the table moved on since ``moves``)."""
        left = self.clock_left()
        if self.turn_clock is None or moves != self.moves or left is None or left > 0.05:
            return None
        seat, level = self.seats[self.state.current], self.turn_clock.level

        def timed_out() -> None:
            self._make_bots()
            log.info("table %s: seat %d ran out of time; computer %s plays it", self.id, seat.row.seat, level)
            self.broadcast()
        return self._seat_change(dataclasses.replace(seat.row, kind="bot", level=level), timed_out)

    def takeover(self, client: Client, target: object, level: object = None) -> None:
        self.run(self.plan_takeover(client, target, level))

    def plan_takeover(self, client: Client, target: object, level: object = None) -> Change:
        """Hand an idle person's seat to a computer player (asked by another player at the table)."""
        if client.seat is None:
            raise TableError("not-seated", "only the players at the table may hand a seat to the computer",
                             args={"variant": "handover"})
        if not isinstance(target, int) or isinstance(target, bool) or not 0 <= target < len(self.seats):
            raise TableError("bad-seat", "no such seat")
        if target == client.seat:
            raise TableError("bad-seat", "you cannot hand your own seat to the computer",
                             args={"variant": "own"})
        lvl = default_level() if level is None else level
        if not isinstance(lvl, str) or lvl not in levels():
            raise TableError("bad-level", f"unknown computer level {str(lvl)[:40]!r}")
        self._writable()
        seat = self.seats[target]
        if seat.is_bot:
            raise TableError("not-idle", "a computer already plays that seat", args={"variant": "bot"})
        if seat.free and seat.row.access == "friend":
            raise TableError("not-taken", f"seat {target + 1} is kept for an invited friend who has not "
                             "taken it yet: nobody can hand it to a computer (the table's creator may start "
                             "the game with computers in the seats nobody took)", 409,
                             args={"seat": target + 1})
        waited = self.clock() - self.turn_since
        if seat.row.claimed and (self.state.current != target or waited < self.idle_seconds):
            raise TableError("not-idle", f"{seat.row.name} is not idle: a seat can be handed over "
                             f"after {self.idle_seconds:g} s waiting on its turn",
                             args={"name": seat.row.name, "seconds": f"{self.idle_seconds:g}"})
        by = client.seat

        def handed() -> None:
            self._make_bots()
            log.info("table %s: seat %d handed to computer %s by seat %d", self.id, target, lvl, by)
            self.broadcast()
        return self._seat_change(dataclasses.replace(seat.row, kind="bot", level=lvl), handed)

    def reclaim(self, client: Client) -> None:
        self.run(self.plan_reclaim(client))

    def plan_reclaim(self, client: Client) -> Change:
        """A player takes back from the computer the seat that was handed over."""
        if client.seat is None:
            raise TableError("not-seated", "you are watching this table", args={"variant": "act"})
        self._writable()
        seat = self.seats[client.seat]
        if not seat.is_bot:
            raise TableError("not-bot", "you already play your seat")

        def taken_back() -> None:
            seat.bot = None
            self.turn_since = self.clock()
            log.info("table %s: seat %d taken back by its player", self.id, seat.row.seat)
            self.broadcast()
        return self._seat_change(dataclasses.replace(seat.row, kind="human"), taken_back)

    def tokens(self) -> list[tuple[int, str]]:
        """The invitation tokens of the seats that people play (for the table's creator)."""
        return [(s.row.seat, s.row.token) for s in self.seats if s.row.token]

    # -- the record ----------------------------------------------------------------

    def public_record(self, seat: int | None = None) -> dict[str, Any]:
        """The game record (RECORD.md) as far as everyone at the table has seen it.

        Once the game is over: the whole record, every deal and the seed. While it runs: the
        finished hands without their ``deal`` (nobody saw the others' hands; the cards played, the
        contracts, doubles and scores are public), no hand in play and no seed. A seated reader
        (``seat``) also gets each finished hand's cards it was dealt, as ``own_deal``.
        """
        if self.damaged is not None and self.damaged["kind"] == "setup":
            raise TableError("damaged", "this table has no record to download: its stored setup cannot be "
                             "read, so its game cannot be rebuilt", 409, args={"variant": "record"})
        doc = to_record(self.state, self.names(), public=True)
        if self.filled is not None:  # the creator started without some invited people: said in the record
            doc["start_with_computers"] = {k: self.filled[k] for k in ("seats", "level", "by")}
        for i, hand in enumerate(doc["hands"]):
            if self.stand_ins.get(i):
                hand["stand_in"] = [[j, level] for j, level in sorted(self.stand_ins[i].items())]
        if self.state.is_over:
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
        free = sum(1 for s in self.seats if self.joinable(s))
        invited = sum(1 for s in self.seats if s.free and s.row.access == "friend")
        return {"id": self.id, "ruleset": self.game.ruleset, "players": self.game.players,
                "options": sorted(self.game.options), "names": self.names(),
                "holders": [s.holder for s in self.seats],
                "stand_ins": [s.stand_in for s in self.seats], "free_seats": free,
                "invited_seats": invited, "hand_no": self.state.hand_no, "num_hands": self.game.num_hands,
                "over": self.state.is_over, "watchers": sum(1 for c in self.clients if c.seat is None),
                "damaged": self.damaged, "moved": round(self.active_at, 1), "private": self.private}

    def standing(self, seat: int) -> str:
        """Where a seat's player stands: ``your-turn``, ``waiting``, ``finished``, ``damaged``."""
        if self.damaged is not None:
            return "damaged"
        if self.state.is_over:
            return "finished"
        return "your-turn" if self.state.current == seat and not self.seats[seat].is_bot else "waiting"

    def yours(self, seat: int) -> dict[str, Any]:
        """A seat's entry in its player's own list of tables: the table, its state, the way back."""
        token = self.seats[seat].row.token
        out = {**self.summary(), "seat": seat, "state": self.standing(seat),
               "link": f"/table/{self.id}#t={token}", "token": token}
        rematch = self.rematch_link(seat)
        if rematch is not None:
            out["rematch"] = rematch  # the way to this seat's place in the new game
        # When it began, and the game it continues: a game and its rematch told apart in the list.
        out["started"], of = self.store.origin(self.id)
        if of is not None:
            out["rematch_of"] = {"id": of, "started": self.store.origin(of)[0]}
        return out

    @property
    def computers_only(self) -> bool:
        return all(s.row.kind == "bot" and not s.row.token for s in self.seats)


SETUP_ERRORS = (ValueError, KeyError, TypeError, IndexError, AttributeError, RecursionError, sqlite3.Error)


def read_setup(store: TableStore, table_id: str) -> tuple[Game, State, list[SeatRow]] | None:
    """A stored table's game, its state before any event, and its seats (None: no such table).

    Raises one of ``SETUP_ERRORS`` when they cannot be read or do not fit together.
    """
    setup = store.load_setup(table_id)
    if setup is None:
        return None
    game = Game(setup["ruleset"], setup["players"], frozenset(setup["options"]))
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


StandIns = dict[int, dict[int, str]]  # hand -> index of the card in its actions -> the computer's level
Decisions = dict[int, dict[str, int]]  # seat -> who decided ("" its person, else a computer's level) -> count


def note_decision(decisions: Decisions, seat: int, by: str) -> None:
    """Count one decision of ``seat`` (an action chosen among two or more legal ones) for whoever made it:
    ``by`` is "" for the seat's own player, else the level of the computer standing in."""
    per = decisions.setdefault(seat, {})
    per[by] = per.get(by, 0) + 1


def awaited(rows: list[SeatRow]) -> list[int]:
    """The invited seats (a friend's, taken with its link only) nobody has taken yet: the game waits."""
    return [r.seat for r in rows if r.kind == "human" and r.access == "friend" and not r.claimed]


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
        if ev.kind in ("chat", "rematch", "start"):  # talk, a new game's offer, seats filled: not the game
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


@dataclass(frozen=True)
class Limits:
    """How long a table stays in the lobby's list once nothing happens at it any more."""

    listed_after_over: float = 600.0  # seconds a finished table stays listed
    abandoned_after: float = 3600.0  # seconds without a change after which a computers' table is abandoned
    quiet_after: float = 86400.0  # the same for a table with a person at it: they may come back tomorrow


class Lobby:
    """Every table of one server, backed by one store."""

    def __init__(self, store: TableStore, *, idle_seconds: float = 60.0, limits: Limits | None = None,
                 wall: Callable[[], float] = time.time) -> None:
        self.store = store
        self.idle_seconds = idle_seconds
        self.limits = limits or Limits()
        self.wall = wall
        self.tables: dict[str, Table] = {}

    def load_all(self) -> list[Table]:
        """Rebuild, at start-up, every table the lobby lists or counts; check the others' setups.

        The unfinished tables and the finished ones still listed are replayed, so that any damage
        in them is known (and logged) now. A table finished longer ago is only checked for an
        unreadable setup here, which is cheap; its events are replayed when it is first opened.
        """
        loaded, unread, later = [], 0, 0
        since = self.wall() - self.limits.listed_after_over
        for entry in self.store.table_index():
            if entry.over and entry.last_change < since:
                later += 1
                problem = setup_problem(self.store, entry.id)
                if problem is not None:
                    unread += 1
                    log.error("table %s is damaged: its stored setup cannot be read (%s); it is kept, "
                              "but cannot be played on and has no record", entry.id, problem)
                continue
            table = self._load(entry.id)
            if table is not None:
                loaded.append(table)
        damaged = sum(1 for t in loaded if t.damaged is not None)
        log.info("%s restored from %s (%d damaged); %s finished longer ago checked (%d with an unreadable "
                 "setup), each rebuilt when first opened", plural(len(loaded), "table"), self.store.path,
                 damaged, plural(later, "table"), unread)
        return loaded

    def _load(self, table_id: str) -> Table | None:
        """One stored table, rebuilt (damaged, if its history or its setup cannot be replayed)."""
        table = Table.load(self.store, table_id, idle_seconds=self.idle_seconds)
        if table is not None:
            self.tables[table_id] = table
        return table

    def plan(self, setup: Setup) -> tuple[Table, Batch]:
        """A new table and its batch: :meth:`add` it once the batch is stored."""
        return Table.plan(self.store, setup, idle_seconds=self.idle_seconds)

    def add(self, table: Table) -> Table:
        self.tables[table.id] = table
        table.created()
        return table

    def create(self, setup: Setup) -> Table:
        table = Table.create(self.store, setup, idle_seconds=self.idle_seconds)
        self.tables[table.id] = table
        return table

    def get(self, table_id: str) -> Table:
        table = None
        if valid_id(table_id):
            table = self.tables.get(table_id) or self._load(table_id)
        if table is None:
            raise TableError("no-table", f"there is no table {table_id[:40]!r}", 404)
        return table

    def abandoned(self, table: Table) -> bool:
        after = self.limits.abandoned_after if table.computers_only else self.limits.quiet_after
        return not table.state.is_over and self.wall() - table.active_at >= after

    def is_open(self, table: Table) -> bool:
        """Unfinished, still played (not abandoned) and sound: counts against the open-table limits."""
        return not table.state.is_over and table.damaged is None and not self.abandoned(table)

    def listed(self, table: Table) -> bool:
        if table.private:
            return False
        if table.state.is_over:
            return self.wall() - table.active_at < self.limits.listed_after_over
        return not self.abandoned(table)

    def listing(self, limit: int = 50) -> list[dict[str, Any]]:
        """The tables the lobby shows, newest first: open ones, and finished ones for a while."""
        shown = [t for t in self.tables.values() if self.listed(t)]
        return [t.summary() for t in reversed(shown[-limit:])]

    def yours(self, player: PlayerRow | None, held: object, limit: int = 50) -> list[dict[str, Any]]:
        """Every table where a profile, or the seat tokens a browser holds, has a seat: newest move first.

        ``held`` is the browser's list of ``{"table", "token"}``; one that opens no seat is left
        out (it lapsed, or never was), so a guessed token shows nothing.
        """
        found: dict[tuple[str, int], Table] = {}
        ids = self.store.tables_of_player(player.id)[-limit:] if player is not None else []
        for table_id in ids:
            table = self.get(table_id)
            for s in table.seats:
                if s.row.player == player.id:  # type: ignore[union-attr]
                    found[(table.id, s.row.seat)] = table
        for table_id, token in _held_seats(held, limit):
            try:
                table = self.get(table_id)
            except TableError:
                continue
            seat = table.seat_of_token(token)
            if seat is not None:
                found[(table.id, seat)] = table
        out = [t.yours(seat) for (_, seat), t in found.items()]
        return sorted(out, key=lambda x: -x["moved"])[:limit]

    def open_tables(self, computers_only: bool = False) -> int:
        return sum(1 for t in self.tables.values()
                   if self.is_open(t) and (t.computers_only or not computers_only))


def _held_seats(held: object, limit: int) -> list[tuple[str, str]]:
    """The (table id, token) pairs of a browser's list; TableError ``bad-held`` if it is not one."""
    if held is None:
        return []
    if not isinstance(held, list) or len(held) > limit:
        raise TableError("bad-held", f"\"seats\" is a list of at most {limit} {{\"table\", \"token\"}} "
                         "objects", args={"n": limit})
    out = []
    for item in held:
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in ("table", "token")):
            raise TableError("bad-held", "each held seat is {\"table\": ID, \"token\": SECRET}",
                             args={"n": limit})
        out.append((str(item["table"])[:40], str(item["token"])[:60]))
    return out
