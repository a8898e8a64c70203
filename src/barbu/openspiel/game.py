"""The pyspiel classes: Barbu registered with OpenSpiel as the Python game ``barbu``.

pyspiel is untyped: this module is the only one that subclasses its classes
(mypy lets it, see pyproject.toml); everything it computes comes from the typed
modules beside it. Action ids are barbu.env's 93 (:mod:`barbu.env.actions`: one
table for every rule set and table size, doubles as seat masks relative to the
actor); chance outcomes are cards (:mod:`barbu.openspiel.deal`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pyspiel

from barbu.bots.sampling import sample_state
from barbu.engine.cards import RANKS, SUITS, card_str, mask_str
from barbu.engine.errors import IllegalActionError
from barbu.engine.game import Game
from barbu.engine.state import CHANCE, TERMINAL, Phase, State
from barbu.env.actions import NUM_ACTIONS, from_engine, legal_ids, to_engine
from barbu.openspiel.box import EngineBox, SharedBox
from barbu.openspiel.deal import deal_order, deal_outcomes, deal_size, hands_of
from barbu.openspiel.params import DEFAULTS, Settings, settings_of
from barbu.openspiel.tensors import fill, named_views
from barbu.openspiel.views import info_string, observation_string

RESAMPLE_TRIES = 20  # sampled deals tried before a resample gives up (see resample_from_infostate)


def game_type(s: Settings) -> Any:
    """The GameType of one parameter set (zero-sum only for a whole classic game)."""
    zero = s.zero_sum
    return pyspiel.GameType(
        short_name="barbu", long_name="Barbu",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM if zero else pyspiel.GameType.Utility.GENERAL_SUM,
        # Terminal: OpenSpiel's MCTS refuses any other model. rewards() still gives each hand's
        # scores at the step that ends it, and they add up to returns().
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=6, min_num_players=3,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=dict(DEFAULTS))


def game_info(s: Settings) -> Any:
    return pyspiel.GameInfo(
        num_distinct_actions=NUM_ACTIONS, max_chance_outcomes=52, num_players=s.game.players,
        min_utility=-s.utility_bound, max_utility=s.utility_bound,
        utility_sum=0.0 if s.zero_sum else None, max_game_length=s.max_decisions)


GAME_TYPE = game_type(settings_of({}))


class BarbuGame(pyspiel.Game):
    """Barbu for OpenSpiel; parameters in :mod:`barbu.openspiel.params`."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        self.settings = settings_of(params or {})
        super().__init__(game_type(self.settings), game_info(self.settings), self.settings.params)
        s = self.settings
        self.origin = SharedBox(State(s.game, seed=0, first_declarer=s.first_declarer))

    @property
    def engine_game(self) -> Game:
        return self.settings.game

    def new_initial_state(self) -> BarbuState:
        return BarbuState(self, self.origin)

    def state_at(self, origin: State) -> BarbuState:
        """A state starting from an engine state at a deal (a hand in the middle of a game).

        ``hands`` then counts from that hand, and returns from its totals.
        """
        if origin.phase != Phase.DEAL:
            raise ValueError("an OpenSpiel state starts at a deal")
        return BarbuState(self, SharedBox(origin.copy()))

    def max_chance_nodes_in_history(self) -> int:
        return self.settings.max_chance_nodes

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> BarbuObserver:
        kind = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        return BarbuObserver(self.settings.game, kind, params)


class BarbuState(pyspiel.State):
    """A Barbu game in progress: an engine state and the cards dealt so far in this deal."""

    def __init__(self, game: BarbuGame, origin: SharedBox) -> None:
        super().__init__(game)
        s = game.settings
        self._origin = origin  # shared by every clone: the state this game started from
        self._box = EngineBox(origin.state.copy())
        self._dealt: list[int] = []  # chance outcomes of the deal in progress
        self._moves = 0  # len(history()), kept here because history() copies it out
        self._deal_start = 0  # history index of this hand's (last) deal
        self._end_hand = origin.state.hand_no + s.hands
        self._sign = 1.0 if s.game.is_classic else -1.0  # family penalties: lower is better
        self._rewards = [0.0] * s.game.players

    @property
    def engine(self) -> State:
        """The engine state (read it, do not change it: apply actions through OpenSpiel)."""
        return self._box.state

    # -- the OpenSpiel API ----------------------------------------------------

    def current_player(self) -> int:
        s = self._box.state
        if s.current == TERMINAL or s.hand_no >= self._end_hand:
            return int(pyspiel.PlayerId.TERMINAL)
        return s.current if s.current != CHANCE else int(pyspiel.PlayerId.CHANCE)

    def is_terminal(self) -> bool:
        s = self._box.state
        return s.current == TERMINAL or s.hand_no >= self._end_hand

    def _legal_actions(self, player: int) -> list[int]:
        s = self._box.state
        return sorted(legal_ids(s.legal_actions(), s.current, s.game))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return deal_outcomes(self._box.state, self._dealt)

    def _apply_action(self, action: int) -> None:
        s = self._box.state
        action = int(action)
        self._moves += 1
        if s.phase == Phase.DEAL:
            # A hand's scores stay the rewards until the next decision: OpenSpiel reads
            # rewards at decision nodes only, and the next deal's steps are chance nodes.
            self._deal_card(s, action)
            return
        self._rewards = [0.0] * len(self._rewards)
        hands_done = s.hand_no
        s.apply(to_engine(action, s.current, s.game))
        if s.hand_no > hands_done:
            self._rewards = [self._sign * x for x in s.history[-1].scores]
            self._deal_start = self._moves

    def _deal_card(self, s: State, card: int) -> None:
        if not any(c == card and p > 0 for c, p in deal_outcomes(s, self._dealt)):
            raise IllegalActionError(f"{card!r} is not a card that can be dealt now")
        self._dealt.append(card)
        if len(self._dealt) == deal_size(s):
            hands, aside = hands_of(s, self._dealt)
            accepted = s.deal(hands, aside)
            assert accepted, "the chance model conditions away every redeal"
            self._dealt = []

    def rewards(self) -> list[float]:
        return list(self._rewards)

    def returns(self) -> list[float]:
        start = self._origin.state.totals
        return [self._sign * (t - t0) for t, t0 in zip(self._box.state.totals, start, strict=True)]

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return "deal " + card_str(int(action))
        game = self._box.state.game
        return game.action_str(to_engine(int(action), player, game))

    def __str__(self) -> str:
        return describe(self._box.state, self._dealt)

    def apply_engine_action(self, action: int) -> None:
        """Apply an action written as the engine's code (:mod:`barbu.engine.game`)."""
        s = self._box.state
        self.apply_action(from_engine(action, s.current, s.game))

    # -- ISMCTS ---------------------------------------------------------------

    def resample_from_infostate(self, player_id: int, probability_sampler: Callable[[], float]) -> BarbuState:
        """A state the seat cannot tell from this one: the hand in progress redealt.

        The hidden cards of the current hand are drawn by the bots' sampler
        (:mod:`barbu.bots.sampling`: the seat's own cards, everything played, and
        the voids and passes the play revealed); the state is then rebuilt by
        replaying this state's history with the new deal in place of the old, so
        its history is a real one. A deal the history cannot be replayed on is
        drawn again. Earlier hands are kept as they were played: their hidden
        cards change nothing that follows.
        """
        if self.is_terminal():
            clone: BarbuState = self.clone()  # the game is over: what it hides can change nothing
            return clone
        rng = random.Random(int(probability_sampler() * 2**53))
        obs = self._box.state.observe(player_id)
        for _ in range(RESAMPLE_TRIES):
            dealt = None if obs.phase == Phase.DEAL else sample_state(obs, rng).dealt
            try:
                return self._redealt(dealt, rng)
            except IllegalActionError:
                # The sampler infers nothing from an overtrump option's refusals, and drops a
                # constraint it cannot meet rather than fail: the replay then breaks a rule.
                continue
        raise RuntimeError(f"no deal consistent with seat {player_id}'s view in {RESAMPLE_TRIES} tries")

    def _redealt(self, dealt: list[int] | None, rng: random.Random) -> BarbuState:
        new = BarbuState(self.get_game(), self._origin)
        history = self.history()
        for a in history[:self._deal_start]:
            new.apply_action(a)
        if dealt is None:  # a deal in progress: the seat has seen none of it
            for _ in self._dealt:
                cards, weights = zip(*new.chance_outcomes(), strict=True)
                new.apply_action(rng.choices(cards, weights)[0])
            return new
        for a in deal_order(dealt):
            new.apply_action(a)
        for a in history[self._deal_start + deal_size(self._box.state):]:
            new.apply_action(a)
        return new


def describe(s: State, dealt: list[int]) -> str:
    """The whole state as text, hidden cards included (OpenSpiel's ``str(state)``)."""
    g = s.game
    lines = [f"hand {s.hand_no + 1}/{g.num_hands} · {s.phase.name.lower()} · declarer {s.declarer}"
             + (f" · to play {s.current}" if s.current >= 0 else "")]
    if s.phase == Phase.DEAL:
        lines.append("dealing: " + " ".join(card_str(x) for x in dealt))
    else:
        lines.append(_setup(s))
        lines += [f"seat {i}: {mask_str(h)}" for i, h in enumerate(s.hands)]
        if s.set_aside:
            lines.append("set aside: " + mask_str(s.set_aside))
        lines.append("play: " + " ".join(f"{p}:{g.action_str(a)}"
                                         for p, a in zip(s.actors, s.actions, strict=True)))
    lines.append("scores: " + " ".join(map(str, s.totals)))
    return "\n".join(lines)


def _setup(s: State) -> str:
    c = s.contract
    text = f"contract {c.id if c else '-'}"
    if s.trump >= 0:
        text += f" · trump {SUITS[s.trump]}"
    if s.start_rank >= 0:
        text += f" · rank {RANKS[s.start_rank]}"
    if any(s.doubled):
        text += " · doubles " + " ".join(f"{a}>{b}" for a, b in s.doubles_list())
    return text


class BarbuObserver:
    """OpenSpiel's PyObserver: strings and tensors of one seat's view, from observe(seat).

    Tensors are the default kinds' (the seat's private cards and the public table): with
    ``private_info`` NONE or no public information, an observer gives strings only.
    """

    def __init__(self, game: Game, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"the barbu observer takes no parameters, not {params}")
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("a barbu observation is one seat's view: no observer sees every hand")
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.public = bool(iig_obs_type.public_info)
        self.tensor: Any = None
        self.dict: dict[str, Any] = {}
        if self.private and self.public:
            self.tensor, self.dict = named_views(game, self.perfect_recall)

    def set_from(self, state: BarbuState, player: int) -> None:
        if self.tensor is not None:
            fill(self.tensor, state.engine.observe(player), self.perfect_recall)

    def string_from(self, state: BarbuState, player: int) -> str:
        obs = state.engine.observe(player)
        view = info_string if self.perfect_recall else observation_string
        return view(obs, self.private, self.public)
