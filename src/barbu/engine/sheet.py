"""The score sheet as plain text: one line per hand, running totals, the winner.

>>> from barbu.engine.game import Game
>>> from barbu.engine.state import HandRecord
>>> h = HandRecord(0, 0, (), 0, "no-queens", None, None, ((1, 0), (0, 1), (2, 3)), (),
...                (-6, 0, -6, -12), (-18, 12, 0, -18))
>>> print(format_sheet(Game.classic(), [h], ["Ann", "Ben", "Cleo", "Dan"], []))
 #  declarer  contract           doubles    Ann   Ben  Cleo   Dan
 1  Ann       No Queens          B××A C×D   -18   +12     0   -18
    totals                                  -18   +12     0   -18
Doubles: B×A is Ben doubled Ann, B××A that Ann redoubled too (A Ann, B Ben,
C Cleo, D Dan)

Hands are counted from 1, as everywhere a person reads them (records count from 0).
"""

from __future__ import annotations

import re
import textwrap
import unicodedata
from collections.abc import Sequence
from typing import Protocol

from barbu.engine.cards import SUIT_SYMBOLS, rank_pretty
from barbu.engine.game import Game
from barbu.engine.state import split_doubles


class SheetHand(Protocol):
    """What the sheet reads of a hand: a full HandRecord, or an observation's HandSummary."""

    @property
    def hand_no(self) -> int: ...
    @property
    def declarer(self) -> int: ...
    @property
    def contract(self) -> str: ...
    @property
    def trump(self) -> int | None: ...
    @property
    def start_rank(self) -> int | None: ...
    @property
    def doubles(self) -> tuple[tuple[int, int], ...]: ...
    @property
    def scores(self) -> tuple[int, ...]: ...
    @property
    def finished(self) -> bool: ...


def contract_label(game: Game, h: SheetHand) -> str:
    """``Trumps ♥``, ``Dominoes from J``, ``No Queens`` …"""
    try:
        name = game.contracts[game.contract_index(h.contract)].name
    except ValueError:
        name = h.contract
    if h.trump is not None:
        name += " " + SUIT_SYMBOLS[h.trump]
    if h.start_rank is not None:
        name += " from " + rank_pretty(h.start_rank)
    return name


def initials(names: Sequence[str]) -> list[str]:
    """Short marks for the doubles column: letters, different for every player.

    The first letter; where two players' marks are the same, each of them takes their next
    choice: the initials of the name's words, then its first two or three letters. Digits
    (the name's own, else the seat's number) only when letters cannot tell the names apart.

    >>> initials(["You", "Ben", "Dan", "Dee"]), initials(["Ann", "ann"])
    (['Y', 'B', 'Da', 'De'], ['A1', 'A2'])
    >>> initials(["Tess", "Computer 2", "Computer 3", "Computer 4"])
    ['T', 'C2', 'C3', 'C4']
    >>> initials(["0:basic", "1:random", "2:basic", "3:random"])
    ['B0', 'R1', 'B2', 'R3']
    >>> initials(["Jean Paul", "Jeanne", "Ann", "Anna"])
    ['JP', 'Je', 'A3', 'A4']
    """
    choices = [_mark_choices(nm) for nm in names]
    step = [0] * len(names)  # each name's place in its choices; past the end: no letters left

    def mark(i: int) -> str | None:
        return choices[i][step[i]] if step[i] < len(choices[i]) else None

    while True:
        seen: dict[str, list[int]] = {}
        for i in range(len(names)):
            m = mark(i)
            if m is not None:
                seen.setdefault(m.casefold(), []).append(i)
        clashes = [i for same in seen.values() if len(same) > 1 for i in same]
        if not clashes:
            return _numbered(names, choices, [mark(i) for i in range(len(names))])
        for i in clashes:  # every name of a clash takes its next choice
            step[i] += 1


def _mark_choices(name: str) -> list[str]:
    """The marks a name may have, best first: ``C``, ``JP``, ``Co``, ``Com`` (letters only)."""
    words = ["".join(ch for ch in w if ch.isalpha()) for w in re.split(r"[^\w]|\d|_", name)]
    words = [w for w in words if w]
    letters = "".join(words)
    if not letters:
        return []
    heads = "".join(w[0] for w in words).upper()
    found = [letters[0].upper()]
    found += [heads[:k] for k in range(2, min(3, len(heads)) + 1)]
    found += [letters[:k].capitalize() for k in range(2, min(3, len(letters)) + 1)]
    return list(dict.fromkeys(found))


def _numbered(names: Sequence[str], choices: list[list[str]], marks: list[str | None]) -> list[str]:
    """Fill in the marks letters could not make: a letter and a number, the name's own if it has one."""
    missing = [i for i, m in enumerate(marks) if m is None]
    own = {i: "".join(ch for ch in names[i] if ch.isdigit())[:2] for i in missing}
    use_own = all(own.values()) and len(set(own.values())) == len(own)
    done = list(marks)
    for i in missing:
        letter = choices[i][0] if choices[i] else "P"
        done[i] = letter + (own[i] if use_own else str(i + 1))
    # A mark made with a number could still equal another player's: the seat's number settles it.
    out = [m or "" for m in done]
    for i in missing:
        if sum(1 for m in out if m.casefold() == out[i].casefold()) > 1:
            out[i] = (choices[i][0] if choices[i] else "P") + str(i + 1)
    return out


def doubles_label(h: SheetHand, marks: Sequence[str]) -> str:
    """``B×A`` when B doubled A, ``B××A`` when A also redoubled B (``marks``: the initials)."""
    players = len(marks)
    doubles, redoubles = split_doubles(h.doubles, h.declarer, players)
    out = []
    for a in range(players):
        for b in range(players):
            if doubles[a] >> b & 1:
                mark = "××" if redoubles[b] >> a & 1 else "×"
                out.append(f"{marks[a]}{mark}{marks[b]}")
    return " ".join(out) or "–"


def doubles_legend(names: Sequence[str], marks: Sequence[str], width: int = 80) -> str:
    """What the doubles column's marks mean, with the players' own names, wrapped to ``width``.

    A player's entry (``C2 Computer 2``) is never split across two lines.
    """
    key = ", ".join(f"{m} {nm}" .replace(" ", "\u00a0") for m, nm in zip(marks, names, strict=True))
    a, b = marks[1], marks[0]
    text = (f"Doubles: {a}×{b} is {names[1]} doubled {names[0]}, {a}××{b} that {names[0]} "
            f"redoubled too ({key})")
    lines = textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)
    return "\n".join(lines).replace("\u00a0", " ")


def display_width(text: str) -> int:
    """Columns ``text`` takes on a terminal: two for wide scripts (日本語), none for accents."""
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF"
               else 1 for ch in text)


def fit(text: str, width: int) -> str:
    """``text`` cut to at most ``width`` columns (never half a wide character)."""
    out, used = "", 0
    for ch in text:
        used += display_width(ch)
        if used > width:
            break
        out += ch
    return out


def pad(text: str, width: int, right: bool = False) -> str:
    """``text`` padded with spaces to ``width`` columns, on the left when ``right`` (numbers)."""
    space = " " * max(0, width - display_width(text))
    return space + text if right else text + space


def _num(x: int) -> str:
    return f"{x:+d}" if x else "0"


def format_sheet(game: Game, hands: Sequence[SheetHand], names: Sequence[str],
                 winners: Sequence[int]) -> str:
    """The score sheet of ``hands`` (an unfinished last hand is marked and not totalled).

    Columns are measured in terminal columns, so names in wide scripts line up too.
    """
    n = game.players
    names = [*names, *(f"Seat {i + 1}" for i in range(len(names), n))]
    heads = [fit(nm, 10) for nm in names]
    col = max(6, *(display_width(h) + 1 for h in heads))
    labels = [contract_label(game, h) + ("" if h.finished else " (unfinished)") for h in hands]
    cwidth = max([17, *(display_width(x) for x in labels)])
    marks = initials(names)
    dlabels = [doubles_label(h, marks) for h in hands] if game.is_classic else []
    dwidth = max([7, *(display_width(x) for x in dlabels)])
    who = "declarer" if game.is_classic else "chooser"
    # Wide enough for the names as the columns' heads show them ("Computer 2", not "Computer").
    pwidth = max(8, *(display_width(h) for h in heads))

    def row(no: str, person: str, label: str, dbl: str, values: Sequence[str]) -> str:
        text = f"{no:>2}  {pad(fit(person, pwidth), pwidth)}  {pad(label, cwidth)}"
        if game.is_classic:
            text += f"  {pad(dbl, dwidth)}"
        return text + "".join(pad(v, col, right=True) for v in values)

    lines = [row("#", who, "contract", "doubles", heads)]
    totals = [0] * n
    for k, h in enumerate(hands):
        lines.append(row(str(h.hand_no + 1), names[h.declarer], labels[k],
                         dlabels[k] if dlabels else "", [_num(s) for s in h.scores]))
        if h.finished:
            totals = [t + s for t, s in zip(totals, h.scores, strict=True)]
    lines.append(row("", "totals", "", "", [_num(t) for t in totals]))
    lines = [line.rstrip() for line in lines]
    if winners:
        best = "highest" if game.is_classic else "lowest"
        lines.append(f"Winner{'s' if len(winners) > 1 else ''}: "
                     f"{', '.join(names[w] for w in winners)} ({best} total)")
    if any(h.doubles for h in hands):
        # The marks need a key only where they appear.
        lines.append(doubles_legend(names, marks, max(80, *(display_width(x) for x in lines))))
    return "\n".join(lines)
