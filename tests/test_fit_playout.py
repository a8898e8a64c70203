"""research/fit-playout.py: strong's decisions become feature rows; the regression finds a known policy."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("numpy")
from tests.script_helpers import load_script

from barbu.bots import fitted
from barbu.engine.cards import bits
from barbu.engine.game import Game
from barbu.engine.state import Phase
from barbu.tools.arena import deal_state


def test_strongs_decisions_become_rows_of_features() -> None:
    script = load_script("fit-playout")
    rows = script.decisions("classic", 1)  # deal 1: No Queens
    assert len(rows) > 20
    for cid, feats, choice, _rules in rows:
        assert cid == "no-queens" and len(feats) >= 2 and 0 <= choice < len(feats)
        assert all(len(f) == len(fitted.FEATURES) for f in feats)
    assert script.decisions("classic", 6) == []  # Dominoes is no trick game


def test_the_regression_recovers_a_known_policy() -> None:
    script = load_script("fit-playout")
    rng = random.Random(3)
    truth = [rng.uniform(-3, 3) for _ in fitted.FEATURES]
    rows = []
    for k in range(0, 60, 7):  # No Tricks deals, played at random
        state = deal_state(Game.classic(), 5, k)
        play = random.Random(k)
        hand_no = state.hand_no
        while state.hand_no == hand_no and state.hand_in_progress:
            if state.phase == Phase.PLAY:
                cards = list(bits(state.legal_mask()))
                if len(cards) > 1:
                    feats = fitted.features(state, cards)
                    scores = [sum(a * b for a, b in zip(f, truth, strict=True)) for f in feats]
                    rows.append(("no-tricks", feats, scores.index(max(scores)), False))
            state._do(play.choice(state.legal_actions()))
    cut = len(rows) * 3 // 4
    w = script.fit(rows[:cut])
    assert script.agreement(rows[cut:], w) > 0.85
