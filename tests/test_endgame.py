"""The exact ending: max-n values agree with a plain search of every card, and play what is plainly right."""

from __future__ import annotations

import random

import pytest
from tests.engine_helpers import dominoes_ending

from barbu.bots.endgame import DOMINO_LEFT, LEAVES, Solver, leaves_bound, solvable
from barbu.bots.policy import heuristic_card
from barbu.engine.cards import bits, parse_card
from barbu.engine.game import PASS, Game
from barbu.engine.state import Phase, State
from barbu.tools.arena import deal_state

pytestmark = pytest.mark.engine  # run again on the pure-Python engine (./test.sh, docs/TESTING.md)


def _table(g: Game) -> str:
    """A short test id for a table: classic4+overtrump, family5."""
    return f"{g.ruleset}{g.players}" + "".join(f"+{o}" for o in sorted(g.options))


def _plain(state: State, hand_no: int, sign: float) -> tuple[float, ...]:
    """Max-n over every legal card, no run merged, ties played at random (the mean over the
    tied cards): what the solver must agree with."""
    if state.hand_no != hand_no or not state.hand_in_progress:
        return tuple(sign * x for x in state.history[-1].scores)
    children = []
    for card in list(bits(state.legal_mask())) or [PASS]:  # a layout game's player may have to pass
        child = state.copy()
        child._do(card)
        children.append(_plain(child, hand_no, sign))
    top = max(v[state.current] for v in children)
    tied = [v for v in children if v[state.current] == top]
    return tuple(sum(v[s] for v in tied) / len(tied) for s in range(len(tied[0])))


def _ending(game: Game, seed: int, k: int, left: int) -> State | None:
    """Deal ``k`` played by rule of thumb (doubles as they come) until ``left`` cards a hand."""
    rng = random.Random(seed * 1000 + k)
    state = deal_state(game, seed, k)
    hand_no = state.hand_no
    while state.phase != Phase.PLAY:
        state._do(rng.choice(state.legal_actions()))  # random doubles: the solver must settle them
    while state.hand_no == hand_no and state.hand_in_progress and (
            max(h.bit_count() for h in state.hands) > left or state.trick):
        state._do(heuristic_card(state, rng))
    if state.hand_no != hand_no or not state.hand_in_progress or not solvable(state):
        return None
    return state


@pytest.mark.parametrize("game", [Game.classic(), Game.classic(frozenset({"overtrump"})), Game.family(4),
                                  Game.family(5), Game.family(3)], ids=_table)
def test_the_solver_agrees_with_a_search_of_every_card(game: Game) -> None:
    checked = 0
    for k in range(28):
        state = _ending(game, 5, k, 3 if game.players <= 4 else 2)
        if state is None:
            continue
        # Part-way into a trick as well as at its start.
        for _ in range(k % 3):
            state._do(heuristic_card(state, random.Random(k)))
        if not (state.hand_in_progress and state.phase == Phase.PLAY):
            continue
        sign = 1.0 if game.is_classic else -1.0
        seat = state.current
        got = Solver(state).card_values(state, seat)
        assert set(got) == set(bits(state.legal_mask()))
        for card, value in got.items():
            child = state.copy()
            child._do(card)
            assert value == pytest.approx(_plain(child, state.hand_no, sign)[seat]), (k, card)
        checked += 1
    assert checked >= 10


def test_runs_of_equal_cards_are_searched_once() -> None:
    fewer = 0
    for k in range(0, 140, 7):  # No Tricks deals: every card worth the same
        state = _ending(Game.classic(), 2, k, 3)
        if state is None:
            continue
        solver = Solver(state)
        solver.card_values(state, state.current)
        plain, _ = _walk_plain(state)
        assert solver.nodes <= plain
        fewer += solver.nodes < plain
    assert fewer >= 3


def _walk_plain(state: State) -> tuple[int, int]:
    """The states a search of every legal card visits, and how many of them are a forced pass."""
    hand_no, stack, total, passes = state.hand_no, [state], 0, 0
    while stack:
        s = stack.pop()
        total += 1
        if s.hand_no != hand_no or not s.hand_in_progress:
            continue
        legal = list(bits(s.legal_mask()))
        passes += not legal  # a layout game's player with nothing to place
        for action in legal or [PASS]:
            child = s.copy()
            child._do(action)
            stack.append(child)
    return total, passes


def _two_cards_each(hands: list[str], leader: int) -> State:
    """No Last Two at its 12th trick with these hands (two cards each), no doubles."""
    state = deal_state(Game.classic(), 1, 3)
    while state.phase != Phase.PLAY:
        state._do(min(state.legal_actions()))  # the one contract left, then no doubles
    assert state.contract is not None and state.contract.id == "no-last-two" and not any(state.doubled)
    state.hands = [sum(1 << parse_card(c) for c in h.split()) for h in hands]
    state.played = ((1 << 52) - 1) & ~sum(state.hands)
    state.trick_no, state.leader, state.current, state.trick = 11, leader, leader, []
    return state


def test_no_last_two_leads_low_and_keeps_the_ace_to_shed() -> None:
    # Seat 1 leads, holding A♠ 2♠; every other player has one spade and one heart.
    state = _two_cards_each(["KS 3H", "AS 2S", "QS 4H", "JS 5H"], leader=1)
    assert solvable(state)
    values = Solver(state).card_values(state, 1)
    # 2♠ first: K♠ takes the 12th trick and leads a heart, the ace is shed: 0. A♠ first: it wins
    # the 12th, and the 2♠ led then wins the 13th, as nobody has a spade left: -10 - 20.
    assert values == {parse_card("2S"): 0.0, parse_card("AS"): -30.0}


def test_the_bound_decides_what_is_solved() -> None:
    assert leaves_bound(4, [3, 3, 3, 3]) == LEAVES
    assert leaves_bound(4, [4, 3, 3, 3]) > LEAVES
    assert not solvable(deal_state(Game.classic(), 1, 0))  # not yet in the play, and 13 cards a hand
    assert not solvable(deal_state(Game.classic(), 1, 6))  # Dominoes is not a trick game


def _domino_ending(seed: int, k: int, left: int) -> State | None:
    """Classic deal ``7k + 6`` (Dominoes) placed by rule of thumb until ``left`` cards are held."""
    return dominoes_ending(seed, k, left, random.Random(seed * 1000 + k), heuristic_card)


def test_dominoes_endings_are_solved_only_when_asked_and_agree_with_a_search_of_every_card() -> None:
    checked = passes = 0
    for k in range(30):
        state = _domino_ending(3, k, 10)
        if state is None or not state.legal_mask():
            continue
        assert not solvable(state) and solvable(state, dominoes=True)
        seat = state.current
        solver = Solver(state)
        got = solver.card_values(state, seat)
        assert set(got) == set(bits(state.legal_mask()))  # every placeable card, none merged
        for card, value in got.items():
            child = state.copy()
            child._do(card)
            assert value == pytest.approx(_plain(child, state.hand_no, 1.0)[seat]), (k, card)
        passes += _walk_plain(state)[1]
        checked += 1
    assert checked >= 10 and passes > 0  # some endings make a player pass on the way


def test_a_dominoes_ending_is_small_by_the_cards_still_held() -> None:
    state = _domino_ending(3, 1, DOMINO_LEFT)
    assert state is not None and solvable(state, dominoes=True)
    bigger = _domino_ending(3, 1, DOMINO_LEFT + 4)
    assert bigger is not None and not solvable(bigger, dominoes=True)
