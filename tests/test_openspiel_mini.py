"""Mini-Barbu (``barbu_mini``): small enough for exact methods, played by the engine on a smaller deck."""

from __future__ import annotations

import itertools
import json
import pickle
import random
from collections.abc import Iterator

import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python import policy as os_policy  # noqa: E402
from open_spiel.python.algorithms import cfr, exploitability  # noqa: E402

import barbu.openspiel  # noqa: E402, F401
from barbu.engine.cards import cards_of, mask_of, parse_cards  # noqa: E402
from barbu.engine.game import Game  # noqa: E402
from barbu.engine.record import replay, to_record  # noqa: E402
from barbu.engine.state import Phase, State  # noqa: E402
from barbu.openspiel.box import EngineBox  # noqa: E402
from barbu.openspiel.mini import MiniBarbuGame, all_deals, efg_text  # noqa: E402

TINY = {"suits": "SH", "ranks": "QKA", "contracts": "tricks+hearts"}  # six cards, two each
ONE_CARD = {"suits": "SH", "ranks": "KA", "contracts": "tricks+hearts"}  # a card each, one set aside
Weighted = list[tuple[State, float]]


def count_states(game: object) -> int:
    stack = [game.new_initial_state()]  # type: ignore[attr-defined]
    states = 0
    while stack:
        s = stack.pop()
        states += 1
        if s.is_chance_node():
            stack += [s.child(a) for a, _ in s.chance_outcomes()]
        elif not s.is_terminal():
            stack += [s.child(a) for a in s.legal_actions()]
    return states


def test_the_game_loads_with_its_parameters_and_refuses_bad_ones() -> None:
    game = pyspiel.load_game("barbu_mini", TINY)
    assert isinstance(game, MiniBarbuGame)
    assert game.num_players() == 3 and game.get_type().short_name == "barbu_mini"
    assert game.engine_game.hand_size == 2
    assert [c.id for c in game.engine_game.contracts] == ["tricks", "hearts"]
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 90  # 6!/(2!·2!·2!) deals
    with pytest.raises(ValueError, match="unknown rank 'X'"):
        pyspiel.load_game("barbu_mini", {**TINY, "ranks": "QXA"})
    with pytest.raises(ValueError, match="Réussite needs the whole deck"):
        pyspiel.load_game("barbu_mini", {**TINY, "contracts": "reussite"})


def test_the_tree_is_small() -> None:
    # One chance node with 90 deals, the choice of two challenges, then two tricks.
    states = count_states(pyspiel.load_game("barbu_mini", TINY))
    assert 90 * 2 < states < 10_000


def test_a_few_cfr_iterations_reduce_nash_conv() -> None:
    # On barbu_mini itself: with one card each, the chooser's pick of challenge is what CFR learns.
    game = pyspiel.load_game("barbu_mini", ONE_CARD)
    uniform = exploitability.nash_conv(game, os_policy.UniformRandomPolicy(game))
    solver = cfr.CFRSolver(game)
    for _ in range(4):
        solver.evaluate_and_update_policy()
    assert uniform > 1.0 and exploitability.nash_conv(game, solver.average_policy()) < uniform / 2
    # On the EFG export of two cards each, where the play of the cards is learnt too.
    efg = pyspiel.load_efg_game(efg_text(pyspiel.load_game("barbu_mini", {**TINY, "contracts": "tricks"})))
    uniform = exploitability.nash_conv(efg, os_policy.UniformRandomPolicy(efg))
    solver = cfr.CFRPlusSolver(efg)
    for _ in range(4):
        solver.evaluate_and_update_policy()
    assert exploitability.nash_conv(efg, solver.average_policy()) < uniform / 2


# -- the uniform policy's NashConv, computed again on the engine alone --------------------------

def engine_deals(game: Game) -> Iterator[list[int]]:
    """Every deal of three hands and no set-aside card, from itertools rather than barbu_mini."""
    cards = cards_of(game.deck)
    for first in itertools.combinations(cards, game.hand_size):
        rest = [c for c in cards if c not in first]
        for second in itertools.combinations(rest, game.hand_size):
            yield [mask_of(first), mask_of(second), mask_of(c for c in rest if c not in second)]


def child(s: State, action: int) -> State:
    new = s.copy()
    new.apply(action)
    return new


def uniform_value(s: State, player: int) -> float:
    if s.hand_no == 1:
        return -s.history[0].scores[player]  # family points are penalties
    legal = s.legal_actions()
    return sum(uniform_value(child(s, a), player) for a in legal) / len(legal)


def best_response(group: Weighted, player: int) -> float:
    """The best ``player`` can do against uniform play from these states, all alike to him.

    Chance and the others' moves are expanded with their probabilities; the player's nodes are
    grouped by what he knows (his cards, the challenge, every card played), and each group gets
    the action best for the whole group.
    """
    total = 0.0
    groups: dict[tuple[int, int, tuple[int, ...]], Weighted] = {}
    stack = list(group)
    while stack:
        s, w = stack.pop()
        if s.hand_no == 1:
            total += w * -s.history[0].scores[player]
        elif s.current == player:
            groups.setdefault((s.dealt[player], s.contract_idx, tuple(s.actions)), []).append((s, w))
        else:
            legal = s.legal_actions()
            stack += [(child(s, a), w / len(legal)) for a in legal]
    for members in groups.values():
        total += max(best_response([(child(s, a), w) for s, w in members], player)
                     for a in members[0][0].legal_actions())
    return total


def test_the_uniform_policy_nash_conv_matches_a_computation_on_the_engine() -> None:
    game = pyspiel.load_game("barbu_mini", {**TINY, "contracts": "tricks"})
    deals = list(engine_deals(game.engine_game))
    starts = []
    for hands in deals:
        s = State(game.engine_game, seed=0, first_declarer=0)
        assert s.deal(hands)
        starts.append((s, 1.0 / len(deals)))
    expected = sum(best_response(starts, p) - sum(w * uniform_value(s, p) for s, w in starts)
                   for p in range(3))
    got = exploitability.nash_conv(game, os_policy.UniformRandomPolicy(game))
    assert len(deals) == 90 and expected > 1.0
    assert got == pytest.approx(expected, abs=1e-9)
    efg = pyspiel.load_efg_game(efg_text(game))  # the same tree, as OpenSpiel's C++ reads it
    from_efg = exploitability.nash_conv(efg, os_policy.UniformRandomPolicy(efg))
    assert from_efg == pytest.approx(expected, abs=1e-9)


# -- records and the engine on a smaller deck --------------------------------------------------

def test_records_of_mini_games_replay() -> None:
    game = Game("family", 3, deck=parse_cards("QS KS AS QH KH AH QD KD AD"),
                contract_ids=("tricks", "hearts", "queens"))
    rng = random.Random(3)
    state = State(game, seed=3)
    while not state.is_over:
        if state.phase == Phase.DEAL:
            state.deal_random()
        else:
            state.apply(rng.choice(state.legal_actions()))
    doc = json.loads(json.dumps(to_record(state, ["Ann", "Ben", "Cleo"])))
    assert doc["deck"] == "AS KS QS AH KH QH AD KD QD"
    assert doc["contracts"] == ["tricks", "hearts", "queens"]
    result = replay(doc)
    assert result.state.totals == state.totals and len(result.hands) == 9 and result.state.is_over
    assert all(len(h.actions) <= 9 for h in result.hands)


def test_an_openspiel_hand_replays_as_a_record() -> None:
    game = pyspiel.load_game("barbu_mini", TINY)
    state = game.new_initial_state()
    rng = random.Random(5)
    while not state.is_terminal():
        moves = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        state.apply_action(rng.choice(moves))
    result = replay(to_record(state.engine, ["Ann", "Ben", "Cleo"]))
    assert [-x for x in result.hands[0].scores] == state.returns()


def test_a_pickled_mini_state_keeps_its_smaller_game() -> None:
    state = pyspiel.load_game("barbu_mini", TINY).new_initial_state()
    state.apply_action(7)
    back = pickle.loads(pickle.dumps(EngineBox(state.engine))).state
    assert back.game == state.engine.game and back.game.deck == parse_cards("QS KS AS QH KH AH")
    assert back.hands == state.engine.hands


def test_every_deal_of_a_mini_game_is_one_of_its_chance_outcomes() -> None:
    game = pyspiel.load_game("barbu_mini", TINY)
    expected = sorted(map(tuple, engine_deals(game.engine_game)))
    assert sorted(d[0] for d in all_deals(game.origin.state)) == expected


def test_a_smaller_deck_refuses_cards_outside_it_and_layout_games() -> None:
    with pytest.raises(ValueError, match="Réussite needs the whole deck"):
        Game("family", 3, deck=parse_cards("QS KS AS QH KH AH"))  # the whole table, Réussite in it
    small = Game("family", 3, deck=parse_cards("QS KS AS QH KH AH"), contract_ids=("tricks",))
    s = State(small, seed=1)
    with pytest.raises(Exception, match="card 2C is not in this game's deck"):
        s.deal([parse_cards("QS KS"), parse_cards("AS QH"), parse_cards("KH 2C")])
    assert s.phase == Phase.DEAL
    with pytest.raises(ValueError, match="listed twice"):
        Game("family", 3, deck=parse_cards("QS KS AS"), contract_ids=("tricks", "tricks"))


def test_basic_measures_a_hand_against_the_hands_of_the_deck_in_play() -> None:
    # On six cards, every hand is "riskier than average" next to 52-card hands (about 5 to 8
    # times); against the hands of the deck in play, the average hand is about average.
    from barbu.bots.basic import relative

    deck = parse_cards("QS KS AS QH KH AH")
    game = Game("family", 3, deck=deck, contract_ids=("tricks", "hearts", "queens"))
    hands = [mask_of(h) for h in itertools.combinations(cards_of(game.deck), 2)]
    for c in game.contracts:
        mean = sum(relative(c, h, 2, game.deck) for h in hands) / len(hands)
        assert 0.8 < mean < 1.25, c.id
