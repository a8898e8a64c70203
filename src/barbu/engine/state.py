"""The rules of Barbu as one state machine, from the first deal to the final score.

A :class:`State` walks through the phases of every hand — deal (a chance
step), contract, trump or starting rank, doubles, redoubles, play, score —
and at each point says whose turn it is and which actions are legal. An
illegal action raises :class:`~barbu.errors.IllegalActionError` naming the
rule, and leaves the state as it was.

>>> from barbu.engine.game import Game
>>> s = State(Game.classic(), seed=7)
>>> s.phase.name, s.current
('DEAL', -1)
>>> s.deal_random()
True
>>> s.phase.name, s.current == s.declarer
('CHOOSE', True)
>>> len(s.legal_actions())
7
"""

from __future__ import annotations

import operator
import random
from collections.abc import Sequence

from barbu.engine import doubling
from barbu.engine.cards import (
    ACE,
    FULL_DECK,
    KH_MASK,
    RANK_MASKS,
    SUIT_MASKS,
    SUIT_NAMES,
    card_pretty,
    card_str,
    cards_of,
    sorted_cards,
)
from barbu.engine.contracts import Contract, Kind, Lead
from barbu.engine.doubling import REQUIRED_DOUBLES, settle, split_doubles
from barbu.engine.errors import IllegalActionError, IllegalDealError, Phrase, Seat
from barbu.engine.game import CONTRACT, DOUBLE, PASS, RANK, REDOUBLE, TRUMP, Game, seats_of
from barbu.engine.hand import PHASE_TASK, HandRecord, Phase
from barbu.engine.layout import fitting_cards, next_holder, place_card
from barbu.engine.observation import Observation, observe
from barbu.engine.tricks import beats, lead_mask, legal_cards, trick_winner

# With the rules the state applies, split out of this module, still importable from here.
__all__ = [
    "CHANCE", "PHASE_TASK", "PLAY_P", "REQUIRED_DOUBLES", "TERMINAL", "HandRecord", "Phase", "State",
    "beats", "fitting_cards", "lead_mask", "legal_cards", "place_card", "settle", "split_doubles",
    "trick_winner",
]

# Plain names for the hot paths: reading a member off an Enum class costs about 90 ns,
# and the state machine compares phases, kinds and lead rules on every action.
_TRICKS, _DOMINOES, _REUSSITE = Kind.TRICKS, Kind.DOMINOES, Kind.REUSSITE
_NO_KH, _NO_HEART_FIRST = Lead.NO_KH_UNLESS_LAST_CARD, Lead.NO_HEART_FIRST_TRICK

CHANCE = -1  # State.current while the cards are being dealt
TERMINAL = -2  # State.current once the game is over


DEAL_P, CHOOSE_P, TRUMP_P, RANK_P, DOUBLE_P, REDOUBLE_P, PLAY_P, OVER_P = tuple(Phase)


_SLOTS = (
    "game", "seed", "first_declarer", "hand_no", "phase", "declarer", "current", "used",
    "dbl_count", "hands", "dealt", "set_aside", "contract_idx", "contract", "trump",
    "start_rank", "doubled", "redoubled", "turn_queue", "leader", "trick", "played",
    "captured", "tricks_won", "trick_no", "points", "lo", "hi", "frontier", "out_order",
    "ace_extra", "actions", "actors", "history", "totals", "redeals", "forced", "_undo",
)


class State:
    """A game of Barbu in progress; mutable, with cheap :meth:`copy` and :meth:`push`/:meth:`pop`."""

    __slots__ = _SLOTS

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

    # -- bookkeeping ---------------------------------------------------------

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

    def copy(self) -> State:
        """An independent copy (the undo stack is not copied).

        Written out field by field rather than looped over ``_SLOTS``: a copy is made for
        every candidate of every searched deal, and the same source must also compile with
        mypyc, whose classes are only made through ``__init__``.
        """
        new = State(self.game, self.seed, self.first_declarer)
        new.hand_no = self.hand_no
        new.phase = self.phase
        new.declarer = self.declarer
        new.current = self.current
        new.used = self.used[:]
        new.dbl_count = self.dbl_count[:]
        new.hands = self.hands[:]
        new.dealt = self.dealt[:]
        new.set_aside = self.set_aside
        new.contract_idx = self.contract_idx
        new.contract = self.contract
        new.trump = self.trump
        new.start_rank = self.start_rank
        new.doubled = self.doubled[:]
        new.redoubled = self.redoubled[:]
        new.turn_queue = self.turn_queue[:]
        new.leader = self.leader
        new.trick = self.trick[:]
        new.played = self.played
        new.captured = self.captured[:]
        new.tricks_won = self.tricks_won[:]
        new.trick_no = self.trick_no
        new.points = self.points[:]
        new.lo = self.lo[:]
        new.hi = self.hi[:]
        new.frontier = self.frontier
        new.out_order = self.out_order[:]
        new.ace_extra = self.ace_extra
        new.actions = self.actions[:]
        new.actors = self.actors[:]
        new.history = self.history[:]
        new.totals = self.totals[:]
        new.redeals = self.redeals
        new.forced = self.forced
        return new

    def push(self, action: int) -> None:
        """Apply ``action`` so that :meth:`pop` can take it back."""
        # A list comprehension: mypyc compiles a generator inside tuple() as one anyway.
        snapshot = tuple([list(v) if isinstance(v, list) else v
                          for v in [getattr(self, name) for name in _SLOTS[:-1]]])
        self.apply(action)
        self._undo.append(snapshot)

    def pop(self) -> None:
        """Take back the last action applied with :meth:`push`."""
        snapshot = self._undo.pop()
        for name, value in zip(_SLOTS[:-1], snapshot, strict=True):
            setattr(self, name, value)

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
        if c.kind != _TRICKS:
            return hand & self.frontier
        return legal_cards(c, hand, self.trick, self.trump, self.trick_no == 0)

    def legal_actions(self) -> list[int]:
        """The actions the player to act may take now (empty at a chance step or the end)."""
        phase = self.phase
        if phase == PLAY_P:
            out = cards_of(self.legal_mask())
            if self.contract is not None and self.contract.kind != _TRICKS and (
                    not out or self.ace_extra):
                out.append(PASS)
            return out
        if phase == CHOOSE_P:
            return [CONTRACT + i for i in range(len(self.game.contracts))
                    if self._contract_allowed(i)]
        if phase == TRUMP_P:
            return [TRUMP + s for s in range(4)]
        if phase == RANK_P:
            return [RANK + r for r in range(13)]
        if phase == DOUBLE_P:
            targets = self.double_targets(self.current)
            must = self._compulsory_target()
            return [DOUBLE + m for m in doubling.submasks(targets) if m & must == must]
        if phase == REDOUBLE_P:
            return [REDOUBLE + m for m in doubling.submasks(self.redouble_targets(self.current))]
        return []

    def is_legal(self, action: int) -> bool:
        phase = self.phase
        if phase == PLAY_P and 0 <= action < 52:
            return bool(self.legal_mask() >> action & 1)
        if phase == DOUBLE_P and DOUBLE <= action < REDOUBLE:
            mask = action - DOUBLE
            must = self._compulsory_target()
            return not mask & ~self.double_targets(self.current) and mask & must == must
        if phase == CHOOSE_P and CONTRACT <= action < CONTRACT + len(self.game.contracts):
            return self._contract_allowed(action - CONTRACT)
        return action in self.legal_actions()

    # -- chance: the deal ----------------------------------------------------

    def deal(self, hands: Sequence[int], set_aside: int = 0) -> bool:
        """Give each seat its cards. Returns False when the rules call for a redeal.

        Family: when the chooser's only challenge left is King of Hearts and K♥
        is set aside, the round is redealt; the state then stays at the deal.
        """
        if self.phase != DEAL_P:
            raise IllegalDealError(f"the cards are dealt only before a hand, not now ({self.phase.name})")
        g = self.game
        if len(hands) != g.players:
            raise IllegalDealError(f"the deal must have {g.players} hands, not {len(hands)}")
        seen = set_aside
        if set_aside.bit_count() != g.set_aside_count:
            raise IllegalDealError(
                f"{_cards(g.set_aside_count)} must be set aside with {g.players} players, "
                f"not {set_aside.bit_count()}")
        for seat, h in enumerate(hands):
            if h.bit_count() != g.hand_size:
                raise IllegalDealError(Phrase("{s} must be dealt {n}, not {k}", s=Seat(seat),
                                              n=_cards(g.hand_size), k=h.bit_count()))
            if seen & h:
                raise IllegalDealError(f"card {card_str((seen & h).bit_length() - 1)} is dealt twice")
            seen |= h
        if seen != g.deck:
            stray = seen & ~g.deck
            if stray:
                raise IllegalDealError(f"card {card_str(stray.bit_length() - 1)} is not in this game's deck")
            raise IllegalDealError(f"the deal does not hold all {_cards(g.deck.bit_count())}")
        return self._accept_deal(list(hands), set_aside)

    def _accept_deal(self, hands: list[int], set_aside: int) -> bool:
        """Take a deal known to partition the deck (checked by :meth:`deal`, or shuffled here).

        ``hands`` becomes the state's own list.
        """
        g = self.game
        if (not g.is_classic and set_aside & KH_MASK and g.has_contract("king")
                and self.available_contracts(self.declarer) == [g.contract_index("king")]):
            self.redeals += 1
            return False
        self.hands = hands
        self.dealt = hands[:]
        self.set_aside = set_aside
        self.phase = CHOOSE_P
        self.current = self.declarer
        return True

    def deal_random(self, rng: random.Random | None = None) -> bool:
        """Deal from ``rng``, or reproducibly from the game seed, the hand number and the redeal count."""
        if self.phase != DEAL_P:
            raise IllegalDealError(f"the cards are dealt only before a hand, not now ({self.phase.name})")
        if rng is None:
            rng = random.Random(f"{self.seed}:{self.hand_no}:{self.redeals}")
        # Sorting by independent uniform keys is a uniform shuffle, and faster than shuffle();
        # sorting the cards' bits lets each hand be a plain sum.
        rnd = rng.random
        deck = sorted(self.game.deck_bits, key=lambda _: rnd())
        n, size = self.game.players, self.game.hand_size
        hands = [sum(deck[i * size:(i + 1) * size]) for i in range(n)]
        set_aside = sum(deck[n * size:])
        return self._accept_deal(hands, set_aside)

    # -- applying actions ----------------------------------------------------

    def apply(self, action: int) -> None:
        """Apply one legal action of the player to act; raise IllegalActionError otherwise."""
        if not self.is_legal(action):
            raise self.illegal(action)
        self._do(action)

    def _do(self, action: int) -> None:
        """Apply an action already known to be legal."""
        phase = self.phase
        if phase == PLAY_P:
            self._play(action)
        elif phase == CHOOSE_P:
            self._choose(action - CONTRACT)
        elif phase == TRUMP_P:
            self.trump = action - TRUMP
            self._after_naming()
        elif phase == RANK_P:
            self.start_rank = action - RANK
            self._after_naming()
        elif phase == DOUBLE_P:
            self._double(action - DOUBLE)
        elif phase == REDOUBLE_P:
            self.redoubled[self.current] = action - REDOUBLE
            self._next_redoubler()

    def _choose(self, index: int) -> None:
        c = self.game.contracts[index]
        self.contract_idx = index
        self.contract = c
        if c.trumps:
            self.phase = TRUMP_P
        elif c.kind == _DOMINOES:
            self.phase = RANK_P
        else:
            self._after_naming()

    def _after_naming(self) -> None:
        if self.game.is_classic:
            n = self.game.players
            self.phase = DOUBLE_P
            # Nothing can be compulsory while the declarer has more hands left than anyone owes.
            early = self.hands_left_for_declarer() > doubling.REQUIRED_DOUBLES
            self.forced = 0 if early else sum(
                1 << s for s in range(n) if self.double_is_compulsory(s))
            self.turn_queue = doubling.doubling_turns(self.declarer, n)
            self.current = self.turn_queue.pop()
        else:
            self._start_play()

    def _double(self, mask: int) -> None:
        seat = self.current
        self.doubled[seat] = mask
        if mask >> self.declarer & 1:
            self.dbl_count[seat] += 1
        if self.turn_queue:
            self.current = self.turn_queue.pop()
            return
        if not any(self.doubled):
            self._start_play()
            return
        self.turn_queue = doubling.redoubling_turns(self.declarer, self.doubled)
        self.phase = REDOUBLE_P
        self._next_redoubler()

    def _next_redoubler(self) -> None:
        if self.turn_queue:
            self.current = self.turn_queue.pop()
        else:
            self._start_play()

    def _start_play(self) -> None:
        c = self.contract
        assert c is not None
        self.phase = PLAY_P
        self.current = self.declarer
        self.leader = self.declarer
        if c.kind == _DOMINOES:
            self.frontier = RANK_MASKS[self.start_rank]
        elif c.kind == _REUSSITE:
            self.frontier = FULL_DECK  # the chooser opens with any card
        elif c.ends_when_taken and not c.ends_when_taken & ~self.set_aside:
            self._finish_hand()  # nothing to score: every such card is set aside

    def _play(self, action: int) -> None:
        seat = self.current
        self.actions.append(action)
        self.actors.append(seat)
        c = self.contract
        assert c is not None
        if c.kind == _TRICKS:
            self.hands[seat] &= ~(1 << action)
            self.played |= 1 << action
            self.trick.append(action)
            if len(self.trick) == self.game.players:
                self._finish_trick(c)
            else:
                self.current = (seat + 1) % self.game.players
            return
        if action == PASS:
            self.ace_extra = False
            self._next_placer()
            return
        self.hands[seat] &= ~(1 << action)
        self.played |= 1 << action
        self._place(action)
        if not self.hands[seat]:
            self.out_order.append(seat)
            self.ace_extra = False
            needed = len(c.out_scores) if c.kind == _REUSSITE else self.game.players - 1
            if len(self.out_order) >= needed:
                self._finish_hand()
                return
        elif c.kind == _REUSSITE and action % 13 == ACE:
            self.ace_extra = True  # the same player may place one more card or stop
            return
        else:
            self.ace_extra = False
        self._next_placer()

    def _next_placer(self) -> None:
        self.current = next_holder(self.hands, self.current)

    def _place(self, card: int) -> None:
        """Add a card to the Dominoes/Réussite layout and recompute what may follow."""
        self.start_rank = place_card(self.lo, self.hi, card, self.start_rank, self.set_aside)
        self.frontier = fitting_cards(self.lo, self.hi, self.start_rank)

    def _finish_trick(self, c: Contract) -> None:
        trick = self.trick
        winner = (self.leader + trick_winner(trick, self.trump)) % self.game.players
        taken = 0
        pts = c.per_trick
        table = c.card_points
        for x in trick:
            taken |= 1 << x
            pts += table[x]
        from_end = self.game.hand_size - 1 - self.trick_no
        if from_end < len(c.last_tricks):
            pts += c.last_tricks[-1 - from_end]
        self.points[winner] += pts
        self.captured[winner] |= taken
        self.tricks_won[winner] += 1
        self.trick_no += 1
        self.trick = []
        self.leader = winner
        self.current = winner
        if self.trick_no == self.game.hand_size or (
                c.ends_when_taken and not c.ends_when_taken & ~self.set_aside & ~self.played):
            self._finish_hand()

    def contract_scores(self) -> list[int]:
        """Points of the contract alone, for the hand as played so far."""
        c = self.contract
        if c is None or c.kind == _TRICKS:
            return list(self.points)
        scores = [0] * self.game.players
        for place, seat in enumerate(self.out_order):
            scores[seat] = c.out_scores[place]
        if c.kind == _DOMINOES and len(self.out_order) == self.game.players - 1:
            last = next(s for s in range(self.game.players) if s not in self.out_order)
            scores[last] = c.out_scores[-1]
        return scores

    def doubles_list(self) -> list[tuple[int, int]]:
        """The doubles of this hand as directed pairs (RECORD.md): doubles, then redoubles."""
        return doubling.directed_pairs(self.doubled, self.redoubled)

    def current_record(self, finished: bool = False) -> HandRecord:
        """The hand in progress as a record (scores so far)."""
        c = self.contract
        # Every playout ends here: the common cases (a trick game, no double) skip the calls.
        cs = tuple(self.points) if c is not None and c.kind == _TRICKS else tuple(self.contract_scores())
        doubled = any(self.doubled)
        return HandRecord(
            self.hand_no, self.declarer, tuple(self.dealt), self.set_aside,
            c.id if c else "",
            self.trump if self.trump >= 0 else None,
            self.start_rank if c and c.kind == _DOMINOES and self.start_rank >= 0 else None,
            tuple(self.doubles_list()) if doubled else (), tuple(self.actions),
            cs, tuple(doubling.settle(cs, self.doubled, self.redoubled)) if doubled else cs, finished)

    def finish_from(self, contract_scores: Sequence[int]) -> None:
        """Score the hand from its result counted at the table, instead of from its cards.

        For a score sheet kept beside a real deck: the hand must be at its first card
        (contract, trump or rank, and doubles done), and ``contract_scores`` are each seat's
        points from the contract alone, already checked (:mod:`barbu.engine.tally`). The doubles
        are settled and the game moves on exactly as after the last card.
        """
        if self.phase != PLAY_P or self.actions:
            raise IllegalActionError("a hand is scored from its count only before its first card",
                                     rule="finish-from")
        if len(contract_scores) != self.game.players:
            raise ValueError(f"one score per seat: {self.game.players}, not {len(contract_scores)}")
        cs = tuple(contract_scores)
        played = self.current_record(finished=True)
        self._close_hand(HandRecord(
            played.hand_no, played.declarer, played.deal, played.set_aside, played.contract,
            played.trump, played.start_rank, played.doubles, played.actions, cs,
            tuple(doubling.settle(cs, self.doubled, self.redoubled)), True))

    def _finish_hand(self) -> None:
        self._close_hand(self.current_record(finished=True))

    def _close_hand(self, record: HandRecord) -> None:
        """Add a finished hand to the history and the totals, and start the next one."""
        self.history.append(record)
        self.totals = list(map(operator.add, self.totals, record.scores))
        self.used[self.declarer] |= 1 << self.contract_idx
        self.hand_no += 1
        if self.game.is_classic and self.hand_no % self.game.hands_per_declarer == 0:
            self.dbl_count = [0] * self.game.players
        if self.hand_no == self.game.num_hands:
            self.phase = OVER_P
            self.current = TERMINAL
            return
        self._start_hand()

    def observe(self, seat: int) -> Observation:
        """What ``seat`` may see now (see :mod:`barbu.engine.observation`)."""
        return observe(self, seat)

    # -- results -------------------------------------------------------------

    def winners(self) -> list[int]:
        """Seats with the best total once the game is over (highest classic, lowest family)."""
        if not self.is_over:
            return []
        best = max(self.totals) if self.game.is_classic else min(self.totals)
        return [s for s, t in enumerate(self.totals) if t == best]

    # -- why an action is illegal -------------------------------------------

    def illegal(self, action: int) -> IllegalActionError:
        """The error for an action that is not legal now, naming the rule it breaks.

        Its message speaks to the player who tried it; ``about`` says the same of that player
        to a third person, such as the reader of a record.
        """
        seat = self.current if self.current >= 0 else None
        rule, message, about = self._why_illegal(action)
        return IllegalActionError(message, seat=seat, rule=rule, about=about)

    def _why_illegal(self, action: int) -> tuple[str, str | Phrase, str | Phrase]:
        g = self.game
        phase = self.phase
        try:
            text = g.action_str(action)
        except ValueError:
            unknown = f"{action!r} is not an action of Barbu"
            return "unknown-action", unknown, f"tried {unknown}"
        expects = {PLAY_P: (0, 53), CHOOSE_P: (CONTRACT, CONTRACT + 8),
                   TRUMP_P: (TRUMP, TRUMP + 4), RANK_P: (RANK, RANK + 13),
                   DOUBLE_P: (DOUBLE, DOUBLE + 64), REDOUBLE_P: (REDOUBLE, REDOUBLE + 64)}
        lo, hi = expects.get(phase, (0, 0))
        if not lo <= action < hi:
            task = PHASE_TASK[phase]
            return ("wrong-phase", f"it is time to {task}, not '{text}'",
                    f"cannot play '{text}' now: it is time to {task}")
        if phase == PLAY_P:
            return self._why_card_illegal(action)
        if phase == CHOOSE_P:
            c = g.contracts[action - CONTRACT]
            if self.used[self.declarer] >> (action - CONTRACT) & 1:
                return ("contract-used", f"{c.name} has already been chosen by this player",
                        f"has already chosen {c.name} in this game")
            why = "K♥ is set aside this round"
            return "king-set-aside", f"{c.name} may not be chosen: {why}", f"may not choose {c.name}: {why}"
        if phase == DOUBLE_P:
            return self._why_double_illegal(action - DOUBLE)
        if phase == REDOUBLE_P:
            return ("redouble-target", "you may redouble only players who doubled you",
                    "may redouble only players who doubled them")
        return "illegal", f"'{text}' is not allowed now", f"may not play '{text}' now"

    def _why_double_illegal(self, mask: int) -> tuple[str, str | Phrase, str | Phrase]:
        seat = self.current
        assert self.contract is not None
        if mask >> seat & 1:
            return "double-self", "you cannot double yourself", "cannot double themselves"
        bad = mask & ~self.double_targets(seat)
        declarer = Seat(self.declarer)
        if bad:
            t = Seat(seats_of(bad)[0])
            if self.contract.positive:
                name = self.contract.name
                return ("double-positive",
                        Phrase("in {c} you may double only the declarer ({d})", c=name, d=declarer),
                        Phrase("may double only the declarer ({d}) in {c}", c=name, d=declarer))
            answer = "answer with a redouble after the doubling round"
            return ("double-twice", Phrase("{t} has already doubled you: {a}", t=t, a=answer),
                    Phrase("may not double {t}, who has already doubled them: {a}", t=t, a=answer))
        owed, left = self.owed_doubles(seat), self.hands_left_for_declarer()
        # The hands left are the declarer's, not the doubler's: say whose.
        why = (f"still owe {owed} double{'s' if owed > 1 else ''} and only {left} of the "
               f"declarer's hands remain{'' if left > 1 else 's'}, this one included")
        return ("compulsory-double",
                Phrase("doubling the declarer ({d}) is compulsory: you {w}", d=declarer, w=why),
                Phrase("skipped a compulsory double of the declarer ({d}): they {w}",
                       d=declarer, w=why))

    def _why_card_illegal(self, action: int) -> tuple[str, str | Phrase, str | Phrase]:
        c = self.contract
        assert c is not None
        hand = self.hands[self.current]
        if action == PASS:
            if c.kind == _TRICKS:
                return ("no-pass", "you cannot pass in a trick game: play a card",
                        "cannot pass in a trick game")
            return ("must-place", "you may not pass while you can place a card",
                    "may not pass while holding a card that can be placed")
        name = card_pretty(action)
        if not hand >> action & 1:
            return "not-your-card", f"you do not hold {name}", f"does not hold {name}"
        if c.kind != _TRICKS:
            why = "" if self.start_rank < 0 else (
                f": a suit opens with its {card_pretty(self.start_rank)[:-1]} and grows one card "
                "at a time at either end")
            return "placement", f"{name} cannot be placed{why}", f"cannot place {name}{why}"
        if not self.trick:
            return self._why_lead_illegal(c)
        led = self.trick[0] // 13
        follow = hand & SUIT_MASKS[led]
        legal = self.legal_mask()
        if legal == KH_MASK and c.king_first:
            must = "must play K♥ at the first chance (option king-first)"
            return "king-first", f"you {must}", must
        if follow and action // 13 != led:
            return ("follow-suit", f"you must follow suit: {SUIT_NAMES[led]} were led and you hold some",
                    f"must follow suit: {SUIT_NAMES[led]} were led and they hold some")
        if c.trumps and not follow and action // 13 != self.trump:
            trump = f"so must play a trump ({SUIT_NAMES[self.trump]})"
            return ("must-trump", f"you cannot follow {SUIT_NAMES[led]}, {trump}",
                    f"cannot follow {SUIT_NAMES[led]}, {trump}")
        can = " ".join(card_pretty(x) for x in sorted_cards(legal))
        must = f"must beat the highest trump in the trick ({can} can)"
        return "overtrump", f"you {must}", must

    def _why_lead_illegal(self, c: Contract) -> tuple[str, str | Phrase, str | Phrase]:
        if c.lead == _NO_KH:
            return ("lead-king", f"in {c.name}, K♥ may be led only when it is your last card",
                    f"may lead K♥ in {c.name} only as their last card")
        if c.lead == _NO_HEART_FIRST:
            return ("lead-heart-first", "no heart may be led to the first trick while you hold another suit",
                    "may not lead a heart to the first trick while holding another suit")
        return ("lead-heart", f"in {c.name} a heart may not be led while you hold another suit",
                f"may not lead a heart in {c.name} while holding another suit")


def _cards(n: int) -> str:
    """``1 card``, ``3 cards``."""
    return f"{n} card{'' if n == 1 else 's'}"
