"""Entering one hand of a score sheet at the terminal: its setup through the engine, then its counts.

The setup (set-aside cards, contract, trump or rank, doubles and redoubles) is applied to a
copy of the sheet's :class:`State` as it is typed, so each refusal is the engine's own; the
counts are checked field by field by :func:`barbu.engine.tally.check`.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

from barbu.engine import tally
from barbu.engine.cards import ACE_OF_HEARTS, KING_OF_HEARTS, RANKS, SUITS, card_pretty, parse_card
from barbu.engine.contracts import Contract
from barbu.engine.errors import IllegalActionError, Phrase, Seat, SheetError, TallyError
from barbu.engine.game import CONTRACT, DOUBLE, RANK, REDOUBLE, TRUMP, seats_of
from barbu.engine.hand import Phase
from barbu.engine.scoresheet import deal_unseen, sheet_hand
from barbu.engine.state import State
from barbu.engine.tally import QUEEN_CARDS, Tally
from barbu.tui.parsing import (
    NONE_WORDS,
    InputError,
    parse_contract,
    parse_seat_order,
    parse_seats,
    parse_start_rank,
    parse_trump,
)
from barbu.wording import plural, say

Ask = Callable[[str], str]  # shows a prompt, returns the line typed (commands never come back)
Say = Callable[[str], None]
# The order the counts are asked in: the cards named one by one before the hearts they are among.
ASK_ORDER = ("tricks", "last_tricks", "queens", "king_of_hearts", "ace_of_hearts", "hearts", "out")


class Back(Exception):
    """The player typed ``back``: enter the previous count again."""


@dataclasses.dataclass
class HandEntry:
    """One hand being entered: the state it is applied to, and who is who."""

    state: State
    names: list[str]
    ask: Ask
    say: Say
    set_aside: int | None = None

    def name(self, seat: int) -> str:
        return self.names[seat]

    def people(self, message: str | Phrase) -> str:
        return say(message, self.names, by_name=True)

    def retry(self, read: Callable[[str], None], prompt: str) -> None:
        """Ask until ``read`` accepts the line (it raises InputError or an engine error)."""
        while True:
            text = self.ask(prompt)
            try:
                read(text)
                return
            except InputError as e:
                self.say(f"  {e}")
            except IllegalActionError as e:
                about = e.said_about if e.seat is None else Phrase("{p} {a}", p=Seat(e.seat),
                                                                      a=e.said_about)
                self.say(f"  {self.people(about)}")
            except (TallyError, SheetError) as e:
                self.say(f"  {self.people(e.said)}")

    # -- the setup -------------------------------------------------------------

    def enter(self) -> dict[str, Any]:
        """Ask for the whole hand; return it in the sheet's JSON form."""
        s = self.state
        i = s.hand_no
        if s.game.set_aside_count:
            self.retry(self.read_set_aside, f"Cards set aside ({s.game.set_aside_count}, e.g. "
                       "4C QS; Enter if not noted): ")
        else:
            deal_unseen(s, 0, i)
        self.say(self.contract_menu())
        self.retry(self.read_contract, "Contract: ")
        if s.phase == Phase.TRUMP:
            self.retry(lambda t: s.apply(TRUMP + parse_trump(t)), "Trump suit (S H D C): ")
        if s.phase == Phase.START_RANK:
            self.retry(lambda t: s.apply(RANK + parse_start_rank(t)), "Starting rank (A K Q J 10 … 2): ")
        self.doubles()
        c = s.contract
        assert c is not None
        result = self.counts(c)
        return sheet_hand(s.declarer, c.id, result,
                          trump=SUITS[s.trump] if s.trump >= 0 else None,
                          start_rank=RANKS[s.start_rank] if s.start_rank >= 0 else None,
                          doubles=s.doubles_list(), set_aside=self.set_aside)

    def read_set_aside(self, text: str) -> None:
        words = text.replace(",", " ").split()
        if not words:
            deal_unseen(self.state, None, self.state.hand_no)
            return
        try:
            cards = [parse_card(w) for w in words]
        except ValueError:
            raise InputError(f"'{text.strip()}' is not a list of cards: type them as 4C QS") from None
        want = self.state.game.set_aside_count
        if len(set(cards)) != want:
            raise InputError(f"{plural(want, 'card is', 'cards are')} set aside, not {len(set(cards))}")
        mask = sum(1 << x for x in cards)
        deal_unseen(self.state, mask, self.state.hand_no)
        self.set_aside = mask

    def contract_menu(self) -> str:
        s = self.state
        open_ = s.available_contracts(s.declarer)
        items = [f"{i + 1} {c.name}" + ("" if i in open_ else " (done)")
                 for i, c in enumerate(s.game.contracts)]
        return f"{self.name(s.declarer)} chooses: " + " · ".join(items)

    def read_contract(self, text: str) -> None:
        s = self.state
        s.apply(CONTRACT + parse_contract(text, s.game, s.available_contracts(s.declarer)))

    # -- doubling ----------------------------------------------------------------

    def doubles(self) -> None:
        s = self.state
        if s.phase == Phase.DOUBLE:
            for line in self.owed_lines():
                self.say(line)
        while s.phase in (Phase.DOUBLE, Phase.REDOUBLE):
            seat = s.current
            self.retry(functools.partial(self.read_double, seat), self.double_prompt(seat))

    def owed_lines(self) -> list[str]:
        """The doubles still owed to the declarer, the compulsory ones named (RULES.md 1.4)."""
        s = self.state
        d, left = self.name(s.declarer), s.hands_left_for_declarer()
        owed = [(self.name(t), s.owed_doubles(t)) for t in range(s.game.players) if s.owed_doubles(t)]
        if not owed:
            return []
        lines = [f"Doubles still owed to {d}, with {left} of {_possessive(d)} hands to go (this one "
                 "included): " + ", ".join(f"{who} {k}" for who, k in owed)]
        must = [self.name(t) for t in range(s.game.players) if s.double_is_compulsory(t)]
        if must:
            lines.append(f"Compulsory in this hand: {_and(must)} must double {d}")
        return lines

    def double_prompt(self, seat: int) -> str:
        s = self.state
        if s.phase == Phase.REDOUBLE:
            by = ", ".join(self.name(t) for t in seats_of(s.redouble_targets(seat)))
            return f"{self.name(seat)} redoubles (doubled by {by}; Enter: nobody): "
        d = self.name(s.declarer)
        if s.double_is_compulsory(seat):
            others = [self.name(t) for t in seats_of(s.double_targets(seat) & ~(1 << s.declarer))]
            also = f"; may also double {', '.join(others)}" if others else ""
            return f"{self.name(seat)} doubles ([x] {d}, compulsory{also}; Enter: {d}): "
        who = ", ".join(self.name(t) for t in seats_of(s.double_targets(seat)))
        return f"{self.name(seat)} doubles ({who}; Enter: nobody): "

    def read_double(self, seat: int, text: str) -> None:
        s = self.state
        redouble = s.phase == Phase.REDOUBLE
        choices = s.redouble_targets(seat) if redouble else s.double_targets(seat)
        must = 1 << s.declarer if not redouble and s.double_is_compulsory(seat) else 0
        # Enter keeps what is ticked: the compulsory double, or nobody.
        mask = must if not text.strip() else parse_seats(text, self.names, choices)
        s.apply((REDOUBLE if redouble else DOUBLE) + mask)

    # -- the counts --------------------------------------------------------------

    def counts(self, c: Contract) -> Tally:
        fields = [f for f in ASK_ORDER if f in tally.fields_of(c)]
        t = Tally()
        k = 0
        while k < len(fields):
            try:
                t = self.count(c, t, fields[:k + 1])
                k += 1
            except Back:
                k = max(0, k - 1)
        return t

    def count(self, c: Contract, t: Tally, fields: list[str]) -> Tally:
        """Ask for the count ``fields[-1]`` until it fits with those before it."""
        f = fields[-1]
        result = t
        while True:
            result = self.read_count(c, t, f)
            try:
                tally.check(self.state.game, c, result, self.set_aside, only=fields)
                return result
            except TallyError as e:
                self.say(f"  {self.people(e.said)}")

    def read_count(self, c: Contract, t: Tally, f: str) -> Tally:
        if f == "queens":
            return dataclasses.replace(t, queens=tuple(self.read_card_taker(x) for x in QUEEN_CARDS))
        if f == "king_of_hearts":
            return dataclasses.replace(t, king_of_hearts=self.read_card_taker(KING_OF_HEARTS))
        if f == "ace_of_hearts":
            return dataclasses.replace(t, ace_of_hearts=self.read_card_taker(ACE_OF_HEARTS))
        value: list[tuple[int, ...]] = []
        self.retry(lambda text: value.append(self.parse_field(f, text)), self.count_prompt(c, f))
        return dataclasses.replace(t, **{f: value[-1]})  # type: ignore[arg-type]

    def count_prompt(self, c: Contract, f: str) -> str:
        order = " ".join(self.names)
        n = self.state.game.players
        if f in ("tricks", "hearts"):
            return f"{f.capitalize()} taken, in seat order ({order}): "
        if f == "last_tricks":
            return "Who took the last trick? " if len(c.last_tricks) == 1 else \
                "Who took trick 12, and who trick 13? "
        if len(c.out_scores) == n:
            return "Order of going out (first to last; the last may be left out): "
        return "Who went out first, and who second? "

    def parse_field(self, f: str, text: str) -> tuple[int, ...]:
        if text.strip().lower() == "back":
            raise Back
        if f in ("tricks", "hearts"):
            return parse_counts(text, self.names)
        return tuple(parse_seat_order(text, self.names))

    def read_card_taker(self, x: int) -> int | None:
        """Who took the card ``x``; None when it is set aside (known, or said so)."""
        aside = self.set_aside
        if aside is not None and aside >> x & 1:
            return None
        unseen = aside is None and self.state.game.set_aside_count
        hint = "; none if set aside" if unseen else ""
        taker: list[int | None] = []

        def read(text: str) -> None:
            if text.strip().lower() == "back":
                raise Back
            if unseen and text.strip().lower() in NONE_WORDS:
                taker.append(None)
                return
            seats = parse_seat_order(text, self.names)
            if len(seats) != 1:
                raise InputError("name one player")
            taker.append(seats[0])

        self.retry(read, f"Who took {card_pretty(x)}{hint}? ")
        return taker[-1]


def parse_counts(text: str, names: list[str]) -> tuple[int, ...]:
    """One whole number per player, in seat order: ``4 3 3 3`` or ``4,3,3,3``.

    >>> parse_counts("4, 3 3 3", ["Ann", "Ben", "Cleo", "Dan"])
    (4, 3, 3, 3)
    """
    words = text.replace(",", " ").split()
    if len(words) != len(names) or not all(w.isdigit() for w in words):
        raise InputError(f"type {len(names)} numbers, one per player in seat order "
                         f"({' '.join(names)}), e.g. {' '.join(['3'] * len(names))}")
    return tuple(int(w) for w in words)


def _and(names: list[str]) -> str:
    """``Ann``, ``Ann and Ben``, ``Ann, Ben and Cleo``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"
