"""The OpenSpiel adapter's pure parts: the deal as chance steps, a hand rebuilt from a view, state boxes."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import random
import subprocess
import sys
from collections import Counter

import pytest
from tests.conftest import ROOT

from barbu.engine.cards import FULL_DECK, KH_MASK, KING_OF_HEARTS
from barbu.engine.game import Game
from barbu.engine.state import Phase, State
from barbu.openspiel.box import EngineBox, SharedBox
from barbu.openspiel.deal import (
    deal_order,
    deal_outcomes,
    deal_size,
    hand_decisions,
    hand_origin,
    hands_of,
    king_must_be_dealt,
)
from barbu.openspiel.params import settings_of

GAMES = [Game.classic(), Game.classic(("overtrump", "king-first")), Game.family(3), Game.family(4),
         Game.family(5), Game.family(6)]
IDS = ["classic", "classic-options", "family3", "family4", "family5", "family6"]


def random_points(game: Game, seed: int, count: int) -> list[State]:
    """Copies of one random game at each contract choice and about ``count`` random decisions,
    over its first three hands."""
    rng = random.Random(seed)
    state = State(game, seed=seed)
    out = []
    while state.hand_no < 3 and not state.is_over:
        if state.phase == Phase.DEAL:
            state.deal_random(rng)
            continue
        if state.phase == Phase.CHOOSE or rng.random() < count / 150:
            out.append(state.copy())
        state.apply(rng.choice(state.legal_actions()))
    return out


def king_only_state(players: int) -> State:
    """A family state at a deal whose chooser has only King of Hearts left."""
    g = Game.family(players)
    s = State(g, seed=1, first_declarer=0)
    s.used[0] = ((1 << len(g.contracts)) - 1) & ~(1 << g.contract_index("king"))
    return s


# -- the chance model --------------------------------------------------------

@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_a_deal_is_one_uniform_step_per_card_and_deals_what_it_says(game: Game) -> None:
    state = State(game, seed=2)
    rng = random.Random(3)
    dealt: list[int] = []
    while len(dealt) < deal_size(state):
        outcomes = deal_outcomes(state, dealt)
        assert len(outcomes) == 52 - len(dealt) and sum(p for _, p in outcomes) == pytest.approx(1)
        assert [p for _, p in outcomes] == [1 / len(outcomes)] * len(outcomes)
        dealt.append(rng.choice([c for c, _ in outcomes]))
    hands, aside = hands_of(state, dealt)
    assert [h.bit_count() for h in hands] == [game.hand_size] * game.players
    assert aside.bit_count() == game.set_aside_count and sum(hands) | aside == FULL_DECK
    assert hands_of(state, deal_order(hands)) == (hands, aside)


@pytest.mark.parametrize("players", [3, 5, 6])
def test_with_only_king_left_the_king_is_never_set_aside_and_falls_uniformly(players: int) -> None:
    state = king_only_state(players)
    assert king_must_be_dealt(state)
    rng = random.Random(players)
    where: Counter[int] = Counter()
    for _ in range(300):
        dealt: list[int] = []
        while len(dealt) < deal_size(state):
            cards, weights = zip(*deal_outcomes(state, dealt), strict=True)
            dealt.append(rng.choices(cards, weights)[0])
        hands, aside = hands_of(state, dealt)
        assert not aside & KH_MASK and state.copy().deal(hands, aside)  # accepted: no redeal
        where[next(s for s, h in enumerate(hands) if h & KH_MASK)] += 1
    assert set(where) == set(range(players)) and min(where.values()) > 300 / players / 2


def test_the_last_slot_takes_the_king_when_it_is_still_in_the_deck() -> None:
    state = king_only_state(3)
    others = [c for c in range(52) if c != KING_OF_HEARTS]
    assert deal_outcomes(state, others[:deal_size(state) - 1]) == [(KING_OF_HEARTS, 1.0)]
    # Without the obligation every remaining card may come.
    free = State(Game.family(3), seed=1)
    assert len(deal_outcomes(free, others[:deal_size(free) - 1])) == 2


# -- a hand rebuilt from one seat's observation --------------------------------

def rebuilt(state: State, seat: int) -> State:
    """The hand in progress rebuilt from ``seat``'s view and the true deal."""
    obs = state.observe(seat)
    out = hand_origin(obs)
    out.deal(list(state.dealt), state.set_aside)
    for a in hand_decisions(obs):
        out.apply(a)
    return out


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_a_hand_rebuilt_from_a_view_is_the_hand_as_that_seat_sees_it(game: Game) -> None:
    points = random_points(game, seed=5, count=40)
    assert {p.phase for p in points} >= {Phase.CHOOSE, Phase.PLAY}
    for state in points:
        for seat in range(game.players):
            obs = state.observe(seat)
            again = rebuilt(state, seat).observe(seat)
            # Earlier hands are summed up in the totals, not replayed.
            assert again == dataclasses.replace(obs, results=())
            assert rebuilt(state, seat).legal_actions() == state.legal_actions()


def test_doubling_rounds_are_rebuilt_up_to_the_seat_to_speak() -> None:
    game = Game.classic()
    seen = set()
    for seed in range(6):
        for state in random_points(game, seed=seed, count=60):
            if state.phase in (Phase.DOUBLE, Phase.REDOUBLE):
                seen.add(state.phase)
                assert rebuilt(state, state.current).observe(state.current) == dataclasses.replace(
                    state.observe(state.current), results=())
    assert seen == {Phase.DOUBLE, Phase.REDOUBLE}


# -- the engine state in a box --------------------------------------------------

@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_a_boxed_state_survives_pickling_and_deep_copies_independently(game: Game) -> None:
    for state in random_points(game, seed=9, count=10)[:4]:
        back = pickle.loads(pickle.dumps(EngineBox(state))).state
        assert [back.observe(s) for s in range(game.players)] == [
            state.observe(s) for s in range(game.players)]
        assert back.dealt == state.dealt and back.history == state.history
        copied = copy.deepcopy(EngineBox(state)).state
        copied.apply(copied.legal_actions()[0])
        assert copied.observe(0) != state.observe(0)
    shared = SharedBox(State(game, seed=1))
    assert copy.deepcopy(shared) is shared and pickle.loads(pickle.dumps(shared)).state.phase == Phase.DEAL


# -- parameters --------------------------------------------------------------

def test_parameters_are_checked_and_bound_the_scores() -> None:
    with pytest.raises(ValueError, match="unknown barbu parameter"):
        settings_of({"deck": 32})
    with pytest.raises(ValueError, match="hands must be 1 to 28"):
        settings_of({"hands": 29})
    with pytest.raises(ValueError, match="first_declarer"):
        settings_of({"rules": "family", "players": 3, "first_declarer": 3})
    with pytest.raises(ValueError, match="unknown option"):
        settings_of({"options": "misere"})
    s = settings_of({"options": "overtrump,dominoes-40"})
    assert s.params["options"] == "dominoes-40+overtrump" and settings_of(s.params) == s
    # Trumps is the widest classic hand: 65 points, with three doubled pairs redoubled.
    assert settings_of({"hands": 1}).hand_bound == 65 + 2 * 3 * 65


def test_without_openspiel_there_are_no_os_levels_and_the_import_says_what_to_install() -> None:
    # -S: no site-packages, so neither pyspiel nor numpy; the engine and the bots need neither.
    code = ("import sys; sys.path.insert(0, 'src'); import barbu.bots as b; print(b.levels(cheats=True))\n"
            "try:\n    import barbu.openspiel\nexcept ImportError as e:\n    print(e)")
    out = subprocess.run([sys.executable, "-S", "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True, timeout=60).stdout.splitlines()
    assert out == ["['random', 'basic', 'pimc', 'strong', 'expert']",
                   "barbu.openspiel needs OpenSpiel: pip install 'barbu[openspiel]'"]
