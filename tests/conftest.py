"""Shared fixtures: the path of the example records (tests/data) and a random-game driver."""

from __future__ import annotations

import random
from pathlib import Path

from barbu.engine.game import Game
from barbu.engine.state import Phase, State

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "tests" / "data"  # example records with the replay output each must give


def play_random(game: Game, seed: int, hands: int | None = None) -> State:
    """A complete (or ``hands``-long) game of uniformly random legal actions."""
    rng = random.Random(seed)
    state = State(game, seed=seed)
    limit = game.num_hands if hands is None else hands
    while not state.is_over and state.hand_no < limit:
        if state.phase == Phase.DEAL:
            state.deal_random()
        else:
            state.apply(rng.choice(state.legal_actions()))
    return state
