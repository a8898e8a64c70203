"""The rules of thumb of the playouts: Dominoes by its lines (line_card), and its contest script."""

from __future__ import annotations

import random
import subprocess
import sys
from functools import partial

import pytest
from tests.engine_helpers import act, dominoes_ending, open_hand, start
from tests.script_helpers import RESEARCH, load_script

from barbu.bots import expert
from barbu.bots.expert import ExpertBot, _play_likelihood, make_expert
from barbu.bots.fitted import fitted_line_playout, fitted_playout
from barbu.bots.policy import CardRule, heuristic_card, line_card
from barbu.engine.cards import parse_card
from barbu.engine.game import Game
from barbu.engine.state import Phase, State

pytestmark = pytest.mark.engine  # run again on the pure-Python engine (./test.sh, docs/TESTING.md)

SCRIPT = RESEARCH / "dominoes-rules.py"
CLASSIC = Game.classic()
# Seat 0 declares Dominoes at 7 and holds, beside these, three low cards of three suits.
LOW = "2C 3C 4C 2D 3D 4D 2H 3H 4H"


def _choice(state: State, rule: CardRule = line_card) -> str:
    assert state.phase == Phase.PLAY
    return CLASSIC.action_str(rule(state, random.Random(0), 0.0))


def test_the_suit_opened_is_the_one_with_most_of_ones_own_cards_behind_its_seven() -> None:
    # 7♠ has 8♠ behind it, 7♥ the 2♥ 3♥ 4♥: the rules of thumb look at the next card only.
    state = start(CLASSIC, ["7S 8S 7H 2H 3H 4H 2C 3C 4C 2D 3D 4D 5D"])
    open_hand(state, "dominoes", "rank 7")
    assert _choice(state) == "7H"
    assert _choice(state, heuristic_card) == "7S"
    # An opener leads both ways: 8♠ 9♠ 10♠ above the 7♠ outweigh 2♥ 3♥ below the 7♥.
    state = start(CLASSIC, ["7S 8S 9S TS 7H 2H 3H 2C 3C 4C 2D 3D 4D"])
    open_hand(state, "dominoes", "rank 7")
    assert _choice(state) == "7S"


def test_among_equals_the_card_that_lets_in_fewest_others_is_placed() -> None:
    # Once the four sevens are down, 6♠ lets in four spades (2–5), 8♠ six (9–A).
    state = start(CLASSIC, [f"7S 6S 8S JD {LOW}", "7H", "7D", "7C"])
    open_hand(state, "dominoes", "rank 7")
    act(state, "7S", "7H", "7D", "7C")
    assert _choice(state) == "6S"
    # With the A♠ of one's own, 8♠ has a card of one's own behind it, 6♠ none.
    state = start(CLASSIC, [f"7S 6S 8S AS {LOW}", "7H", "7D", "7C"])
    open_hand(state, "dominoes", "rank 7")
    act(state, "7S", "7H", "7D", "7C")
    assert _choice(state) == "8S"


def test_line_card_is_always_legal_and_leaves_the_trick_games_to_the_rules_of_thumb() -> None:
    for contract in ("dominoes", "no-queens", "trumps"):
        for seed in range(3):
            state = State(CLASSIC, seed=seed)
            rng = random.Random(seed)
            while state.phase != Phase.PLAY:
                if state.phase == Phase.DEAL:
                    state.deal_random()
                elif state.phase == Phase.CHOOSE:
                    act(state, contract)
                else:
                    state.apply(rng.choice(state.legal_actions()))
            while state.phase == Phase.PLAY and state.hand_no == 0:
                card = line_card(state, random.Random(seed), 0.1)
                assert card in state.legal_actions()
                if contract != "dominoes":
                    assert card == heuristic_card(state, random.Random(seed), 0.1)
                state.apply(card)


def test_expert_lines_plays_and_weighs_dominoes_by_the_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    bot = make_expert("expert:0.02+lines")
    assert bot.lines and bot.rule is line_card and bot.playout is fitted_line_playout
    plain = ExpertBot()
    assert not plain.lines and plain.rule is heuristic_card and plain.playout is fitted_playout
    rules = make_expert("expert+rules+lines")
    assert isinstance(rules.playout, partial) and rules.playout.keywords == {"card": line_card}
    # The others' Dominoes plays are weighed by the bot's own rule.
    endings = (dominoes_ending(4, k, 30, random.Random(k)) for k in range(20))
    state = next(s for s in endings if s is not None and s.legal_mask().bit_count() > 1)
    obs = state.observe(state.current)
    asked: list[CardRule] = []

    def spy(state: State, action: int, epsilon: float, rule: CardRule = heuristic_card) -> float:
        asked.append(rule)
        return _play_likelihood(state, action, epsilon, rule)

    monkeypatch.setattr(expert, "_play_likelihood", spy)
    for level, rule in (("expert:0.02+lines", line_card), ("expert:0.02+rules+lines", line_card),
                        ("expert:0.02", heuristic_card)):
        asked.clear()
        player = make_expert(level, seed=1).make_replayable()
        player.world(obs)
        assert asked and set(asked) == {rule}, level
        assert player.act(obs) in obs.legal
    # On this position the likeliest play under the lines' model is line_card's own.
    state = start(CLASSIC, [f"7S 6S 8S AS {LOW}", "7H", "7D", "7C"])
    open_hand(state, "dominoes", "rank 7")
    act(state, "7S", "7H", "7D", "7C")
    like = {a: _play_likelihood(state, a, 0.5, line_card) for a in state.legal_actions()}
    assert max(like, key=like.__getitem__) == parse_card("8S")
    assert sum(like.values()) == pytest.approx(1.0)


def test_the_contest_is_even_between_a_rule_and_itself_and_prints_its_figure() -> None:
    script = load_script("dominoes-rules")
    for deal in range(5):
        assert abs(script.edge(deal, 7, new=heuristic_card)) < 1e-9  # the four seats' edges cancel
    out = subprocess.run([sys.executable, str(SCRIPT), "--deals", "20", "--seed", "3"],
                         capture_output=True, text=True, check=True).stdout
    # No noise in either rule: the figure is the same on every run and in both builds.
    assert out == ("line_card vs heuristic_card, 20 Dominoes deals × 4 seats, seed 3: "
                   "+5.42 ± 3.75 a hand (positive = line_card better)\n")
