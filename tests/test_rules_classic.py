"""Classic Barbu (RULES.md section 1): contracts, lead rules, early ends, options, rotation."""

from __future__ import annotations

import random

import pytest
from tests.conftest import play_random
from tests.engine_helpers import act, choose, drive, one_hand, open_hand, refused, start
from tests.oracle import CLASSIC_TOTALS, contract_scores

from barbu.engine.cards import HEART_CARDS, KH_MASK, QUEENS, SUIT_MASKS, mask_str, parse_card, parse_cards
from barbu.engine.game import PASS, Game
from barbu.engine.state import TERMINAL, Phase, State

pytestmark = pytest.mark.engine  # run again on the pure-Python engine (./test.sh, docs/TESTING.md)

CLASSIC = Game.classic()
ALL_SPADES = mask_str(SUIT_MASKS[0])
ALL_HEARTS = mask_str(SUIT_MASKS[1])


def legal_str(state: State) -> set[str]:
    return {state.game.action_str(a) for a in state.legal_actions()}


def legal_suits(state: State) -> set[str]:
    return {text[-1] for text in legal_str(state)}


# -- contract totals -----------------------------------------------------------

@pytest.mark.parametrize("options", [(), ("dominoes-40",)], ids=["standard", "dominoes-40"])
@pytest.mark.parametrize("contract", list(CLASSIC_TOTALS))
def test_each_contract_adds_up_to_its_total(contract: str, options: tuple[str, ...]) -> None:
    game = Game.classic(options)
    for seed in range(6):
        h = one_hand(game, contract, seed).history[0]
        assert h.contract == contract
        assert sum(h.contract_scores) == CLASSIC_TOTALS[contract]
        assert list(h.contract_scores) == contract_scores(game, h)


def test_contract_table_sums_to_zero() -> None:
    assert sum(CLASSIC_TOTALS.values()) == 0
    assert [c.id for c in CLASSIC.contracts] == list(CLASSIC_TOTALS)


@pytest.mark.parametrize(("options", "outs"), [((), [45, 20, 5, -5]),
                                               (("dominoes-40",), [40, 25, 10, -10])])
def test_dominoes_pays_by_order_out_and_ends_after_three_are_out(
        options: tuple[str, ...], outs: list[int]) -> None:
    # Seat s holds suit s whole, so each seat always has exactly its own line to extend.
    state = start(Game.classic(options), [])
    open_hand(state, "dominoes", "rank J")
    assert legal_str(state) == {"JS"}
    act(state, "JS", "JH", "JD", "JC")
    assert legal_str(state) == {"TS", "QS"}
    rng = random.Random(1)
    while state.hand_no == 0:
        state.apply(rng.choice(state.legal_actions()))
    h = state.history[0]
    assert len(h.actions) == 3 * 13 + 12  # the fourth player keeps his last card
    assert list(h.contract_scores) == outs == list(h.scores)


# -- lead restrictions -----------------------------------------------------------

def test_no_hearts_forbids_leading_a_heart_while_holding_another_suit() -> None:
    state = start(CLASSIC, ["AH KH 2S"])
    open_hand(state, "no-hearts")
    assert legal_suits(state) == {"S"}
    refused(state, "AH", "lead-heart", "heart may not be led")


def test_no_hearts_lead_rule_holds_on_every_trick() -> None:
    # Seat 0: A♠ K♠ J♠…2♠ and 2♥; Q♠ is with seat 1 so A♠ wins and seat 0 leads again.
    state = start(CLASSIC, ["AS KS 2H"])
    open_hand(state, "no-hearts")
    act(state, "AS", "QS")
    state.apply(state.legal_actions()[0])
    state.apply(state.legal_actions()[0])
    assert state.current == 0 and state.trick_no == 1
    refused(state, "2H", "lead-heart", "heart")


def test_no_hearts_leader_with_only_hearts_may_lead_them() -> None:
    state = start(CLASSIC, [ALL_HEARTS])
    open_hand(state, "no-hearts")
    assert len(state.legal_actions()) == 13


def test_no_king_forbids_leading_the_king_of_hearts_but_not_other_hearts() -> None:
    state = start(CLASSIC, ["KH AH 2S"])
    open_hand(state, "no-king")
    assert "AH" in legal_str(state) and "KH" not in legal_str(state)
    refused(state, "KH", "lead-king", "K♥", "last card")


def test_no_king_king_of_hearts_may_be_led_as_the_last_card() -> None:
    hand0 = mask_str(SUIT_MASKS[0] & ~parse_cards("2S") | KH_MASK)
    state = start(CLASSIC, [hand0])
    open_hand(state, "no-king")
    for _ in range(12):  # seat 0 leads its spades from the top and wins every trick
        assert state.current == 0
        state.apply(max(state.legal_actions()))
        for _ in range(3):
            state.apply(state.legal_actions()[0])
    assert state.hands[0] == KH_MASK and state.legal_actions() == [parse_card("KH")]
    act(state, "KH", "AH")  # seat 1 kept A♥ for last
    state.apply(state.legal_actions()[0])
    state.apply(state.legal_actions()[0])
    h = state.history[0]
    assert list(h.contract_scores) == [0, -20, 0, 0]


def test_option_heart_lead_in_no_king() -> None:
    game = Game.classic(("heart-lead",))
    only_hearts = start(game, [ALL_HEARTS])
    open_hand(only_hearts, "no-king")
    assert "KH" in legal_str(only_hearts) and len(only_hearts.legal_actions()) == 13
    mixed = start(game, ["KH AH 2S"])
    open_hand(mixed, "no-king")
    assert not {"KH", "AH"} & legal_str(mixed)
    refused(mixed, "AH", "lead-heart", "heart may not be led")
    default = start(CLASSIC, [ALL_HEARTS])
    open_hand(default, "no-king")
    assert "KH" not in legal_str(default) and len(default.legal_actions()) == 12


def test_declarer_leads_and_must_follow_suit() -> None:
    state = start(CLASSIC, ["AS", "KS 2H"])
    open_hand(state, "no-tricks")
    assert state.current == 0
    act(state, "AS")
    assert legal_str(state) == {"KS"}
    refused(state, "2H", "follow-suit", "follow suit", "spades")
    refused(state, "AD", "not-your-card", "do not hold")
    refused(state, PASS, "no-pass", "cannot pass")


# -- early ends -------------------------------------------------------------------

@pytest.mark.parametrize(("contract", "targets"), [("no-queens", QUEENS), ("no-hearts", HEART_CARDS),
                                                   ("no-king", KH_MASK)])
def test_random_hands_end_in_the_trick_where_the_last_scoring_card_falls(contract: str,
                                                                         targets: int) -> None:
    for seed in range(12):
        h = one_hand(CLASSIC, contract, seed).history[0]
        played = sum(1 << a for a in h.actions)
        assert played & targets == targets
        assert len(h.actions) % 4 == 0
        last = sum(1 << a for a in h.actions[-4:])
        assert last & targets, "the last trick played holds the last scoring card"


@pytest.mark.parametrize(("contract", "spec", "length", "score"), [
    ("no-queens", ["", "QH", "QD", "QC"], 12, -24),
    ("no-hearts", ["", "2H 3H 4H 5H 6H", "7H 8H 9H TH", "JH QH KH AH"], 20, -30),
    ("no-king", ["", "KH"], 4, -20),
])
def test_scripted_early_ends(contract: str, spec: list[str], length: int, score: int) -> None:
    # Seat 0 holds the thirteen spades and leads them from the top; the others, void in
    # spades, throw their scoring cards at once, so the hand stops long before trick 13.
    state = start(CLASSIC, spec)
    open_hand(state, contract)
    scoring = {"no-queens": QUEENS, "no-hearts": HEART_CARDS, "no-king": KH_MASK}[contract]
    while state.hand_no == 0:
        legal = state.legal_actions()
        hot = [a for a in legal if scoring >> a & 1]
        state.apply(max(legal) if state.current == 0 else max(hot) if hot else min(legal))
    h = state.history[0]
    assert len(h.actions) == length
    assert list(h.contract_scores) == [score, 0, 0, 0]
    assert state.phase == Phase.DEAL and state.hand_no == 1


@pytest.mark.parametrize("contract", ["no-tricks", "no-last-two", "trumps"])
def test_other_trick_contracts_play_all_thirteen_tricks(contract: str) -> None:
    for seed in range(4):
        assert len(one_hand(CLASSIC, contract, seed).history[0].actions) == 52


# -- Trumps ---------------------------------------------------------------------------

def test_trumps_must_trump_when_void_and_highest_trump_wins() -> None:
    state = start(CLASSIC, ["", "9H 2D 2C", "2H KH 3D"])  # seat 0: thirteen spades
    open_hand(state, "trumps", "trump H")
    act(state, "AS")
    assert legal_suits(state) == {"H"} and len(state.legal_actions()) == 11
    refused(state, "2D", "must-trump", "must play a trump", "hearts")
    act(state, "9H")
    assert legal_str(state) == {"2H", "KH"}  # no overtrump without the option
    act(state, "2H")
    assert state.trump == 1
    state.apply(state.legal_actions()[0])  # seat 3: no spades, no hearts: any card
    assert state.tricks_won == [0, 1, 0, 0] and state.current == 1


def test_option_overtrump_on_a_plain_suit_lead() -> None:
    state = start(Game.classic(("overtrump",)), ["", "9H 2D 2C", "2H KH 3D"])
    open_hand(state, "trumps", "trump H")
    act(state, "AS", "9H")
    assert legal_str(state) == {"KH"}
    refused(state, "2H", "overtrump", "beat the highest trump")


def test_option_overtrump_when_unable_to_beat_still_trumps() -> None:
    state = start(Game.classic(("overtrump",)), ["", "KH 2D 2C", "2H 9H 3D"])
    open_hand(state, "trumps", "trump H")
    act(state, "AS")
    act(state, "KH")
    assert legal_str(state) == {"2H", "9H"}


def test_option_overtrump_on_a_trump_lead() -> None:
    spec = ["5H", "4H 9H", "3H", "2H"]
    plain = start(CLASSIC, spec)
    open_hand(plain, "trumps", "trump H")
    act(plain, "5H")
    assert "4H" in legal_str(plain)
    over = start(Game.classic(("overtrump",)), spec)
    open_hand(over, "trumps", "trump H")
    act(over, "5H")
    assert "4H" not in legal_str(over) and "9H" in legal_str(over)
    refused(over, "4H", "overtrump", "beat")


# -- option king-first ---------------------------------------------------------------------

KING_FIRST_DEAL = ["AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2H", "KH 3H 4H", "2S"]


def test_option_king_first_on_a_heart_trick() -> None:
    state = start(Game.classic(("king-first",)), KING_FIRST_DEAL)
    open_hand(state, "no-king")
    act(state, "2H")
    assert legal_str(state) == {"KH"}
    refused(state, "AH", "king-first", "K♥")
    plain = start(CLASSIC, KING_FIRST_DEAL)
    open_hand(plain, "no-king")
    act(plain, "2H")
    assert len(plain.legal_actions()) == 12


def test_option_king_first_when_void_in_the_suit_led() -> None:
    state = start(Game.classic(("king-first",)), KING_FIRST_DEAL)
    open_hand(state, "no-king")
    act(state, "AS")
    assert legal_str(state) == {"KH"}
    refused(state, "2D", "king-first", "first chance")
    act(state, "KH")
    state.apply(state.legal_actions()[0])
    state.apply(state.legal_actions()[0])
    assert list(state.history[0].contract_scores) == [-20, 0, 0, 0]


# -- Dominoes ---------------------------------------------------------------------------------

def test_dominoes_refuses_a_pass_and_an_unplaceable_card() -> None:
    state = start(CLASSIC, [])
    open_hand(state, "dominoes", "rank 7")
    refused(state, PASS, "must-place", "may not pass")
    refused(state, "8S", "placement", "opens with its 7")
    refused(state, "7H", "not-your-card", "do not hold")
    act(state, "7S", "7H", "7D", "7C")
    refused(state, "AS", "placement", "either end")
    act(state, "6S")
    assert state.observe(3).lines[0] == (4, 5)  # ranks 6 and 7


def test_dominoes_declarer_without_the_rank_passes_and_passes_are_forced() -> None:
    state = start(CLASSIC, ["", "JS JH JD JC"])
    open_hand(state, "dominoes", "rank J")
    assert state.legal_actions() == [PASS]
    act(state, "pass")
    assert state.current == 1 and len(state.legal_actions()) == 4
    drive(state, random.Random(3), until=lambda s: s.hand_no == 1)
    h = state.history[0]
    assert sorted(h.contract_scores) == [-5, 5, 20, 45]
    assert list(h.contract_scores) == contract_scores(CLASSIC, h)  # every pass was forced


def test_dominoes_never_blocks_in_random_hands() -> None:
    for seed in range(10):
        h = one_hand(CLASSIC, "dominoes", seed).history[0]
        assert list(h.contract_scores) == contract_scores(CLASSIC, h)


# -- game flow ----------------------------------------------------------------------------------

def test_declarers_rotate_every_seven_hands_and_declare_each_contract_once() -> None:
    state = State(CLASSIC, seed=11, first_declarer=2)
    drive(state, random.Random(11))
    declarers = [h.declarer for h in state.history]
    assert declarers == [2] * 7 + [3] * 7 + [0] * 7 + [1] * 7
    for seat in range(4):
        chosen = sorted(h.contract for h in state.history if h.declarer == seat)
        assert chosen == sorted(CLASSIC_TOTALS)
    assert state.is_over and state.current == TERMINAL and state.legal_actions() == []
    assert state.totals == [sum(h.scores[s] for h in state.history) for s in range(4)]
    assert sum(state.totals) == 0  # the seven contracts sum to zero and doubles move points only


def test_a_contract_cannot_be_declared_twice() -> None:
    state = State(CLASSIC, seed=4, first_declarer=1)
    drive(state, random.Random(4), choose("no-queens"), until=lambda s: s.hand_no == 1)
    state.deal_random()
    assert state.declarer == 1 and state.phase == Phase.CHOOSE
    assert len(state.legal_actions()) == 6
    refused(state, "no-queens", "contract-used", "No Queens", "already")


def test_highest_total_wins_the_classic_game() -> None:
    for seed in range(4):
        state = play_random(CLASSIC, seed)
        assert state.is_over
        best = max(state.totals)
        assert state.winners() == [s for s in range(4) if state.totals[s] == best]


def test_first_declarer_is_drawn_from_the_seed() -> None:
    seats = {State(CLASSIC, seed=s).first_declarer for s in range(40)}
    assert seats == {0, 1, 2, 3}
    assert State(CLASSIC, seed=9).first_declarer == State(CLASSIC, seed=9).first_declarer


def test_wrong_phase_and_unknown_actions_are_refused() -> None:
    state = State(CLASSIC, seed=2, first_declarer=0)
    refused(state, "AS", "wrong-phase", "deal the cards")
    state.deal_random()
    refused(state, "AS", "wrong-phase", "choose a contract")
    refused(state, 999, "unknown-action", "not an action")
    act(state, "trumps")
    refused(state, "no-tricks", "wrong-phase", "trump suit")
    act(state, "trump D")
    refused(state, "QS", "wrong-phase", "double")
    done = play_random(CLASSIC, 1)
    refused(done, "AS", "wrong-phase", "game is over")


def test_an_option_that_changes_a_score_changes_its_description_too() -> None:
    dominoes = {c.id: c for c in Game.classic(("dominoes-40",)).contracts}["dominoes"]
    assert dominoes.out_scores == (40, 25, 10, -10)
    assert dominoes.description.startswith("+40, +25, +10, −10")
