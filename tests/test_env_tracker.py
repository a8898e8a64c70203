"""The env's arrays, kept up to date action by action, equal encode(observe(seat)) at every step."""

from __future__ import annotations

import random

import numpy as np
import pytest

import barbu.env as benv
from barbu.engine.game import Game
from barbu.engine.state import Phase, State
from barbu.env.encoding import encode
from barbu.env.tracker import Tracker

pytestmark = pytest.mark.engine  # run again on the pure-Python engine (./test.sh, docs/TESTING.md)

TABLES = [("classic", 4), ("family", 3), ("family", 4), ("family", 5), ("family", 6)]


def assert_every_seat_matches(tracker: Tracker, state: State, where: str) -> None:
    for seat in range(state.game.players):
        want = encode(state.observe(seat))
        got = tracker.encode(seat)
        bad = np.flatnonzero(got != want)
        assert not len(bad), (where, seat, bad[:10].tolist())


@pytest.mark.parametrize(("rules", "players"), TABLES)
def test_the_env_array_is_the_encoded_observation_at_every_step(rules: str, players: int) -> None:
    """Through the env: every seat's array at every step of whole random games, every contract."""
    env = benv.aec_env(rules, players)
    rng = random.Random(players)
    contracts: set[str] = set()
    for game in range(2 if rules == "classic" else 1):
        env.reset(seed=game)
        state = env.game_state
        for agent in env.agent_iter():
            for other in env.possible_agents:
                seat = env.possible_agents.index(other)
                want = encode(state.observe(seat))
                got = env.observe(other)["observation"]
                assert np.array_equal(got, want), (state.hand_no, len(state.actions), seat)
            if state.contract is not None:
                contracts.add(state.contract.id)
            if env.terminations[agent]:
                env.step(None)
                continue
            env.step(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]).tolist()))
        assert state.is_over
    assert len(contracts) == 7


def test_a_tracker_follows_a_state_played_action_by_action() -> None:
    """Without the env: a state dealt, played action by action, and the tracker told of each."""
    rng = random.Random(7)
    for game in (Game.classic(), Game.family(5)):
        state = State(game, seed=11)
        state.deal_random(rng)
        tracker = Tracker(state)
        for step in range(400):
            actions = state.legal_actions()
            action = actions[int(rng.random() * len(actions))]
            state.apply(action)
            while state.phase == Phase.DEAL:
                state.deal_random(rng)
            tracker.update()
            assert_every_seat_matches(tracker, state, f"{game.players} players, step {step}")
        assert state.hand_no >= 3


def test_a_state_changed_behind_its_back_is_noticed() -> None:
    """Actions the tracker was not told of, and a hand changed in place, are caught up with."""
    rng = random.Random(3)
    state = State(Game.family(4), seed=5)
    state.deal_random(rng)
    tracker = Tracker(state)
    for _ in range(9):  # several actions at once: a rebuild
        state.apply(state.legal_actions()[0])
    tracker.update()
    assert_every_seat_matches(tracker, state, "after untold actions")
    both = state.hands[2] & -state.hands[2] | state.hands[3] & -state.hands[3]
    state.hands[2] ^= both  # the lowest cards of seats 2 and 3 exchanged
    state.hands[3] ^= both
    assert_every_seat_matches(tracker, state, "after a swap")
