"""barbu.vector as a Gymnasium VectorEnv, and one seed for the same games in every form."""

from __future__ import annotations

import random

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from barbu.engine.game import Game
from barbu.env.fullstate import state_size
from barbu.env.loop import LoopEnv
from barbu.env.seeds import stream_seed
from barbu.env.single import SeatEnv
from barbu.vector import VectorEnv
from barbu.vector.gym import BarbuVectorEnv

TABLES = [("classic", 4), ("family", 3), ("family", 6)]
IDS = ["classic", "family3", "family6"]


def pick(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.argmax(mask * rng.random(mask.shape), axis=1)


def test_it_is_a_gymnasium_vector_env() -> None:
    env = BarbuVectorEnv("family", players=5, num_envs=3, seed=2)
    assert isinstance(env, gymnasium.vector.VectorEnv)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert env.single_action_space == gymnasium.spaces.Discrete(93)
    assert env.action_space == gymnasium.spaces.MultiDiscrete([93] * 3)
    obs, info = env.reset()
    assert env.observation_space.contains(obs)
    assert env.single_observation_space.shape == (obs.shape[1],)
    assert info["action_mask"].shape == (3, 93) and info["seat"].shape == (3,)
    assert np.array_equal(env.action_masks(), info["action_mask"])
    with pytest.raises(ValueError, match="one int"):
        env.reset(seed=[1, 2, 3])


@pytest.mark.parametrize(("rules", "players"), TABLES, ids=IDS)
@pytest.mark.parametrize("backend", ["numpy", "loop"])
def test_each_seat_gets_its_rewards_at_its_turn_or_the_end(rules: str, players: int, backend: str) -> None:
    """What barbu.vector pays a seat at any step reaches it, whole, at its next turn or the end."""
    batch = 4
    env = BarbuVectorEnv(rules, players, num_envs=batch, seed=7, hands=2, backend=backend)
    raw = VectorEnv(rules, players, batch=batch, seed=7, hands=2)
    _, info = env.reset()
    _, mask, _ = raw.reset()
    rng = np.random.default_rng(0)
    owed = np.zeros((batch, players))  # paid by the batch, not yet handed over
    ended = waited = 0
    for _ in range(300):
        actions = pick(mask, rng)
        actor = info["seat"]
        _, reward, term, trunc, info = env.step(actions)
        _, mask, seat, paid, done = raw.step(actions)
        assert np.array_equal(term, done) and not trunc.any() and np.array_equal(info["seat"], seat)
        owed += paid
        waited += int((paid != 0).any(axis=1)[~done].sum())  # a hand ended: others wait their turn
        handed = info["seat_rewards"]
        for b in range(batch):
            if done[b]:
                assert np.allclose(handed[b], owed[b]) and reward[b] == handed[b, actor[b]]
                owed[b] = 0
                ended += 1
            else:
                others = np.arange(players) != seat[b]
                assert not handed[b, others].any() and reward[b] == handed[b, seat[b]] == owed[b, seat[b]]
                owed[b, seat[b]] = 0
    assert ended >= 2 and waited >= 2


def test_the_state_tensor_rows_follow_the_seat_to_act() -> None:
    env = BarbuVectorEnv("classic", num_envs=2, seed=3, state=True)
    obs, info = env.reset()
    assert info["state"].shape == (2, state_size(Game.classic()))
    for _ in range(30):
        obs, _, _, _, info = env.step(pick(info["action_mask"], np.random.default_rng(1)))
    assert np.array_equal(info["state"][:, :obs.shape[1]], obs)
    hands = env.batch.cards
    for b in range(2):
        first = info["state"][b, obs.shape[1]:obs.shape[1] + 52]
        held = int(hands[b, info["seat"][b]])
        assert np.flatnonzero(first).tolist() == [c for c in range(52) if held >> c & 1]


@pytest.mark.parametrize(("rules", "players"), TABLES, ids=IDS)
def test_loop_and_vector_play_the_same_games_for_one_seed(rules: str, players: int) -> None:
    """Same deals, same legal actions, same views and rewards, for the same actions."""
    loop = LoopEnv(rules, players, batch=3, seed=12, hands=1)
    vec = VectorEnv(rules, players, batch=3, seed=12, hands=1)
    a, b = loop.reset(), vec.reset()
    rng = np.random.default_rng(4)
    for _ in range(400):
        assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
        assert np.array_equal(loop.cards, vec.cards) and np.array_equal(loop.cards, vec.games.hands)
        actions = pick(a[1], rng)
        a, b = loop.step(actions), vec.step(actions)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    # a reset without a seed moves on to the next games of each stream, in both
    a, b = loop.reset(), vec.reset()
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize(("rules", "players"), TABLES, ids=IDS)
def test_the_gymnasium_env_plays_game_b_of_the_batch(rules: str, players: int) -> None:
    """SeatEnv reset with stream_seed(s, b) is game b of VectorEnv(seed=s), action for action."""
    seed, b = 5, 1
    seat_env = SeatEnv(rules, players, opponents="random", hands=2)
    played: list[int] = []
    step = seat_env.aec.step

    def record(action: int | None) -> None:
        played.append(int(action))  # type: ignore[arg-type]
        step(action)

    seat_env.aec.step = record  # type: ignore[method-assign]
    obs, info = seat_env.reset(seed=stream_seed(seed, b))
    views = [(len(played), obs, info["action_mask"])]
    rewards, done, rng = [], False, random.Random(0)
    while not done:
        obs, reward, done, _, info = seat_env.step(rng.choice(np.flatnonzero(info["action_mask"]).tolist()))
        views.append((len(played), obs, info["action_mask"]))
        rewards.append(reward)
    vec = VectorEnv(rules, players, batch=2, seed=seed, hands=2)
    obs_v, mask_v, seat_v = vec.reset()
    me, paid, seen = seat_env.seat, 0.0, {}
    for i, action in enumerate([*played, None]):
        if seat_v[b] == me and i not in seen:
            seen[i] = (obs_v[b].copy(), mask_v[b].copy())
        if action is None:
            break
        actions = pick(mask_v, np.random.default_rng(i))
        actions[b] = action
        obs_v, mask_v, seat_v, r, done_v = vec.step(actions)
        paid += r[b, me]
        assert done_v[b] == (i == len(played) - 1)
    for at, obs, mask in views[:-1]:
        assert np.array_equal(seen[at][0], obs) and np.array_equal(seen[at][1], mask.astype(bool))
    assert paid == sum(rewards)


def test_gymnasiums_vector_wrappers_read_its_same_step_autoreset() -> None:
    """RecordEpisodeStatistics counts each game's steps from its first decision to its end."""
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    env = RecordEpisodeStatistics(BarbuVectorEnv("classic", num_envs=3, seed=2, hands=1))
    _, info = env.reset()
    rng, steps, checked = np.random.default_rng(0), np.zeros(3, dtype=int), 0
    for _ in range(200):
        _, _, term, _, info = env.step(pick(info["action_mask"], rng))
        steps += 1
        if term.any():
            assert np.array_equal(info["episode"]["l"][term], steps[term])
            steps[term] = 0
            checked += int(term.sum())
    assert checked >= 3
