"""examples/train_policy.py: a few seconds of training, then its network in barbu arena against random."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from barbu.bots import make_bot
from barbu.bots.learned import Network, PolicyBot
from barbu.engine.game import Game
from barbu.engine.state import Phase, State
from barbu.env.actions import from_engine, legal_ids
from barbu.env.encoding import encode

EXAMPLE = Path(__file__).parents[1] / "examples" / "train_policy.py"


def test_the_example_trains_then_plays_the_arena(tmp_path: Path) -> None:
    out = tmp_path / "policy.npz"
    run = subprocess.run([sys.executable, str(EXAMPLE), "--minutes", "0.05", "--deals", "3",
                          "--update", "256", "--batch", "16", "--hidden", "16", "--out", str(out)],
                         capture_output=True, text=True, timeout=300, check=True)
    trained = re.search(r"^trained .*: ([\d,]+) decisions .* (\d+) updates; saved", run.stdout, re.M)
    assert trained, run.stdout
    assert int(trained[1].replace(",", "")) > 256 and int(trained[2]) >= 1
    assert re.search(r"^arena, 3 deals × 4 rotations, seed 1: policy:.* vs random: [+-][\d.]+ points "
                     r"per hand, 95% interval \[[+-][\d.]+, [+-][\d.]+\]", run.stdout, re.M), run.stdout
    net = Network.load(out)
    assert (net.rules, net.players) == ("classic", 4)


def test_a_policy_bot_plays_its_best_legal_action(tmp_path: Path) -> None:
    net = Network.initial("family", 3, 8, np.random.default_rng(0))
    path = tmp_path / "p.npz"
    net.save(path)
    bot = make_bot(f"policy:{path}", seed=1)
    assert isinstance(bot, PolicyBot)
    state = State(Game.family(3), seed=4)
    state.deal_random()
    while state.phase != Phase.GAME_OVER and state.hand_no < 2:
        obs = state.observe(state.current)
        action = bot.act(obs)
        scores = net.logits(encode(obs)[None, :])[0]
        ids = legal_ids(obs.legal, obs.seat, obs.game)
        assert from_engine(action, obs.seat, obs.game) == max(ids, key=lambda i: scores[i])
        state.apply(action)
        while state.phase == Phase.DEAL:
            state.deal_random()
    classic = State(Game.classic(), seed=1)
    classic.deal_random()
    with pytest.raises(ValueError, match="trained for family with 3 players"):
        bot.act(classic.observe(classic.current))


def test_the_arena_refuses_a_policy_it_cannot_load(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from barbu.cli import main

    bots = f"policy:{tmp_path / 'missing.npz'},random,random,random"
    assert main(["arena", "--bots", bots, "--deals", "1", "--no-records", "--quiet"]) == 2
    assert "cannot load 'policy:" in capsys.readouterr().err


PPO_EXAMPLE = Path(__file__).parents[1] / "examples" / "train_maskable_ppo.py"


def ppo_example() -> types.ModuleType:
    """examples/train_maskable_ppo.py as a module (it imports sb3-contrib only to train)."""
    spec = importlib.util.spec_from_file_location("train_maskable_ppo", PPO_EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_ppo_actor_becomes_the_network_the_arena_plays(tmp_path: Path) -> None:
    """SB3's actor, action_net(relu(policy_net(x))) with (out, in) weights, as a barbu Network."""
    rng = np.random.default_rng(3)
    size = encode(State(Game.classic(), seed=0).observe(0)).shape[0]
    weights = {"mlp_extractor.policy_net.0.weight": rng.normal(size=(8, size)),
               "mlp_extractor.policy_net.0.bias": rng.normal(size=8),
               "mlp_extractor.value_net.0.weight": rng.normal(size=(8, size)),
               "action_net.weight": rng.normal(size=(93, 8)), "action_net.bias": rng.normal(size=93)}
    net = ppo_example().export(weights, "classic", 4)
    x = rng.random((5, size)).astype(np.float32)
    hidden = np.maximum(x @ weights["mlp_extractor.policy_net.0.weight"].T
                        + weights["mlp_extractor.policy_net.0.bias"], 0)
    expected = hidden @ weights["action_net.weight"].T + weights["action_net.bias"]
    assert np.allclose(net.logits(x), expected, rtol=1e-4, atol=1e-3)
    net.save(tmp_path / "ppo.npz")
    assert isinstance(make_bot(f"policy:{tmp_path / 'ppo.npz'}"), PolicyBot)
    deeper = {**weights, "mlp_extractor.policy_net.2.weight": rng.normal(size=(8, 8))}
    with pytest.raises(ValueError, match="more than one hidden layer"):
        ppo_example().export(deeper, "classic", 4)


def test_the_ppo_example_trains_then_plays_the_arena(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")  # the train extra (torch): not in dev
    out, curve = tmp_path / "ppo.npz", tmp_path / "curve.csv"
    run = subprocess.run([sys.executable, str(PPO_EXAMPLE), "--steps", "512", "--envs", "1", "--n-steps",
                          "256", "--hidden", "16", "--deals", "2", "--against", "random",
                          "--out", str(out), "--curve", str(curve)],
                         capture_output=True, text=True, timeout=600, check=True)
    assert re.search(r"^trained .*: 512 learner decisions", run.stdout, re.M), run.stdout
    assert re.search(r"^arena, 2 deals × 4 rotations, seed 1: policy:.* vs random: [+-][\d.]+ points",
                     run.stdout, re.M), run.stdout
    rows = curve.read_text(encoding="utf-8").splitlines()
    assert rows[0].startswith("steps,") and len(rows) >= 2
    assert Network.load(out).w1.shape[1] == 16
