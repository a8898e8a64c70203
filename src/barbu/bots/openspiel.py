"""The ``os-ismcts`` and ``os-mcts`` levels: OpenSpiel's own ISMCTS and MCTS bots, unmodified.

At each decision the bot rebuilds the hand in progress as an OpenSpiel state of
the one-hand game (``barbu.openspiel``, ``hands=1`` from this hand's deal, so
that a search ends with the hand, as the engine's own bots judge a decision)
and asks OpenSpiel's bot for its action. Rebuilding rather than following the
table keeps the state in step by construction: its deal and every public
decision of the hand come from the arena's engine, so the OpenSpiel state is the
arena's hand, and nothing drifts.

- ``os-ismcts`` is given only the seat's observation: the OpenSpiel state it
  starts from has the other hands drawn by :func:`barbu.bots.sampling.sample_state`,
  and ISMCTS redraws them for every simulation through the game's
  ``resample_from_infostate``. A fair player.
- ``os-mcts`` is a **cheating baseline**: MCTS searches one perfect-information
  tree, so it is given the true deal (the arena shows it the state). It measures
  what seeing every card is worth, not a way to play.

Both evaluate leaves by one random rollout to the end of the hand; the
exploration constant is in points, per rule set.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from barbu.bots.base import Bot
from barbu.bots.sampling import sample_state
from barbu.engine.game import Game
from barbu.engine.observation import Observation
from barbu.engine.state import State
from barbu.env.actions import to_engine
from barbu.openspiel.deal import deal_order, hand_decisions, hand_origin
from barbu.openspiel.spiel import hand_game, ismcts_bot, mcts_bot


class SpielBot(Bot):
    """Rebuild the hand as an OpenSpiel state, let an OpenSpiel bot choose."""

    searches = True
    simulations = 0
    # UCT's exploration constant, in points: about the spread of a hand's random playouts.
    uct_c: ClassVar[dict[str, float]] = {"classic": 10.0, "family": 40.0}

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self._bots: dict[Game, Any] = {}

    def act(self, obs: Observation) -> int:
        if len(obs.legal) == 1:
            return obs.legal[0]
        game = hand_game(obs.game)
        state = game.state_at(hand_origin(obs))
        for card in deal_order(self.deal(obs)):
            state.apply_action(card)
        for a in hand_decisions(obs):
            state.apply_engine_action(a)
        assert state.current_player() == obs.seat, "the rebuilt hand is not at this seat's turn"
        action = to_engine(int(self._bot(obs.game).step(state)), obs.seat, obs.game)
        assert action in obs.legal, f"OpenSpiel's bot answered {action}, not a legal action"
        return action

    def deal(self, obs: Observation) -> list[int]:
        """The hands as dealt, for the state the search starts from."""
        raise NotImplementedError

    def _bot(self, game: Game) -> Any:
        if game not in self._bots:
            self._bots[game] = self.make(game)
        return self._bots[game]

    def make(self, game: Game) -> Any:
        raise NotImplementedError


class IsmctsBot(SpielBot):
    """OpenSpiel's ISMCTS, from the seat's view only."""

    name = "os-ismcts"
    simulations = 400

    def deal(self, obs: Observation) -> list[int]:
        # Any deal the seat cannot rule out: ISMCTS redraws it for every simulation.
        return sample_state(obs, self.rng).dealt

    def make(self, game: Game) -> Any:
        return ismcts_bot(game, self.uct_c[game.ruleset], self.simulations, self.rng.getrandbits(31))


class MctsBot(SpielBot):
    """OpenSpiel's MCTS on the true deal: a cheating baseline."""

    name = "os-mcts"
    cheats = True
    simulations = 800

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self._truth: State | None = None

    def show(self, state: State) -> None:
        self._truth = state

    def act(self, obs: Observation) -> int:
        truth = self._truth
        if truth is None or truth.observe(obs.seat) != obs:
            raise RuntimeError("os-mcts plays on the true deal: only `barbu arena` seats it "
                               "(it shows the bot the state before each decision)")
        return super().act(obs)

    def deal(self, obs: Observation) -> list[int]:
        assert self._truth is not None
        return list(self._truth.dealt)

    def make(self, game: Game) -> Any:
        return mcts_bot(game, self.uct_c[game.ruleset], self.simulations, self.rng.getrandbits(31))


LEVELS: dict[str, Callable[[int | None], Bot]] = {"os-ismcts": IsmctsBot, "os-mcts": MctsBot}
