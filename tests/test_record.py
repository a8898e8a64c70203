"""Game records (RECORD.md): the golden examples, writing and reading, and every kind of bad record."""

from __future__ import annotations

import copy
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import EXAMPLES, play_random
from tests.engine_helpers import NAMES, avoid_king, drive, make_deal

from barbu.engine.cards import SUIT_MASKS, card_str, mask_str, parse_card
from barbu.engine.errors import RecordError
from barbu.engine.game import REDOUBLE, Game
from barbu.engine.record import dump, load, replay, to_record
from barbu.engine.state import Phase, State

pytestmark = pytest.mark.engine  # run again on the pure-Python engine (./test.sh, docs/TESTING.md)

CLASSIC = Game.classic()
EXAMPLE_FILES = sorted(p for p in EXAMPLES.glob("*.json") if not p.name.endswith(".expected.json"))

Doc = dict[str, Any]


def expected_of(path: Path) -> Doc:
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text(encoding="utf-8"))
    expected.pop("why", None)
    return expected


def record_of(game: Game, seed: int, hands: int) -> Doc:
    """The JSON text of a seeded random game of ``hands`` hands, read back."""
    state = play_random(game, seed, hands)
    return json.loads(json.dumps(to_record(state, NAMES[:game.players])))


def refuse(doc: Doc, hand: int | None, action: int | None, seat: int | None,
           *words: str) -> RecordError:
    with pytest.raises(RecordError) as info:
        replay(doc)
    err = info.value
    assert (err.hand, err.action, err.seat) == (hand, action, seat), err.to_json()
    for w in words:
        assert w.lower() in err.message.lower(), f"{w!r} not in {err.message!r}"
    assert err.to_json() == {"error": {"hand": hand, "action": action, "seat": seat,
                                       "message": err.message}}
    return err


def state_at(doc: Doc, i: int, j: int) -> State:
    """The state just before action ``j`` of hand ``i``."""
    cut = copy.deepcopy(doc)
    cut["hands"] = cut["hands"][:i + 1]
    cut["hands"][i]["actions"] = cut["hands"][i]["actions"][:j]
    return replay(cut).state


def first_trick_hand(doc: Doc) -> int:
    return next(i for i, h in enumerate(doc["hands"]) if h["contract"] not in ("dominoes", "reussite"))


# -- golden examples ------------------------------------------------------------------------------

@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_example_records_replay_to_their_expected_output(path: Path) -> None:
    assert replay(load(path)).to_json() == expected_of(path)


def test_golden_doubling_example_ends_after_the_fourth_queen() -> None:
    result = replay(load(EXAMPLES / "classic_no_queens_golden_doubling.json"))
    h = result.hands[0]
    assert h.finished and len(h.actions) == 32
    assert result.state.hand_no == 1 and result.state.phase == Phase.DEAL


# -- writing and reading ---------------------------------------------------------------------------

def test_to_record_writes_canonical_fields() -> None:
    state = play_random(Game.classic(("overtrump", "dominoes-40")), 6, hands=8)
    doc = to_record(state, NAMES[:4])
    assert doc["format"] == "barbu-record/1" and doc["ruleset"] == "classic"
    assert doc["options"] == ["dominoes-40", "overtrump"] and doc["players"] == list(NAMES[:4])
    assert doc["seed"] == 6 and len(doc["hands"]) == 8
    for h, rec in zip(doc["hands"], state.history, strict=True):
        assert h["deal"] == [mask_str(m) for m in rec.deal]
        assert h["set_aside"] == [] and h["contract"] == rec.contract
        assert (h["trump"] is not None) == (h["contract"] == "trumps")
        assert (h["start_rank"] is not None) == (h["contract"] == "dominoes")
        assert all(a == "pass" or card_str(parse_card(a)) == a for a in h["actions"])
        assert sorted(map(tuple, h["doubles"])) == sorted(rec.doubles)


def test_dump_and_load_round_trip(tmp_path: Path) -> None:
    state = play_random(Game.family(5), 2, hands=6)
    doc = to_record(state, NAMES[:5])
    target = tmp_path / "sub" / "game.json"
    dump(doc, target)
    assert load(target) == doc
    assert [p.name for p in target.parent.iterdir()] == ["game.json"]
    assert replay(load(target)).state.totals == state.totals


def test_record_of_a_complete_game_names_the_winners() -> None:
    for game in (CLASSIC, Game.family(3)):
        state = play_random(game, 9)
        out = replay(record_of(game, 9, game.num_hands)).to_json()
        assert out["complete"] is True and out["winners"] == state.winners() != []
        assert out["totals"] == state.totals and len(out["hands"]) == game.num_hands


def test_readers_accept_ten_and_lower_case() -> None:
    doc = load(EXAMPLES / "family_salad_example.json")
    loose = copy.deepcopy(doc)
    hand = loose["hands"][0]
    hand["deal"] = [d.lower().replace("t", "10") for d in hand["deal"]]
    hand["actions"] = [a.lower().replace("t", "10") for a in hand["actions"]]
    assert replay(loose).to_json() == replay(doc).to_json()


def test_options_may_be_omitted_and_an_empty_record_is_valid() -> None:
    doc = record_of(CLASSIC, 1, 1)
    del doc["options"]
    assert replay(doc).to_json()["hands"][0]["declarer"] == doc["hands"][0]["declarer"]
    empty = {"format": "barbu-record/1", "ruleset": "family", "players": list(NAMES[:3]), "hands": []}
    assert replay(empty).to_json() == {"ruleset": "family", "hands": [], "totals": [0, 0, 0],
                                       "complete": False, "winners": []}


def test_record_saved_before_any_hand_keeps_the_seeded_first_declarer() -> None:
    for seed in range(8):
        state = State(CLASSIC, seed=seed)
        state.deal_random()
        doc = json.loads(json.dumps(to_record(state, NAMES[:4])))
        assert doc["hands"] == []
        resumed = replay(doc).state
        assert resumed.declarer == state.declarer and resumed.seed == seed
        resumed.deal_random()
        assert resumed.hands == state.hands
    del doc["seed"]
    assert replay(doc).state.declarer == 0


def test_unfinished_last_hand_is_reported_with_scores_so_far() -> None:
    doc = record_of(CLASSIC, 5, 3)
    full = replay(doc).to_json()
    i = first_trick_hand(doc) if first_trick_hand(doc) == 2 else 2
    cut = copy.deepcopy(doc)
    cut["hands"][i]["actions"] = cut["hands"][i]["actions"][:9]
    out = replay(cut).to_json()
    last = out["hands"][-1]
    assert last["finished"] is False and out["complete"] is False
    assert out["hands"][:-1] == full["hands"][:-1]
    assert out["totals"] == [sum(h["scores"][s] for h in full["hands"][:-1]) for s in range(4)]
    state = state_at(doc, i, 9)
    assert last["contract_scores"] == list(state.current_record().contract_scores)
    cut["hands"][i]["actions"] = []
    assert replay(cut).to_json()["hands"][-1]["contract_scores"] == [0, 0, 0, 0]


# -- bad actions ------------------------------------------------------------------------------------

def test_unreadable_card_is_refused() -> None:
    doc = record_of(CLASSIC, 2, 2)
    i = first_trick_hand(doc)
    seat = state_at(doc, i, 3).current
    doc["hands"][i]["actions"][3] = "ZZ"
    refuse(doc, i, 3, seat, "not a card", "an action is a card or \"pass\"")
    doc["hands"][i]["actions"][3] = 7
    refuse(doc, i, 3, seat, "an action is a card")


def test_card_not_held_is_refused() -> None:
    doc = record_of(CLASSIC, 2, 2)
    i = first_trick_hand(doc)
    state = state_at(doc, i, 5)
    seat = state.current
    stranger = state.hands[(seat + 1) % 4] & -state.hands[(seat + 1) % 4]
    doc["hands"][i]["actions"][5] = card_str(stranger.bit_length() - 1)
    refuse(doc, i, 5, seat, "the player does not hold")


def test_not_following_suit_is_refused() -> None:
    doc = record_of(CLASSIC, 4, 3)
    i = first_trick_hand(doc)
    for j in range(len(doc["hands"][i]["actions"])):
        state = state_at(doc, i, j)
        if not state.trick:
            continue
        led = SUIT_MASKS[state.trick[0] // 13]
        hand = state.hands[state.current]
        if hand & led and hand & ~led:
            off = hand & ~led
            doc["hands"][i]["actions"][j] = card_str(off.bit_length() - 1)
            refuse(doc, i, j, state.current, "the player must follow suit")
            return
    pytest.fail("no position where a player could revoke")


def test_pass_in_a_trick_game_is_refused() -> None:
    doc = record_of(CLASSIC, 2, 3)
    i = first_trick_hand(doc)
    seat = doc["hands"][i]["declarer"]
    doc["hands"][i]["actions"][0] = "pass"
    refuse(doc, i, 0, seat, "cannot pass")


def test_action_after_the_hand_ended_is_refused() -> None:
    doc = record_of(CLASSIC, 3, 2)
    n0 = len(doc["hands"][0]["actions"])
    extra = copy.deepcopy(doc)
    extra["hands"][0]["actions"].append("2C")
    refuse(extra, 0, n0, None, f"ended after action {n0 - 1}", "one too many")
    n1 = len(doc["hands"][1]["actions"])
    doc["hands"][1]["actions"].append("pass")
    refuse(doc, 1, n1, None, "one too many")


def test_truncated_hand_that_is_not_the_last_is_refused() -> None:
    doc = record_of(CLASSIC, 3, 2)
    actions = doc["hands"][0]["actions"]
    seat = state_at(doc, 0, len(actions) - 1).current
    doc["hands"][0]["actions"] = actions[:-1]
    refuse(doc, 0, len(actions) - 1, seat, f"stops after {len(actions) - 1} actions", "before it ends")


def test_game_over_then_more_hands_is_refused() -> None:
    doc = record_of(Game.family(3), 4, 21)
    doc["hands"].append(copy.deepcopy(doc["hands"][0]))
    refuse(doc, 21, None, None, "a game has 21 hands", "this record has 22")


# -- bad setups -------------------------------------------------------------------------------------

def test_wrong_declarer_rotation_is_refused() -> None:
    doc = record_of(CLASSIC, 8, 8)
    first = doc["hands"][0]["declarer"]
    assert [h["declarer"] for h in doc["hands"]] == [first] * 7 + [(first + 1) % 4]
    early = copy.deepcopy(doc)
    early["hands"][3]["declarer"] = (first + 1) % 4
    refuse(early, 3, None, (first + 1) % 4, f"must be seat {first}", "rotation")
    late = copy.deepcopy(doc)
    late["hands"][7]["declarer"] = first
    refuse(late, 7, None, first, f"must be seat {(first + 1) % 4}", "declarer")
    family = record_of(Game.family(4), 8, 3)
    c0 = family["hands"][0]["declarer"]
    family["hands"][2]["declarer"] = c0
    refuse(family, 2, None, c0, "chooser", f"must be seat {(c0 + 2) % 4}")


def test_repeated_contract_is_refused() -> None:
    doc = record_of(CLASSIC, 5, 2)
    doc["hands"][1]["contract"] = doc["hands"][0]["contract"]
    doc["hands"][1]["trump"] = doc["hands"][0]["trump"]
    doc["hands"][1]["start_rank"] = doc["hands"][0]["start_rank"]
    refuse(doc, 1, None, doc["hands"][1]["declarer"], "has already chosen")


def _no_voluntary_doubles(state: State, rng: random.Random) -> int | None:
    return state.legal_actions()[0] if state.phase in (Phase.DOUBLE, Phase.REDOUBLE) else None


def test_missing_compulsory_double_is_refused() -> None:
    state = State(CLASSIC, seed=12, first_declarer=1)
    drive(state, random.Random(12), _no_voluntary_doubles, until=lambda s: s.hand_no == 7)
    doc = to_record(state, NAMES[:4])
    assert all(h["doubles"] == [] for h in doc["hands"][:5])
    assert sorted(map(tuple, doc["hands"][5]["doubles"])) == [(0, 1), (2, 1), (3, 1)]
    doc["hands"][5]["doubles"].remove([3, 1])
    refuse(doc, 5, None, 3, "compulsory", "seat 1", "owe 2")


def test_declarer_doubling_is_refused() -> None:
    doc = record_of(CLASSIC, 1, 1)
    hand = doc["hands"][0]
    d = hand["declarer"]
    hand["doubles"] = [[d, (d + 1) % 4]]
    refuse(doc, 0, None, d, f"seat {d} redoubles a player who did not double them")


def test_double_of_a_non_declarer_in_a_positive_contract_is_refused() -> None:
    state = State(CLASSIC, seed=3, first_declarer=0)
    drive(state, random.Random(3), lambda s, r: s.game.parse_action("trumps")
          if s.phase == Phase.CHOOSE else None, until=lambda s: s.hand_no == 1)
    doc = to_record(state, NAMES[:4])
    doc["hands"][0]["doubles"] = [[1, 2]]
    refuse(doc, 0, None, 1, "only the declarer")


@pytest.mark.parametrize(("pairs", "words", "seat"), [
    ([[1]], "a double must be a pair", None), ([[1, 9]], "a double must be a pair", None),
    ([[2, 2]], "cannot double himself", 2), ([[1, True]], "a double must be a pair", None),
])
def test_malformed_doubles_are_refused(pairs: list[Any], words: str, seat: int | None) -> None:
    doc = record_of(CLASSIC, 1, 1)
    doc["hands"][0]["doubles"] = pairs
    refuse(doc, 0, None, seat, words)


def test_trump_and_start_rank_fields() -> None:
    state = State(CLASSIC, seed=5, first_declarer=2)
    policy = {0: "trumps", 1: "dominoes"}
    drive(state, random.Random(5), lambda s, r: s.game.parse_action(policy[s.hand_no])
          if s.phase == Phase.CHOOSE else None, until=lambda s: s.hand_no == 2)
    doc = to_record(state, NAMES[:4])
    assert doc["hands"][0]["trump"] in list("SHDC") and doc["hands"][1]["start_rank"] is not None
    for field, i, words, what in (("trump", 0, "Trumps needs the field 'trump'", "a suit"),
                                  ("start_rank", 1, "Dominoes needs the field 'start_rank'",
                                   "a rank")):
        bad = copy.deepcopy(doc)
        bad["hands"][i][field] = None
        refuse(bad, i, None, 2, words)
        # There but not a suit or rank: "needs the field" would say it is missing.
        for value, shown in (("X", '"X"'), ("1", '"1"')):
            bad["hands"][i][field] = value
            err = refuse(bad, i, None, 2, f"the field '{field}' must be {what}", f"not {shown}")
            assert "needs" not in err.message
    wrong = copy.deepcopy(doc)
    wrong["hands"][1]["trump"] = "S"
    refuse(wrong, 1, None, None, "only for Trumps")
    wrong = copy.deepcopy(doc)
    wrong["hands"][0]["start_rank"] = "J"
    refuse(wrong, 0, None, None, "only for classic Dominoes")


def test_family_specific_setups_are_refused() -> None:
    doc = record_of(Game.family(4), 2, 1)
    doubled = copy.deepcopy(doc)
    doubled["hands"][0]["doubles"] = [[1, 0]]
    refuse(doubled, 0, None, None, "family rounds have no doubles")
    game = Game.family(5)
    hands, aside = make_deal(game, [], set_aside="KH 2C")
    king = {"format": "barbu-record/1", "ruleset": "family", "players": list(NAMES[:5]),
            "hands": [{"declarer": 1, "deal": [mask_str(h) for h in hands], "set_aside": mask_str(aside),
                       "contract": "king", "actions": []}]}
    refuse(king, 0, None, 1, "K♥ is set aside")


def test_round_that_must_be_redealt_is_refused() -> None:
    game = Game.family(3)
    state = State(game, seed=5, first_declarer=0)
    drive(state, random.Random(5), avoid_king(0), until=lambda s: s.hand_no == 18)
    doc = to_record(state, NAMES[:3])
    hands, aside = make_deal(game, [], set_aside="KH")
    doc["hands"].append({"declarer": 0, "deal": [mask_str(h) for h in hands],
                         "set_aside": [card_str(c) for c in range(52) if aside >> c & 1],
                         "contract": "king", "actions": []})
    refuse(doc, 18, None, 0, "must be redealt", "only challenge left")


# -- bad deals ------------------------------------------------------------------------------------

def test_card_dealt_twice_is_refused() -> None:
    doc = record_of(CLASSIC, 6, 1)
    deal = doc["hands"][0]["deal"]
    cards0, cards1 = deal[0].split(), deal[1].split()
    deal[1] = " ".join([cards0[0], *cards1[1:]])
    refuse(doc, 0, None, None, "bad deal", f"card {cards0[0]} is dealt twice")
    deal[1] = " ".join([cards1[0], *cards1[1:-1], cards1[0]])
    refuse(doc, 0, None, 1, "the deal of seat 1", f"card {cards1[0]} is listed twice")


def test_wrong_card_counts_are_refused() -> None:
    doc = record_of(CLASSIC, 6, 1)
    deal = doc["hands"][0]["deal"]
    moved = copy.deepcopy(doc)
    d = moved["hands"][0]["deal"]
    d[0] += " " + d[1].split()[0]
    d[1] = " ".join(d[1].split()[1:])
    refuse(moved, 0, None, None, "bad deal", "seat 0 must be dealt 13 cards, not 14")
    short = copy.deepcopy(doc)
    short["hands"][0]["deal"][2] = " ".join(deal[2].split()[1:])
    refuse(short, 0, None, None, "seat 2 must be dealt 13 cards, not 12")
    three = copy.deepcopy(doc)
    three["hands"][0]["deal"] = deal[:3]
    refuse(three, 0, None, None, "one string of cards to each of the 4 seats")
    garbage = copy.deepcopy(doc)
    garbage["hands"][0]["deal"][3] = deal[3].replace(deal[3].split()[0], "1X")
    refuse(garbage, 0, None, 3, "the deal of seat 3", "not a card")


def test_wrong_set_aside_is_refused() -> None:
    doc = record_of(Game.family(5), 3, 1)
    hand = doc["hands"][0]
    assert len(hand["set_aside"]) == 2
    hand["deal"][0] += " " + hand["set_aside"].pop()
    refuse(doc, 0, None, None, "2 cards must be set aside with 5 players, not 1")
    hand["set_aside"] = ["1X", "AS"]
    refuse(doc, 0, None, None, "set-aside cards", "not a card")
    hand["set_aside"] = 5
    refuse(doc, 0, None, None, "'set_aside' must list cards")
    classic = record_of(CLASSIC, 3, 1)
    h0 = classic["hands"][0]
    h0["set_aside"] = [h0["deal"][0].split()[0]]
    h0["deal"][0] = " ".join(h0["deal"][0].split()[1:])
    refuse(classic, 0, None, None, "0 cards must be set aside with 4 players, not 1")


# -- bad documents ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("change", "hand", "words"), [
    ({"format": "barbu-record/2"}, None, "the field 'format' must be 'barbu-record/1'"),
    ({"format": None}, None, "the field 'format'"),
    ({"ruleset": "poker"}, None, "unknown rule set"),
    ({"ruleset": None}, None, "the field 'ruleset' is missing"),
    ({"players": "Ann Ben"}, None, "the field 'players' has the wrong type"),
    ({"players": ["Ann", "Ben", "Cleo"]}, None, "exactly 4"),
    ({"players": ["Ann", 2, "Cleo", "Dan"]}, None, "the field 'players' must list names"),
    ({"options": ["no-such"]}, None, "unknown option"),
    ({"options": "overtrump"}, None, "the field 'options' has the wrong type"),
    ({"hands": {}}, None, "the field 'hands' has the wrong type"),
    ({"hands": ["x"]}, 0, "each hand must be a JSON object"),
])
def test_bad_document_fields_are_refused(change: Doc, hand: int | None, words: str) -> None:
    doc = record_of(CLASSIC, 2, 1)
    doc.update(change)
    refuse(doc, hand, None, None, words)


@pytest.mark.parametrize(("field", "value", "words"), [
    ("declarer", None, "the field 'declarer' is missing"),
    ("declarer", "0", "the field 'declarer' has the wrong type"),
    ("contract", "no-such", "unknown classic contract 'no-such'"),
    ("contract", None, "the field 'contract' is missing"),
    ("deal", None, "the field 'deal' is missing"),
    ("actions", "AS KS", "the field 'actions' has the wrong type"),
    ("doubles", {}, "the field 'doubles' has the wrong type"),
])
def test_bad_hand_fields_are_refused(field: str, value: Any, words: str) -> None:
    doc = record_of(CLASSIC, 2, 2)
    doc["hands"][1][field] = value
    refuse(doc, 1, None, None, words)


def test_first_declarer_out_of_range_is_refused() -> None:
    doc = record_of(CLASSIC, 2, 1)
    doc["hands"][0]["declarer"] = 4
    refuse(doc, 0, None, None, "the field 'declarer' must be a seat 0 to 3", "not 4")


def test_malformed_json_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "barbu-record/1", "hands": [', encoding="utf-8")
    with pytest.raises(RecordError, match="not a JSON document") as info:
        load(bad)
    assert (info.value.hand, info.value.action, info.value.seat) == (None, None, None)
    listed = tmp_path / "list.json"
    listed.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(RecordError, match="a record is a JSON object"):
        load(listed)
    with pytest.raises(RecordError, match="cannot read"):
        load(tmp_path / "missing.json")


def test_error_position_is_the_first_fault() -> None:
    doc = record_of(CLASSIC, 7, 3)
    i = first_trick_hand(doc)
    bad = copy.deepcopy(doc)
    bad["hands"][i]["actions"][2] = "ZZ"
    bad["hands"][2]["declarer"] = (bad["hands"][2]["declarer"] + 2) % 4
    err = refuse(bad, i, 2, state_at(doc, i, 2).current, "not a card")
    assert err.hand == i < 2


def test_a_refused_record_speaks_of_the_player_not_to_them() -> None:
    """A record's reader is not the player who broke the rule: no message says "you" to them."""
    doc = load(EXAMPLES / "classic_no_queens_golden_doubling.json")
    actions = doc["hands"][0]["actions"]
    actions[1], actions[2] = actions[2], actions[1]
    with pytest.raises(RecordError) as caught:
        replay(doc)
    assert caught.value.message == "the player does not hold 8♠"
    assert not re.search(r"\byou(rs?|rself)?\b", caught.value.message)


@pytest.mark.parametrize("game", [Game.classic(), Game.family(3), Game.family(5)],
                         ids=["classic", "family-3", "family-5"])
def test_every_refusal_has_a_third_person_form(game: Game) -> None:
    rng = random.Random(3)
    state = State(game, seed=3)
    seen: set[str] = set()
    while not state.is_over and state.hand_no < 3:
        if state.phase == Phase.DEAL:
            state.deal_random()
            continue
        legal = set(state.legal_actions())
        for action in rng.sample(range(REDOUBLE + 64), 40):
            if action not in legal:
                err = state.illegal(action)
                seen.add(err.rule)
                assert err.about and not re.search(r"\byou(rs?|rself)?\b", err.about), err.about
        state.apply(rng.choice(sorted(legal)))
    assert len(seen) >= 4
