"""LoopEnv, the batched interface over barbu.env games: what each row holds, rewards, auto-reset, seeds."""

from __future__ import annotations

import numpy as np
import pytest

from barbu.env.encoding import encode
from barbu.env.loop import LoopEnv

pytestmark = pytest.mark.engine  # run again on the pure-Python engine (./test.sh, docs/TESTING.md)


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(row)) for row in mask])


@pytest.mark.parametrize(("rules", "players"), [("classic", 4), ("family", 5)])
def test_rows_rewards_and_resets(rules: str, players: int) -> None:
    v = LoopEnv(rules, players, batch=3, seed=2, hands=1)
    assert (v.num_envs, v.num_players, v.num_actions) == (3, players, 93)
    obs, mask, player = v.reset()
    rng = np.random.default_rng(0)
    paid = np.zeros((3, players))
    ended = 0
    for _ in range(300):
        for i, env in enumerate(v.envs):  # each row is the seat to act's own view and mask
            state = env.game_state
            assert player[i] == state.current
            assert np.array_equal(obs[i], encode(state.observe(state.current)))
            assert mask[i].sum() == len(state.legal_actions())
        before = [env.game_state for env in v.envs]
        obs, mask, player, rewards, done = v.step(random_actions(mask, rng))
        paid += rewards
        for i in np.flatnonzero(done):
            sign = 1 if rules == "classic" else -1
            assert paid[i].tolist() == [sign * s for s in before[i].history[0].scores]
            assert v.envs[i].game_state is not before[i] and v.envs[i].game_state.hand_no == 0
            paid[i] = 0
            ended += 1
        assert not rewards[~done].any()
    assert ended >= 3


def test_the_same_seed_gives_the_same_batch() -> None:
    runs = []
    for _ in range(2):
        v = LoopEnv("family", 3, batch=2, seed=9, hands=1)
        obs, mask, _ = v.reset()
        rng = np.random.default_rng(1)
        for _ in range(40):
            obs, mask, _, _, _ = v.step(random_actions(mask, rng))
        runs.append(obs)
    assert np.array_equal(runs[0], runs[1])
    with pytest.raises(ValueError, match="expected 2 actions"):
        LoopEnv("family", 3, batch=2).step(np.zeros(3, dtype=int))
