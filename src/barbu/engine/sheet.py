"""The score sheet as plain text: one line per hand, running totals, the winner.

>>> from barbu.engine.game import Game
>>> from barbu.engine.state import HandRecord
>>> h = HandRecord(0, 0, (), 0, "no-queens", None, None, ((1, 0), (0, 1), (2, 3)), (),
...                (-6, 0, -6, -12), (-18, 12, 0, -18))
>>> print(format_sheet(Game.classic(), [h], ["Ann", "Ben", "Cleo", "Dan"], []))
 #  declarer  contract           doubles    Ann   Ben  Cleo   Dan
 1  Ann       No Queens          B××A C×D   -18   +12     0   -18
    totals                                  -18   +12     0   -18
Doubles: B×A is Ben doubled Ann, B××A that Ann redoubled too (A Ann, B Ben, C Cleo, D Dan)

Hands are counted from 1, as everywhere a person reads them (records count from 0).
"""

from __future__ import annotations

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
    """The shortest start of each name that no other name shares: ``A B C D``, ``Da De``.

    >>> initials(["You", "Ben", "Dan", "Dee"]), initials(["Ann", "ann"])
    (['Y', 'B', 'Da', 'De'], ['1', '2'])
    """
    folded = [nm.lower() for nm in names]
    if len(set(folded)) < len(folded) or not all(folded):
        return [str(i + 1) for i in range(len(names))]  # names alike but for case: seat numbers
    out = []
    for i, nm in enumerate(folded):
        others = folded[:i] + folded[i + 1:]
        size = next(k for k in range(1, len(nm) + 1)
                    if not any(o.startswith(nm[:k]) for o in others) or k == len(nm))
        out.append(names[i][:size].capitalize())
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


def doubles_legend(names: Sequence[str], marks: Sequence[str]) -> str:
    """What the doubles column's letters and marks mean, with the players' own names."""
    key = ", ".join(f"{m} {nm}" for m, nm in zip(marks, names, strict=True))
    a, b = (f"{m}" for m in marks[1::-1])
    return (f"Doubles: {a}×{b} is {names[1]} doubled {names[0]}, {a}××{b} that {names[0]} "
            f"redoubled too ({key})")


def _num(x: int) -> str:
    return f"{x:+d}" if x else "0"


def format_sheet(game: Game, hands: Sequence[SheetHand], names: Sequence[str],
                 winners: Sequence[int]) -> str:
    """The score sheet of ``hands`` (an unfinished last hand is marked and not totalled)."""
    n = game.players
    names = [*names, *(f"Seat {i + 1}" for i in range(len(names), n))]
    col = max(6, *(len(nm[:10]) + 1 for nm in names))
    labels = [contract_label(game, h) + ("" if h.finished else " (unfinished)") for h in hands]
    cwidth = max([17, *(len(x) for x in labels)])
    marks = initials(names)
    dlabels = [doubles_label(h, marks) for h in hands] if game.is_classic else []
    dwidth = max([7, *(len(x) for x in dlabels)])
    who = "declarer" if game.is_classic else "chooser"

    def row(no: str, person: str, label: str, dbl: str, values: Sequence[str]) -> str:
        text = f"{no:>2}  {person:<8}  {label:<{cwidth}}"
        if game.is_classic:
            text += f"  {dbl:<{dwidth}}"
        return text + "".join(f"{v:>{col}}" for v in values)

    lines = [row("#", who, "contract", "doubles", [nm[:10] for nm in names])]
    totals = [0] * n
    for k, h in enumerate(hands):
        lines.append(row(str(h.hand_no + 1), names[h.declarer][:8], labels[k],
                         dlabels[k] if dlabels else "", [_num(s) for s in h.scores]))
        if h.finished:
            totals = [t + s for t, s in zip(totals, h.scores, strict=True)]
    lines.append(row("", "totals", "", "", [_num(t) for t in totals]))
    lines = [line.rstrip() for line in lines]
    if winners:
        best = "highest" if game.is_classic else "lowest"
        lines.append(f"Winner{'s' if len(winners) > 1 else ''}: "
                     f"{', '.join(names[w] for w in winners)} ({best} total)")
    if game.is_classic:
        lines.append(doubles_legend(names, marks))
    return "\n".join(lines)
