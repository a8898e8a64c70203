"""The ladder of the web server: what a finished game is rated as, the leaderboards and each player's page.

A game is rated when at least one of its seats is tied to a profile whose person played it. Each
seat is then an entrant: a profile as itself; a seat of a person without a profile as a newcomer at
the default skill, who is not kept; a seat a computer held from the start as the fixed anchor of its
level. A person's seat is its person's only if they made most of its decisions themselves
(:func:`played_by_person`); one a computer mostly played (handed over, or after the turn clock ran
out) is that computer's anchor, so nobody is rated for a game a computer played for them.
The places come from the engine (:meth:`Game.places`) and every
score from its hand records: nothing is counted here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from barbu.engine.game import Game
from barbu.engine.state import State
from barbu.web.core.errors import TableError
from barbu.web.core.ports import TableStore
from barbu.web.core.rows import GameResult, HistoryRow, RatingRow, SeatRow
from barbu.web.people.ratings import COMPUTER, PERSON, Skill

DEFAULT_TOP, MAX_TOP = 50, 200
MAX_GAMES = 500  # rated games a player's page shows (the newest)
MAX_NAME = 100


def entrant(row: SeatRow, decided: Mapping[str, int] | None = None) -> str:
    """Who a seat is for the ratings ("" for a person without a profile).

    ``decided`` counts the seat's decisions by who made them ("" its person, else a computer's
    level): a person's seat whose decisions a computer made at least as often as its person did
    is that computer's (the one that made most of them) for the ratings.
    """
    if row.token and decided is not None and not played_by_person(decided):
        computers = [k for k in decided if k]
        return COMPUTER + max(computers, key=lambda k: (decided[k], k)) if computers else ""
    if row.player:
        return PERSON + row.player
    if row.token:  # a person's seat (a computer's has no link)
        return ""
    return COMPUTER + row.level


def played_by_person(decided: Mapping[str, int]) -> bool:
    """Whether a seat's person made most of its decisions (more than the computers standing in did).

    A decision is an action chosen among two or more legal ones: a contract (with its trump suit or
    starting rank), a double or redouble, a card; a forced pass or a single legal card is none.
    """
    own = decided.get("", 0)
    return own > sum(decided.values()) - own


def rated_setup(game: Game, rows: Sequence[SeatRow], seed_chosen: bool) -> bool:
    """Whether a game set up so may be rated once over (what game_result asks before the play): a
    seat is a profile's, its creator did not choose the seed, and it is a whole game."""
    return not seed_chosen and not game.rounds and any(r.player for r in rows)


def game_result(game: Game, state: State, rows: Sequence[SeatRow],
                decisions: Mapping[int, Mapping[str, int]] | None = None, *,
                seed_chosen: bool = False) -> GameResult | None:
    """What a finished game is rated as; None when it is not over, no seat is its profile's player's,
    its creator chose the seed (``seed_chosen``: they knew every deal, a practice game), or it was a
    shorter game (the ladder compares whole games).

    ``decisions`` (seat -> who decided -> how many) makes a person's seat that a computer mostly
    played that computer's; without it (a game replayed from before they were counted) every seat
    counts as its holder's.
    """
    if not rated_setup(game, rows, seed_chosen) or not state.is_over or len(state.history) != game.num_hands:
        return None
    entrants = [entrant(r, None if decisions is None else decisions.get(r.seat, {}))
                for r in sorted(rows, key=lambda r: r.seat)]
    seen: set[str] = set()
    for s, e in enumerate(entrants):
        if e.startswith(PERSON) and e in seen:
            entrants[s] = ""  # never stored so, but a person cannot be ranked against themselves
        seen.add(e)
    if not any(e.startswith(PERSON) for e in entrants):
        return None
    totals = tuple(state.totals)
    return GameResult(game.ruleset, tuple(entrants), tuple(game.places(totals)), totals,
                      tuple(_contracts(state, s) for s in range(game.players)))


def _contracts(state: State, seat: int) -> dict[str, tuple[int, int]]:
    """Each contract's summed score of a seat over the game (doubles settled) and how many hands."""
    out: dict[str, tuple[int, int]] = {}
    for record in state.history:
        total, hands = out.get(record.contract, (0, 0))
        out[record.contract] = (total + record.scores[seat], hands + 1)
    return out


def top_of(value: str | None) -> int:
    """The ``top`` query parameter: how many places of the leaderboard (1 to MAX_TOP)."""
    if value is None:
        return DEFAULT_TOP
    if not (value.isascii() and value.isdigit()) or len(value) > 4 or not 1 <= int(value) <= MAX_TOP:
        raise TableError("bad-top", f"top must be a whole number from 1 to {MAX_TOP}", args={"n": MAX_TOP})
    return int(value)


def rating(mu: float, sigma: float) -> dict[str, Any]:
    """A skill as the pages show it: the conservative ordinal, to one decimal, with μ and σ."""
    return {"rating": round(Skill(mu, sigma).ordinal, 1), "mu": round(mu, 2), "sigma": round(sigma, 2)}


def leaderboard(store: TableStore, ruleset: str, top: int) -> dict[str, Any]:
    """The best ``top`` rated profiles of a rule set (a known one), with their games played."""
    rows = store.leaderboard(ruleset, top)
    return {"ruleset": ruleset, "players": [_place(i, r) for i, r in enumerate(rows)]}


def _place(i: int, r: RatingRow) -> dict[str, Any]:
    return {"rank": i + 1, "name": r.name, "games": r.games, **rating(r.mu, r.sigma)}


def player_page(store: TableStore, key: str) -> dict[str, Any]:
    """A profile's ratings per rule set, its rated games with their rating after, and per-contract means.

    ``key`` is the name as profiles compare names (:func:`barbu.web.core.names.name_key`).
    """
    row = store.player_named(key) if 0 < len(key) <= MAX_NAME else None
    if row is None:
        raise TableError("no-player", "no player of that name", status=404)
    history = store.rating_history(row.id, MAX_GAMES)
    ratings = {r.ruleset: {"games": r.games, **rating(r.mu, r.sigma)} for r in store.ratings_of(row.id)}
    return {"name": row.name, "ratings": ratings,
            "games": [_game(h) for h in history],
            "contracts": _means(history)}


def _game(h: HistoryRow) -> dict[str, Any]:
    # A private table's id is as good as its link to anyone who would watch it: only a table the
    # lobby listed (its id was public) is linked to its replay.
    return {"at": h.at, "ruleset": h.ruleset, "place": h.place, "total": h.total,
            "before": rating(*h.before)["rating"], **rating(*h.after),
            "replay": f"/replay/{h.table_id}" if h.listed else None}


def _means(history: Sequence[HistoryRow]) -> dict[str, dict[str, dict[str, float | int]]]:
    """Per rule set and contract id: the mean score of a hand of it, and over how many hands."""
    sums: dict[str, dict[str, tuple[int, int]]] = {}
    for h in history:
        per = sums.setdefault(h.ruleset, {})
        for cid, (total, hands) in h.contracts.items():
            was = per.get(cid, (0, 0))
            per[cid] = (was[0] + total, was[1] + hands)
    return {rs: {cid: {"mean": round(t / n, 2), "hands": n} for cid, (t, n) in sorted(per.items()) if n}
            for rs, per in sorted(sums.items())}
