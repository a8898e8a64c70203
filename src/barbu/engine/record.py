"""Game records (RECORD.md): write a game, read one back, and replay it against the rules.

>>> import random
>>> state = State(Game.classic(), seed=5)
>>> rng = random.Random(5)
>>> while state.hand_no < 2:
...     _ = state.deal_random() if state.phase == Phase.DEAL else state.apply(
...         rng.choice(state.legal_actions()))
>>> doc = to_record(state, ["Ann", "Ben", "Cleo", "Dan"])
>>> result = replay(doc)
>>> result.to_json()["totals"] == state.totals, len(result.hands)
(True, 2)
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from barbu.engine.cards import (
    FULL_DECK,
    RANKS,
    SUITS,
    bits,
    card_str,
    mask_str,
    parse_card,
    parse_cards,
    parse_rank,
    parse_suit,
)
from barbu.engine.errors import Count, IllegalActionError, IllegalDealError, Phrase, RecordError, Seat
from barbu.engine.game import CONTRACT, DOUBLE, PASS, RANK, REDOUBLE, TRUMP, Game
from barbu.engine.state import HandRecord, Phase, State, split_doubles

FORMAT = "barbu-record/1"


@dataclass
class ReplayResult:
    """A replayed record: the state after its last action and each hand's outcome."""

    state: State
    hands: list[HandRecord]  # finished hands, then the unfinished last one if any

    @property
    def unfinished(self) -> bool:
        return bool(self.hands) and not self.hands[-1].finished

    def to_json(self) -> dict[str, Any]:
        """The object ``barbu replay --json`` prints (RECORD.md)."""
        g = self.state.game
        hands: list[dict[str, Any]] = []
        for h in self.hands:
            entry: dict[str, Any] = {"declarer": h.declarer, "contract": h.contract,
                                     "contract_scores": list(h.contract_scores),
                                     "scores": list(h.scores)}
            if not h.finished:
                entry["finished"] = False
            hands.append(entry)
        return {"ruleset": g.ruleset, "hands": hands, "totals": list(self.state.totals),
                "complete": self.state.is_over, "winners": self.state.winners()}


# -- reading -----------------------------------------------------------------

def load(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a record file as JSON; a file that is not JSON is a RecordError."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except IsADirectoryError as e:
        raise RecordError("cannot read it: it is a folder, not a file") from e
    except OSError as e:
        raise RecordError(f"cannot read it: {(e.strerror or str(e)).lower()}") from e
    except UnicodeDecodeError as e:
        raise RecordError("not a barbu record: it is not UTF-8 text "
                          f"(byte {e.start} is 0x{e.object[e.start]:02x})") from e
    if not text.strip():
        raise RecordError("not a barbu record: the file is empty")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise RecordError(f"not a JSON document: {e.msg} at line {e.lineno}") from e
    except RecursionError as e:
        raise RecordError("not a barbu record: its JSON is nested too deeply") from e
    except ValueError as e:
        # Python refuses to convert integers of more than 4300 digits (a guard against slow
        # parsing); no field of a record holds such a number.
        raise RecordError("not a barbu record: a number in it is too long") from e
    if not isinstance(doc, dict):
        raise RecordError("not a barbu record: a record is a JSON object")
    return doc


def read_field(obj: dict[str, Any], key: str, kind: type | tuple[type, ...], hand: int | None,
           *, required: bool = True, default: Any = None) -> Any:
    if key not in obj or obj[key] is None:
        if required:
            raise RecordError(f"the field '{key}' is missing", hand=hand)
        return default
    value = obj[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise RecordError(f"the field '{key}' has the wrong type", hand=hand)
    return value


def game_of(doc: dict[str, Any], form: str = FORMAT) -> tuple[Game, list[str]]:
    """The game a record (or a document of the format ``form``) describes, and its players' names."""
    fmt = doc.get("format")
    if fmt is None:
        raise RecordError(f"the field 'format' is missing (it is '{form}')")
    if fmt != form:
        raise RecordError(f"the field 'format' must be '{form}', not {fmt!r}")
    ruleset = read_field(doc, "ruleset", str, None)
    players = read_field(doc, "players", list, None)
    options = read_field(doc, "options", list, None, required=False, default=[])
    check_names(players)
    if not all(isinstance(o, str) for o in options):
        raise RecordError("the field 'options' must list option names")
    deck, contracts = _smaller_game(doc)
    rounds = read_field(doc, "rounds", int, None, required=False, default=0)
    try:
        game = Game(ruleset, len(players), frozenset(options), deck=deck, contract_ids=contracts,
                    rounds=rounds)
    except ValueError as e:
        raise RecordError(f"{e}") from e
    return game, players


def _smaller_game(doc: dict[str, Any]) -> tuple[int, tuple[str, ...]]:
    """The optional fields of a smaller game (Mini-Barbu): its deck and the contracts it plays."""
    deck_text = read_field(doc, "deck", str, None, required=False, default=None)
    contracts = read_field(doc, "contracts", list, None, required=False, default=[])
    if not all(isinstance(c, str) for c in contracts):
        raise RecordError("the field 'contracts' must list contract names")
    try:
        deck = FULL_DECK if deck_text is None else parse_cards(deck_text)
    except ValueError as e:
        raise RecordError(f"the field 'deck': {e}") from e
    return deck, tuple(contracts)


def check_names(players: list[Any]) -> None:
    """Every player has a name of his own: the sheet and the messages tell them apart by it."""
    if not all(isinstance(p, str) for p in players):
        raise RecordError("the field 'players' must list names")
    for k, name in enumerate(players):
        if not name.strip():
            raise RecordError(f"the field 'players' has a blank name (the name of seat {k})")
        if name.strip() in (p.strip() for p in players[:k]):
            raise RecordError(f"the field 'players' names {name.strip()!r} twice: "
                              "each player needs a name of his own")


PUBLIC_RECORD = ("the field 'deal' is missing: this is the public record of a game still being "
                 "played (a web table's record download before the end), which holds no deals "
                 "to check; download the record again once the game is over")


def is_public_record(doc: dict[str, Any]) -> bool:
    """A web table's record of a game in progress: no seed, and no hand has a ``deal``."""
    hands = doc.get("hands")
    return ("seed" not in doc and isinstance(hands, list) and bool(hands)
            and all(isinstance(h, dict) and "deal" not in h for h in hands))


def _deal_of(hand: dict[str, Any], game: Game, i: int) -> tuple[list[int], int]:
    deal = read_field(hand, "deal", list, i)
    if len(deal) != game.players or not all(isinstance(d, str) for d in deal):
        raise RecordError(f"the deal must give one string of cards to each of the "
                          f"{game.players} seats", hand=i)
    set_aside_field = hand.get("set_aside") or []
    if isinstance(set_aside_field, list):
        set_aside_field = " ".join(str(x) for x in set_aside_field)
    if not isinstance(set_aside_field, str):
        raise RecordError("the field 'set_aside' must list cards", hand=i)
    hands = []
    for seat, text in enumerate(deal):
        try:
            hands.append(parse_cards(text))
        except ValueError as e:
            raise RecordError(Phrase("the deal of {s}: {e}", s=Seat(seat), e=str(e)),
                              hand=i, seat=seat) from e
    # RecordError is a ValueError: a seat's error must not be caught again as a set-aside one.
    try:
        set_aside = parse_cards(set_aside_field)
    except ValueError as e:
        raise RecordError(f"set-aside cards: {e}", hand=i) from e
    return hands, set_aside


def _double_masks(pairs: list[Any], state: State, i: int) -> tuple[list[int], list[int]]:
    """Check the record's directed pairs and split them into each seat's doubles and redoubles."""
    n = state.game.players
    for p in pairs:
        if (not isinstance(p, list) or len(p) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < n for x in p)):
            raise RecordError(f"a double must be a pair [from, to] of seats 0..{n - 1}, not {p!r}",
                              hand=i)
        if p[0] == p[1]:
            raise RecordError(Phrase("{s} cannot double himself", s=Seat(p[0])), hand=i,
                              seat=p[0])
    return split_doubles([(a, b) for a, b in pairs], state.declarer, n)


def apply_setup(state: State, hand: dict[str, Any], i: int) -> None:
    """Contract, trump or starting rank, and doubles of one hand."""
    game = state.game
    contract_id = read_field(hand, "contract", str, i)
    try:
        index = game.contract_index(contract_id)
    except ValueError as e:
        raise RecordError(str(e), hand=i) from e
    _apply(state, CONTRACT + index, i, None)
    c = game.contracts[index]
    trump, rank = hand.get("trump"), hand.get("start_rank")
    if c.trumps:
        try:
            suit = parse_suit(str(trump))
        except ValueError as e:
            raise RecordError(_needs("Trumps", "trump", trump, "suit (S, H, D or C)"), hand=i,
                              seat=state.declarer) from e
        _apply(state, TRUMP + suit, i, None)
    elif trump is not None:
        raise RecordError(f"the field 'trump' is only for Trumps, not {c.name}", hand=i)
    if state.phase == Phase.START_RANK:
        try:
            start = parse_rank(str(rank))
        except ValueError as e:
            raise RecordError(_needs("Dominoes", "start_rank", rank, "rank (2 … A, T for the ten)"),
                              hand=i, seat=state.declarer) from e
        _apply(state, RANK + start, i, None)
    elif rank is not None:
        raise RecordError(f"the field 'start_rank' is only for classic Dominoes, not {c.name}",
                          hand=i)
    pairs = read_field(hand, "doubles", list, i, required=False, default=[])
    if not game.is_classic:
        if pairs:
            raise RecordError("family rounds have no doubles", hand=i)
        return
    doubles, redoubles = _double_masks(pairs, state, i)
    while state.phase == Phase.DOUBLE:
        _apply(state, DOUBLE + doubles[state.current], i, None)
    while state.phase == Phase.REDOUBLE:
        _apply(state, REDOUBLE + redoubles[state.current], i, None)
    for seat in range(game.players):
        if redoubles[seat] and not state.redoubled[seat] == redoubles[seat]:
            raise RecordError(Phrase("{s} redoubles a player who did not double them",
                                     s=Seat(seat)), hand=i, seat=seat)


def _needs(contract: str, key: str, value: object, what: str) -> str:
    """Why a contract's field is refused: missing, or there but not what it must be."""
    if value is None:
        return f"{contract} needs the field '{key}': a {what}"
    return f"the field '{key}' must be a {what}, not {json.dumps(value, ensure_ascii=False)}"


def _apply(state: State, action: int, i: int, j: int | None) -> None:
    seat = state.current
    try:
        state.apply(action)
    except IllegalActionError as e:
        # A record has readers, not players: the rule is said of the seat, not to it.
        raise RecordError(Phrase("{p} {about}", p=Seat(seat, "the player"), about=e.said_about),
                          hand=i, action=j, seat=seat) from e


OnAction = Callable[[int, int, State, int], None]


def replay(doc: dict[str, Any], on_action: OnAction | None = None) -> ReplayResult:
    """Check a record against every rule and score it; raise RecordError at the first fault.

    ``on_action(hand, index, state, action)``, when given, sees the state just before
    each play action is applied (``barbu analyze`` uses it).
    """
    game, _ = game_of(doc)
    if is_public_record(doc):
        # Said before any hand is read: "hand 1: the field 'deal' is missing" would not say why.
        raise RecordError(PUBLIC_RECORD)
    hands = read_field(doc, "hands", list, None)
    seed = doc.get("seed")
    seeded = isinstance(seed, int) and not isinstance(seed, bool)
    # With no hand recorded yet, the seed draws the first declarer, as it did in the game.
    first: int | None = None if seeded else 0
    if hands:
        if not isinstance(hands[0], dict):
            raise RecordError("each hand must be a JSON object", hand=0)
        first = declarer_of(hands[0], game, 0)
    state = State(game, seed=seed if seeded else 0, first_declarer=first)
    if len(hands) > game.num_hands:
        raise RecordError(f"a game has {game.num_hands} hands, this record has {len(hands)}",
                          hand=game.num_hands)
    unfinished: HandRecord | None = None
    for i, hand in enumerate(hands):
        if not isinstance(hand, dict):
            raise RecordError("each hand must be a JSON object", hand=i)
        unfinished = _replay_hand(state, hand, i, i == len(hands) - 1, on_action)
    out = list(state.history)
    if unfinished is not None:
        out.append(unfinished)
    return ReplayResult(state, out)


def declarer_of(hand: dict[str, Any], game: Game, i: int) -> int:
    """A hand's declarer, a seat of this table (numbered from 0, as the record writes it)."""
    declarer: int = read_field(hand, "declarer", int, i)
    if not 0 <= declarer < game.players:
        # The value is quoted as the file has it (not as a seat for people: it is none).
        digits = len(str(abs(declarer)))
        value = str(declarer) if digits <= 40 else f"a number of {digits} digits"
        raise RecordError(f"the field 'declarer' must be a seat 0 to {game.players - 1} "
                          f"(a record counts its seats from 0), not {value}", hand=i)
    return declarer


def _replay_hand(state: State, hand: dict[str, Any], i: int, last: bool,
                 on_action: OnAction | None) -> HandRecord | None:
    game = state.game
    declarer = declarer_of(hand, game, i)
    if declarer != state.declarer:
        who = "declarer" if game.is_classic else "chooser"
        raise RecordError(Phrase("the {w} of this hand must be {a} (rotation of the rules), not {b}",
                                 w=who, a=Seat(state.declarer), b=Seat(declarer)),
                          hand=i, seat=declarer)
    deal, set_aside = _deal_of(hand, game, i)
    try:
        dealt = state.deal(deal, set_aside)
    except IllegalDealError as e:
        raise RecordError(Phrase("bad deal: {e}", e=e.said), hand=i) from e
    if not dealt:
        raise RecordError("K♥ is set aside and King of Hearts is the chooser's only challenge "
                          "left: this round must be redealt", hand=i, seat=declarer)
    apply_setup(state, hand, i)
    actions = read_field(hand, "actions", list, i, required=False, default=[])
    for j, text in enumerate(actions):
        if state.hand_no != i:
            raise RecordError(Phrase("the hand ended after {a}; {b} is one too many",
                                     a=Count("action", j - 1), b=Count("action", j)),
                              hand=i, action=j)
        seat = state.current
        try:
            if not isinstance(text, str):
                raise ValueError(f"{text!r}")
            action = PASS if text.strip().lower() == "pass" else parse_card(text)
        except ValueError as e:
            raise RecordError(f"{e}: an action is a card or \"pass\"", hand=i, action=j,
                              seat=seat) from e
        if on_action is not None and state.is_legal(action):
            on_action(i, j, state, action)
        _apply(state, action, i, j)
    if state.hand_no == i:
        if not last:
            raise RecordError(f"the hand stops after {len(actions)} actions, before it ends",
                              hand=i, action=len(actions), seat=state.current)
        return state.current_record(finished=False)
    return None


# -- writing -----------------------------------------------------------------

def hand_to_json(h: HandRecord, game: Game) -> dict[str, Any]:
    return {
        "declarer": h.declarer,
        "deal": [mask_str(m) for m in h.deal],
        "set_aside": [card_str(c) for c in bits(h.set_aside)],
        "contract": h.contract,
        "trump": SUITS[h.trump] if h.trump is not None else None,
        "start_rank": RANKS[h.start_rank] if h.start_rank is not None else None,
        "doubles": [list(p) for p in h.doubles],
        "actions": [game.action_str(a) for a in h.actions],
    }


def to_record(state: State, players: Sequence[str], public: bool = False) -> dict[str, Any]:
    """The record of a game so far; a hand still in play is included once its doubles are done.

    The extension field ``seed`` lets ``barbu play --resume`` deal the hands still to come
    exactly as the original game would have. ``public=True`` leaves out what would tell a
    player hidden cards: the hand in play (its deal) and, until the game is over, the seed.
    """
    g = state.game
    hands = [hand_to_json(h, g) for h in state.history]
    if state.phase == Phase.PLAY and not public:
        hands.append(hand_to_json(state.current_record(), g))
    doc: dict[str, Any] = {"format": FORMAT, "ruleset": g.ruleset, "options": sorted(g.options),
                           "players": list(players)}
    if g.deck != FULL_DECK:
        doc["deck"] = mask_str(g.deck)
    if g.contract_ids:
        doc["contracts"] = list(g.contract_ids)
    if g.rounds:
        doc["rounds"] = g.rounds
    if not public or state.is_over:
        doc["seed"] = state.seed
    doc["hands"] = hands
    return doc


def dump(doc: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """Write a record atomically (a crash never leaves half a file)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(target.suffix + ".tmp")
    tmp.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, target)
