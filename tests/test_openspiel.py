"""Barbu as an OpenSpiel game: OpenSpiel's own checks, serialisation, returns, ISMCTS resampling."""

from __future__ import annotations

import pickle
import random
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.observation import make_observation  # noqa: E402

import barbu.openspiel  # noqa: E402, F401 — registers the game with pyspiel
from barbu.engine.cards import mask_str  # noqa: E402
from barbu.engine.errors import IllegalActionError  # noqa: E402
from barbu.engine.state import Phase  # noqa: E402
from barbu.env.actions import NUM_ACTIONS, legal_ids  # noqa: E402
from barbu.env.encoding import encode, layout  # noqa: E402

TABLES = [{"rules": "classic"}, {"rules": "classic", "options": "overtrump+king-first+heart-lead"},
          {"rules": "family", "players": 3}, {"rules": "family", "players": 4},
          {"rules": "family", "players": 5}, {"rules": "family", "players": 6}]
TABLE_IDS = ["classic", "classic-options", "family3", "family4", "family5", "family6"]


def load(**params: Any) -> Any:
    return pyspiel.load_game("barbu", params)


def play(state: Any, rng: random.Random, decisions: int | None = None) -> Any:
    """Random chance outcomes and actions until the end, or until the decision after ``decisions``."""
    while not state.is_terminal():
        if state.is_chance_node():
            cards, weights = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(cards, weights)[0])
            continue
        if decisions == 0:
            break
        state.apply_action(rng.choice(state.legal_actions()))
        decisions = None if decisions is None else decisions - 1
    return state


@pytest.mark.parametrize("params", TABLES, ids=TABLE_IDS)
def test_openspiel_random_simulation_checks_pass_on_two_hands(params: dict[str, Any]) -> None:
    # Clones, serialisation round trips, sorted legal actions, chance outcomes, rewards adding
    # up to returns at every decision, utility bounds and the game length: OpenSpiel's checks.
    pyspiel.random_sim_test(load(**params, hands=2), num_sims=2, serialize=True, verbose=False)


def test_a_whole_classic_game_is_zero_sum_and_passes_the_checks() -> None:
    game = load()
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)
    assert load(hands=1).get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM


def test_parameters_reach_the_engine_and_bad_ones_are_refused() -> None:
    game = load(rules="family", players=5, hands=3, first_declarer=2)
    assert game.num_players() == 5 and game.engine_game.players == 5
    state = play(game.new_initial_state(), random.Random(1), decisions=0)
    assert state.engine.declarer == state.current_player() == 2
    assert str(game) == "barbu(first_declarer=2,hands=3,options=,players=5,rules=family)"
    assert str(pickle.loads(pickle.dumps(load(options="dominoes-40+overtrump")))) == str(
        load(options="overtrump,dominoes-40"))
    for bad in ({"rules": "classic", "players": 5}, {"hands": 40}, {"options": "misere"}):
        with pytest.raises(ValueError):  # the engine's or the parameters' own message
            pyspiel.load_game("barbu", bad)


@pytest.mark.parametrize("params", [TABLES[0], TABLES[2]], ids=["classic", "family3"])
def test_returns_are_the_scores_family_negated_and_rewards_add_up(params: dict[str, Any]) -> None:
    game = load(**params, hands=3)
    state = play(game.new_initial_state(), random.Random(4))
    engine = state.engine
    sign = 1 if params["rules"] == "classic" else -1
    assert engine.hand_no == 3 and state.is_terminal() and not engine.is_over
    assert state.returns() == [sign * t for t in engine.totals]
    assert [sign * s for s in engine.history[-1].scores] == state.rewards()


def test_a_one_hand_game_ends_with_its_hand() -> None:
    state = play(load(rules="family", players=4, hands=1).new_initial_state(), random.Random(2))
    assert state.is_terminal() and state.engine.hand_no == 1
    assert state.current_player() == pyspiel.PlayerId.TERMINAL and state.legal_actions() == []


def test_the_deal_is_chance_then_the_declarer_chooses() -> None:
    state = load(rules="family", players=3).new_initial_state()
    assert state.is_chance_node() and state.current_player() == pyspiel.PlayerId.CHANCE
    play(state, random.Random(3), decisions=0)
    assert state.move_number() == 51 and not state.is_chance_node()  # 17 cards each, 1 set aside
    assert state.engine.phase == Phase.CHOOSE and state.engine.set_aside.bit_count() == 1
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 10) == "deal QS"
    assert state.action_to_string(0, state.legal_actions()[0]) == "king"


def test_an_action_that_is_not_legal_is_refused() -> None:
    state = play(load(hands=1).new_initial_state(), random.Random(5), decisions=0)
    with pytest.raises(IllegalActionError, match="time to choose a contract, not '2S'"):
        state.apply_action(0)  # the engine's refusal comes through OpenSpiel unchanged
    with pytest.raises(IllegalActionError, match="not a card that can be dealt"):
        load(hands=1).new_initial_state().apply_action(60)


@pytest.mark.parametrize("params", [TABLES[0], TABLES[3]], ids=["classic", "family4"])
def test_serialised_and_pickled_states_continue_the_same_game(params: dict[str, Any]) -> None:
    game = load(**params, hands=2)
    state = play(game.new_initial_state(), random.Random(6), decisions=30)
    text = pyspiel.serialize_game_and_state(game, state)
    game2, again = pyspiel.deserialize_game_and_state(text)
    unpickled = pickle.loads(pickle.dumps(state))
    for other in (again, unpickled, game.deserialize_state(state.serialize())):
        assert str(other) == str(state) and other.history() == state.history()
        assert other.information_state_string(1) == state.information_state_string(1)
        play(other, random.Random(7))
    play(state, random.Random(7))
    assert again.returns() == state.returns() == unpickled.returns() and str(game2) == str(game)


def test_a_clone_is_independent_of_its_original() -> None:
    state = play(load(hands=1).new_initial_state(), random.Random(8), decisions=3)
    clone = state.clone()
    assert clone.history() == state.history() and str(clone) == str(state)
    clone.apply_action(clone.legal_actions()[0])
    assert len(clone.history()) == len(state.history()) + 1 and str(clone) != str(state)


def test_the_history_replays_to_the_same_state() -> None:
    game = load(rules="family", players=6, hands=2)
    state = play(game.new_initial_state(), random.Random(9), decisions=40)
    again = game.new_initial_state()
    for a in state.history():
        again.apply_action(a)
    assert str(again) == str(state)


# -- what a seat sees --------------------------------------------------------

def hidden(state: Any, seat: int) -> list[int]:
    """The other seats' hands as they are now."""
    return [h for s, h in enumerate(state.engine.hands) if s != seat]


@pytest.mark.parametrize("params", TABLES, ids=TABLE_IDS)
def test_a_resampled_state_looks_the_same_to_the_seat_and_redeals_the_rest(params: dict[str, Any]) -> None:
    # OpenSpiel's ResampleInfostateTest (C++ only), plus: the hidden cards really are redrawn,
    # the seat's own are not, and the new state's history replays to it.
    game = load(**params, hands=2)
    state, rng = game.new_initial_state(), random.Random(10)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    redrawn = checked = 0
    while not state.is_terminal():
        if not state.is_chance_node() and rng.random() < 0.2:
            for p in range(game.num_players()):
                other = state.resample_from_infostate(p, sampler)
                assert other.information_state_string(p) == state.information_state_string(p)
                assert other.information_state_tensor(p) == state.information_state_tensor(p)
                assert other.observation_string(p) == state.observation_string(p)
                assert other.current_player() == state.current_player()
                assert other.engine.hands[p] == state.engine.hands[p]
                redrawn += hidden(other, p) != hidden(state, p)
                checked += 1
            replayed = game.new_initial_state()
            for a in other.history():
                replayed.apply_action(a)
            assert str(replayed) == str(other)
        play(state, rng, decisions=1)
    assert checked and redrawn > checked // 2


def test_the_strings_are_the_seat_s_view_with_and_without_the_hand_s_decisions() -> None:
    state = play(load(hands=1).new_initial_state(), random.Random(11), decisions=10)
    engine = state.engine
    info, seen = state.information_state_string(2), state.observation_string(2)
    assert f"hand: {mask_str(engine.hands[2])}\n" in info and f"hand: {mask_str(engine.hands[2])}" in seen
    assert all(mask_str(engine.hands[s]) not in info for s in (0, 1, 3))
    plays = " ".join(f"{s}:{engine.game.action_str(a)}" for s, a in zip(engine.actors, engine.actions,
                                                                          strict=True))
    assert info.endswith("play: " + plays) and "play: " not in seen
    public = pyspiel.IIGObservationType(perfect_recall=True, private_info=pyspiel.PrivateInfoType.NONE)
    assert "hand: " not in make_observation(state.get_game(), public).string_from(state, 2)


@pytest.mark.parametrize("params", [TABLES[0], TABLES[4]], ids=["classic", "family5"])
def test_the_tensors_are_the_environment_s_encoding_and_the_play_order(params: dict[str, Any]) -> None:
    game = load(**params, hands=1)
    state = play(game.new_initial_state(), random.Random(12), decisions=9)
    engine = state.engine
    size = layout(engine.game).size
    assert game.observation_tensor_size() == size and game.information_state_tensor_size() == size + 52
    for seat in range(game.num_players()):
        obs = engine.observe(seat)
        assert state.observation_tensor(seat) == pytest.approx(list(encode(obs)))
        info = state.information_state_tensor(seat)
        assert info[:size] == pytest.approx(list(encode(obs)))
        order = sorted((x, card) for card, x in enumerate(info[size:]) if x)
        assert [card for _, card in order] == [a for _, a in obs.history if a < 52]
    named = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    named.set_from(state, 1)
    assert set(named.dict) == {*layout(engine.game).fields, "play_order"}
    assert named.dict["hand"].sum() == engine.hands[1].bit_count()


def test_action_ids_are_the_environment_s() -> None:
    game = load(hands=1)
    assert game.num_distinct_actions() == NUM_ACTIONS
    state, rng, doubled = game.new_initial_state(), random.Random(13), False
    while not state.is_terminal():
        if not state.is_chance_node():
            engine = state.engine
            assert state.legal_actions() == sorted(legal_ids(engine.legal_actions(), engine.current,
                                                             engine.game))
            doubled |= engine.phase == Phase.DOUBLE
        play(state, rng, decisions=1)
    assert doubled
