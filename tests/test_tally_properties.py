"""The score keeper scores as the game does: counts taken from hands the engine played in full."""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.conftest import play_random
from tests.engine_helpers import EVERY_TABLE, NAMES
from tests.score_helpers import sheet_of, tally_of

from barbu.engine.cards import HEART_CARDS, bits, parse_card
from barbu.engine.contracts import Contract
from barbu.engine.game import Game
from barbu.engine.record import replay, to_record
from barbu.engine.scoresheet import replay_sheet
from barbu.engine.tally import contract_scores, fields_of, named_cards

pytestmark = pytest.mark.engine  # run again on the pure-Python engine (./test.sh, docs/TESTING.md)

SEEDS = st.integers(min_value=0, max_value=2**40)
TABLES = st.sampled_from(EVERY_TABLE)
GAMES = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@GAMES
@given(game=TABLES, seed=SEEDS)
def test_a_sheet_of_a_played_game_scores_exactly_as_the_game(game: Game, seed: int) -> None:
    # Random legal play, random doubles (compulsory ones included): the whole game, then its counts.
    state = play_random(game, seed)
    names = list(NAMES[:game.players])
    sheet = replay_sheet(sheet_of(state, names, random.Random(seed)))
    played = replay(to_record(state, names))
    assert sheet.to_json() == played.to_json()
    assert sheet.state.totals == state.totals and sheet.state.winners() == state.winners()
    assert sheet.state.is_over and sheet.to_json()["complete"] is True


ALL_CONTRACTS = [(g, c) for g in EVERY_TABLE for c in g.contracts]


@pytest.mark.parametrize(("game", "c"), ALL_CONTRACTS, ids=lambda x: getattr(x, "id", ""))
def test_every_heart_a_count_does_not_name_is_worth_the_same(game: Game, c: Contract) -> None:
    # A count of hearts stands for any such hearts: it scores only if they are all alike.
    named = {x for _, x in named_cards(fields_of(c))}
    plain = {c.card_points[x] for x in bits(HEART_CARDS) if x not in named}
    assert len(plain) == 1
    if "hearts" in fields_of(c):
        assert plain != {0}
    else:
        assert plain == {0}


def test_a_contract_whose_hearts_differ_cannot_be_counted() -> None:
    no_hearts = Game.classic().contracts[2]
    points = list(no_hearts.card_points)
    points[parse_card("JH")] = -4
    odd = dataclasses.replace(no_hearts, card_points=tuple(points))
    with pytest.raises(ValueError, match="J♥ apart from the other hearts"):
        fields_of(odd)


@settings(max_examples=20, deadline=None)
@given(game=TABLES, seed=SEEDS)
def test_each_hand_alone_scores_as_played(game: Game, seed: int) -> None:
    # The count of each hand, its set-aside cards known or not, gives the contract's own points.
    rng = random.Random(seed)
    state = play_random(game, seed, hands=game.players * 2)
    for h in state.history:
        c = game.contracts[game.contract_index(h.contract)]
        t = tally_of(game, h, rng)
        assert contract_scores(game, c, t, h.set_aside) == list(h.contract_scores)
        if game.set_aside_count:
            assert contract_scores(game, c, t, None) == list(h.contract_scores)
