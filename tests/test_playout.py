"""The playout kernel and the benchmark: same rules as State.apply, and the bench prints its figures."""

from __future__ import annotations

import random

import pytest
from tests.engine_helpers import EVERY_TABLE

from barbu.engine.game import CONTRACT, DOUBLE, RANK, REDOUBLE, TRUMP, Game
from barbu.engine.playout import finish_hand
from barbu.engine.state import Phase, State, split_doubles
from barbu.tools.bench import barbu_api_hand, barbu_hand, classic_game, openspiel_hand_factory
from barbu.tools.bench import main as bench_main

pytestmark = pytest.mark.engine  # run again on the pure-Python engine (./test.sh, docs/TESTING.md)


@pytest.mark.parametrize("game", EVERY_TABLE, ids=lambda g: f"{g.ruleset}-{g.players}-{len(g.options)}")
def test_kernel_plays_only_legal_cards_and_scores_like_apply(game: Game) -> None:
    for seed in range(60):
        state = State(game, seed=seed)
        while not state.deal_random():
            pass
        start = state.copy()
        finish_hand(state, random.Random(seed))
        record = state.history[-1]
        # The same hand through apply(): every action must be legal, and the record identical.
        check = start
        check.apply(CONTRACT + game.contract_index(record.contract))
        if check.phase == Phase.TRUMP:
            assert record.trump is not None
            check.apply(TRUMP + record.trump)
        if check.phase == Phase.START_RANK:
            assert record.start_rank is not None
            check.apply(RANK + record.start_rank)
        doubles, redoubles = split_doubles(record.doubles, record.declarer, game.players)
        while check.phase == Phase.DOUBLE:
            check.apply(DOUBLE + doubles[check.current])
        while check.phase == Phase.REDOUBLE:
            check.apply(REDOUBLE + redoubles[check.current])
        for action in record.actions:
            check.apply(action)
        assert check.history[-1] == record
        assert state.totals == check.totals


def test_kernel_finishes_a_hand_begun_mid_trick() -> None:
    rng = random.Random(3)
    state = State(Game.classic(), seed=3, first_declarer=0)
    state.deal_random()
    state.apply(CONTRACT + 1)  # No Queens
    for _ in range(3):
        state.apply(DOUBLE)
    for _ in range(6):  # a trick and a half
        state.apply(rng.choice(state.legal_actions()))
    finish_hand(state, rng)
    assert state.hand_no == 1 and sum(state.history[0].contract_scores) == -24


def test_finish_hand_is_a_no_op_between_hands() -> None:
    state = State(Game.classic(), seed=1)
    finish_hand(state, random.Random(1))
    assert state.phase == Phase.DEAL and state.hand_no == 0


def test_bench_figures_count_real_work(capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(1)
    assert barbu_hand(rng) == 4 + 13 * 4  # contract, three doubles, 52 cards of No Tricks
    assert barbu_api_hand(rng) == 4 + 13 * 4
    assert classic_game(rng) > 28 * 40
    assert bench_main(["--seconds", "0.3", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "complete classic games" in out and "(kernel)" in out and "(API)" in out
    assert "ratio kernel / OpenSpiel" in out


def test_openspiel_reference_plays_one_hand_of_hearts_without_passing() -> None:
    # The reference must do the same work as barbu's hand, not more: its one chance step for
    # the pass direction must be "no pass" (picking among all four once sent 3 hands in 4
    # through 12 passing actions), then 52 cards dealt and 52 played.
    pyspiel = pytest.importorskip("pyspiel")
    hand = openspiel_hand_factory()
    assert hand is not None
    rng = random.Random(2)
    assert all(hand(rng) == 1 + 52 + 52 for _ in range(50))
    state = pyspiel.load_game("hearts", {"pass_cards": False}).new_initial_state()
    assert state.is_chance_node() and len(state.legal_actions()) == 1
    state.apply_action(state.legal_actions()[0])
    outcomes = state.chance_outcomes()  # the deal: every legal outcome equally likely
    assert [a for a, _ in outcomes] == state.legal_actions() and len({p for _, p in outcomes}) == 1


def test_bids_do_not_shift_the_card_play_random_numbers() -> None:
    # Searches compare bids on the same random numbers: whatever is doubled, the cards
    # that follow come out the same, and only the settlement differs.
    state = State(Game.classic(), seed=5, first_declarer=0)
    state.deal_random()
    state.apply(CONTRACT + 1)  # No Queens
    plays = []
    for double in state.legal_actions():
        trial = state.copy()
        trial.apply(double)
        finish_hand(trial, random.Random(9))
        plays.append((trial.history[0].actions, trial.history[0].contract_scores))
    assert len(plays) == 8 and all(p == plays[0] for p in plays)
