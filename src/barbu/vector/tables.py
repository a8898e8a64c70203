"""A table's contracts as arrays indexed by contract: what the batched rules read instead of Contracts."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from barbu.engine.contracts import Kind, Lead
from barbu.engine.game import Game
from barbu.vector.backend import U64, Bool, Int, xp

KINDS = (Kind.TRICKS, Kind.DOMINOES, Kind.REUSSITE)
LEADS = (Lead.FREE, Lead.NO_HEART_UNLESS_ONLY_HEARTS, Lead.NO_KH_UNLESS_LAST_CARD, Lead.NO_HEART_FIRST_TRICK)


@dataclass(frozen=True)
class Tables:
    """Per contract index (7 rows): every rule that differs between contracts."""

    kind: Int
    lead: Int
    positive: Bool
    trumps: Bool
    overtrump: Bool
    king_first: Bool
    per_trick: Int
    card_points: Int  # (7, 52)
    last_bonus: Int  # (7, hand size): points for taking trick t
    out_scores: Int  # (7, players): points by place of going out, 0 beyond the contract's list
    out_needed: Int  # players out that end a Dominoes/Réussite hand
    ends: U64  # the hand stops once these cards in play have all fallen
    king_idx: int  # family: the challenge barred while K♥ is set aside (-1 classic)
    aside: int  # cards set aside by each deal (family with 3, 5 or 6 players)


def tables(game: Game) -> Tables:
    """The arrays of a table's seven contracts."""
    n, size = game.players, game.hand_size
    cs = game.contracts
    bonus = np.zeros((len(cs), size), dtype=np.int32)
    outs = np.zeros((len(cs), n), dtype=np.int32)
    for i, c in enumerate(cs):
        for k, p in enumerate(reversed(c.last_tricks)):
            bonus[i, size - 1 - k] = p
        outs[i, :len(c.out_scores)] = c.out_scores
        if c.kind == Kind.DOMINOES:
            outs[i, n - 1] = c.out_scores[-1]  # the one left holding cards is last
    needed = [len(c.out_scores) if c.kind == Kind.REUSSITE else n - 1 for c in cs]
    ids = [c.id for c in cs]
    return Tables(
        kind=_ints([KINDS.index(c.kind) for c in cs]), lead=_ints([LEADS.index(c.lead) for c in cs]),
        positive=_bools([c.positive for c in cs]), trumps=_bools([c.trumps for c in cs]),
        overtrump=_bools([c.overtrump for c in cs]), king_first=_bools([c.king_first for c in cs]),
        per_trick=_ints([c.per_trick for c in cs]), card_points=xp.asarray(
            np.array([c.card_points for c in cs], dtype=np.int32)),
        last_bonus=xp.asarray(bonus), out_scores=xp.asarray(outs), out_needed=_ints(needed),
        ends=xp.asarray(np.array([c.ends_when_taken for c in cs], dtype=np.uint64)),
        king_idx=-1 if game.is_classic else ids.index("king"), aside=game.set_aside_count)


def _ints(values: list[int]) -> Int:
    return xp.asarray(np.array(values, dtype=np.int32))  # type: ignore[no-any-return]


def _bools(values: list[bool]) -> Bool:
    return xp.asarray(np.array(values, dtype=np.bool_))  # type: ignore[no-any-return]
