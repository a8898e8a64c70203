"""Score sheets (barbu-sheet/1): golden hands, every kind of refusal (the sheet unchanged), edits, undo."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import EXAMPLES
from tests.engine_helpers import NAMES

from barbu.engine.errors import IllegalActionError, SheetError, TallyError
from barbu.engine.game import Game
from barbu.engine.hand import Phase
from barbu.engine.record import load
from barbu.engine.scoresheet import (
    add_hand,
    new_sheet,
    next_hand,
    replace_hand,
    replay_sheet,
    sheet_hand,
    undo_last,
)
from barbu.engine.state import State
from barbu.engine.tally import Tally, check, contract_scores, from_json, out_from_places
from barbu.wording import renumber

pytestmark = pytest.mark.engine  # run again on the pure-Python engine (./test.sh, docs/TESTING.md)

SHEETS = sorted(p for p in (EXAMPLES / "sheets").glob("*.json") if not p.name.endswith(".expected.json"))
CLASSIC = Game.classic()
Doc = dict[str, Any]


def sheet(game: Game = CLASSIC, first: int = 0) -> Doc:
    return new_sheet(game, list(NAMES[:game.players]), first)


def hand(declarer: int, contract: str, result: Doc, **extra: Any) -> Doc:
    return {"declarer": declarer, "contract": contract, **extra, "result": result}


def refused(doc: Doc, new: Doc, field: str | None, *words: str, hand_no: int | None = None) -> SheetError:
    """Adding ``new`` is refused for ``field`` with ``words`` in the message; ``doc`` is unchanged."""
    before = copy.deepcopy(doc)
    with pytest.raises(SheetError) as info:
        add_hand(doc, new)
    err = info.value
    assert doc == before
    assert err.field == field, err.message
    assert err.hand == (len(doc["hands"]) if hand_no is None else hand_no)
    for w in words:
        assert w.lower() in err.message.lower(), f"{w!r} not in {err.message!r}"
    assert err.to_json() == {"error": {"hand": err.hand, "action": None, "seat": err.seat,
                                       "message": err.message}}
    return err


# -- golden ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", SHEETS, ids=lambda p: p.stem)
def test_example_sheets_score_as_worked_out_by_hand(path: Path) -> None:
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text(encoding="utf-8"))
    expected.pop("why")
    assert replay_sheet(load(path)).to_json() == expected


def test_the_doubling_example_of_the_rules() -> None:
    # RULES.md 1.5: B doubles A, C and D; C doubles A; A redoubles C; queens A 1, C 1, D 2.
    doc = add_hand(sheet(), sheet_hand(0, "no-queens", Tally(queens=(0, 2, 3, 3)),
                                       doubles=[(1, 0), (1, 2), (1, 3), (2, 0), (0, 2)]))
    h = replay_sheet(doc).to_json()["hands"][0]
    assert h["contract_scores"] == [-6, 0, -6, -12]
    assert h["scores"] == [-12, 24, -12, -24]


@pytest.mark.parametrize(("game", "contract", "result", "scores"), [
    (CLASSIC, "no-tricks", {"tricks": [4, 3, 6, 0]}, [-8, -6, -12, 0]),
    (CLASSIC, "no-hearts", {"hearts": [5, 3, 3, 2], "ace_of_hearts": 0}, [-14, -6, -6, -4]),
    (CLASSIC, "no-last-two", {"last_tricks": [1, 3]}, [0, -10, 0, -20]),
    (CLASSIC, "no-last-two", {"last_tricks": [2, 2]}, [0, 0, -30, 0]),
    (CLASSIC, "no-king", {"king_of_hearts": 3}, [0, 0, 0, -20]),
    (CLASSIC, "dominoes", {"out": [2, 0, 3, 1]}, [20, -5, 45, 5]),
    (Game.classic(("dominoes-40",)), "dominoes", {"out": [2, 0, 3]}, [25, -10, 40, 10]),
    (Game.family(3), "king", {"king_of_hearts": 2}, [0, 0, 100]),
    (Game.family(3), "hearts", {"hearts": [0, 13, 0]}, [0, 130, 0]),
    (Game.family(6), "tricks", {"tricks": [8, 0, 0, 0, 0, 0]}, [80, 0, 0, 0, 0, 0]),
    (Game.family(4), "last-trick", {"last_tricks": [3]}, [0, 0, 0, 100]),
    (Game.family(4), "reussite", {"out": [3, 1]}, [0, -50, 0, -100]),
], ids=lambda x: x if isinstance(x, str) else "")
def test_each_contract_scores_its_count(game: Game, contract: str, result: Doc,
                                        scores: list[int]) -> None:
    extra = {"start_rank": "7"} if contract == "dominoes" else {}
    doc = add_hand(sheet(game), hand(0, contract, result, **extra))
    assert replay_sheet(doc).to_json()["hands"][0]["contract_scores"] == scores


def test_six_players_with_every_queen_set_aside_score_nothing() -> None:
    doc = add_hand(sheet(Game.family(6)), hand(0, "queens", {"queens": {}},
                                                set_aside=["QS", "QH", "QD", "QC"]))
    assert replay_sheet(doc).to_json()["hands"][0]["scores"] == [0] * 6


# -- refused counts ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("game", "new", "field", "words"), [
    (CLASSIC, hand(0, "no-tricks", {"tricks": [4, 3, 3, 2]}), "result.tricks",
     ["13 tricks in all, but these add up to 12"]),
    (CLASSIC, hand(0, "no-tricks", {"tricks": [4, 3, 3, 3, 0]}), "result.tricks", ["one count", "4"]),
    (CLASSIC, hand(0, "no-tricks", {"tricks": [14, -1, 0, 0]}), "result.tricks", ["seat 1", "-1"]),
    (CLASSIC, hand(0, "no-tricks", {"queens": {"S": 1}}), "result.queens", ["not scored by"]),
    (CLASSIC, hand(0, "no-tricks", {}), "result.tricks", ["count each player's tricks"]),
    (CLASSIC, hand(0, "no-queens", {"queens": {"S": 0, "H": 1, "D": 2}}), "result.queens",
     ["say who took the queen of clubs"]),
    (CLASSIC, hand(0, "no-queens", {"queens": {"S": 0, "H": 1, "D": 2, "C": 4}}), "result.queens",
     ["not a seat"]),
    (CLASSIC, hand(0, "no-hearts", {"hearts": [5, 3, 3, 3], "ace_of_hearts": 0}), "result.hearts",
     ["13 hearts in all, but these add up to 14"]),
    (CLASSIC, hand(0, "no-hearts", {"hearts": [0, 5, 5, 3], "ace_of_hearts": 0}), "result.hearts",
     ["seat 0 took the ace of hearts, but is counted no hearts"]),
    (CLASSIC, hand(0, "no-hearts", {"hearts": [1, 5, 4, 3]}), "result.ace_of_hearts",
     ["say who took the ace of hearts"]),
    (CLASSIC, hand(0, "no-last-two", {"last_tricks": [1]}), "result.last_tricks",
     ["each of the last 2 tricks"]),
    (CLASSIC, hand(0, "no-king", {}), "result.king_of_hearts", ["say who took the king of hearts"]),
    (CLASSIC, hand(0, "dominoes", {"out": [1, 2]}, start_rank="8"), "result.out", ["every player"]),
    (CLASSIC, hand(0, "dominoes", {"out": [1, 2, 1]}, start_rank="8"), "result.out",
     ["seat 1 cannot be both first and third out"]),
    (Game.family(5), hand(0, "queens", {"queens": {"S": 1, "H": 2, "D": 3, "C": 3}},
                          set_aside=["QS", "2C"]), "result.queens",
     ["the queen of spades is set aside: nobody can take it"]),
    (Game.family(5), hand(0, "queens", {"queens": {"H": 2, "D": 3, "C": 3}}, set_aside=["2D", "2C"]),
     "result.queens", ["say who took the queen of spades"]),
    (Game.family(5), hand(0, "queens", {"queens": {"D": 3}}), "result.queens",
     ["no more than 2 cards can be set aside"]),
    (Game.family(4), hand(0, "queens", {"queens": {"S": 1, "H": 2, "D": 3}}), "result.queens",
     ["say who took the queen of clubs"]),
    (Game.family(3), hand(0, "king", {"king_of_hearts": None}), "result.king_of_hearts",
     ["K♥ set aside"]),
    (Game.family(3), hand(0, "tricks", {"tricks": [17, 17, 17]}), "result.tricks",
     ["17 tricks in all, but these add up to 51"]),
    (Game.family(5), hand(0, "hearts", {"hearts": [3, 3, 3, 3, 1]}, set_aside=["2H", "2C"]),
     "result.hearts", ["12 hearts in all (1 set aside), but these add up to 13"]),
    (Game.family(5), hand(0, "hearts", {"hearts": [3, 3, 3, 1, 0]}), "result.hearts",
     ["11 to 13 hearts in all (with 2 cards set aside unseen), but these add up to 10"]),
    (Game.family(4), hand(0, "salad", {"tricks": [13, 0, 0, 0], "last_tricks": [1], "hearts": [13, 0, 0, 0],
                                       "queens": {"S": 0, "H": 0, "D": 0, "C": 0},
                                       "king_of_hearts": 0}),
     "result.last_tricks", ["seat 1 took the last trick, but is counted no trick"]),
    (Game.family(4), hand(0, "salad", {"tricks": [12, 1, 0, 0], "last_tricks": [1], "hearts": [9, 4, 0, 0],
                                       "queens": {"S": 1, "H": 0, "D": 0, "C": 0},
                                       "king_of_hearts": 0}),
     "result.tricks", ["seat 1 took 1 trick (4 cards), but is counted 5 scoring cards"]),
    (Game.family(4), hand(0, "salad", {"tricks": [13, 0, 0, 0], "last_tricks": [0], "hearts": [1, 12, 0, 0],
                                       "queens": {"S": 0, "H": 0, "D": 0, "C": 0},
                                       "king_of_hearts": 0}),
     "result.hearts", ["took the queen of hearts and the king of hearts, but is counted 1 heart"]),
], ids=lambda x: x.ruleset + str(x.players) if isinstance(x, Game) else "")
def test_a_count_that_cannot_be_is_refused_and_the_sheet_unchanged(
        game: Game, new: Doc, field: str, words: list[str]) -> None:
    refused(sheet(game), new, field, *words)


def test_reussite_needs_the_first_two_out() -> None:
    refused(sheet(Game.family(4)), hand(0, "reussite", {"out": [1]}), "result.out", "the first 2")


def test_places_given_per_seat_cannot_share_a_place() -> None:
    with pytest.raises(TallyError) as info:
        out_from_places([1, 2, 2, None])
    assert renumber(info.value.message, ["Ann", "Ben", "Cleo", "Dan"], by_name=True) == \
        "Ben and Cleo cannot both be second out"
    assert info.value.field == "out"


# -- refused setups -------------------------------------------------------------------------------

def test_a_repeated_contract_is_refused() -> None:
    doc = add_hand(sheet(), hand(0, "no-king", {"king_of_hearts": 1}))
    refused(doc, hand(0, "no-king", {"king_of_hearts": 1}), "contract", "already chosen No King")


def test_the_rotation_of_declarers_is_checked() -> None:
    refused(sheet(first=2), hand(0, "no-king", {"king_of_hearts": 1}), "declarer", "must be seat 2")
    doc = sheet(Game.family(3))
    doc = add_hand(doc, hand(0, "king", {"king_of_hearts": 1}))
    refused(doc, hand(0, "queens", {"queens": {"S": 0, "H": 0, "D": 0, "C": 0}}), "declarer",
            "chooser of this hand must be seat 1")


def test_king_of_hearts_with_the_king_set_aside_is_refused() -> None:
    refused(sheet(Game.family(3)), hand(0, "king", {"king_of_hearts": 1}, set_aside=["KH"]),
            "contract", "K♥ is set aside")


def test_a_round_that_should_have_been_dealt_again_is_refused() -> None:
    game = Game.family(3)
    doc = sheet(game)
    others = ["queens", "hearts", "tricks", "last-trick", "salad", "reussite"]
    rounds = [hand(k % 3, others[k // 3], {}) for k in range(18)]
    results = {"queens": {"queens": {"S": 0, "H": 0, "D": 0, "C": 0}}, "hearts": {"hearts": [13, 0, 0]},
               "tricks": {"tricks": [17, 0, 0]}, "last-trick": {"last_tricks": [0]},
               "salad": {"tricks": [17, 0, 0], "last_tricks": [0], "hearts": [13, 0, 0],
                         "queens": {"S": 0, "H": 0, "D": 0, "C": 0}, "king_of_hearts": 0},
               "reussite": {"out": [0, 1]}}
    for r in rounds:
        r["result"] = results[r["contract"]]
        doc = add_hand(doc, r)
    refused(doc, hand(0, "king", {"king_of_hearts": 1}, set_aside=["KH"]), "set_aside",
            "dealt again")


def test_bad_set_aside_cards_and_family_doubles_are_refused() -> None:
    five = sheet(Game.family(5))
    refused(five, hand(0, "king", {"king_of_hearts": 1}, set_aside=["2C"]), "set_aside", "2 different cards")
    refused(five, hand(0, "king", {"king_of_hearts": 1}, set_aside=["2C", "XX"]), "set_aside", "set-aside")
    refused(sheet(), hand(0, "no-king", {"king_of_hearts": 1}, set_aside=["2C"]), "set_aside",
            "only family rounds")
    refused(five, hand(0, "king", {"king_of_hearts": 1}, doubles=[[1, 0]]), "doubles", "no doubles")


def test_doubles_that_break_the_doubling_rules_are_refused() -> None:
    refused(sheet(), hand(0, "trumps", {"tricks": [4, 3, 3, 3]}, trump="S", doubles=[[1, 2]]),
            "doubles", "only the declarer")
    refused(sheet(), hand(0, "no-king", {"king_of_hearts": 1}, doubles=[[0, 1]]), "doubles",
            "redoubles a player who did not double them")
    refused(sheet(), hand(0, "trumps", {"tricks": [4, 3, 3, 3]}), "trump", "Trumps needs the field 'trump'")


def _plain_block(declarer: int = 0, doubles: list[list[list[int]]] | None = None) -> list[Doc]:
    """One declarer's seven hands; by default each other player doubles him in the last two."""
    contracts = ["no-tricks", "no-queens", "no-hearts", "no-last-two", "no-king", "trumps", "dominoes"]
    results = [{"tricks": [4, 3, 3, 3]}, {"queens": {"S": 0, "H": 1, "D": 2, "C": 3}},
               {"hearts": [4, 3, 3, 3], "ace_of_hearts": 0}, {"last_tricks": [1, 2]},
               {"king_of_hearts": 3}, {"tricks": [4, 3, 3, 3]}, {"out": [0, 1, 2]}]
    extra: list[Doc] = [{}, {}, {}, {}, {}, {"trump": "S"}, {"start_rank": "J"}]
    owed = [[s, declarer] for s in range(4) if s != declarer]
    doubles = doubles or [[], [], [], [], [], owed, owed]
    return [hand(declarer, c, r, **e, doubles=doubles[k])
            for k, (c, r, e) in enumerate(zip(contracts, results, extra, strict=True))]


def test_a_missing_compulsory_double_is_refused_and_announced_beforehand() -> None:
    hands = _plain_block()
    doc = sheet()
    for h in hands[:5]:
        doc = add_hand(doc, h)
    frame = next_hand(replay_sheet(doc).state)
    assert frame["hands_left"] == 2 and frame["owed_doubles"] == [0, 2, 2, 2]
    assert frame["compulsory"] == [1, 2, 3]
    refused(doc, {**hands[5], "doubles": [[1, 0], [2, 0]]}, "doubles", "compulsory", "still owe 2 doubles")
    ok = add_hand(doc, hands[5])
    assert next_hand(replay_sheet(ok).state)["owed_doubles"] == [0, 1, 1, 1]


def test_next_hand_says_who_may_double_whom_and_which_contracts_are_open() -> None:
    doc = add_hand(sheet(), {**_plain_block()[5], "doubles": []})
    frame = next_hand(replay_sheet(doc).state)
    assert frame["hand"] == 1 and frame["declarer"] == 0
    assert [c["id"] for c in frame["contracts"] if not c["open"]] == ["trumps"]
    asks = {c["id"]: c["asks"] for c in frame["contracts"]}
    assert asks["trumps"] == "trump" and asks["dominoes"] == "start_rank" and asks["no-king"] is None
    assert frame["may_double"]["negative"][1] == [0, 2, 3]
    assert frame["may_double"]["positive"] == [[], [0], [0], [0]]
    assert frame["totals"] == [20, 15, 15, 15] and frame["complete"] is False
    family = next_hand(replay_sheet(sheet(Game.family(5))).state)
    assert family["may_double"] is None and family["set_aside_count"] == 2
    assert next(c for c in family["contracts"] if c["id"] == "salad")["result"] == [
        "tricks", "last_tricks", "queens", "hearts", "king_of_hearts"]


def test_a_malformed_sheet_is_refused() -> None:
    with pytest.raises(SheetError, match="format"):
        replay_sheet({**sheet(), "format": "barbu-record/1"})
    with pytest.raises(SheetError, match="first declarer"):
        replay_sheet({**sheet(), "first_declarer": 7})
    refused(sheet(), {"declarer": 0, "contract": "no-king"}, "result", "'result' is missing")
    refused(sheet(), hand(0, "no-king", [1]), "result", "'result' has the wrong type")  # type: ignore[arg-type]


# -- editing ---------------------------------------------------------------------------------------

def _game_of(hands: list[Doc]) -> Doc:
    doc = sheet()
    for h in hands:
        doc = add_hand(doc, h)
    return doc


def test_an_edit_scores_every_later_hand_again() -> None:
    doc = _game_of(_plain_block())
    before = copy.deepcopy(doc)
    edited = replace_hand(doc, 0, hand(0, "no-tricks", {"tricks": [0, 13, 0, 0]}))
    assert doc == before
    old, new = replay_sheet(doc).to_json(), replay_sheet(edited).to_json()
    assert new["hands"][0]["scores"] == [0, -26, 0, 0]
    assert new["hands"][1:] == old["hands"][1:]
    assert new["totals"][1] == old["totals"][1] - 20


def test_an_edit_that_makes_a_later_contract_a_repeat_is_refused() -> None:
    doc = _game_of(_plain_block()[:3])
    with pytest.raises(SheetError) as info:
        replace_hand(doc, 0, hand(0, "no-hearts", {"hearts": [4, 3, 3, 3], "ace_of_hearts": 0}))
    assert info.value.hand == 2 and info.value.field == "contract"
    assert "after this edit" in info.value.message and "already chosen No Hearts" in info.value.message
    assert replay_sheet(doc).to_json()["hands"][0]["contract"] == "no-tricks"


def test_an_edit_that_unmakes_a_compulsory_double_is_refused() -> None:
    # Ben doubles Ann in hands 1 and 2 only: he owes nothing after. Take back hand 1's double
    # and hand 7 would have needed one.
    doubles = [[[1, 0]], [[1, 0]], [], [], [], [[2, 0], [3, 0]], [[2, 0], [3, 0]]]
    doc = _game_of(_plain_block(0, doubles))
    with pytest.raises(SheetError) as info:
        replace_hand(doc, 0, {**doc["hands"][0], "doubles": []})
    err = info.value
    assert err.hand == 6 and err.seat == 1 and err.field == "doubles"
    assert "compulsory" in err.message


def test_an_edit_of_a_hand_that_is_not_there_is_refused() -> None:
    with pytest.raises(SheetError, match="no hand 3"):
        replace_hand(sheet(), 3, hand(0, "no-king", {"king_of_hearts": 1}))


def test_undo_takes_back_the_last_hand_only() -> None:
    doc = _game_of(_plain_block()[:2])
    back = undo_last(doc)
    assert back["hands"] == doc["hands"][:1] and len(doc["hands"]) == 2
    with pytest.raises(SheetError, match="no hand to take back"):
        undo_last(undo_last(back))


def test_a_complete_sheet_has_winners_and_no_next_hand() -> None:
    doc = sheet()
    for seat in range(4):
        for h in _plain_block(seat):
            doc = add_hand(doc, h)
    result = replay_sheet(doc)
    assert result.to_json()["complete"] is True and result.state.winners()
    assert next_hand(result.state) == {"hand": None, "declarer": None, "totals": result.state.totals,
                                       "complete": True, "winners": result.state.winners()}
    refused(doc, hand(0, "no-king", {"king_of_hearts": 1}), None, "28 hands", hand_no=28)


# -- the engine side ------------------------------------------------------------------------------

def test_finish_from_is_refused_once_a_card_is_played_or_before_the_play() -> None:
    state = State(CLASSIC, seed=1, first_declarer=0)
    with pytest.raises(IllegalActionError, match="before its first card"):
        state.finish_from([0, 0, 0, 0])
    state.deal_random()
    state.apply(state.game.parse_action("no-tricks"))
    while state.phase != Phase.PLAY:
        state.apply(state.legal_actions()[0])
    state.apply(state.legal_actions()[0])
    with pytest.raises(IllegalActionError, match="before its first card"):
        state.finish_from([0, 0, 0, 0])
    assert state.hand_no == 0 and len(state.actions) == 1


def test_check_on_some_fields_leaves_the_others_for_later() -> None:
    salad = Game.family(4).contracts[5]
    partial = Tally(tricks=(13, 0, 0, 0))
    check(Game.family(4), salad, partial, 0, only=["tricks"])
    with pytest.raises(TallyError, match="say who took the last trick"):
        check(Game.family(4), salad, partial, 0)
    with pytest.raises(TallyError, match="these add up to 12"):
        check(Game.family(4), salad, Tally(tricks=(12, 0, 0, 0)), 0, only=["tricks"])
    assert contract_scores(CLASSIC, CLASSIC.contracts[0], Tally(tricks=(13, 0, 0, 0)), 0) == [-26, 0, 0, 0]


@pytest.mark.parametrize("last", [[None], [2, None], [None, None]])
def test_a_last_trick_not_yet_named_is_asked_for_not_called_a_bad_list(last: list[int | None]) -> None:
    # The score keeper sends the takers as tapped so far: a blank one is a question still open.
    game = Game.family(4) if len(last) == 1 else Game.classic()
    c = game.contracts[game.contract_index("last-trick" if len(last) == 1 else "no-last-two")]
    with pytest.raises(TallyError) as info:
        from_json({"last_tricks": last}, game, c)
    assert info.value.rule == "missing" and info.value.field == "last_tricks"
    assert info.value.slots["variant"] == "last_tricks"


def test_going_out_too_few_counts_the_players_given() -> None:
    # The catalogues choose their plural form by the slot n: n is how many were given.
    with pytest.raises(TallyError) as info:
        check(Game.family(4), Game.family(4).contracts[-1], Tally(out=(2,)), None)
    assert info.value.rule == "out-length" and info.value.slots["n"] == 1
