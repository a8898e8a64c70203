"""Family Barbu (RULES.md section 2): set-aside cards, challenges, Réussite, choosers, the winner."""

from __future__ import annotations

import json
import random

import pytest
from tests.conftest import EXAMPLES, play_random
from tests.engine_helpers import act, avoid_king, drive, make_deal, refused, snapshot, start
from tests.oracle import contract_scores, family_total

from barbu.engine.cards import FULL_DECK, HEART_CARDS, KH_MASK, QUEENS, SUIT_MASKS, mask_str, parse_cards
from barbu.engine.game import PASS, Game
from barbu.engine.record import replay, to_record
from barbu.engine.state import Phase, State

pytestmark = pytest.mark.engine  # run again on the pure-Python engine (./test.sh, docs/TESTING.md)

ALL_HEARTS = mask_str(HEART_CARDS)
CHALLENGES = ["king", "queens", "hearts", "tricks", "last-trick", "salad", "reussite"]


def legal_str(state: State) -> set[str]:
    return {state.game.action_str(a) for a in state.legal_actions()}


@pytest.mark.parametrize(("players", "size", "aside"), [(3, 17, 1), (4, 13, 0), (5, 10, 2), (6, 8, 4)])
def test_deal_sets_aside_the_leftover_cards_face_up(players: int, size: int, aside: int) -> None:
    for seed in range(3):
        state = State(Game.family(players), seed=seed)
        assert state.deal_random()
        assert [h.bit_count() for h in state.hands] == [size] * players
        assert state.set_aside.bit_count() == aside
        everything = state.set_aside
        for h in state.hands:
            assert not everything & h
            everything |= h
        assert everything == FULL_DECK
        assert all(state.observe(s).set_aside == state.set_aside for s in range(players))


def test_family_has_no_doubles_and_scores_equal_contract_scores() -> None:
    for players in (3, 6):
        state = play_random(Game.family(players), seed=players)
        for h in state.history:
            assert h.doubles == () and h.scores == h.contract_scores
            assert sum(h.scores) == family_total(h.contract, h.set_aside, 52 // players)


# -- the first-trick heart rule --------------------------------------------------------------

@pytest.mark.parametrize("challenge", ["king", "hearts", "salad"])
def test_no_heart_led_to_the_first_trick(challenge: str) -> None:
    state = start(Game.family(4), ["AS KH 2H"])
    act(state, challenge)
    assert {x[-1] for x in legal_str(state)} == {"S"}
    refused(state, "2H", "lead-heart-first", "first trick")
    refused(state, "KH", "lead-heart-first", "first trick")


@pytest.mark.parametrize("challenge", ["queens", "tricks", "last-trick"])
def test_other_challenges_lead_freely(challenge: str) -> None:
    state = start(Game.family(4), ["AS KH 2H"])
    act(state, challenge)
    assert {"KH", "2H"} <= legal_str(state)


@pytest.mark.parametrize("challenge", ["king", "hearts", "salad"])
def test_hearts_may_be_led_after_the_first_trick_or_when_holding_only_hearts(challenge: str) -> None:
    state = start(Game.family(4), ["AS 2H", "KS"])  # seat 0: twelve spades and 2♥
    act(state, challenge, "AS", "KS")
    state.apply(state.legal_actions()[0])
    state.apply(state.legal_actions()[0])
    assert state.current == 0 and state.trick_no == 1
    assert "2H" in legal_str(state)
    only = start(Game.family(4), [ALL_HEARTS])
    act(only, challenge)
    assert len(only.legal_actions()) == 13


def test_family_follow_suit_and_discards_never_win() -> None:
    state = start(Game.family(4), [])  # seat s holds suit s
    act(state, "tricks", "2S")
    state.apply(max(state.legal_actions()))  # A♥, a discard
    state.apply(max(state.legal_actions()))
    state.apply(max(state.legal_actions()))
    assert state.tricks_won == [1, 0, 0, 0] and state.current == 0


# -- early ends with set-aside cards -------------------------------------------------------------

def _throw_scoring(state: State, scoring: int) -> None:
    """Seat 0 leads its highest spade; everyone else throws a scoring card whenever allowed."""
    hand_no = state.hand_no
    while state.hand_no == hand_no:
        legal = state.legal_actions()
        hot = [a for a in legal if scoring >> a & 1]
        if state.current == 0:
            state.apply(max(legal, key=lambda a: (a < 13, a)))
        else:
            state.apply(max(hot) if hot else min(legal))


def test_queens_end_when_the_last_queen_in_play_falls() -> None:
    game = Game.family(5)
    state = start(game, ["AS KS JS TS 9S 8S 7S 6S 5S 4S", "QH", "QD", "QC", "2S"], set_aside="QS 3S")
    act(state, "queens")
    _throw_scoring(state, QUEENS)
    h = state.history[0]
    assert len(h.actions) == 5
    assert list(h.contract_scores) == [75, 0, 0, 0, 0]
    assert family_total("queens", h.set_aside, 10) == 75


def test_hearts_end_when_the_last_heart_in_play_falls() -> None:
    game = Game.family(3)
    state = start(game, [mask_str(SUIT_MASKS[0]) + " 2D 3D 4D 5D"], set_aside="2H")
    act(state, "hearts")
    _throw_scoring(state, HEART_CARDS)
    h = state.history[0]
    assert len(h.actions) == 36  # twelve hearts in play, one thrown per trick
    assert list(h.contract_scores) == [120, 0, 0]


def test_king_ends_when_the_king_of_hearts_falls() -> None:
    state = start(Game.family(4), ["", "KH"])
    act(state, "king")
    _throw_scoring(state, KH_MASK)
    h = state.history[0]
    assert len(h.actions) == 4 and list(h.contract_scores) == [100, 0, 0, 0]


def test_queens_with_every_queen_set_aside_is_over_at_once() -> None:
    state = start(Game.family(6), [], set_aside="QS QH QD QC")
    act(state, "queens")
    h = state.history[0]
    assert h.actions == () and h.contract_scores == (0,) * 6
    assert state.hand_no == 1 and state.phase == Phase.DEAL and state.declarer == 1


def test_salad_last_trick_is_worth_155() -> None:
    doc = json.loads((EXAMPLES / "family_salad_example.json").read_text())
    hand = doc["hands"][0]
    state = State(Game.family(4), seed=0, first_declarer=0)
    assert state.deal([parse_cards(t) for t in hand["deal"]], 0)
    act(state, "salad", *hand["actions"][:-4])
    before = list(state.points)
    act(state, *hand["actions"][-4:])
    after = state.history[0].contract_scores
    assert after[1] - before[1] == 155  # 10 trick + 100 last + 25 Q♥ + 10 Q♥ + 10 3♥
    assert sum(after) == family_total("salad", 0, 13) == 560


# -- King of Hearts set aside -------------------------------------------------------------------

def test_king_may_not_be_chosen_when_the_king_of_hearts_is_set_aside() -> None:
    state = start(Game.family(5), [], set_aside="KH 2C")
    assert "king" not in legal_str(state) and len(state.legal_actions()) == 6
    refused(state, "king", "king-set-aside", "K♥ is set aside")
    act(state, "salad")  # salad stays allowed, without its king
    drive(state, random.Random(1), until=lambda s: s.hand_no == 1)
    assert sum(state.history[0].contract_scores) == family_total("salad", KH_MASK | 1 << 39, 10)


def test_redeal_when_king_is_the_choosers_only_challenge_and_kh_is_set_aside() -> None:
    game = Game.family(3)
    state = State(game, seed=5, first_declarer=0)
    drive(state, random.Random(5), avoid_king(0), until=lambda s: s.hand_no == 18)
    assert state.declarer == 0 and state.phase == Phase.DEAL
    assert state.available_contracts(0) == [game.contract_index("king")]
    hands, aside = make_deal(game, [], set_aside="KH")
    before = snapshot(state)
    assert state.deal(hands, aside) is False
    assert state.redeals == 1 and state.phase == Phase.DEAL
    after = snapshot(state)
    assert after[1] == before[1]  # nobody sees any card of the cancelled deal
    while not state.deal_random():
        pass
    assert not state.set_aside & KH_MASK
    assert legal_str(state) == {"king"}


def test_kh_set_aside_with_other_challenges_left_is_a_normal_deal() -> None:
    state = State(Game.family(3), seed=0, first_declarer=0)
    hands, aside = make_deal(state.game, [], set_aside="KH")
    assert state.deal(hands, aside) is True and state.phase == Phase.CHOOSE


# -- Réussite ------------------------------------------------------------------------------------

def test_reussite_opens_with_any_card_and_fixes_the_starting_rank() -> None:
    state = start(Game.family(4), [])
    act(state, "reussite")
    assert len(state.legal_actions()) == 13 and PASS not in state.legal_actions()
    refused(state, PASS, "must-place", "may not pass")
    act(state, "9S")
    assert state.start_rank == 7 and state.current == 1
    assert legal_str(state) == {"9H"}
    act(state, "9H")
    assert legal_str(state) == {"9D"}
    act(state, "9D", "9C")
    assert legal_str(state) == {"TS", "8S"}
    refused(state, "2S", "placement", "opens with its 9")


def test_reussite_ace_gives_an_extra_card_or_a_stop() -> None:
    state = start(Game.family(4), ["AS AH"])  # seat 1 holds K♠ and the other hearts
    act(state, "reussite", "AS")
    assert state.current == 0 and state.ace_extra
    assert legal_str(state) == {"AH", "pass"}
    act(state, "AH")  # an ace placed as the extra card gives one more
    assert state.current == 0 and legal_str(state) == {"pass"}
    act(state, "pass")
    assert state.current == 1 and not state.ace_extra
    assert legal_str(state) == {"KS", "KH"}
    refused(state, PASS, "must-place", "may not pass")


def test_reussite_extra_card_after_an_ace_passes_the_turn() -> None:
    state = start(Game.family(4), ["AS KS"])
    act(state, "reussite", "AS", "KS")
    assert state.current == 1 and not state.ace_extra


def test_reussite_set_aside_cards_count_as_placed() -> None:
    game = Game.family(5)
    state = start(game, ["7H", "7S", "9S"], set_aside="7D 8S")
    act(state, "reussite", "7H")
    lines = state.observe(2).lines
    assert lines[1] == (5, 5) and lines[2] == (5, 5)  # 7♦ set aside opens diamonds
    assert lines[0] == (-1, -1) and lines[3] == (-1, -1)
    assert "7S" in legal_str(state)
    act(state, "7S")
    assert state.observe(0).lines[0] == (5, 6)  # the line runs on past the set-aside 8♠
    assert "9S" in legal_str(state)
    act(state, "9S")
    drive(state, random.Random(2), until=lambda s: s.hand_no == 1)
    h = state.history[0]
    assert list(h.contract_scores) == contract_scores(game, h)
    assert sorted(h.contract_scores) == [-100, -50, 0, 0, 0]


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_reussite_random_rounds_score_minus_150(players: int) -> None:
    game = Game.family(players)
    for seed in range(8):
        state = State(game, seed=seed)
        drive(state, random.Random(seed), lambda s, r: (game.parse_action("reussite")
                                                        if s.phase == Phase.CHOOSE else None),
              until=lambda s: s.hand_no == 1)
        h = state.history[0]
        assert h.contract == "reussite" and sum(h.contract_scores) == -150
        assert list(h.contract_scores) == contract_scores(game, h)


def test_reussite_example_record_shows_the_ace_rule() -> None:
    doc = json.loads((EXAMPLES / "family_reussite_ace_extra.json").read_text())
    hand = doc["hands"][0]
    state = State(Game.family(4), seed=0, first_declarer=0)
    assert state.deal([parse_cards(t) for t in hand["deal"]], 0)
    act(state, "reussite", *hand["actions"][:30])
    assert state.actions[-1] == 25 and state.ace_extra and state.current == 1  # A♥ by seat 1
    act(state, *hand["actions"][30:])
    assert list(state.history[0].contract_scores) == [0, -100, 0, -50]


# -- game flow ---------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_choosers_rotate_every_round_and_choose_each_challenge_once(players: int) -> None:
    game = Game.family(players)
    state = State(game, seed=players, first_declarer=players - 1)
    drive(state, random.Random(players))
    assert state.is_over and len(state.history) == 7 * players
    assert [h.declarer for h in state.history] == [(players - 1 + i) % players
                                                  for i in range(7 * players)]
    for seat in range(players):
        assert sorted(h.contract for h in state.history if h.declarer == seat) == sorted(CHALLENGES)
    best = min(state.totals)
    assert state.winners() == [s for s in range(players) if state.totals[s] == best]
    assert state.totals == [sum(h.scores[s] for h in state.history) for s in range(players)]


def test_a_shorter_game_ends_after_its_rounds_and_its_record_says_so() -> None:
    game = Game("family", 3, rounds=3)
    assert game.num_hands == 3 and game != Game("family", 3)
    state = State(game, seed=8)
    while not state.is_over:
        if state.phase == Phase.DEAL:
            state.deal_random()
        else:
            state.apply(state.legal_actions()[0])
    assert len(state.history) == 3 and state.winners()
    doc = to_record(state, ["A", "B", "C"])
    assert doc["rounds"] == 3
    again = replay(doc).state
    assert again.is_over and again.totals == state.totals and again.game == game
    assert "rounds" not in to_record(State(Game("family", 3), seed=8), ["A", "B", "C"])


@pytest.mark.parametrize(("ruleset", "players", "rounds"),
                         [("classic", 4, 29), ("family", 3, 22), ("family", 4, -1)])
def test_a_shorter_game_is_a_game_of_at_most_its_whole_length(ruleset: str, players: int,
                                                              rounds: int) -> None:
    with pytest.raises(ValueError, match="a shorter game is a game of 1 to"):
        Game(ruleset, players, rounds=rounds)


def test_one_hand_of_one_classic_contract_is_a_game_and_its_record_says_so() -> None:
    """The tutorial's real hand: one hand of No Queens, the learner (seat 2) declaring."""
    game = Game("classic", 4, contract_ids=("no-queens",), rounds=1)
    assert game.num_hands == 1 and game.contracts[0].id == "no-queens"
    state = State(game, seed=5, first_declarer=2)
    while not state.is_over:
        if state.phase == Phase.DEAL:
            state.deal_random()
        else:
            state.apply(state.legal_actions()[0])
    assert len(state.history) == 1 and state.history[0].declarer == 2
    assert state.history[0].contract == "no-queens" and sum(state.totals) == -24
    doc = to_record(state, ["A", "B", "C", "D"])
    assert doc["rounds"] == 1 and doc["contracts"] == ["no-queens"]
    again = replay(doc).state
    assert again.is_over and again.totals == state.totals and again.game == game
