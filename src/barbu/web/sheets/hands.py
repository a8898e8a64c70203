"""A sheet's hands as rows, in words: what the page, the CSV and the PDF all show of a sheet."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from barbu.engine import doubling
from barbu.engine.cards import RANKS, SUITS
from barbu.engine.game import Game
from barbu.engine.record import ReplayResult
from barbu.engine.sheet import contract_label
from barbu.engine.state import split_doubles
from barbu.web.core.words import Words


class Shown(Protocol):
    """What a view of a sheet reads of it (a ``barbu.web.sheets.sheet.Sheet``): the document, the
    players' names, and the engine's replay of it (None: the stored document does not replay)."""

    doc: dict[str, Any]
    result: ReplayResult | None

    @property
    def names(self) -> list[str]: ...


def game_of(doc: dict[str, Any]) -> Game:
    return Game(doc["ruleset"], len(doc["players"]), frozenset(doc.get("options", [])))


def rows(game: Game, r: ReplayResult, names: Sequence[str]) -> list[dict[str, Any]]:
    """One row per hand: contract, each pair's doubles settled, points, scores and running totals."""
    totals = [0] * game.players
    out = []
    for h in r.hands:
        totals = [t + s for t, s in zip(totals, h.scores, strict=True)]
        out.append({"hand": h.hand_no, "declarer": h.declarer, "contract": h.contract,
                    "trump": None if h.trump is None else SUITS[h.trump],
                    "start_rank": None if h.start_rank is None else RANKS[h.start_rank],
                    "label": contract_label(game, h), "doubles": pair_settlements(h, game.players),
                    "contract_scores": list(h.contract_scores), "scores": list(h.scores),
                    "totals": totals})
    return out


def pair_settlements(h: Any, n: int) -> list[dict[str, Any]]:
    """Each doubled pair and what it moved to the doubler, settled by the engine pair by pair."""
    doubled, redoubled = split_doubles(h.doubles, h.declarer, n)
    out = []
    for a in range(n):
        for b in range(n):
            if not doubled[a] >> b & 1:
                continue
            again = bool(redoubled[b] >> a & 1)
            one, back = [0] * n, [0] * n
            one[a] = 1 << b
            if again:
                back[b] = 1 << a
            gain = doubling.settle(h.contract_scores, one, back)[a] - h.contract_scores[a]
            out.append({"from": a, "to": b, "redoubled": again, "gain": gain})
    return out


def label_of(w: Words, game: Game, row: dict[str, Any]) -> str:
    """A row's contract in ``w``'s language, with its trump suit or starting rank."""
    return w.contract(game.ruleset, row["contract"], row["trump"], row["start_rank"])


def winners_said(w: Words, game: Game, winners: Sequence[int], names: Sequence[str]) -> str:
    return w.t(f"sheet.winners.{game.ruleset}", n=len(winners), names=", ".join(names[s] for s in winners))


def doubles_text(row: dict[str, Any], names: Sequence[str]) -> str:
    """``Ben x Ann (Ben +12); Ann xx Cleo …``: each pair, redoubled or not, and what the doubler won."""
    parts = []
    for p in row["doubles"]:
        mark = "xx" if p["redoubled"] else "x"
        parts.append(f"{names[p['from']]} {mark} {names[p['to']]} ({names[p['from']]} {p['gain']:+d})")
    return "; ".join(parts)
