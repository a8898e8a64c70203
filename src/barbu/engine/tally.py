"""A hand's result as counted at a table with real cards: checked, then scored by the contract table.

People do not write down every card: they count tricks, say who took each queen, count hearts.
A :class:`Tally` holds such a count; :func:`check` refuses one that cannot have happened, naming
the field, and :func:`contract_scores` turns it into the cards and tricks it stands for and sums
them through the contract's own fields (``per_trick``, ``card_points``, ``last_tricks``,
``out_scores``), so there is no second scoring table.

Which fields a contract needs is read off its data (:func:`fields_of`):

>>> from barbu.engine.game import Game
>>> g = Game.classic()
>>> [fields_of(c) for c in g.contracts[:3]]
[('tricks',), ('queens',), ('hearts', 'ace_of_hearts')]
>>> fields_of(Game.family(4).contracts[5])
('tricks', 'last_tricks', 'queens', 'hearts', 'king_of_hearts')
>>> contract_scores(g, g.contracts[1], Tally(queens=(0, 2, 3, 3)), None)
[-6, 0, -6, -12]

Seats are numbered from 0, as in records; a message that names a seat carries it as data
(:class:`~barbu.engine.errors.Phrase`), for the front ends to put names in
(:func:`barbu.wording.say`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from barbu.engine.cards import (
    ACE_OF_HEARTS,
    HEART_CARDS,
    HEARTS,
    KING_OF_HEARTS,
    QUEEN,
    SUIT_NAMES,
    SUITS,
    bits,
    card,
    card_pretty,
)
from barbu.engine.contracts import Contract
from barbu.engine.errors import Phrase, Seat, TallyError
from barbu.engine.game import Game

FIELDS = ("tricks", "last_tricks", "queens", "hearts", "king_of_hearts", "ace_of_hearts", "out")
QUEEN_CARDS = tuple(card(QUEEN, s) for s in range(4))  # by suit: Q♠ Q♥ Q♦ Q♣
QUEEN_OF_HEARTS = QUEEN_CARDS[HEARTS]
_PLAIN_HEART = card(0, HEARTS)  # the 2♥: never a card of its own in any contract
# What to ask for when a count is missing (a card nobody took may be set aside: see _untaken).
_ASK = {"tricks": "count each player's tricks", "last_tricks": "say who took the last trick",
        "queens": "say who took each queen", "hearts": "count each player's hearts",
        "out": "say who went out, in order"}
_PLACES = ("first", "second", "third", "fourth", "fifth", "sixth")


@dataclass(frozen=True)
class Tally:
    """What was counted after a hand; only the fields of :func:`fields_of` the contract are set.

    Seats count from 0. ``queens`` is by suit (♠ ♥ ♦ ♣), None for a queen nobody took (set
    aside); ``hearts`` counts every heart a seat took, the A♥, K♥ and Q♥ included;
    ``last_tricks`` are the takers of the last tricks in order (No Last Two: trick 12, then 13);
    ``out`` is the order of going out (Dominoes: every seat, the last one may be left out;
    Réussite: first and second).
    """

    tricks: tuple[int, ...] | None = None
    last_tricks: tuple[int, ...] | None = None
    queens: tuple[int | None, ...] | None = None
    hearts: tuple[int, ...] | None = None
    king_of_hearts: int | None = None
    ace_of_hearts: int | None = None
    out: tuple[int, ...] | None = None


# -- what a contract's count is made of ---------------------------------------

def fields_of(c: Contract) -> tuple[str, ...]:
    """The fields of a :class:`Tally` that score ``c``, read off its data.

    Raises ValueError for a contract a count cannot score: one whose hearts (those no field
    names on its own) are not all worth the same, or that values a card no field covers.
    """
    if c.out_scores:
        return ("out",)
    pts = c.card_points
    heart = pts[_PLAIN_HEART]
    named = {
        "queens": any(pts[q] for q in QUEEN_CARDS if q != QUEEN_OF_HEARTS),
        "hearts": heart != 0,
        "king_of_hearts": pts[KING_OF_HEARTS] != heart,
        "ace_of_hearts": pts[ACE_OF_HEARTS] != heart,
    }
    _check_countable(c, named["queens"], named["king_of_hearts"], named["ace_of_hearts"])
    order = ("tricks", "last_tricks", "queens", "hearts", "king_of_hearts", "ace_of_hearts")
    given = {"tricks": c.per_trick != 0, "last_tricks": bool(c.last_tricks), **named}
    return tuple(f for f in order if given[f])


def _check_countable(c: Contract, queens: bool, king: bool, ace: bool) -> None:
    """Every scoring card is named by a field, or a heart worth what every other plain heart is."""
    pts = c.card_points
    own = set(QUEEN_CARDS if queens else ()) | {x for x, yes in ((KING_OF_HEARTS, king),
                                                                   (ACE_OF_HEARTS, ace)) if yes}
    for x in range(52):
        if x in own or not pts[x]:
            continue
        if x // 13 != HEARTS or pts[x] != pts[_PLAIN_HEART]:
            raise ValueError(f"{c.name} values {card_pretty(x)} apart from the other hearts: "
                             "a count of hearts cannot score it")


def named_cards(fields: Sequence[str]) -> list[tuple[str, int]]:
    """The cards a count names one by one, each with its field."""
    out = [("queens", q) for q in QUEEN_CARDS] if "queens" in fields else []
    if "king_of_hearts" in fields:
        out.append(("king_of_hearts", KING_OF_HEARTS))
    if "ace_of_hearts" in fields:
        out.append(("ace_of_hearts", ACE_OF_HEARTS))
    return out


def _taker(t: Tally, x: int) -> int | None:
    """Who the count says took the card ``x`` (one it names), or None."""
    if x == KING_OF_HEARTS:
        return t.king_of_hearts
    if x == ACE_OF_HEARTS:
        return t.ace_of_hearts
    return t.queens[x // 13] if t.queens is not None and x in QUEEN_CARDS else None


def _card_name(x: int) -> str:
    names = {KING_OF_HEARTS: "king", ACE_OF_HEARTS: "ace"}
    return f"the {names.get(x, 'queen')} of {SUIT_NAMES[x // 13]}"


# -- checking ----------------------------------------------------------------

@dataclass(frozen=True)
class _Table:
    """What a count is checked against: the table size and the set-aside cards (None: unknown)."""

    game: Game
    contract: Contract
    set_aside: int | None

    @property
    def players(self) -> int:
        return self.game.players


def check(game: Game, c: Contract, t: Tally, set_aside: int | None,
          only: Sequence[str] | None = None) -> None:
    """Raise :class:`TallyError` unless ``t`` is a result ``c`` can have at this table.

    ``set_aside``: the cards set aside this round (family), or None when they were not
    entered; then any card a count leaves untaken is taken to be set aside, as long as no
    more cards than the deal sets aside are left (RULES.md 2.1). ``only``: check just these
    fields, as far as they go without the others (a count being entered field by field).
    """
    if not game.set_aside_count:
        set_aside = 0  # nothing is set aside: nothing is unknown
    table = _Table(game, c, set_aside)
    for f in FIELDS:
        if f not in fields_of(c) and getattr(t, f) is not None:
            raise TallyError(f"{c.name} is not scored by '{f}'", field=f, rule="not-scored",
                             slots={"contract": c.id})
    fields = tuple(f for f in fields_of(c) if only is None or f in only)
    for f in FIELDS:
        if f in fields and getattr(t, f) is None and f in _ASK:
            raise TallyError(f"{c.name}: {_ASK[f]}", field=f, rule="missing",
                             slots={"variant": f, "contract": c.id})
    if "out" in fields:
        _check_out(table, t.out or ())
        return
    if "tricks" in fields:
        _check_counts(table, t.tricks or (), "tricks")
        _check_sum(t.tricks or (), "tricks", game.hand_size, game.hand_size, variant="tricks")
    if "last_tricks" in fields:
        _check_last_tricks(table, t.last_tricks or ())
    aside = _check_named(table, t, fields)
    if "hearts" in fields:
        _check_hearts(table, t, fields, aside)
    if "tricks" in fields:
        _check_room(table, t, fields)


def _seat(table: _Table, value: object, f: str) -> int:
    n = table.players
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < n:
        raise TallyError(f"{value!r} is not a seat (0 to {n - 1})", field=f, rule="not-a-seat",
                         slots={"value": repr(value)})
    return value


def _check_counts(table: _Table, counts: Sequence[int], f: str) -> None:
    """One count per player, none negative (the sum is checked by the caller)."""
    n = table.players
    if len(counts) != n:
        raise TallyError(f"one count of {f} per player: {n}, not {len(counts)}", field=f,
                         rule="count-length", slots={"n": n, "given": len(counts)})
    for seat, k in enumerate(counts):
        if not isinstance(k, int) or isinstance(k, bool) or k < 0:
            raise TallyError(Phrase("{s} cannot have taken {k} {f}", s=Seat(seat), k=repr(k), f=f),
                             field=f, seat=seat, rule="bad-count", slots={"name": Seat(seat), "k": repr(k)})


def _check_sum(counts: Sequence[int], f: str, least: int, most: int, note: str = "", *,
               variant: str, aside: int = 0) -> None:
    """``variant``: which words say the sum (tricks, hearts, hearts-aside, hearts-unseen)."""
    if not least <= sum(counts) <= most:
        span = f"{least} to {most}" if least < most else f"{least}"
        exact = "-exact" if variant == "hearts-unseen" and least == most else ""
        raise TallyError(f"{span} {f} in all{note}, but these add up to {sum(counts)}", field=f,
                         rule="sum", slots={"variant": variant + exact, "n": least, "most": most,
                                            "total": sum(counts), "aside": aside})


def _check_last_tricks(table: _Table, takers: Sequence[int]) -> None:
    want = len(table.contract.last_tricks)
    if len(takers) != want:
        what = "the last trick" if want == 1 else f"each of the last {want} tricks"
        raise TallyError(f"say who took {what}", field="last_tricks", rule="last-tricks",
                         slots={"variant": "one" if want == 1 else "several", "n": want})
    for s in takers:
        _seat(table, s, "last_tricks")


def _check_named(table: _Table, t: Tally, fields: Sequence[str]) -> int:
    """Check the cards named one by one; return those that must be set aside (untaken)."""
    if t.queens is not None and len(t.queens) != 4:
        raise TallyError("one entry per queen: ♠ ♥ ♦ ♣", field="queens", rule="queens-length")
    untaken, last = 0, "queens"
    for f, x in named_cards(fields):
        seat = _taker(t, x)
        if seat is not None:
            _seat(table, seat, f)
        aside = table.set_aside
        if aside is not None and aside >> x & 1 and seat is not None:
            raise TallyError(f"{_card_name(x)} is set aside: nobody can take it", field=f,
                             rule="aside-taken", slots={"card": x})
        if seat is None and (aside is None or not aside >> x & 1):
            _untaken(table, f, x)
            untaken, last = untaken | 1 << x, f
    if untaken.bit_count() > table.game.set_aside_count:
        raise TallyError(f"no more than {_count(table.game.set_aside_count, 'card')} can be set aside: "
                         f"say who took {' or '.join(_card_name(x) for x in bits(untaken))}", field=last,
                         rule="too-many-untaken",
                         slots={"n": table.game.set_aside_count, "cards": list(bits(untaken))})
    return untaken


def _untaken(table: _Table, f: str, x: int) -> None:
    """A card nobody took: allowed only when it may be among set-aside cards not entered."""
    if table.set_aside is not None or not table.game.set_aside_count:
        raise TallyError(f"say who took {_card_name(x)}", field=f, rule="who-took", slots={"card": x})
    if x == KING_OF_HEARTS and table.contract.id == "king":
        raise TallyError("King of Hearts is not played with the K♥ set aside (RULES.md 2.1): "
                         "say who took the king of hearts", field=f, rule="king-aside")


def _check_hearts(table: _Table, t: Tally, fields: Sequence[str], untaken: int) -> None:
    hearts = t.hearts or ()
    _check_counts(table, hearts, "hearts")
    if table.set_aside is not None:
        aside = (table.set_aside & HEART_CARDS).bit_count()
        _check_sum(hearts, "hearts", 13 - aside, 13 - aside, f" ({aside} set aside)" if aside else "",
                   variant="hearts-aside" if aside else "hearts", aside=aside)
    else:
        # Unseen set-aside cards: the untaken queens and K♥ are among them, hearts fill the rest.
        room = table.game.set_aside_count - (untaken & ~HEART_CARDS).bit_count()
        _check_sum(hearts, "hearts", 13 - room, 13 - (untaken & HEART_CARDS).bit_count(),
                   f" (with {_count(table.game.set_aside_count, 'card')} set aside unseen)",
                   variant="hearts-unseen", aside=table.game.set_aside_count)
    for seat, count in enumerate(hearts):
        own = [x for f, x in named_cards(fields) if x // 13 == HEARTS and _taker(t, x) == seat]
        if len(own) > count:
            names = " and ".join(_card_name(x) for x in own)
            raise TallyError(Phrase("{s} took {c}, but is counted {n}", s=Seat(seat), c=names,
                                    n=_count(count, "heart")), field="hearts", seat=seat,
                             rule="hearts-short", slots={"name": Seat(seat), "cards": own, "n": count})


def _check_room(table: _Table, t: Tally, fields: Sequence[str]) -> None:
    """Nobody takes more scoring cards, or the last trick, than their tricks hold."""
    n = table.players
    tricks = t.tricks or ()
    for seat in range(n):
        named = [x for _, x in named_cards(fields) if _taker(t, x) == seat]
        cards = len(named) if "hearts" not in fields else (t.hearts or ())[seat] + sum(
            1 for x in named if x // 13 != HEARTS)
        if cards > tricks[seat] * n:
            raise TallyError(Phrase("{s} took {t} ({c}), but is counted {k}", s=Seat(seat),
                                    t=_count(tricks[seat], "trick"), c=_count(tricks[seat] * n, "card"),
                                    k=_count(cards, "scoring card")), field="tricks", seat=seat,
                             rule="room", slots={"name": Seat(seat), "counted": cards,
                                                 "tricks": tricks[seat], "held": tricks[seat] * n})
        if "last_tricks" in fields and seat in (t.last_tricks or ()) and not tricks[seat]:
            raise TallyError(Phrase("{s} took the last trick, but is counted no trick", s=Seat(seat)),
                             field="last_tricks", seat=seat, rule="last-no-trick",
                             slots={"name": Seat(seat)})


def _check_out(table: _Table, out: Sequence[int]) -> None:
    n = table.players
    c = table.contract
    least, most = (n - 1, n) if len(c.out_scores) == n else (len(c.out_scores),) * 2
    for s in out:
        _seat(table, s, "out")
    if not least <= len(out) <= most:
        want = "every player (the last may be left out)" if least == n - 1 else f"the first {least}"
        raise TallyError(f"say who went out, in order: {want} ({len(out)} given)", field="out",
                         rule="out-length", slots={"variant": "all" if least == n - 1 else "first",
                                                   "least": least, "n": len(out)})
    for place, s in enumerate(out):
        if s in out[:place]:
            first = out.index(s)
            raise TallyError(Phrase("{s} cannot be both {a} and {b} out", s=Seat(s),
                                    a=_PLACES[first], b=_PLACES[place]), field="out", seat=s,
                             rule="out-twice", slots={"name": Seat(s), "a": first + 1, "b": place + 1})


def _count(k: int, noun: str) -> str:
    return f"{k} {noun}" if k == 1 else f"{'no' if k == 0 else k} {noun}s"


def out_from_places(places: Sequence[int | None]) -> tuple[int, ...]:
    """The order of going out from each seat's place (1 first, None for no place yet).

    >>> out_from_places([2, None, 1, 3])
    (2, 0, 3)
    """
    by_place: dict[int, int] = {}
    for seat, place in enumerate(places):
        if place is None:
            continue
        if place in by_place:
            raise TallyError(Phrase("{a} and {b} cannot both be {p} out", a=Seat(by_place[place]),
                                    b=Seat(seat), p=_PLACES[place - 1] if 0 < place <= 6 else place),
                             field="out", seat=seat, rule="same-place",
                             slots={"a": Seat(by_place[place]), "b": Seat(seat), "place": place})
        by_place[place] = seat
    return tuple(by_place[p] for p in sorted(by_place))


# -- scoring -----------------------------------------------------------------

def contract_scores(game: Game, c: Contract, t: Tally, set_aside: int | None) -> list[int]:
    """Each seat's points from the contract alone; the count is checked first (:func:`check`)."""
    check(game, c, t, set_aside)
    n = game.players
    if c.out_scores:
        out = t.out or ()
        scores = [0] * n
        for place, seat in enumerate(out):
            scores[seat] = c.out_scores[place]
        if len(c.out_scores) == n and len(out) == n - 1:
            scores[next(s for s in range(n) if s not in out)] = c.out_scores[-1]
        return scores
    captured = taken_cards(game, c, t, set_aside)
    scores = [c.per_trick * (t.tricks[s] if t.tricks else 0)
              + sum(c.card_points[x] for x in bits(captured[s])) for s in range(n)]
    for k, seat in enumerate(t.last_tricks or ()):
        scores[seat] += c.last_tricks[k]
    return scores


def taken_cards(game: Game, c: Contract, t: Tally, set_aside: int | None) -> list[int]:
    """Scoring cards each seat may have taken for this count, as masks.

    The cards named one by one go to their takers; a seat's other hearts are any hearts in
    play no field names, lowest first: :func:`fields_of` has made sure they are all worth the
    same, so any such choice scores the same.
    """
    fields = fields_of(c)
    named = named_cards(fields)
    captured = [0] * game.players
    for _, x in named:
        seat = _taker(t, x)
        if seat is not None:
            captured[seat] |= 1 << x
    if t.hearts is None:
        return captured
    own = sum(1 << x for _, x in named)
    pool = [x for x in bits(HEART_CARDS & ~own & ~(set_aside or 0))]
    for seat, count in enumerate(t.hearts):
        extra = count - (captured[seat] & HEART_CARDS).bit_count()
        for x in pool[:extra]:
            captured[seat] |= 1 << x
        pool = pool[extra:]
    return captured


# -- JSON (the ``result`` of a score sheet's hand) ---------------------------

def from_json(obj: Any, game: Game, c: Contract) -> Tally:
    """A tally from its JSON form (RECORD.md, score sheets); shapes are checked, not sums."""
    if not isinstance(obj, dict):
        raise TallyError("the result is a JSON object of counts", field="result", rule="result-shape")
    known = set(fields_of(c))
    for key in obj:
        if key not in known:
            raise TallyError(f"{c.name} is not scored by '{key}'", field=str(key), rule="not-scored",
                             slots={"contract": c.id})
    return Tally(
        tricks=_ints(obj, "tricks"), last_tricks=_takers(obj, c),
        queens=_queens(obj) if "queens" in known else None, hearts=_ints(obj, "hearts"),
        king_of_hearts=_opt_seat(obj, "king_of_hearts"), ace_of_hearts=_opt_seat(obj, "ace_of_hearts"),
        out=_ints(obj, "out"))


def _ints(obj: dict[str, Any], key: str) -> tuple[int, ...] | None:
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(
            isinstance(x, int) and not isinstance(x, bool) for x in value):
        raise TallyError(f"'{key}' is a list of whole numbers", field=key, rule="not-a-list",
                         slots={"key": key})
    return tuple(value)


def _takers(obj: dict[str, Any], c: Contract) -> tuple[int, ...] | None:
    """The takers of the last tricks; one left blank (null) is a question still open, as if none."""
    value = obj.get("last_tricks")
    if isinstance(value, list) and None in value:
        raise TallyError(f"{c.name}: {_ASK['last_tricks']}", field="last_tricks", rule="missing",
                         slots={"variant": "last_tricks", "contract": c.id})
    return _ints(obj, "last_tricks")


def _opt_seat(obj: dict[str, Any], key: str) -> int | None:
    value = obj.get(key)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
        raise TallyError(f"'{key}' is a seat number or null", field=key, rule="not-a-seat-or-null",
                         slots={"key": key})
    return value


def _queens(obj: dict[str, Any]) -> tuple[int | None, ...] | None:
    value = obj.get("queens")
    if value is None:
        return None
    if not isinstance(value, dict) or not set(value) <= set(SUITS):
        raise TallyError("'queens' maps each suit (S, H, D, C) to the seat that took its queen",
                         field="queens", rule="queens-shape")
    out = []
    for s in SUITS:
        seat = value.get(s)
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
            raise TallyError(f"the queen of {SUIT_NAMES[SUITS.index(s)]}: a seat or null", field="queens",
                             rule="queen-seat", slots={"card": QUEEN_CARDS[SUITS.index(s)]})
        out.append(seat)
    return tuple(out)


def to_json(t: Tally) -> dict[str, Any]:
    """The JSON form of a tally: its fields that are set (queens by suit letter)."""
    out: dict[str, Any] = {}
    for f in FIELDS:
        value = getattr(t, f)
        if f == "queens" and value is not None:
            out[f] = {SUITS[s]: seat for s, seat in enumerate(value)}
        elif isinstance(value, tuple):
            out[f] = list(value)
        elif value is not None:
            out[f] = value
    return out
