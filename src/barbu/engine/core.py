"""The fields of a game of Barbu in progress, how a hand starts, and what the rules ask of them.

:class:`StateCore` is the first layer of :class:`~barbu.engine.state.State`: it holds every
field of the state and answers the questions the other layers and the players ask (whose
contracts are left, who may double whom, which cards may be played) without changing anything.
The layers above it (:mod:`~barbu.engine.scoring`, :mod:`~barbu.engine.cardplay`,
:mod:`~barbu.engine.bidding`) change the fields as actions are applied.
"""

from __future__ import annotations

import random

from barbu.engine import doubling
from barbu.engine.cards import KH_MASK
from barbu.engine.contracts import Contract, Kind
from barbu.engine.game import Game
from barbu.engine.hand import HandRecord, Phase
from barbu.engine.tricks import legal_cards

CHANCE = -1  # State.current while the cards are being dealt
TERMINAL = -2  # State.current once the game is over

# Plain names for the hot paths: reading a member off an Enum class costs about 90 ns,
# and the state machine compares phases and kinds on every action.
DEAL_P, CHOOSE_P, TRUMP_P, RANK_P, DOUBLE_P, REDOUBLE_P, PLAY_P, OVER_P = tuple(Phase)
TRICKS_K, DOMINOES_K, REUSSITE_K = Kind.TRICKS, Kind.DOMINOES, Kind.REUSSITE

SLOTS = (
    "game", "seed", "first_declarer", "hand_no", "phase", "declarer", "current", "used",
    "dbl_count", "hands", "dealt", "set_aside", "contract_idx", "contract", "trump",
    "start_rank", "doubled", "redoubled", "turn_queue", "leader", "trick", "played",
    "captured", "tricks_won", "trick_no", "points", "lo", "hi", "frontier", "out_order",
    "ace_extra", "actions", "actors", "history", "totals", "redeals", "forced", "_undo",
)


class StateCore:
    """The fields of a game in progress and the rules' questions about them; see :class:`State`."""

    __slots__ = SLOTS

    # The game as a whole.
    game: Game
    seed: int  # deals (and the first declarer) derive from it
    first_declarer: int
    hand_no: int  # hands finished so far
    phase: Phase
    declarer: int  # family: the chooser
    current: int  # seat to act, or CHANCE / TERMINAL
    used: list[int]  # per seat, mask of contract indices already declared
    dbl_count: list[int]  # per seat, doubles of the current declarer in his block of 7
    history: list[HandRecord]  # finished hands
    totals: list[int]
    # The hand in progress.
    hands: list[int]  # per seat, mask of cards still held (hidden information)
    dealt: list[int]  # per seat, mask of the cards dealt
    set_aside: int  # family: cards left over by the deal, face up
    redeals: int  # family: deals redrawn for this hand so far
    contract_idx: int
    contract: Contract | None
    trump: int  # -1 without trumps
    start_rank: int  # Dominoes/Réussite starting rank, -1 until known
    doubled: list[int]  # doubled[a] has bit b when a doubled b
    redoubled: list[int]  # redoubled[a] has bit b when a redoubled b
    forced: int  # seats that must double the declarer in this hand (classic obligation)
    turn_queue: list[int]  # seats still to speak in the doubling round, next last
    leader: int  # seat that led the trick in progress
    trick: list[int]  # cards of the trick in progress, from the leader on
    played: int  # mask of every card played in this hand
    captured: list[int]  # per seat, mask of the cards in the tricks it took
    tricks_won: list[int]
    trick_no: int
    points: list[int]  # contract points so far (trick games)
    lo: list[int]  # Dominoes/Réussite: lowest rank of each suit's line, -1 while shut
    hi: list[int]  # ... and its highest rank
    frontier: int  # Dominoes/Réussite: mask of the cards that fit the layout now
    out_order: list[int]  # seats in the order they went out
    ace_extra: bool  # Réussite: the player to act has just placed an ace
    actions: list[int]  # play actions of this hand, in order (the record's "actions")
    actors: list[int]  # the seat that took each of them
    _undo: list[tuple[object, ...]]  # snapshots for pop()

    def __init__(self, game: Game, seed: int | None = None,
                 first_declarer: int | None = None) -> None:
        self.game = game
        self.seed = seed if seed is not None else random.randrange(2**63)
        if first_declarer is None:
            first_declarer = random.Random(f"{self.seed}:declarer").randrange(game.players)
        if not 0 <= first_declarer < game.players:
            raise ValueError(f"no seat {first_declarer} at this table")
        n = game.players
        self.first_declarer = first_declarer
        self.hand_no = 0
        self.used = [0] * n
        self.dbl_count = [0] * n
        self.history = []
        self.totals = [0] * n
        self._undo = []
        self._start_hand()

    def _start_hand(self) -> None:
        g = self.game
        n = g.players
        self.phase = DEAL_P
        self.declarer = g.declarer_of(self.first_declarer, self.hand_no)
        self.current = CHANCE
        self.hands = [0] * n
        self.dealt = [0] * n
        self.set_aside = 0
        self.contract_idx = -1
        self.contract = None
        self.trump = -1
        self.start_rank = -1
        self.doubled = [0] * n
        self.redoubled = [0] * n
        self.turn_queue = []
        self.leader = self.declarer
        self.trick = []
        self.played = 0
        self.captured = [0] * n
        self.tricks_won = [0] * n
        self.trick_no = 0
        self.points = [0] * n
        self.lo = [-1] * 4
        self.hi = [-1] * 4
        self.frontier = 0
        self.out_order = []
        self.ace_extra = False
        self.actions = []
        self.actors = []
        self.redeals = 0
        self.forced = 0

    # -- what the rules say now ---------------------------------------------

    @property
    def players(self) -> int:
        return self.game.players

    @property
    def is_over(self) -> bool:
        return self.phase == OVER_P

    @property
    def hand_in_progress(self) -> bool:
        return self.phase not in (DEAL_P, OVER_P)

    def available_contracts(self, seat: int) -> list[int]:
        """Indices of the contracts ``seat`` has not yet declared."""
        return [i for i in range(len(self.game.contracts)) if not self.used[seat] >> i & 1]

    def _contract_allowed(self, i: int) -> bool:
        if self.used[self.declarer] >> i & 1:
            return False
        c = self.game.contracts[i]
        return not (c.id == "king" and self.set_aside & KH_MASK)

    def hands_left_for_declarer(self) -> int:
        """Hands the current declarer still declares, this one included (classic)."""
        per = self.game.hands_per_declarer
        return per - self.hand_no % per

    def owed_doubles(self, seat: int) -> int:
        """Doubles ``seat`` still owes the current declarer (classic obligation)."""
        if not self.game.is_classic or seat == self.declarer:
            return 0
        return doubling.still_owed(self.dbl_count[seat])

    def double_is_compulsory(self, seat: int) -> bool:
        """Whether ``seat`` must double the declarer in this hand (RULES.md 1.4)."""
        return doubling.is_compulsory(self.owed_doubles(seat), self.hands_left_for_declarer())

    def _compulsory_target(self) -> int:
        """The declarer's bit when the player to act must double him, else 0."""
        return 1 << self.declarer if self.forced >> self.current & 1 else 0

    def double_targets(self, seat: int) -> int:
        """Seats that ``seat`` may double now, as a mask."""
        assert self.contract is not None
        return doubling.double_targets(seat, self.declarer, self.contract.positive, self.doubled)

    def redouble_targets(self, seat: int) -> int:
        """Seats that ``seat`` may redouble now: those who doubled him."""
        return doubling.redouble_targets(seat, self.doubled)

    def legal_mask(self) -> int:
        """The cards the player to act may play, as a mask (PLAY phase)."""
        if self.phase != PLAY_P:
            return 0
        c = self.contract
        assert c is not None
        hand = self.hands[self.current]
        if c.kind != TRICKS_K:
            return hand & self.frontier
        return legal_cards(c, hand, self.trick, self.trump, self.trick_no == 0)

    def winners(self) -> list[int]:
        """Seats with the best total once the game is over (highest classic, lowest family)."""
        if not self.is_over:
            return []
        best = max(self.totals) if self.game.is_classic else min(self.totals)
        return [s for s, t in enumerate(self.totals) if t == best]
