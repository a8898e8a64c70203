"""Doubling in classic Barbu (RULES.md 1.4 and 1.5): who may double whom, redoubles, obligations, settling."""

from __future__ import annotations

import json
import random

import pytest
from tests.conftest import EXAMPLES, play_random
from tests.engine_helpers import act, drive, refused, skip_doubles, start

from barbu.engine.cards import parse_cards
from barbu.engine.game import DOUBLE, Game
from barbu.engine.state import Phase, State, settle, split_doubles

pytestmark = pytest.mark.engine  # run again on the pure-Python engine (./test.sh, docs/TESTING.md)

CLASSIC = Game.classic()


def legal_str(state: State) -> list[str]:
    return [state.game.action_str(a) for a in state.legal_actions()]


def golden_state() -> tuple[State, list[str]]:
    doc = json.loads((EXAMPLES / "classic_no_queens_golden_doubling.json").read_text())
    hand = doc["hands"][0]
    state = State(CLASSIC, seed=0, first_declarer=0)
    assert state.deal([parse_cards(t) for t in hand["deal"]], 0)
    return state, hand["actions"]


def test_golden_example_of_rules_1_5() -> None:
    state, actions = golden_state()
    act(state, "no-queens")
    speakers = []
    for text in ("double 0,2,3", "double 0", "double none"):
        speakers.append(state.current)
        act(state, text)
    assert speakers == [1, 2, 3] and state.phase == Phase.REDOUBLE
    for text in ("redouble 2", "redouble none", "redouble none"):
        speakers.append(state.current)
        act(state, text)
    assert speakers[3:] == [0, 2, 3]  # the declarer first, then the doubled players from his left
    assert state.phase == Phase.PLAY and state.current == 0
    act(state, *actions)
    h = state.history[0]
    assert h.contract_scores == (-6, 0, -6, -12)
    assert h.scores == (-12, 24, -12, -24)
    assert sum(h.scores) == sum(h.contract_scores) == -24
    assert sorted(h.doubles) == [(0, 2), (1, 0), (1, 2), (1, 3), (2, 0)]


def test_settle_pairs() -> None:
    assert settle([-6, 0, -6, -12], [0b0100 | 0, 0b1101, 0b0001, 0], [0b0100, 0, 0, 0]) == [-12, 24, -12, -24]
    # a redouble settles the pair twice: d = 6, doubled by B and redoubled by A
    assert settle([-6, 0, -6, -12], [0, 0b0001, 0, 0], [0b0010, 0, 0, 0]) == [-18, 12, -6, -12]
    assert settle([45, 20, 5, -5], [0, 1, 1, 1], [0b1110, 0, 0, 0]) == [45 + 50 + 80 + 100, -30, -75, -105]
    assert settle([1, 2, 3, 4], [0] * 4, [0] * 4) == [1, 2, 3, 4]


def test_split_doubles_reads_both_directions_as_double_and_redouble() -> None:
    # declarer 0: a pair with the declarer is always his redouble, whatever the listing order
    for pairs in ([(0, 1), (1, 0)], [(1, 0), (0, 1)]):
        assert split_doubles(pairs, 0, 4) == ([0, 1, 0, 0], [2, 0, 0, 0])
    assert split_doubles([(2, 0)], 0, 4) == ([0, 0, 1, 0], [0, 0, 0, 0])
    # between two other players either reading settles the pair twice
    scores = [-6, 0, -6, -12]
    for pairs in ([(1, 2), (2, 1), (3, 2)], [(2, 1), (3, 2), (1, 2)]):
        doubles, redoubles = split_doubles(pairs, 0, 4)
        assert doubles[3] == 0b0100 and not redoubles[3]
        assert settle(scores, doubles, redoubles) == [-6, 12, -12, -18]


def test_nobody_doubles_the_hand_goes_straight_to_play() -> None:
    state = start(CLASSIC, [], declarer=2)
    act(state, "no-tricks")
    assert state.phase == Phase.DOUBLE and state.current == 3
    act(state, "double none", "double none", "double none")
    assert state.phase == Phase.PLAY and state.current == 2


def test_negative_contract_any_set_of_other_players() -> None:
    state = start(CLASSIC, [])
    act(state, "no-hearts")
    assert len(state.legal_actions()) == 8  # every subset of seats 0, 2, 3
    refused(state, "double 1", "double-self", "yourself")
    act(state, "double 2")
    refused(state, "double 1", "double-twice", "already doubled you")
    assert "double 0,3" in legal_str(state) and "double 1" not in legal_str(state)


@pytest.mark.parametrize(("contract", "extra"), [("trumps", "trump C"), ("dominoes", "rank 8")])
def test_positive_contract_only_the_declarer_may_be_doubled(contract: str, extra: str) -> None:
    state = start(CLASSIC, [], declarer=1)
    act(state, contract, extra)
    for seat in (2, 3, 0):
        assert state.current == seat
        assert legal_str(state) == ["double none", "double 1"]
        refused(state, "double 1,3" if seat != 3 else "double 0,1", "double-positive",
                "only the declarer")
        act(state, "double 1" if seat != 3 else "double none")
    assert state.phase == Phase.REDOUBLE and state.current == 1  # only the declarer was doubled
    assert legal_str(state) == ["redouble none", "redouble 0", "redouble 2", "redouble 0,2"]
    refused(state, "redouble 3", "redouble-target", "only players who doubled you")
    act(state, "redouble 2")
    assert state.phase == Phase.PLAY
    assert sorted(state.doubles_list()) == [(0, 1), (1, 2), (2, 1)]


def test_doubled_players_redouble_only_their_doublers() -> None:
    state = start(CLASSIC, [])
    act(state, "no-king", "double 2", "double 0")
    act(state, "double 1,2")
    # doubled: 0 by 2; 1 by 3; 2 by 1 and 3; 3 by nobody, so 3 has no redouble turn.
    order = []
    while state.phase == Phase.REDOUBLE:
        order.append(state.current)
        if state.current == 2:
            assert legal_str(state) == ["redouble none", "redouble 1", "redouble 3", "redouble 1,3"]
            refused(state, "redouble 0", "redouble-target", "doubled you")
            act(state, "redouble 1,3")
        else:
            state.apply(state.legal_actions()[-1])
    assert order == [0, 1, 2]
    assert set(state.doubles_list()) == {(1, 2), (2, 0), (3, 1), (3, 2), (0, 2), (1, 3), (2, 1), (2, 3)}


def test_declarer_never_doubles() -> None:
    for seed in range(3):
        state = State(CLASSIC, seed=seed)
        rng = random.Random(seed)
        while state.hand_no < 7:
            if state.phase == Phase.DEAL:
                state.deal_random()
                continue
            if state.phase == Phase.DOUBLE:
                assert state.current != state.declarer
            state.apply(rng.choice(state.legal_actions()))
        for h in state.history:
            for a, b in h.doubles:
                if a == h.declarer:
                    assert (b, a) in h.doubles, "the declarer only redoubles his doublers"


# -- the obligation to double ----------------------------------------------------------------------

def _no_voluntary_doubles(state: State, rng: random.Random) -> int | None:
    if state.phase in (Phase.DOUBLE, Phase.REDOUBLE):
        return state.legal_actions()[0]
    return None


def test_doubles_become_compulsory_when_owed_equals_hands_left() -> None:
    state = State(CLASSIC, seed=8, first_declarer=0)
    rng = random.Random(8)
    drive(state, rng, _no_voluntary_doubles, until=lambda s: s.hand_no == 5)
    drive(state, rng, until=lambda s: s.phase == Phase.DOUBLE)
    assert state.hands_left_for_declarer() == 2
    assert [state.double_is_compulsory(s) for s in range(4)] == [False, True, True, True]
    for seat in range(4):
        obs = state.observe(seat)
        assert obs.compulsory == (1, 2, 3) and obs.owed == (0, 2, 2, 2)
        assert obs.to_json()["compulsory"] == [1, 2, 3]
    assert state.current == 1
    assert all((a - DOUBLE) & 1 for a in state.legal_actions())
    err = refused(state, "double none", "compulsory-double", "compulsory", "owe 2",
                   "2 of the declarer's hands")
    assert "seat 0" in str(err)
    for _ in range(3):
        state.apply(state.legal_actions()[0])  # the least allowed: the declarer alone
    skip_doubles(state)
    drive(state, rng, until=lambda s: s.hand_no == 6)
    drive(state, rng, until=lambda s: s.phase == Phase.DOUBLE)
    assert state.observe(2).owed == (0, 1, 1, 1) and state.observe(2).compulsory == (1, 2, 3)
    refused(state, "double none", "compulsory-double", "owe 1 double ",
            "only 1 of the declarer's hands remains")


def test_one_double_made_early_defers_the_obligation() -> None:
    state = State(CLASSIC, seed=3, first_declarer=0)
    rng = random.Random(3)
    drive(state, rng, until=lambda s: s.phase == Phase.DOUBLE)
    act(state, "double 0")
    skip_doubles(state)
    drive(state, rng, _no_voluntary_doubles, until=lambda s: s.hand_no == 5)
    drive(state, rng, until=lambda s: s.phase == Phase.DOUBLE)
    assert state.observe(0).compulsory == (2, 3) and state.observe(0).owed == (0, 1, 2, 2)
    assert [state.double_is_compulsory(s) for s in range(4)] == [False, False, True, True]
    assert "double none" in legal_str(state)
    drive(state, rng, _no_voluntary_doubles, until=lambda s: s.hand_no == 6)
    drive(state, rng, until=lambda s: s.phase == Phase.DOUBLE)
    assert state.observe(1).compulsory == (1, 2, 3)


def test_obligation_restarts_with_each_declarer() -> None:
    state = State(CLASSIC, seed=1, first_declarer=3)
    rng = random.Random(1)
    drive(state, rng, _no_voluntary_doubles, until=lambda s: s.hand_no == 7)
    drive(state, rng, until=lambda s: s.phase == Phase.DOUBLE)
    assert state.declarer == 0
    assert state.observe(1).owed == (0, 2, 2, 2) and state.observe(1).compulsory == ()


def test_no_obligation_in_family_and_no_doubling_phase() -> None:
    state = State(Game.family(4), seed=0)
    drive(state, random.Random(0), until=lambda s: s.phase == Phase.PLAY)
    assert state.observe(0).owed == (0, 0, 0, 0) and state.observe(0).compulsory == ()


@pytest.mark.parametrize("seed", range(6))
def test_every_player_doubles_every_declarer_twice(seed: int) -> None:
    state = play_random(CLASSIC, seed)
    for declarer in range(4):
        hands = [h for h in state.history if h.declarer == declarer]
        for seat in range(4):
            if seat != declarer:
                assert sum((seat, declarer) in h.doubles for h in hands) >= 2


@pytest.mark.parametrize("seed", range(6))
def test_doubling_never_changes_a_hands_total(seed: int) -> None:
    state = play_random(CLASSIC, seed)
    assert any(h.scores != h.contract_scores for h in state.history)
    for h in state.history:
        assert sum(h.scores) == sum(h.contract_scores)

