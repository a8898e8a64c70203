"""Mini-Barbu as the OpenSpiel game ``barbu_mini``: one hand on a few cards, small enough for exact methods.

The rules are the engine's family rules (RULES.md, "Mini-Barbu, for exact methods") on a
smaller deck and a few trick challenges: :class:`~barbu.engine.game.Game` with ``deck``
and ``contract_ids``. Only the chance model differs from ``barbu``: the whole deal is one
chance node whose outcomes are the deals themselves, each seat's cards as a set, so no
deal is counted once per order its cards could come in (with two cards each, that is
eight times fewer states), and CFR and exact best responses walk the whole tree.

==================  ========================  ===========================================
``players``         3                         3 to 6
``suits``           ``SH``                    the suits in play, from ``SHDC``
``ranks``           ``QKA``                   the ranks in play in every suit, from ``23456789TJQKA``
``contracts``       ``tricks+hearts+queens``  the challenges the chooser may pick from, joined by ``+``
``first_declarer``  0                         the seat that chooses the challenge
==================  ========================  ===========================================

Cards that do not divide evenly are set aside face up, as in family Barbu.

>>> import pyspiel
>>> import barbu.openspiel
>>> game = pyspiel.load_game("barbu_mini")  # six cards, two each: 90 deals
>>> state = game.new_initial_state()
>>> len(state.chance_outcomes()), game.num_players(), game.engine_game.hand_size
(90, 3, 2)
>>> state.apply_action(0)
>>> state.action_to_string(state.legal_actions()[0]), state.information_state_string().splitlines()[-2]
('tricks', 'hand: KS QS')
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pyspiel

from barbu.engine.cards import KH_MASK, RANKS, SUITS, card, cards_of, mask_str
from barbu.engine.errors import IllegalActionError
from barbu.engine.game import Game
from barbu.engine.state import State
from barbu.env.actions import NUM_ACTIONS
from barbu.openspiel.box import SharedBox
from barbu.openspiel.deal import king_must_be_dealt
from barbu.openspiel.game import BarbuGame, BarbuState
from barbu.openspiel.params import Settings

MINI_DEFAULTS: dict[str, Any] = {"players": 3, "suits": "SH", "ranks": "QKA",
                                 "contracts": "tricks+hearts+queens", "first_declarer": 0}
Deal = tuple[tuple[int, ...], int]  # each seat's cards, and the cards set aside


@dataclass(frozen=True)
class MiniSettings:
    """A checked parameter set of ``barbu_mini`` and the engine game it plays."""

    settings: Settings
    params: dict[str, Any]


def mini_deck(suits: str, ranks: str) -> int:
    """The cards of these suits and ranks, as a mask; ValueError names an unknown or repeated letter."""
    for name, text, alphabet in (("suit", suits, SUITS), ("rank", ranks, RANKS)):
        for k, ch in enumerate(text):
            if ch not in alphabet:
                raise ValueError(f"unknown {name} {ch!r} (use letters of {alphabet})")
            if ch in text[:k]:
                raise ValueError(f"{name} {ch!r} is listed twice")
    return sum(1 << card(RANKS.index(r), SUITS.index(s)) for s in suits for r in ranks)


def mini_settings(params: Mapping[str, Any]) -> MiniSettings:
    """Check the parameters (missing ones take their defaults); ValueError says what is wrong."""
    unknown = sorted(set(params) - set(MINI_DEFAULTS))
    if unknown:
        raise ValueError(f"unknown barbu_mini parameter {unknown[0]!r} (known: {', '.join(MINI_DEFAULTS)})")
    p = {**MINI_DEFAULTS, **params}
    suits, ranks = str(p["suits"]).upper(), str(p["ranks"]).upper()
    ids = tuple(c.strip() for c in str(p["contracts"]).split("+") if c.strip())
    if not ids:
        raise ValueError("barbu_mini needs at least one contract")
    game = Game("family", int(p["players"]), deck=mini_deck(suits, ranks), contract_ids=ids)
    first = int(p["first_declarer"])
    if not 0 <= first < game.players:
        raise ValueError(f"first_declarer must be a seat, 0 to {game.players - 1}, not {first}")
    checked = {"players": game.players, "suits": suits, "ranks": ranks,
               "contracts": "+".join(ids), "first_declarer": first}
    return MiniSettings(Settings(game, 1, first), checked)


def all_deals(state: State) -> list[Deal]:
    """Every deal of the state's hand, each seat's cards low to high, in one fixed order.

    Deals the family rules would redeal (K♥ set aside when King of Hearts is the chooser's
    only challenge left) are left out, so a uniform pick is the rules' distribution.
    """
    g = state.game
    deals: list[Deal] = []

    def split(left: list[int], hands: tuple[int, ...]) -> None:
        if len(hands) == g.players:
            deals.append((hands, sum(1 << c for c in left)))
            return
        for chosen in itertools.combinations(left, g.hand_size):
            split([c for c in left if c not in chosen], (*hands, sum(1 << c for c in chosen)))

    split(cards_of(g.deck), ())
    if king_must_be_dealt(state):
        deals = [d for d in deals if not d[1] & KH_MASK]
    return deals


def mini_type(params: Mapping[str, Any]) -> Any:
    return pyspiel.GameType(
        short_name="barbu_mini", long_name="Mini-Barbu",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        # The challenges' totals differ (10 a trick, 10 a heart, 25 a queen): the chooser's pick
        # changes the sum, so the game is general-sum even though each challenge is constant-sum.
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=6, min_num_players=3,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=dict(params))


MINI_TYPE = mini_type(MINI_DEFAULTS)


class MiniBarbuGame(BarbuGame):
    """Mini-Barbu for OpenSpiel: ``barbu``'s states and observers, with the deal as one chance node."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        mini = mini_settings(params or {})
        s = self.settings = mini.settings
        origin = State(s.game, seed=0, first_declarer=s.first_declarer)
        self.deals = all_deals(origin)
        self.deal_index = {d[0]: i for i, d in enumerate(self.deals)}
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS, max_chance_outcomes=len(self.deals),
            num_players=s.game.players, min_utility=-s.utility_bound, max_utility=s.utility_bound,
            utility_sum=None, max_game_length=s.max_decisions)
        # BarbuGame.__init__ would describe the full game: this one's type and info are its own.
        pyspiel.Game.__init__(self, mini_type(MINI_DEFAULTS), info, mini.params)
        self.origin = SharedBox(origin)

    def new_initial_state(self) -> MiniBarbuState:
        return MiniBarbuState(self, self.origin)

    def state_at(self, origin: State) -> BarbuState:
        raise ValueError("a Mini-Barbu game is one hand: it starts only from its own deal")

    def max_chance_nodes_in_history(self) -> int:
        return 1


class MiniBarbuState(BarbuState):
    """A Mini-Barbu hand in progress: the deal is one chance outcome, an index into the game's deals."""

    def _mini(self) -> MiniBarbuGame:
        game = self.get_game()
        assert isinstance(game, MiniBarbuGame)
        return game

    def chance_outcomes(self) -> list[tuple[int, float]]:
        n = len(self._mini().deals)
        return [(i, 1.0 / n) for i in range(n)]

    def _deal_card(self, s: State, outcome: int) -> None:
        deals = self._mini().deals
        if not 0 <= outcome < len(deals):
            raise IllegalActionError(f"{outcome!r} is not a deal of this game (0 to {len(deals) - 1})")
        hands, aside = deals[outcome]
        accepted = s.deal(list(hands), aside)
        assert accepted, "the deals the rules would redeal are left out"

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            hands, _ = self._mini().deals[int(action)]
            return "deal " + " | ".join(mask_str(h) for h in hands)
        return super()._action_to_string(player, action)

    def _redealt(self, dealt: list[int] | None, rng: random.Random) -> BarbuState:
        """This hand again with the deal ``dealt`` (drawn here when None: the deal is still to come)."""
        game = self._mini()
        new = MiniBarbuState(game, self._origin)
        if dealt is None:
            new.apply_action(rng.randrange(len(game.deals)))
            return new
        new.apply_action(game.deal_index[tuple(dealt)])
        for a in self.history()[1:]:
            new.apply_action(a)
        return new


def efg_text(game: MiniBarbuGame) -> str:
    """The whole tree of a Mini-Barbu game in Gambit's EFG format, which ``pyspiel.load_efg_game`` reads.

    The same game as a table OpenSpiel walks in C++: CFR then spends its time on regrets rather
    than on cloning Python states. Actions are named as barbu writes them (``QS``, ``tricks``),
    the deals as ``deal`` and each seat's cards, and each information set by the seat's
    information-state string. OpenSpiel numbers action names in the order they first appear and
    applies a node's actions in the order of those numbers, so each node lists its actions in
    that order (:func:`_in_id_order`).
    """
    players = game.num_players()
    names = " ".join(f'"seat {p}"' for p in range(players))
    lines = [f'EFG 2 R "{_quoted(str(game))}" {{ {names} }}', ""]
    writer = _EfgWriter(lines)
    writer.node(game.new_initial_state())
    return "\n".join(lines) + "\n"


def _quoted(text: str) -> str:
    return text.replace("\\", "/").replace('"', "'").replace("\n", " / ")


class _EfgWriter:
    """Writes nodes depth first, numbering information sets and action names as the reader will."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.infosets: list[dict[str, int]] = []
        self.action_ids: dict[str, int] = {}
        self.outcomes = 0

    def node(self, state: Any) -> None:
        if state.is_terminal():
            self.outcomes += 1
            pay = " ".join(repr(float(x)) for x in state.returns())
            self.lines.append(f't "" {self.outcomes} "" {{ {pay} }}')
            return
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            listed = " ".join(f'"{_quoted(state.action_to_string(-1, a))}" {p!r}' for a, p in outcomes)
            self.lines.append(f'c "" 1 "deal" {{ {listed} }} 0')
            for a, _ in outcomes:
                self.node(state.child(a))
            return
        player = state.current_player()
        while len(self.infosets) <= player:
            self.infosets.append({})
        key = _quoted(state.information_state_string(player))
        number = self.infosets[player].setdefault(key, len(self.infosets[player]) + 1)
        actions = self._in_id_order(state, state.legal_actions())
        listed = " ".join(f'"{name}"' for name, _ in actions)
        self.lines.append(f'p "" {player + 1} {number} "{key}" {{ {listed} }} 0')
        for _, a in actions:
            self.node(state.child(a))

    def _in_id_order(self, state: Any, legal: list[int]) -> list[tuple[str, int]]:
        """The actions named, known names first by their number, then new ones (numbered here)."""
        named = [(_quoted(state.action_to_string(a)), a) for a in legal]
        known = sorted((x for x in named if x[0] in self.action_ids), key=lambda x: self.action_ids[x[0]])
        new = [x for x in named if x[0] not in self.action_ids]
        for name, _ in new:
            self.action_ids[name] = len(self.action_ids)
        return known + new
