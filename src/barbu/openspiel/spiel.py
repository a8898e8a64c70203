"""OpenSpiel's game loader and search bots behind typed functions (pyspiel itself is untyped)."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from barbu.engine.game import Game
from barbu.openspiel.game import BarbuGame


@functools.cache
def hand_game(game: Game) -> BarbuGame:
    """The one-hand OpenSpiel game of these rules (a search from a hand's deal ends with it)."""
    params = {"rules": game.ruleset, "players": game.players, "options": "+".join(sorted(game.options)),
              "hands": 1}
    loaded = pyspiel.load_game("barbu", params)
    assert isinstance(loaded, BarbuGame)
    return loaded


def mcts_bot(game: Game, uct_c: float, simulations: int, seed: int) -> Any:
    """OpenSpiel's MCTSBot with one random rollout per leaf (its defaults otherwise)."""
    rs = np.random.RandomState(seed)
    return mcts.MCTSBot(hand_game(game), uct_c, simulations, mcts.RandomRolloutEvaluator(1, rs),
                        random_state=rs)


def ismcts_bot(game: Game, uct_c: float, simulations: int, seed: int) -> Any:
    """OpenSpiel's ISMCTSBot with one random rollout per leaf, a fresh world every simulation.

    Its worlds come from the game's ``resample_from_infostate``, through a sampler seeded
    here: the bot's own default makes a randomly seeded one per call, and a match would
    not replay from its seed.
    """
    rs = np.random.RandomState(seed)
    bot = ismcts.ISMCTSBot(hand_game(game), mcts.RandomRolloutEvaluator(1, rs), uct_c, simulations,
                           random_state=rs)
    sampler = pyspiel.UniformProbabilitySampler(seed, 0.0, 1.0)
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, sampler))
    return bot
