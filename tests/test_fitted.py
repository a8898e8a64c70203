"""The fitted playout policy: its fast scores are its features' sums, its weights cover every trick game."""

from __future__ import annotations

import json
import math
import random
from importlib import resources

import pytest

from barbu.bots import fitted
from barbu.engine.cards import bits
from barbu.engine.contracts import Kind
from barbu.engine.game import Game
from barbu.engine.state import Phase, State
from barbu.tools.arena import deal_state

pytestmark = pytest.mark.engine  # run again on the pure-Python engine (./test.sh, docs/TESTING.md)


def _table(g: Game) -> str:
    """A short test id for a table: classic4+overtrump, family5."""
    return f"{g.ruleset}{g.players}" + "".join(f"+{o}" for o in sorted(g.options))


GAMES = [Game.classic(), Game.classic(frozenset({"overtrump"})), Game.family(4), Game.family(5),
         Game.family(3)]


def _card_decisions(game: Game, deals: int) -> list[State]:
    """States of random card play in trick games, leads and follows alike."""
    out = []
    for k in range(deals):
        state = deal_state(game, 3, k)
        rng = random.Random(k)
        hand_no = state.hand_no
        while state.hand_no == hand_no and state.hand_in_progress:
            c = state.contract
            if state.phase == Phase.PLAY and c is not None and c.kind == Kind.TRICKS:
                out.append(state.copy())
            state._do(rng.choice(state.legal_actions()))
    return out


@pytest.mark.parametrize("game", GAMES, ids=_table)
def test_the_written_out_scores_are_the_features_weighted(game: Game) -> None:
    rng = random.Random(7)
    w = tuple(rng.uniform(-2, 2) for _ in fitted.FEATURES)
    states = _card_decisions(game, 14)
    assert any(s.trick for s in states) and any(not s.trick for s in states)
    for state in states:
        cards = list(bits(state.legal_mask()))
        fast = fitted.scores(state, cards, w)
        slow = [math.fsum(a * b for a, b in zip(f, w, strict=True)) for f in fitted.features(state, cards)]
        assert fast == pytest.approx(slow, abs=1e-9)
        assert all(len(f) == len(fitted.FEATURES) for f in fitted.features(state, cards))


@pytest.mark.parametrize("game", [Game.classic(), Game.family(4)], ids=_table)
def test_every_trick_game_has_shipped_weights(game: Game) -> None:
    for c in game.contracts:
        w = fitted.weights_for(c)
        if c.kind == Kind.TRICKS:
            assert w is not None and len(w) == len(fitted.FEATURES) and any(w), c.id
        else:
            assert w is None, c.id  # Dominoes and Réussite keep their own rules of thumb


@pytest.mark.parametrize("game", GAMES, ids=_table)
def test_fitted_play_is_legal_and_its_likelihoods_are_a_distribution(game: Game) -> None:
    rng = random.Random(1)
    for state in _card_decisions(game, 7)[::5]:
        cards = list(bits(state.legal_mask()))
        assert fitted.fitted_card(state, rng, noise=0.0) in cards
        p = [fitted.likelihood(state, x, 0.2) for x in cards]
        assert all(x is not None and x > 0 for x in p)
        assert math.fsum(x for x in p if x is not None) == pytest.approx(1.0)
        trial = state.copy()
        fitted.fitted_playout(trial, rng)
        assert trial.history and trial.history[-1].hand_no == state.hand_no


def test_a_file_fitted_on_other_features_is_refused() -> None:
    shipped = json.loads(resources.files("barbu.bots").joinpath("fitted_weights.json").read_text())
    assert fitted.parse_weights(json.dumps(shipped)) == fitted._weights()
    older = {**shipped, "features": [*shipped["features"], "something new"]}
    with pytest.raises(ValueError, match="fit-playout"):
        fitted.parse_weights(json.dumps(older))


def test_a_play_the_sampled_deal_makes_illegal_keeps_only_the_uniform_share() -> None:
    state = next(s for s in _card_decisions(Game.classic(), 7) if s.trick and s.legal_mask().bit_count() > 1)
    legal = state.legal_mask()
    illegal = next(x for x in range(52) if not legal >> x & 1 and not state.played >> x & 1)
    assert fitted.likelihood(state, illegal, 0.2) == pytest.approx(0.2 / legal.bit_count())
