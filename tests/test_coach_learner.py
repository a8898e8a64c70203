"""The computer learners built on the coach (barbu.coach.learner): the follower plays every hint, the
warned learner plays basic's choice unless the coach warns at "big mistakes only", and both replay
exactly from their seed in the arena."""

from __future__ import annotations

import random

from barbu.bots import make_bot
from barbu.bots.basic import BasicBot
from barbu.coach.advice import Hint, Level, caution, coach_bot, hint
from barbu.coach.learner import LIGHT_BUDGET, LIGHT_FLOOR, LightFollower, LightWarnedBasic
from barbu.engine.game import Game
from barbu.engine.observation import Observation
from barbu.engine.state import State
from barbu.tools.arena import Config, deal_state, play_board

CLASSIC = Game.classic()
SEED = 3  # the learners' seed in every test: their coach's first search is seeded from it


def position(moves: int) -> Observation:
    """The view of the seat to act after ``moves`` decisions of four basic players on the arena's
    deal 0 of seed 5 (a hand of the classic rules with doubles and a club lead)."""
    state: State = deal_state(CLASSIC, 5, 0)
    bots = [BasicBot(s) for s in range(4)]
    for _ in range(moves):
        state.apply(bots[state.current].act(state.observe(state.current)))
    return state.observe(state.current)


def first_hint(obs: Observation) -> Hint:
    """The hint a fresh learner of seed SEED gets at ``obs``: its first search's seed is the first
    draw of its generator."""
    return hint(obs, LIGHT_BUDGET, seed=random.Random(SEED).getrandbits(63), stop=None, floor=LIGHT_FLOOR)


def test_the_warned_learner_plays_basic_unless_the_coach_warns_of_a_big_mistake() -> None:
    warned, quiet = position(5), position(6)
    for obs in (warned, quiet):
        assert len(obs.legal) > 1
    # Basic's lead at move 5 costs a big mistake's points or more: the learner takes the advice.
    basic, h = BasicBot(SEED).act(warned), first_hint(warned)
    assert caution(h, basic, Level.BIG) is not None and h.choice != basic
    assert LightWarnedBasic(SEED).act(warned) == h.choice
    # At move 6 the coach prefers another card, but by less than a big mistake: basic's card stays.
    basic, h = BasicBot(SEED).act(quiet), first_hint(quiet)
    assert h.choice != basic and 0 < h.cost(basic) < 3.0 and caution(h, basic, Level.BIG) is None
    assert LightWarnedBasic(SEED).act(quiet) == basic


def test_the_follower_plays_the_hint_which_is_the_expert_s_own_choice() -> None:
    for moves in (2, 5, 6):  # a double, then two cards
        obs = position(moves)
        h = first_hint(obs)
        expert = coach_bot(random.Random(SEED).getrandbits(63), LIGHT_BUDGET, None, LIGHT_FLOOR)
        assert LightFollower(SEED).act(obs) == h.choice == expert.act(obs), moves


def test_the_learners_replay_from_their_seed_in_the_arena() -> None:
    assert make_bot("barbu.coach.learner:WarnedBasic", 1).name == "warned-basic"
    assert make_bot("barbu.coach.learner:HintFollower", 1).name == "hint-follower"
    for learner in ("LightWarnedBasic", "LightFollower"):
        cfg = Config((f"barbu.coach.learner:{learner}", "basic", "basic", "basic"), seed=4)
        first, again = (play_board(cfg, "deal", 2, 1)[0] for _ in range(2))
        assert first.hands == again.hands and first.seats == again.seats
