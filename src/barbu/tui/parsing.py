"""Reading what a player types: cards, contracts, trump suits, ranks, doubles and commands.

Each parser turns forgiving text into an engine action (or part of one) and raises
:class:`InputError` with a message for the player when it cannot; whether the action
is *legal* is left to the engine, whose refusal names the rule.

>>> from barbu.engine.cards import parse_cards, card_str
>>> card_str(parse_play("t h", parse_cards("TH 9C"), [parse_cards("TH").bit_length() - 1]))
'TH'
>>> command_of(" Sheet "), command_of("qs")
('sheet', None)
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from barbu.engine.cards import (
    RANK_NAMES,
    SUIT_NAMES,
    TEN,
    card_pretty,
    parse_card,
    parse_rank,
    parse_suit,
    rank_pretty,
)
from barbu.engine.game import PASS, Game

COMMANDS = {
    "help": "help", "?": "help", "commands": "help",
    "sheet": "sheet", "score": "sheet", "scores": "sheet",
    "last": "last", "show": "show", "table": "show", "redraw": "show",
    "quit": "quit", "exit": "quit", "save": "quit",
    "hint": "hint", "coach": "hint",
}
PASS_WORDS = frozenset({"pass", "p", "knock", "stop", "no card"})
NONE_WORDS = frozenset({"none", "no", "nobody", "nothing", "-", "pass", "n"})
ALL_WORDS = frozenset({"all", "everyone", "everybody"})
_DOUBLE_VERBS = frozenset({"double", "doubles", "d", "x", "redouble", "redoubles", "r", "xx"})
_NUMBER_WORDS = {w: str(i) for i, w in enumerate(
    ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"), start=2)}
_CONTRACT_ALIASES = {"barbu": ("no-king", "king"), "fantan": ("dominoes",), "solitaire": ("reussite",)}


class InputError(ValueError):
    """Text that could not be read as an answer to the question asked; the message says why."""


def command_of(text: str) -> str | None:
    """The command a line names (``help``, ``sheet``, ``last``, ``show``, ``hint``, ``quit``), if any."""
    return COMMANDS.get(text.strip().lower())


def _fold(text: str) -> str:
    """Lower case, no accents, no spaces or punctuation: ``Réussite`` → ``reussite``."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]", "", plain.lower())


def read_card(text: str) -> int:
    """A card from ``QS``, ``q♠``, ``10h``, ``T H``, ``♥K`` or ``queen of spades``."""
    try:
        return parse_card(text)
    except ValueError:
        pass
    words = [w for w in text.lower().replace(",", " ").split() if w != "of"]
    if len(words) == 2:
        try:
            return parse_rank(_NUMBER_WORDS.get(words[0], words[0])) + 13 * parse_suit(words[1])
        except ValueError:
            pass
    raise InputError(f"'{text.strip()}' is not a card: type rank then suit, e.g. QS, 10h or K♥")


def parse_play(text: str, hand: int, legal: Sequence[int]) -> int:
    """A card (or PASS) from a line typed at the card prompt.

    A rank alone (``9``, ``q``) is enough when it names exactly one playable card.
    """
    t = text.strip().lower()
    if t in PASS_WORDS:
        return PASS
    try:
        return read_card(text)
    except InputError as err:
        try:
            rank = parse_rank(_NUMBER_WORDS.get(t, t))
        except ValueError:
            raise err from None
    playable = [c for c in legal if c < 52 and c % 13 == rank]
    held = [c for c in range(rank, 52, 13) if hand >> c & 1]
    if len(playable) == 1:
        return playable[0]
    if len(playable) > 1:
        options = " or ".join(card_pretty(c) for c in playable)
        first = playable[0]
        raise InputError(f"which one: {options}? Type the suit too, e.g. "
                         f"{rank_pretty(rank)}{'SHDC'[first // 13]} or "
                         f"{'ten' if rank == TEN else RANK_NAMES[rank]} of {SUIT_NAMES[first // 13]}")
    if len(held) == 1:
        return held[0]  # not playable: the engine will say which rule forbids it
    raise InputError(f"you have no {rank_pretty(rank)} you can play")


def parse_contract(text: str, game: Game, allowed: Sequence[int]) -> int:
    """A contract index from its number in the menu (1…7), its id, its name or a prefix of them.

    A prefix that fits several contracts is settled by those still allowed; a contract
    that is not allowed is returned all the same so that the engine can say why.
    """
    t = text.strip()
    if t.isdigit():
        number = int(t)
        if 1 <= number <= len(game.contracts):
            return number - 1
        raise InputError(f"there is no contract {number}: choose a number from 1 to {len(game.contracts)}")
    key = _fold(t)
    if not key:
        raise InputError("type the number or the name of a contract")
    for alias, ids in _CONTRACT_ALIASES.items():
        if key == alias:
            for i, c in enumerate(game.contracts):
                if c.id in ids:
                    return i
    matches = [i for i, c in enumerate(game.contracts) if _contract_fits(key, c.id, c.name)]
    if len(matches) > 1:
        narrowed = [i for i in matches if i in allowed]
        matches = narrowed or matches
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise InputError(f"no contract is called '{t}': type its number or name (see the list)")
    names = ", ".join(game.contracts[i].name for i in matches)
    raise InputError(f"'{t}' could be {names}: type more of the name, or its number")


def _contract_fits(key: str, cid: str, name: str) -> bool:
    forms = {_fold(cid), _fold(name)}
    forms |= {f[2:] for f in forms if f.startswith("no")}  # "queens" for No Queens
    return any(f.startswith(key) for f in forms)


def parse_trump(text: str) -> int:
    """A suit index from ``S``/``spades``/``♠``, or its place in the menu (1 ♠ … 4 ♣)."""
    t = text.strip().lower()
    t = t.removeprefix("trumps").removeprefix("trump").strip()
    if t in ("1", "2", "3", "4"):
        return int(t) - 1
    try:
        return parse_suit(t)
    except ValueError:
        raise InputError(f"'{text.strip()}' is not a suit: type S, H, D or C (or ♠ ♥ ♦ ♣)") from None


def parse_start_rank(text: str) -> int:
    """A rank index from ``J``, ``jack``, ``10``, ``T``, ``from 8`` …"""
    t = text.strip().lower()
    for word in ("rank", "from", "the"):
        t = t.removeprefix(word).strip()
    try:
        return parse_rank(_NUMBER_WORDS.get(t, t))
    except ValueError:
        raise InputError(f"'{text.strip()}' is not a rank: type A, K, Q, J, 10, 9 … or 2") from None


def parse_seats(text: str, names: Sequence[str], choices: int) -> int:
    """The seats a double or redouble names, as a mask.

    Seats are given by number (counted from 1, as the table shows them) or by (a prefix
    of) name, separated by spaces, commas or "and"; ``none`` is no one and ``all`` is
    every seat in ``choices``.

    >>> parse_seats("double 2 4", ["You", "Ben", "Cleo", "Dan"], 0b1110)
    10
    >>> parse_seats("cl, dan", ["You", "Ben", "Cleo", "Dan"], 0b1110), parse_seats("none", [], 7)
    (12, 0)
    """
    words = text.strip().lower().replace(",", " ").split()
    if words and words[0] in _DOUBLE_VERBS:
        words = words[1:]
    words = [w for w in words if w not in ("and", "&", "+")]
    if not words:
        raise InputError("say whom: seat numbers or names, 'all' or 'none'")
    if len(words) == 1 and words[0] in NONE_WORDS:
        return 0
    if len(words) == 1 and words[0] in ALL_WORDS:
        return choices
    mask = 0
    for w in words:
        mask |= 1 << _seat_of(w, names)
    return mask


def parse_seat_order(text: str, names: Sequence[str]) -> list[int]:
    """Seats named one after another, in the order given (numbers from 1, or names).

    >>> parse_seat_order("cleo, 1 then dan", ["Ann", "Ben", "Cleo", "Dan"])
    [2, 0, 3]
    """
    words = [w for w in text.strip().lower().replace(",", " ").split()
             if w not in ("and", "&", "+", "then")]
    if not words:
        raise InputError("say who: seat numbers or names")
    return [_seat_of(w, names) for w in words]


def _seat_of(word: str, names: Sequence[str]) -> int:
    if word.isdigit():
        seat = int(word)
        if 1 <= seat <= len(names):
            return seat - 1
        raise InputError(f"there is no seat {seat}: seats are 1 to {len(names)}")
    exact = [s for s, nm in enumerate(names) if nm.lower() == word]
    found = exact or [s for s, nm in enumerate(names) if nm.lower().startswith(word)]
    if len(found) == 1:
        return found[0]
    if found:
        raise InputError(f"'{word}' could be {' or '.join(names[s] for s in found)}: type more, "
                         "or the seat number")
    raise InputError(f"nobody at the table is called '{word}': use seat numbers or names")
