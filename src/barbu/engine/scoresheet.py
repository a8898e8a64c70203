"""Score sheets (RECORD.md, ``barbu-sheet/1``): games played with real cards, checked and scored.

A sheet is a record without deals or card play: each hand keeps its declarer, contract,
trump or starting rank, doubles and the result as counted (:mod:`barbu.engine.tally`). It is
replayed through the same :class:`~barbu.engine.state.State` as a game, so the rotation,
the contracts still open, the compulsory doubles and the settlement are the engine's own;
only the cards are replaced by :meth:`State.finish_from`.

>>> from barbu.engine.game import Game
>>> doc = new_sheet(Game.classic(), ["Ann", "Ben", "Cleo", "Dan"], first_declarer=0)
>>> doc = add_hand(doc, {"declarer": 0, "contract": "no-queens",
...                      "doubles": [[1, 0], [1, 2], [1, 3], [2, 0], [0, 2]],
...                      "result": {"queens": {"S": 0, "H": 2, "D": 3, "C": 3}}})
>>> replay_sheet(doc).to_json()["totals"]
[-12, 24, -12, -24]
>>> next_hand(replay_sheet(doc).state)["compulsory"], len(doc["hands"])
([], 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from barbu.engine import doubling, tally
from barbu.engine.cards import FULL_DECK, bits, card_str, parse_cards
from barbu.engine.contracts import Kind
from barbu.engine.errors import IllegalActionError, Phrase, RecordError, Seat, SheetError, TallyError
from barbu.engine.game import Game, seats_of
from barbu.engine.hand import Phase
from barbu.engine.record import ReplayResult, apply_setup, declarer_of, game_of, read_field
from barbu.engine.state import State

FORMAT = "barbu-sheet/1"
# Where a hand's setup was refused, by the phase the state stayed in.
_SETUP_FIELD = {Phase.CHOOSE: "contract", Phase.TRUMP: "trump", Phase.START_RANK: "start_rank",
                Phase.DOUBLE: "doubles", Phase.REDOUBLE: "doubles",
                Phase.PLAY: "doubles"}  # past the last phase, only the doubles are left to check


def new_sheet(game: Game, names: Sequence[str], first_declarer: int | None = None) -> dict[str, Any]:
    """An empty sheet; ``first_declarer`` None leaves it to the first hand entered."""
    if len(names) != game.players:
        raise ValueError(f"{game.players} players, but {len(names)} names")
    doc: dict[str, Any] = {"format": FORMAT, "ruleset": game.ruleset, "options": sorted(game.options),
                           "players": list(names)}
    if first_declarer is not None:
        if not 0 <= first_declarer < game.players:
            raise ValueError(f"no seat {first_declarer} at this table")
        doc["first_declarer"] = first_declarer
    doc["hands"] = []
    return doc


def sheet_hand(declarer: int, contract: str, result: tally.Tally, *, trump: str | None = None,
               start_rank: str | None = None, doubles: Sequence[tuple[int, int]] = (),
               set_aside: int | None = None) -> dict[str, Any]:
    """One hand of a sheet in its JSON form (trump ``"H"``, rank ``"J"``, as in records)."""
    hand: dict[str, Any] = {"declarer": declarer, "contract": contract, "trump": trump,
                            "start_rank": start_rank, "doubles": [list(p) for p in doubles]}
    if set_aside is not None:
        hand["set_aside"] = [card_str(c) for c in bits(set_aside)]
    hand["result"] = tally.to_json(result)
    return hand


# -- replaying ---------------------------------------------------------------

def replay_sheet(doc: dict[str, Any]) -> ReplayResult:
    """Check a sheet against every rule and score it; raise SheetError at the first fault."""
    try:
        game, _ = game_of(doc, FORMAT)
    except RecordError as e:
        raise SheetError(e.said, code="sheet:record") from e
    hands = _read(doc, "hands", list, None)
    state = State(game, seed=0, first_declarer=_first_declarer(doc, hands, game))
    if len(hands) > game.num_hands:
        raise SheetError(f"a game has {game.num_hands} hands, this sheet has {len(hands)}",
                         hand=game.num_hands, code="sheet:record")
    for i, hand in enumerate(hands):
        if not isinstance(hand, dict):
            raise SheetError("each hand must be a JSON object", hand=i, code="sheet:record")
        score_hand(state, hand, i)
    return ReplayResult(state, list(state.history))


def _read(obj: dict[str, Any], key: str, kind: type, hand: int | None) -> Any:
    try:
        return read_field(obj, key, kind, hand)
    except RecordError as e:
        raise SheetError(e.said, hand=hand, field=key, code="sheet:record") from e


def _first_declarer(doc: dict[str, Any], hands: list[Any], game: Game) -> int:
    first = doc.get("first_declarer")
    if first is None and hands and isinstance(hands[0], dict):
        first = hands[0].get("declarer")
    if first is None:
        return 0
    if not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < game.players:
        raise SheetError(f"the first declarer must be a seat 0 to {game.players - 1}, not {first!r}",
                         field="first_declarer", code="sheet:record")
    return first


def score_hand(state: State, hand: dict[str, Any], i: int) -> None:
    """Check one hand of a sheet against ``state`` (at the hand's deal) and score it."""
    game = state.game
    try:
        declarer = declarer_of(hand, game, i)
    except RecordError as e:
        raise SheetError(e.said, hand=i, field="declarer", code="sheet:record") from e
    if declarer != state.declarer:
        who = "declarer" if game.is_classic else "chooser"
        raise SheetError(Phrase("the {w} of this hand must be {a} (rotation of the rules), not {b}",
                                w=who, a=Seat(state.declarer), b=Seat(declarer)),
                         hand=i, seat=declarer, field="declarer", code="sheet:rotation",
                         slots={"variant": who, "a": Seat(state.declarer), "b": Seat(declarer)})
    set_aside = set_aside_of(hand, game, i)
    deal_unseen(state, set_aside, i)
    try:
        apply_setup(state, hand, i)
    except RecordError as e:
        code, slots = _setup_refusal(state, e, hand.get("contract"))
        raise SheetError(e.said, hand=i, seat=e.seat, field=_SETUP_FIELD.get(state.phase), code=code,
                         slots=slots) from e
    c = game.contracts[game.contract_index(hand["contract"])]
    try:
        scores = tally.contract_scores(game, c, tally.from_json(_read(hand, "result", dict, i), game, c),
                                       set_aside)
    except TallyError as e:
        raise SheetError(e.said, hand=i, seat=e.seat, field=f"result.{e.field}", code=f"tally:{e.rule}",
                         slots={**e.slots, "contract": c.id}) from e
    if state.hand_no == i:  # else the hand ended at once: every card it scores is set aside
        state.finish_from(scores)


def _setup_refusal(state: State, e: RecordError, asked: object) -> tuple[str, dict[str, object]]:
    """The code and values of a refused contract, trump, rank or double (the rule the engine named)."""
    cause = e.__cause__
    if not isinstance(cause, IllegalActionError) or not cause.rule:
        return "sheet:record", {}
    slots: dict[str, object] = {"declarer": Seat(state.declarer)}
    contract = state.contract.id if state.contract is not None else asked
    if isinstance(contract, str):
        slots["contract"] = contract  # the one chosen, or the one refused
    if state.phase == Phase.DOUBLE and e.seat is not None:
        slots["owed"], slots["left"] = state.owed_doubles(e.seat), state.hands_left_for_declarer()
    return f"illegal:{cause.rule}", slots


def set_aside_of(hand: dict[str, Any], game: Game, i: int) -> int | None:
    """The set-aside cards a hand lists, or None when they were not entered (unknown)."""
    listed = hand.get("set_aside")
    if listed is None or not game.set_aside_count:
        if listed:
            raise SheetError("only family rounds with 3, 5 or 6 players set cards aside",
                             hand=i, field="set_aside", code="sheet:aside-none")
        return None if game.set_aside_count else 0
    if not isinstance(listed, list) or not all(isinstance(x, str) for x in listed):
        raise SheetError("the field 'set_aside' must list cards", hand=i, field="set_aside",
                         code="sheet:record")
    try:
        cards = parse_cards(" ".join(listed))
    except ValueError as e:
        raise SheetError(f"set-aside cards: {e}", hand=i, field="set_aside", code="sheet:aside-card",
                         slots={"typed": " ".join(listed)}) from e
    if cards.bit_count() != len(listed) or len(listed) != game.set_aside_count:
        raise SheetError(f"{game.set_aside_count} different cards are set aside with {game.players} "
                         f"players, not {len(listed)}", hand=i, field="set_aside", code="sheet:aside-count",
                         slots={"n": game.set_aside_count, "given": len(listed)})
    return cards


def deal_unseen(state: State, set_aside: int | None, i: int) -> None:
    """Deal a hand whose cards nobody entered: the set-aside cards, and a stand-in for the rest.

    The stand-in hands are never played (the hand is scored from its count), but the deal is
    the engine's own step, so a set-aside K♥ closes King of Hearts as in a game. Unknown
    set-aside cards stand in as low clubs, which no contract scores.
    """
    game = state.game
    aside = set_aside if set_aside is not None else sum(1 << c for c in range(39, 39 + game.set_aside_count))
    rest = [c for c in bits(FULL_DECK & ~aside)]
    size = game.hand_size
    hands = [sum(1 << c for c in rest[s * size:(s + 1) * size]) for s in range(game.players)]
    if not state.deal(hands, aside):
        raise SheetError("K♥ is set aside and King of Hearts is the chooser's only challenge left: "
                         "the cards must be dealt again, and only the deal played is entered",
                         hand=i, seat=state.declarer, field="set_aside", code="sheet:redeal")


# -- editing -----------------------------------------------------------------

def add_hand(doc: dict[str, Any], hand: dict[str, Any]) -> dict[str, Any]:
    """The sheet with ``hand`` added at the end; SheetError (``doc`` unchanged) if it is refused."""
    new = {**doc, "hands": [*_hands(doc), hand]}
    replay_sheet(new)
    return new


def replace_hand(doc: dict[str, Any], k: int, hand: dict[str, Any]) -> dict[str, Any]:
    """The sheet with hand ``k`` (from 0) replaced and every later hand scored again.

    An edit that makes a later hand impossible (its contract now a repeat, a compulsory
    double no longer made …) is refused with the later hand's number in the error.
    """
    hands = _hands(doc)
    if not 0 <= k < len(hands):
        raise SheetError(f"there is no hand {k} to edit (the sheet has {len(hands)})", hand=k,
                         code="sheet:no-hand", slots={"hand": k + 1, "n": len(hands)})
    new = {**doc, "hands": [*hands[:k], hand, *hands[k + 1:]]}
    try:
        replay_sheet(new)
    except SheetError as e:
        if e.hand is None or e.hand <= k:
            raise
        raise SheetError(Phrase("after this edit, this later hand no longer fits: {m}", m=e.said),
                         hand=e.hand, seat=e.seat, field=e.field, code="sheet:later-hand",
                         slots={"hand": e.hand + 1, "why": e}) from e
    return new


def undo_last(doc: dict[str, Any]) -> dict[str, Any]:
    """The sheet without its last hand."""
    hands = _hands(doc)
    if not hands:
        raise SheetError("there is no hand to take back", code="sheet:nothing-to-undo")
    return {**doc, "hands": hands[:-1]}


def _hands(doc: dict[str, Any]) -> list[Any]:
    hands = doc.get("hands", [])
    if not isinstance(hands, list):
        raise SheetError("the field 'hands' has the wrong type", field="hands", code="sheet:record")
    return list(hands)


# -- what the next hand needs --------------------------------------------------

def next_hand(state: State) -> dict[str, Any]:
    """What a page asks for the next hand of a replayed sheet (``replay_sheet(doc).state``).

    Seats count from 0. ``may_double`` lists, per seat, whom it may double in a negative and
    in a positive contract; ``owed_doubles`` the doubles each seat still owes the declarer in
    the ``hands_left`` hands he still declares (this one counted), and ``compulsory`` the seats
    that must double him in this hand (RULES.md 1.4). A contract's ``places`` are the places
    its order of going out pays (0: it is not scored by going out).
    """
    game = state.game
    base = {"totals": list(state.totals), "complete": state.is_over, "winners": state.winners()}
    if state.is_over:
        return {"hand": None, "declarer": None, **base}
    n, d = game.players, state.declarer

    def targets(positive: bool) -> list[list[int]]:
        blank = [0] * n
        return [[] if s == d else seats_of(doubling.double_targets(s, d, positive, blank))
                for s in range(n)]

    open_ = set(state.available_contracts(d))
    contracts = [{"id": c.id, "name": c.name, "open": i in open_, "positive": c.positive,
                  "asks": "trump" if c.trumps else "start_rank" if c.kind == Kind.DOMINOES else None,
                  "result": list(tally.fields_of(c)), "places": len(c.out_scores)}
                 for i, c in enumerate(game.contracts)]
    return {
        "hand": state.hand_no, "declarer": d, "contracts": contracts,
        "set_aside_count": game.set_aside_count,
        "hands_left": state.hands_left_for_declarer(),
        "may_double": {"negative": targets(False), "positive": targets(True)} if game.is_classic else None,
        "owed_doubles": [state.owed_doubles(s) for s in range(n)],
        "compulsory": [s for s in range(n) if state.double_is_compulsory(s)],
        **base,
    }
