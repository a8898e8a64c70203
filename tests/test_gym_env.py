"""The single-seat Gymnasium environments: registration, the checker, the learner's view, rewards, seeds."""

from __future__ import annotations

import random

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from tests.test_env_pettingzoo import swap_lowest

import barbu.env  # noqa: F401  (registers barbu/Classic-v0 and barbu/Family-v0)
from barbu.bots.base import Bot, RandomBot
from barbu.engine.hand import Phase
from barbu.env.encoding import encode, layout, obs_size
from barbu.env.single import SeatEnv

TABLES = [("barbu/Classic-v0", 4), ("barbu/Family-v0", 3), ("barbu/Family-v0", 6)]
IDS = ["classic", "family3", "family6"]


def make(env_id: str, players: int, **kwargs: object) -> SeatEnv:
    extra = {} if env_id.startswith("barbu/Classic") else {"players": players}
    env = gymnasium.make(env_id, **extra, **kwargs).unwrapped
    assert isinstance(env, SeatEnv)
    return env


def masked(mask: np.ndarray, rng: random.Random) -> int:
    return rng.choice(np.flatnonzero(mask).tolist())


@pytest.mark.parametrize(("env_id", "players"), TABLES, ids=IDS)
def test_the_registered_env_passes_gymnasiums_checker(env_id: str, players: int) -> None:
    # check_env steps with unmasked samples: illegal="replace" plays a legal id in their place.
    env = make(env_id, players, illegal="replace", hands=1)
    check_env(env)
    assert env.observation_space.shape == (obs_size(env.game),)


def test_the_module_prefix_imports_barbu_env_first() -> None:
    env = gymnasium.make("barbu.env:barbu/Classic-v0", opponents="basic", hands=1)
    obs, info = env.reset(seed=1)
    assert obs.shape == (1159,) and info["action_mask"].any()


@pytest.mark.parametrize(("env_id", "players"), TABLES, ids=IDS)
def test_the_learner_sees_only_its_seat(env_id: str, players: int) -> None:
    """Its array is encode(observe(seat)); swapping two other seats' cards changes nothing it gets."""
    env = make(env_id, players, state=True)
    rng = random.Random(3)
    swapped = 0
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            state, me = env.aec.game_state, env.seat
            assert np.array_equal(obs, encode(state.observe(me)))
            a, b = (me + 1) % players, (me + 2) % players
            if players > 2 and state.phase == Phase.PLAY and state.hands[a] and state.hands[b]:
                full = env.global_state()
                swap_lowest(state, a, b)
                assert np.array_equal(env._observe(), obs)
                assert np.array_equal(env.action_masks(), info["action_mask"])
                assert not np.array_equal(env.global_state(), full)  # the swap is real
                swap_lowest(state, a, b)
                swapped += 1
            obs, _, done, _, info = env.step(masked(info["action_mask"], rng))
    assert swapped > 30


def test_the_state_tensor_is_the_view_and_every_hand() -> None:
    env = make("barbu/Family-v0", 5, state=True, seat=2)
    obs, info = env.reset(seed=4)
    state, size = env.aec.game_state, obs_size(env.game)
    assert np.array_equal(info["state"][:size], obs)
    hands = info["state"][size:].reshape(5, 52)
    for r in range(5):
        cards = np.flatnonzero(hands[r]).tolist()
        assert cards == [c for c in range(52) if state.hands[(2 + r) % 5] >> c & 1]
    own = layout(env.game).fields["hand"]
    assert np.array_equal(obs[own.offset:own.end], hands[0])
    _, noinfo = make("barbu/Family-v0", 5).reset(seed=4)
    assert "state" not in noinfo


@pytest.mark.parametrize(("env_id", "players"), TABLES, ids=IDS)
def test_rewards_add_up_to_the_learners_score(env_id: str, players: int) -> None:
    env = make(env_id, players, opponents="basic")
    sign = 1 if env.game.is_classic else -1
    rng = random.Random(5)
    _, info = env.reset(seed=11)
    total, done, steps = 0.0, False, 0
    while not done:
        _, reward, done, truncated, info = env.step(masked(info["action_mask"], rng))
        total += reward
        steps += 1
        assert not truncated
    state = env.aec.game_state
    assert state.is_over and total == sign * state.totals[env.seat]
    assert not info["action_mask"].any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_one_hand_episodes_pay_that_hands_score() -> None:
    env = make("barbu/Classic-v0", 4, hands=1, opponents="random")
    rng = random.Random(2)
    for seed in range(6):
        _, info = env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            _, reward, done, _, info = env.step(masked(info["action_mask"], rng))
            total += reward
        history = env.aec.game_state.history
        assert len(history) == 1 and total == history[0].scores[env.seat]


def test_the_seat_rotates_with_the_seed_unless_fixed() -> None:
    env = make("barbu/Family-v0", 4)
    seats = {env.reset(seed=s)[1]["seat"] for s in range(30)}
    assert seats == {0, 1, 2, 3}
    fixed = make("barbu/Family-v0", 4, seat=3)
    assert {fixed.reset(seed=s)[1]["seat"] for s in range(5)} == {3}
    with pytest.raises(ValueError, match="seat must be 0 to 3"):
        make("barbu/Family-v0", 4, seat=4)


def test_a_seed_replays_the_episode() -> None:
    runs = []
    for _ in range(2):
        env = make("barbu/Classic-v0", 4, opponents="basic", hands=2)
        obs, info = env.reset(seed=21)
        rng, trace, done = random.Random(0), [obs], False
        while not done:
            obs, reward, done, _, info = env.step(masked(info["action_mask"], rng))
            trace += [obs, np.array([reward])]
        runs.append(trace)
    assert len(runs[0]) == len(runs[1]) and all(np.array_equal(x, y) for x, y in zip(*runs, strict=True))


class Counting(RandomBot):
    """A random bot that counts its moves (to see which seats a bot object plays)."""

    def __init__(self) -> None:
        super().__init__(0)
        self.moves = 0

    def act(self, obs: object) -> int:
        self.moves += 1
        return super().act(obs)  # type: ignore[arg-type]


def test_opponents_are_levels_bot_objects_or_one_per_seat() -> None:
    bots: list[Bot] = [Counting(), Counting()]
    env = make("barbu/Family-v0", 3, opponents=bots, hands=1)
    _, info = env.reset(seed=1)
    done, rng = False, random.Random(1)
    while not done:
        _, _, done, _, info = env.step(masked(info["action_mask"], rng))
    assert all(b.moves > 0 for b in bots)  # type: ignore[attr-defined]
    strong = make("barbu/Classic-v0", 4, opponents="strong", hands=1)
    assert [b.name for b in strong.bots] == ["strong"] * 3
    one = make("barbu/Classic-v0", 4, opponents=Counting())
    assert len({id(b) for b in one.bots}) == 3  # one object, copied for each seat
    with pytest.raises(ValueError, match="3 opponents needed"):
        make("barbu/Classic-v0", 4, opponents=["random", "basic"])
    with pytest.raises(ValueError, match="unknown bot level"):
        make("barbu/Classic-v0", 4, opponents="nobody")


def test_an_illegal_action_raises_and_changes_nothing() -> None:
    env = make("barbu/Classic-v0", 4)
    obs, info = env.reset(seed=6)
    bad = int(np.flatnonzero(~info["action_mask"])[0])
    with pytest.raises(ValueError):
        env.step(bad)
    assert np.array_equal(env._observe(), obs)
