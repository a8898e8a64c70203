"""barbu.vector against the reference: every mask, observation, reward and reset equal to barbu.env's.

Each batched game is shadowed by a BarbuEnv seeded with the same stream, so the comparison is
with the engine's State, its observe() and barbu.env's encoding and rewards, step by step, under
random legal actions. BARBU_VECTOR_STEPS (default 1) multiplies the number of steps, for a long run.
"""

from __future__ import annotations

import hashlib
import os
import random
import subprocess
import sys

import numpy as np
import pytest

from barbu.engine.game import CONTRACT, Game
from barbu.engine.state import Phase, State
from barbu.env.aec import BarbuEnv
from barbu.env.encoding import decode, encode
from barbu.vector import VectorEnv
from barbu.vector.deal import _words, deal, mt_keys, python_words, seed_of
from barbu.vector.env import stream_seed

pytestmark = pytest.mark.engine  # run again on the pure-Python engine (./test.sh, docs/TESTING.md)

SCALE = int(os.environ.get("BARBU_VECTOR_STEPS", "1"))
ALL_OPTIONS = ("heart-lead", "king-first", "overtrump", "dominoes-40")

# (rules, players, options, hands, reward, batch, steps): short games with many resets, and a few
# whole games (with the classic block of seven hands, its compulsory doubles and the game reward).
Case = tuple[str, int, tuple[str, ...], int | None, str, int, int]
CASES: list[Case] = [
    ("classic", 4, (), 1, "hand", 160, 300),
    ("classic", 4, ALL_OPTIONS, 2, "hand", 96, 400),
    ("classic", 4, ("overtrump", "king-first"), 8, "game", 8, 500),
    ("classic", 4, ("heart-lead", "dominoes-40"), None, "game", 2, 1700),
    ("family", 3, (), 1, "hand", 160, 250),
    ("family", 4, (), 2, "hand", 96, 300),
    ("family", 5, (), 3, "game", 64, 300),
    ("family", 6, (), 1, "hand", 160, 200),
    ("family", 6, (), None, "game", 2, 2100),
    ("family", 3, (), None, "hand", 2, 1500),
]


def _id(case: Case) -> str:
    rules, players, options, hands = case[:4]
    return f"{rules}{players}-{'+'.join(options) or 'plain'}-{hands or 'all'}"


def _check_view(v: VectorEnv, ref: BarbuEnv, b: int, obs: np.ndarray, mask: np.ndarray,
                player: np.ndarray) -> None:
    agent = ref.agent_selection
    assert int(player[b]) == ref.possible_agents.index(agent)
    want = ref.observe(agent)
    assert np.array_equal(mask[b], want["action_mask"].astype(bool)), (
        f"game {b}: mask {np.flatnonzero(mask[b])} != {np.flatnonzero(want['action_mask'])}")
    if not np.array_equal(obs[b], want["observation"]):
        got, exp = decode(obs[b], ref.game), decode(want["observation"], ref.game)
        diff = {k: (got[k], exp[k]) for k in got if got[k] != exp[k]}
        raise AssertionError(f"game {b}: observation differs: {diff}")


def _has_numba() -> bool:
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


# The numba kernels' tests: skipped without numba, and on the pure-Python engine (BARBU_PURE, the stage
# of ./test.sh that runs this file again). The kernels run no engine code: the engine only builds the
# tables and the reference both backends share. The first stage holds the numba cases and the numpy cases
# to the compiled engine's reference, step by step on the same actions, so the two backends agree there;
# the pure stage holds the numpy cases to the pure engine's reference, and so the numba ones too.
NUMBA = pytest.mark.skipif(not _has_numba() or bool(os.environ.get("BARBU_PURE")),
                           reason="no numba, or the pure engine (the numpy cases check it)")
# numba: the compiled kernels (the fast extra), held to the same reference.
BACKENDS = ["numpy", pytest.param("numba", marks=NUMBA)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_every_step_equals_the_reference(case: Case, backend: str) -> None:
    _shadow(case, backend)


def _shadow(case: Case, backend: str) -> None:
    """Step the batch and a BarbuEnv per game side by side, checking every view, reward and end."""
    rules, players, options, hands, reward, batch, steps = case
    seed = 11
    v = VectorEnv(rules, players, options, batch=batch, seed=seed, hands=hands, reward=reward,
                  backend=backend)
    refs = [BarbuEnv(rules, players, options, reward=reward, hands=hands) for _ in range(batch)]
    for b, ref in enumerate(refs):
        ref.reset(seed=stream_seed(seed, b))
    obs, mask, player = v.reset()
    assert obs.shape == (batch, v.obs_size) and obs.dtype == np.float32 and mask.shape == (batch, 93)
    assert [r.game_state.seed for r in refs] == v.seeds.tolist()
    rng = np.random.default_rng(seed)
    finished = 0
    for _ in range(steps * SCALE):
        for b, ref in enumerate(refs):
            _check_view(v, ref, b, obs, mask, player)
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
        obs, mask, player, rewards, done = v.step(actions)
        for b, ref in enumerate(refs):
            ref.step(int(actions[b]))
            want = [ref.rewards[a] for a in ref.possible_agents]
            assert rewards[b].tolist() == want, f"game {b}: rewards {rewards[b]} != {want}"
            over = all(ref.terminations.values())
            assert bool(done[b]) == over
            if over:
                finished += 1
                ref.reset()  # the next game of the stream, as the batch's auto-reset
                assert ref.game_state.seed == int(v.seeds[b])
    assert finished > 0 or hands is None
    print(f"{_id(case)}: {finished} games ended, {steps * SCALE * batch} steps")


@NUMBA
@pytest.mark.parametrize("rules, players", [("classic", 4), ("family", 3), ("family", 6)])
def test_reuse_writes_the_same_views_into_the_same_arrays(rules: str, players: int) -> None:
    """reuse=True: the numba backend's observations and masks are the default's, in one pair of arrays."""
    fresh = VectorEnv(rules, players, batch=24, seed=4, hands=2, backend="numba")
    reused = VectorEnv(rules, players, batch=24, seed=4, hands=2, backend="numba", reuse=True)
    obs, mask, _ = fresh.reset()
    obs2, mask2, _ = reused.reset()
    first = obs2, mask2
    rng = np.random.default_rng(4)
    for _ in range(300):
        assert np.array_equal(obs, obs2) and np.array_equal(mask, mask2)
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
        obs, mask, _, rewards, done = fresh.step(actions)
        obs2, mask2, _, rewards2, done2 = reused.step(actions)
        assert obs2 is first[0] and mask2 is first[1] and obs is not first[0]
        assert np.array_equal(rewards, rewards2) and np.array_equal(done, done2)


@NUMBA
@pytest.mark.parametrize("rules, players", [("classic", 4), ("family", 5)])
def test_the_compiled_view_writes_every_entry(rules: str, players: int) -> None:
    """kernels.read clears only some fields: one written over NaNs is the one written over zeros."""
    v = VectorEnv(rules, players, batch=32, seed=9, backend="numba")
    assert v._fast is not None
    _, mask, _ = v.reset()
    rng = np.random.default_rng(9)
    for step in range(400):
        if step % 40 == 0:
            poisoned = v._fast.read(v.games, np.full((32, v.obs_size), np.nan, dtype=np.float32))
            assert np.array_equal(poisoned, v._fast.read(v.games, np.zeros((32, v.obs_size), np.float32)))
        _, mask, _, _, _ = v.step([rng.choice(np.flatnonzero(row)) for row in mask])


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    v, twin = VectorEnv("family", 4, batch=3, seed=2), VectorEnv("family", 4, batch=3, seed=2)
    _, mask, _ = v.reset()
    twin.reset()
    good = np.array([int(np.flatnonzero(row)[0]) for row in mask])
    bad = good.copy()
    bad[1] = int(np.flatnonzero(~mask[1])[0])
    with pytest.raises(ValueError, match="game 1"):
        v.step(bad)
    after, want = v.step(good), twin.step(good)
    assert all(np.array_equal(x, y) for x, y in zip(after, want, strict=True))


def test_seeds_repeat_and_differ() -> None:
    a, b = VectorEnv(batch=4, seed=5), VectorEnv(batch=4, seed=6)
    a.reset(), b.reset()
    first = a.seeds.tolist()
    assert first != b.seeds.tolist() and len(set(first)) == 4
    a.reset(seed=5)
    assert a.seeds.tolist() == first


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError):
        VectorEnv("classic", 5)
    with pytest.raises(ValueError):
        VectorEnv(reward="trick")
    with pytest.raises(ValueError):
        VectorEnv(hands=29)
    with pytest.raises(ValueError, match="backend"):
        VectorEnv(backend="jax")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_the_first_deals_are_the_engine_s(players: int, backend: str) -> None:
    v = VectorEnv("family", players, batch=200, seed=players, backend=backend)
    v.reset()
    for b, seed in enumerate(v.seeds.tolist()):
        state = State(v.game, seed=seed)
        while state.phase == Phase.DEAL:
            state.deal_random()
        assert v.games.hands[b].tolist() == state.hands, f"game {b}"
        assert int(v.games.set_aside[b]) == state.set_aside
        assert int(v.games.declarer[b]) == state.declarer


def _triples(count: int) -> list[tuple[int, int, int]]:
    """(seed, hand, redeals) triples: small and 63-bit seeds, seeds of every length, all hands."""
    rng = random.Random(7)
    out = [(0, 0, 0), (2**63 - 1, 27, 0), (9, 9, 9), (10**18, 0, 1)]
    while len(out) < count:
        seed = rng.randrange(2**63) >> rng.randrange(64)
        out.append((seed, rng.randrange(29), rng.choice([0, 0, 0, 1, 2, 17])))
    return out


def test_the_key_is_the_int_random_seeds_with() -> None:
    """mt_keys' key words, least significant first, make the int CPython's str seeding hashes to."""
    names = [seed_of(*t) for t in _triples(300)] + ["", "x", "abc", "a" * 70]
    key, length = mt_keys(names)
    for b, s in enumerate(names):
        e = s.encode()
        a = int.from_bytes(e + hashlib.sha512(e).digest(), "big")
        assert length[b] == max(1, -(-a.bit_length() // 32))
        assert sum(int(key[w, b]) << (32 * w) for w in range(int(length[b]))) == a
        assert not key[int(length[b]):, b].any()


@NUMBA
def test_the_compiled_words_are_python_s() -> None:
    """Compiled.words (MT19937 seeded in numba) equals random.Random(s).getrandbits, deal for deal."""
    v = VectorEnv(batch=1, backend="numba")
    assert v._fast is not None
    triples = _triples(4000)
    names = [seed_of(*t) for t in triples]
    want = np.frombuffer(b"".join(_words(*t) for t in triples), dtype="<u4").reshape(-1, 104)
    assert np.array_equal(python_words(names), want)
    for part in (names, names[:1], names[1:37], names[::-7]):
        got = v._fast.words(part)
        assert got.shape == (len(part), 104) and got.dtype == np.uint32
        assert np.array_equal(got, python_words(part))
    assert np.array_equal(v._fast.words(names), want)


@NUMBA
def test_the_compiled_keys_are_mt_keys() -> None:
    """kernels.seed_keys (the seed string and its SHA-512 made in numba) gives mt_keys' key and lengths."""
    from barbu.vector import kernels

    triples = [*_triples(3000), (0, 0, 123456), (2**63 - 1, 2**31 - 1, 2**31 - 1)]
    seed, hand, redeals = (np.array(col, dtype=dtype) for col, dtype in
                           zip(zip(*triples, strict=True), (np.int64, np.int32, np.int32), strict=True))
    key = np.full((kernels.KEY_ROWS, len(triples)), 7, dtype=np.uint32)
    length = np.zeros(len(triples), dtype=np.int64)
    kernels.COMPILED["seed_keys"](seed, hand, redeals, key, length)
    want, want_length = mt_keys([seed_of(*t) for t in triples])
    assert np.array_equal(length, want_length)
    assert np.array_equal(key[:want.shape[0]], want) and not key[want.shape[0]:].any()


def test_it_needs_numpy_alone() -> None:
    # Gymnasium, when installed, is loaded by barbu.env's import (it registers barbu/Classic-v0);
    # with Gymnasium and PettingZoo both unimportable, barbu.vector still imports and runs.
    code = ("import sys; sys.modules['gymnasium'] = sys.modules['pettingzoo'] = None; import barbu.vector; "
            "barbu.vector.VectorEnv(batch=2).reset(); "
            "print(sorted({m.split('.')[0] for m in sys.modules if sys.modules[m] is not None}))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, timeout=60)
    assert "numpy" in out.stdout and "pettingzoo" not in out.stdout and "gymnasium" not in out.stdout


def _family_king(game: Game) -> int:
    return game.contract_index("king")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_family_redeal_is_the_engine_s(backend: str) -> None:
    """K♥ set aside when King of Hearts is the chooser's last challenge: dealt again, as the engine does."""
    v = VectorEnv("family", 6, batch=300, seed=1, backend=backend)
    v.reset()
    g, only_king = v.games, 127 & ~(1 << _family_king(v.game))
    g.used[np.arange(300), g.declarer] = only_king
    deal(g, v.tables, np.arange(300), v.game.hand_size, v._cards)
    redealt = 0
    for b, seed in enumerate(v.seeds.tolist()):
        state = State(v.game, seed=seed)
        state.used[state.declarer] = only_king
        while state.phase == Phase.DEAL:
            state.deal_random()
        assert (g.hands[b].tolist(), g.redeals[b]) == (state.hands, state.redeals), f"game {b}"
        redealt += state.redeals > 0
    assert redealt > 0


@NUMBA
def test_the_compiled_new_hand_redeals_as_the_engine() -> None:
    """kernels.new_hands (reset, declarer, deal and redeals in one pass) deals the engine's cards."""
    v = VectorEnv("family", 6, batch=300, seed=1, backend="numba")
    v.reset()
    assert v._fast is not None
    g, only_king = v.games, 127 & ~(1 << _family_king(v.game))
    g.used[:] = only_king  # every seat: whoever declares has King of Hearts left alone
    g.phase[:], g.hands[:] = 6, 0  # so that the pass visibly writes the new hand
    v._fast.next_hands(g, np.arange(300))
    redealt = 0
    for b, seed in enumerate(v.seeds.tolist()):
        state = State(v.game, seed=seed)
        state.used[state.declarer] = only_king
        while state.phase == Phase.DEAL:
            state.deal_random()
        got = (g.hands[b].tolist(), int(g.set_aside[b]), int(g.redeals[b]), int(g.declarer[b]))
        assert got == (state.hands, state.set_aside, state.redeals, state.declarer), f"game {b}"
        assert int(g.phase[b]) == Phase.CHOOSE and int(g.current[b]) == state.current
        redealt += state.redeals > 0
    assert redealt > 0


def test_queens_with_every_queen_set_aside_end_before_the_first_card() -> None:
    v = VectorEnv("family", 6, batch=2, seed=3, reward="hand")
    v.reset()
    g, queens = v.games, sum(1 << (13 * s + 10) for s in range(4))
    others = [c for c in range(52) if not queens >> c & 1]
    hands = [sum(1 << c for c in others[k::6]) for k in range(6)]
    state = State(v.game, seed=int(v.seeds[0]))
    state.deal(hands, queens)
    g.hands[0], g.set_aside[0] = hands, queens
    v.views.new_hand(g, np.array([0]))
    obs, mask, _ = v._view()
    assert np.array_equal(obs[0], encode(state.observe(state.current)))
    queens_id = 53 + v.game.contract_index("queens")
    assert mask[0, queens_id]
    actions = np.array([queens_id, int(np.flatnonzero(mask[1])[0])])
    obs, mask, player, rewards, done = v.step(actions)
    state.apply(queens_id - 53 + CONTRACT)
    while state.phase == Phase.DEAL:
        state.deal_random()
    assert state.hand_no == 1 and int(g.hand_no[0]) == 1
    assert rewards[0].tolist() == [0.0] * 6 and not done[0]
    assert int(player[0]) == state.current
    assert np.array_equal(obs[0], encode(state.observe(state.current)))
