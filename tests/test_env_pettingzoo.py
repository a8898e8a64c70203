"""barbu.env as a PettingZoo environment: PettingZoo's own checks, rewards, masks, seeds, leaks.

PettingZoo's ``max_cycles_test`` samples actions without the mask and counts on every agent
stepping once per cycle: it runs on the parallel form (``illegal="replace"``) and on its
``parallel_to_aec`` round, where that holds. The AEC env's own cap, each agent acting at most
``max_cycles`` times before everyone is truncated, is tested directly.
"""

from __future__ import annotations

import functools
import random
import types
from collections import Counter
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, max_cycles_test, parallel_api_test, seed_test
from pettingzoo.utils.conversions import parallel_to_aec

import barbu.env as benv
from barbu.engine.errors import IllegalActionError
from barbu.engine.state import Phase, State
from barbu.env.actions import NUM_ACTIONS, from_engine
from barbu.env.aec import BarbuEnv

TABLES = [("classic", 4), ("family", 3), ("family", 4), ("family", 5), ("family", 6)]
IDS = [f"{r}{n}" for r, n in TABLES]


def play_masked(env: BarbuEnv, rng: random.Random, steps: int | None = None) -> Counter[str]:
    """Random legal actions from the masks until the agents are gone; how often each agent acted."""
    acted: Counter[str] = Counter()
    for agent in env.agent_iter(steps if steps is not None else 2**63):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        acted[agent] += 1
        env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    return acted


# Warnings api_test gives every environment with an action mask (PettingZoo's own chess too).
DICT_OBSERVATION = pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
DICT_SPACE = pytest.mark.filterwarnings("ignore:Observation space for each agent probably")


@pytest.mark.parametrize(("rules", "players"), TABLES, ids=IDS)
@pytest.mark.parametrize("reward", ["hand", "game"])
@DICT_OBSERVATION
@DICT_SPACE
def test_pettingzoo_api_test(rules: str, players: int, reward: str) -> None:
    api_test(benv.env(rules, players, reward=reward, hands=2), num_cycles=150)


@pytest.mark.parametrize(("rules", "players"), TABLES, ids=IDS)
@pytest.mark.parametrize("reward", ["hand", "game"])
def test_pettingzoo_seed_test(rules: str, players: int, reward: str) -> None:
    seed_test(lambda: benv.env(rules, players, reward=reward, hands=2), num_cycles=150)


@pytest.mark.parametrize(("rules", "players"), TABLES, ids=IDS)
def test_rewards_add_up_to_the_engine_scores(rules: str, players: int) -> None:
    sign = 1 if rules == "classic" else -1
    for reward in ("hand", "game"):
        env = benv.aec_env(rules, players, reward=reward)
        env.reset(seed=players)
        paid = dict.fromkeys(env.possible_agents, 0.0)
        hands_paid = []
        rng = random.Random(1)
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            action = None if term or trunc else rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
            hand = env.game_state.hand_no
            env.step(action)
            if any(env.rewards.values()):
                hands_paid.append(hand)
            for a, r in env.rewards.items():
                paid[a] += r
        state = env.game_state
        assert state.is_over
        assert [paid[a] for a in env.possible_agents] == [sign * t for t in state.totals]
        if reward == "hand":
            assert len(hands_paid) == sum(any(h.scores) for h in state.history)
        else:
            assert hands_paid == [state.game.num_hands - 1]


# What one classic hand's scores add up to, whatever the doubles (they move points between seats).
HAND_TOTALS = {"no-tricks": -26, "no-queens": -24, "no-hearts": -30, "no-last-two": -30, "no-king": -20,
               "trumps": 65, "dominoes": 65}


@pytest.mark.parametrize("options", [(), ("dominoes-40", "overtrump")], ids=["plain", "options"])
def test_classic_hands_are_not_zero_sum_but_whole_games_are(options: tuple[str, ...]) -> None:
    """docs/RL.md: a hand's rewards add up to its contract's total; a whole game's to zero."""
    env = benv.aec_env("classic", options=options)
    rng = random.Random(2)
    for seed in range(2):
        env.reset(seed=seed)
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        history = env.game_state.history
        assert all(sum(h.scores) == HAND_TOTALS[h.contract] for h in history)
        assert any(h.doubles for h in history) and sum(env.game_state.totals) == 0


def test_a_hand_pays_its_scores_as_it_ends() -> None:
    env = benv.aec_env("classic", reward="hand", hands=3)
    env.reset(seed=4)
    rng = random.Random(4)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        before = env.game_state.hand_no
        env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        scores = [0] * 4
        if env.game_state.hand_no > before:
            scores = list(env.game_state.history[-1].scores)
        assert [env.rewards[a] for a in env.possible_agents] == scores, agent
    assert env.game_state.hand_no == 3


@pytest.mark.parametrize(("rules", "players"), TABLES, ids=IDS)
def test_the_mask_is_exactly_the_engine_legal_actions(rules: str, players: int) -> None:
    env = benv.aec_env(rules, players, hands=players * 3)
    env.reset(seed=9)
    rng = random.Random(9)
    phases = set()
    for agent in env.agent_iter():
        if env.terminations[agent]:
            env.step(None)
            continue
        state = env.game_state
        seat = env.possible_agents.index(agent)
        assert seat == state.current
        phases.add(state.phase)
        for other in env.possible_agents:
            mask = env.observe(other)["action_mask"]
            want = np.zeros(NUM_ACTIONS, dtype=np.int8)
            if other == agent:
                want[[from_engine(a, seat, state.game) for a in state.legal_actions()]] = 1
            assert np.array_equal(mask, want), (other, state.legal_actions())
        env.step(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]).tolist()))
    assert Phase.PLAY in phases and (Phase.DOUBLE in phases or rules == "family")


def test_the_same_seed_gives_the_same_game() -> None:
    games = []
    for _ in range(2):
        env = benv.aec_env("family", 5, hands=4)
        env.reset(seed=123)
        play_masked(env, random.Random(5))
        games.append(env.game_state.history)
    assert games[0] == games[1]
    env = benv.aec_env("family", 5, hands=4)
    env.reset(seed=124)
    play_masked(env, random.Random(5))
    assert env.game_state.history[0].deal != games[0][0].deal


def test_reset_without_a_seed_continues_the_seeded_sequence() -> None:
    deals = []
    for _ in range(2):
        env = benv.aec_env("classic")
        env.reset(seed=8)
        first = env.game_state.dealt[:]
        env.reset()
        deals.append((first, env.game_state.dealt[:]))
    assert deals[0] == deals[1] and deals[0][0] != deals[0][1]


def swap_lowest(state: State, a: int, b: int) -> None:
    """Exchange the lowest card of seat a's hand with the lowest of seat b's (twice: undone)."""
    both = state.hands[a] & -state.hands[a] | state.hands[b] & -state.hands[b]
    state.hands[a] ^= both
    state.hands[b] ^= both


def test_an_observation_shows_nothing_of_the_hidden_cards() -> None:
    """Swapping two seats' unplayed cards changes no other seat's array or mask; theirs change."""
    for rules, players in TABLES:
        env = benv.aec_env(rules, players)
        env.reset(seed=31)
        rng = random.Random(31)
        checked = 0
        for agent in env.agent_iter(400):
            state = env.game_state
            cur = state.current
            # The first pair holds the seat to act (whose mask would leak), the second does not.
            for a, b in ((cur, (cur + 1) % players), ((cur + 1) % players, (cur + 2) % players)):
                if state.phase != Phase.PLAY or not state.hands[a] or not state.hands[b]:
                    continue
                before = [env.observe(x) for x in env.possible_agents]
                swap_lowest(state, a, b)
                after = [env.observe(x) for x in env.possible_agents]
                swap_lowest(state, a, b)
                for s in range(players):
                    same = [np.array_equal(after[s][k], before[s][k]) for k in ("observation", "action_mask")]
                    if s in (a, b):
                        assert not same[0], (s, a, b)  # its own hand is in its view
                    else:
                        assert same == [True, True], (s, a, b)
                checked += 1
            obs = env.observe(agent)
            env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        assert checked > 100


@pytest.mark.parametrize(("rules", "players"), TABLES, ids=IDS)
def test_max_cycles_caps_every_agent_then_truncates_all(rules: str, players: int) -> None:
    for cap in (1, 4, 9):
        env = benv.env(rules, players, max_cycles=cap)
        env.reset(seed=cap)
        visits: Counter[str] = Counter()
        truncated = set()
        rng = random.Random(cap)
        for agent in env.agent_iter():
            visits[agent] += 1
            obs, _, term, trunc, _ = env.last()
            assert not term
            if trunc:
                truncated.add(agent)
                env.step(None)
            else:
                env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        assert truncated == set(env.possible_agents) and not env.agents
        # Each agent is visited for its actions and once more to leave; one reached the cap.
        assert max(visits.values()) == cap + 1
        assert all(v >= 1 for v in visits.values())


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    env = benv.aec_env("classic")
    env.reset(seed=2)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    before = env.observe(agent)["observation"]
    with pytest.raises(IllegalActionError):
        env.step(bad)
    assert env.agent_selection == agent
    assert np.array_equal(env.observe(agent)["observation"], before)
    with pytest.raises(ValueError, match="None"):
        env.step(None)


def test_bad_arguments_are_refused() -> None:
    bad: list[dict[str, Any]] = [{"rules": "classic", "players": 3}, {"rules": "family", "players": 7},
                                 {"rules": "family", "options": ("overtrump",)}, {"rules": "poker"},
                                 {"reward": "trick"}, {"hands": 0}, {"max_cycles": 0},
                                 {"illegal": "ignore"},
                                 {"render_mode": "rgb_array"}]
    for kwargs in bad:
        with pytest.raises(ValueError):
            benv.aec_env(**kwargs)


def test_render_shows_the_table() -> None:
    env = benv.aec_env("family", 3, render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert isinstance(text, str)
    assert "player_2" in text and "hand 1/21" in text
    assert benv.aec_env("family", 3).render() is None


@pytest.mark.parametrize(("rules", "players"), TABLES, ids=IDS)
def test_pettingzoo_max_cycles_test(rules: str, players: int) -> None:
    par = functools.partial(benv.parallel_env, rules, players, illegal="replace")
    max_cycles_test(types.SimpleNamespace(
        parallel_env=par, env=lambda **kwargs: parallel_to_aec(par(**kwargs))))


@pytest.mark.parametrize(("rules", "players"), TABLES, ids=IDS)
@DICT_OBSERVATION
def test_pettingzoo_parallel_api_test(rules: str, players: int) -> None:
    parallel_api_test(benv.parallel_env(rules, players, hands=1, illegal="replace"), num_cycles=200)


def test_in_a_parallel_step_only_the_agent_to_act_plays() -> None:
    """The parallel game, the others handing in junk, is the AEC game of the actors' actions."""
    par = benv.parallel_env("classic", hands=2)
    obs, infos = par.reset(seed=6)
    rng = random.Random(6)
    played = []
    while par.agents:
        actor = infos["player_0"]["active_agent"]
        assert actor == f"player_{par.aec.game_state.current}"
        assert all(obs[a]["action_mask"].any() == (a == actor) for a in par.agents)
        action = rng.choice(np.flatnonzero(obs[actor]["action_mask"]).tolist())
        played.append(action)
        obs, _, _, _, infos = par.step({a: action if a == actor else 92 for a in par.agents})
    env = benv.aec_env("classic", hands=2)
    env.reset(seed=6)
    for action in played:
        env.step(action)
    assert env.is_over and env.game_state.history == par.aec.game_state.history


def test_replace_plays_a_legal_action_instead_and_says_so() -> None:
    games = []
    for _ in range(2):
        env = benv.aec_env("family", 4, hands=2, illegal="replace")
        env.reset(seed=12)
        replaced = 0
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
            env.step(bad)
            given, played = env.infos[agent]["replaced"]
            assert given == bad and obs["action_mask"][played] == 1
            replaced += 1
        games.append(env.game_state.history)
        assert replaced > 20
    assert games[0] == games[1]  # drawn from the env's generator, seeded by reset
