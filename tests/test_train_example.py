"""examples/train_policy.py: a few seconds of training, then its network in barbu arena against random."""

from __future__ import annotations

import re
import subprocess
import sys
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
